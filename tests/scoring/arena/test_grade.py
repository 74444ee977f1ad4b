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


def test_a_partial_repair_is_never_a_full_fix():
    task = load_task("arena-011")
    for name in ("half_fix_A", "half_fix_A+B", "half_fix_B+C"):
        v = grade(_evidence("arena-011", name))
        fixed = v["analytics"]["legs_fixed"]
        assert v["analytics"]["full_fix"] is False
        assert {k for k, ok in fixed.items() if ok} == set(name[len("half_fix_") :].split("+"))
    assert grade(_evidence("arena-011", "oracle"))["analytics"]["full_fix"] is True
    assert len(task.faults) == 3


def test_a_safe_value_is_accepted_by_every_check():
    # statement_timeout 0 (no timeout) at the right scope: scope, leg predicate and sessions agree
    calls = [
        {
            "tool": "db_admin",
            "args": {
                "op": "alter_role_set",
                "role": "saleor_app",
                "database": "saleor",
                "name": "statement_timeout",
                "value": 0,
            },
        },
        {"tool": "db_admin", "args": {"op": "terminate_backend", "role": "saleor_app"}},
        {"tool": "wait", "args": {"seconds": 300}},
        {"tool": "declare_repair_complete"},
    ]
    env = IncidentArenaEnv(task="arena-006")
    env.reset(seed=0)
    for c in calls:
        *_, info = env.step(c)
    assert info["verdict"]["overall"] is True


def _leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(doc, list) and doc:
        for i, v in enumerate(doc[:3]):
            yield from _leaves(v, (*path, i))
    yield path


def test_malformed_evidence_is_void_never_an_exception():
    import numpy as np

    base = _evidence("arena-001", "oracle")
    g = np.random.default_rng(0)
    junk = ["x", None, -1, 1e308, [], {}, [1], True, {"a": 1}]
    names = sorted(base.artifacts)
    voids = 0
    for _ in range(150):
        ev = copy.deepcopy(base)
        doc = ev.artifacts[names[int(g.integers(len(names)))]]
        paths = [p for p in _leaves(doc) if p]
        if not paths:
            continue
        path = paths[int(g.integers(len(paths)))]
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        if g.random() < 0.2 and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = junk[int(g.integers(len(junk)))]
        v = grade(ev)  # never raises
        assert v["status"] in ("graded", "void")
        voids += v["status"] == "void"
    for name in list(base.arrays)[:4]:
        ev = copy.deepcopy(base)
        ev.arrays[name] = (
            ev.arrays[name][:, :5] if ev.arrays[name].ndim == 2 else ev.arrays[name][:5]
        )
        assert grade(ev)["status"] == "void"
    assert voids > 30


@pytest.mark.parametrize(
    "where,value",
    [("meta.json/soak_end_s", "soon"), ("challenge/restart-receipt.json/window", [810])],
)
def test_the_two_reported_malformed_inputs_are_void(where, value):
    ev = copy.deepcopy(_evidence("arena-001", "oracle"))
    art, key = where.rsplit("/", 1)
    ev.artifacts[art][key] = value
    assert grade(ev)["status"] == "void"


def test_a_restart_probe_judges_what_the_restart_did():
    # declared at once, the workers come back late and the backlog is still draining when the
    # verifier restarts the queue: the probe fails as the soak's end did, so the challenge says
    # nothing against the repair and the failure is the outcome's alone
    ev = _evidence("arena-000", "fix_and_declare_at_once")
    rec = ev.artifacts["challenge/restart-receipt.json"]
    job = rec["probe"]["lanes"]["job"]
    assert job["error_rate"] > 0.5 and job["before"]["pass"] is False and job["pass"] is True
    assert rec["pass"] and grade(ev)["failure_class"] == "declared_too_early"
    # a runtime-only repair: in bounds before the restart, refused after it
    ev = _evidence("arena-001", "runtime_only_fix")
    enq = ev.artifacts["challenge/restart-receipt.json"]["probe"]["lanes"]["enqueue"]
    assert enq["before"]["pass"] is True and enq["pass"] is False
    assert grade(ev)["failure_class"] == "repair_did_not_last"


@pytest.mark.parametrize("before", [None, [0, 10], "soak"])
def test_a_restart_receipt_must_compare_with_the_soaks_end(before):
    ev = copy.deepcopy(_evidence("arena-001", "oracle"))
    rec = ev.artifacts["challenge/restart-receipt.json"]
    if before is None:
        del rec["before"]
    else:
        rec["before"] = before
    assert grade(ev)["status"] == "void"
