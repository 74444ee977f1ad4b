"""Counters and samples written each tick, ported from ``sim/metrics.py:MetricWriter.write``.

The same values from the same draws: Poisson-like count noise from the episode's pre-drawn normals,
stochastic rounding with its pre-drawn uniforms, histogram buckets from the log-normal CDF, route
counters, kube-state-metrics from the slots and cAdvisor's CPU and memory counters. Samples go
into the rings of ``series.py`` at column ``clock % W`` (NaN is an absent series, as in the TSDB):
every row of a batch writes the same column, so a rule window is the same slice in every row.
Also here: the per-tick entry record and the probes' SLI window (``probes.Window.push``).

Differs from the full simulator: nothing in the values (tests/twin/conformance/test_telemetry.py);
families nothing reads are not written (``series.py``).
"""

from __future__ import annotations

import numpy as np

from sre_gym import fmath
from sre_gym.clock import TICK_S
from sre_gym.sim.dynamics import ndtr, p95_factor
from sre_gym.sim.metrics import LOG_LE
from sre_gym.sim.pods import BACKOFF, IMAGE_WAIT, NODE_GRACE_S, PENDING, RUNNING, TERMINATING
from sre_gym.twin.dynamics import TickOut
from sre_gym.twin.episode import telemetry_draws
from sre_gym.twin.series import WI, WL, WP, series_index
from sre_gym.twin.state import TwinParams, TwinState


def deployment_status(prm: TwinParams, s: TwinState) -> dict[str, np.ndarray]:
    """``SimCluster.deployment_status`` per episode: each ``[E, D]`` float."""
    p, dp = s.pods, s.deps
    live = p.alive & (p.state != TERMINATING)
    pos = dp.n_rev - 1
    e, d = np.indices(pos.shape)
    cur = dp.rv_num[e, d, pos]
    replicas = live.sum(axis=2).astype(float)
    available = (live & p.ready).sum(axis=2).astype(float)
    updated = (live & (p.rev == cur[:, :, None])).sum(axis=2).astype(float)
    spec = dp.replicas.astype(float)
    gen = dp.generation.astype(float)
    return {
        "spec_replicas": spec,
        "status_replicas": replicas,
        "status_replicas_available": available,
        "status_replicas_unavailable": np.maximum(spec - available, 0.0),
        "status_replicas_updated": updated,
        "metadata_generation": gen,
        "status_observed_generation": gen,
    }


def _latency_cdf(prm: TwinParams, out: TickOut) -> np.ndarray:
    topo = prm.layout.topo
    sig = topo.sigma[None, :, None]
    with np.errstate(divide="ignore"):
        z = (LOG_LE[None, None, :] - fmath.log(np.maximum(out.lat, 1e-6))[:, :, None]) / sig
    cdf = ndtr(z)
    e = topo.entry
    if out.route_lat.shape[1]:
        zr = (
            LOG_LE[None, None, :] - fmath.log(np.maximum(out.route_lat, 1e-6))[:, :, None]
        ) / topo.sigma[e]
        w = out.route_rps / np.maximum(out.route_rps.sum(axis=1, keepdims=True), 1e-9)
        cdf[:, e] = (w[:, :, None] * ndtr(zr)).sum(axis=1)
    return np.concatenate([cdf, np.ones(cdf.shape[:2] + (1,))], axis=2)


def record(
    prm: TwinParams, s: TwinState, out: TickOut, t: np.ndarray, tick: np.ndarray
) -> TwinState:
    """Write every series for ``tick`` [E] at time ``t`` [E] (``MetricWriter.write``)."""
    lay = prm.layout
    topo = lay.topo
    si = series_index(lay)
    tel, p = s.tel, s.pods
    er = np.arange(s.E)
    n, m = lay.n, lay.M
    dt = float(TICK_S)
    noise, unif = telemetry_draws(lay, s.ep, tick)  # [E, 2n], [E, 3n + M]
    clock = int(s.ep.clock[0])
    col_l = clock % WL
    long_ = tel.long  # (every long series is written each tick, so none needs clearing first)

    def put(rows: np.ndarray, values: np.ndarray) -> None:
        long_[:, rows.reshape(-1), col_l] = values.reshape(s.E, -1)

    mean = out.served * dt
    cnt = np.maximum(mean + np.sqrt(mean) * noise[:, :n], 0.0)
    cnt = np.floor(cnt + unif[:, :n])
    err = 1.0 - (1.0 - out.err) * (1.0 - s.ep.background_error[:, None])
    e_mean = cnt * err
    errs = np.floor(
        np.clip(e_mean + np.sqrt(e_mean * (1 - err)) * noise[:, n : 2 * n], 0, None)
        + unif[:, n : 2 * n]
    )
    errs = np.minimum(errs, cnt)
    tel.c_ok += cnt - errs
    tel.c_err += errs
    put(si.calls_ok, tel.c_ok)
    put(si.calls_err, tel.c_err)
    cdf = _latency_cdf(prm, out)
    tel.c_bucket += np.floor(cnt[:, :, None] * cdf + unif[:, 2 * n : 3 * n, None])
    tel.c_bucket[:] = np.maximum.accumulate(tel.c_bucket, axis=2)
    tel.c_bucket[:, :, -1] = np.maximum(tel.c_bucket[:, :, -1], tel.c_ok + tel.c_err)
    put(si.bucket, tel.c_bucket)
    put(si.hcount, tel.c_bucket[:, :, -1])
    att = out.edge_att * dt
    u = unif[:, 3 * n : 3 * n + m]
    e_att = np.floor(att + u)
    tel.c_edge += e_att
    tel.c_edge_fail += np.floor(e_att * out.edge_fail + u)
    tel.c_edge_fail[:] = np.minimum(tel.c_edge_fail, tel.c_edge)
    put(si.graph, tel.c_edge)
    put(si.slo, np.broadcast_to(_slo(prm), (s.E, n)))
    tel.c_integrity += np.floor(cnt * out.corrupt + unif[:, :n])
    put(si.integrity, tel.c_integrity)
    put(si.graph_fail, tel.c_edge_fail)
    # entry routes
    if lay.R:
        g, e0 = topo.ingress, topo.entry
        fail = np.clip(out.route_err, 0.0, 1.0)
        down = (out.served[:, g] <= 0) | (out.served[:, e0] <= 0)
        if g != e0:
            g_err = 1.0 - (1.0 - out.err[:, g]) / np.maximum(1.0 - out.err[:, e0], 1e-12)
            fail = 1.0 - (1.0 - fail) * (1.0 - np.clip(g_err, 0.0, 1.0)[:, None])
        fail = np.where(down[:, None], 1.0, fail)
        nreq = out.route_rps * dt
        tel.c_route[:, :, 0] += nreq * (1.0 - fail)
        tel.c_route[:, :, 1] += nreq * fail
        put(si.route, np.floor(tel.c_route))
    # kube-state-metrics: deployments and nodes
    st = deployment_status(prm, s)
    from sre_gym.twin.series import DEP_FAMS

    for j, k in enumerate(DEP_FAMS):
        put(si.dep[j], st[k])
    ready_nodes = s.world.node_ready.astype(float)
    put(si.node_cond[:, 0], ready_nodes)
    put(si.node_cond[:, 1], np.zeros(ready_nodes.shape))
    put(si.node_cond[:, 2], 1.0 - ready_nodes)
    put(si.node_labels, np.ones(ready_nodes.shape))
    tainted = ~s.world.node_ready & (t[:, None] - s.world.node_down >= NODE_GRACE_S)
    put(si.node_taint, np.where(tainted, 1.0, np.nan))
    if len(si.lag):
        put(si.lag, np.floor(s.world.lag))
    # pods (alive, terminating included), by series row
    pod, inst = tel.pod, tel.inst
    cp, ci = clock % WP, clock % WI
    # clear the column of the samples written a ring ago: only series rows written since then
    # (``sr_last``) can hold any, the others' columns were cleared when they came round before
    last = tel.sr_last.reshape(s.E, -1)
    for ring, col, depth, rows_of in (
        (pod, cp, WP, si.pod_of_srow),
        (inst, ci, WI, si.inst_of_srow),
    ):
        e0, j0 = np.nonzero(last >= (tick - depth)[:, None])
        ring[e0[:, None], rows_of[j0], col] = np.nan
    e, d, c = np.nonzero(p.alive)
    row = d * lay.SR + p.srow[e, d, c]
    st_a = p.state[e, d, c]

    def put_p(handle: np.ndarray, values: np.ndarray, sel=slice(None)) -> None:
        pod[e[sel], handle[row[sel]], cp] = values

    def put_i(handle: np.ndarray, values: np.ndarray, sel=slice(None)) -> None:
        inst[e[sel], handle[row[sel]], ci] = values

    ready = p.ready[e, d, c].astype(float)
    put_i(si.i_ready[:, 0], ready)
    put_i(si.i_ready[:, 1], 1.0 - ready)
    put_p(si.p_restarts, p.restarts[e, d, c].astype(float))
    back = st_a == BACKOFF
    put_p(si.p_crashloop, np.ones(back.sum()), back)
    pend = st_a == PENDING
    put_i(si.i_waiting[:, 0], np.ones(pend.sum()), pend)
    iw = st_a == IMAGE_WAIT
    first = p.pulls[e, d, c] % 4 == 1
    put_i(si.i_waiting[:, 1], np.ones((iw & first).sum()), iw & first)
    put_i(si.i_waiting[:, 2], np.ones((iw & ~first).sum()), iw & ~first)
    oom = p.last_term[e, d, c] == 2
    put_i(si.i_oom, np.ones(oom.sum()), oom)
    put_i(si.i_limit_mem, p.b_mem[e, d, c] * 2**20)
    run3 = p.alive & (p.state == RUNNING)
    if run3.any():
        p.cpu_total += np.where(run3, out.pod_usage * dt, 0.0)
        p.periods += np.where(run3, 10.0 * dt, 0.0)
        p.throttled += np.where(run3, np.floor(10.0 * dt * out.pod_throttle), 0.0)
        run = st_a == RUNNING
        put_p(si.p_mem, np.floor(p.mem[e, d, c] * 2**20)[run], run)
        put_p(si.p_periods, p.periods[e, d, c][run], run)
        put_p(si.p_throttled, p.throttled[e, d, c][run], run)
    tel.sr_last[e, d, p.srow[e, d, c]] = tick[e]
    tel.entry[er, np.minimum(tick, tel.entry.shape[1] - 1)] = np.stack(
        [out.entry_rps, out.entry_failed, out.entry_slow], axis=1
    )
    return s


def push_window(prm: TwinParams, s: TwinState, out: TickOut) -> None:
    """The probes' SLI window (``probes.Window.push``): this tick's sums, a ring of 4."""
    tel = s.tel
    er = np.arange(s.E)
    i = tel.w_k % 4
    sig = prm.layout.topo.sigma
    tel.w_served[er, i] = out.served
    tel.w_errs[er, i] = out.own_err * out.served
    tel.w_lat[er, i] = out.own_lat * p95_factor(sig)[None, :] * out.served
    tel.w_bad[er, i] = out.corrupt * out.served
    tel.w_att[er, i] = out.edge_att
    tel.w_tfail[er, i] = out.edge_tfail * out.edge_att
    tel.w_k += 1


def _slo(prm: TwinParams) -> np.ndarray:
    topo = prm.layout.topo
    return np.array([topo.app.service(nm).slo_p95_ms for nm in topo.names])
