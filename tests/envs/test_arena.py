"""IncidentArena-v0: check_env for every task, determinism, offline re-grade, void evidence,
malformed actions, and current calibration."""

from __future__ import annotations

import copy
import json
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import sre_gym  # noqa: F401 - registers the env
from sre_gym.agents.arena import oracle_calls
from sre_gym.bundle import read_bundle, verify
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.envs.arena_calibration import calibration_for
from sre_gym.scoring.arena.grade import grade


@pytest.mark.parametrize("task", task_ids())
def test_check_env_for_every_task(task):
    env = gym.make("IncidentArena-v0", task=task, backend="sim", disable_env_checker=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


@pytest.mark.parametrize("task", task_ids())
def test_every_task_is_calibrated_for_the_current_model(task):
    cal = calibration_for(load_task(task))
    assert cal["provisional"] is False, "run: sre-gym arena calibrate"


def _play(task, seed, calls, bundle_dir=None):
    env = IncidentArenaEnv(task=task, bundle_dir=bundle_dir)
    env.reset(seed=seed)
    for c in calls:
        _, r, term, trunc, info = env.step(c)
        if term or trunc:
            return env, r, info
    raise AssertionError("the script did not end the episode")


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory):
    task = load_task("arena-013")
    d = tmp_path_factory.mktemp("bundles")
    a = _play("arena-013", 3, oracle_calls(task), str(d / "a"))
    b = _play("arena-013", 3, oracle_calls(task), str(d / "b"))
    return a, b


def test_the_oracle_passes_and_reward_is_binary(oracle_run):
    (env, r, info), _ = oracle_run
    assert r == 1.0 and info["verdict"]["overall"] is True and info["failure_class"] is None


def test_same_task_seed_and_policy_give_a_bit_identical_bundle(oracle_run):
    (_, _, ia), (_, _, ib) = oracle_run
    assert verify(ia["bundle"]) == verify(ib["bundle"])
    assert ia["verdict"] == ib["verdict"]


def test_offline_regrade_equals_online(oracle_run):
    (_, _, info), _ = oracle_run
    ev = read_bundle(info["bundle"])
    assert grade(ev) == info["verdict"] == ev.artifacts["verdict.json"]


def test_missing_or_forged_evidence_is_void(oracle_run):
    (env, _, _), _ = oracle_run
    ev = copy.deepcopy(env.evidence)
    del ev.artifacts["sut/state_soak_end.json"]
    v = grade(ev)
    assert v["status"] == "void" and v["overall"] is None
    ev = copy.deepcopy(env.evidence)
    name = "challenge/service-event-recurrence.json"
    ev.artifacts[name]["pass"] = not ev.artifacts[name]["pass"]
    assert grade(ev)["status"] == "void"


def test_declaring_at_once_fails_and_is_classified():
    _, r, info = _play("arena-013", 0, [{"tool": "declare_repair_complete"}])
    assert r == 0.0 and info["failure_class"] == "planted_cause_left"


def test_malformed_actions_give_errors_and_change_nothing():
    env = IncidentArenaEnv(task="arena-008")
    env.reset(seed=0)
    before = copy.deepcopy(env.world.config)
    for bad in (
        "not json",
        {"tool": "nope"},
        {"tool": "wait", "args": {"seconds": -3}},
        {"tool": "http_admin", "args": {"service": "svc-x", "path": "/admin/config"}},
    ):
        obs, r, term, trunc, info = env.step(bad)
        assert "error" in json.loads(obs["result"]) and not term and r == 0.0
    assert env.world.config == before


def test_observations_and_info_carry_no_ground_truth():
    task = load_task("arena-011")
    env = IncidentArenaEnv(task="arena-011")
    obs, info = env.reset(seed=0)
    text = json.dumps(obs, default=str) + json.dumps(info, default=str)
    for leg in task.faults:
        assert leg.mechanism not in text
    assert "injected" not in text and "golden" not in text


@pytest.mark.parametrize(
    "task,tool,args",
    [
        ("arena-013", "shell", {"pod": "svc-message-0", "command": "ls /"}),
        ("arena-019", "rebuild", {"service": "svc-message"}),
    ],
)
def test_a_tool_outside_the_access_surface_is_refused_recorded_and_counted(task, tool, args):
    env = IncidentArenaEnv(task=task)
    _, info = env.reset(seed=0)
    assert tool not in {s["function"]["name"] for s in info["tools"]}
    before = env.world.now
    obs, r, term, trunc, step_info = env.step({"tool": tool, "args": args})
    assert "access surface" in json.loads(obs["result"])["error"] and not term
    assert env.world.now == before  # refused: no time, no effect
    assert {"type": "refused", "t": float(before), "tool": tool} in env.events
    _, _, _, _, info = env.step({"tool": "declare_repair_complete"})
    assert env.evidence.events[0]["type"] == "refused"
    from sre_gym.scoring.arena.grade import materialize

    _, store = materialize(env.evidence)
    assert store["derived/repair-scope.json"]["refused_calls"] == [tool]


def test_the_shell_and_build_surfaces_work_where_the_task_opens_them():
    env = IncidentArenaEnv(task="arena-018")
    env.reset(seed=0)
    obs, *_ = env.step({"tool": "read_source", "args": {"service": "svc-message"}})
    assert "svc_message/sequencer/warmup.py" in json.loads(obs["result"])["files"]
    obs, *_ = env.step(
        {
            "tool": "shell",
            "args": {
                "pod": "svc-message-1",
                "command": "grep -c ready /var/log/svc-message/app.log",
            },
        }
    )
    assert int(json.loads(obs["result"])["output"]) >= 1


@pytest.mark.parametrize("task", ["arena-005", "arena-007", "arena-018"])
def test_bundles_repeat_and_regrade_offline_on_the_stateful_tasks(task, tmp_path):
    calls = oracle_calls(load_task(task))
    _, _, a = _play(task, 1, calls, str(tmp_path / "a"))
    _, _, b = _play(task, 1, calls, str(tmp_path / "b"))
    assert verify(a["bundle"]) == verify(b["bundle"]) and a["verdict"] == b["verdict"]
    assert grade(read_bundle(a["bundle"])) == a["verdict"]
