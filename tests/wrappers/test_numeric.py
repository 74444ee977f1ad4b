"""NumericObservation: a bounded float32 vector of observable signals, nothing hidden."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from sre_gym.sim.topology import compile_topology
from sre_gym.wrappers import NumericObservation
from sre_gym.wrappers.numeric import GLOBAL_FEATURES, SERVICE_FEATURES


def test_check_env_passes(make, strict_check):
    strict_check(make(NumericObservation))


def test_shape_names_and_bounds(make):
    env = make(NumericObservation)
    topo = compile_topology("online-boutique")
    n = topo.n * len(SERVICE_FEATURES) + len(topo.app.nodes) + len(GLOBAL_FEATURES)
    sp = env.observation_space
    assert sp.shape == (n,) and sp.dtype == np.float32
    assert np.all(sp.low == 0) and np.all(sp.high == 1) and gym.spaces.flatdim(sp) == n
    names = env.feature_names()
    assert len(names) == n and names[0] == "frontend.rps" and names[-1] == "open_incidents"
    obs, _ = env.reset(seed=0)
    assert obs.dtype == np.float32 and sp.contains(obs)
    term = False
    while not term:
        obs, r, term, trunc, info = env.step([])
        assert sp.contains(obs) and np.all(np.isfinite(obs))


def test_features_follow_what_an_agent_sees(make):
    env = make(NumericObservation)
    obs, _ = env.reset(seed=0)
    f = dict(zip(env.feature_names(), obs, strict=True))
    b = env.unwrapped.backend
    assert f["frontend.rps"] > 0.2  # tens of requests/s
    assert f["frontend.ready"] == f["frontend.desired"] == np.float32(1 / 20)
    assert all(f[f"{nd.name}.ready"] == 1 for nd in b.cluster.world.nodes)
    assert f["progress"] == 0
    obs, *_ = env.step(
        [
            {
                "tool": "report_incident",
                "args": {"alert_ids": [], "root_cause_services": ["adservice"]},
            },
            {
                "tool": "scale",
                "args": {"deployment": "adservice", "replicas": 3, "incident_id": "INC-0001"},
            },
        ]
    )
    f = dict(zip(env.feature_names(), obs, strict=True))
    assert f["adservice.desired"] == np.float32(3 / 20)
    assert f["open_incidents"] == np.float32(1 / 50) and f["progress"] == np.float32(1 / 45)
    firing = [a for a in env.unwrapped.alerts_view() if a["state"] == "firing"]
    assert f["firing_total"] == np.float32(min(len(firing), 100) / 100)


def test_firing_callees_count_alerting_dependencies_from_get_topology(make):
    # a service's firing_callees is how many of the services get_topology says it calls have a
    # firing_alerts feature above zero, over a marathon where alerts come and go
    env = make(NumericObservation)
    obs, _ = env.reset(seed=2)
    topo = env.unwrapped.backend.topology()
    calls = {s["name"]: [c["service"] for c in s["calls"]] for s in topo["services"]}
    seen = 0
    for _ in range(25):
        f = dict(zip(env.feature_names(), obs, strict=True))
        for svc in env.get_wrapper_attr("services"):
            n = sum(f[f"{c}.firing_alerts"] > 0 for c in calls[svc] if f"{c}.firing_alerts" in f)
            assert f[f"{svc}.firing_callees"] == np.float32(min(n / 5, 1.0)), svc
            seen += n > 0
        obs, *_ = env.step([])
    assert seen > 0  # some dependency alerted: the check above was not only about zeros


def test_does_not_read_probes_or_ground_truth(make, monkeypatch):
    """The features are the same whether or not the hidden evidence exists."""
    env = make(NumericObservation)
    obs, _ = env.reset(seed=4)
    for _ in range(20):
        obs, *_ = env.step([])
    b = env.unwrapped.backend
    inj = b.injector
    monkeypatch.setattr(inj, "probe", np.zeros_like(inj.probe))
    monkeypatch.setattr(inj, "artifact", np.zeros_like(inj.artifact))
    monkeypatch.setattr(inj, "injections", [None] * len(inj.injections))
    monkeypatch.setattr(b, "schedule", None)
    again = env.get_wrapper_attr("features")(float(b.episode_start + 120 * 20))
    assert np.array_equal(obs, again)


def test_deterministic_per_seed(make):
    a, b = make(NumericObservation), make(NumericObservation)
    oa, _ = a.reset(seed=3)
    ob, _ = b.reset(seed=3)
    for _ in range(10):
        assert np.array_equal(oa, ob)
        oa, *_ = a.step([])
        ob, *_ = b.step([])


def test_features_for_cpu_egress_and_flag_trouble(make):
    """Each of the four remedies' own signals shows on the faulty service only."""
    cases = [
        ("online-boutique", "ob-cpu-hog-frontend", "frontend", "cpu_throttle"),
        (
            "online-boutique",
            "ob-egress-deny-checkoutservice-paymentservice",
            "checkoutservice",
            "egress_policies",
        ),
        ("astronomy-shop", "as-flag-adfailure-on", "ad", "flags_changed"),
        ("online-boutique", "ob-addr-drift-frontend-cartservice", "frontend", "env_drift"),
    ]
    for app, fid, svc, feature in cases:
        env = make(NumericObservation, app=app, noise="off", schedule="short")
        obs, _ = env.reset(seed=0, options={"faults": [{"fault": fid, "start": 120, "end": 900}]})
        names = env.feature_names()
        before = dict(zip(names, obs, strict=True))
        assert all(before[f"{s}.{feature}"] == 0 for s in env.services), fid
        for _ in range(2):
            obs, *_ = env.step([])
        f = dict(zip(names, obs, strict=True))
        others = [f[f"{s}.{feature}"] for s in env.services if s != svc]
        # throttled periods; one policy, flag or env var
        floor = 0.5 if feature == "cpu_throttle" else 0.2
        assert f[f"{svc}.{feature}"] >= floor and max(others) < floor, (fid, f[f"{svc}.{feature}"])


def test_the_policy_sees_its_own_incidents_and_actions(make):
    env = make(NumericObservation)
    obs, _ = env.reset(seed=0)
    names = env.feature_names()

    def f(o, svc, feature):
        return float(o[names.index(f"{svc}.{feature}")])

    assert all(f(obs, s, "since_action") == 1.0 for s in env.services)
    assert all(f(obs, s, "open_incident") == 0.0 for s in env.services)
    report = {
        "tool": "report_incident",
        "args": {"alert_ids": [], "root_cause_services": ["adservice"]},
    }
    restart = {"tool": "restart", "args": {"deployment": "adservice", "incident_id": "INC-0001"}}
    obs, *_ = env.step({"calls": [report, restart], "notes": "restarted ad"})
    assert f(obs, "adservice", "open_incident") == 1.0
    assert f(obs, "adservice", "since_action") == np.float32(0.1)
    assert f(obs, "cartservice", "since_action") == 1.0  # untouched
    for k in range(2, 13):
        obs, *_ = env.step([])
        assert f(obs, "adservice", "since_action") == np.float32(min(k, 10) / 10)
    obs, _ = env.reset(seed=0)  # a new episode forgets the last one's actions
    assert f(obs, "adservice", "since_action") == 1.0
