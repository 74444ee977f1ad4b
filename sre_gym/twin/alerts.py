"""Alert evaluation: the compiled pack at each evaluation time, and Prometheus 2.42's ``for:``
machine over alert columns (``telemetry/rules.py:AlertEngine._step``).

At each evaluation time, in order: a column whose condition holds and that was inactive becomes
pending (active since then); a pending column whose ``for`` has elapsed fires (``for: 0`` fires
at once), taking the next alert id in (rule, label) order as the full engine assigns them; a
column whose condition stops holding resolves (firing) or is dropped (pending). Fired alerts go to
a per-episode log with their column, firing and resolution times and the entities they name.

Differs from the full simulator: nothing in the machine (tests/twin/test_conformance.py);
an alert column is a series of the twin's index, so a pod alert names the pod's series row, not
its generated name.
"""

from __future__ import annotations

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.state import TwinParams, TwinState


def conditions(prm: TwinParams, s: TwinState, ago: np.ndarray) -> np.ndarray:
    """[E, T, COLS] bool: each column's condition at each evaluation time, ``ago`` [T] ticks
    before the newest tick simulated."""
    cp = compile_pack(prm.layout)
    tel = s.tel
    E, T = s.E, len(ago)
    live = [p for p in cp.plans if p is not None]
    rings = (tel.long, tel.pod, tel.inst)
    since = ((s.ep.tick - 1)[:, None] - tel.sr_last.reshape(E, -1)).astype(np.int64)
    vecs = iter(cp.engine.run(live, rings, int(s.ep.clock[0]) - 1, np.asarray(ago), since))
    out = []
    for i, plan in enumerate(cp.plans):
        if plan is None:
            continue
        v = next(vecs)
        rows = cp.rows(i, v.labels)
        if not len(v.labels):
            out.append(np.zeros((len(rows), E, T), dtype=bool))
            continue
        pres = v.present.reshape(len(v.labels), E, T)[np.maximum(rows, 0)]  # [cols, E, T]
        out.append(pres & (rows >= 0)[:, None, None])
    cond = np.concatenate(out, axis=0) if out else np.zeros((0, E, T), dtype=bool)
    return np.moveaxis(cond, 0, 2)


def evaluate(prm: TwinParams, s: TwinState, ago: np.ndarray) -> None:
    """Run the evaluations ``ago`` [T] ticks before the newest tick (each a multiple of 30 s)
    in order."""
    cp = compile_pack(prm.layout)
    cond = conditions(prm, s, ago)
    ticks = (s.ep.tick - 1)[:, None] - np.asarray(ago)[None, :]
    al = s.alerts
    st = al.st
    for j in range(ticks.shape[1]):
        t = (EPOCH + ticks[:, j] * TICK_S).astype(float)
        c = cond[:, j]
        # the machine reads and writes only the columns that hold or are active, a few of the
        # [E, COLS]: index them rather than run each rule of the machine over every column
        e, col = np.nonzero(c & (st == 0))
        st[e, col] = 1
        al.active_at[e, col] = t[e]
        e, col = np.nonzero(st)  # (row-major: by episode, then column)
        gone = ~c[e, col]
        if gone.any():
            ge, gc = e[gone], col[gone]
            resolved = st[ge, gc] == 2
            re, rc = ge[resolved], gc[resolved]
            al.resolved[re, al.log_of[re, rc]] = t[re]
            al.log_of[re, rc] = -1
            st[ge, gc] = 0
            e, col = e[~gone], col[~gone]
        fire = (st[e, col] == 1) & (t[e] - al.active_at[e, col] >= cp.col_for[col])
        if fire.any():
            e, col = e[fire], col[fire]
            # alert ids in (rule, label) order, as the full engine assigns them: a row's columns
            # in column order
            first = np.r_[0, np.nonzero(e[1:] != e[:-1])[0] + 1]
            rank = np.arange(len(e)) - np.repeat(first, np.diff(np.r_[first, len(e)]))
            p = al.n[e] + rank
            if (p >= al.col.shape[1]).any():
                raise RuntimeError(f"the alert log is full ({al.col.shape[1]} alerts)")
            al.col[e, p] = col
            al.fired[e, p] = t[e]
            al.resolved[e, p] = np.inf
            al.ent[e, p] = cp.col_ent[col]
            al.log_of[e, col] = p
            st[e, col] = 2
            al.n += np.bincount(e, minlength=s.E)
