"""The arena's Prometheus: what a scrape every 15 s of the substrate's exporters would have stored,
queried with the project's PromQL engine (the marathon's ``query_metrics`` semantics: an instant
query now, or a range query ending now).

Series, each labelled by ``service`` (the lane's entry service) and ``lane`` where it applies:
- ``arena_requests_total{code="ok"|"error"}``: counters of finished requests;
- ``arena_request_duration_seconds{quantile="0.5"|"0.99"}``: the latency of the scrape interval
  (a summary: absent when nothing finished);
- ``arena_db_pool_wait_seconds``: the longest checkout wait of a service's pool in the interval;
- ``arena_queue_jobs{queue}``: jobs waiting in a queue; ``arena_queue_workers{queue}``: worker
  processes working on it (rq-exporter's ``rq_workers``); ``arena_db_checkpoint_active``;
- ``up``: a service serving (0 while a store restarts or a Deployment is scaled to zero);
- per pod (``service``, ``pod``): ``arena_pod_start_time_seconds`` and
  ``arena_pod_starts_total`` (a rolling restart shows pod by pod), and ``arena_db_pool_max`` (the
  pool size plus overflow the pod started with), and for the queue's worker pods
  ``kube_pod_container_status_restarts_total`` (kube-state-metrics: a crash-looping worker's
  restarts).

The store is built from the world's recorded seconds, only up to now, and only when queried, so
a query never changes a run; it grows as time passes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sre_gym.sim.arena.dynamics import weighted_quantile
from sre_gym.telemetry.promql import Engine, PromQLError
from sre_gym.telemetry.tsdb import TSDB

SCRAPE_S = 15


class QueryError(ValueError):
    """A query the engine refuses."""


class _Store:
    def __init__(self, world: Any) -> None:
        self.tsdb = TSDB(t0=0, tick_s=SCRAPE_S, capacity=world.horizon // SCRAPE_S + 2)
        self.engine = Engine(self.tsdb)
        self.written = 0  # ticks written
        self.fams: dict[str, Any] = {}

    def fam(self, name: str, labels: tuple[str, ...]) -> Any:
        if name not in self.fams:
            self.fams[name] = self.tsdb.family(name, labels)
        return self.fams[name]


def _sync(world: Any) -> _Store:
    st = world.__dict__.get("_metrics")
    if st is None:
        st = world.__dict__["_metrics"] = _Store(world)
    last = int(world.now) // SCRAPE_S  # the last tick whose interval has fully happened
    lanes = world.lanes
    entry = [world.sub.lanes[x].services[0] if world.sub.lanes[x].services else x for x in lanes]
    req = st.fam("arena_requests_total", ("service", "lane", "code"))
    dur = st.fam("arena_request_duration_seconds", ("service", "lane", "quantile"))
    pools = st.fam("arena_db_pool_wait_seconds", ("service",))
    queue = st.fam("arena_queue_jobs", ("queue",))
    working = st.fam("arena_queue_workers", ("queue",))
    restarts = st.fam("kube_pod_container_status_restarts_total", ("service", "pod"))
    ckpt = st.fam("arena_db_checkpoint_active", ())
    up = st.fam("up", ("service",))
    pod_start = st.fam("arena_pod_start_time_seconds", ("service", "pod"))
    pod_starts = st.fam("arena_pod_starts_total", ("service", "pod"))
    pod_pool = st.fam("arena_db_pool_max", ("service", "pod"))
    for k in range(st.written, last + 1):
        t1 = k * SCRAPE_S
        t0 = max(0, t1 - SCRAPE_S)
        ok = world.rec["ok"][:, :t1].sum(axis=1)
        err = world.rec["err"][:, :t1].sum(axis=1)
        for i, lane in enumerate(lanes):
            rows = req.rows_for([(entry[i], lane, "ok"), (entry[i], lane, "error")])
            st.tsdb.write(req, k, rows, np.array([ok[i], err[i]]))
            w = world.rec["ok"][i, t0:t1]
            if t1 > t0 and w.sum() > 0:
                q = [
                    weighted_quantile(world.rec[p][i, t0:t1], w, x) / 1000.0
                    for p, x in (("p50", 0.5), ("p99", 0.99))
                ]
                rows = dur.rows_for([(entry[i], lane, "0.5"), (entry[i], lane, "0.99")])
                st.tsdb.write(dur, k, rows, np.array(q))
        for svc, wait in world.rec_pool_wait.items():
            v = float(wait[t0:t1].max()) if t1 > t0 else 0.0
            st.tsdb.write(pools, k, pools.rows_for([(svc,)]), np.array([v]))
        if world.sub.worker_procs:
            b = float(world.rec_backlog[t1 - 1]) if t1 > 0 else 0.0
            st.tsdb.write(queue, k, queue.rows_for([("redis-queue",)]), np.array([round(b)]))
            n = float(world.rec_working[t1 - 1]) if t1 > 0 else 0.0
            st.tsdb.write(working, k, working.rows_for([("redis-queue",)]), np.array([n]))
        if world.workers is not None:
            _restarts(world, st, k, t1, restarts)
        if "db-maintenance" in world.sub.services:
            v = float(world.rec_ckpt[t0:t1].any()) if t1 > t0 else 0.0
            st.tsdb.write(ckpt, k, ckpt.rows_for([()]), np.array([v]))
        for j, svc in enumerate(world.sub.services):
            v = float(world.rec_up[j, t1 - 1]) if t1 > 0 else 1.0
            st.tsdb.write(up, k, up.rows_for([(svc,)]), np.array([v]))
        _pods(world, st, k, t1, pod_start, pod_starts, pod_pool)
        st.tsdb.commit(k)
    st.written = max(st.written, last + 1)
    return st


def _pods(world: Any, st: _Store, k: int, t1: int, start: Any, starts: Any, pool: Any) -> None:
    """Per-pod series at scrape ``k``: each replica's last start before ``t1``."""
    last: dict[tuple[str, int], tuple[int, int, dict[str, Any]]] = {}
    for t, svc, slot, vals in world.pod_starts:
        if t <= t1:
            n = last.get((svc, slot), (0, -1, {}))[1] + 1
            last[(svc, slot)] = (t, n, vals)
    for (svc, slot), (t, n, vals) in sorted(last.items()):
        row = [(svc, f"{svc}-{slot}")]
        st.tsdb.write(start, k, start.rows_for(row), np.array([float(t)]))
        st.tsdb.write(starts, k, starts.rows_for(row), np.array([float(n)]))
        p = world.sub.pools.get(svc)
        if p is not None:
            size = vals.get(p.size_key, world.config[p.size_key])
            over = vals.get(p.overflow_key, world.config[p.overflow_key])
            st.tsdb.write(pool, k, pool.rows_for(row), np.array([float(size) + float(over)]))


def _restarts(world: Any, st: _Store, k: int, t1: int, fam: Any) -> None:
    """Container restarts of each worker pod up to ``t1``."""
    svc = world.workers.spec.service
    n = [0] * len(world.workers.pods)
    for t, i, kind, _ in world.workers.log:
        if kind == "start" and t < t1 and i < len(n):
            n[i] += 1
    for i, v in enumerate(n):
        st.tsdb.write(fam, k, fam.rows_for([(svc, f"{svc}-{i}")]), np.array([float(v)]))


def query(
    world: Any, q: str, range_s: int | None, step_s: int, at: float | None = None
) -> dict[str, Any]:
    """Prometheus ``/api/v1/query`` (or ``query_range``) ``data`` at ``at`` (default: now; never
    later than now)."""
    st = _sync(world)
    now = float(world.now) if at is None else min(float(at), float(world.now))
    try:
        if range_s is None:
            return st.engine.instant(q, now)
        return st.engine.range(q, max(0.0, now - range_s), now, step_s)
    except PromQLError as e:
        raise QueryError(str(e)) from None
