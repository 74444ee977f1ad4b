"""Arena qualification (a bounded sample: the full matrix is `sre-gym qualify --suite arena`) and
the leaderboard."""

from __future__ import annotations

import pytest

from sre_gym.agents.arena import Scripted, make_agent, policies
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.rollouts.arena_qualify import (
    format_leaderboard,
    leaderboard_rows,
    qualify_task,
    rollout,
    run,
)
from sre_gym.scoring.arena.grade import FAILURE_CLASSES


@pytest.mark.parametrize("task", task_ids())
def test_oracle_passes_and_one_adversary_fails(task):
    pol = policies(load_task(task))
    assert run(task, 0, Scripted(pol["oracle"][0]))["pass"]
    name = next(
        n
        for n, (_, must) in pol.items()
        if must == "fail" and n not in ("declare_at_once", "never_declare")
    )
    assert not run(task, 0, Scripted(pol[name][0]))["pass"], name


def test_full_matrix_of_the_three_leg_task_has_no_false_verdict():
    res = qualify_task("arena-011", seeds=(1,))
    assert res["fp"] == 0 and res["fn"] == 0 and res["qualified"]
    names = {p["policy"] for p in res["policies"]}
    assert {"half_fix_A", "half_fix_A+B", "harmless_drift", "wrong_report"} <= names


def test_never_declaring_is_its_own_class():
    r = run("arena-009", 0, make_agent("never", "arena-009", 0))
    assert not r["declared"] and r["failure_class"] == "never_declared"


def test_leaderboard_has_pass_rate_classes_and_analytics():
    recs = rollout(["oracle", "noop", "random"], ["arena-008", "arena-006"], [0, 1])
    rows = leaderboard_rows(recs)
    by = {r["agent"]: r for r in rows}
    assert by["oracle"]["pass_rate"] == 1.0 and by["noop"]["pass_rate"] == 0.0
    assert by["oracle"]["full_fix"] == 1.0 and by["oracle"]["first_correct_s"] is not None
    for c in FAILURE_CLASSES:
        assert c in by["noop"]
    assert "pass" in format_leaderboard(rows)
