"""Where keep may roll a deployment back to: the described history, never past a fix or onto a
known-bad change, and only while the suspect change is what runs."""

from __future__ import annotations

from sre_gym.agents.keep_revisions import cause_sha7, own_revision, rollback_target, runs
from sre_gym.clock import EPOCH, rfc3339

A, B, FIX, C = "a" * 40, "b" * 40, "f" * 40, "c" * 40


def rev(n: int, t: float, sha: str | None) -> dict:
    cause = f"deploy {sha[:7]}: change {n}" if sha else ""
    return {"revision": n, "created": rfc3339(EPOCH + t), "change_cause": cause, "image": "x"}


def change(sha: str, t: float, revision: int) -> dict:
    return {"sha": sha, "service": "s", "time": rfc3339(EPOCH + t), "revision": revision}


def test_tool_results_and_change_causes_name_revisions_and_commits():
    assert own_revision("deployment.apps/s rolled back (now revision 41, image x:1)") == 41
    assert own_revision("deployment.apps/s restarted (revision 2)") == 2
    assert own_revision({"not": "text"}) is None
    assert cause_sha7("deploy abcdef0: fix things") == "abcdef0"
    assert cause_sha7("initial deploy") is None and cause_sha7(None) is None


def test_the_target_is_the_newest_revision_before_the_change_not_arithmetic():
    # revision 3 was moved away by an earlier rollback: the one before C is 4, not C's number - 1
    hist = [rev(1, 0, None), rev(4, 100, A), rev(6, 300, C)]
    assert rollback_target(hist, 6, change(C, 300, 6), {C[:7]}, -1e18) == 4


def test_never_onto_a_known_bad_change_nor_past_a_fix():
    hist = [rev(1, 0, None), rev(2, 100, B), rev(3, 200, FIX), rev(5, 300, A), rev(6, 400, C)]
    bad = {C[:7], A[:7]}  # A turned out bad too: skip it, back to the fix
    assert rollback_target(hist, 6, change(C, 400, 6), bad, -1e18) == 3
    # the fix landed at 200: nothing older than it may come back, even if A is bad and the fix moved
    moved = [rev(1, 0, None), rev(2, 100, B), rev(5, 300, A), rev(6, 400, C)]
    assert rollback_target(moved, 6, change(C, 400, 6), bad, EPOCH + 200) is None
    assert rollback_target(moved, 6, change(C, 400, 6), bad, -1e18) == 2


def test_only_while_the_change_is_what_runs():
    hist = [rev(1, 0, None), rev(2, 100, A), rev(3, 200, C), rev(4, 300, A)]  # C rolled back
    assert not runs(hist, 4, change(C, 200, 3))
    assert rollback_target(hist, 4, change(C, 200, 3), {C[:7]}, -1e18) is None
    # a restart on top keeps the change's cause: still running it
    restarted = [*hist[:3], {**rev(4, 300, C)}]
    assert runs(restarted, 4, change(C, 200, 3))
    assert rollback_target(restarted, 4, change(C, 200, 3), {C[:7]}, -1e18) == 2
    # a hand edit is its own revision
    drift = {
        "sha": "s@3",
        "service": "s",
        "time": rfc3339(EPOCH + 150),
        "revision": 3,
        "drift": True,
    }
    edited = [rev(1, 0, None), rev(2, 100, A), rev(3, 200, None)]
    assert rollback_target(edited, 3, drift, set(), -1e18) == 2
    assert rollback_target(edited, 2, drift, set(), -1e18) is None
