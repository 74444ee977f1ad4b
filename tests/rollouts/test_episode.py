"""One episode of one agent: agent specs, factories, and the deterministic record."""

from __future__ import annotations

import functools

import pytest

from sre_gym.agents import RunbookAgent, make_agent
from sre_gym.agents.oracle import OracleAgent
from sre_gym.rollouts.episode import agent_label, build_agent, run_episode

APP = "online-boutique"


def test_agent_label():
    assert agent_label("keep") == "keep"
    assert agent_label(RunbookAgent) == "runbook"
    assert agent_label(OracleAgent) == "oracle"
    assert agent_label(functools.partial(make_agent, "noop")) == "make_agent"
    assert agent_label(lambda: None) == "function"
    assert agent_label("keep", name="keep-v2") == "keep-v2"


def test_build_agent_passes_env_and_seed_only_when_asked():
    seen = {}

    def both(env, seed):
        seen.update(env=env, seed=seed)
        return make_agent("noop")

    def kw(**kwargs):
        seen.update(kwargs=sorted(kwargs))
        return make_agent("noop")

    env = object()
    assert callable(build_agent(both, env, 3))
    assert seen["env"] is env and seen["seed"] == 3
    build_agent(kw, env, 3)
    assert seen["kwargs"] == ["env", "seed"]
    assert isinstance(build_agent(RunbookAgent, env, 3), RunbookAgent)
    assert build_agent("random", env, 5).seed == 5


def test_build_agent_rejects_what_is_not_a_factory():
    with pytest.raises(TypeError, match="only env= and seed="):
        build_agent(lambda obs, info: [], None, 0)  # a policy, not a factory
    with pytest.raises(TypeError, match="not a policy"):
        build_agent(lambda: 42, None, 0)
    with pytest.raises(TypeError, match="baseline name or a factory"):
        build_agent(42, None, 0)


def test_run_episode_record_is_deterministic_and_named(tmp_path):
    rec = run_episode("noop", APP, 1)
    assert set(rec) == {
        "agent",
        "app",
        "seed",
        "release",
        "schedule",
        "evaluation",
        "reward",
        "scorecard",
        "return",
        "bundle",
    }
    assert rec["schedule"] == "marathon" and rec["reward"] == "net"
    assert (rec["agent"], rec["app"], rec["seed"], rec["bundle"]) == ("noop", APP, 1, None)
    assert rec["scorecard"]["marathon_score"] == 0.0 == rec["return"]
    assert run_episode("noop", APP, 1) == rec
    # a factory gives the same episode as the name, filed under the factory's name
    same = run_episode(RunbookAgent, APP, 1)
    assert same == {**run_episode("runbook", APP, 1), "agent": "runbook"}
    with_bundle = run_episode("noop", APP, 1, bundle_dir=str(tmp_path), agent_name="floor")
    assert with_bundle["agent"] == "floor"
    assert with_bundle["bundle"].startswith(str(tmp_path))
    assert with_bundle["scorecard"] == rec["scorecard"]


def test_the_oracle_is_built_inside_the_episode():
    rec = run_episode(OracleAgent, APP, 0)
    assert rec["agent"] == "oracle" and rec["scorecard"]["marathon_score"] >= 90.0


def test_play_never_hands_the_agent_seed_or_score():
    """The harness passes agent_info(info): an evaluated agent never sees the seed or the score."""
    import gymnasium as gym

    from sre_gym.rollouts.episode import play

    seen = []

    def policy(obs, info):
        seen.append(dict(info))
        return []

    env = gym.make("SREMarathon-v0", app=APP, schedule="short")
    info, _ = play(env, policy, 4)
    assert "scorecard" in info  # the harness itself gets the final info
    assert seen and all("seed" not in i and "score" not in i and "scorecard" not in i for i in seen)


def test_evaluation_factories_get_neither_env_nor_seed():
    seen = {}

    def kw(**kwargs):
        seen["kwargs"] = sorted(kwargs)
        return make_agent("noop")

    def needs_env(env):
        return make_agent("noop")

    build_agent(kw, object(), 3, evaluation=True)
    assert seen["kwargs"] == []
    with pytest.raises(TypeError, match="evaluation mode"):
        build_agent(needs_env, object(), 3, evaluation=True)


def test_run_episode_in_evaluation_mode_records_the_mode_not_the_key():
    rec = run_episode("noop", APP, 4, schedule="short", evaluation_key="k-9f")
    assert rec["evaluation"] is True
    assert "k-9f" not in repr(rec)
    assert run_episode("noop", APP, 4, schedule="short")["evaluation"] is False
