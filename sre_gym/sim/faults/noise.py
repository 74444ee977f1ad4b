"""Seeded benign noise: the alerts a healthy production system fires anyway.

Production alert streams are not only faults. A batch job or a garbage-collection storm burns a
pod's CPU for a few minutes, a network path adds latency for a minute or two, a noisy neighbour
crowds the pods of one node, and a borderline condition flaps. None of these is a fault: nothing is
injected or reverted, no evidence records them, and they never touch what the scorer measures.

:func:`plan` draws the noise of one marathon from the counter-based stream
``Streams(release, app, seed).gen("noise")``; it is a pure function of (release, app, seed, schedule).
:class:`Noise` applies a plan to a :class:`~sre_gym.sim.cluster.SimCluster` through the same runtime
pod conditions the injector uses for stressed pods (``hog`` cores, ``delay`` ms), scheduled with
``cl.at``. It adds its own amount and takes exactly that amount back, so it composes with anything
else on the pod.

Safety: a noise event never targets, while a fault is active (from two minutes before its start to
one minute after its revert), the fault's target or culprits, the services its symptom probe reads
(the probe's service and peer) or anything the probe's peer calls (a slower callee could make the
probed calls time out); a noisy neighbour never picks a node or zone that a fault takes down. The
entry point and non-serving workloads (load generator, flagd) are never targeted. Magnitudes keep a
pod below saturation (no shed requests, no errors), so noise shows as throttling and latency only.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.catalogs.schema import App, parse_cpu
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import Streams

KINDS = ("cpu_burst", "cpu_flap", "latency_blip", "noisy_neighbour")
BEFORE_S = 120  # a fault's services are off limits this long before it starts ...
AFTER_S = 60  # ... and this long after its revert
_DRAWS = 16  # uniforms drawn per event (fixed, so events never shift each other's draws)


@dataclass(frozen=True)
class NoiseParams:
    """Calibration of one app's noise (events per hour of the marathon, their mix and sizes)."""

    per_hour: float = 12.0
    mix: tuple[float, float, float, float] = (0.4, 0.2, 0.2, 0.2)  # in KINDS order
    burst_s: tuple[int, int] = (210, 480)  # cpu burst length
    burst_rho: tuple[float, float] = (0.72, 0.85)  # target CPU utilisation of the pod
    burst_max_util: float = 0.45  # only pods this far below saturation get a burst
    flap_cycles: tuple[int, int] = (2, 4)
    flap_on_s: tuple[int, int] = (210, 300)
    flap_off_s: tuple[int, int] = (90, 180)
    blip_s: tuple[int, int] = (120, 300)
    blip_ms: tuple[float, float] = (80.0, 250.0)
    blip_budget_ms: float = (
        500.0  # most a blip may add to one request (a pod's delay hits each call)
    )
    neighbour_s: tuple[int, int] = (240, 480)
    neighbour_frac: tuple[float, float] = (0.3, 0.5)  # share of each pod's CPU limit burnt


# Calibrated with benchmarks/alert_coverage.py so that the share of alerts compatible with more than
# one fault (seeds 0-19) lands near the paper's 39 % / 76 % / 47 %: measured 50.1 % / 64.0 % / 50.5 %
# with these rates. Online Boutique needs the most noise: almost every non-culprit alert there is on
# frontend or checkoutservice, which sit in nearly every fault's scope. benchmarks/alert_noise.py
# prints the resulting alert rate without faults; see docs/alerts.md.
PARAMS: dict[str, NoiseParams] = {
    "online-boutique": NoiseParams(per_hour=44.0, mix=(0.4, 0.25, 0.15, 0.2)),
    "train-ticket": NoiseParams(per_hour=3.0),
    "astronomy-shop": NoiseParams(per_hour=16.0),
}


_OFF = [0]  # > 0 while noise_off() is active


@contextlib.contextmanager
def noise_off() -> Iterator[None]:
    """Build backends without noise (load noise and the open world) inside this block, to measure
    faults alone."""
    _OFF[0] += 1
    try:
        yield
    finally:
        _OFF[0] -= 1


def noise_is_off() -> bool:
    return bool(_OFF[0])


@dataclass(frozen=True)
class NoiseEvent:
    """One benign disturbance. ``phases`` are (start, end) seconds after the episode start."""

    index: int
    kind: str
    target: str  # deployment, or node for a noisy neighbour
    phases: tuple[tuple[int, int], ...]
    amount: float  # cores (cpu kinds; for a neighbour: share of each pod's limit) or ms (blip)
    spared: tuple[str, ...] = ()  # deployments a noisy neighbour leaves alone

    def __deepcopy__(self, memo: dict | None = None) -> NoiseEvent:
        return self  # frozen values: copies of the world share it

    @property
    def start(self) -> int:
        return self.phases[0][0]

    @property
    def end(self) -> int:
        return self.phases[-1][1]


def baseline_utilisation(app: App) -> dict[str, float]:
    """Each serving service's CPU utilisation per pod (share of its limit) at the base load."""
    from sre_gym.sim.dynamics import offered_load
    from sre_gym.sim.topology import compile_topology

    topo = compile_topology(app.name)
    lg = app.loadgen
    rps = lg.users / (0.5 * (lg.wait_s[0] + lg.wait_s[1]) + 0.3) * lg.requests_per_task
    src = np.zeros(topo.n)
    src[topo.ingress] = rps
    lam = np.maximum(offered_load(topo, topo.calls, src), 0.0)
    out = {}
    for i, name in enumerate(topo.names):
        s = app.service(name)
        per_pod = lam[i] / max(s.replicas, 1)
        out[name] = float(per_pod * topo.cpu_ms[i] / 1000.0 / parse_cpu(s.resources.cpu_limit))
    return out


def _fanout(app: App) -> dict[str, float]:
    """Calls each serving service makes per request it serves."""
    from sre_gym.sim.topology import compile_topology

    topo = compile_topology(app.name)
    return {name: float(topo.calls[i].sum()) for i, name in enumerate(topo.names)}


def _callees(app: App) -> dict[str, set[str]]:
    """Every service each service reaches (transitively, through any edge)."""
    down: dict[str, set[str]] = {}
    for e in app.edges:
        down.setdefault(e.caller, set()).add(e.callee)
    out: dict[str, set[str]] = {}
    for s in app.services:
        seen: set[str] = set()
        stack = [s.name]
        while stack:
            for c in down.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        out[s.name] = seen
    return out


_CONTEXT: dict[int, tuple] = {}


def _fault_context(cat) -> tuple[dict, dict[str, set[str]], dict[str, str]]:
    """(faults by id, callees, node zones) of a catalog, kept while the catalog object lives: a
    plan asks for them once per noise event, and they are read, never changed."""
    hit = _CONTEXT.get(id(cat))
    if hit is None or hit[0] is not cat:
        faults = {f.id: f for f in cat.faults}
        zones = {n.name: n.zone for n in cat.app.nodes}
        hit = _CONTEXT[id(cat)] = (cat, faults, _callees(cat.app), zones)
    return hit[1], hit[2], hit[3]


def _off_limits(app_name: str, sched: Schedule, lo: int, hi: int) -> tuple[set[str], set[str]]:
    """(services, nodes) that noise must not touch during [lo, hi] (episode seconds)."""
    faults, down, zones = _fault_context(load_catalog(app_name, include_quarantined=True))
    svcs: set[str] = set()
    nodes: set[str] = set()
    for sf in sched.faults:
        if sf.start - BEFORE_S > hi or sf.end + AFTER_S < lo:
            continue
        f = faults[sf.fault_id]
        names = {f.target, *f.culprits}
        pr = f.probe
        if pr.service:
            names.add(pr.service)
        if pr.peer:
            names.add(pr.peer)
            names |= down.get(pr.peer, set())
        for n in names:
            if n in zones:
                nodes.add(n)
            elif n in zones.values():
                nodes |= {node for node, z in zones.items() if z == n}
            else:
                svcs.add(n)
    return svcs, nodes


def plan(
    sched: Schedule, release: str = RELEASE, params: NoiseParams | None = None
) -> tuple[NoiseEvent, ...]:
    """The noise of one marathon: a pure function of (release, app, seed, schedule)."""
    app_name = sched.app
    prm = params if params is not None else PARAMS.get(app_name, NoiseParams())
    if prm.per_hour <= 0:
        return ()
    cat = load_catalog(app_name)
    app = cat.app
    g = Streams(release, app_name, sched.seed).gen("noise")
    episode = sched.duration_s
    n = int(round(prm.per_hour * episode / 3600.0))
    u = g.random((n, _DRAWS))
    util = baseline_utilisation(app)
    fanout = _fanout(app)
    front = {app.entrypoint, app.router or app.entrypoint}
    serving = [s for s in util if s not in front]
    node_names = [nd.name for nd in app.nodes]
    cum = np.cumsum(prm.mix) / np.sum(prm.mix)
    out: list[NoiseEvent] = []
    busy: list[tuple[str, int, int]] = []  # (service, start, end) of events planned so far
    for i in range(n):
        r = u[i]
        t0 = int((i + r[0]) / n * (episode - 240)) // 15 * 15
        kind = KINDS[int(np.searchsorted(cum, r[1], side="right"))]

        def span(lohi: tuple[int, int], x: float) -> int:
            return int(lohi[0] + x * (lohi[1] - lohi[0])) // 15 * 15

        if kind == "cpu_flap":
            cycles = prm.flap_cycles[0] + int(r[2] * (prm.flap_cycles[1] - prm.flap_cycles[0] + 1))
            phases, t = [], t0
            for c in range(cycles):
                on = span(prm.flap_on_s, r[3 + c % 3])
                phases.append((t, t + on))
                t += on + span(prm.flap_off_s, r[6 + c % 3])
        elif kind == "cpu_burst":
            phases = [(t0, t0 + span(prm.burst_s, r[3]))]
        elif kind == "latency_blip":
            phases = [(t0, t0 + span(prm.blip_s, r[3]))]
        else:
            phases = [(t0, t0 + span(prm.neighbour_s, r[3]))]
        phases = [(a, min(b, episode)) for a, b in phases if a < episode]
        lo, hi = phases[0][0], phases[-1][1]
        bad_svcs, bad_nodes = _off_limits(app_name, sched, lo, hi)
        if kind == "noisy_neighbour":
            nodes = [nd for nd in node_names if nd not in bad_nodes]
            if not nodes:
                continue
            node = nodes[int(r[10] * len(nodes))]
            frac = prm.neighbour_frac[0] + r[11] * (prm.neighbour_frac[1] - prm.neighbour_frac[0])
            spared = tuple(
                sorted(bad_svcs | front | {s for s in serving if _busy(busy, s, lo, hi)})
            )
            out.append(
                NoiseEvent(len(out), kind, node, tuple(phases), round(float(frac), 4), spared)
            )
            continue
        pool = [s for s in serving if s not in bad_svcs and not _busy(busy, s, lo, hi)]
        if kind in ("cpu_burst", "cpu_flap"):
            pool = [s for s in pool if util[s] < prm.burst_max_util]
        if not pool:
            continue
        target = pool[int(r[10] * len(pool))]
        if kind == "latency_blip":
            amount = prm.blip_ms[0] + r[11] * (prm.blip_ms[1] - prm.blip_ms[0])
            # the delay of a pod's network path applies to its reply and to each call it makes
            amount = min(amount, prm.blip_budget_ms / (1.0 + fanout[target]))
        else:
            rho = prm.burst_rho[0] + r[11] * (prm.burst_rho[1] - prm.burst_rho[0])
            limit = parse_cpu(app.service(target).resources.cpu_limit)
            amount = (rho - util[target]) * limit
        busy.append((target, lo, hi))
        out.append(NoiseEvent(len(out), kind, target, tuple(phases), round(float(amount), 4)))
    return tuple(out)


def _busy(busy: list[tuple[str, int, int]], svc: str, lo: int, hi: int) -> bool:
    """Is ``svc`` already disturbed by another noise event around [lo, hi]?"""
    return any(s == svc and a - AFTER_S <= hi and lo <= b + AFTER_S for s, a, b in busy)


class Noise:
    """Applies a noise plan to a simulated cluster (one per episode, like the injector)."""

    def __init__(
        self,
        cl,
        sched: Schedule,
        episode_start: float,
        *,
        params: NoiseParams | None = None,
        scale: float = 1.0,
    ) -> None:
        self.cl = cl
        self.t_ep = float(episode_start)
        prm = params if params is not None else PARAMS.get(sched.app, NoiseParams())
        if scale != 1.0:
            prm = replace(prm, per_hour=prm.per_hour * scale)
        self.events = plan(sched, cl.release, prm) if not _OFF[0] else ()
        self.applied: dict[tuple[int, int], list[tuple[str, str, float]]] = {}
        self.history: list[tuple[float, int, int, tuple[str, ...]]] = []  # (t, event, phase, pods)
        # bound methods and partials (not lambdas) keep a running env picklable
        for ev in self.events:
            for k, (a, b) in enumerate(ev.phases):
                cl.at(self.t_ep + a, functools.partial(self._start, ev.index, k))
                cl.at(self.t_ep + b, functools.partial(self._stop, ev.index, k))

    def _start(self, i: int, k: int, t: float) -> None:
        ev = self.events[i]
        cl = self.cl
        p = cl.pods
        live = p.live()
        deps = cl.world.deployments
        if ev.kind == "noisy_neighbour":
            node = next((j for j, nd in enumerate(cl.world.nodes) if nd.name == ev.target), -1)
            rows = [
                int(r)
                for r in live
                if p.node[r] == node
                and p.dep[r] < cl.topo.n
                and deps[p.dep[r]].name not in ev.spared
            ]
            amounts = [ev.amount * float(cl.behaviours[int(p.beh[r])].cpu_limit) for r in rows]
            field = "hog"
        else:
            dep = cl.world.deployment(ev.target)
            rows = [int(r) for r in live if dep is not None and p.dep[r] == dep.index]
            field = "delay" if ev.kind == "latency_blip" else "hog"
            if field == "hog":
                rows = rows[:1]  # a batch job runs in one pod
            amounts = [ev.amount] * len(rows)
        arr = getattr(p, field)
        busy = {name for applied in self.applied.values() for name, _, _ in applied}
        done = []
        for r, amt in zip(rows, amounts, strict=True):
            if p.names[r] in busy:  # one disturbance per pod at a time
                continue
            arr[r] += amt
            done.append((p.names[r], field, amt))
        self.applied[(i, k)] = done
        self.history.append((t, i, k, tuple(name for name, _, _ in done)))

    def _stop(self, i: int, k: int, t: float) -> None:
        p = self.cl.pods
        for name, field, amt in self.applied.pop((i, k), []):
            r = p.index_of(name)
            if r is not None:
                arr = getattr(p, field)
                arr[r] = max(0.0, arr[r] - amt)
