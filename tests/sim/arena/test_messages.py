"""The message store: collisions under a read-modify-write sequencer, damage that stays until a
resequence, the search outbox, and row-lock holders with the idle-in-transaction guard."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_substrate
from sre_gym.sim.arena.messages import MessageStore, guard_ms


def _store():
    return MessageStore(load_substrate("slack-spine").messages)


def test_an_atomic_sequencer_mints_no_duplicates_and_rmw_stores_them():
    s = _store()
    collide, unread, _ = s.step(np.full(60, 30.0), "atomic")
    assert s.dups.sum() == 0 and not collide.any() and not unread.any()
    collide, unread, _ = s.step(np.full(60, 30.0), "rmw")
    assert s.dups.sum() > 10 and collide.max() > 0.05
    assert unread[-1] > 0.5  # the hot channels' unread counts disagree with their messages
    before = s.dups.copy()
    s.step(np.full(60, 30.0), "atomic")
    assert np.array_equal(s.dups, before)  # a fixed sequencer does not heal stored damage


def test_a_resequence_locks_the_channels_clears_them_and_reindexes():
    s = _store()
    s.step(np.full(60, 30.0), "rmw")
    job = s.resequence(100, None)
    assert job["rows"] > 0 and s.locked() == set(range(8))
    until = s.next_change(100)
    assert until == s.reseq["until"] > 100
    s.advance(until)
    assert s.dups.sum() == 0 and not s.locked() and round(s.outbox) == job["rows"]
    _, _, lag = s.step(np.full(5, 10.0), "atomic")
    assert lag[0] > s.spec.search_fresh_s  # search lags until the indexer catches up


def test_deleting_duplicates_loses_messages():
    s = _store()
    s.step(np.full(60, 30.0), "rmw")
    rows = s.rows.sum()
    n = s.delete_duplicates()
    assert n > 0 and s.dups.sum() == 0 and round(s.lost) == n and s.rows.sum() < rows


def test_the_guard_a_session_starts_with_ends_its_idle_transaction():
    cfg = {"postgres.idle_in_transaction_session_timeout": 0}
    s = _store()
    s.lock(10, cfg, "leak", 0)
    assert s.holder["ends"] is None and s.next_change(10) is None
    cfg["postgres.idle_in_transaction_session_timeout@role=slack_message,db=slack"] = 10000
    assert guard_ms(cfg, "slack_message", "slack") == 10000
    assert guard_ms(cfg, "slack_search", "slack") == 0  # a guard on another role does not apply
    s.lock(50, cfg, "leak", 1)
    assert s.next_change(50) == 60
    s.advance(60)
    assert s.holder is None
    s.lock(70, cfg, "leak", 1)
    assert not s.release(slot=0) and s.release(slot=1) and s.holder is None
