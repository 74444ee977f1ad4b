"""The random search over a task's own calls: repeatable, plausible, and summarised by class."""

from __future__ import annotations

from sre_gym.agents.arena import plausible_sequence as sequence
from sre_gym.agents.arena import shortcuts
from sre_gym.rollouts.arena_search import play, search, summarize


def test_a_sequence_repeats_and_uses_only_the_tasks_calls():
    assert sequence("arena-001", 0, 3) == sequence("arena-001", 0, 3)
    seqs = [sequence("arena-001", 0, k) for k in range(12)]
    assert len({str(s) for s in seqs}) > 6
    tools = {c["tool"] for s in seqs for c in s}
    assert tools <= {
        "db_admin",
        "redis",
        "restart_service",
        "scale_service",
        "wait",
        "declare_repair_complete",
    }
    assert all(c not in shortcuts("arena-001") for c in [{"tool": "wait"}])


def test_a_small_search_reaches_the_classes_it_should():
    recs = search(["arena-000"], (0,), 10)
    s = summarize(recs)
    assert s["episodes"] == 10 and s["void"] == 0 and s["passed"] + s["failed"] == 10
    assert sum(s["classes"].values()) == s["failed"]
    r = play("arena-000", 0, sequence("arena-000", 0, 3))
    assert r["status"] == "graded"
