"""Each active fault's symptom probe and artifact, every tick, and the repair persistence watch.

Ports ``sim/faults/probes.py`` (``SimProbes.health`` over the SLI ``Window``: error ratio, p95,
edge transport failures, corruption, rollout and restart states, node and zone workloads, queue
lag), ``FaultDriver.record_tick`` (the ``probe`` and ``artifact`` evidence arrays) and the watch of
``sim/faults/persistence.py:PersistenceChecker`` (an intervention that acts on a fault starts a
watch; a probe healthy for the hold is challenged).

A challenge runs in a fork of its episode (``challenges.py``); with ``TwinParams.persistence``
off every challenge holds, which credits the few repairs (about one in twenty) whose challenge
relapses in the full simulator.
"""

from __future__ import annotations

import math

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.orchestrator.faults import PROBE_TAIL_S
from sre_gym.scoring.rules import norm  # noqa: F401  (the scorer's rules, stated once)
from sre_gym.sim.dynamics import p95_factor
from sre_gym.sim.faults.probes import ANSWERING_ERR_MAX, RESTART_QUIET_S, STUCK_GRACE_S
from sre_gym.sim.pods import BACKOFF, IMAGE_WAIT, RUNNING, TERMINATING, ready_at
from sre_gym.twin import faults as F
from sre_gym.twin.challenges import Pending, snapshot
from sre_gym.twin.dynamics import TickOut
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import PROBE_KINDS, tables
from sre_gym.twin.telemetry import deployment_status

(ERR, P95, EDGE, ROLLOUT, RESTARTS, NODEW, CORRUPT, QUEUE, ZONE) = range(len(PROBE_KINDS))


def sli(s: TwinState, out: TickOut, sigma: np.ndarray):
    """The window ending one tick ago (``Window.read``): per row (own_err, p95, corrupt,
    edge_tfail [E, M], served)."""
    tel = s.tel
    k = tel.w_k
    fresh = k == 0
    rows = np.arange(4)[None, :] < np.minimum(k, 4)[:, None]  # [E, 4]
    served = np.where(rows[:, :, None], tel.w_served, 0.0).sum(axis=1)
    tot = np.maximum(served, 1e-12)
    att = np.maximum(np.where(rows[:, :, None], tel.w_att, 0.0).sum(axis=1), 1e-12)
    own = np.where(rows[:, :, None], tel.w_errs, 0.0).sum(axis=1) / tot
    p95 = np.where(rows[:, :, None], tel.w_lat, 0.0).sum(axis=1) / tot
    bad = np.where(rows[:, :, None], tel.w_bad, 0.0).sum(axis=1) / tot
    tf = np.where(rows[:, :, None], tel.w_tfail, 0.0).sum(axis=1) / att
    f = fresh[:, None]
    own = np.where(f, out.own_err, own)
    p95 = np.where(f, out.own_lat * p95_factor(sigma)[None, :], p95)
    bad = np.where(f, out.corrupt, bad)
    tf = np.where(f, out.edge_tfail, tf)
    served = np.where(f, out.served, served)
    return own, p95, bad, tf, served


def workload_states(prm: TwinParams, s: TwinState, t: np.ndarray):
    """(quiet, rollout_ok) per deployment [E, D] (``SimProbes.health``'s workload states)."""
    lay = prm.layout
    p, dp = s.pods, s.deps
    st = deployment_status(prm, s)
    serving = st["spec_replicas"] > 0
    avail_ok = (st["status_replicas_available"] >= st["spec_replicas"]) & serving
    live = p.alive & (p.state != TERMINATING)
    tt = t[:, None, None]
    stuck = live & ((p.state == BACKOFF) | (p.state == IMAGE_WAIT))
    unsettled = stuck | (live & (p.restarts > 0) & (tt - p.last_term_at < RESTART_QUIET_S))
    pos = dp.n_rev - 1
    e, d = np.indices(pos.shape)
    cur = dp.rv_num[e, d, pos]
    behind = live & (p.rev != cur[:, :, None])
    quiet = ~unsettled.any(axis=2) & ~behind.any(axis=2) & avail_ok
    due = ready_at(
        p.started,
        lay.dep_boot[None, :, None],
        lay.dep_probed[None, :, None],
        lay.dep_probe_delay[None, :, None],
        lay.dep_probe_period[None, :, None],
    )
    never = live & (p.state == RUNNING) & ~p.ready & (tt > np.nan_to_num(due) + STUCK_GRACE_S)
    return quiet, avail_ok & ~(stuck | never).any(axis=2)


def record_tick(
    prm: TwinParams,
    s: TwinState,
    out: TickOut,
    t: np.ndarray,
    tick: np.ndarray,
    past_end: bool = False,
) -> None:
    """Each active fault's probe (and, before its end or with ``past_end`` as in a persistence
    fork, its artifact) at ``tick`` (``_on_tick``)."""
    lay = prm.layout
    ft = tables(lay).faults
    fs = s.faults
    live = fs.injected & (t[:, None] <= fs.end + PROBE_TAIL_S)
    if not live.any():
        return
    own, p95, bad, tf, w_served = sli(s, out, lay.topo.sigma)
    has = (out.served > 0) & (w_served > 0)
    refusing = (out.served > 0) & ((w_served <= 0) | (own > ANSWERING_ERR_MAX))
    p = s.pods
    app = p.alive[:, : lay.n] & (p.state[:, : lay.n] != TERMINATING) & (p.node[:, : lay.n] >= 0)
    live_nodes = (app[..., None] & (p.node[:, : lay.n, :, None] == np.arange(lay.K))).sum(
        axis=(1, 2)
    )
    st = deployment_status(prm, s)
    some = (st["spec_replicas"] > 0) & (st["status_replicas_available"] >= 1)  # [E, D]
    need_ws = False
    rows, f = np.nonzero(live)
    cat = fs.cat[rows, f]
    kind = ft.probe_kind[cat]
    svc = ft.probe_svc[cat]
    mx = ft.probe_max[cat]
    sv = np.minimum(svc, lay.n - 1)
    ok = np.zeros(len(rows), dtype=bool)
    up = ~(fs.probe_deps[rows, f] & ~some[rows]).any(axis=1)
    nw = kind == NODEW
    if nw.any():
        k = np.minimum(svc, lay.K - 1)
        ok = np.where(nw, s.world.node_ready[rows, k] | ((live_nodes[rows, k] == 0) & up), ok)
    zw = kind == ZONE
    if zw.any():
        zmask = lay.node_zone[None, :] == svc[:, None]
        empty = (~zmask | s.world.node_ready[rows] | (live_nodes[rows] == 0)).all(axis=1)
        ok = np.where(zw, empty & up, ok)
    qw = kind == QUEUE
    if qw.any():
        groups = np.array([g for _, g in lay.queue_names])
        gname = groups[np.minimum(svc, len(groups) - 1)]
        mine = groups[None, :] == gname[:, None]
        ok = np.where(qw, ((s.world.lag[rows] <= mx[:, None]) | ~mine).all(axis=1), ok)
    h = has[rows, sv]
    ok = np.where(kind == ERR, h & (own[rows, sv] <= mx), ok)
    ok = np.where(kind == CORRUPT, h & (bad[rows, sv] <= mx), ok)
    ok = np.where(kind == P95, h & (p95[rows, sv] <= mx), ok)
    peer = ft.probe_peer[cat]
    m = lay.edge_of[sv, np.maximum(peer, 0)]
    ok = np.where(kind == EDGE, h & (tf[rows, np.maximum(m, 0)] <= mx), ok)
    need_ws = np.isin(kind, (ROLLOUT, RESTARTS))
    if need_ws.any():
        quiet, rollout = workload_states(prm, s, t)
        ok = np.where(kind == ROLLOUT, rollout[rows, sv], ok)
        ok = np.where(kind == RESTARTS, quiet[rows, sv], ok)
    sliced = ~np.isin(kind, (NODEW, ZONE, QUEUE, ERR))
    ok = np.where(sliced & refusing[rows, sv], False, ok)
    kk = np.minimum(tick, fs.probe.shape[2] - 1)
    fs.probe[rows, f, kk[rows]] = ok.astype(np.int8)
    within = (t[rows] < fs.end[rows, f]) | past_end
    if within.any():
        r2, f2 = rows[within], f[within]
        fs.artifact[r2, f2, kk[r2]] = F.present(prm, s, r2, f2).astype(np.int8)


def note_intervention(prm: TwinParams, s: TwinState, rows, t, fits: np.ndarray) -> None:
    """Watch each fault an intervention at ``t`` acts on (``PersistenceChecker.note_intervention``);
    ``fits`` [P, F] says which it acts on."""
    fs = s.faults
    t = np.asarray(t, dtype=float)
    k = np.floor((t - EPOCH) / TICK_S).astype(np.int64) + 1
    active = fs.injected[rows] & (fs.start[rows] <= t[:, None]) & (t[:, None] < fs.end[rows]) & fits
    r, f = np.nonzero(active)
    for i, j in zip(r.tolist(), f.tolist(), strict=True):
        e = rows[i]
        start_k = int(math.ceil((fs.start[e, j] - EPOCH) / TICK_S))
        never = bool((fs.probe[e, j, start_k : k[i]] == 1).all())
        slot = np.nonzero(np.isnan(fs.wt[e, j]))[0]
        if not len(slot):
            continue  # (four watches already: the later ones challenge the same repair)
        c = slot[0]
        fs.wt[e, j, c], fs.wroute[e, j, c], fs.wk[e, j, c], fs.wrec[e, j, c] = t[i], never, k[i], -1


def persistence_tick(
    prm: TwinParams, s: TwinState, t: np.ndarray, tick: np.ndarray
) -> Pending | None:
    """Advance the watches (``PersistenceChecker.on_tick``): a repair healthy for the hold is
    challenged once per (route, recovery). Returns the challenges started (their episodes copied
    as they are now, for ``challenges.start``), whose outcome is pending until their forks have
    run; None if none (or, with ``persistence`` off, when every challenge holds at once)."""
    fs = s.faults
    on = ~np.isnan(fs.wt)
    if not on.any():
        return None
    hold = int(math.ceil(prm.scoring.repair_hold_s / TICK_S))
    ended = t[:, None] >= fs.end
    fs.wt[ended] = np.nan
    on = ~np.isnan(fs.wt)
    e, f, c = np.nonzero(on)
    if not len(e):
        return None
    tk = np.minimum(tick, fs.probe.shape[2] - 1)[e]
    started = tk >= fs.wk[e, f, c]
    ok = fs.probe[e, f, tk] == 1
    ok &= ~fs.wroute[e, f, c] | (fs.artifact[e, f, tk] == 0)
    rec = fs.wrec[e, f, c]
    rec = np.where(started & ~ok, -1, np.where(started & ok & (rec < 0), tk, rec))
    fs.wrec[e, f, c] = rec
    due = started & ok & (tk - rec >= hold)
    done: set[tuple[int, int, bool, int]] = set()
    begun: list[tuple[int, int, int, bool]] = []
    for i in np.nonzero(due)[0].tolist():
        key = (int(e[i]), int(f[i]), bool(fs.wroute[e[i], f[i], c[i]]), int(rec[i]))
        fs.wt[e[i], f[i], c[i]] = np.nan
        if key in done:
            continue
        done.add(key)
        n = int(fs.ch_n[e[i], f[i]])
        if n < fs.ch_t.shape[2]:
            fs.ch_t[e[i], f[i], n] = t[e[i]]
            fs.ch_rec[e[i], f[i], n] = EPOCH + rec[i] * TICK_S
            fs.ch_route[e[i], f[i], n] = key[2]
            fs.ch_held[e[i], f[i], n] = -1 if prm.persistence else 1
            fs.ch_n[e[i], f[i]] = n + 1
            begun.append((key[0], key[1], n, key[2]))
    if not begun or not prm.persistence:
        return None
    row, fault, slot, route = (np.array(x) for x in zip(*begun, strict=True))
    return Pending(snapshot(s, row), row, fault, slot, t[row].copy(), route.astype(bool))
