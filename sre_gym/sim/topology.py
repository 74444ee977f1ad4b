"""An app's call graph compiled into arrays that the per-tick dynamics use."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sre_gym.catalogs import load_app
from sre_gym.catalogs.schema import App, parse_cpu, parse_mem


@dataclass(frozen=True)
class Topology:
    app: App
    names: tuple[str, ...]  # serving services, catalog order (index = service id)
    index: dict[str, int]
    # per service
    base_ms: np.ndarray
    cpu_ms: np.ndarray
    mem_base: np.ndarray
    stateful: np.ndarray  # keeps data in the pod (a new pod starts empty)
    warmup_s: np.ndarray  # a fresh process is slower for this long (JIT, caches) ...
    warmup_factor: np.ndarray  # ... by up to this much extra latency and CPU per request
    sigma: np.ndarray
    # edges (caller, callee) as dense matrices [n, n]
    calls: np.ndarray
    hard: np.ndarray
    timeout_ms: np.ndarray
    retries: np.ndarray
    pool: np.ndarray  # client connection pool per caller pod (inf: unlimited)
    addr_env: dict[tuple[int, int], str]
    levels: tuple[np.ndarray, ...]  # leaves first; every callee sits in an earlier level
    level_of: np.ndarray  # level index of each service (the entry point is alone in the last)
    # entry-point routes
    route_names: tuple[str, ...]
    route_paths: tuple[str, ...]
    route_weight: np.ndarray  # share of entry-point requests, sums to 1
    route_calls: np.ndarray  # [routes, n] calls per request
    route_hard: np.ndarray  # [routes, n] bool
    entry: int  # the service whose routes fan out (the router)
    ingress: (
        int  # the service users hit: the entry itself, or a pass-through gateway in front of it
    )
    callee_addr: tuple[str, ...]  # "name:port" a caller must use to reach each service

    @property
    def n(self) -> int:
        return len(self.names)


def service_port(app: App, name: str) -> int:
    s = app.service(name)
    return int(s.service_port or s.port or 0)


@functools.cache
def compile_topology(app_name: str) -> Topology:
    app = load_app(app_name)
    serving = app.serving
    names = tuple(s.name for s in serving)
    idx = {n: i for i, n in enumerate(names)}
    n = len(names)
    calls = np.zeros((n, n))
    hard = np.zeros((n, n), dtype=bool)
    timeout = np.full((n, n), np.inf)
    retries = np.zeros((n, n))
    pool = np.full((n, n), np.inf)
    addr_env: dict[tuple[int, int], str] = {}
    for e in app.edges:
        a, b = idx[e.caller], idx[e.callee]
        calls[a, b] = e.calls
        hard[a, b] = e.hard
        timeout[a, b] = e.timeout_ms
        retries[a, b] = e.retries
        if e.pool is not None:
            pool[a, b] = e.pool
        if e.addr_env:
            addr_env[(a, b)] = e.addr_env
    # Topological levels: a service's level is above all its callees'.
    level = np.zeros(n, dtype=int)
    for _ in range(n):
        changed = False
        for a in range(n):
            callees = np.nonzero(calls[a])[0]
            if len(callees):
                want = level[callees].max() + 1
                if want > level[a]:
                    level[a] = want
                    changed = True
        if not changed:
            break
    else:  # pragma: no cover - catalog validation keeps graphs acyclic
        raise ValueError(f"{app_name}: call graph has a cycle")
    w = np.array([r.weight for r in app.routes], dtype=float)
    rcalls = np.zeros((len(app.routes), n))
    rhard = np.zeros((len(app.routes), n), dtype=bool)
    for i, r in enumerate(app.routes):
        for s, c in r.calls.items():
            rcalls[i, idx[s]] = c
            rhard[i, idx[s]] = s not in r.soft
    # The entry point's calls per request are the route mix; its per-route latency and errors are
    # computed from the routes themselves.
    entry = idx[app.router or app.entrypoint]
    ingress = idx[app.entrypoint]
    calls[entry] = ((w / w.sum())[:, None] * rcalls).sum(axis=0)  # (not BLAS: see dynamics)
    level[entry] = level.max() + 1
    if ingress != entry:
        # a pass-through gateway: one call to the router per request (plus its own edges, if any)
        calls[ingress, entry] = 1.0
        hard[ingress, entry] = True
        level[ingress] = level[entry] + 1
    levels = tuple(a for k in range(level.max() + 1) if len(a := np.nonzero(level == k)[0]))
    perf = [s.perf for s in serving]
    return Topology(
        app=app,
        names=names,
        index=idx,
        base_ms=np.array([p.base_ms for p in perf]),
        cpu_ms=np.array([p.cpu_ms_per_req for p in perf]),
        mem_base=np.array([p.mem_base_mi for p in perf]),
        sigma=np.array([p.sigma for p in perf]),
        stateful=np.array([s.kind == "stateful" for s in serving]),
        warmup_s=np.array([app.startup_of(s.name).warmup_s for s in serving], dtype=float),
        warmup_factor=np.array([app.startup_of(s.name).warmup_factor for s in serving]),
        calls=calls,
        hard=hard,
        timeout_ms=timeout,
        retries=retries,
        pool=pool,
        addr_env=addr_env,
        levels=levels,
        level_of=np.array([next(i for i, lv in enumerate(levels) if k in lv) for k in range(n)]),
        route_names=tuple(r.name for r in app.routes),
        route_paths=tuple(r.path for r in app.routes),
        route_weight=w / w.sum(),
        route_calls=rcalls,
        route_hard=rhard,
        entry=entry,
        ingress=ingress,
        callee_addr=tuple(f"{nm}:{service_port(app, nm)}" for nm in names),
    )


def default_limits(app: App, name: str) -> tuple[float, float]:
    """(cpu cores, memory MiB) limits of a service as shipped."""
    r = app.service(name).resources
    return parse_cpu(r.cpu_limit), parse_mem(r.mem_limit)
