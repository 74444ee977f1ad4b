"""Slot lifecycle, ported from ``sim/pods.py:lifecycle`` over ``[E, D, C]`` slots.

Differs from the full simulator: nothing in the transitions (tests/twin/test_conformance.py);
pods are slots of their deployment's block rather than rows in creation order, so what the full
simulator reads in row order the twin reads in creation order (``Pods.seq``).
"""

from __future__ import annotations

import numpy as np

from sre_gym.sim.pods import (
    BACKOFF,
    BACKOFF_BASE_S,
    BACKOFF_CAP_S,
    BACKOFF_RESET_S,
    EVICT_AFTER_S,
    IMAGE_WAIT,
    NODE_GRACE_S,
    PENDING,
    RUNNING,
    SHUTDOWN_S,
    TERM_ERROR,
    TERM_OOM,
    TERMINATING,
    ready_at,
)
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables

__all__ = [
    "BACKOFF",
    "IMAGE_WAIT",
    "PENDING",
    "RUNNING",
    "TERMINATING",
    "lifecycle",
    "node_of",
]


def node_of(s: TwinState, arr: np.ndarray, fill) -> np.ndarray:
    """A per-node array ``[E, K]`` read at each slot's node (``fill`` where unscheduled)."""
    node = s.pods.node
    e = np.arange(s.E)[:, None, None]
    out = arr[e, np.maximum(node, 0)]
    return np.where(node >= 0, out, fill)


def lifecycle(prm: TwinParams, s: TwinState, t: np.ndarray) -> TwinState:
    """Advance every slot to time ``t`` [E] (one tick). Deployments whose pods went away or were
    evicted are marked dirty, as ``SimCluster._lifecycle_events`` marks them."""
    lay = prm.layout
    dft = tables(lay).defects
    p = s.pods
    tt = t[:, None, None]
    a = p.alive
    st = p.state
    beh = p.b_defect
    nready = node_of(s, s.world.node_ready, False)
    down_since = node_of(s, s.world.node_down, np.inf)
    down_for = np.where(nready, 0.0, tt - down_since)

    gone = a & (st == TERMINATING) & (tt >= p.deleted_at)
    a &= ~gone

    pend = a & (st == PENDING) & nready & (tt >= p.start_at)
    started_now = pend & p.b_image_ok
    st[started_now] = RUNNING
    p.started[started_now] = p.start_at[started_now]
    st[pend & ~p.b_image_ok] = IMAGE_WAIT
    p.pulls += a & (st == IMAGE_WAIT)

    resume = a & (st == BACKOFF) & (tt >= p.backoff_until) & nready
    st[resume] = RUNNING
    p.started[resume] = p.backoff_until[resume]

    run = a & (st == RUNNING)
    with np.errstate(invalid="ignore"):
        up = np.where(run, tt - p.started, 0.0)
    warm = np.minimum(1.0, 0.6 + 0.4 * up / 60.0)
    leak = dft.leak[beh] + s.world.fx_leak[:, :, None]
    mem = np.where(run, p.balloon + lay.dep_mem_base[None, :, None] * warm + leak * up, 0.0)
    oom = run & (mem > p.b_mem)
    crash = run & ~oom & (up >= dft.crash_after[beh])
    exited = oom | crash
    if exited.any():
        p.restarts += exited
        p.crashes += exited
        delay = np.minimum(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** (p.crashes - 1))
        p.backoff_until[:] = np.where(exited, tt + delay, p.backoff_until)
        p.last_term[:] = np.where(exited, np.where(oom, TERM_OOM, TERM_ERROR), p.last_term)
        p.last_term_at[:] = np.where(exited, tt, p.last_term_at)
        st[exited] = BACKOFF
        p.started[exited] = np.nan
        mem = np.where(exited, 0.0, mem)
        for f in (p.cpu_total, p.periods, p.throttled):
            f[exited] = 0.0
        run = run & ~exited
    p.crashes[run & (up > BACKOFF_RESET_S)] = 0
    p.mem[:] = mem

    node_ok = nready | (down_for < NODE_GRACE_S)
    probe_ok = p.b_probe_ok & ~s.world.fx_not_ready[:, :, None]
    when = ready_at(
        p.started,
        lay.dep_boot[None, :, None],
        lay.dep_probed[None, :, None],
        lay.dep_probe_delay[None, :, None],
        lay.dep_probe_period[None, :, None],
    )
    with np.errstate(invalid="ignore"):
        p.ready[:] = run & (tt >= when) & probe_ok & node_ok

    evict = a & (st != TERMINATING) & ~nready & (down_for >= EVICT_AFTER_S)
    if evict.any():
        st[evict] = TERMINATING
        p.deleted_at[evict] = np.broadcast_to(tt + SHUTDOWN_S, evict.shape)[evict]
        p.ready[evict] = False
    s.deps.dirty |= (gone | evict).any(axis=2)
    return s
