"""Snapshots must follow from the recorded causes: a change with no recorded cause is void."""

from __future__ import annotations

import copy

import pytest

from sre_gym.agents.arena import policies
from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena import IncidentArenaEnv
from sre_gym.scoring.arena.checks import EvidenceError
from sre_gym.scoring.arena.consistency import check
from sre_gym.scoring.arena.grade import grade


def _evidence(task_id, name, seed=0):
    env = IncidentArenaEnv(task=task_id)
    env.reset(seed=seed)
    for c in [
        *policies(load_task(task_id))[name][0],
        *[{"tool": "wait", "args": {"seconds": 600}}] * 8,
    ]:
        *_, term, trunc, _ = env.step(c)
        if term or trunc:
            return env.evidence
    raise AssertionError


def _parts(ev):
    a = ev.artifacts
    snaps = {
        "ready": a["sut/state_ready.json"],
        "declaration": a["sut/state_declaration.json"],
        "soak_end": a["sut/state_soak_end.json"],
        "after_challenge": a["sut/state_after_challenge.json"],
    }
    ivs = [e for e in ev.events if e.get("type") == "intervention"]
    return load_task(a["meta.json"]["task"]), a["meta.json"], snaps, ivs


@pytest.mark.parametrize(
    "task,policy",
    [("arena-001", "oracle"), ("arena-011", "half_fix_A"), ("arena-008", "unsafe_offset")],
)
def test_honest_evidence_replays(task, policy):
    check(*_parts(_evidence(task, policy)))


def test_a_noop_bundle_with_the_oracles_snapshots_is_void():
    oracle = _evidence("arena-013", "oracle")
    noop = copy.deepcopy(_evidence("arena-013", "declare_at_once"))
    for k in (
        "sut/state_declaration.json",
        "sut/state_soak_end.json",
        "sut/state_after_challenge.json",
    ):
        noop.artifacts[k] = copy.deepcopy(oracle.artifacts[k])
    v = grade(noop)
    assert v["status"] == "void" and "no recorded cause" in v["error"]


def test_a_dropped_intervention_or_an_edited_record_is_void():
    ev = copy.deepcopy(_evidence("arena-016", "oracle"))
    first = next(i for i, e in enumerate(ev.events) if e.get("type") == "intervention")
    del ev.events[first]
    assert grade(ev)["status"] == "void"
    ev = copy.deepcopy(_evidence("arena-016", "oracle"))
    iv = next(e for e in ev.events if e.get("type") == "intervention")
    k = next(iter(iv["keys"]))
    iv["keys"][k] = [iv["keys"][k][0], 40]  # claims another value than the state shows
    with pytest.raises(EvidenceError):
        check(*_parts(ev))


def test_an_uncounted_flush_is_void():
    ev = copy.deepcopy(_evidence("arena-001", "flushall"))
    ev.artifacts["sut/state_soak_end.json"]["counters"]["flushall"] = 0
    assert grade(ev)["status"] == "void"
