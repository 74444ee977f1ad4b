"""The static layout of one app: shapes, slots and the tables the per-tick kernels gather from.

Ports the shape side of ``sim/topology.py:compile_topology`` and of ``SimCluster.__init__`` (the
deployments, their boot and probe settings, nodes and zones, edges, routes, autoscalers, queues)
into arrays the twin indexes by position. Pods live in *slots*: ``C`` per deployment, so a pod's
deployment is its slot's block (``[E, D, C]`` arrays) and every per-deployment reduction is over a
fixed axis. Nothing here depends on an episode: a ``Layout`` is built once per (app, capacity) and
cached.

Differs from the full simulator: the full simulator keeps pod rows in creation order without a
bound; the twin has ``C`` slots per deployment (a pod that finds no free slot waits, counted in
``TwinState.overflow``), and levels of the call graph are fixed per app rather than planned per
ready-pod set (services without ready pods are masked out).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sre_gym.catalogs import hard_callers, load_catalog
from sre_gym.catalogs.schema import NOT_SERVING, parse_cpu, parse_mem
from sre_gym.sim.topology import Topology, compile_topology


@dataclass(frozen=True)
class Level:
    """One level of the call graph (leaves first) and the edges its services call."""

    svc: np.ndarray  # [u] services of the level, ascending
    src: np.ndarray  # [m] each edge's caller (service index), grouped by caller, ascending
    dst: np.ndarray  # [m] its callee
    edge: np.ndarray  # [m] its index among the app's edges (``Layout.ga``/``gb``)
    calls: np.ndarray  # [m] calls per request
    hard: np.ndarray  # [m] calls per request to a hard dependency
    sig: np.ndarray  # [m] the callee's latency spread
    starts: np.ndarray  # [u_calling] where each calling service's edges begin (reduceat)
    calling: np.ndarray  # [u_calling] the services with edges, ascending
    entry: bool  # the router's level (alone in the last)


@dataclass(frozen=True, eq=False)
class Layout:
    """Shapes and static tables of one app (see the module docstring)."""

    app: str
    topo: Topology
    n: int  # serving services
    D: int  # deployments: serving services first, then the others in catalog order
    C: int  # slots per deployment
    SR: int  # series rows per deployment (a pod's series keep their row for a rule window)
    K: int  # nodes
    Z: int  # zones
    M: int  # edges of the call graph
    R: int  # entry routes
    dep_names: tuple[str, ...]
    dep_index: dict[str, int]
    dep_container: tuple[str, ...]
    dep_replicas: np.ndarray  # [D] int, catalog replicas
    dep_boot: np.ndarray  # [D] s from container start to accepting connections
    dep_image_mb: np.ndarray  # [D]
    dep_probed: np.ndarray  # [D] bool, has a readiness probe
    dep_probe_delay: np.ndarray  # [D] s
    dep_probe_period: np.ndarray  # [D] s
    dep_probe_port: np.ndarray  # [D] int, the readiness probe's port (-1: none)
    dep_mem_base: np.ndarray  # [D] MiB
    dep_cpu0: np.ndarray  # [D] catalog CPU limit, cores
    dep_mem0: np.ndarray  # [D] catalog memory limit, MiB
    dep_cpu_request: np.ndarray  # [D] cores
    dep_kind: tuple[str, ...]
    nodes: tuple[str, ...]
    zones: tuple[str, ...]  # sorted, as SimCluster.zone_names
    node_zone: np.ndarray  # [K] zone index of each node
    ga: np.ndarray  # [M] caller of each edge (np.nonzero(topo.calls) order)
    gb: np.ndarray  # [M] callee
    edge_of: np.ndarray  # [n, n] edge index, -1 where no calls
    dep_edges: np.ndarray  # [D, DEG] each deployment's edges, callees ascending (-1 pad)
    levels: tuple[Level, ...]
    hard_reach: np.ndarray  # [n, n] bool: [d, s] s reaches d through hard dependencies (itself too)
    hpa_dep: np.ndarray  # [H] deployment of each autoscaler
    hpa_min: np.ndarray  # [H]
    hpa_max: np.ndarray  # [H]
    hpa_target: np.ndarray  # [H] target CPU %
    hpa_request: np.ndarray  # [H] CPU request per pod, cores
    queue_names: tuple[tuple[str, str], ...]  # (topic, consumer group) per lag entry
    entities: tuple[str, ...]  # deployments, then nodes, then zones: what alerts and scopes name
    base_rps: float

    @property
    def S(self) -> int:
        """Slots in all."""
        return self.D * self.C

    @property
    def U(self) -> int:
        """Entities (deployments, nodes, zones)."""
        return len(self.entities)


def default_capacity(app: str) -> int:
    """Slots per deployment: the most replicas any deployment reaches (catalog or autoscaler)
    during a rollout (its surge) with the pods it replaces still terminating, and two more."""
    a = load_catalog(app).app
    most = max([s.replicas for s in a.services] + [h.max_replicas for h in a.autoscalers])
    return 2 * most + 2


# series rows per deployment: a replaced pod's series stay in rule windows for 5 minutes, and a
# deployment replaces pods up to a few times in that long (measured on the full simulator with no
# agent, seeds 0-5: at most 9-32 pods of one deployment alive or gone for less than 5 minutes at
# once; a random policy's restarts add more); when none is free the least recently used row is
# taken (counted in Telemetry.sr_overflow)
SERIES_ROWS = {"online-boutique": 32, "train-ticket": 24, "astronomy-shop": 32}


def _levels(topo: Topology) -> tuple[Level, ...]:
    out = []
    ga, gb = np.nonzero(topo.calls)
    edge_id = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(ga, gb, strict=True))}
    for members in topo.levels:
        svc = np.sort(members)
        src, dst = np.nonzero(topo.calls[svc] > 0)
        src = svc[src]
        calling, starts = np.unique(src, return_index=True)
        out.append(
            Level(
                svc=svc,
                src=src,
                dst=dst,
                edge=np.array(
                    [edge_id[(int(a), int(b))] for a, b in zip(src, dst, strict=True)], dtype=int
                ),
                calls=topo.calls[src, dst],
                hard=topo.calls[src, dst] * topo.hard[src, dst],
                sig=topo.sigma[dst],
                starts=starts,
                calling=calling,
                entry=bool(len(svc) == 1 and svc[0] == topo.entry),
            )
        )
    return tuple(out)


@functools.cache
def layout(app: str, capacity: int | None = None) -> Layout:
    """The layout of ``app`` with ``capacity`` slots per deployment (default
    ``default_capacity``); cached per process."""
    topo = compile_topology(app)
    a = topo.app
    deps = [*a.serving, *[x for x in a.services if x.kind in NOT_SERVING]]
    n = topo.n
    boots = [a.startup_of(s.name) for s in deps]
    mem_base = np.append(
        topo.mem_base,
        [
            o.perf.mem_base_mi if o.perf else 0.4 * parse_mem(o.resources.mem_limit)
            for o in deps[n:]
        ],
    )
    ga, gb = np.nonzero(topo.calls)
    edge_of = np.full((n, n), -1, dtype=int)
    edge_of[ga, gb] = np.arange(len(ga))
    deg = max(1, int(max((ga == i).sum() for i in range(n))))
    dep_edges = np.full((len(deps), deg), -1, dtype=np.int64)
    for i in range(n):
        es = np.nonzero(ga == i)[0]
        dep_edges[i, : len(es)] = es
    reach = np.zeros((n, n), dtype=bool)
    for d in range(n):
        for s in hard_callers(a, topo.names[d]):
            if s in topo.index:
                reach[d, topo.index[s]] = True
    dep_index = {s.name: i for i, s in enumerate(deps)}
    zones = tuple(sorted({nd.zone for nd in a.nodes}))
    lg = a.loadgen
    cap = default_capacity(app) if capacity is None else int(capacity)
    sr = SERIES_ROWS.get(app, 16)
    return Layout(
        app=app,
        topo=topo,
        n=n,
        D=len(deps),
        C=cap,
        SR=sr,
        K=len(a.nodes),
        Z=len(zones),
        M=len(ga),
        R=len(topo.route_names),
        dep_names=tuple(s.name for s in deps),
        dep_index=dep_index,
        dep_container=tuple(s.container for s in deps),
        dep_replicas=np.array([s.replicas for s in deps], dtype=np.int64),
        dep_boot=np.array([b.boot_s for b in boots], dtype=float),
        dep_image_mb=np.array([b.image_mb for b in boots], dtype=float),
        dep_probed=np.array([s.readiness is not None for s in deps]),
        dep_probe_delay=np.array(
            [s.readiness.initial_delay_s if s.readiness else 0 for s in deps], dtype=float
        ),
        dep_probe_period=np.array(
            [s.readiness.period_s if s.readiness else 10 for s in deps], dtype=float
        ),
        dep_probe_port=np.array(
            [s.readiness.port if s.readiness else -1 for s in deps], dtype=np.int64
        ),
        dep_mem_base=mem_base,
        dep_cpu0=np.array([parse_cpu(s.resources.cpu_limit) for s in deps]),
        dep_mem0=np.array([parse_mem(s.resources.mem_limit) for s in deps]),
        dep_cpu_request=np.array([parse_cpu(s.resources.cpu_request) for s in deps]),
        dep_kind=tuple(s.kind for s in deps),
        nodes=tuple(nd.name for nd in a.nodes),
        zones=zones,
        node_zone=np.array([zones.index(nd.zone) for nd in a.nodes], dtype=np.int64),
        ga=ga,
        gb=gb,
        edge_of=edge_of,
        dep_edges=dep_edges,
        levels=_levels(topo),
        hard_reach=reach,
        hpa_dep=np.array([dep_index[h.deployment] for h in a.autoscalers], dtype=np.int64),
        hpa_min=np.array([h.min_replicas for h in a.autoscalers], dtype=np.int64),
        hpa_max=np.array([h.max_replicas for h in a.autoscalers], dtype=np.int64),
        hpa_target=np.array([h.target_cpu_pct for h in a.autoscalers], dtype=float),
        hpa_request=np.array(
            [parse_cpu(a.service(h.deployment).resources.cpu_request) for h in a.autoscalers]
        ),
        queue_names=tuple((q.name, c) for q in a.queues for c in q.consumers),
        entities=(*(s.name for s in deps), *(nd.name for nd in a.nodes), *zones),
        base_rps=lg.users / (0.5 * (lg.wait_s[0] + lg.wait_s[1]) + 0.3) * lg.requests_per_task,
    )
