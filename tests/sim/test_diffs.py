"""Unified diffs (sre_gym/sim/diffs.py): parse, apply, reverse and write them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sre_gym.sim.diffs import (
    PatchError,
    apply_diff,
    make_diff,
    merge3,
    merge_diff,
    parse_diff,
    reverse_diff,
    tree_diff,
)
from sre_gym.sim.source_trees import base_tree

OB = "online-boutique"


TREE = {
    "a.go": "package main\n\nfunc f() {\n\treturn\n}\n",
    "b.txt": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n",
    "c.txt": "no newline",
}


def test_apply_and_reverse_round_trip():
    new = {
        "a.go": "package main\n\nfunc f() {\n\tprintln(1)\n\treturn\n}\n",
        "b.txt": "one\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\nNINE\nten\n",
        "c.txt": "no newline\n",  # adds the final newline
        "d.py": "print(1)\n",  # created
    }
    diff = tree_diff(TREE, new)
    assert "\\ No newline at end of file" in diff and "--- /dev/null" in diff
    out, notes = apply_diff(TREE, diff, strict=True)
    assert out == new and notes == []
    back, _ = apply_diff(out, diff, reverse=True, strict=True)
    assert back == TREE
    assert apply_diff(out, reverse_diff(diff), strict=True)[0] == TREE
    assert TREE["a.go"].startswith("package")  # the input tree is never modified


def test_deleting_a_file():
    diff = make_diff("b.txt", TREE["b.txt"], None)
    assert diff.startswith("--- a/b.txt\n+++ /dev/null\n")
    out, _ = apply_diff(TREE, diff)
    assert "b.txt" not in out
    assert apply_diff(out, diff, reverse=True)[0] == TREE


def test_git_headers_and_prefixless_paths_are_accepted():
    diff = (
        "diff --git a/b.txt b/b.txt\nindex 83db48f..bf269f4 100644\n"
        "--- b.txt\n+++ b.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    )
    out, _ = apply_diff(TREE, diff)
    assert out["b.txt"].startswith("one\nTWO\nthree\n")


def test_hunk_at_an_offset_applies_with_a_note_but_not_strictly():
    diff = "--- a/b.txt\n+++ b/b.txt\n@@ -2,3 +2,3 @@\n five\n-six\n+SIX\n seven\n"
    out, notes = apply_diff(TREE, diff)
    assert "SIX" in out["b.txt"]
    assert notes == ["b.txt: hunk 1 applied at line 5 (offset +3)"]
    with pytest.raises(
        PatchError,
        match=r"b\.txt: hunk 1 does not apply at line 2: line 2 is 'two', the hunk expects 'five'",
    ):
        apply_diff(TREE, diff, strict=True)


def test_precise_errors():
    with pytest.raises(
        PatchError,
        match=r"b\.txt: hunk 1 does not apply at line 3: line 4 is 'four', the hunk expects 'FOUR'",
    ):
        apply_diff(TREE, "--- a/b.txt\n+++ b/b.txt\n@@ -3,2 +3,2 @@\n three\n-FOUR\n+4\n")
    with pytest.raises(
        PatchError,
        match=r"charge\.js: file not found in the source tree \(did you mean src/paymentservice/charge\.js\?\)",
    ):
        apply_diff(
            base_tree(OB, "paymentservice"),
            "--- a/src/payment/charge.js\n+++ b/src/payment/charge.js\n@@ -1 +1 @@\n-x\n+y\n",
        )
    with pytest.raises(PatchError, match=r"line 3: malformed hunk header '@@ -1 \+1'"):
        parse_diff("--- a/x\n+++ b/x\n@@ -1 +1\n-a\n+b\n")
    with pytest.raises(
        PatchError,
        match=r"line 3: hunk 1 header says -1,3 \+1,3 but its body has 1 old and 1 new lines",
    ):
        parse_diff("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n", strict=True)
    with pytest.raises(PatchError, match="no file headers"):
        parse_diff("just some text\n")
    with pytest.raises(PatchError, match="empty diff"):
        parse_diff("  \n")
    with pytest.raises(PatchError, match=r"must be relative"):
        parse_diff("--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n")
    with pytest.raises(PatchError, match=r"body line must start with"):
        parse_diff("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n*b\n")
    with pytest.raises(PatchError, match="already exists"):
        apply_diff(TREE, make_diff("a.go", None, "x\n"))
    with pytest.raises(PatchError, match="appears twice"):
        parse_diff(make_diff("a.go", "a\n", "b\n") + make_diff("a.go", "a\n", "b\n"))


def test_lenient_mode_recounts_and_tolerates_stripped_blank_context():
    # a header that under-counts and a blank context line whose leading space an editor removed
    diff = "--- a/a.go\n+++ b/a.go\n@@ -1,2 +1,2 @@\n package main\n\n func f() {\n-\treturn\n+\treturn // done\n }\n"
    out, _ = apply_diff(TREE, diff)
    assert "return // done" in out["a.go"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "", "  x", "}"]), min_size=0, max_size=30),
    st.lists(st.sampled_from(["a", "b", "c", "", "  x", "}", "new"]), min_size=0, max_size=30),
    st.booleans(),
    st.booleans(),
)
def test_make_diff_applies_exactly(old_lines, new_lines, old_nl, new_nl):
    old = "\n".join(old_lines) + ("\n" if old_nl and old_lines else "")
    new = "\n".join(new_lines) + ("\n" if new_nl and new_lines else "")
    diff = make_diff("f.txt", old, new)
    if old == new:
        assert diff == ""
        return
    assert apply_diff({"f.txt": old}, diff, strict=True)[0] == {"f.txt": new}
    assert apply_diff({"f.txt": new}, diff, reverse=True, strict=True)[0] == {"f.txt": old}


def test_memoised_results_are_not_shared_state():
    # parse_diff and the per-file apply keep memos: what a caller does with one result must not
    # show up in the next, and offset notes come back on every application, not just the first
    diff = make_diff("a.txt", "x\ny\nz\n", "x\nY\nz\n")
    first = parse_diff(diff)
    first.clear()
    assert [fp.path for fp in parse_diff(diff)] == ["a.txt"]
    shifted = {"a.txt": "pad\npad\nx\ny\nz\n"}
    notes = [apply_diff(shifted, diff)[1] for _ in range(2)]
    assert notes[0] == notes[1] and "offset +2" in notes[0][0]


def test_three_way_merge_combines_separate_edits_and_refuses_overlapping_ones():
    base = TREE["b.txt"]
    mine = base.replace("two\n", "TWO\n")
    theirs = base.replace("nine\n", "NINE\n")
    assert merge3(base, mine, theirs) == base.replace("two\n", "TWO\n").replace("nine\n", "NINE\n")
    assert merge3(base, mine, mine) == mine  # both sides agree
    assert merge3(base, mine, base.replace("three\n", "3\n")) is None  # adjacent lines conflict
    assert merge3(base, mine, base.replace("two\n", "2\n")) is None  # the same line, differently
    # the final newline follows the side that changed it
    assert merge3("a\nb\n", "a\nb", "A\nb\n") == "A\nb"


def test_merge_diff_cherry_picks_onto_a_head_that_moved_near_the_change():
    before = dict(TREE)
    diff = make_diff("b.txt", before["b.txt"], before["b.txt"].replace("nine\n", "NINE\n"))
    head = {**before, "b.txt": before["b.txt"].replace("seven\n", "SEVEN\n")}
    with pytest.raises(PatchError):  # the hunk's context changed under it
        apply_diff(head, diff)
    want = {**head, "b.txt": head["b.txt"].replace("nine\n", "NINE\n")}
    assert merge_diff(head, diff, before) == want
    assert merge_diff(head, diff, before, direct=False) == want
    # the revert of the change, after the head moved again
    assert merge_diff(want, diff, before, reverse=True) == head
    # skipping the direct attempt on a tree where it would apply gives what it gives
    assert merge_diff(before, diff, before, direct=False) == apply_diff(before, diff)[0]
    clash = {**before, "b.txt": before["b.txt"].replace("nine\n", "9\n")}
    with pytest.raises(PatchError, match="same lines"):
        merge_diff(clash, diff, before, direct=False)
