"""The staged scorer (sre_gym/scoring/scorer.py) on hand-built evidence.

Event shapes follow what the env, the toolbox and the sim backend record (see
sre_gym/bundle/evidence.py, sre_gym/tools/dispatch.py, sre_gym/sim/faults/injector.py).
Times: t0 = 0, ticks of 15 s, episode [600, 6000), invocations every 120 s from 600.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import OUTCOMES, artifact_matches, marathon_score, score
from sre_gym.testing.evidence import CAP, EP0, EP1, SHA, TICK, handled
from sre_gym.testing.evidence import EvidenceBuilder as Run

# ---------------------------------------------------------------------------------- stages


def test_handled_fault_gets_full_credit():
    card = handled(n_faults=4).score()
    assert card["marathon_score"] == pytest.approx(25.0)
    assert (card["correlation"], card["localization"], card["repair"]) == (0.25, 0.25, 0.25)
    assert card["outcomes"] == {
        "handled": 1,
        "repaired_not_handled": 0,
        "acted_without_repair": 0,
        "located_without_action": 0,
        "correlated_only": 0,
        "missed": 3,
    }
    assert card["n_faults"] == 4 and card["n_injected"] == 1
    assert card["incidents"] == 1 and card["incident_precision"] == 1.0
    assert card["interventions"] == 1 and card["intervention_risk"] == 0.0
    assert card["scoring_version"] == ScoringConfig().version


def test_mttx_at_invocation_resolution():
    card = handled().score()
    # detected and located at 1320 = an invocation boundary (600 + 6 x 120): 120 s after the start
    assert card["mttd_s"] == 120.0 and card["mttl_s"] == 120.0
    # healthy from 1350, credited at the next invocation boundary 1440
    assert card["mttr_s"] == 240.0
    late = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "paymentservice")
        .incident("INC-1", 1321.0, ["A1"])
    )
    assert late.score()["mttd_s"] == 240.0  # 1321 rounds up to 1440
    # an alert joining after the report: detection counts from when it joined
    joined = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A0", 700.0, "adservice")
        .alert("A1", 1290.0, "paymentservice")
        .incident("INC-1", 900.0, ["A0"], culprits=["adservice"], artifact=None)
        .incident(
            "INC-1", 1500.0, ["A0", "A1"], culprits=["adservice"], artifact=None, action="updated"
        )
    )
    c = joined.score()
    assert c["correlation"] == 1.0 and c["mttd_s"] == 1560.0 - 1200.0
    assert c["mttl_s"] is None and c["mttr_s"] is None


def test_correlation_only_with_wrong_culprits_even_if_repaired():
    r = handled()
    r.ev.events = [e for e in r.ev.events if e["type"] != "incident"]
    r.incident("INC-1", 1320.0, ["A1"], culprits=["checkoutservice"])
    card = r.score()
    assert card["marathon_score"] == pytest.approx(100 / 3)
    assert (card["correlation"], card["localization"], card["repair"]) == (1.0, 0.0, 0.0)
    assert (
        card["outcomes"]["repaired_not_handled"] == 1
    )  # it was repaired, but not through a located incident


def test_wrong_or_missing_artifact_blocks_localization_and_repair():
    for artifact in ("paymentservice@1", None, "", "frontend@2"):
        r = Run().fault(0, 1200.0, 1680.0).alert("A1", 1290.0, "checkoutservice")
        r.incident("INC-1", 1320.0, ["A1"], artifact=artifact)
        card = r.score()
        assert (card["correlation"], card["localization"], card["repair"]) == (1.0, 0.0, 0.0), (
            artifact
        )
        assert card["outcomes"]["correlated_only"] == 1


def test_culprit_set_must_be_exact():
    r = Run().fault(0, 1200.0, 1680.0).alert("A1", 1290.0, "checkoutservice")
    r.incident("INC-1", 1320.0, ["A1"], culprits=["paymentservice", "checkoutservice"])
    assert r.score()["localization"] == 0.0
    r2 = Run().fault(0, 1200.0, 1680.0).alert("A1", 1290.0, "checkoutservice")
    r2.incident("INC-1", 1320.0, ["A1"], culprits=[" PaymentService "])
    assert r2.score()["localization"] == 1.0


def test_localization_needs_correlation():
    # right culprits and artifact, but the only alert fired outside the window plus grace
    grace = ScoringConfig().attribution_grace_s
    r = Run().fault(0, 1200.0, 1680.0).alert("A1", 1680.0 + grace + 1, "paymentservice")
    r.incident("INC-1", 1900.0, ["A1"]).intervene(1905.0, "INC-1")
    card = r.score()
    assert (card["correlation"], card["localization"], card["repair"], card["marathon_score"]) == (
        0,
        0,
        0,
        0,
    )
    assert card["outcomes"]["missed"] == 1
    # ... or on a service outside the fault's scope
    r = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "adservice")
        .incident("INC-1", 1320.0, ["A1"])
    )
    assert r.score()["localization"] == 0.0 and r.score()["outcomes"]["missed"] == 1


@pytest.mark.parametrize(
    ("t", "ok"), [(1199.0, False), (1200.0, True), (1680.0 + 180, True), (1680.0 + 181, False)]
)
def test_attribution_window_edges(t, ok):
    r = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", t, "paymentservice")
        .incident("INC-1", 2000.0, ["A1"])
    )
    assert r.score()["correlation"] == float(ok)


def test_alert_entities_match_culprits_too():
    r = Run().fault(
        0,
        1200.0,
        1680.0,
        culprits=["kind-worker3"],
        affected=["frontend"],
        artifacts=["kind-worker3"],
        commit=None,
    )
    r.alert("A1", 1300.0, "kind-worker3").incident(
        "INC-1", 1320.0, ["A1"], culprits=["kind-worker3"], artifact="node/kind-worker3"
    )
    card = r.score()
    assert (
        card["correlation"] == 1.0 and card["localization"] == 0.0
    )  # "node/kind-worker3" is not an alias here
    r.incident(
        "INC-1",
        1330.0,
        ["A1"],
        culprits=["kind-worker3"],
        artifact="Kind-Worker3",
        action="updated",
    )
    assert r.score()["localization"] == 1.0


# ---------------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    ("reported", "ok"),
    [
        ("paymentservice@2", True),
        ("  PaymentService@2 ", True),
        ("deployment/paymentservice@2", True),
        (SHA, True),
        (SHA.upper(), True),
        ("deadbee", True),  # 7 hex digits: the shortest accepted commit prefix
        ("deadbeef01", True),
        ("deadbe", False),  # 6 is too short
        ("eadbeef", False),  # not a prefix
        ("deadbeeg", False),  # not hex
        (SHA + "0", False),  # longer than the commit
        ("paymentservice@3", False),
        ("", False),
        (None, False),
    ],
)
def test_artifact_aliases(reported, ok):
    aliases = [SHA, "paymentservice@2", "deployment/paymentservice@2"]
    assert artifact_matches(reported, aliases, SHA) is ok
    r = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1320.0, ["A1"], artifact=reported)
    )
    assert r.score()["localization"] == float(ok)


def test_commit_prefix_needs_a_commit():
    assert not artifact_matches("deadbee", ["x"], None)
    assert artifact_matches("X", ["x"], None)


# ---------------------------------------------------------------------------------- matching


def test_one_giant_incident_correlates_at_most_one_fault():
    r = Run(3)
    r.fault(0, 1200.0, 1680.0, culprits=["paymentservice"], affected=["paymentservice"])
    r.fault(
        1,
        1215.0,
        1700.0,
        culprits=["cartservice"],
        affected=["cartservice"],
        artifacts=["cartservice@2"],
        commit=None,
    )
    r.fault(
        2,
        1230.0,
        1800.0,
        culprits=["adservice"],
        affected=["adservice"],
        artifacts=["adservice@2"],
        commit=None,
    )
    r.alert("A1", 1290.0, "paymentservice").alert("A2", 1300.0, "cartservice").alert(
        "A3", 1310.0, "adservice"
    )
    r.incident(
        "INC-1", 1320.0, ["A1", "A2", "A3"], culprits=["cartservice"], artifact="cartservice@2"
    )
    card = r.score()
    assert card["correlation"] == pytest.approx(1 / 3)
    assert card["localization"] == pytest.approx(1 / 3)  # the matching picks the fault it localizes
    assert card["marathon_score"] == pytest.approx(100 * (2 / 3) / 3)
    assert card["outcomes"]["located_without_action"] == 1 and card["outcomes"]["missed"] == 2
    # splitting the incident lets every fault be correlated
    r.incident("INC-2", 1330.0, ["A1"], culprits=["x"], artifact=None)
    r.incident("INC-3", 1335.0, ["A3"], culprits=["x"], artifact=None)
    card = r.score()
    assert card["correlation"] == 1.0 and card["incident_precision"] == 1.0


def test_matching_maximises_total_credit():
    """Fault 0 can pair with both incidents; fault 1 only with INC-1: both get matched."""
    r = Run(2)
    r.fault(0, 1200.0, 1680.0, affected=["paymentservice", "checkoutservice"])
    r.fault(
        1,
        1200.0,
        1680.0,
        culprits=["cartservice"],
        affected=["cartservice"],
        artifacts=["cartservice@2"],
        commit=None,
    )
    r.alert("A1", 1290.0, "checkoutservice").alert("A2", 1290.0, "cartservice")
    r.incident("INC-1", 1320.0, ["A1", "A2"], culprits=["zzz"], artifact=None)
    r.incident("INC-2", 1325.0, ["A1"], culprits=["zzz"], artifact=None)
    card = r.score()
    assert card["correlation"] == 1.0 and card["incident_precision"] == 1.0


def test_precision_counts_unmatched_incidents():
    r = (
        handled()
        .alert("A9", 2000.0, "adservice")
        .incident("INC-2", 2010.0, ["A9"], culprits=["adservice"], artifact=None)
    )
    card = r.score()
    assert card["incidents"] == 2 and card["incident_precision"] == 0.5
    assert card["marathon_score"] == pytest.approx(100.0)


# ---------------------------------------------------------------------------------- repair


def _repair_run(
    heal_t: float, *, iid="INC-1", target="paymentservice", t_int=1323.0, obj=None, challenge="held"
) -> Run:
    r = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1320.0, ["A1"])
    )
    r.intervene(t_int, iid, target=target, obj=obj)
    return r.heal(0, heal_t, challenge=challenge)


def test_repair_needs_the_hold_before_the_revert():
    hold = ScoringConfig().repair_hold_s  # 90 s = 6 ticks, i.e. 7 healthy samples
    end_k = math.ceil(1680.0 / TICK)  # 112: the revert tick
    just = (end_k - 1 - hold // TICK) * TICK  # healthy on ticks 105..111
    assert _repair_run(just).score()["repair"] == 1.0
    assert _repair_run(just + TICK).score()["repair"] == 0.0
    assert _repair_run(just + TICK).score()["outcomes"]["acted_without_repair"] == 1


def test_an_interrupted_recovery_counts_from_the_stable_stretch():
    r = _repair_run(1350.0, challenge=None)
    r.ev.arrays["probe"][0, 93] = 0  # relapse on tick 93: the orchestrator's watch starts again
    r.challenge(0, 94 * TICK)
    card = r.score()
    assert card["repair"] == 1.0
    assert card["mttr_s"] == pytest.approx(math.ceil((94 * TICK - EP0) / 120) * 120 + EP0 - 1200.0)


def test_a_challenge_is_cross_checked_against_the_probe():
    """A 'held' challenge whose hold period the probe samples contradict earns nothing."""
    r = _repair_run(1350.0)
    r.ev.arrays["probe"][0, 93] = 0
    assert r.score()["repair"] == 0.0


def test_repair_needs_a_persistence_challenge_that_held():
    assert _repair_run(1350.0).score()["repair"] == 1.0
    # recovered and held, but no challenge ran (or it is not in the evidence): not a repair yet
    card = _repair_run(1350.0, challenge=None).score()
    assert card["repair"] == 0.0 and card["outcomes"]["acted_without_repair"] == 1
    # the restart (or re-fired trigger) in the challenge made it relapse
    card = _repair_run(1350.0, challenge="relapsed").score()
    assert card["repair"] == 0.0 and card["outcomes"]["acted_without_repair"] == 1
    # a challenge of a recovery that began before the intervention does not count for it
    r = _repair_run(1350.0, challenge=None, t_int=1400.0)
    r.challenge(0, 1350.0)
    assert r.score()["repair"] == 0.0
    # a later recovery can still count after an earlier relapse
    r = _repair_run(1350.0, challenge="relapsed")
    r.challenge(0, 1500.0)
    assert r.score()["repair"] == 1.0 and r.score()["mttr_s"] == 1560.0 - 1200.0


def test_a_challenge_counts_only_once_it_happened():
    r = _repair_run(1350.0, challenge=None)
    r.challenge(0, 1350.0, t=1500.0)  # recorded later than the hold's end
    assert r.score(cutoff=1499.0)["repair"] == 0.0
    assert r.score(cutoff=1500.0)["repair"] == 1.0


def test_repair_needs_an_intervention_citing_the_matched_incident():
    r = _repair_run(1350.0, iid="INC-9")
    card = r.score()
    assert card["repair"] == 0.0 and card["localization"] == 1.0
    assert card["outcomes"]["repaired_not_handled"] == 1


def test_repair_needs_an_intervention_on_the_fault_scope():
    card = _repair_run(1350.0, target="adservice").score()
    assert card["repair"] == 0.0
    assert card["outcomes"]["located_without_action"] == 1  # acting elsewhere is not acting on it


def test_removing_an_artifact_object_acts_on_the_fault():
    r = Run().fault(
        0,
        1200.0,
        1680.0,
        culprits=["checkoutservice"],
        affected=["checkoutservice"],
        artifacts=["checkout-egress-allowlist", "networkpolicies/checkout-egress-allowlist"],
        commit=None,
    )
    r.alert("A1", 1290.0, "checkoutservice").incident(
        "INC-1", 1320.0, ["A1"], culprits=["checkoutservice"], artifact="checkout-egress-allowlist"
    )
    r.intervene(
        1323.0,
        "INC-1",
        target=None,
        obj="networkpolicies/checkout-egress-allowlist",
        tool="delete_resource",
    )
    r.heal(0, 1335.0)
    assert r.score()["repair"] == 1.0


@pytest.mark.parametrize("t_int", [1100.0, 1199.0, 1680.0, 1700.0])
def test_interventions_outside_the_window_do_not_repair(t_int):
    r = (
        Run()
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1100.0, ["A1"])
    )
    r.intervene(t_int, "INC-1").heal(0, 1350.0)
    card = r.score()
    assert card["repair"] == 0.0 and card["outcomes"]["located_without_action"] == 1


def test_probe_healthy_before_the_intervention_is_not_enough_without_the_artifact():
    """If the probe never failed, repair is judged by the artifact going away."""
    r = (
        Run()
        .fault(0, 1200.0, 1680.0, fails=False)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1320.0, ["A1"])
    )
    r.intervene(1323.0, "INC-1")
    card = r.score()
    assert card["repair"] == 0.0 and card["outcomes"]["acted_without_repair"] == 1
    r.ev.arrays["artifact"][0, 95:112] = 0  # the rollback took the bad revision out at tick 95
    r.challenge(0, 95 * TICK, route="artifact")
    card = r.score()
    assert card["repair"] == 1.0
    assert card["mttr_s"] == math.ceil((95 * TICK - EP0) / 120) * 120 + EP0 - 1200.0
    # the artifact route is only for faults whose probe never failed before the intervention
    r.ev.arrays["probe"][0, 85] = 0
    assert r.score()["repair"] == 0.0


def test_artifact_removed_only_after_the_revert_does_not_count():
    r = (
        Run()
        .fault(0, 1200.0, 1680.0, fails=False)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1320.0, ["A1"])
    )
    r.intervene(1323.0, "INC-1")
    r.ev.arrays["artifact"][0, 112:] = 0
    r.challenge(0, 112 * TICK, route="artifact")  # even with a (forged) challenge
    assert r.score()["repair"] == 0.0


# ---------------------------------------------------------------------------------- cutoff


def test_score_as_of_a_cutoff():
    r = handled()
    assert r.score(cutoff=1290.0)["marathon_score"] == 0.0
    # the agent's report at 1320 counts strictly after it (an invocation at the cutoff is the next step's)
    assert r.score(cutoff=1320.0)["marathon_score"] == 0.0
    assert r.score(cutoff=1321.0)["marathon_score"] == pytest.approx(200 / 3)
    # healthy from tick 90 (1350); the 60 s hold completes on tick 94 (1410), when the
    # persistence challenge runs
    assert r.score(cutoff=1409.0)["marathon_score"] == pytest.approx(200 / 3)
    assert r.score(cutoff=1410.0)["marathon_score"] == pytest.approx(100.0)
    assert r.score(cutoff=1410.0)["mttr_s"] == 240.0
    assert r.score(cutoff=1199.0)["n_injected"] == 0


def test_cutoff_ignores_later_evidence():
    r = handled()
    r.incident("INC-1", 1500.0, ["A1"], culprits=["frontend"], action="updated")
    assert r.score(cutoff=1500.0)["localization"] == 1.0
    assert r.score(cutoff=1501.0)["localization"] == 0.0
    r2 = handled().forbidden(2000.0)
    assert r2.score(cutoff=2000.0)["forbidden_attempts"] == 0
    assert r2.score(cutoff=2001.0)["forbidden_attempts"] == 1


def _truncate(ev: Evidence, cut: float) -> Evidence:
    t0, tick = float(ev.manifest["t0"]), float(ev.manifest["tick_s"])
    k = math.floor((cut - t0) / tick)
    arrays = {}
    for name, a in ev.arrays.items():
        a = a.copy()
        if name in ("probe", "artifact"):
            a[:, k + 1 :] = -1
        else:
            a[k + 1 :] = 0
        arrays[name] = a
    return Evidence(
        manifest=dict(ev.manifest), events=[e for e in ev.events if e["t"] <= cut], arrays=arrays
    )


@pytest.fixture(scope="module")
def oracle_evidence():
    """A real oracle episode (every stage reached for most faults)."""
    import gymnasium as gym

    import sre_gym  # noqa: F401  (registers the env)
    from sre_gym.agents.oracle import OracleAgent

    env = gym.make("SREMarathon-v0")
    obs, info = env.reset(seed=1)
    agent = OracleAgent(env)
    rewards, done = [], False
    while not done:
        obs, r, done, _, info = env.step(agent(obs, info))
        rewards.append(r)
    ev = env.unwrapped.evidence
    env.close()
    return ev, rewards, info["scorecard"]


def _invocation_ends(ev: Evidence) -> list[float]:
    ep0 = float(ev.manifest["episode_start"])
    return [ep0 + 120 * (i + 1) for i in range(45)]


def test_cutoff_score_never_peeks_past_the_cutoff(oracle_evidence):
    ev, rewards, card = oracle_evidence
    prev = 0.0
    incs = []
    for cut in _invocation_ends(ev):
        s = score(ev, cutoff=cut)
        assert s == score(_truncate(ev, cut), cutoff=cut), cut
        incs.append(s["marathon_score"] - prev)
        prev = s["marathon_score"]
    assert sum(incs) == pytest.approx(card["marathon_score"])
    assert sum(rewards) == pytest.approx(card["net_score"])  # the default reward
    assert card["marathon_score"] > 80 and card["net_score"] > 80
    assert score(ev, cutoff=_invocation_ends(ev)[-1]) == card


def test_marathon_score_is_the_cards_at_every_cutoff(oracle_evidence):
    """The reward's fast path (no companions) gives exactly the card's Marathon-Score, the
    forbidden-operation penalty included."""
    ev, _, card = oracle_evidence
    cuts = _invocation_ends(ev)
    assert [marathon_score(ev, cut) for cut in cuts] == [
        score(ev, cutoff=cut)["marathon_score"] for cut in cuts
    ]
    assert marathon_score(ev) == score(ev)["marathon_score"]
    r = handled().forbidden(1330.0)
    for cut in (1290.0, 1321.0, 1331.0, 1410.0, None):
        assert marathon_score(r.ev, cut) == r.score(cutoff=cut)["marathon_score"]
    assert marathon_score(r.ev, 1410.0) == pytest.approx(100.0 - ScoringConfig().forbidden_penalty)


def test_online_rewards_are_reproducible_from_the_final_evidence(oracle_evidence):
    """Offline and online scoring are the same function on the same records, so the score of the
    final evidence cut at the end of invocation i must equal the online score after step i."""
    ev, rewards, _ = oracle_evidence
    offline = np.diff([0.0] + [score(ev, cutoff=cut)["net_score"] for cut in _invocation_ends(ev)])
    differ = [i for i, (a, b) in enumerate(zip(offline, rewards, strict=True)) if abs(a - b) > 1e-9]
    assert differ == [], f"steps whose online reward differs from the offline one: {differ[:8]}"


def test_real_episode_outcomes_sum_to_n_faults(oracle_evidence):
    ev, _, card = oracle_evidence
    assert sum(card["outcomes"].values()) == card["n_faults"] == ev.manifest["n_faults"]
    assert card["outcomes"]["handled"] == round(card["repair"] * card["n_faults"])
    full = score(ev)
    assert full["marathon_score"] == card["marathon_score"]


# ---------------------------------------------------------------------------------- penalty, outcomes, risk


def test_forbidden_penalty():
    r = handled(n_faults=2).forbidden(1400.0).forbidden(1500.0)
    card = r.score()
    assert card["marathon_score"] == pytest.approx(50.0 - 2.0)
    assert card["forbidden_attempts"] == 2
    assert card["intervention_risk"] == pytest.approx(2 / 3)
    cfg = ScoringConfig(forbidden_penalty=5.0)
    assert r.score(config=cfg)["marathon_score"] == pytest.approx(50.0 - 10.0)
    # the score can go below zero
    assert Run(2).forbidden(700.0).score()["marathon_score"] == -1.0


def test_forbidden_penalty_applies_without_faults():
    card = Run(0).forbidden(700.0).score()
    assert card["forbidden_attempts"] == 1
    assert card["marathon_score"] == -ScoringConfig().forbidden_penalty


def test_every_outcome_and_their_sum():
    r = Run(7)

    def f(i, fails=True):
        r.fault(
            i,
            1200.0,
            1680.0,
            culprits=[f"svc{i}"],
            affected=[f"svc{i}"],
            artifacts=[f"art{i}"],
            commit=None,
            fails=fails,
        )
        r.alert(f"A{i}", 1290.0, f"svc{i}")

    for i in range(6):
        f(i)
    # 0 handled
    r.incident("I0", 1320.0, ["A0"], culprits=["svc0"], artifact="art0").intervene(
        1323.0, "I0", target="svc0"
    ).heal(0, 1350.0)
    # 1 repaired, but through an incident that is not localized
    r.incident("I1", 1320.0, ["A1"], culprits=["nope"], artifact=None).intervene(
        1323.0, "I1", target="svc1"
    ).heal(1, 1350.0)
    # 2 acted on, never recovered
    r.incident("I2", 1320.0, ["A2"], culprits=["svc2"], artifact="art2").intervene(
        1323.0, "I2", target="svc2"
    )
    # 3 located, no action
    r.incident("I3", 1320.0, ["A3"], culprits=["svc3"], artifact="art3")
    # 4 correlated only
    r.incident("I4", 1320.0, ["A4"], culprits=["svc9"], artifact=None)
    # 5 alerted but never reported; 6 scheduled but not injected (yet)
    card = r.score()
    assert card["outcomes"] == {
        "handled": 1,
        "repaired_not_handled": 1,
        "acted_without_repair": 1,
        "located_without_action": 1,
        "correlated_only": 1,
        "missed": 2,
    }
    assert sum(card["outcomes"].values()) == card["n_faults"] == 7
    assert list(card["outcomes"]) == list(OUTCOMES)
    assert card["marathon_score"] == pytest.approx(100 * (1 + 1 / 3 + 2 / 3 + 2 / 3 + 1 / 3) / 7)
    # at a cutoff, faults not injected yet are not outcomes yet
    partial = r.score(cutoff=EP1)
    assert sum(partial["outcomes"].values()) == 6


def test_intervention_risk_counts_out_of_scope_and_forbidden():
    r = handled()
    r.intervene(1400.0, "INC-1", target="adservice", in_scope=False)
    r.intervene(1410.0, "INC-1", target="paymentservice", in_scope=True)
    card = r.score()
    assert card["interventions"] == 3 and card["intervention_risk"] == pytest.approx(1 / 3)
    r.forbidden(1420.0)
    assert r.score()["intervention_risk"] == pytest.approx(2 / 4)
    assert Run().score()["intervention_risk"] == 0.0


def test_cost_counts_calls_and_usage():
    r = handled()
    r.ev.add("tool_call", 700.0, tool="get_alerts", ok=True)
    r.ev.add("tool_call", 701.0, tool="nope", ok=False)
    r.ev.add("usage", 700.0, model_calls=2, input_tokens=1000, output_tokens=50, dollars=0.25)
    r.ev.add("usage", 820.0, model_calls=1, input_tokens=10, output_tokens=5, dollars=0.5)
    cost = r.score()["cost"]
    assert cost == {
        "tool_calls": 2,
        "invalid_calls": 1,
        "model_calls": 3,
        "input_tokens": 1010,
        "output_tokens": 55,
        "dollars": 0.75,
    }
    assert r.score(cutoff=800.0)["cost"]["model_calls"] == 2


def test_degradation_ratio():
    r = handled()
    assert r.score()["degradation"] is None
    entry = np.zeros((CAP, 3))
    entry[:, 0] = 20.0
    k0 = int(EP0 // TICK)
    entry[k0 + 10 : k0 + 20, 1] = 0.5  # half failing for 10 ticks
    entry[k0 + 30 : k0 + 32, 1] = 0.8
    entry[k0 + 30 : k0 + 32, 2] = 0.4  # failed + slow capped at 1
    entry[:k0, 1] = 1.0  # warm-up is not scored
    r.ev.arrays["entry"] = entry
    deg = r.score()["degradation"]
    n_ticks = int((EP1 - 0) // TICK) + 1 - k0
    assert deg["requests"] == pytest.approx(20.0 * TICK * n_ticks)
    assert deg["degraded_requests"] == pytest.approx(20 * TICK * (10 * 0.5 + 2 * 1.0))
    assert deg["share"] == pytest.approx(deg["degraded_requests"] / deg["requests"])
    assert deg["ratio"] is None
    base = entry.copy()
    base[k0 + 40 : k0 + 50, 1] = 1.0
    r.ev.arrays["entry_noaction"] = base
    deg = r.score()["degradation"]
    assert deg["noaction_degraded_requests"] == pytest.approx(20 * TICK * (10 * 0.5 + 2 + 10))
    assert deg["ratio"] == pytest.approx(7 / 17)
    # at a cutoff, only the traffic so far
    early = r.score(cutoff=EP0 + 15 * TICK)["degradation"]
    assert early["degraded_requests"] == pytest.approx(20 * TICK * 6 * 0.5)  # ticks k0+10 .. k0+15
    assert early["ratio"] == pytest.approx(1.0)
    r.ev.arrays["entry_noaction"] = np.zeros((CAP, 3))
    assert r.score()["degradation"]["ratio"] is None


def test_config_weights_and_manifest_config():
    r = handled()
    r.ev.events = [e for e in r.ev.events if e["type"] != "intervention"]
    cfg = ScoringConfig(w_correlation=0.5, w_localization=0.5, w_repair=0.0)
    assert r.score(config=cfg)["marathon_score"] == pytest.approx(100.0)
    assert r.score(config=cfg)["scoring_version"] == cfg.version
    assert r.score()["marathon_score"] == pytest.approx(200 / 3)
    r.ev.manifest["scoring"] = cfg.to_dict()
    assert r.score()["marathon_score"] == pytest.approx(100.0)
    r.ev.manifest["scoring"]["repair_hold_s"] = 0  # tampered: the version no longer matches
    with pytest.raises(ValueError, match="does not match its fields"):
        r.score()


def test_longer_hold_in_config():
    r = _repair_run(1560.0)  # healthy on ticks 104..111: 8 samples
    assert r.score()["repair"] == 1.0
    assert r.score(config=ScoringConfig(repair_hold_s=120))["repair"] == 0.0


def test_scoring_is_deterministic_and_pure():
    r = handled(3)
    before = repr(r.ev.events), {k: v.tobytes() for k, v in r.ev.arrays.items()}
    a = r.score()
    b = r.score()
    assert a == b
    assert (repr(r.ev.events), {k: v.tobytes() for k, v in r.ev.arrays.items()}) == before
