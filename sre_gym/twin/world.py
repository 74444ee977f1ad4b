"""The world's slower machinery: feature flags, network policies, autoscalers and message queues.

Ports ``sim/flags.py:effects`` (recomputed for the episodes whose flags changed), the connectivity of
``sim/netpol.py:blocked`` for the namespace's own policies plus the egress allow-lists faults add,
``sim/autoscaler.py:sync`` (CPU target, tolerance, scale-up limits, the 5-minute scale-down
window) and ``sim/queues.py:step``.

Differs from the full simulator: an autoscaler's mean CPU over its ready pods is summed in slot
order (rounding differences of about 1e-16 can move a borderline decision); everything else is the
same arithmetic.
"""

from __future__ import annotations

import functools

import numpy as np

from sre_gym.clock import TICK_S
from sre_gym.sim.autoscaler import DOWN_WINDOW_S, TOLERANCE, UP_MAX_PODS
from sre_gym.sim.pods import TERMINATING
from sre_gym.twin import controller
from sre_gym.twin.dynamics import TickOut
from sre_gym.twin.layout import Layout
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables


def flag_effects(prm: TwinParams, s: TwinState, rows: np.ndarray) -> None:
    """Recompute the flag effects of ``rows`` from their chosen variants (``flags.effects``)."""
    lay = prm.layout
    fl = tables(lay).flags
    w = s.world
    if not len(fl.names) or not len(rows):
        return
    P = len(rows)
    err, lat, hog = np.zeros((P, lay.n)), np.zeros((P, lay.n)), np.zeros((P, lay.n))
    pub, con = np.zeros((P, lay.n)), np.zeros((P, lay.n))
    broken = np.zeros((P, lay.M), dtype=bool)
    leak = np.zeros((P, lay.D))
    not_ready = np.zeros((P, lay.D), dtype=bool)
    var = w.flag_var[rows]
    for i in range(len(fl.names)):
        on = (var[:, i] != fl.default[i]) & ~fl.owned[i]
        v = fl.value[i, var[:, i]]
        on &= v != 0
        if not on.any():
            continue
        vv = np.where(on, v, 0.0)[:, None]
        has = fl.has_effect[i][None, :] & on[:, None]
        err = np.where(has, 1.0 - (1.0 - err) * (1.0 - np.minimum(1.0, fl.err[i] * vv)), err)
        lat = np.where(has, lat + fl.lat[i] * vv, lat)
        hog = np.where(has, hog + fl.hog[i] * vv, hog)
        pub = np.where(has, pub + fl.publish[i] * vv, pub)
        con = np.where(has, con + fl.consume[i] * vv, con)
        broken |= fl.broken[i][None, :] & on[:, None]
        leak = np.where(on[:, None], leak + fl.leak[i] * vv, leak)
        not_ready |= fl.not_ready[i][None, :] & on[:, None]
    w.fx_err[rows], w.fx_lat[rows], w.fx_hog[rows] = err, lat, hog
    w.fx_publish[rows], w.fx_consume[rows] = pub, con
    w.fx_broken[rows], w.fx_leak[rows], w.fx_not_ready[rows] = broken, leak, not_ready


@functools.cache
def _policy_target(lay: Layout) -> np.ndarray:
    ft = tables(lay).faults
    out = np.zeros(ft.admit.shape[0], dtype=np.int64)
    pol = np.nonzero(ft.policy >= 0)[0]
    out[ft.policy[pol]] = ft.target[pol]
    return out


def policy_target(prm: TwinParams) -> np.ndarray:
    """[NP] the service each policy slot's egress allow-list restricts."""
    return _policy_target(prm.layout)


def same_name(s: TwinState, rows: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """[P, NP] the policies in place named as policy slot ``slot`` [P] of each row is."""
    name = s.world.pol_name[rows]
    return s.world.pol_on[rows] & (name == name[np.arange(len(rows)), slot][:, None])


def first_named(s: TwinState, rows: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """The policy a delete by the name of slot ``slot`` [P] removes (``delete_networkpolicy``:
    the first with that name in the cluster's list, which is in creation order), -1 if none."""
    on = same_name(s, rows, slot)
    first = np.where(on, s.world.pol_created[rows], np.inf).argmin(axis=1)  # (ties: lowest slot)
    return np.where(on.any(axis=1), first, -1)


def blocked(prm: TwinParams, s: TwinState, rows: np.ndarray) -> None:
    """Edges the policies drop, for ``rows``: the namespace's own ingress rules plus the egress
    allow-lists in place (a service under any of them sends only what their union admits)."""
    lay = prm.layout
    tab = tables(lay)
    ft = tab.faults
    on = s.world.pol_on[rows]  # [P, NP]
    base = np.broadcast_to(tab.base_blocked, (len(rows), lay.M))
    if not ft.admit.shape[0]:
        s.world.blocked[rows] = base
        return
    tgt = policy_target(prm)
    iso = np.zeros((len(rows), lay.n), dtype=bool)
    admit = np.zeros((len(rows), lay.n, lay.n), dtype=bool)
    for j in range(ft.admit.shape[0]):
        sel = on[:, j]
        if sel.any():
            iso[sel, tgt[j]] = True
            admit[sel, tgt[j]] |= ft.admit[j]
    eg = iso[:, lay.ga] & ~admit[:, lay.ga, lay.gb]
    s.world.blocked[rows] = base | eg


def hpa_sync(prm: TwinParams, s: TwinState, t: np.ndarray, out: TickOut) -> None:
    """One autoscaler pass at ``t`` [E] (``autoscaler.sync``), scaling through the controller."""
    lay = prm.layout
    p, w, dp = s.pods, s.world, s.deps
    ready = p.alive & (p.state != TERMINATING) & p.ready
    for h in range(len(lay.hpa_dep)):
        d = int(lay.hpa_dep[h])
        cur = dp.replicas[:, d]
        rd = ready[:, d]
        k = rd.sum(axis=1)
        act = (cur != 0) & (k > 0)
        if not act.any():
            continue
        util = np.where(rd, out.pod_usage[:, d], 0.0).sum(axis=1) / np.maximum(k, 1)
        util = util / max(lay.hpa_request[h], 1e-9) * 100.0
        ratio = util / lay.hpa_target[h]
        want = np.where(
            np.abs(ratio - 1.0) <= TOLERANCE, cur, np.ceil(cur * ratio).astype(np.int64)
        )
        want = np.minimum(np.maximum(want, lay.hpa_min[h]), lay.hpa_max[h])
        ht, hw = w.hpa_t[:, h], w.hpa_want[:, h]
        keep = ~np.isnan(ht) & ~(t[:, None] - ht >= DOWN_WINDOW_S)
        keep = np.where(act[:, None], keep, ~np.isnan(ht))
        order = np.argsort(~keep, axis=1, kind="stable")
        ht2 = np.where(np.take_along_axis(keep, order, 1), np.take_along_axis(ht, order, 1), np.nan)
        hw2 = np.take_along_axis(hw, order, 1)
        pos = keep.sum(axis=1)
        er = np.nonzero(act)[0]
        ht2[er, pos[er]] = t[er]
        hw2[er, pos[er]] = want[er]
        w.hpa_t[:, h], w.hpa_want[:, h] = ht2, hw2
        hist_max = np.where(~np.isnan(ht2), hw2, np.iinfo(np.int64).min).max(axis=1)
        up = np.minimum(want, np.maximum(2 * cur, cur + UP_MAX_PODS))
        new = np.where(want > cur, up, np.minimum(hist_max, cur))
        go = act & (new != cur)
        if go.any():
            rows = np.nonzero(go)[0]
            controller.scale(prm, s, rows, np.full(len(rows), d), new[rows], t[rows], now=True)


def queues_step(prm: TwinParams, s: TwinState, out: TickOut) -> None:
    """Consumer lag per (topic, group) (``queues.step``), one tick."""
    lay = prm.layout
    topo = lay.topo
    if not lay.queue_names:
        return
    p, w = s.pods, s.world
    n = lay.n
    live = p.alive[:, :n] & (p.state[:, :n] != TERMINATING)
    ready = (live & p.ready[:, :n]).sum(axis=2)
    dft = tables(lay).defects
    consume = np.maximum(
        w.fx_consume, np.where(live, dft.consume[p.b_defect[:, :n]], -np.inf).max(axis=2)
    )
    i = 0
    for q in topo.app.queues:
        up = ready[:, topo.index[q.broker]] > 0
        rate = np.zeros(s.E)
        for svc, per_req in q.producers.items():
            j = topo.index[svc]
            rate = rate + np.where(up, out.served[:, j] * per_req * (1.0 + w.fx_publish[:, j]), 0.0)
        for svc, per_pod in q.consumers.items():
            j = topo.index[svc]
            per_msg_s = 1.0 / per_pod + consume[:, j] / 1000.0
            cap = np.where(up, ready[:, j] / per_msg_s, 0.0)
            w.lag[:, i] = np.maximum(0.0, w.lag[:, i] + (rate - cap) * float(TICK_S))
            i += 1
