"""SREMarathon-v0: Gymnasium conformance, determinism, reward accounting, bad input."""

from __future__ import annotations

import json
import pickle
import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sre_gym  # noqa: F401
from sre_gym.catalogs import APPS
from sre_gym.envs.marathon import INVOCATION_S, N_INVOCATIONS, SREMarathonEnv
from sre_gym.scoring import score_bundle

IDS = [s.id for s in gym.registry.values() if str(s.entry_point).startswith("sre_gym")]


def test_registered_ids():
    assert "SREMarathon-v0" in IDS


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_passes_without_warnings(env_id):
    env = gym.make(env_id, disable_env_checker=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize("env_id", IDS)
def test_spec_round_trips_through_json(env_id):
    spec = gym.spec(env_id)
    again = gym.envs.registration.EnvSpec.from_json(spec.to_json())
    assert again == spec


def test_unknown_app_and_render_mode_are_rejected():
    with pytest.raises(ValueError, match="unknown app"):
        SREMarathonEnv(app="nope")
    with pytest.raises(ValueError, match="render_mode"):
        SREMarathonEnv(render_mode="human")


def _rollout(seed, actions):
    env = SREMarathonEnv()
    out = [env.reset(seed=seed)]
    for a in actions:
        out.append(env.step(a))
    return env, out


def test_same_seed_gives_identical_observation_stream_and_scorecard(episode):
    a = episode("runbook", 3)
    b = _rollout(3, [None] * 0)[0]  # fresh env, then replay runbook's actions
    del b
    env = SREMarathonEnv()
    from sre_gym.agents import make_agent

    ag = make_agent("runbook")
    obs, info = env.reset(seed=3)
    stream = [obs]
    while True:
        obs, r, term, trunc, info = env.step(ag(obs, info))
        stream.append(obs)
        if term:
            break
    assert len(stream) == len(a["obs"]) == N_INVOCATIONS + 1
    for x, y in zip(stream, a["obs"], strict=True):
        assert x.keys() == y.keys()
        for k in x:
            assert np.array_equal(x[k], y[k]) if isinstance(x[k], np.ndarray) else x[k] == y[k]
    assert info["scorecard"] == a["info"]["scorecard"]


def test_different_seeds_differ(episode):
    assert episode("noop", 0)["obs"][-1]["alerts"] != episode("noop", 1)["obs"][-1]["alerts"]


def test_extra_read_only_calls_change_neither_alerts_nor_score(episode):
    base = episode("noop", 2)
    reads = [
        {"tool": "get_alerts", "args": {}},
        {
            "tool": "query_metrics",
            "args": {"query": "sum by (service_name) (rate(traces_span_metrics_calls_total[1m]))"},
        },
        {"tool": "query_logs", "args": {"service": "frontend", "limit": 20}},
        {"tool": "k8s_get", "args": {"kind": "pods"}},
        {"tool": "k8s_describe", "args": {"kind": "deployments", "name": "cartservice"}},
        {"tool": "list_changes", "args": {}},
        {"tool": "get_topology", "args": {}},
    ]
    env = SREMarathonEnv()
    env.reset(seed=2)
    for k in range(N_INVOCATIONS):
        obs, r, term, trunc, info = env.step(reads)
        assert obs["alerts"] == base["obs"][k + 1]["alerts"]
        assert r == base["rewards"][k]
    sc = dict(info["scorecard"])
    ref = dict(base["info"]["scorecard"])
    assert sc.pop("cost")["tool_calls"] == len(reads) * N_INVOCATIONS
    ref.pop("cost")
    assert sc == ref


@pytest.mark.parametrize("agent", ["noop", "runbook", "oracle"])
def test_rewards_sum_to_net_score(episode, agent):
    ep = episode(agent, 0)
    assert abs(sum(ep["rewards"]) - ep["info"]["scorecard"]["net_score"]) < 1e-9


def test_scorecard_has_the_required_keys(episode):
    card = episode("runbook", 0)["info"]["scorecard"]
    for key in (
        "net_score",
        "net",
        "marathon_score",
        "correlation",
        "localization",
        "repair",
        "intervention_risk",
        "n_faults",
        "forbidden_attempts",
    ):
        assert key in card
    assert json.loads(json.dumps(card)) == card  # a plain dict


def test_offline_score_of_the_bundle_equals_the_online_scorecard(tmp_path):
    env = gym.make("SREMarathon-v0", bundle_dir=str(tmp_path))
    from sre_gym.agents import make_agent

    ag = make_agent("oracle", env=env)
    obs, info = env.reset(seed=1)
    while True:
        obs, r, term, trunc, info = env.step(ag(obs, info))
        if term:
            break
    assert info["bundle"].startswith(str(tmp_path))
    assert score_bundle(info["bundle"]) == info["scorecard"]


BAD_ACTIONS = [
    "{not json",
    '[{"tool": "no_such_tool", "args": {}}]',
    [
        {
            "tool": "scale",
            "args": {"deployment": "cartservice", "replicas": "three", "incident_id": "INC-0001"},
        }
    ],
    [{"tool": "query_logs", "args": {"service": "x" * 1_000_000}}],
    "x" * 1_000_001,
    42,
    [1, 2, 3],
    {"calls": "nope"},
    {"weird": True},
    [{"tool": "get_alerts", "args": []}],
    [{"tool": "rollback", "args": {"deployment": "cartservice", "incident_id": "INC-9999"}}],
]


def _state(env):
    b = env.backend
    return (
        [d.current.number for d in b.cluster.world.deployments],
        [d.replicas for d in b.cluster.world.deployments],
        len(env.toolbox.incidents),
        len(env.evidence.of("intervention")),
    )


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=range(len(BAD_ACTIONS)))
def test_malformed_actions_become_error_results_and_change_nothing(action):
    env, twin = SREMarathonEnv(), SREMarathonEnv()
    env.reset(seed=5)
    twin.reset(seed=5)
    obs, r, term, trunc, info = env.step(action)
    ref = twin.step([])
    results = json.loads(obs["tool_results"])
    assert results and all(not x["ok"] for x in results)
    assert all(x["error"] for x in results)
    assert _state(env) == _state(twin)  # the world moved on exactly as if nothing had been sent
    assert obs["alerts"] == ref[0]["alerts"]
    assert r == ref[1] == 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=True)
        | st.text(max_size=50),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(st.text(max_size=10), children, max_size=4)
        ),
        max_leaves=20,
    )
)
def test_arbitrary_json_values_never_raise(value):
    env = _SHARED
    obs, r, term, trunc, info = env.step(value)
    assert env.observation_space.contains(obs)
    if env.invocation >= N_INVOCATIONS:
        env.reset(seed=6)


_SHARED = SREMarathonEnv()
_SHARED.reset(seed=6)


def test_step_before_reset_and_after_the_end_raise():
    env = SREMarathonEnv()
    with pytest.raises(gym.error.ResetNeeded):
        env.step([])
    env.reset(seed=0)
    for _ in range(N_INVOCATIONS):
        env.step([])
    with pytest.raises(gym.error.ResetNeeded):
        env.step([])


def test_budget_refuses_calls_past_110_seconds():
    env = SREMarathonEnv()
    env.reset(seed=0)
    obs, *_, info = env.step([{"tool": "query_logs", "args": {"service": "frontend"}}] * 40)
    res = json.loads(obs["tool_results"])
    ok = [x for x in res if x["ok"]]
    assert len(ok) == 110 // 3
    assert "budget" in res[-1]["error"]
    assert info["budget_used_s"] == 3 * len(ok)


def test_notes_persist_and_usage_is_costed(episode):
    env = SREMarathonEnv()
    env.reset(seed=0)
    obs, *_ = env.step(
        {
            "calls": [],
            "notes": "checked cart",
            "usage": {"model_calls": 1, "input_tokens": 900, "output_tokens": 80, "dollars": 0.01},
        }
    )
    assert obs["notes"] == "checked cart"
    obs, *_ = env.step([])
    assert obs["notes"] == "checked cart"
    for _ in range(N_INVOCATIONS - 2):
        obs, r, term, trunc, info = env.step([])
    cost = info["scorecard"]["cost"]
    assert (cost["model_calls"], cost["input_tokens"], cost["output_tokens"]) == (1, 900, 80)


def test_observations_never_contain_ground_truth(episode):
    ep = episode("oracle", 0)
    env = ep["env"]
    secrets = set()
    for inj in env.backend.ground_truth()["injections"]:
        secrets |= {inj.fault.id, inj.fault.mechanism}
    text = "\n".join(o["alerts"] + o["tool_results"] + o["incidents"] for o in ep["obs"])
    leaked = sorted(s for s in secrets if s in text)
    assert not leaked, leaked


def test_env_pickles_mid_episode_and_continues_identically():
    env = SREMarathonEnv()
    env.reset(seed=4)
    for _ in range(3):
        env.step([])
    clone = pickle.loads(pickle.dumps(env))
    a = env.step([{"tool": "get_alerts", "args": {}}])
    b = clone.step([{"tool": "get_alerts", "args": {}}])
    assert a[0]["alerts"] == b[0]["alerts"] and a[1] == b[1] and a[4] == b[4]


def test_ansi_render():
    env = SREMarathonEnv(render_mode="ansi")
    env.reset(seed=0)
    env.step([])
    out = env.render()
    assert out.startswith("SREMarathon-v0 online-boutique invocation 1/45 seed=0 score=")


# ---------------------------------------------------------------------- schedule profiles
@pytest.mark.parametrize("name", ["short", "single"])
def test_schedule_profiles_check_end_on_time_and_rescore_offline(tmp_path, name):
    from sre_gym.agents import make_agent
    from sre_gym.orchestrator import SCHEDULE_PROFILES

    env = gym.make("SREMarathon-v0", schedule=name, bundle_dir=str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    n = SCHEDULE_PROFILES[name].invocations
    assert env.unwrapped.n_invocations == n and env.observation_space["invocation"].n == n + 1
    ag = make_agent("oracle", env=env)
    obs, info = env.reset(seed=2)
    steps, total, term = 0, 0.0, False
    while not term:
        obs, r, term, _, info = env.step(ag(obs, info))
        steps, total = steps + 1, total + r
    assert steps == n and obs["invocation"] == n
    card = info["scorecard"]
    assert card["n_faults"] == len(env.unwrapped.backend.schedule.faults)
    assert abs(total - card["net_score"]) < 1e-9 and card["marathon_score"] >= 90
    assert score_bundle(info["bundle"]) == card
    manifest = json.loads((Path(info["bundle"]) / "manifest.json").read_text())
    assert manifest["env"]["schedule_profile"] == SCHEDULE_PROFILES[name].model_dump(mode="json")
    assert manifest["episode_end"] - manifest["episode_start"] == SCHEDULE_PROFILES[name].duration_s
    with pytest.raises(gym.error.ResetNeeded):
        env.step([])


def test_schedule_profile_in_the_spec_round_trips():
    env = gym.make("SREMarathon-v0", schedule={"profile": "short", "categories": ["code"]})
    again = gym.envs.registration.EnvSpec.from_json(env.spec.to_json())
    assert again.kwargs["schedule"] == {"profile": "short", "categories": ["code"]}
    with pytest.raises(ValueError, match="unknown schedule profile"):
        gym.make("SREMarathon-v0", schedule="weekend")


def test_hand_placed_faults_must_fit_the_profile_length():
    env = SREMarathonEnv(schedule="single")
    from sre_gym.catalogs import load_catalog

    fault = load_catalog("online-boutique").faults[0].id
    with pytest.raises(ValueError, match="inside the 1200 s episode"):
        env.reset(seed=0, options={"faults": [{"fault": fault, "start": 600, "end": 1500}]})
    env.reset(seed=0, options={"faults": [{"fault": fault, "start": 600, "end": 1200}]})
    assert env.backend.schedule.duration_s == 1200


def test_alert_text_is_the_json_of_the_alert_view_across_resets():
    from sre_gym.envs.observation_text import ALERTS_CHARS, dump

    env = SREMarathonEnv()
    for seed in (0, 5):  # alert ids restart each episode: nothing encoded may carry over
        env.reset(seed=seed)
        for k in range(N_INVOCATIONS):
            obs, *_ = env.step([])
            if k % 9 == 0 or k == N_INVOCATIONS - 1:
                assert obs["alerts"] == dump(env.alerts_view(), ALERTS_CHARS)
        assert json.loads(obs["alerts"])


def test_the_alert_view_is_the_backends_list_as_of_the_invocation_and_hands_out_copies():
    from sre_gym.envs.observation_text import ALERT_KEYS

    env = SREMarathonEnv()
    for seed in (0, 5):  # a new episode, a new backend: nothing read before may carry over
        env.reset(seed=seed)
        for _ in range(20):
            b = env.backend
            t = b.episode_start + INVOCATION_S * env.invocation
            want = [{k: a[k] for k in ALERT_KEYS} for a in b.alerts(t)]
            view = env.alerts_view()
            assert view == want
            shared = env.alerts_view(copy=False)  # the env's own list, for readers in a hurry
            assert shared == want and shared is env.alerts_view(copy=False)
            if view:
                view[0]["state"] = "tampered"  # the caller's copy, not the env's
                view.pop()
                assert env.alerts_view() == want
            env.step([])
        assert {a["state"] for a in env.alerts_view()} == {"firing", "resolved"}


# ------------------------------------------------------------------ evaluation mode
def _eval_run(key, seed=5, schedule="short"):
    env = SREMarathonEnv(schedule=schedule, evaluation_key=key)
    obs, info = env.reset(seed=seed)
    infos, rewards = [info], []
    while True:
        obs, r, term, _, info = env.step([{"tool": "get_alerts", "args": {}}])
        infos.append(info)
        rewards.append(r)
        if term:
            return env, infos, rewards


def test_evaluation_key_hides_the_schedule_from_public_code():
    from sre_gym.orchestrator import schedule

    public = schedule("online-boutique", 5, profile="short").faults
    a, _, _ = _eval_run("alpha")
    b, _, _ = _eval_run("beta")
    fa, fb = a.backend.schedule.faults, b.backend.schedule.faults
    assert [f.fault_id for f in fa] != [f.fault_id for f in public]
    assert [(f.fault_id, f.start) for f in fa] != [(f.fault_id, f.start) for f in fb]
    # the commit shas of the changes differ too: they are drawn from (key, seed)
    shas = {c["sha"] for c in a.backend.changes()} & {c["sha"] for c in b.backend.changes()}
    assert not shas


def test_same_key_and_seed_give_the_same_run():
    a, ia, ra = _eval_run("alpha")
    b, ib, rb = _eval_run("alpha")
    assert a.backend.schedule == b.backend.schedule
    assert ia[-1]["scorecard"] == ib[-1]["scorecard"]
    assert ra == rb
    assert a.alerts_text() == b.alerts_text()


def test_evaluation_rewards_wait_for_the_last_step_and_sum_to_the_score():
    from sre_gym.agents import make_agent

    env = SREMarathonEnv(schedule="short", evaluation_key="alpha")
    oracle = make_agent("oracle", env=env)
    obs, info = env.reset(seed=5)
    rewards = []
    while True:
        obs, r, term, _, info = env.step(oracle(obs, info))
        rewards.append(r)
        if term:
            break
    score = info["scorecard"]["net_score"]  # the default reward
    assert score > 0
    assert all(r == 0.0 for r in rewards[:-1])
    assert rewards[-1] == pytest.approx(score, abs=1e-9)


def test_evaluation_mode_draws_held_out_faults_unless_the_profile_names_a_split():
    from sre_gym.orchestrator.split import in_split

    env = SREMarathonEnv(schedule="short", evaluation_key="alpha")
    assert env.schedule_profile.split == "heldout"
    env.reset(seed=5)
    ids = [f.fault_id for f in env.backend.schedule.faults]
    assert ids and all(in_split("online-boutique", i, "heldout") for i in ids)
    assert env.evidence.manifest["env"]["schedule_profile"]["split"] == "heldout"
    chosen = SREMarathonEnv(schedule={"profile": "short", "split": "all"}, evaluation_key="alpha")
    assert chosen.schedule_profile.split == "all"
    assert SREMarathonEnv(schedule="short").schedule_profile.split is None  # training: all


@pytest.mark.parametrize("reward", ["net", "paper"])
def test_rewards_sum_to_the_chosen_score_and_info_carries_both(reward):
    from sre_gym.agents import make_agent

    env = SREMarathonEnv(schedule="short", reward=reward)
    agent = make_agent("runbook")
    obs, info = env.reset(seed=4)
    assert info["scores"] == {"marathon_score": 0.0, "net_score": 0.0}
    total = 0.0
    while True:
        obs, r, term, _, info = env.step(agent(obs, info))
        total += r
        assert info["score"] == pytest.approx(total, abs=1e-9)
        if term:
            break
    card = info["scorecard"]
    key = "net_score" if reward == "net" else "marathon_score"
    assert total == pytest.approx(card[key], abs=1e-9)
    assert info["scores"] == {
        "marathon_score": card["marathon_score"],
        "net_score": card["net_score"],
    }
    assert card["net_score"] != card["marathon_score"]  # (the two sums are told apart)
    assert env.evidence.manifest["env"]["reward"] == reward


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("reward", ["net", "paper"])
@pytest.mark.parametrize("key", [None, "k"])
def test_rewards_sum_to_the_chosen_score_offline_too_on_every_app(tmp_path, app, reward, key):
    """In training and in evaluation mode, on every app: the rewards sum to the chosen score, and
    the sealed bundle re-scores offline to the same card."""
    from sre_gym.agents import make_agent

    env = SREMarathonEnv(
        app=app, schedule="single", reward=reward, evaluation_key=key, bundle_dir=str(tmp_path)
    )
    agent = make_agent("runbook")
    obs, info = env.reset(seed=6)
    total = 0.0
    while True:
        obs, r, term, _, info = env.step(agent(obs, info))
        total += r
        if term:
            break
    card = info["scorecard"]
    assert total == pytest.approx(card["net_score" if reward == "net" else "marathon_score"])
    assert score_bundle(info["bundle"]) == card


def test_an_unknown_reward_is_refused():
    with pytest.raises(ValueError, match="unknown reward 'bonus'"):
        SREMarathonEnv(reward="bonus")


def test_evaluated_info_has_no_seed_or_score_and_the_manifest_no_key(tmp_path):
    env = SREMarathonEnv(schedule="short", evaluation_key="s3cr3t-key", bundle_dir=str(tmp_path))
    obs, info = env.reset(seed=5)
    infos = [info]
    while True:
        obs, r, term, _, info = env.step([])
        infos.append(info)
        if term:
            break
    for i in infos:
        assert "seed" not in i and "score" not in i and "scores" not in i
    assert "seed=" not in (env.render() or "")
    man = json.loads((Path(info["bundle"]) / "manifest.json").read_text())
    assert man["evaluation"] is True
    blob = "".join(
        p.read_text(errors="ignore") for p in Path(info["bundle"]).rglob("*") if p.is_file()
    )
    assert "s3cr3t-key" not in blob
    # re-scoring offline needs no key
    assert score_bundle(info["bundle"]) == info["scorecard"]


def test_training_info_keeps_seed_and_score_and_agent_info_drops_them():
    from sre_gym.envs.marathon import HIDDEN_INFO, agent_info

    env = SREMarathonEnv(schedule="short")
    _, info = env.reset(seed=2)
    assert info["seed"] == 2 and "score" in info
    assert not set(agent_info(info)) & set(HIDDEN_INFO)
    assert env.evidence.manifest["evaluation"] is False


def test_evaluation_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("SRE_GYM_EVALUATION_KEY", "alpha")
    a = SREMarathonEnv(schedule="short")
    assert a.evaluation
    a.reset(seed=5)
    b, _, _ = _eval_run("alpha")
    assert a.backend.schedule == b.backend.schedule
    monkeypatch.setenv("SRE_GYM_EVALUATION_KEY", "  ")
    with pytest.raises(ValueError, match="non-empty"):
        SREMarathonEnv()
    with pytest.raises(ValueError, match="non-empty"):
        SREMarathonEnv(evaluation_key="")
