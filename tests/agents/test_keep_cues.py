"""Keep's cue readers: alert parsing, abnormal services, network-policy semantics, look-ups."""

from __future__ import annotations

from sre_gym.agents.keep import Alert as ReExportedAlert
from sre_gym.agents.keep_cues import (
    Alert,
    abnormal_services,
    denied_calls,
    denying_policies,
    node_of,
    parse_time,
    pod_of,
    reverted,
    rule_admits,
)
from sre_gym.clock import EPOCH, rfc3339


def raw(name: str, state: str = "firing", **labels) -> dict:
    return {"id": "ALR-0001", "name": name, "state": state, "labels": labels, "starts_at": None}


def test_parse_time_reads_rfc3339_and_treats_none_as_zero():
    assert parse_time(rfc3339(EPOCH + 125)) == EPOCH + 125
    assert parse_time("1970-01-01T00:01:00Z") == 60.0
    assert parse_time(None) == 0.0
    assert parse_time("") == 0.0


def test_alert_parse_names_the_callee_the_node_or_the_workload():
    edge = Alert.parse(raw("ServiceCallErrors", client="frontend", server="cartservice"))
    assert (edge.client, edge.server, edge.service, edge.workload) == (
        "frontend",
        "cartservice",
        "cartservice",
        "cartservice",
    )
    node = Alert.parse(raw("KubeNodeNotReady", node="kind-worker"))
    assert (node.node, node.service, node.workload) == ("kind-worker", None, "kind-worker")
    svc = Alert.parse(raw("ServiceHighLatency", service_name="adservice"))
    assert svc.service == "adservice" and svc.firing
    from_pod = Alert.parse(raw("CPUThrottlingHigh", "resolved", pod="cart-service-abc12-xyz89"))
    assert from_pod.service == "cart-service" and from_pod.pod == "cart-service-abc12-xyz89"
    assert not from_pod.firing
    assert Alert.parse(raw("KubePodNotReady", pod="odd")).service is None
    assert ReExportedAlert is Alert  # other modules import it from keep


def test_abnormal_services_are_those_with_their_own_firing_signals():
    alerts = [
        Alert("1", "KubePodCrashLooping", 0.0, True, service="a"),
        Alert("2", "ServiceHighErrorRate", 0.0, True, service="b"),
        Alert("3", "ServiceHighLatency", 0.0, False, service="c"),  # resolved
        Alert("4", "EntrypointHighLatency", 0.0, True, service="d"),  # not its own signal
        Alert("5", "KubeNodeNotReady", 0.0, True, node="n"),
    ]
    assert abnormal_services(alerts) == {"a", "b"}


def test_rule_admits_follows_peers_and_ports():
    to_b = {"to": [{"podSelector": {"matchLabels": {"app": "b"}}}], "ports": [{"port": 8080}]}
    assert rule_admits(to_b, "to", "b", 8080)
    assert not rule_admits(to_b, "to", "b", 9090)  # wrong port
    assert not rule_admits(to_b, "to", "c", 8080)  # wrong peer
    assert rule_admits({}, "to", "anyone", 1)  # no peers, no ports: everything
    dns = {"to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"app": "b"}}}]}
    assert not rule_admits(dns, "to", "b", None)  # another namespace


def policy(name: str, selector: dict, types: list[str], **rules) -> dict:
    return {"name": name, "pod_selector": selector, "policy_types": types, **rules}


EDGES = [("a", "b"), ("b", "c")]
PORTS = {"b": 80, "c": 81}
DENY_A_EGRESS = policy("deny-a", {"app": "a"}, ["Egress"], egress=[])
ALLOW_ALL_INGRESS = policy("allow-c", {"app": "c"}, ["Ingress"], ingress=[{}])


def test_denied_calls_drop_what_no_rule_of_a_selecting_policy_admits():
    assert denied_calls([], EDGES, PORTS) == set()
    assert denied_calls([DENY_A_EGRESS], EDGES, PORTS) == {("a", "b")}
    only_from_a = policy(
        "c-from-a",
        {"app": "c"},
        ["Ingress"],
        ingress=[{"from": [{"podSelector": {"matchLabels": {"app": "a"}}}]}],
    )
    assert denied_calls([only_from_a], EDGES, PORTS) == {("b", "c")}
    assert denied_calls([only_from_a, ALLOW_ALL_INGRESS], EDGES, PORTS) == set()


def test_denying_policies_name_the_policy_and_the_first_call_it_drops():
    callees = {"a": {"b"}, "b": {"c"}}
    assert denying_policies([DENY_A_EGRESS, ALLOW_ALL_INGRESS], callees, PORTS) == [
        (DENY_A_EGRESS, ("a", "b"))
    ]
    assert denying_policies([ALLOW_ALL_INGRESS], callees, PORTS) == []
    assert denying_policies([DENY_A_EGRESS], {}, PORTS) == []  # no call graph yet


def test_reverted_needs_a_later_revert_of_the_same_service():
    ch = {"sha": "abc", "service": "a", "time": rfc3339(EPOCH + 100), "title": "bump"}
    revert = {"service": "a", "time": rfc3339(EPOCH + 200), "title": 'Revert "bump"'}
    assert reverted(ch, {"abc": ch, "r": revert})
    assert not reverted(ch, {"abc": ch})
    assert not reverted(ch, {"abc": ch, "r": {**revert, "service": "b"}})
    assert not reverted(ch, {"abc": ch, "r": {**revert, "time": rfc3339(EPOCH + 50)}})


def test_pod_and_node_look_ups_skip_terminating_pods_and_unknown_names():
    pods = [
        {"name": "a-1", "deployment": "a", "node": "n1", "status": "Terminating"},
        {"name": "a-2", "deployment": "a", "node": "n2", "status": "Running"},
    ]
    assert pod_of(pods, "a") == "a-2"
    assert pod_of(pods, "b") is None
    assert node_of(pods, "a-1") == "n1"
    assert node_of(pods, "zz") is None


def test_an_alert_knows_how_long_it_fired():
    fired = {**raw("KubePodCrashLooping", pod="a-x1-y2"), "starts_at": rfc3339(EPOCH + 100)}
    still = Alert.parse(fired)
    assert still.end is None and still.lasted(EPOCH + 160) == 60
    gone = Alert.parse({**fired, "state": "resolved", "ends_at": rfc3339(EPOCH + 130)})
    assert gone.end == EPOCH + 130 and gone.lasted(EPOCH + 900) == 30
