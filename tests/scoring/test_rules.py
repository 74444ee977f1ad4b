"""The shared scoring rules (sre_gym/scoring/rules.py)."""

from __future__ import annotations

from sre_gym.scoring import rules


def test_scope_and_acts_on_compare_normalised_names():
    sc = rules.scope(["CartService "], ["redis-cart"])
    assert sc == {"cartservice", "redis-cart"}
    assert rules.acts_on(" cartservice", None, sc, [])
    assert rules.acts_on(None, " NetworkPolicy/deny ", sc, ["networkpolicy/deny"])
    assert not rules.acts_on("frontend", "frontend", sc, ["networkpolicy/deny"])
    assert rules.fits_fault("redis-cart", "", ["cartservice"], ["redis-cart"], [])


def test_attributable_needs_the_window_plus_grace_and_the_scope():
    sc = {"cartservice"}
    a = {"t": 130.0, "entities": ["CartService"]}
    assert rules.attributable(a, 100.0, 120.0, sc, 10.0)
    assert not rules.attributable(a, 100.0, 119.0, sc, 10.0)
    assert not rules.attributable({**a, "t": 99.0}, 100.0, 200.0, sc, 0.0)
    assert not rules.attributable({**a, "entities": ["frontend"]}, 100.0, 200.0, sc, 0.0)


def test_incidents_keep_the_last_localization_and_its_time():
    ev = [
        {"type": "incident", "id": "I1", "t": 10.0, "alerts": ["a"], "culprits": ["x"],
         "artifact": None, "status": "open"},
        {"type": "incident", "id": "I1", "t": 20.0, "alerts": ["b"], "culprits": ["X"],
         "artifact": "abc1234", "status": "open"},
        {"type": "incident", "id": "I1", "t": 30.0, "alerts": [], "culprits": ["x"],
         "artifact": "abc1234", "status": "resolved"},
        {"type": "incident", "id": "I2", "t": 40.0, "alerts": [], "culprits": [],
         "artifact": None, "status": "open"},
    ]  # fmt: skip
    (inc,) = rules.incidents(ev, cutoff=40.0)
    assert inc.alerts == {"a": 10.0, "b": 20.0}
    assert inc.located_at == 20.0 and inc.status == "resolved"
    f = {"culprits": ["x"], "artifacts": ["deployment/x@3"], "commit": "abc1234ffff"}
    assert rules.names_fault(inc, f)
    assert not rules.names_fault(inc, {**f, "commit": "fff"})
    assert rules.artifact_matches("Deployment/X@3", f["artifacts"], None)
    assert not rules.artifact_matches("abc", f["artifacts"], "abc1234")  # prefix too short


def test_attributable_by_fault_agrees_with_attributable_alert_by_alert():
    import numpy as np

    rng = np.random.default_rng(7)
    names = ["cartservice", "Frontend", "redis-cart ", "adservice"]
    alerts = [
        {
            "id": f"ALR-{i:04d}",
            "t": float(rng.integers(0, 400)),
            "entities": list(rng.choice(names, size=int(rng.integers(0, 3)), replace=False)),
        }
        for i in range(60)
    ]
    windows = [
        (float(s), float(s + rng.integers(0, 200)), rules.scope(rng.choice(names, 2), []))
        for s in rng.integers(0, 400, size=12)
    ]
    got = rules.attributable_by_fault(alerts, windows, 30.0)
    for (start, end, sc), att in zip(windows, got, strict=True):
        want = {a["id"]: a["t"] for a in alerts if rules.attributable(a, start, end, sc, 30.0)}
        assert att == want
    assert any(got) and not all(len(a) == len(alerts) for a in got)
