"""net_score (sre_gym/scoring/net.py) on hand-built evidence: grouping, costs, the floor.

Evidence comes from ``sre_gym.testing.evidence`` (as for the staged scorer's tests): t0 = 0, ticks of 15 s, episode
[600, 6000), invocations every 120 s from 600. Fault 0 of ``handled()`` runs [1200, 1680) with
scope {frontend, checkoutservice, paymentservice}.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.net import grouping
from sre_gym.scoring.scorer import score, scores
from sre_gym.testing.evidence import EvidenceBuilder as Run
from sre_gym.testing.evidence import handled

W = ScoringConfig()


def unit(n_faults: int) -> float:
    """Points of one fault's full credit."""
    return 100.0 / n_faults


def test_grouping_is_the_f1_of_the_two_alert_sets():
    assert grouping({"a", "b"}, {"a", "b"}) == 1.0
    assert grouping({"a"}, {"a", "b", "c", "d"}) == pytest.approx(2 / 5)  # coverage 1/4
    assert grouping({"a", "x", "y", "z"}, {"a"}) == pytest.approx(2 / 5)  # precision 1/4
    assert grouping({"x"}, {"a"}) == 0.0 and grouping(set(), {"a"}) == 0.0


def test_a_whole_and_clean_incident_earns_what_the_paper_gives():
    card = handled(n_faults=4).score()
    assert card["net_score"] == pytest.approx(card["marathon_score"]) == pytest.approx(25.0)
    assert card["net"]["grouping"] == 1.0 and card["net"]["false_alarms"] == 0
    assert (
        card["net"]["unwarranted_interventions"] == card["net"]["out_of_scope_interventions"] == 0
    )


def test_coverage_counts_the_faults_alerts_the_incident_left_out():
    run = handled(n_faults=1).alert("A2", 1400.0, "frontend").alert("A3", 1500.0, "paymentservice")
    card = run.score()
    q = grouping({"A1"}, {"A1", "A2", "A3"})  # 0.5
    assert card["net"]["grouping"] == pytest.approx(q)
    assert card["net_score"] == pytest.approx(100.0 * (W.w_correlation * q + 2 / 3))
    assert card["marathon_score"] == pytest.approx(100.0)  # the paper does not look
    # adding them to the incident makes it whole again
    whole = run.incident("INC-1", 1510.0, ["A2", "A3"], action="updated").score()
    assert whole["net_score"] == pytest.approx(100.0)


def test_precision_counts_the_alerts_that_are_not_the_faults():
    card = (
        handled(n_faults=1)
        .alert("N1", 1300.0, "adservice")
        .incident("INC-1", 1330.0, ["N1"], action="updated")
        .score()
    )
    assert card["net"]["grouping"] == pytest.approx(grouping({"A1", "N1"}, {"A1"}))


def test_one_incident_per_alert_earns_little_and_pays_for_the_rest():
    run = Run(1).fault(0, 1200.0, 1680.0)
    ids = [f"A{i}" for i in range(4)]
    for i, a in enumerate(ids):
        run.alert(a, 1290.0 + 60 * i, "checkoutservice")
        run.incident(f"INC-{i}", 1530.0 + i, [a], culprits=["checkoutservice"], artifact=None)
    card = run.score()
    q = grouping({"A0"}, set(ids))
    assert card["marathon_score"] == pytest.approx(100.0 * W.w_correlation)
    assert card["net"]["false_alarms"] == 3  # one incident is the fault's, three are duplicates
    assert card["net_score"] == pytest.approx(100.0 * (W.w_correlation * q - 3 * W.w_false_alarm))
    # the same alerts in one incident: a whole correlation, no false alarm
    one = Run(1).fault(0, 1200.0, 1680.0)
    for i, a in enumerate(ids):
        one.alert(a, 1290.0 + 60 * i, "checkoutservice")
    one.incident("INC-0", 1530.0, ids, culprits=["checkoutservice"], artifact=None)
    assert one.score()["net_score"] == pytest.approx(100.0 * W.w_correlation)


def test_one_giant_incident_earns_little_for_the_one_fault_it_serves():
    run = Run(2).fault(0, 1200.0, 1680.0).fault(1, 2400.0, 3000.0, culprits=["cartservice"])
    run.alert("A1", 1290.0, "checkoutservice").alert("A2", 2460.0, "cartservice")
    noise = [f"N{i}" for i in range(8)]
    for i, a in enumerate(noise):
        run.alert(a, 4500.0 + 15 * i, "adservice")
    run.incident("INC-1", 4700.0, ["A1", "A2", *noise], culprits=["cartservice"], artifact=None)
    card = run.score()
    assert card["net"]["false_alarms"] == 0  # one incident, matched
    assert card["net_score"] == pytest.approx(
        unit(2) * W.w_correlation * grouping({"A1", "A2", *noise}, {"A1"})
    )


def test_an_alert_of_two_faults_counts_for_each():
    run = (
        Run(2)
        .fault(0, 1200.0, 1680.0)
        .fault(1, 1300.0, 1800.0, culprits=["cartservice"], affected=["frontend"])
        .alert("A1", 1320.0, "frontend")  # in both scopes and windows
        .alert("A2", 1330.0, "cartservice")
    )
    run.incident("INC-1", 1400.0, ["A1"], culprits=["checkoutservice"], artifact=None)
    run.incident("INC-2", 1401.0, ["A1", "A2"], culprits=["checkoutservice"], artifact=None)
    card = score(run.ev, per_fault=True)
    by = {f["index"]: f for f in card["faults"]}
    assert (by[0]["net_incident"], by[1]["net_incident"]) == ("INC-1", "INC-2")
    assert by[0]["grouping"] == 1.0 and by[1]["grouping"] == 1.0


def test_an_intervention_on_no_active_fault_is_unneeded():
    run = handled(n_faults=1).intervene(1325.0, "INC-1", target="adservice")
    card = run.score()
    assert card["net"]["unwarranted_interventions"] == 1
    assert card["net"]["costs"]["unwarranted_interventions"] == pytest.approx(100 * W.w_unwarranted)
    assert card["net_score"] == pytest.approx(100.0 * (1 - W.w_unwarranted))
    # the agent sees alerts for a while after the revert: acting in the grace is still needed
    late = handled(n_faults=1).intervene(1680.0 + W.attribution_grace_s, "INC-1").score()
    assert late["net"]["unwarranted_interventions"] == 0
    later = handled(n_faults=1).intervene(1680.0 + W.attribution_grace_s + 1, "INC-1").score()
    assert later["net"]["unwarranted_interventions"] == 1


def test_an_intervention_its_incident_does_not_justify_is_out_of_scope():
    run = handled(n_faults=1).alert("N1", 1300.0, "adservice")
    run.incident("INC-2", 1310.0, ["N1"], culprits=["adservice"], artifact=None)
    card = run.intervene(1330.0, "INC-2", target="checkoutservice").score()
    assert card["net"]["out_of_scope_interventions"] == 1
    assert card["net"]["unwarranted_interventions"] == 0
    assert card["net"]["false_alarms"] == 1  # INC-2 holds nothing of the fault
    assert card["net_score"] == pytest.approx(100.0 * (1 - W.w_out_of_scope - W.w_false_alarm))


def degraded_run(agent_share: float, noaction_share: float | None) -> Run:
    run = handled(n_faults=2)
    entry = np.zeros((401, 3))
    entry[:, 0] = 10.0
    base = entry.copy()
    entry[100:200, 1] = agent_share
    base[100:200, 1] = noaction_share or 0.0
    run.ev.arrays["entry"] = entry
    if noaction_share is not None:
        run.ev.arrays["entry_noaction"] = base
    return run


def test_users_degraded_beyond_doing_nothing_cost_in_proportion():
    card = degraded_run(0.5, 0.2).score()
    deg = card["degradation"]
    excess = (deg["degraded_requests"] - deg["noaction_degraded_requests"]) / deg["requests"]
    assert excess > 0
    cost = card["net"]["costs"]["degradation"]
    assert cost == pytest.approx(W.w_degradation * 100.0 * excess)
    assert card["net_score"] == pytest.approx(50.0 - cost)
    # better than doing nothing costs nothing (and earns nothing beyond the stages)
    assert degraded_run(0.1, 0.2).score()["net"]["costs"]["degradation"] == 0.0
    # without a no-action run there is nothing to compare with: not charged, and said so
    none = degraded_run(0.5, None).score()
    assert none["net"]["costs"]["degradation"] is None and none["net_score"] == pytest.approx(50.0)


def test_a_run_without_interventions_is_its_own_no_action_run():
    run = Run(1).fault(0, 1200.0, 1680.0).alert("A1", 1290.0, "checkoutservice")
    run.incident("INC-1", 1320.0, ["A1"])
    entry = np.zeros((401, 3))
    entry[:, 0] = 10.0
    entry[:, 1] = 0.5
    run.ev.arrays["entry"] = entry  # (no entry_noaction at all)
    assert run.score()["net"]["costs"]["degradation"] == 0.0


def test_noop_scores_zero_and_the_floor_bounds_spam():
    assert (
        Run(3).fault(0, 1200.0, 1680.0).alert("A1", 1290.0, "checkoutservice").score()["net_score"]
        == 0.0
    )
    run = Run(1).fault(0, 1200.0, 1680.0)
    for i in range(40):
        run.alert(f"N{i}", 700.0 + 10 * i, "adservice")
        run.incident(f"INC-{i}", 1100.0 + i, [f"N{i}"], culprits=["adservice"], artifact=None)
    card = run.score()
    assert card["net"]["false_alarms"] == 40
    assert 40 * W.w_false_alarm * 100 > 100 and card["net_score"] == W.net_floor
    lax = dataclasses.replace(W, net_floor=-1e9)
    assert score(run.ev, config=lax)["net_score"] == pytest.approx(-100.0 * 40 * W.w_false_alarm)


def test_alerts_the_agent_could_not_see_yet_do_not_cut_coverage():
    """An alert that started during the current invocation reached no observation: coverage at
    that cut leaves it out (unless the agent already added it), and counts it from the next."""
    run = handled(n_faults=1).alert("A2", 1330.0, "frontend")
    cut = 1320.0 + W.invocation_s  # the invocation that reported started at 1320
    assert scores(run.ev, cutoff=cut - 1)["net_score"] == pytest.approx(
        scores(run.ev, cutoff=cut - 1)["marathon_score"]
    )
    later = scores(run.ev, cutoff=1330.0 + W.invocation_s + 60)
    assert later["net_score"] < later["marathon_score"]


def test_scores_as_of_each_cut_are_the_scorecards():
    run = degraded_run(0.5, 0.2).alert("A2", 1400.0, "frontend").forbidden(2000.0)
    run.intervene(2100.0, "INC-1", target="adservice")
    for cut in (700.0, 1320.0, 1440.0, 1700.0, 2200.0, 6000.0):
        card = run.score(cutoff=cut)
        assert scores(run.ev, cutoff=cut) == {
            "marathon_score": card["marathon_score"],
            "net_score": card["net_score"],
        }


def test_the_weights_are_in_the_scoring_config():
    run = handled(n_faults=1).intervene(1325.0, "INC-1", target="adservice")
    free = dataclasses.replace(W, w_unwarranted=0.0)
    assert score(run.ev, config=free)["net_score"] == pytest.approx(100.0)
    assert score(run.ev, config=free)["scoring_version"] != run.score()["scoring_version"]
