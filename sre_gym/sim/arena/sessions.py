"""The application's pooled database sessions (saleor-spine: Django persistent connections).

PostgreSQL applies role and database settings (``ALTER ROLE ... IN DATABASE ... SET``) when a
session starts, so a session keeps what it started with; the server-wide value
(postgresql.conf, ``ALTER SYSTEM`` + reload) is read live by every session without a scoped one.
Django closes a persistent connection at the end of a request once it is older than
``CONN_MAX_AGE`` and opens a fresh one on the next, so under traffic the sessions turn over at
that age; a terminated session is replaced on the next request (at once under traffic).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sre_gym.catalogs.arena.schema import Substrate

GLOBAL_TIMEOUT = "postgres.statement_timeout"


def scoped_timeout_ms(config: dict[str, Any], role: str, db: str) -> float:
    """The role-or-database statement_timeout a new session picks up (precedence role-in-database,
    role, database), NaN when none applies."""
    for key in (
        f"{GLOBAL_TIMEOUT}@role={role},db={db}",
        f"{GLOBAL_TIMEOUT}@role={role}",
        f"{GLOBAL_TIMEOUT}@db={db}",
    ):
        v = config.get(key)
        if v is not None:
            return float(v)
    return float("nan")


class Sessions:
    def __init__(self, sub: Substrate) -> None:
        self.k = int(sub.app_sessions)
        self.role, self.db = sub.app_role, sub.app_db
        self.max_age = float(sub.session_max_age_s)
        self.started = np.zeros(self.k)
        self.scoped = np.full(self.k, np.nan)
        self.pid = np.zeros(self.k, dtype=np.int64)
        self._next_pid = 1000

    def connect(self, t: float, config: dict[str, Any], mask: np.ndarray | None = None) -> int:
        if self.k == 0:
            return 0
        m = np.ones(self.k, dtype=bool) if mask is None else mask
        n = int(m.sum())
        self.started[m] = float(t)
        self.scoped[m] = scoped_timeout_ms(config, self.role, self.db)
        self.pid[m] = self._next_pid + np.arange(n)
        self._next_pid += n
        return n

    def recycle(self, t: float, config: dict[str, Any]) -> None:
        if self.k and self.max_age > 0:
            old = self.started + self.max_age <= t
            if old.any():
                self.connect(t, config, old)

    def next_expiry(self, t: float) -> int | None:
        if not self.k or self.max_age <= 0:
            return None
        return int(np.ceil(self.started.min() + self.max_age))

    def terminate(
        self, t: float, config: dict[str, Any], role: str | None = None, pid: int | None = None
    ) -> int:
        if not self.k:
            return 0
        if pid is not None:
            mask = self.pid == int(pid)
        elif role is not None and role != self.role:
            return 0
        else:
            mask = np.ones(self.k, dtype=bool)
        return self.connect(t, config, mask) if mask.any() else 0

    def timeouts_ms(self, config: dict[str, Any]) -> np.ndarray | None:
        """Each session's effective statement_timeout (0 = none)."""
        if not self.k:
            return None
        glob = float(config.get(GLOBAL_TIMEOUT, 0) or 0)
        return np.where(np.isnan(self.scoped), glob, self.scoped)

    def snapshot(self, config: dict[str, Any]) -> list[dict[str, Any]]:
        tmo = self.timeouts_ms(config)
        if tmo is None:
            return []
        return [
            {
                "pid": int(p),
                "role": self.role,
                "backend_start_s": float(s),
                "statement_timeout_ms": float(x),
            }
            for p, s, x in zip(self.pid, self.started, tmo, strict=True)
        ]
