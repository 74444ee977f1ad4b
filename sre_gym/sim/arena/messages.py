"""slack-spine's message store: per-channel sequences, the sequencer, the search outbox, and the row
locks on ``channel_seq`` that can starve sends.

- Sequencer. In ``atomic`` mode a send takes the next number with one ``UPDATE ... RETURNING``; in
  ``rmw`` mode it reads the number, then writes it, and two sends to one channel inside that gap
  mint the same number (a collision, probability 1 - exp(-rate x gap)). The duplicate rows stay in
  the store: a channel with one has unread counts and cursors that disagree with its messages,
  until a resequence renumbers its rows (under the channel's lock, so its sends wait) and
  re-emits them to search.
- Search. Every stored or renumbered row goes through the outbox to the indexer at its rate; a
  written message is found in search once the indexer has caught up.
- Locks. A session that sits idle in a transaction after ``SELECT ... FOR UPDATE`` on a channel's
  row (a leak in the image's sequencer warm-up, or the session-scoped runtime lifecycle) blocks
  every send to that channel: each waits until the app's statement timeout, holding a pool
  connection, then fails. PostgreSQL ends such a session after
  ``idle_in_transaction_session_timeout`` if the setting applied when the session started (a role
  or database setting, or the server-wide one); a terminated holder of the leak is gone, while a
  session-scoped lifecycle hands the lock to the next session at once.

Channels are a few hot ones with Zipf shares of the sends; the numbers are expected values, so no
randomness is drawn here.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sre_gym import fmath
from sre_gym.catalogs.arena.schema import MessageSpec

GUARD = "postgres.idle_in_transaction_session_timeout"


def guard_ms(config: dict[str, Any], role: str, db: str) -> float:
    """The idle-in-transaction timeout a new session of ``role`` in ``db`` starts with (0: none)."""
    for key in (f"{GUARD}@role={role},db={db}", f"{GUARD}@role={role}", f"{GUARD}@db={db}", GUARD):
        v = config.get(key)
        if v is not None:
            return float(v)
    return 0.0


class MessageStore:
    def __init__(self, spec: MessageSpec) -> None:
        self.spec = spec
        k = spec.channels
        w = 1.0 / np.arange(1, k + 1) ** spec.zipf_s
        self.share = w / w.sum()
        self.names = [f"C{i + 1:02d}" for i in range(k)]
        self.rows = np.full(k, float(spec.history_rows))
        self.dups = np.zeros(k)
        self.since_dup = np.zeros(k)  # rows written since the channel's first duplicate
        self.outbox = 0.0
        self.lost = 0.0  # message identities deleted
        self.holder: dict[str, Any] | None = None
        self.reseq: dict[str, Any] | None = None
        self._pid = 4000

    # ------------------------------------------------------------------ locks
    def _new_pid(self) -> int:
        self._pid += 1
        return self._pid

    def lock(self, t: float, config: dict[str, Any], kind: str, slot: int | None = None) -> None:
        """A session takes the hottest channel's row lock and sits idle in its transaction."""
        g = guard_ms(config, self.spec.app_role, self.spec.app_db)
        self.holder = {
            "pid": self._new_pid(),
            "kind": kind,
            "slot": slot,
            "channel": self.names[0],
            "since": float(t),
            "ends": float(t) + g / 1000.0 if g > 0 else None,
        }

    def release(self, pid: int | None = None, slot: int | None = None) -> bool:
        h = self.holder
        if h is None or (pid is not None and h["pid"] != pid):
            return False
        if slot is not None and h["slot"] != slot:
            return False
        self.holder = None
        return True

    def locked(self) -> set[int]:
        out = set()
        if self.holder is not None:
            out.add(self.names.index(self.holder["channel"]))
        if self.reseq is not None:
            out |= set(self.reseq["channels"])
        return out

    # ------------------------------------------------------------------ repair jobs
    def resequence(self, t: float, channel: str | None) -> dict[str, Any]:
        """Renumber a channel's rows from its first duplicate on (all channels: None)."""
        if self.reseq is not None:
            raise ValueError("a resequence job is already running")
        if channel is not None and channel not in self.names:
            raise ValueError(f"unknown channel {channel!r}; hot channels: {', '.join(self.names)}")
        idx = [self.names.index(channel)] if channel else list(range(len(self.names)))
        rows = float(sum(self.since_dup[i] for i in idx))
        dur = max(1, int(math.ceil(rows / self.spec.reseq_rows_per_s)))
        self.reseq = {"channels": idx, "rows": rows, "until": int(t) + dur}
        return {"job": "resequence", "channels": [self.names[i] for i in idx], "rows": round(rows)}

    def delete_duplicates(self) -> int:
        """Delete the later row of every duplicate: the numbers agree again, the messages are gone."""
        n = float(self.dups.sum())
        self.rows -= self.dups
        self.lost += n
        self.dups[:] = 0.0
        self.since_dup[:] = 0.0
        return int(round(n))

    # ------------------------------------------------------------------ time
    def next_change(self, t: int) -> int | None:
        ts = []
        if self.holder is not None and self.holder["ends"] is not None:
            ts.append(int(math.ceil(self.holder["ends"])))
        if self.reseq is not None:
            ts.append(self.reseq["until"])
        ts = [x for x in ts if x > t]
        return min(ts) if ts else None

    def advance(self, t: int) -> None:
        h = self.holder
        if h is not None and h["ends"] is not None and h["ends"] <= t:
            self.holder = None  # the server ended the idle transaction
        r = self.reseq
        if r is not None and r["until"] <= t:
            for i in r["channels"]:
                self.dups[i] = 0.0
                self.since_dup[i] = 0.0
            self.outbox += r["rows"]  # every renumbered row goes to search again
            self.reseq = None

    def step(self, sends_ok: np.ndarray, mode: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance the store over the seconds of a window with ``sends_ok`` stored sends a second.
        Returns per second: the share of sends whose read-back finds another message under its
        number, the share of unread reads that disagree with the messages, the search lag (s)."""
        T = len(sends_ok)
        gap = self.spec.rmw_window_ms / 1000.0
        collide = np.zeros(T)
        unread = np.zeros(T)
        lag = np.zeros(T)
        rate = self.spec.index_events_per_s
        for s in range(T):
            per = sends_ok[s] * self.share
            if mode == "rmw":
                p = 1.0 - fmath.exp(-per * gap)
                new = per * p
                self.dups += new
                self.since_dup += np.where(self.dups > 0, per, 0.0)
                collide[s] = float((self.share * p).sum())
            else:
                self.since_dup += np.where(self.dups > 0, per, 0.0)
            self.rows += per
            unread[s] = float(self.share[self.dups > 0.5].sum())
            self.outbox = max(0.0, self.outbox + float(sends_ok[s]) - rate)
            lag[s] = self.outbox / rate
        return collide, unread, lag

    # ------------------------------------------------------------------ views
    def snapshot(self) -> dict[str, Any]:
        return {
            "channels": {
                n: {
                    "rows": round(float(r), 1),
                    "duplicates": round(float(d), 1),
                    "cursor_consistent": bool(d <= 0.5),
                }
                for n, r, d in zip(self.names, self.rows, self.dups, strict=True)
            },
            "duplicates": round(float(self.dups.sum()), 1),
            "lost": round(self.lost, 1),
            "search_lag_s": round(self.outbox / self.spec.index_events_per_s, 2),
            "resequencing": None if self.reseq is None else self.reseq["until"],
            "lock_holder": None
            if self.holder is None
            else {k: self.holder[k] for k in ("pid", "channel", "since")},
        }

    def locks_view(self, t: float) -> list[dict[str, Any]]:
        out = []
        if self.holder is not None:
            h = self.holder
            out.append(
                {
                    "pid": h["pid"],
                    "usename": self.spec.app_role,
                    "datname": self.spec.app_db,
                    "state": "idle in transaction",
                    "xact_age_s": round(t - h["since"], 1),
                    "relation": "channel_seq",
                    "mode": "RowExclusiveLock",
                    "granted": True,
                    "blocking": "sends to channel " + h["channel"],
                }
            )
        if self.reseq is not None:
            out.append(
                {
                    "pid": 3999,
                    "usename": "postgres",
                    "state": "active",
                    "query": "resequence",
                    "relation": "messages",
                    "mode": "ShareRowExclusiveLock",
                    "granted": True,
                    "until_s": self.reseq["until"],
                }
            )
        return out
