"""Scheduled actions: the episode's event table, run before each tick as ``SimCluster._step`` runs
its scheduled actions (fault injections and reverts, benign deploys, benign noise, the open world).

Each row's events are sorted by (time, registration order) at reset (``episode.py``); before a tick
every row runs its due events in order. Events of one tick have one time (schedules are on the
15 s grid), so their registration order puts a row's fault events first, then its deploys, its
benign noise and its open-world anomalies: the twin runs these four groups in turn, and within a
group the k-th due event of every row together, by kind. A tick with events costs a few
vectorised handler calls, not a call per episode.

The controller passes that new revisions and scales ask for (``controller.request``) run after
each such wave, batched over the episodes, before any later event of the tick: the order the full
simulator's immediate passes have.

Differs from the full simulator: nothing in the order or the effects of the events
(``sim/faults/noise.py:Noise``, ``orchestrator/open_world.py:OpenWorld`` and the injector are
ported here and in ``faults.py``/``deploys.py``).
"""

from __future__ import annotations

import numpy as np

from sre_gym.sim.pods import TERMINATING
from sre_gym.twin import controller, deploys, faults
from sre_gym.twin.episode import (
    EV_DEPLOY,
    EV_INJECT,
    EV_NZ_START,
    EV_NZ_STOP,
    EV_OW_START,
    EV_OW_STOP,
    EV_REVERT,
    NZ_KINDS,
    OW_KINDS,
)
from sre_gym.twin.state import TwinParams, TwinState

NOISY, BLIP = NZ_KINDS.index("noisy_neighbour"), NZ_KINDS.index("latency_blip")
THIRD, SIDE, EDIT, FLAP, SURGE = (OW_KINDS.index(k) for k in OW_KINDS)


# the four registration groups of SimCluster.at's actions, in order
GROUP = np.array([0, 0, 1, 2, 2, 3, 3])  # by event kind


def run_due(prm: TwinParams, s: TwinState, tick: np.ndarray, t: np.ndarray, only=None) -> None:
    """Run every event due before ``tick`` [E] (``only``: rows to run, default all), in order."""
    ep = s.ep
    rows_all = np.arange(s.E) if only is None else only
    for g in range(4):
        while True:
            ptr = ep.ev_ptr[rows_all]
            ok = ptr < ep.ev_n[rows_all]
            ptr = np.minimum(ptr, ep.ev_tick.shape[1] - 1)
            due = ok & (ep.ev_tick[rows_all, ptr] <= tick[rows_all])
            due &= GROUP[ep.ev_kind[rows_all, ptr]] == g
            if not due.any():
                break
            _run(prm, s, rows_all[due], t)
            # the new revisions and scales of these events roll out before the next events
            controller.reconcile_pending(prm, s)


def _run(prm: TwinParams, s: TwinState, rows: np.ndarray, t: np.ndarray) -> None:
    """The next event of each of ``rows``, by kind."""
    ep = s.ep
    p = ep.ev_ptr[rows]
    ep.ev_ptr[rows] += 1
    kind = ep.ev_kind[rows, p]
    a, b = ep.ev_a[rows, p], ep.ev_b[rows, p]
    tt = t[rows]
    for k in np.unique(kind):
        sel = kind == k
        _HANDLERS[int(k)](prm, s, rows[sel], a[sel], b[sel], tt[sel])


def _inject(prm, s, rows, a, b, t) -> None:
    faults.inject(prm, s, rows, a, t)


def _revert(prm, s, rows, a, b, t) -> None:
    faults.revert(prm, s, rows, a, t)


def _deploy(prm, s, rows, a, b, t) -> None:
    deploys.deploy_change(prm, s, rows, a, t)


# ------------------------------------------------------------------ benign noise
def _nz_start(prm, s, rows, a, b, t) -> None:
    """``Noise._start``: a CPU burst in one pod, a latency blip on all pods of a deployment, a
    noisy neighbour burning a share of each pod's limit on a node; one disturbance per pod."""
    lay = prm.layout
    ep, p = s.ep, s.pods
    kind = ep.nz_kind[rows, a]
    target = ep.nz_target[rows, a]
    amount = ep.nz_amount[rows, a]
    live = p.alive[rows] & (p.state[rows] != TERMINATING)  # [P, D, C]
    dep_mask = np.arange(lay.D)[None, :] == target[:, None]
    neighbour = kind == NOISY
    on_node = (p.node[rows] == target[:, None, None]) & neighbour[:, None, None]
    serving = np.arange(lay.D) < lay.n
    spared = ep.nz_spared[rows, a]
    hit = np.where(
        neighbour[:, None, None],
        live & on_node & (serving & ~spared)[:, :, None],
        live & dep_mask[:, :, None],
    )
    burst = ~neighbour & (kind != BLIP)
    if burst.any():  # a batch job runs in one pod: the first in creation order
        seq = np.where(hit, p.seq[rows], np.iinfo(np.int64).max)
        first = seq.reshape(len(rows), -1).argmin(axis=1)
        one = np.zeros(hit.shape, dtype=bool).reshape(len(rows), -1)
        one[np.arange(len(rows)), first] = True
        hit = np.where(burst[:, None, None], hit & one.reshape(hit.shape), hit)
    hit &= p.noise_ev[rows] < 0
    amt = np.where(
        neighbour[:, None, None], amount[:, None, None] * p.b_cpu[rows], amount[:, None, None]
    )
    field = np.where(kind == BLIP, 1, 0)
    r, d, c = np.nonzero(hit)
    rr = rows[r]
    fd = field[r]
    hog, dl = fd == 0, fd == 1
    p.hog[rr[hog], d[hog], c[hog]] += amt[r[hog], d[hog], c[hog]]
    p.delay[rr[dl], d[dl], c[dl]] += amt[r[dl], d[dl], c[dl]]
    p.noise_ev[rr, d, c] = a[r] * 16 + b[r]
    p.noise_amt[rr, d, c] = amt[r, d, c]
    p.noise_field[rr, d, c] = fd


def _nz_stop(prm, s, rows, a, b, t) -> None:
    """``Noise._stop``: take back exactly what the phase added, from the pods still alive."""
    p = s.pods
    mine = p.alive[rows] & (p.noise_ev[rows] == (a * 16 + b)[:, None, None])
    r, d, c = np.nonzero(mine)
    rr = rows[r]
    fd = p.noise_field[rr, d, c]
    amt = p.noise_amt[rr, d, c]
    hog, dl = fd == 0, fd == 1
    p.hog[rr[hog], d[hog], c[hog]] = np.maximum(0.0, p.hog[rr[hog], d[hog], c[hog]] - amt[hog])
    p.delay[rr[dl], d[dl], c[dl]] = np.maximum(0.0, p.delay[rr[dl], d[dl], c[dl]] - amt[dl])
    p.noise_ev[rr, d, c] = -1


# ------------------------------------------------------------------ the open world
def _third_party(s: TwinState, rows, svc, delta, timeout) -> None:
    """``Interventions.third_party``: a third party starts or stops failing a share of calls."""
    w = s.world
    w.outside_err[rows, svc] = np.minimum(np.maximum(w.outside_err[rows, svc] + delta, 0.0), 1.0)
    w.outside_lat[rows, svc] = np.maximum(w.outside_lat[rows, svc] + delta * timeout, 0.0)
    gone = (delta <= 0) & (w.outside_err[rows, svc] <= 1e-9)
    w.outside_err[rows[gone], svc[gone]] = 0.0
    w.outside_lat[rows[gone], svc[gone]] = 0.0


def _ow_start(prm, s, rows, a, b, t) -> None:
    ep = s.ep
    kind = ep.ow_kind[rows, a]
    tgt = ep.ow_target[rows, a]
    for k in np.unique(kind):
        sel = kind == k
        r, i, g, tt = rows[sel], a[sel], tgt[sel], t[sel]
        if k == THIRD:
            _third_party(s, r, g, ep.ow_amount[r, i], ep.ow_timeout[r, i])
        elif k == SIDE:
            pos = s.deps.n_rev[r, g] - 1
            limit = s.deps.rv_mem[r, g, pos]
            faults.set_condition(s, r, g, np.full(len(r), 2), 1.3 * limit)
        elif k == EDIT:
            key = ep.ow_key[r, i]
            pos = s.deps.n_rev[r, g] - 1
            ep.ow_before[r, i] = s.deps.rv_env[r, g, pos, key]
            faults.patch_env(prm, s, r, g, key, ep.ow_value[r, i], tt)
        elif k == FLAP:
            ready = s.world.node_ready[r, g]
            ep.ow_before[r, i] = np.where(ready, 0, 1)
            if ready.any():
                nodes = np.arange(prm.layout.K)[None, :] == g[ready, None]
                faults.set_nodes(prm, s, r[ready], nodes, False, tt[ready])
        else:
            s.world.load_factor[r] *= ep.ow_amount[r, i]


def _ow_stop(prm, s, rows, a, b, t) -> None:
    ep = s.ep
    kind = ep.ow_kind[rows, a]
    tgt = ep.ow_target[rows, a]
    for k in np.unique(kind):
        sel = kind == k
        r, i, g, tt = rows[sel], a[sel], tgt[sel], t[sel]
        if k == THIRD:
            _third_party(s, r, g, -ep.ow_amount[r, i], ep.ow_timeout[r, i])
        elif k == SIDE:
            faults.set_condition(s, r, g, np.full(len(r), 2), 0.0)
        elif k == EDIT:
            key = ep.ow_key[r, i]
            pos = s.deps.n_rev[r, g] - 1
            mine = s.deps.rv_env[r, g, pos, key] == ep.ow_value[r, i]  # else changed since
            if mine.any():
                r, i, g, tt, key = r[mine], i[mine], g[mine], tt[mine], key[mine]
                faults.patch_env(prm, s, r, g, key, ep.ow_before[r, i], tt)
        elif k == FLAP:
            back = ep.ow_before[r, i] == 0
            if back.any():
                nodes = np.arange(prm.layout.K)[None, :] == g[back, None]
                faults.set_nodes(prm, s, r[back], nodes, True, tt[back])
        else:
            s.world.load_factor[r] /= ep.ow_amount[r, i]


_HANDLERS = {
    EV_INJECT: _inject,
    EV_REVERT: _revert,
    EV_DEPLOY: _deploy,
    EV_NZ_START: _nz_start,
    EV_NZ_STOP: _nz_stop,
    EV_OW_START: _ow_start,
    EV_OW_STOP: _ow_stop,
}
