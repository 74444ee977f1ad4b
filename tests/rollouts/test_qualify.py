"""Qualification: oracle >= 90 and no-op == 0 per seed, with a reason for every fault missed."""

from __future__ import annotations

from sre_gym.rollouts.qualify import (
    NOOP_MAX,
    ORACLE_MIN,
    ORACLE_NET_MIN,
    fault_report,
    format_report,
    qualify,
    qualify_seed,
)

APP = "online-boutique"
REASONS = (
    "no attributable alert",
    "alert too late",
    "not reported",
    "reported as",
    "localized too late",
    "no remedy applied",
    "repair did not",
    "repair not verifiable",
    "repair not confirmed",
    "repaired, but not through",
)


def test_fault_report_agrees_with_the_scorer(episode):
    for agent in ("oracle", "runbook"):
        run = episode(agent, 0)
        card = run["info"]["scorecard"]
        report = fault_report(run["env"].evidence)
        assert len(report) == card["n_injected"]
        assert sum(r["handled"] for r in report) == card["outcomes"]["handled"]
        for r in report:
            assert (r["reason"] is None) == r["handled"]
            if r["reason"] is not None:
                assert r["reason"].startswith(REASONS), r["reason"]
            assert r["start_s"] < r["end_s"]


def test_a_noop_run_misses_everything_for_a_stated_reason(episode):
    report = fault_report(episode("noop", 0)["env"].evidence)
    assert not any(r["correlated"] or r["handled"] for r in report)
    noop_reasons = ("not reported", "alert too late", "no attributable alert")
    assert all(r["reason"].startswith(noop_reasons) for r in report)
    assert any(r["reason"].startswith("not reported") for r in report)


def test_runbook_misses_are_explained_by_localization(episode):
    report = fault_report(episode("runbook", 0)["env"].evidence)
    # the runbook never names an artifact, so its correlated faults fail at localization
    assert any(r["reason"].startswith("reported as") for r in report)
    assert not any(r["localized"] for r in report)


def test_claims_after_the_revert_are_explained_as_too_late():
    import gymnasium as gym

    from sre_gym.testing import make_adversary

    env = gym.make("SREMarathon-v0", app=APP)
    agent = make_adversary("revert-chaser")
    obs, info = env.reset(seed=0)
    done = False
    while not done:
        obs, _, done, _, info = env.step(agent(obs, info))
    report = fault_report(env.unwrapped.evidence)
    late = [r for r in report if r["reason"] and r["reason"].startswith("localized too late")]
    assert len(late) >= 5 and not any(r["localized"] for r in report)
    assert all("after the revert" in r["reason"] for r in late)


def test_qualify_seed_and_report():
    res = qualify_seed(APP, 0)
    assert res["passed"] and res["oracle"] >= ORACLE_MIN and res["noop"] == NOOP_MAX
    assert res["oracle_net"] >= ORACLE_NET_MIN and res["noop_net"] == NOOP_MAX
    assert res["analysis_matches_scorer"]
    assert res["missed"] and all(m["reason"] for m in res["missed"])
    assert len(res["missed"]) < res["n_faults"]
    text = format_report([res])
    assert text.splitlines()[0].startswith(f"PASS  {APP}  seed=0")
    assert text.splitlines()[-1] == (
        "1/1 seeds qualify (oracle >= 90, net >= 85; noop == 0 on both)"
    )
    assert qualify(APP, [0], progress=False) == [res]
