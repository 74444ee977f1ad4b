"""The arena task loader: every shipped task loads, and each contract invariant rejects a task."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import CatalogError
from sre_gym.catalogs.arena import check_task, load_task, task_ids


def test_all_twenty_tasks_load_and_every_access_surface_is_used():
    ids = task_ids()
    assert ids == tuple(f"arena-{i:03d}" for i in range(20))
    tasks = [load_task(t) for t in ids]
    assert all(t.id == i for t, i in zip(tasks, ids, strict=True))
    assert {t.access for t in tasks} == {"confined", "shell-visible", "build-capable"}
    assert {"image", "config", "runtime"} <= {f.tier for t in tasks for f in t.faults}


def _with(task, **changes):
    return task.model_copy(update=changes)


def _check(task, pointer=None, artifact=None):
    c = task.outcome[0]
    obs = c.observe.model_copy(
        update={k: v for k, v in (("artifact", artifact), ("pointer", pointer)) if v}
    )
    return c.model_copy(update={"observe": obs})


@pytest.fixture(scope="module")
def task():
    return load_task("arena-011")


def test_a_check_reading_the_report_is_refused(task):
    bad = _check(task, artifact="report.json")
    with pytest.raises(CatalogError, match="report"):
        check_task(_with(task, outcome=[bad, *task.outcome[1:]]))


def test_an_orphan_requirement_is_refused(task):
    reqs = [*task.requirements, task.requirements[0].model_copy(update={"id": "R-orphan"})]
    with pytest.raises(CatalogError, match="orphan"):
        check_task(_with(task, requirements=reqs))


def test_outcome_reads_only_the_outcome_document(task):
    bad = _check(task, artifact="derived/repair-scope.json")
    with pytest.raises(CatalogError, match="outcome check"):
        check_task(_with(task, outcome=[bad]))


def test_outcome_may_not_read_an_aggregate_pass(task):
    with pytest.raises(CatalogError, match="aggregate"):
        check_task(_with(task, outcome=[_check(task, pointer="/pass")]))


def test_safe_repair_may_not_read_outcome_evidence(task):
    p = task.safe_repair.packs[0]
    bad_check = p.checks[0].model_copy(
        update={
            "observe": p.checks[0].observe.model_copy(update={"artifact": "derived/outcome.json"})
        }
    )
    packs = [p.model_copy(update={"checks": [bad_check]}), *task.safe_repair.packs[1:]]
    with pytest.raises(CatalogError, match="outcome gate's evidence"):
        check_task(_with(task, safe_repair=task.safe_repair.model_copy(update={"packs": packs})))


def test_the_challenge_must_be_consumed(task):
    packs = [p for p in task.safe_repair.packs if p.name != "temporal_recurrence"]
    req = [n for n in task.safe_repair.require if n != "temporal_recurrence"]
    sr = task.safe_repair.model_copy(update={"packs": packs, "require": req})
    with pytest.raises(CatalogError, match="receipt|asserts"):
        check_task(_with(task, safe_repair=sr))


def test_every_pack_must_be_required(task):
    sr = task.safe_repair.model_copy(update={"require": task.safe_repair.require[1:]})
    with pytest.raises(CatalogError, match="never required"):
        check_task(_with(task, safe_repair=sr))


@pytest.mark.parametrize(
    "text", ["Fix it.\n# Heading", "Use `psql`.", "Reset db_pool_size please.", "A **bold** ask."]
)
def test_instruction_lint(task, text):
    with pytest.raises(CatalogError, match="markdown|gives away"):
        check_task(_with(task, instruction=text))


def test_the_oracle_must_repair_every_leg(task):
    oracle = [s for s in task.oracle if s.leg != "C"]
    with pytest.raises(CatalogError, match="oracle"):
        check_task(_with(task, oracle=oracle))
