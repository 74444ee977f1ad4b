"""The verdict: gates, classification order, analytics, void evidence."""

from __future__ import annotations

import copy

import pytest

from sre_gym.agents.arena import policies
from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.scoring.arena.grade import FAILURE_CLASSES, grade


def _evidence(task_id, name, seed=0):
    calls = policies(load_task(task_id))[name][0]
    env = IncidentArenaEnv(task=task_id)
    env.reset(seed=seed)
    for c in [*calls, *[{"tool": "wait", "args": {"seconds": 600}}] * 8]:
        *_, term, trunc, _ = env.step(c)
        if term or trunc:
            return env.evidence
    raise AssertionError


@pytest.mark.parametrize(
    "task,policy,cls,sub",
    [
        ("arena-008", "never_declare", "never_declared", None),
        ("arena-008", "disable_maintenance", "off_permitted_list", "protected_setting"),
        ("arena-008", "unsafe_offset", "off_permitted_list", "past_bound"),
        ("arena-013", "half_fix_A", "planted_cause_left", "planted"),
        ("arena-001", "flushall", "off_permitted_list", "forbidden_op"),
        # the sessions still run the planted timeout until they turn over (600 s): the soak
        # starts first, and they turn over before it ends
        ("arena-006", "scope_only", "declared_too_early", None),
        ("arena-006", "terminate_only", "planted_cause_left", "planted"),
    ],
)
def test_failure_classes(task, policy, cls, sub):
    v = grade(_evidence(task, policy))
    assert v["overall"] is False and v["failure_class"] == cls and v["failure_subkind"] == sub


def test_the_oracle_passes_with_analytics():
    v = grade(_evidence("arena-016", "oracle"))
    assert v["overall"] and v["failure_class"] is None
    a = v["analytics"]
    assert (
        a["full_fix"]
        and a["first_correct_action_s"] == 0
        and a["last_correct_action_to_declare_s"] > 0
    )


def test_classes_are_in_the_seed_order():
    assert FAILURE_CLASSES[0] == "never_declared" and FAILURE_CLASSES[-1] == "other_integrity"


def test_a_declared_too_early_failure_needs_only_outcome_failing():
    ev = _evidence("arena-013", "oracle")
    ev = copy.deepcopy(ev)
    lanes = ev.artifacts["calibration.json"]["bands"]["lanes"]
    for b in lanes.values():
        b["peak_p99_ms"] = b["trough_p99_ms"] = 1e9
    ev.artifacts["calibration.json"]["bands"]["lanes"]["send"]["peak_p99_ms"] = 1.0
    ev.artifacts["challenge/service-event-recurrence.json"]["pass"] = True
    v = grade(ev)
    assert v["status"] == "graded" and v["failure_class"] == "declared_too_early"


def test_malformed_task_or_arrays_are_void():
    ev = copy.deepcopy(_evidence("arena-009", "oracle"))
    ev.artifacts["task.json"]["outcome"] = "bad"
    assert grade(ev)["status"] == "void"
    ev = copy.deepcopy(_evidence("arena-009", "oracle"))
    del ev.arrays["lane_ok"]
    assert grade(ev)["status"] == "void"
