"""Baselines on seeds 0-4: noop scores exactly 0, oracle >= 95, runbook strictly between."""

from __future__ import annotations

import pytest

from sre_gym.agents import AGENTS, make_agent

SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_noop_scores_exactly_zero(episode, seed):
    card = episode("noop", seed)["info"]["scorecard"]
    assert card["marathon_score"] == 0.0
    assert card["outcomes"]["missed"] == card["n_faults"]
    assert card["degradation"]["ratio"] == 1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_oracle_is_the_upper_bound(episode, seed):
    card = episode("oracle", seed)["info"]["scorecard"]
    assert card["marathon_score"] >= 95.0
    assert card["forbidden_attempts"] == 0 and card["intervention_risk"] == 0.0
    assert sum(card["outcomes"].values()) == card["n_faults"]


@pytest.mark.parametrize("seed", SEEDS)
def test_runbook_lands_strictly_between(episode, seed):
    runbook = episode("runbook", seed)["info"]["scorecard"]["marathon_score"]
    oracle = episode("oracle", seed)["info"]["scorecard"]["marathon_score"]
    assert 0.0 < runbook < oracle


def test_runbook_never_localizes(episode):
    card = episode("runbook", 0)["info"]["scorecard"]
    assert card["localization"] == 0.0 and card["correlation"] > 0.0


def test_factory():
    assert set(AGENTS) == {"noop", "oracle", "runbook"}
    with pytest.raises(ValueError, match="needs the env"):
        make_agent("oracle")
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("gpt")
