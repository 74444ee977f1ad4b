"""Kubernetes-shaped state of the simulated cluster (everything except pods, see ``pods.py``).

A deployment's pod template is what changes on a rollout, rollback, restart or config patch. Each
distinct (deployment, template) pair compiles once into a ``Behaviour``: the numbers the dynamics need
(defect, limits, broken addresses, probe). Faults never live here as labels; a defect is a property of a
built image, a wrong address is a property of an env var, and so on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np

from sre_gym.catalogs.schema import Change, Defect, parse_cpu, parse_mem
from sre_gym.sim.netpol import NetworkPolicy
from sre_gym.sim.topology import Topology

_GO_DUR = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)$")


def norm_addr(v: str | None) -> str:
    """An address as a client dials it: scheme and trailing slash do not matter."""
    v = (v or "").strip()
    for scheme in ("http://", "https://", "grpc://"):
        if v.startswith(scheme):
            v = v[len(scheme) :]
    return v.rstrip("/")


def go_duration_ms(v: str) -> float | None:
    """A Go duration string in ms (None if it does not parse; Go would refuse to start)."""
    m = _GO_DUR.match(v.strip())
    if not m:
        return None
    scale = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
    return float(m.group(1)) * scale[m.group(2)]


@dataclass(frozen=True)
class Template:
    image: str
    env: tuple[tuple[str, str], ...]
    cpu_limit: str
    mem_limit: str
    readiness_port: int | None
    restarted_at: str | None = None

    def env_dict(self) -> dict[str, str]:
        return dict(self.env)

    def with_env(self, key: str, value: str) -> Template:
        env = dict(self.env)
        env[key] = value
        return replace(self, env=tuple(sorted(env.items())))

    def __deepcopy__(self, memo: dict | None = None) -> Template:
        return self  # frozen values: copies of the world share it


@dataclass
class Revision:
    number: int
    template: Template
    change_cause: str
    created: float
    commit: str | None = None


@dataclass
class Deployment:
    name: str
    index: int  # topology index for serving services; >= topology.n for the load generator
    container: str
    replicas: int
    revisions: list[Revision]
    generation: int = 1
    dirty: bool = True  # the controller has work to do
    serial: int = 0  # pods created so far (names are derived from it)
    rollout_started: float = 0.0

    @property
    def current(self) -> Revision:
        return self.revisions[-1]

    def revision(self, number: int) -> Revision | None:
        for r in self.revisions:
            if r.number == number:
                return r
        return None


@dataclass(frozen=True)
class Image:
    ref: str
    service: str
    commit: str | None
    defect: Defect | None
    change: Change | None = None  # the change whose defect (and fix predicate) the image carries


@dataclass
class Node:
    name: str
    zone: str
    ready: bool = True
    down_since: float | None = None


@dataclass
class Event:
    type: str
    reason: str
    kind: str
    name: str
    message: str
    first: float
    last: float
    count: int = 1


@dataclass
class Behaviour:
    """What pods of one (deployment, template) do; compiled once."""

    err: float
    lat_ms: float
    cpu_mult: float
    crash_after: float
    leak: float
    cpu_limit: float
    mem_limit: float
    image_ok: bool
    probe_ok: bool
    timeout_ms: np.ndarray  # per callee
    retries: np.ndarray  # per callee
    addr_bad: np.ndarray  # per callee, bool
    pool: np.ndarray  # per callee
    hold_ms: float = 0.0  # extra time a pooled connection is held per call
    corrupt: float = 0.0
    consume_ms: float = 0.0
    log: str = ""


@dataclass
class World:
    """Non-pod cluster state."""

    deployments: list[Deployment]
    nodes: list[Node]
    images: dict[str, Image]
    netpols: list[NetworkPolicy] = field(default_factory=list)
    netpol_version: int = 0  # bumped on every policy change (connectivity is recomputed)
    events: list[Event] = field(default_factory=list)
    configmaps: dict[str, dict[str, str]] = field(default_factory=dict)
    secrets: dict[str, dict[str, str]] = field(default_factory=dict)
    _event_index: dict[tuple[str, str, str, str], int] = field(default_factory=dict)
    # each object's events in order: describe reads an object's last few without scanning them all
    _events_of: dict[tuple[str, str], list[Event]] = field(default_factory=dict)

    def deployment(self, name: str) -> Deployment | None:
        for d in self.deployments:
            if d.name == name:
                return d
        return None

    def event(self, t: float, type_: str, reason: str, kind: str, name: str, message: str) -> None:
        """Record a Kubernetes event, folding repeats of the same message into a count."""
        key = (reason, kind, name, message)
        i = self._event_index.get(key)
        if i is not None:
            ev = self.events[i]
            ev.last, ev.count = t, ev.count + 1
            return
        self._event_index[key] = len(self.events)
        ev = Event(type_, reason, kind, name, message, t, t)
        self.events.append(ev)
        self._events_of.setdefault((kind, name), []).append(ev)

    def events_of(self, kind: str, name: str) -> list[Event]:
        """The events of one object, oldest first."""
        return self._events_of.get((kind, name), [])


def compile_behaviour(
    topo: Topology, dep: Deployment, tpl: Template, images: dict[str, Image]
) -> Behaviour:
    n = topo.n
    img = images.get(tpl.image)
    defect = img.defect if img is not None else None
    env = tpl.env_dict()
    serving = dep.index < n
    timeout = topo.timeout_ms[dep.index].copy() if serving else np.full(n, np.inf)
    retries = topo.retries[dep.index].copy() if serving else np.zeros(n)
    pool = topo.pool[dep.index].copy() if serving else np.full(n, np.inf)
    addr_bad = np.zeros(n, dtype=bool)
    lat = 0.0
    svc = topo.app.service(dep.name)
    if serving:
        for (a, b), var in topo.addr_env.items():
            if a == dep.index:
                want = topo.callee_addr[b]
                got = norm_addr(env.get(var))
                # a host-only setting (the port configured separately) names just the host
                addr_bad[b] = got != (want if ":" in got else want.split(":")[0])
        if svc.latency_env and svc.latency_env in env:
            ms = go_duration_ms(env[svc.latency_env])
            lat += ms if ms is not None else 0.0
    if defect is not None and serving:
        for callee, ms in defect.timeouts_ms.items():
            timeout[topo.index[callee]] = ms
        for callee, r in defect.retries.items():
            retries[topo.index[callee]] = r
        for callee, size in defect.pool_size.items():
            pool[topo.index[callee]] = size
        for callee in defect.broken_edges:
            addr_bad[topo.index[callee]] = True
    probe_port = svc.readiness.port if svc.readiness else None
    return Behaviour(
        err=defect.error_rate if defect else 0.0,
        lat_ms=lat + (defect.latency_ms if defect else 0.0),
        cpu_mult=defect.cpu_mult if defect else 1.0,
        crash_after=defect.crash_after_s if defect and defect.crash_after_s else np.inf,
        leak=defect.mem_leak_mib_s if defect else 0.0,
        cpu_limit=parse_cpu(tpl.cpu_limit),
        mem_limit=parse_mem(tpl.mem_limit),
        image_ok=img is not None,
        probe_ok=tpl.readiness_port == probe_port,
        timeout_ms=timeout,
        retries=retries,
        addr_bad=addr_bad,
        pool=pool,
        hold_ms=defect.hold_ms if defect else 0.0,
        corrupt=defect.corrupt_rate if defect else 0.0,
        consume_ms=defect.consume_ms if defect else 0.0,
        log=defect.log if defect else "",
    )


def initial_template(topo: Topology, name: str) -> Template:
    s = topo.app.service(name)
    return Template(
        image=s.image,
        env=tuple(sorted(s.env.items())),
        cpu_limit=s.resources.cpu_limit,
        mem_limit=s.resources.mem_limit,
        readiness_port=s.readiness.port if s.readiness else None,
    )
