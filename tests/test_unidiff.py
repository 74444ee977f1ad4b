"""Unified diffs as text (sre_gym/unidiff.py): parsed into file patches and hunks, errors that say where."""

from __future__ import annotations

import pytest

from sre_gym.sim.diffs import PatchError
from sre_gym.sim.diffs import parse_diff as sim_parse_diff
from sre_gym.unidiff import DiffError, FilePatch, Hunk, parse_diff

DIFF = (
    "diff --git a/b.txt b/b.txt\nindex 83db48f..bf269f4 100644\n"
    "--- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n\\ No newline at end of file\n"
)


def test_files_and_hunks_are_read_with_prefixes_removed():
    old, new = parse_diff(DIFF)
    assert old == FilePatch(
        "b.txt",
        "b.txt",
        (Hunk(1, 3, 1, 3, ((" ", "one"), ("-", "two"), ("+", "TWO"), (" ", "three")), at=5),),
    )
    assert (new.old_path, new.path) == (None, "new.txt")
    (h,) = new.hunks
    assert h.new_lines == ["hello"] and not h.new_eof_nl and h.old_eof_nl
    assert new.reversed().reversed() == new and old.reversed().hunks[0].lines[1] == ("-", "TWO")


def test_errors_say_where_and_the_simulator_raises_them_as_patch_errors():
    bad = "--- a/x\n+++ b/x\n@@ -1 +1\n-a\n+b\n"
    with pytest.raises(DiffError, match=r"line 3: malformed hunk header") as e:
        parse_diff(bad)
    with pytest.raises(PatchError) as p:
        sim_parse_diff(bad)
    assert p.value.args == e.value.args and not isinstance(p.value, DiffError)
    with pytest.raises(DiffError, match="empty diff"):
        parse_diff("  \n")


def test_memoised_results_are_not_shared_state():
    first = parse_diff(DIFF)
    first.clear()
    assert [fp.path for fp in parse_diff(DIFF)] == ["b.txt", "new.txt"]
