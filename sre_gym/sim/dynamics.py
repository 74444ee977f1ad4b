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
counts is added when they are written as telemetry). The arithmetic is numpy's element-wise
operations and sums and ``sre_gym.fmath``'s functions, never BLAS, LAPACK or numpy's CPU-specific
transcendental kernels, so a tick gives the same bits on every machine.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from sre_gym import fmath
from sre_gym.sim.topology import Topology

SLOW_MS = 2500.0
LOG_SLOW = float(fmath.log(SLOW_MS))
STATE_LOSS_S, STATE_LOSS_ERR = 90.0, 0.5  # a new stateful pod has lost its data: lookups miss
NEAR_ONE = 1e-3  # failure probabilities within this of 1 take the term-by-term attempts
DROP_HANG_MS = 20000.0  # a denied connection with no client deadline hangs this long
_Z95 = 1.6448536269514722


_SPREAD: dict[tuple[bool, bytes], np.ndarray] = {}


def _spread(sigma: np.ndarray, p95: bool) -> np.ndarray:
    # memoised per spread vector: the spreads are the topology's, the same every tick
    sigma = np.asarray(sigma, dtype=np.float64)
    key = (p95, sigma.tobytes())
    hit = _SPREAD.get(key)
    if hit is None:
        hit = _SPREAD[key] = fmath.exp(_Z95 * sigma if p95 else 0.5 * sigma**2)
    return hit


def p95_factor(sigma: np.ndarray) -> np.ndarray:
    """``exp(z95 sigma)``: a log-normal's 95th percentile over its median."""
    return _spread(sigma, True)


def mean_factor(sigma: np.ndarray) -> np.ndarray:
    """``exp(sigma ** 2 / 2)``: a log-normal's mean over its median."""
    return _spread(sigma, False)


def ndtr(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF (Abramowitz-Stegun 7.1.26, |error| < 1.5e-7), vectorised."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    erf = 1.0 - poly * fmath.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


_CALL_LEVELS: dict[int, tuple[Topology, list[tuple[np.ndarray, np.ndarray]]]] = {}


def offered_load(topo: Topology, ceff: np.ndarray, src: np.ndarray) -> np.ndarray:
    """Requests/s offered to each service: ``src`` plus what its callers send (``ceff[i, j]``
    calls per request of ``i``), ``lam = src + ceff.T lam`` on the acyclic call graph: levels from
    the entry down, each callee's calls added in edge order (caller, then callee). numpy's own
    arithmetic, where a LAPACK solve would round by the CPU's kernels."""
    hit = _CALL_LEVELS.get(id(topo))
    if hit is None or hit[0] is not topo:
        levels = []
        for members in reversed(topo.levels):
            svc = np.sort(members)
            a, b = np.nonzero(topo.calls[svc] > 0)
            if len(a):
                levels.append((svc[a], b))
        hit = _CALL_LEVELS[id(topo)] = (topo, levels)
    lam = np.array(src, dtype=float)
    for a, b in hit[1]:
        np.add.at(lam, b, lam[a] * ceff[a, b])
    return lam


def _pod_mean(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each service's mean of ``v`` [pods, ...] over its pods (the non-zeros of its row of ``w``):
    summed in pod order by numpy and divided by their number, where ``w @ v`` would round by the
    CPU's BLAS kernels."""
    m = w > 0
    k = m.sum(axis=1)
    if v.ndim == 1:
        return np.where(m, v[None, :], 0.0).sum(axis=1) / k
    return np.where(m[:, :, None], v[None], 0.0).sum(axis=1) / k[:, None]


def expected_attempts(f: np.ndarray, final: np.ndarray, tries: np.ndarray) -> np.ndarray:
    """Expected attempts of a call retried up to ``tries`` times that fails with probability
    ``f`` each time (``final`` = ``f**tries``): ``1 + f + ... + f**(tries - 1)``.

    The closed form ``(1 - final) / (1 - f)`` divides by ``1 - f``, which keeps only a few digits
    when a callee fails all but ~1e-12 of its calls (and under its 1e-12 guard gave far fewer than
    ``tries``): a last-bit change in ``f`` (a different summation order of a service mean, another
    machine's BLAS) then moved the attempts by up to a quarter and floored counts by one. Within
    ``NEAR_ONE`` of 1 the sum is taken term by term (Horner), whose error stays at the last bit."""
    f, final, tries = np.broadcast_arrays(f, final, tries)
    with np.errstate(divide="ignore", invalid="ignore"):
        att = np.where(f < 1.0, (1.0 - final) / np.maximum(1.0 - f, 1e-12), tries)
    near = (f < 1.0) & (f > 1.0 - NEAR_ONE)
    if near.any():
        fn, tn = f[near], tries[near]
        acc = np.ones(len(fn))
        for i in range(1, int(tn.max())):
            acc = np.where(i < tn, 1.0 + fn * acc, acc)
        att[near] = acc
    return att


def lognorm_sf(
    threshold: np.ndarray,
    median: np.ndarray,
    sigma: np.ndarray | float,
    log_threshold: np.ndarray | None = None,
) -> np.ndarray:
    """P(X > threshold) for log-normal X with the given median (inf thresholds give 0);
    ``log_threshold``: ``fmath.log(threshold)``, where the caller has it already."""
    lt = fmath.log(threshold) if log_threshold is None else log_threshold
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (lt - fmath.log(np.maximum(median, 1e-9))) / sigma
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
    corrupt: np.ndarray  # share of the service's responses carrying silently wrong data
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


@dataclass
class Inputs:
    """Everything one tick of traffic depends on (built by the cluster each tick)."""

    entry_rps: float
    prev_attempts: np.ndarray  # [n, n] expected attempts per call last tick (retry feedback)
    rows: np.ndarray  # live pod rows
    n_pod_rows: int
    pod_dep: np.ndarray  # per pod row
    pod_ready: np.ndarray
    pod_beh: np.ndarray
    pod_hog: np.ndarray  # cores burnt by a runaway process
    pod_delay: np.ndarray  # ms added by netem on the pod's interface
    pod_zone: np.ndarray
    beh_err: np.ndarray  # per behaviour
    beh_lat: np.ndarray
    beh_cpu_mult: np.ndarray
    beh_cpu_limit: np.ndarray
    beh_corrupt: np.ndarray
    beh_timeout: np.ndarray  # [n_beh, n]
    beh_retries: np.ndarray
    beh_addr_bad: np.ndarray
    beh_pool: np.ndarray
    beh_hold: np.ndarray  # extra ms a pooled connection is held per call
    blocked: np.ndarray  # [n, n] denied by a network policy
    svc_err: np.ndarray  # per service, from feature flags
    svc_lat: np.ndarray
    svc_hog: np.ndarray
    svc_broken: np.ndarray  # [n, n]
    pod_listen_age: np.ndarray | None = None  # seconds since each pod's process accepts
    # connections (negative while it boots: a ready pod without a readiness probe refuses them)
    pod_data_age: np.ndarray | None = (
        None  # seconds since a replacement pod was created (initial pods: large)
    )
    n_zones: int = 1
    inter_zone_ms: float = 0.0


@dataclass(frozen=True)
class _Level:
    """The pods of one call-graph level among those taking traffic, and what only their services
    decide: shared by every tick with the same services behind the ready pods."""

    idx: np.ndarray  # positions in the ready-pod arrays
    uniq: np.ndarray  # the level's services
    w: np.ndarray  # [services, pods] averaging weights (each row sums to 1)
    edges: slice  # its pods' used edges in the plan's edge arrays
    pi: np.ndarray  # each used edge's pod (position in the level)
    pj: np.ndarray  # and callee
    sig: np.ndarray  # the callee's latency spread
    calls: np.ndarray  # calls per request
    hard: np.ndarray  # calls per request to a hard dependency
    entry: bool  # the router's level (alone in the last)


@dataclass(frozen=True)
class _Plan:
    """The levels, leaves first, and the edges their pods use (level by level).

    A pod calls a few of the services (on Train Ticket about 3 % of the [pods, n] cells), so the
    per-edge work runs over the used edges alone and is spread back into [pods, n] matrices only
    where rows are summed or averaged. Everything is elementwise: each used cell gets the value the
    dense form gave it, and every other cell the value the dense form ends with there (no failure,
    one attempt, no time). What an edge reads that no level changes is gathered for all levels at
    once."""

    levels: tuple[_Level, ...]
    pod: np.ndarray  # each used edge's pod (position in the ready-pod arrays)
    svc: np.ndarray  # its service
    callee: np.ndarray
    order: np.ndarray  # the levels' pods, level by level
    starts: np.ndarray  # where each level begins in ``order``


# Ready pods change only when pods come and go, so most ticks repeat the last tick's set. Hits
# come from those repeats alone: counted over six Train Ticket episodes, 8 entries miss as often
# as 256 did (and 256 held about 20 MB there, when entries kept dense [pods, n] arrays).
_LEVELS: OrderedDict[tuple[str, bytes], _Plan] = OrderedDict()
_LEVELS_SIZE = 8


def _levels(topo: Topology, svc: np.ndarray) -> _Plan:
    """The plan of the ready pods whose services are ``svc`` (memoised)."""
    key = (topo.app.name, svc.tobytes())
    hit = _LEVELS.get(key)
    if hit is not None:
        _LEVELS.move_to_end(key)
        return hit
    levels, pods, callees, starts = [], [], [], []
    pl = topo.level_of[svc]
    # positions grouped by level, ascending within each (what nonzero(pl == lv) gives)
    order = np.argsort(pl, kind="stable")
    bounds = np.searchsorted(pl[order], np.arange(len(topo.levels) + 1)).tolist()
    pods_of = np.bincount(svc, minlength=topo.n)
    n_edges = 0
    for lv, members in enumerate(topo.levels):
        if bounds[lv] == bounds[lv + 1]:
            continue
        starts.append(bounds[lv])
        idx = order[bounds[lv] : bounds[lv + 1]]
        ps = svc[idx]
        uniq = members[pods_of[members] > 0]  # ascending, like np.unique(ps)
        w = np.zeros((len(uniq), len(idx)))
        w[np.searchsorted(uniq, ps), np.arange(len(idx))] = 1.0
        w /= pods_of[uniq][:, None]
        c_rows = topo.calls[ps]
        pi, pj = np.nonzero(c_rows > 0)
        c_hard = c_rows * topo.hard[ps]
        edges = slice(n_edges, n_edges + len(pi))
        n_edges += len(pi)
        pods.append(idx[pi])
        callees.append(pj)
        levels.append(
            _Level(
                idx,
                uniq,
                w,
                edges,
                pi,
                pj,
                topo.sigma[pj],
                c_rows[pi, pj],
                c_hard[pi, pj],
                ps[0] == topo.entry,
            )
        )
    pod = np.concatenate(pods) if pods else np.zeros(0, dtype=int)
    hit = _LEVELS[key] = _Plan(
        tuple(levels),
        pod,
        svc[pod],
        np.concatenate(callees) if callees else np.zeros(0, dtype=int),
        order,
        np.array(starts, dtype=int),
    )
    if len(_LEVELS) > _LEVELS_SIZE:
        _LEVELS.popitem(last=False)
    return hit


def step(topo: Topology, x: Inputs) -> TickOut:
    """One tick of traffic (see the module docstring for the model)."""
    n = topo.n
    rows = x.rows
    rr = rows[(x.pod_dep[rows] < n) & x.pod_ready[rows]]  # pod rows that take traffic
    svc = x.pod_dep[rr]
    k = np.bincount(svc, minlength=n).astype(float)
    zone = x.pod_zone[rr]
    k_zone = np.zeros((n, max(x.n_zones, 1)))
    np.add.at(k_zone, (svc, zone), 1.0)

    # offered load with last tick's retry amplification
    ceff = topo.calls * x.prev_attempts
    src = np.zeros(n)
    src[topo.ingress] = x.entry_rps
    lam = np.maximum(offered_load(topo, ceff, src), 0.0)
    has = k > 0
    served = np.where(has, lam, 0.0)

    # per ready pod: utilisation, queueing, own latency and errors
    beh, delay = x.pod_beh[rr], x.pod_delay[rr]
    hog = x.pod_hog[rr] + x.svc_hog[svc]
    lam_p = lam[svc] / np.maximum(k[svc], 1.0)
    cpu_limit = x.beh_cpu_limit[beh]
    warm = np.zeros(len(rr))
    booting = np.zeros(len(rr), dtype=bool)
    if x.pod_listen_age is not None:
        # a fresh process is slow and burns more CPU per request while its JIT and caches warm up;
        # one that has not booted yet refuses what the endpoints send it
        age = x.pod_listen_age[rr]
        booting = age < 0
        span = topo.warmup_s[svc]
        warm = np.where(span > 0, np.clip(1.0 - age / np.maximum(span, 1e-9), 0.0, 1.0), 0.0)
        warm = warm * topo.warmup_factor[svc]
    work = np.where(booting, 0.0, lam_p * topo.cpu_ms[svc] * x.beh_cpu_mult[beh] * (1.0 + warm))
    demand = work / 1000.0 + hog
    rho = demand / np.maximum(cpu_limit, 1e-6)
    usage = np.minimum(demand, cpu_limit)
    mult = 1.0 / (1.0 - np.minimum(rho, 0.98))
    over = np.maximum(rho - 1.0, 0.0)
    own_lat = (topo.base_ms[svc] + x.beh_lat[beh] + x.svc_lat[svc]) * mult + 1000.0 * over + delay
    shed = over / np.maximum(rho, 1e-9)
    own_err = 1.0 - (1.0 - x.beh_err[beh]) * (1.0 - x.svc_err[svc]) * (1.0 - shed)
    own_lat = np.where(booting, 1.0 + delay, own_lat * (1.0 + warm))
    own_err = np.where(booting, 1.0, own_err)
    if x.pod_data_age is not None:
        fresh = np.clip(1.0 - x.pod_data_age[rr] / STATE_LOSS_S, 0.0, 1.0)
        lost = np.where(topo.stateful[svc], STATE_LOSS_ERR * fresh, 0.0)
        own_err = 1.0 - (1.0 - own_err) * (1.0 - lost)

    T = np.zeros(n)
    E = np.ones(n)
    sig = topo.sigma
    p_T = np.zeros(len(rr))
    p_E = np.zeros(len(rr))
    edge_fail = np.zeros((n, n))
    edge_tfail = np.zeros((n, n))
    edge_kind = np.zeros((n, n), dtype=np.int8)
    attempts = np.ones((n, n))
    route_rps = x.entry_rps * topo.route_weight
    route_err = np.ones(len(topo.route_names))
    route_lat = np.zeros(len(topo.route_names))
    cross_ms = 2.0 * x.inter_zone_ms
    plan = _levels(topo, svc)
    eq, ej = plan.pod, plan.callee
    # what the used edges read that no level changes
    eb = beh[eq]
    e_to = x.beh_timeout[eb, ej]
    e_log_to = fmath.log(e_to)
    e_refused = x.beh_addr_bad[eb, ej] | x.svc_broken[plan.svc, ej] | ~has[ej]
    e_dropped = x.blocked[plan.svc, ej]
    e_bad = e_refused | e_dropped
    e_pd = delay[eq]
    e_tries = x.beh_retries[eb, ej] + 1
    e_hang = np.minimum(e_to, DROP_HANG_MS)
    if cross_ms:
        # topology-aware routing: a call leaves the zone only when the callee has no ready pod in it
        e_cross = cross_ms * ((k_zone[ej, zone[eq]] == 0) & has[ej])
    # levels whose pods have a bounded connection pool to any service
    pooled = (
        np.logical_or.reduceat(np.isfinite(x.beh_pool).any(axis=1)[beh[plan.order]], plan.starts)
        if plan.levels
        else np.zeros(0, dtype=bool)
    )
    if pooled.any():
        e_pool, e_hold, e_lam = x.beh_pool[eb, ej], x.beh_hold[eb], lam_p[eq]
    e_f, e_ft = np.empty(len(ej)), np.empty(len(ej))
    for lvl, pool_on in zip(plan.levels, pooled.tolist(), strict=True):
        idx, uniq, w, sl = lvl.idx, lvl.uniq, lvl.w, lvl.edges
        shape = (len(idx), n)
        if not len(lvl.pj) and not lvl.entry:
            # leaves call nothing: no time or failures from callees, one attempt per (no) call
            p_T[idx] = own_lat[idx]
            p_E[idx] = 1.0 - (1.0 - own_err[idx])
            T[uniq] = _pod_mean(w, p_T[idx])
            E[uniq] = _pod_mean(w, p_E[idx])
            attempts[uniq] = 1.0
            continue
        pi, pj = lvl.pi, lvl.pj
        to, refused, dropped, bad = e_to[sl], e_refused[sl], e_dropped[sl], e_bad[sl]
        tc = T[pj] + e_pd[sl]
        if cross_ms:
            tc = tc + e_cross[sl]
        p_to = lognorm_sf(to, tc, lvl.sig, e_log_to[sl])
        f = np.where(bad, 1.0, 1.0 - (1.0 - E[pj]) * (1.0 - p_to))
        ft = np.where(bad, 1.0, p_to)
        if pool_on:
            # connections held per pod (Little's law) against the client pool; beyond it calls queue
            # for a connection and the excess times out
            held = np.minimum(tc, to) + e_hold[sl]
            inflight = e_lam[sl] * lvl.calls * held / 1000.0
            u = inflight / e_pool[sl]
            pool_f = np.where(u > 1.0, 1.0 - 1.0 / np.maximum(u, 1e-9), 0.0)
            f = 1.0 - (1.0 - f) * (1.0 - pool_f)
            ft = 1.0 - (1.0 - ft) * (1.0 - pool_f)
            tc = tc * np.where(u > 1.0, np.minimum(u, 20.0), 1.0)
        tries = e_tries[sl]
        final = fmath.ipow(f, tries)
        att = expected_attempts(f, final, tries)
        call_lat = (
            np.where(refused, 1.0 + e_pd[sl], np.where(dropped, e_hang[sl], np.minimum(tc, to)))
            * att
        )
        e_f[sl], e_ft[sl] = f, ft
        # unused edges carry no failure, one attempt per call and no time
        f_m, ft_m, att_m = np.zeros(shape), np.zeros(shape), np.ones(shape)
        f_m[pi, pj], ft_m[pi, pj], att_m[pi, pj] = f, ft, att
        if lvl.entry:  # the router sits alone in its level
            lat_m, final_m = np.zeros(shape), np.zeros(shape)
            lat_m[pi, pj], final_m[pi, pj] = call_lat, final
            _routes(topo, idx, own_lat, own_err, lat_m, final_m, route_lat, route_err, p_T, p_E)
        else:
            lat_m, logok = np.zeros(shape), np.zeros(shape)
            lat_m[pi, pj] = lvl.calls * call_lat
            logok[pi, pj] = fmath.log1p(-np.minimum(final, 1 - 1e-12)) * lvl.hard
            p_T[idx] = own_lat[idx] + lat_m.sum(axis=1)
            p_E[idx] = 1.0 - (1.0 - own_err[idx]) * fmath.exp(logok.sum(axis=1))
        # service means over their ready pods
        T[uniq] = _pod_mean(w, p_T[idx])
        E[uniq] = _pod_mean(w, p_E[idx])
        edge_fail[uniq] = _pod_mean(w, f_m)
        edge_tfail[uniq] = _pod_mean(w, ft_m)
        attempts[uniq] = _pod_mean(w, att_m)
    kind = np.where(
        ~(e_f > 1e-3), 0, np.where(e_refused, 1, np.where(e_dropped | (e_ft > 0.5 * e_f), 2, 3))
    )
    np.maximum.at(edge_kind, (plan.svc, ej), kind.astype(np.int8))
    E = np.where(has, E, 1.0)
    g = topo.ingress
    if has[topo.entry] and has[g]:
        w = topo.route_weight
        # through a gateway, each route also pays the gateway's own time and failures
        g_lat, g_err = (
            (0.0, 0.0)
            if g == topo.entry
            else (T[g] - T[topo.entry], 1.0 - (1.0 - E[g]) / max(1.0 - E[topo.entry], 1e-12))
        )
        r_err = 1.0 - (1.0 - route_err) * (1.0 - g_err)
        r_lat = route_lat + g_lat
        ent_failed = float((w * r_err).sum())
        slow = lognorm_sf(np.full_like(r_lat, SLOW_MS), r_lat, sig[g], LOG_SLOW)
        ent_slow = float((w * (1.0 - r_err) * slow).sum())
    else:
        ent_failed, ent_slow = 1.0, 0.0
    kk = np.maximum(k, 1.0)
    own_svc = np.bincount(svc, weights=own_err, minlength=n) / kk
    own_lat_svc = np.bincount(svc, weights=own_lat, minlength=n) / kk
    corrupt_svc = np.bincount(svc, weights=x.beh_corrupt[beh], minlength=n) / kk
    pod_usage = np.zeros(x.n_pod_rows)
    pod_thr = np.zeros(x.n_pod_rows)
    pod_usage[rr] = usage
    pod_thr[rr] = np.clip((rho - 0.6) / 0.4, 0.0, 1.0)
    # pods that are up but not ready (and non-serving pods) still burn their hog
    serving = np.zeros(x.n_pod_rows, dtype=bool)
    serving[rr] = True
    idle = rows[~serving[rows]]
    pod_usage[idle] = x.pod_hog[idle]
    return TickOut(
        lam=lam,
        served=served,
        err=np.where(has, E, 0.0),
        lat=np.where(has, T, 0.0),
        own_err=own_svc,
        own_lat=own_lat_svc,
        corrupt=corrupt_svc,
        edge_att=lam[:, None] * topo.calls * attempts,
        edge_fail=edge_fail,
        edge_tfail=edge_tfail,
        edge_kind=edge_kind,
        attempts=attempts,
        route_rps=route_rps,
        route_err=route_err,
        route_lat=route_lat,
        entry_rps=x.entry_rps,
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
    lf = fmath.log1p(-np.minimum(final, 1 - 1e-12))  # [P, n]
    ok = fmath.exp((lf[:, None, :] * rc[None, :, :] * rh[None, :, :]).sum(axis=2))
    err = 1.0 - (1.0 - own_err[fe_idx])[:, None] * ok
    route_lat[:] = lat.mean(axis=0)
    route_err[:] = err.mean(axis=0)
    w = topo.route_weight
    p_T[fe_idx] = (lat * w[None, :]).sum(axis=1)
    p_E[fe_idx] = (err * w[None, :]).sum(axis=1)
