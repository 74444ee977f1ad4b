"""The Keep baseline: grouping, diagnosis and careful acting on hand-made observations, and a
full episode under both scores."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np

from sre_gym.agents import KeepAgent, make_agent
from sre_gym.clock import EPOCH

T0 = EPOCH + 600  # the first invocation's time
TOPOLOGY = {
    "entrypoint": "frontend",
    "services": [
        {
            "name": "frontend",
            "kind": "gateway",
            "calls": [
                {"service": "checkoutservice", "dependency": "hard"},
                {"service": "paymentservice", "dependency": "soft"},
            ],
        },
        {
            "name": "checkoutservice",
            "kind": "stateless",
            "calls": [{"service": "paymentservice", "dependency": "hard"}],
        },
        {"name": "paymentservice", "kind": "stateless", "calls": []},
        {"name": "loadgenerator", "kind": "loadgen", "calls": []},
        {"name": "cart-snapshot", "kind": "batch", "calls": []},
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
    {
        "name": "cart-snapshot-eeeeeeeeee-55555",
        "deployment": "cart-snapshot",
        "node": "kind-worker",
        "status": "Running",
    },
]
BAD = "ab" * 20  # a faulty deploy of paymentservice, revision 5
GOOD = "cd" * 20  # the deploy before it, revision 3 (revision 4 went away in a rollback)
DEPLOY = {
    "sha": BAD,
    "service": "paymentservice",
    "kind": "code",
    "title": "charge: x",
    "time": None,  # set per test
    "revision": 5,
}
OWN_ERRORS = ["ERROR charge failed: Your credit card (ending 0454) expired on 1/2026"] * 5
THIRD_PARTY = ["ERROR upstream card gateway api.cardgateway.example timed out"] * 5


def iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def alert(i: int, name: str, t: float, state: str = "firing", **labels) -> dict:
    return {
        "id": f"ALR-{i:04d}",
        "name": name,
        "severity": "warning",
        "state": state,
        "labels": {"alertname": name, **labels},
        "starts_at": iso(t),
        "ends_at": iso(t + 30) if state == "resolved" else None,
        "summary": "",
    }


def revision(n: int, t: float, sha: str | None) -> dict:
    cause = f"deploy {sha[:7]}: change" if sha else "initial deploy"
    return {"revision": n, "created": iso(t), "change_cause": cause, "image": f"img:{n}"}


class World:
    """Answers the agent's reads the way the env would (one invocation later), and applies its
    rollbacks and restarts to the revisions it shows."""

    def __init__(self, changes=(), netpols=(), nodes_down=(), logs=None):
        self.changes, self.netpols, self.down = list(changes), list(netpols), set(nodes_down)
        self.logs = logs or {}
        self.history = {
            p["deployment"]: [revision(1, EPOCH - 86400, None), revision(3, T0 - 1000, GOOD)]
            for p in PODS
        }
        self.history["paymentservice"].append(revision(5, T0 - 100, BAD))
        self.reports = 0
        self.now = T0

    def current(self, svc: str) -> int:
        return self.history[svc][-1]["revision"]

    def answer(self, c: dict) -> dict:
        tool, args = c["tool"], c["args"]
        if tool == "get_topology":
            res = TOPOLOGY
        elif tool == "list_changes":
            res = self.changes
        elif tool == "k8s_get":
            res = {
                "pods": PODS,
                "deployments": [
                    {"name": svc, "revision": self.current(svc), "ready": "1/1"}
                    for svc in self.history
                ],
                "networkpolicies": self.netpols,
                "nodes": [
                    {"name": n["name"], "status": "NotReady" if n["name"] in self.down else "Ready"}
                    for n in TOPOLOGY["nodes"]
                ],
            }[args["kind"]]
        elif tool == "k8s_describe":
            hist = self.history[args["name"]]
            res = {"name": args["name"], "revision": hist[-1]["revision"], "revision_history": hist}
        elif tool == "query_logs":
            res = self.logs.get(args["service"], [])
        elif tool == "report_incident":
            self.reports += 1
            res = {"id": f"INC-{self.reports:04d}", **args}
        elif tool in ("rollback", "restart"):
            hist = self.history[args["deployment"]]
            n = max(h["revision"] for h in hist) + 1
            to = next((h for h in hist if h["revision"] == args.get("to_revision")), hist[-1])
            if tool == "rollback":
                hist.remove(to)
            hist.append({**to, "revision": n, "created": iso(self.now)})
            res = f"deployment.apps/{args['deployment']} {tool} done (now revision {n})"
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


def play(world: World, alerts, n: int, agent: KeepAgent | None = None) -> list[list[dict]]:
    """Invocations 0..n-1 (``alerts(inv)`` or a fixed list from invocation 1 on); the calls of
    each, answered by the world."""
    agent = agent or KeepAgent()
    out, results = [], []
    for inv in range(n):
        world.now = T0 + 120 * inv
        shown = alerts(inv) if callable(alerts) else (alerts if inv else [])
        calls = agent(obs(inv, shown, results), {})
        results = [world.answer(c) for c in calls]
        out.append(calls)
    return out


def two_steps(world: World, alerts: list[dict], agent: KeepAgent | None = None):
    """Invocation 0 (reads only), then invocation 1 with the read results and the alerts."""
    first, second = play(world, alerts, 2, agent)
    assert [c["tool"] for c in first][:2] == ["get_topology", "list_changes"]
    return first, second


def acting(calls: list[dict]) -> list[dict]:
    return [
        c
        for c in calls
        if c["tool"]
        not in ("list_changes", "k8s_get", "get_topology", "k8s_describe", "query_logs")
    ]


def deploy_alerts() -> list[dict]:
    return [
        alert(1, "ServiceHighErrorRate", T0, service_name="paymentservice"),
        alert(2, "DependencyCallErrors", T0, client="checkoutservice", server="paymentservice"),
        alert(3, "EntrypointHighErrorRate", T0 + 60, service_name="frontend"),
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


def test_a_bad_deploy_is_named_by_its_commit_and_rolled_back_by_its_history():
    world = World(changes=[{**DEPLOY, "time": iso(T0 - 100)}], logs={"paymentservice": OWN_ERRORS})
    calls = [acting(c) for c in play(world, deploy_alerts(), 6)]
    # errors alone wait until keep has read the service's logs (a third party may be failing)
    assert calls[1] == []
    (report,) = calls[2]
    assert report["tool"] == "report_incident"
    assert report["args"]["root_cause_services"] == ["paymentservice"]
    assert report["args"]["artifact"] == BAD
    assert set(report["args"]["alert_ids"]) == {"ALR-0001", "ALR-0002", "ALR-0003"}
    # the rollback waits for the revision history, and goes to the revision before the deploy as
    # the history says (3), not by arithmetic (4, gone)
    assert calls[3] == [
        {
            "tool": "rollback",
            "args": {"deployment": "paymentservice", "to_revision": 3, "incident_id": "INC-0001"},
        }
    ]
    assert calls[4] == calls[5] == []  # once: the alerts still fire, but no second rollback


def test_errors_whose_logs_blame_a_third_party_page_nobody():
    world = World(changes=[{**DEPLOY, "time": iso(T0 - 100)}], logs={"paymentservice": THIRD_PARTY})
    calls = play(world, deploy_alerts(), 5)
    assert any(c["tool"] == "query_logs" for c in calls[1])
    assert all(acting(c) == [] for c in calls)


def test_keep_undoes_its_rollback_when_a_fix_landed_just_before_it():
    world = World(changes=[{**DEPLOY, "time": iso(T0 - 100)}], logs={"paymentservice": OWN_ERRORS})
    agent, results, acted = KeepAgent(), [], []
    for inv in range(7):
        world.now = T0 + 120 * inv
        calls = agent(obs(inv, deploy_alerts() if inv else [], results), {})
        if inv == 3:  # keep rolls back at T0 + 360, on reads of T0 + 240...
            assert [c["tool"] for c in acting(calls)] == ["rollback"]
            # ...and the orchestrator's revert landed at T0 + 300, in between
            world.history["paymentservice"].append(revision(6, T0 + 300, "ef" * 20))
            world.changes.append(
                {
                    "sha": "ef" * 20,
                    "service": "paymentservice",
                    "kind": "code",
                    "title": 'Revert "charge: x"',
                    "time": iso(T0 + 300),
                    "revision": 6,
                }
            )
        results = [world.answer(c) for c in calls]
        acted.append(acting(calls))
    # keep's rollback replaced the fix: it rolls forward to the fix, once
    undo = [c for calls in acted[4:] for c in calls]
    assert undo == [
        {
            "tool": "rollback",
            "args": {"deployment": "paymentservice", "to_revision": 6, "incident_id": "INC-0001"},
        }
    ]


def test_a_caller_that_cannot_reach_a_healthy_callee_since_its_deploy_is_rolled_back():
    endpoint = {**DEPLOY, "sha": "9a" * 20, "service": "checkoutservice", "time": iso(T0 - 100)}

    def world() -> World:
        w = World(changes=[endpoint])
        w.history["checkoutservice"].append(revision(5, T0 - 100, "9a" * 20))
        return w

    lost = alert(1, "DependencyCallErrors", T0, client="checkoutservice", server="paymentservice")
    calls = [acting(c) for c in play(world(), [lost], 4)]
    assert calls[1][0]["args"]["root_cause_services"] == ["checkoutservice"]
    assert calls[1][0]["args"]["artifact"] == "9a" * 20
    assert calls[2] == [
        {
            "tool": "rollback",
            "args": {"deployment": "checkoutservice", "to_revision": 3, "incident_id": "INC-0001"},
        }
    ]
    # every caller fails to reach paymentservice: the callee is the trouble, not checkout's deploy
    also = alert(2, "DependencyCallErrors", T0, client="frontend", server="paymentservice")
    assert all(acting(c) == [] for c in play(world(), [lost, also], 4))


def test_a_node_down_gets_its_serving_pods_deleted_but_a_flap_does_not():
    a = alert(1, "KubeNodeNotReady", T0 + 30, node="kind-worker")
    b = alert(2, "KubePodNotReady", T0 + 60, pod="paymentservice-cccccccccc-33333")
    _, calls = two_steps(World(nodes_down=["kind-worker"]), [a, b])
    report, *deletes = acting(calls)
    assert report["args"]["root_cause_services"] == ["kind-worker"]
    assert report["args"]["artifact"] == "kind-worker"
    assert sorted(report["args"]["alert_ids"]) == ["ALR-0001", "ALR-0002"]
    # not the load generator, not the batch job
    assert [d["args"]["name"] for d in deletes] == [
        "frontend-aaaaaaaaaa-11111",
        "paymentservice-cccccccccc-33333",
    ]
    # a kubelet flap: the read catches the node NotReady, but it is back before the alert fires
    blip = alert(2, "KubePodNotReady", T0 + 60, "resolved", pod="paymentservice-cccccccccc-33333")
    flap = play(World(nodes_down=["kind-worker"]), [blip], 4)
    assert all(acting(c) == [] for c in flap)


def test_a_crash_looping_pod_without_a_deploy_is_restarted_once_and_named():
    a = alert(1, "KubePodCrashLooping", T0 + 30, pod="checkoutservice-bbbbbbbbbb-22222")
    agent, world = KeepAgent(), World()
    calls = play(world, [a], 5, agent)
    report, restart = acting(calls[1])
    assert report["args"]["artifact"] == "pod/checkoutservice-bbbbbbbbbb-22222"
    assert restart == {
        "tool": "restart",
        "args": {"deployment": "checkoutservice", "incident_id": "INC-0001"},
    }
    assert all(acting(c) == [] for c in calls[2:])  # once, however long the alert fires
    # the revision the restart made is keep's own: no hand edit to suspect
    assert not any(ch.get("drift") for ch in agent.changes.values())


def test_flaps_lone_throttling_and_batch_jobs_open_nothing():
    alerts = [
        # a one-scrape flap
        alert(1, "KubePodCrashLooping", T0, "resolved", pod="paymentservice-cccccccccc-33333"),
        # CPU throttling alone, for a long while
        alert(2, "CPUThrottlingHigh", T0 - 300, pod="checkoutservice-bbbbbbbbbb-22222"),
        # a batch job that serves no request, crash-looping
        alert(3, "KubePodCrashLooping", T0, pod="cart-snapshot-eeeeeeeeee-55555"),
    ]
    calls = play(World(), alerts, 5)
    assert all(acting(c) == [] for c in calls)


def test_an_alert_no_suspect_explains_waits_and_opens_nothing():
    lone = alert(1, "ServiceHighErrorRate", T0 + 90, service_name="checkoutservice")
    calls = play(World(logs={"checkoutservice": OWN_ERRORS}), [lone], 5)
    assert all(acting(c) == [] for c in calls)


def test_keep_pays_for_its_skill_between_random_and_the_oracle(episode_info):
    keep = episode_info("keep", 0)["scorecard"]
    random = episode_info("random", 0)["scorecard"]
    oracle = episode_info("oracle", 0)["scorecard"]
    runbook = episode_info("runbook", 0)["scorecard"]
    assert random["net_score"] < 0 < keep["net_score"] < oracle["net_score"]
    assert runbook["marathon_score"] < keep["marathon_score"] < oracle["marathon_score"]
    # a careful engineer: few false alarms and unneeded changes, users no worse off than doing
    # nothing, and still localizing and repairing
    assert keep["incident_precision"] >= 0.8
    assert keep["net"]["unwarranted_interventions"] <= 5
    assert keep["degradation"]["ratio"] <= 1.0
    assert keep["localization"] > 0.3 and keep["repair"] > 0.1
    assert keep["forbidden_attempts"] == 0


def test_keep_is_deterministic_and_ignores_the_env(episode):
    a = episode("keep", 0)
    assert make_agent("keep", env=a["env"], seed=7).__class__ is KeepAgent
    assert [json.loads(o["incidents"]) for o in a["obs"][-3:]] == [
        json.loads(o["incidents"]) for o in episode("keep", 0)["obs"][-3:]
    ]
