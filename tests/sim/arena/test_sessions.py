"""Pooled sessions: scoped settings snapshot at connect, the server-wide value read live, turnover
at CONN_MAX_AGE, termination."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_substrate
from sre_gym.sim.arena.sessions import Sessions, scoped_timeout_ms


def test_statement_timeout_precedence():
    cfg = {"postgres.statement_timeout": 5000}
    assert np.isnan(scoped_timeout_ms(cfg, "app", "db"))
    cfg["postgres.statement_timeout@db=db"] = 4000
    cfg["postgres.statement_timeout@role=app"] = 3000
    assert scoped_timeout_ms(cfg, "app", "db") == 3000
    cfg["postgres.statement_timeout@role=app,db=db"] = 150
    assert scoped_timeout_ms(cfg, "app", "db") == 150
    assert scoped_timeout_ms(cfg, "other", "db") == 4000


def test_sessions_keep_scoped_values_read_the_global_live_and_turn_over_at_max_age():
    sub = load_substrate("saleor-spine")
    cfg = dict(sub.config)
    key = f"postgres.statement_timeout@role={sub.app_role},db={sub.app_db}"
    cfg[key] = 150
    s = Sessions(sub)
    s.connect(20, cfg)
    assert set(s.timeouts_ms(cfg)) == {150.0}
    del cfg[key]
    assert set(s.timeouts_ms(cfg)) == {150.0}  # pooled sessions keep what they started with
    cfg["postgres.statement_timeout"] = 5000
    assert set(s.timeouts_ms(cfg)) == {150.0}  # the scoped value wins over the global one
    assert s.next_expiry(30) == 20 + sub.session_max_age_s
    s.recycle(20 + sub.session_max_age_s, cfg)
    assert set(s.timeouts_ms(cfg)) == {5000.0}  # fresh sessions: no scoped value, global live
    pids = {x["pid"] for x in s.snapshot(cfg)}
    assert s.terminate(700, cfg, role="someone_else") == 0
    assert s.terminate(700, cfg, role=sub.app_role) == sub.app_sessions
    assert not pids & {x["pid"] for x in s.snapshot(cfg)}
