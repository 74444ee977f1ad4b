"""One tick of traffic for every episode, ported from ``sim/dynamics.py:step`` over slots.

The model is the full simulator's (its module docstring): offered load through the call graph with
last tick's retry amplification, per-pod utilisation, queueing and shedding, callees' latency and
failures propagated leaves first (timeouts, broken addresses, dropped connections, client pools),
the entry point per route. The arrays are ``[E, n, C]`` per slot of a serving deployment and
``[E, m, C]`` per (slot, edge of its service) at each level of the call graph; a service's value is
the mean over its ready slots.

Differs from the full simulator: a service's mean sums its ready slots in slot order, the full
simulator its pods in creation order (both numpy sums, with the same offered load, elementary
functions and attempts: ``sim.dynamics.offered_load``, ``sre_gym.fmath``,
``expected_attempts``), so with three or more pods values can differ in the last bit (about 1e-15
relative), not more (tests/twin/test_conformance.py; docs/twin.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym import fmath
from sre_gym.clock import EPOCH
from sre_gym.sim.dynamics import (
    DROP_HANG_MS,
    LOG_SLOW,
    SLOW_MS,
    STATE_LOSS_ERR,
    STATE_LOSS_S,
    expected_attempts,
    lognorm_sf,
)
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables


@dataclass
class TickOut:
    """One tick's outputs per episode (``sim/dynamics.py:TickOut``, edges by index)."""

    lam: np.ndarray  # [E, n] offered requests/s
    served: np.ndarray  # [E, n]
    err: np.ndarray  # [E, n]
    lat: np.ndarray  # [E, n] ms
    own_err: np.ndarray  # [E, n]
    own_lat: np.ndarray  # [E, n]
    corrupt: np.ndarray  # [E, n]
    edge_att: np.ndarray  # [E, M] attempts/s
    edge_fail: np.ndarray  # [E, M]
    edge_tfail: np.ndarray  # [E, M]
    edge_kind: np.ndarray  # [E, M] int8
    attempts: np.ndarray  # [E, M]
    route_rps: np.ndarray  # [E, R]
    route_err: np.ndarray  # [E, R]
    route_lat: np.ndarray  # [E, R]
    entry_rps: np.ndarray  # [E]
    entry_failed: np.ndarray  # [E]
    entry_slow: np.ndarray  # [E]
    pod_usage: np.ndarray  # [E, D, C] cores
    pod_throttle: np.ndarray  # [E, D, C]


def entry_rps(prm: TwinParams, s: TwinState, t: np.ndarray, tick: np.ndarray) -> np.ndarray:
    """Users' requests/s at the ingress (``SimCluster._step``: diurnal wave, load noise, surges)."""
    lay = prm.layout
    lg = lay.topo.app.loadgen
    rel = t - EPOCH
    e = np.arange(s.E)
    rps = lay.base_rps * (
        1 + lg.diurnal_amplitude * np.sin(2 * np.pi * rel / 14400 + s.ep.load_phase)
    )
    k = np.minimum(tick, s.ep.load_noise.shape[1] - 1)
    rps = rps * (1 + lg.noise * s.ep.load_noise[e, k]) * s.world.load_factor
    return np.maximum(rps, 0.0)


def _mean(x: np.ndarray, w: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Mean over the last axis of ``x`` where ``w`` (ready slots), ``k`` of them."""
    return np.where(w, x, 0.0).sum(axis=-1) / np.maximum(k, 1.0)


def step(prm: TwinParams, s: TwinState, t: np.ndarray, rps: np.ndarray) -> TickOut:
    """One tick of traffic at time ``t`` [E] with ``rps`` [E] entering (see the module)."""
    lay = prm.layout
    topo = lay.topo
    tab = tables(lay)
    dft = tab.defects
    n, E_, C = lay.n, s.E, lay.C
    p, w = s.pods, s.world
    er = np.arange(E_)
    # serving slots [E, n, C]
    ready = p.ready[:, :n]
    beh = p.b_defect[:, :n]
    k = ready.sum(axis=2).astype(float)
    has = k > 0
    zone = lay.node_zone[np.maximum(p.node[:, :n], 0)]
    k_zone = (ready[..., None] & (zone[..., None] == np.arange(lay.Z))).sum(axis=2)  # [E, n, Z]

    # offered load: level by level down the DAG (callers first), with last tick's retries
    ceff = topo.calls[lay.ga, lay.gb][None, :] * w.prev_attempts  # [E, M]
    lam = np.zeros((E_, n))
    lam[:, topo.ingress] = rps
    for lvl in reversed(lay.levels):
        if len(lvl.src):
            contrib = lam[:, lvl.src] * ceff[:, lvl.edge]
            np.add.at(lam, (er[:, None], lvl.dst[None, :]), contrib)
    lam = np.maximum(lam, 0.0)
    served = np.where(has, lam, 0.0)

    # per slot: utilisation, queueing, own latency and errors
    svc_err = 1.0 - (1.0 - w.fx_err) * (1.0 - w.outside_err)
    svc_lat = w.fx_lat + w.outside_lat
    hog = p.hog[:, :n] + w.fx_hog[:, :, None]
    delay = p.delay[:, :n]
    lam_p = (lam / np.maximum(k, 1.0))[:, :, None]
    cpu_limit = p.b_cpu[:, :n]
    tt = t[:, None, None]
    with np.errstate(invalid="ignore"):
        age = np.nan_to_num(tt - p.started[:, :n] - lay.dep_boot[None, :n, None], nan=1e9)
    booting = age < 0
    span = topo.warmup_s[None, :, None]
    warm = np.where(span > 0, np.clip(1.0 - age / np.maximum(span, 1e-9), 0.0, 1.0), 0.0)
    warm = warm * topo.warmup_factor[None, :, None]
    cpu_ms = topo.cpu_ms[None, :, None]
    work = np.where(booting, 0.0, lam_p * cpu_ms * dft.cpu_mult[beh] * (1.0 + warm))
    demand = work / 1000.0 + hog
    rho = demand / np.maximum(cpu_limit, 1e-6)
    usage = np.minimum(demand, cpu_limit)
    mult = 1.0 / (1.0 - np.minimum(rho, 0.98))
    over = np.maximum(rho - 1.0, 0.0)
    beh_lat = p.b_lat[:, :n] + dft.lat[beh]
    own_lat = (topo.base_ms[None, :, None] + beh_lat + svc_lat[:, :, None]) * mult
    own_lat = own_lat + 1000.0 * over + delay
    shed = over / np.maximum(rho, 1e-9)
    own_err = 1.0 - (1.0 - dft.err[beh]) * (1.0 - svc_err[:, :, None]) * (1.0 - shed)
    own_lat = np.where(booting, 1.0 + delay, own_lat * (1.0 + warm))
    own_err = np.where(booting, 1.0, own_err)
    data_age = np.where(p.created[:, :n] > EPOCH, tt - p.created[:, :n], 1e9)
    fresh = np.clip(1.0 - data_age / STATE_LOSS_S, 0.0, 1.0)
    lost = np.where(topo.stateful[None, :, None], STATE_LOSS_ERR * fresh, 0.0)
    own_err = 1.0 - (1.0 - own_err) * (1.0 - lost)

    T = np.zeros((E_, n))
    Err = np.ones((E_, n))
    edge_fail = np.zeros((E_, lay.M))
    edge_tfail = np.zeros((E_, lay.M))
    edge_kind = np.zeros((E_, lay.M), dtype=np.int8)
    attempts = np.ones((E_, lay.M))
    route_rps = rps[:, None] * topo.route_weight[None, :]
    route_err = np.ones((E_, lay.R))
    route_lat = np.zeros((E_, lay.R))
    p_T = np.zeros((E_, n, C))
    p_E = np.zeros((E_, n, C))
    cross_ms = 2.0 * topo.app.inter_zone_ms
    blocked = w.blocked
    pool_f_on = np.isfinite(dft.pool)  # [ND+1, M]
    for lvl in lay.levels:
        u = lvl.svc
        if not len(lvl.src) and not lvl.entry:
            p_T[:, u] = own_lat[:, u]
            p_E[:, u] = 1.0 - (1.0 - own_err[:, u])
        else:
            src, dst, m = lvl.src, lvl.dst, lvl.edge
            eb = beh[:, src]  # [E, me, C]
            rdy = ready[:, src]
            to = dft.timeout[eb, m[None, :, None]]
            bit = (p.b_addr_bad[:, src] >> _local(lay, src, m)[None, :, None]) & 1
            bad_addr = (bit == 1) | dft.broken[eb, m[None, :, None]]  # env or the defect
            refused = bad_addr | w.fx_broken[:, m, None] | ~has[:, dst, None]
            dropped = np.broadcast_to(blocked[:, m, None], to.shape)
            bad = refused | dropped
            pd = delay[:, src]
            tries = dft.retries[eb, m[None, :, None]] + 1
            hang = np.minimum(to, DROP_HANG_MS)
            tc = T[:, dst, None] + pd
            if cross_ms:
                zs = zone[:, src]  # [E, me, C]
                kz = k_zone[er[:, None, None], dst[None, :, None], zs]
                tc = tc + cross_ms * ((kz == 0) & has[:, dst, None])
            log_to = dft.log_timeout[eb, m[None, :, None]]
            p_to = lognorm_sf(to, tc, lvl.sig[None, :, None], log_to)
            f = np.where(bad, 1.0, 1.0 - (1.0 - Err[:, dst, None]) * (1.0 - p_to))
            ft = np.where(bad, 1.0, p_to)
            # the level runs the pool model when a ready pod of it has a bounded pool
            fin = _finite_pool(lay, pool_f_on, beh[:, u], u)  # [E, u, C]
            pooled = (fin & ready[:, u]).any(axis=(1, 2))
            if pooled.any():
                pool = dft.pool[eb, m[None, :, None]]
                held = np.minimum(tc, to) + dft.hold[eb]
                inflight = lam_p[:, src] * lvl.calls[None, :, None] * held / 1000.0
                uu = inflight / pool
                pool_f = np.where(uu > 1.0, 1.0 - 1.0 / np.maximum(uu, 1e-9), 0.0)
                pw = pooled[:, None, None]
                f = np.where(pw, 1.0 - (1.0 - f) * (1.0 - pool_f), f)
                ft = np.where(pw, 1.0 - (1.0 - ft) * (1.0 - pool_f), ft)
                tc = np.where(pw, tc * np.where(uu > 1.0, np.minimum(uu, 20.0), 1.0), tc)
            final = fmath.ipow(f, tries)
            att = expected_attempts(f, final, tries)
            call_lat = (
                np.where(refused, 1.0 + pd, np.where(dropped, hang, np.minimum(tc, to))) * att
            )
            if lvl.entry:
                _routes(
                    lay,
                    lvl,
                    own_lat,
                    own_err,
                    call_lat,
                    final,
                    ready,
                    route_lat,
                    route_err,
                    p_T,
                    p_E,
                )
            else:
                lat_e = lvl.calls[None, :, None] * call_lat
                logok = fmath.log1p(-np.minimum(final, 1 - 1e-12)) * lvl.hard[None, :, None]
                sum_lat = np.add.reduceat(lat_e, lvl.starts, axis=1)  # [E, calling, C]
                sum_ok = np.add.reduceat(logok, lvl.starts, axis=1)
                cs = lvl.calling
                p_T[:, u] = own_lat[:, u]
                p_E[:, u] = 1.0 - (1.0 - own_err[:, u])
                p_T[:, cs] = own_lat[:, cs] + sum_lat
                p_E[:, cs] = 1.0 - (1.0 - own_err[:, cs]) * fmath.exp(sum_ok)
            ks = k[:, src]
            edge_fail[:, m] = np.where(ks > 0, _mean(f, rdy, ks), 0.0)
            edge_tfail[:, m] = np.where(ks > 0, _mean(ft, rdy, ks), 0.0)
            attempts[:, m] = np.where(ks > 0, _mean(att, rdy, ks), 1.0)
            kind = np.where(
                ~(f > 1e-3), 0, np.where(refused, 1, np.where(dropped | (ft > 0.5 * f), 2, 3))
            )
            edge_kind[:, m] = np.where(rdy, kind, 0).max(axis=2).astype(np.int8)
        ku = k[:, u]
        T[:, u] = np.where(ku > 0, _mean(p_T[:, u], ready[:, u], ku), 0.0)
        Err[:, u] = np.where(ku > 0, _mean(p_E[:, u], ready[:, u], ku), 1.0)
    Err = np.where(has, Err, 1.0)
    g, e0 = topo.ingress, topo.entry
    ok = has[:, e0] & has[:, g]
    wr = topo.route_weight[None, :]
    if g == e0:
        g_lat = np.zeros(E_)
        g_err = np.zeros(E_)
    else:
        g_lat = T[:, g] - T[:, e0]
        g_err = 1.0 - (1.0 - Err[:, g]) / np.maximum(1.0 - Err[:, e0], 1e-12)
    r_err = 1.0 - (1.0 - route_err) * (1.0 - g_err[:, None])
    r_lat = route_lat + g_lat[:, None]
    slow = lognorm_sf(np.full_like(r_lat, SLOW_MS), r_lat, topo.sigma[g], LOG_SLOW)
    ent_failed = np.where(ok, (wr * r_err).sum(axis=1), 1.0)
    ent_slow = np.where(ok, (wr * (1.0 - r_err) * slow).sum(axis=1), 0.0)
    kk = np.maximum(k, 1.0)
    own_svc = np.where(ready, own_err, 0.0).sum(axis=2) / kk
    own_lat_svc = np.where(ready, own_lat, 0.0).sum(axis=2) / kk
    corrupt_svc = np.where(ready, dft.corrupt[beh], 0.0).sum(axis=2) / kk
    live = p.alive & (p.state != 4)
    pod_usage = np.where(live, p.hog, 0.0)
    pod_usage[:, :n] = np.where(ready, usage, pod_usage[:, :n])
    pod_thr = np.zeros(p.hog.shape)
    pod_thr[:, :n] = np.where(ready, np.clip((rho - 0.6) / 0.4, 0.0, 1.0), 0.0)
    return TickOut(
        lam=lam,
        served=served,
        err=np.where(has, Err, 0.0),
        lat=np.where(has, T, 0.0),
        own_err=own_svc,
        own_lat=own_lat_svc,
        corrupt=corrupt_svc,
        edge_att=lam[:, lay.ga] * topo.calls[lay.ga, lay.gb][None, :] * attempts,
        edge_fail=edge_fail,
        edge_tfail=edge_tfail,
        edge_kind=edge_kind,
        attempts=attempts,
        route_rps=route_rps,
        route_err=route_err,
        route_lat=route_lat,
        entry_rps=rps,
        entry_failed=ent_failed,
        entry_slow=ent_slow,
        pod_usage=pod_usage,
        pod_throttle=pod_thr,
    )


_LOCAL: dict[tuple[int, bytes], np.ndarray] = {}


def _local(lay, src: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Each edge's position among its caller's edges (the bit of ``Pods.b_addr_bad``)."""
    key = (id(lay), m.tobytes())
    hit = _LOCAL.get(key)
    if hit is None:
        first = np.array([np.nonzero(lay.ga == s)[0][0] for s in src], dtype=np.int64)
        hit = _LOCAL[key] = (m - first).astype(np.int64)
    return hit


_POOLED: dict[int, np.ndarray] = {}


def _finite_pool(lay, fin: np.ndarray, beh: np.ndarray, u: np.ndarray) -> np.ndarray:
    """[E, u, C] bool: the slot's behaviour has a bounded pool to some callee."""
    table = _POOLED.get(id(lay))
    if table is None:  # [ND+1, n]: per defect and service, a bounded pool on one of its edges
        table = np.zeros((fin.shape[0], lay.n), dtype=bool)
        for s in range(lay.n):
            es = np.nonzero(lay.ga == s)[0]
            if len(es):
                table[:, s] = fin[:, es].any(axis=1)
        table = _POOLED[id(lay)] = table
    return table[beh, u[None, :, None]]


def _routes(lay, lvl, own_lat, own_err, call_lat, final, ready, route_lat, route_err, p_T, p_E):
    """Per-route latency and errors at the entry point, averaged over its ready slots."""
    topo = lay.topo
    e0 = topo.entry
    rc = topo.route_calls[:, lvl.dst]  # [R, me]
    rh = topo.route_hard[:, lvl.dst]
    lat = own_lat[:, e0, None, :] + (rc[None, :, :, None] * call_lat[:, None, :, :]).sum(axis=2)
    lf = fmath.log1p(-np.minimum(final, 1 - 1e-12))
    ok = fmath.exp((lf[:, None, :, :] * (rc * rh)[None, :, :, None]).sum(axis=2))  # [E, R, C]
    err = 1.0 - (1.0 - own_err[:, e0, None, :]) * ok
    rdy = ready[:, e0][:, None, :]
    k = rdy.sum(axis=2)
    have = k > 0
    route_lat[:] = np.where(have, np.where(rdy, lat, 0.0).sum(axis=2) / np.maximum(k, 1), route_lat)
    route_err[:] = np.where(have, np.where(rdy, err, 0.0).sum(axis=2) / np.maximum(k, 1), route_err)
    wr = topo.route_weight[None, :, None]
    p_T[:, e0] = (lat * wr).sum(axis=1)
    p_E[:, e0] = (err * wr).sum(axis=1)
