"""Source trees of the build-capable surface: reads, exact edits, and whether a faulty path ends."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.source import SourceError, base_tree, edit, path_ends, read

FILE = "svc_message/sequencer/warmup.py"


def _fixed_by():
    return load_task("arena-018").faults[0].params["fixed_by"]


def test_the_shipped_warm_up_leaves_its_transaction_open():
    tree = dict(base_tree("svc-message"))
    assert FILE in read(tree, None)["files"] and "FOR UPDATE" in read(tree, FILE)["text"]
    assert not path_ends(tree, _fixed_by())


@pytest.mark.parametrize(
    "line,fixed",
    [
        ("    conn.commit()\n", True),
        ("    conn.rollback()\n", True),
        ("    # conn.commit()\n", False),
    ],
)
def test_an_edit_that_ends_the_transaction_fixes_the_path(line, fixed):
    tree = dict(base_tree("svc-message"))
    anchor = "        cache.prime(channel_id, seq)\n"
    edit(tree, FILE, anchor, anchor + line)
    assert path_ends(tree, _fixed_by()) is fixed


def test_edits_must_match_exactly_once():
    tree = dict(base_tree("svc-message"))
    with pytest.raises(SourceError, match="exactly once"):
        edit(tree, FILE, "cur", "cursor")  # several occurrences
    with pytest.raises(SourceError, match="no file"):
        edit(tree, "nope.py", "a", "b")
    assert tree == base_tree("svc-message")
