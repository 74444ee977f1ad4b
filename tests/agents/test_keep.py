"""The Keep baseline: grouping and diagnosis on hand-made observations, and full episodes."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pytest

from sre_gym.agents import KeepAgent, make_agent
from sre_gym.clock import EPOCH

T0 = EPOCH + 600  # the first invocation's time
TOPOLOGY = {
    "services": [
        {
            "name": "frontend",
            "kind": "gateway",
            "calls": [{"service": "checkoutservice", "dependency": "hard"}],
        },
        {
            "name": "checkoutservice",
            "kind": "stateless",
            "calls": [{"service": "paymentservice", "dependency": "hard"}],
        },
        {"name": "paymentservice", "kind": "stateless", "calls": []},
        {"name": "loadgenerator", "kind": "loadgen", "calls": []},
    ],
    "nodes": [{"name": "kind-worker", "zone": "a"}, {"name": "kind-worker2", "zone": "a"}],
}
PODS = [
    {
        "name": "frontend-aaaaaaaaaa-11111",
        "deployment": "frontend",
        "node": "kind-worker",
        "status": "Running",
    },
    {
        "name": "checkoutservice-bbbbbbbbbb-22222",
        "deployment": "checkoutservice",
        "node": "kind-worker2",
        "status": "Running",
    },
    {
        "name": "paymentservice-cccccccccc-33333",
        "deployment": "paymentservice",
        "node": "kind-worker",
        "status": "Running",
    },
    {
        "name": "loadgenerator-dddddddddd-44444",
        "deployment": "loadgenerator",
        "node": "kind-worker",
        "status": "Running",
    },
]


def iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def alert(i: int, name: str, t: float, **labels) -> dict:
    return {
        "id": f"ALR-{i:04d}",
        "name": name,
        "severity": "warning",
        "state": "firing",
        "labels": {"alertname": name, **labels},
        "starts_at": iso(t),
        "ends_at": None,
        "summary": "",
    }


class World:
    """Answers the agent's reads the way the env would (one invocation later)."""

    def __init__(self, changes=(), netpols=(), nodes_down=()):
        self.changes, self.netpols, self.down = list(changes), list(netpols), set(nodes_down)
        self.reports = 0

    def answer(self, c: dict) -> dict:
        tool, args = c["tool"], c["args"]
        if tool == "get_topology":
            res = TOPOLOGY
        elif tool == "list_changes":
            res = self.changes
        elif tool == "k8s_get":
            res = {
                "pods": PODS,
                "deployments": [{"name": p["deployment"], "revision": 3} for p in PODS],
                "networkpolicies": self.netpols,
                "nodes": [
                    {"name": n["name"], "status": "NotReady" if n["name"] in self.down else "Ready"}
                    for n in TOPOLOGY["nodes"]
                ],
            }[args["kind"]]
        elif tool == "report_incident":
            self.reports += 1
            res = {"id": f"INC-{self.reports:04d}", **args}
        else:
            res = "done"
        return {"tool": tool, "ok": True, "result": res}


def obs(inv: int, alerts=(), results=()) -> dict:
    return {
        "time": np.array(T0 + 120 * inv),
        "invocation": inv,
        "alerts": json.dumps(list(alerts)),
        "tool_results": json.dumps(list(results)),
        "incidents": "[]",
        "notes": "",
    }


def two_steps(world: World, alerts: list[dict], agent: KeepAgent | None = None):
    """Invocation 0 (reads only), then invocation 1 with the read results and the alerts."""
    agent = agent or KeepAgent()
    first = agent(obs(0), {})
    assert [c["tool"] for c in first][:2] == ["get_topology", "list_changes"]
    results = [world.answer(c) for c in first]
    return first, agent(obs(1, alerts, results), {})


def acting(calls: list[dict]) -> list[dict]:
    return [
        c
        for c in calls
        if c["tool"] not in ("list_changes", "k8s_get", "get_topology", "k8s_describe")
    ]


def test_a_blocking_network_policy_is_reported_and_deleted():
    # the namespace's own policies (default deny, an allow rule per service) drop nothing the app
    # calls; an egress allow-list that leaves paymentservice out does
    own = [
        {
            "name": "default-deny-ingress",
            "pod_selector": {},
            "policy_types": ["Ingress"],
            "ingress": [],
            "egress": [],
            "created": iso(T0 - 86400),
        },
        {
            "name": "allow-paymentservice",
            "pod_selector": {"app": "paymentservice"},
            "policy_types": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "checkoutservice"}}}]}],
            "egress": [],
            "created": iso(T0 - 86400),
        },
        {
            "name": "allow-checkoutservice",
            "pod_selector": {"app": "checkoutservice"},
            "policy_types": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "frontend"}}}]}],
            "egress": [],
            "created": iso(T0 - 86400),
        },
        {
            "name": "allow-frontend",
            "pod_selector": {"app": "frontend"},
            "policy_types": ["Ingress"],
            "ingress": [{}],
            "egress": [],
            "created": iso(T0 - 86400),
        },
    ]
    pol = {
        "name": "checkout-egress-allowlist",
        "pod_selector": {"app": "checkoutservice"},
        "policy_types": ["Egress"],
        "ingress": [],
        "egress": [
            {
                "to": [{"namespaceSelector": {"matchLabels": {"name": "kube-system"}}}],
                "ports": [{"port": 53, "protocol": "UDP"}],
            }
        ],
        "created": iso(T0 - 30),
    }
    a = alert(1, "DependencyCallErrors", T0 + 60, client="checkoutservice", server="paymentservice")
    # the namespace's own policies alone raise no suspicion
    _, quiet = two_steps(World(netpols=own), [a])
    assert not any(c["tool"] == "delete_resource" for c in quiet)
    _, calls = two_steps(World(netpols=[*own, pol]), [a])
    assert acting(calls) == [
        {
            "tool": "report_incident",
            "args": {
                "alert_ids": ["ALR-0001"],
                "root_cause_services": ["checkoutservice"],
                "artifact": "networkpolicy/checkout-egress-allowlist",
                "summary": "keep: network policy networkpolicy/checkout-egress-allowlist denies "
                "checkoutservice -> paymentservice",
            },
        },
        {
            "tool": "delete_resource",
            "args": {
                "kind": "networkpolicies",
                "name": "checkout-egress-allowlist",
                "incident_id": "INC-0001",
            },
        },
    ]


def test_a_bad_deploy_is_named_by_its_commit_and_rolled_back():
    change = {
        "sha": "ab" * 20,
        "service": "paymentservice",
        "kind": "code",
        "title": "charge: x",
        "time": iso(T0 - 100),
        "revision": 3,
    }
    alerts = [
        alert(1, "ServiceHighErrorRate", T0 + 30, service_name="paymentservice"),
        alert(
            2, "DependencyCallErrors", T0 + 30, client="checkoutservice", server="paymentservice"
        ),
        alert(3, "EntrypointHighErrorRate", T0 + 60, service_name="frontend"),
    ]
    agent, world = KeepAgent(), World(changes=[change])
    _, calls = two_steps(world, alerts, agent)
    report, rollback = acting(calls)
    # the user-facing alert is weak evidence, newer than our reads: it joins one step later
    assert report["args"]["alert_ids"] == ["ALR-0001", "ALR-0002"]
    assert report["args"]["root_cause_services"] == ["paymentservice"]
    assert report["args"]["artifact"] == "ab" * 20
    assert rollback == {
        "tool": "rollback",
        "args": {"deployment": "paymentservice", "to_revision": 2, "incident_id": "INC-0001"},
    }
    later = agent(obs(2, alerts, [world.answer(c) for c in calls]), {})
    assert acting(later) == [
        {
            "tool": "update_incident",
            "args": {"incident_id": "INC-0001", "add_alert_ids": ["ALR-0003"]},
        }
    ]


def test_a_notready_node_gets_its_pods_deleted_but_not_the_load_generator():
    a = alert(1, "KubeNodeNotReady", T0 + 30, node="kind-worker")
    b = alert(2, "KubePodNotReady", T0 + 60, pod="paymentservice-cccccccccc-33333")
    _, calls = two_steps(World(nodes_down=["kind-worker"]), [a, b])
    report, *deletes = acting(calls)
    assert report["args"]["root_cause_services"] == ["kind-worker"]
    assert report["args"]["artifact"] == "kind-worker"
    assert sorted(report["args"]["alert_ids"]) == ["ALR-0001", "ALR-0002"]
    assert [d["args"]["name"] for d in deletes] == [
        "frontend-aaaaaaaaaa-11111",
        "paymentservice-cccccccccc-33333",
    ]


def test_a_throttled_pod_without_a_deploy_is_restarted_and_named():
    a = alert(
        1, "CPUThrottlingHigh", T0 + 30, pod="checkoutservice-bbbbbbbbbb-22222", container="server"
    )
    _, calls = two_steps(World(), [a])
    report, restart = acting(calls)
    assert report["args"]["artifact"] == "pod/checkoutservice-bbbbbbbbbb-22222"
    assert restart == {
        "tool": "restart",
        "args": {"deployment": "checkoutservice", "incident_id": "INC-0001"},
    }


def test_each_alert_joins_at_most_one_incident_and_unexplained_ones_wait_for_evidence():
    agent = KeepAgent()
    world = World()
    first = agent(obs(0), {})
    lone = alert(1, "ServiceHighErrorRate", T0 + 90, service_name="checkoutservice")
    second = agent(obs(1, [lone], [world.answer(c) for c in first]), {})
    assert acting(second) == []  # nothing explains it and our reads predate it: wait
    third = agent(obs(2, [lone], [world.answer(c) for c in second]), {})
    report = acting(third)[0]
    assert report["tool"] == "report_incident" and report["args"]["artifact"] is None
    assert report["args"]["root_cause_services"] == ["checkoutservice"]
    fourth = agent(obs(3, [lone], [world.answer(c) for c in third]), {})
    assert not any(c["tool"] in ("report_incident", "update_incident") for c in fourth)


@pytest.mark.parametrize("seed", range(3))
def test_keep_beats_runbook_and_stays_below_the_oracle(episode_info, seed):
    keep = episode_info("keep", seed)["scorecard"]
    runbook = episode_info("runbook", seed)["scorecard"]
    oracle = episode_info("oracle", seed)["scorecard"]
    assert runbook["marathon_score"] < keep["marathon_score"] < oracle["marathon_score"]
    # in a world where benign deploys outnumber faulty ones and recoveries take real rollouts,
    # keep's cues still localize and repair well above the runbook's
    assert keep["localization"] > max(0.35, runbook["localization"])
    assert keep["repair"] > max(0.1, runbook["repair"])
    assert keep["forbidden_attempts"] == 0


def test_keep_is_deterministic_and_ignores_the_env(episode):
    a = episode("keep", 0)
    assert make_agent("keep", env=a["env"], seed=7).__class__ is KeepAgent
    assert [json.loads(o["incidents"]) for o in a["obs"][-3:]] == [
        json.loads(o["incidents"]) for o in episode("keep", 0)["obs"][-3:]
    ]
