"""The open world (sre_gym/orchestrator/open_world.py): benign anomalies with no fault behind them."""

from __future__ import annotations

from collections import Counter

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401
from sre_gym.backends.sim import SimBackend
from sre_gym.orchestrator.open_world import KINDS, NOISE_PROFILES, noise_profile_from, plan
from sre_gym.orchestrator.schedule import Schedule, schedule

OB = "online-boutique"


def test_the_plan_is_seeded_and_independent_of_the_faults():
    s = schedule(OB, 5)
    a = plan(s, NOISE_PROFILES["production"])
    assert a == plan(s, NOISE_PROFILES["production"])
    # the same run without any fault: the same anomalies (node flaps aside, which keep off nodes a
    # fault takes down)
    empty = Schedule(s.release, OB, s.seed, (), s.deploys, s.duration_s, s.inject_s, s.profile)
    b = plan(empty, NOISE_PROFILES["production"])

    def key(xs):
        return [
            (x.kind, x.target, x.start, x.end, x.amount, x.detail)
            for x in xs
            if x.kind != "node_flap"
        ]

    assert key(a) == key(b) and key(a)
    assert key(plan(schedule(OB, 6), NOISE_PROFILES["production"])) != key(a)


def test_every_kind_occurs_and_profiles_turn_them_off():
    kinds = Counter(
        x.kind for seed in range(3) for x in plan(schedule(OB, seed), noise_profile_from(None))
    )
    assert set(kinds) == set(KINDS)
    assert plan(schedule(OB, 0), NOISE_PROFILES["quiet"]) == ()
    custom = noise_profile_from({"third_party_per_hour": 0.0})
    assert all(x.kind != "third_party" for x in plan(schedule(OB, 0), custom))
    with pytest.raises(ValueError, match="unknown noise profile"):
        noise_profile_from("loud")
    with pytest.raises(ValueError, match="bad noise profile"):
        noise_profile_from({"surge_per_hour": -1})


@pytest.fixture(scope="module")
def quiet_run():
    """A run with no fault at all, in the production open world."""
    s = schedule(OB, 3)
    s = Schedule(s.release, OB, 3, (), (), s.duration_s, s.inject_s, s.profile)
    b = SimBackend(OB, 3, sched=s)
    b.advance_to(b.episode_end)
    return b


def test_anomalies_raise_alerts_of_every_severity_with_no_fault_behind_them(quiet_run):
    b = quiet_run
    ev = b.drain_evidence()
    assert not [e for e in ev if e["type"] in ("injection", "revert")]
    alerts = [e for e in ev if e["type"] == "alert" and e["t"] >= b.episode_start]
    assert {a["severity"] for a in alerts} >= {"info", "warning", "critical"}
    names = Counter(a["name"] for a in alerts)
    # a flaky third party, a side job's OOM kills, the autoscaler and the hand edits all show
    assert names["ServiceHighErrorRate"] and names["KubeContainerOOMKilled"]


def test_anomalies_can_be_ruled_out_by_looking(quiet_run):
    b = quiet_run
    kinds: dict = {}
    for x in b.open_world.anomalies:  # the first of each kind
        kinds.setdefault(x.kind, x)
    # the third party's errors name the outside host in the service's logs
    tp = kinds["third_party"]
    t = b.episode_start + (tp.start + tp.end) / 2
    lines = b.logs(tp.target, t - 120, t, contains=None, level="error", limit=200)
    host = dict(tp.detail)["host"]
    assert any(host in ln for ln in lines)
    # the OOM-killed workload serves no request: the topology lists it with no calls
    side = {s["name"]: s for s in b.topology()["services"]}[kinds["side_oom"].target]
    assert side["kind"] == "batch" and side["calls"] == []
    # a hand edit is a revision with no change cause that sets a log-level-like knob
    me = kinds["manual_edit"]
    hist = b.k8s_describe("deployments", me.target)["revision_history"]
    assert any(not r["change_cause"] for r in hist)
    # a flapping node is Ready again, with both events in its history
    nf = kinds["node_flap"]
    reasons = {e["reason"] for e in b.k8s_describe("nodes", nf.target)["events"]}
    assert {"NodeNotReady", "NodeReady"} <= reasons
    assert b.k8s_get("nodes", nf.target)["status"] == "Ready"


def test_observations_name_no_anomaly():
    env = gym.make("SREMarathon-v0", app=OB, schedule="short")
    obs, _ = env.reset(seed=3)
    reads = [
        {"tool": "k8s_get", "args": {"kind": k}}
        for k in ("events", "deployments", "pods", "networkpolicies", "horizontalpodautoscalers")
    ]
    text = []
    done = False
    while not done:
        obs, _, done, _, info = env.step(reads)
        text += [obs[k] for k in ("alerts", "tool_results", "incidents", "notes")]
    blob = " ".join(text).lower()
    internal = ["open world", "open_world", "noise", "benign", *KINDS]
    assert not [w for w in internal if w in blob]
