"""Request traffic, capacity and propagation for one tick, vectorised over pods, services and edges.

Model, per tick:
- offered load: entry-point requests/s times the transitive call matrix, where each edge's calls are
  multiplied by the expected attempts of its client retries (from the previous tick's failure rate, so
  retry storms feed back over time rather than inside one tick);
- capacity: load spreads evenly over a service's ready pods; CPU demand (requests x CPU per request,
  plus any hog) against the pod's CPU limit gives utilisation, queueing delay and, beyond saturation,
  shed requests;
- propagation, leaves first: a caller's latency adds its callees' (capped by its timeouts) and its
  error rate compounds its hard dependencies' failures; broken addresses and services without ready
  endpoints fail fast, denied edges hang until the caller's timeout;
- the entry point is computed per route; a request is degraded if it fails or is slower than 2.5 s.
Latencies are log-normal with the service's spread; all outputs are expected values (the noise of
counts is added when they are written as telemetry).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym.sim.topology import Topology

SLOW_MS = 2500.0
DROP_HANG_MS = 20000.0  # a denied connection with no client deadline hangs this long
_Z95 = 1.6448536269514722


def ndtr(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz-Stegun 7.1.26, |error| < 1.5e-7), vectorised."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


def lognorm_sf(threshold: np.ndarray, median: np.ndarray, sigma: np.ndarray | float) -> np.ndarray:
    """P(X > threshold) for log-normal X with the given median (inf thresholds give 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (np.log(threshold) - np.log(np.maximum(median, 1e-9))) / sigma
    out = 1.0 - ndtr(np.where(np.isfinite(z), z, 50.0))
    return np.where(np.isinf(threshold), 0.0, out)


@dataclass
class TickOut:
    lam: np.ndarray  # offered requests/s per service
    served: np.ndarray  # served requests/s per service (0 without ready pods)
    err: np.ndarray  # error share of served requests
    lat: np.ndarray  # median latency, ms
    own_err: np.ndarray  # share failing inside the service itself (not from callees)
    own_lat: np.ndarray  # median time spent in the service itself (not in callees), ms
    edge_att: np.ndarray  # [n, n] attempts/s caller -> callee
    edge_fail: np.ndarray  # [n, n] per-attempt failure probability
    edge_tfail: np.ndarray  # [n, n] per-attempt transport failure (refused, dropped, timed out)
    edge_kind: np.ndarray  # [n, n] 0 ok, 1 refused, 2 timeout or dropped, 3 callee error
    attempts: np.ndarray  # [n, n] expected attempts per call (retries)
    route_rps: np.ndarray
    route_err: np.ndarray
    route_lat: np.ndarray
    entry_rps: float
    entry_failed: float  # share of entry requests failing
    entry_slow: float  # share succeeding but slower than 2.5 s
    pod_usage: np.ndarray  # cores per pod row (0 where not serving)
    pod_throttle: np.ndarray  # share of CFS periods throttled


def step(
    topo: Topology,
    *,
    entry_rps: float,
    prev_attempts: np.ndarray,
    rows: np.ndarray,
    pod_dep: np.ndarray,
    pod_ready: np.ndarray,
    pod_prof: np.ndarray,
    pod_hog: np.ndarray,
    pod_delay: np.ndarray,
    prof_err: np.ndarray,
    prof_lat: np.ndarray,
    prof_cpu_mult: np.ndarray,
    prof_cpu_limit: np.ndarray,
    prof_timeout: np.ndarray,
    prof_retries: np.ndarray,
    prof_addr_bad: np.ndarray,
    blocked: np.ndarray,
    n_pod_rows: int,
) -> TickOut:
    """One tick of traffic. ``rows`` are live pod rows; ``pod_*`` arrays are indexed by pod row."""
    n = topo.n
    rr = rows[(pod_dep[rows] < n) & pod_ready[rows]]  # pod rows that take traffic
    svc = pod_dep[rr]
    k = np.bincount(svc, minlength=n).astype(float)

    # offered load with last tick's retry amplification
    ceff = topo.calls * prev_attempts
    src = np.zeros(n)
    src[topo.entry] = entry_rps
    lam = np.linalg.solve((np.eye(n) - ceff).T, src)
    lam = np.maximum(lam, 0.0)
    has = k > 0
    served = np.where(has, lam, 0.0)

    # per ready pod: utilisation, queueing, own latency and errors
    prof, hog, delay = pod_prof[rr], pod_hog[rr], pod_delay[rr]
    lam_p = lam[svc] / np.maximum(k[svc], 1.0)
    cpu_limit = prof_cpu_limit[prof]
    demand = lam_p * topo.cpu_ms[svc] * prof_cpu_mult[prof] / 1000.0 + hog
    rho = demand / np.maximum(cpu_limit, 1e-6)
    usage = np.minimum(demand, cpu_limit)
    mult = 1.0 / (1.0 - np.minimum(rho, 0.98))
    over = np.maximum(rho - 1.0, 0.0)
    own_lat = (topo.base_ms[svc] + prof_lat[prof]) * mult + 1000.0 * over + delay
    own_err = 1.0 - (1.0 - prof_err[prof]) * (1.0 - over / np.maximum(rho, 1e-9))

    T = np.zeros(n)
    E = np.ones(n)
    sig = topo.sigma
    p_T = np.zeros(len(rr))
    p_E = np.zeros(len(rr))
    edge_fail = np.zeros((n, n))
    edge_tfail = np.zeros((n, n))
    edge_kind = np.zeros((n, n), dtype=np.int8)
    attempts = np.ones((n, n))
    route_rps = entry_rps * topo.route_weight
    route_err = np.ones(len(topo.route_names))
    route_lat = np.zeros(len(topo.route_names))
    pl = topo.level_of[svc]
    for lv in range(len(topo.levels)):
        idx = np.nonzero(pl == lv)[0]
        if not len(idx):
            continue
        ps, pp, pd = svc[idx], prof[idx], delay[idx]
        to = prof_timeout[pp]  # [P, n]
        refused = prof_addr_bad[pp] | ~has[None, :]
        dropped = blocked[ps]
        tc = T[None, :] + pd[:, None]
        p_to = lognorm_sf(to, tc, sig[None, :])
        bad = refused | dropped
        f = np.where(bad, 1.0, 1.0 - (1.0 - E[None, :]) * (1.0 - p_to))
        ft = np.where(bad, 1.0, p_to)
        r = prof_retries[pp]
        att = np.where(f < 1.0, (1.0 - f ** (r + 1)) / np.maximum(1.0 - f, 1e-12), r + 1.0)
        final = f ** (r + 1)
        hang = np.minimum(to, DROP_HANG_MS)
        call_lat = (
            np.where(refused, 1.0 + pd[:, None], np.where(dropped, hang, np.minimum(tc, to))) * att
        )
        kind = np.where(
            refused, 1, np.where(dropped | (p_to > 0.5 * f), 2, np.where(f > 1e-3, 3, 0))
        )
        if ps[0] == topo.entry:  # the entry point sits alone in the last level
            _routes(topo, idx, own_lat, own_err, call_lat, final, route_lat, route_err, p_T, p_E)
        else:
            c_rows = topo.calls[ps]
            p_T[idx] = own_lat[idx] + (c_rows * call_lat).sum(axis=1)
            logok = np.log1p(-np.minimum(final, 1 - 1e-12)) * (c_rows * topo.hard[ps])
            p_E[idx] = 1.0 - (1.0 - own_err[idx]) * np.exp(logok.sum(axis=1))
        # service means over their ready pods
        uniq, inv = np.unique(ps, return_inverse=True)
        w = np.zeros((len(uniq), len(idx)))
        w[inv, np.arange(len(idx))] = 1.0
        w /= w.sum(axis=1, keepdims=True)
        T[uniq] = w @ p_T[idx]
        E[uniq] = w @ p_E[idx]
        edge_fail[uniq] = w @ f
        edge_tfail[uniq] = w @ ft
        attempts[uniq] = w @ att
        np.maximum.at(edge_kind, ps, kind.astype(np.int8))
    E = np.where(has, E, 1.0)
    if has[topo.entry]:
        w = topo.route_weight
        ent_failed = float((w * route_err).sum())
        slow = lognorm_sf(np.full_like(route_lat, SLOW_MS), route_lat, sig[topo.entry])
        ent_slow = float((w * (1.0 - route_err) * slow).sum())
    else:
        ent_failed, ent_slow = 1.0, 0.0
    own_svc = np.zeros(n)
    own_lat_svc = np.zeros(n)
    if len(rr):
        own_svc = np.bincount(svc, weights=own_err, minlength=n) / np.maximum(k, 1.0)
        own_lat_svc = np.bincount(svc, weights=own_lat, minlength=n) / np.maximum(k, 1.0)
    pod_usage = np.zeros(n_pod_rows)
    pod_thr = np.zeros(n_pod_rows)
    pod_usage[rr] = usage
    pod_thr[rr] = np.clip((rho - 0.6) / 0.4, 0.0, 1.0)
    # pods that are up but not ready (or the load generator) still burn their hog
    idle = rows[~np.isin(rows, rr)]
    pod_usage[idle] = pod_hog[idle]
    return TickOut(
        lam=lam,
        served=served,
        err=np.where(has, E, 0.0),
        lat=np.where(has, T, 0.0),
        own_err=own_svc,
        own_lat=own_lat_svc,
        edge_att=lam[:, None] * topo.calls * attempts,
        edge_fail=edge_fail,
        edge_tfail=edge_tfail,
        edge_kind=edge_kind,
        attempts=attempts,
        route_rps=route_rps,
        route_err=route_err,
        route_lat=route_lat,
        entry_rps=entry_rps,
        entry_failed=ent_failed,
        entry_slow=ent_slow,
        pod_usage=pod_usage,
        pod_throttle=pod_thr,
    )


def _routes(
    topo, fe_idx, own_lat, own_err, call_lat, final, route_lat, route_err, p_T, p_E
) -> None:
    """Per-route latency and errors at the entry point, averaged over its ready pods."""
    if not len(fe_idx):
        return
    rc = topo.route_calls  # [R, n]
    rh = topo.route_hard
    lat = own_lat[fe_idx][:, None] + (rc[None, :, :] * call_lat[:, None, :]).sum(axis=2)
    lf = np.log1p(-np.minimum(final, 1 - 1e-12))  # [P, n]
    ok = np.exp((lf[:, None, :] * rc[None, :, :] * rh[None, :, :]).sum(axis=2))
    err = 1.0 - (1.0 - own_err[fe_idx])[:, None] * ok
    route_lat[:] = lat.mean(axis=0)
    route_err[:] = err.mean(axis=0)
    w = topo.route_weight
    p_T[fe_idx] = (lat * w[None, :]).sum(axis=1)
    p_E[fe_idx] = (err * w[None, :]).sum(axis=1)
