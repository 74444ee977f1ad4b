"""Baselines on seeds 0-2 of every app: noop scores exactly 0, oracle >= 90 (net_score >= 85), runbook
strictly between on the paper's score."""

from __future__ import annotations

import pytest

from sre_gym.agents import AGENTS, make_agent
from sre_gym.catalogs import APPS

SEEDS = range(3)  # `sre-gym qualify --seeds 0-19` checks the oracle and no-op on more
CASES = [(app, seed) for app in APPS for seed in SEEDS]


@pytest.mark.parametrize("app,seed", CASES)
def test_noop_scores_exactly_zero(episode_info, app, seed):
    card = episode_info("noop", seed, app=app)["scorecard"]
    assert card["marathon_score"] == card["net_score"] == 0.0
    assert card["outcomes"]["missed"] == card["n_faults"]
    assert card["degradation"]["ratio"] == 1.0


@pytest.mark.parametrize("app,seed", CASES)
def test_oracle_is_the_upper_bound(episode_info, app, seed):
    card = episode_info("oracle", seed, app=app)["scorecard"]
    assert card["marathon_score"] >= 90.0 and card["net_score"] >= 85.0
    assert card["forbidden_attempts"] == 0
    assert sum(card["outcomes"].values()) == card["n_faults"]
    # with real rollout times some short windows close before any repair can hold (docs/scoring.md)
    assert card["outcomes"]["handled"] >= 0.8 * card["n_faults"]


@pytest.mark.parametrize("app,seed", CASES)
def test_runbook_lands_strictly_between(episode_info, app, seed):
    runbook = episode_info("runbook", seed, app=app)["scorecard"]
    oracle = episode_info("oracle", seed, app=app)["scorecard"]["marathon_score"]
    assert 0.0 < runbook["marathon_score"] < oracle
    assert runbook["forbidden_attempts"] == 0  # it leaves the load generator alone


def test_runbook_never_localizes(episode_info):
    card = episode_info("runbook", 0)["scorecard"]
    assert card["localization"] == 0.0 and card["correlation"] > 0.0


def test_factory():
    assert {"noop", "oracle", "runbook"} <= set(AGENTS)
    with pytest.raises(ValueError, match="needs the env"):
        make_agent("oracle")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("gpt")


def test_runbook_table_covers_every_rule_of_the_pack():
    from sre_gym.agents.runbook import TABLE
    from sre_gym.backends.sim import rule_pack

    names = {r.name for r in rule_pack()}
    assert names <= set(TABLE), sorted(names - set(TABLE))
