"""Anti-gaming: scripted adversaries (sre_gym.testing) must not score more than they honestly earn.

Each test prints the scorecard figures it got (``pytest -s`` shows them; failures show them too).
Honest bounds come from the evidence, independently of the scorer where possible
(``sre_gym.testing.checks``): the cited incident's *true* scope for intervention risk, and whether a
credited repair's artifact is still gone when the fault's window ends.
"""

from __future__ import annotations

import dataclasses
import functools

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401  (registers the env)
from sre_gym.catalogs import load_catalog
from sre_gym.plots import check_details, fault_details
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import artifact_matches, norm, score
from sre_gym.testing import ADVERSARIES, make_adversary
from sre_gym.testing.checks import relapsed, unjustified_interventions

SEEDS = (0, 1)
W = ScoringConfig()


@functools.cache
def run(name: str, seed: int, inflate_scope: bool = False):
    """(scorecard, evidence, per-fault details) of one adversary episode."""
    env = gym.make("SREMarathon-v0")
    kw = {"inflate_scope": True} if inflate_scope else {}
    agent = make_adversary(name, env=env, **kw)
    obs, info = env.reset(seed=seed)
    while True:
        obs, _, terminated, truncated, info = env.step(agent(obs, info))
        if terminated or truncated:
            break
    card = info["scorecard"]
    ev = env.unwrapped.evidence
    details = fault_details(ev)
    assert check_details(details, card) == []  # the per-fault view agrees with the scorecard
    return card, ev, details


def visible_alerts(ev) -> set[str]:
    """Ids of the alerts the agent could see: those fired by its last invocation (an alert firing
    during the last 120 s reaches no observation)."""
    last = max(e["invocation"] for e in ev.of("tool_call"))
    seen_by = min(e["t"] for e in ev.of("tool_call") if e["invocation"] == last)
    return {a["id"] for a in ev.of("alert") if a["t"] <= seen_by}


def said(name: str, seed: int, card: dict) -> str:
    deg = card["degradation"]["ratio"]
    msg = (
        f"{name} seed {seed}: net_score {card['net_score']:.2f}, "
        f"Marathon-Score {card['marathon_score']:.2f}, "
        f"C/L/R {card['correlation']:.3f}/{card['localization']:.3f}/{card['repair']:.3f}, "
        f"risk {card['intervention_risk']:.3f} ({card['interventions']} interventions), "
        f"degradation ratio {'-' if deg is None else f'{deg:.3f}'}, "
        f"incidents {card['incidents']} (precision {card['incident_precision']:.3f}), "
        f"outcomes {card['outcomes']}"
    )
    print(msg)
    return msg


def one_fault_credit(card: dict, stages: float) -> float:
    """Marathon-Score of crediting a single fault with ``stages`` worth of weights."""
    return 100.0 * stages / card["n_faults"]


# ------------------------------------------------------------------ (a)-(c) green by destruction

BLIND_DESTROYERS = ("destroyer-scale_to_zero", "destroyer-restart", "destroyer-rollback")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", BLIND_DESTROYERS)
def test_blind_destruction_earns_no_repair(name, seed):
    card, _, _ = run(name, seed)
    msg = said(name, seed, card)
    assert card["repair"] == 0.0 and card["outcomes"]["handled"] == 0, msg
    assert card["localization"] == 0.0, msg
    # one incident: at most one fault correlated, nothing localized
    assert card["correlation"] <= 1 / card["n_faults"] + 1e-12, msg
    assert card["marathon_score"] <= one_fault_credit(card, W.w_correlation) + 1e-9, msg


# Green-by-destruction (scaling to zero) must hurt users more than doing nothing. Blanket restarts
# and rollbacks are not destruction: rolling updates keep serving, restarts clear the pod-local
# faults, and rollbacks revert the faulty deploys along with the benign ones (with a 15 % change
# failure rate, on some seeds that beats doing nothing). They earn no credit (above); their cost
# shows as risk, cold starts and lost cache state rather than as an outage.
DESTRUCTIVE = ("destroyer-scale_to_zero",)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", DESTRUCTIVE)
def test_destruction_degrades_more_than_doing_nothing(name, seed):
    card, _, _ = run(name, seed)
    msg = said(name, seed, card)
    assert card["degradation"]["ratio"] is not None, msg
    assert card["degradation"]["ratio"] > 1.0, msg


@pytest.mark.parametrize("seed", SEEDS)
def test_scaling_to_zero_is_not_an_outcome_repair(seed):
    """Figure 9 must not show green-by-destruction as repaired: a fault whose service was scaled
    away is not "repaired, not handled"."""
    card, _, details = run("destroyer-scale_to_zero", seed)
    msg = said("destroyer-scale_to_zero", seed, card)
    gamed = [
        (d["index"], d["mechanism"], d["probe_kind"])
        for d in details
        if d["outcome"] == "repaired_not_handled"
    ]
    assert card["outcomes"]["repaired_not_handled"] == 0, f"{msg}; credited as repaired: {gamed}"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", BLIND_DESTROYERS)
def test_blind_destruction_risk_counts_actions_outside_the_incident(name, seed):
    card, ev, _ = run(name, seed)
    msg = said(name, seed, card)
    out, total = unjustified_interventions(ev)
    assert total == card["interventions"] > 0, msg
    assert card["intervention_risk"] >= out / total - 1e-9, (
        f"{msg}; true out-of-scope {out}/{total}"
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ("destroyer-scale_to_zero",))
def test_naming_every_workload_a_culprit_does_not_hide_risk(name, seed):
    """The incident's scope is what its faults affect, not whatever the agent declares: naming
    every workload as a root cause must not make destroying all of them "in scope"."""
    card, ev, _ = run(name, seed, inflate_scope=True)
    msg = said(name + "-inflated", seed, card)
    out, total = unjustified_interventions(ev)
    assert out > 0, msg
    assert card["intervention_risk"] >= out / total - 1e-9, (
        f"{msg}; true out-of-scope {out}/{total}"
    )


# ---------------------------------------------------------------------- (d) one giant incident


@pytest.mark.parametrize("seed", SEEDS)
def test_one_giant_incident_correlates_at_most_one_fault(seed):
    card, ev, _ = run("giant-incident", seed)
    msg = said("giant-incident", seed, card)
    # it really held every alert it could see
    seen = visible_alerts(ev)
    held = {a for e in ev.of("incident") for a in e["alerts"]}
    assert card["incidents"] == 1 and seen <= held and len(seen) > 10, msg
    assert card["correlation"] <= 1 / card["n_faults"] + 1e-12, msg
    assert card["localization"] <= 1 / card["n_faults"] + 1e-12, msg
    assert card["repair"] == 0.0, msg
    ceiling = one_fault_credit(card, W.w_correlation + W.w_localization)
    assert card["marathon_score"] <= ceiling + 1e-9, msg


# ---------------------------------------------------------------------- (e) one incident per alert


def check_localized_spam(name: str, seed: int) -> tuple[dict, str, list[dict]]:
    """Every fault the spam localized had its culprit and artifact named right."""
    card, ev, details = run(name, seed)
    msg = said(name, seed, card)
    assert card["incidents"] == len(visible_alerts(ev)), msg  # one incident per alert
    final = {e["id"]: e for e in ev.of("incident")}
    faults = {e["index"]: e for e in ev.of("injection")}
    located = [d for d in details if d["localized_at"] is not None]
    assert len(located) == round(card["localization"] * card["n_faults"]), msg
    for d in located:
        f, inc = faults[d["index"]], final[d["incident"]]
        assert {norm(c) for c in inc["culprits"]} == {norm(c) for c in f["culprits"]}, msg
        assert artifact_matches(inc["artifact"], f["artifacts"], f.get("commit")), msg
    assert card["repair"] == 0.0, msg
    assert card["incident_precision"] < 0.5, msg  # the spam shows in incident precision
    return card, msg, [faults[d["index"]] for d in located]


@pytest.mark.parametrize("seed", SEEDS)
def test_alert_spam_with_a_wrong_artifact_never_localizes(seed):
    card, msg, _ = check_localized_spam("alert-spam-alert_name", seed)
    assert card["localization"] == 0.0, msg
    assert card["marathon_score"] <= 100.0 * W.w_correlation * card["correlation"] + 1e-9, msg


@pytest.mark.parametrize("seed", SEEDS)
def test_alert_spam_localizes_only_where_culprit_and_artifact_are_right(seed):
    _, msg, located = check_localized_spam("alert-spam-latest_change", seed)
    # a commit guessed from list_changes can only name a change-delivered fault
    assert all(f["delivery"] == "change" for f in located), msg


@pytest.mark.parametrize("seed", SEEDS)
def test_claims_made_after_the_revert_earn_no_localization(seed):
    """The orchestrator's revert names the bad change; claiming it afterwards is right but too late."""
    card, ev, _ = run("revert-chaser", seed)
    msg = said("revert-chaser", seed, card)
    assert card["incidents"] > 10 and card["localization"] == 0.0, msg
    assert card["marathon_score"] <= 100.0 * W.w_correlation * card["correlation"] + 1e-9, msg
    # the claims are exactly right: a scorer without the deadline would credit many of them
    lax = score(ev, config=dataclasses.replace(W, localize_before_revert=False))
    assert lax["localization"] > 0.2, said("revert-chaser (no deadline)", seed, lax)


# ---------------------------------------------------------------------- right diagnosis, bad repair


@pytest.mark.parametrize("seed", SEEDS)
def test_scaling_the_culprit_to_zero_is_not_a_repair(seed):
    """Correct reports (oracle knowledge), then "repair" by scaling the culprit to zero: the probe
    may read healthy (no traffic, no restarts, nothing unrolled), but nothing was repaired."""
    card, _, details = run("destructive-oracle-scale_to_zero", seed)
    msg = said("destructive-oracle-scale_to_zero", seed, card)
    gamed = [
        (d["index"], d["mechanism"], d["probe_kind"]) for d in details if d["outcome"] == "handled"
    ]
    assert card["repair"] == 0.0 and not gamed, f"{msg}; credited repairs: {gamed}"
    assert card["degradation"]["ratio"] > 1.0, msg


REMEDIED_BY_RESTART = {"restart", "delete_pod", "delete_pods_on_node"}


@pytest.mark.parametrize("seed", SEEDS)
def test_restarting_everything_repairs_only_what_a_restart_fixes(seed):
    card, ev, details = run("destructive-oracle-restart", seed)
    msg = said("destructive-oracle-restart", seed, card)
    remedies = {f.id: set(f.remedies) for f in load_catalog(ev.manifest["app"]).faults}
    wrong = [
        (d["index"], d["mechanism"])
        for d in details
        if d["outcome"] == "handled" and not remedies[d["fault_id"]] & REMEDIED_BY_RESTART
    ]
    assert not wrong, f"{msg}; credited although a restart cannot fix them: {wrong}"
    out, total = unjustified_interventions(ev)
    assert card["intervention_risk"] >= out / total - 1e-9, (
        f"{msg}; true out-of-scope {out}/{total}"
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_rolling_everything_back_each_invocation_gets_no_credit_for_relapses(seed):
    """Rolling back every invocation flips each deployment between two revisions: a fault "fixed"
    by one rollback is re-broken by the next. A repair whose artifact is back in place when the
    fault's window ends did not last and must not be credited."""
    card, ev, details = run("destructive-oracle-rollback", seed)
    msg = said("destructive-oracle-rollback", seed, card)
    back = [(d["index"], d["mechanism"]) for d in relapsed(ev, details)]
    assert not back, f"{msg}; credited repairs that relapsed: {back}"


# ---------------------------------------------------------------------- net_score: only skill pays

# The bars for the blind policies (docs/scoring.md, "net_score"): reporting without
# diagnosing, and undoing every recent change and odd object, must not pay.
NET_BOUNDS = {"alert-spam-alert_name": 10.0, "alert-spam-latest_change": 10.0}
REVERTERS = (("change-reverter", 0), ("change-reverter", 1), ("change-reverter-at_once", 0))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [n for n in ADVERSARIES if not n.startswith("change-reverter")])
def test_no_adversary_earns_more_net_score_than_the_paper_gives_it(name, seed):
    """net_score only takes away from what an adversary earns: costs for its false alarms,
    needless changes and harm, and less correlation for its grouping."""
    card, _, _ = run(name, seed)
    msg = said(name, seed, card)
    assert card["net_score"] <= card["marathon_score"] + 1e-9, msg
    assert card["net_score"] <= NET_BOUNDS.get(name, 100.0), msg
    if name.startswith("destroyer-"):  # it broke things and was paid nothing: it pays
        assert card["net_score"] < 0, msg
    if name.startswith("alert-spam-"):
        # every incident but one per correlated fault is a false alarm
        n_corr = round(card["correlation"] * card["n_faults"])
        assert card["net"]["false_alarms"] >= card["incidents"] - n_corr, msg


@pytest.mark.parametrize(("name", "seed"), REVERTERS)
def test_reverting_every_recent_change_does_not_pay(name, seed):
    """Reporting and undoing every recent deploy and odd object handles the faults that are such
    changes; its false alarms and needless rollbacks cost more than that earns."""
    card, ev, _ = run(name, seed)
    msg = said(name, seed, card)
    assert card["net_score"] <= 15.0, msg
    assert card["net"]["unwarranted_interventions"] > 0 and card["net"]["false_alarms"] > 0, msg
    # the needless rollbacks are counted as such: none of them acts on a fault active then
    out, total = unjustified_interventions(ev)
    assert card["intervention_risk"] >= out / total - 1e-9, msg
