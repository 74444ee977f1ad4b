"""Repair persistence: Incident-Arena's safety gate, run by the injector after the hold.

After an intervention that acts on a fault, the injector watches the fault's symptom probe. Once it
has recovered and held for the hold period (still before the fault's revert), the repair is challenged:
in a fork of the simulated world the affected service is restarted and, where the fault has a
trigger, the trigger fires again; the fork then runs for the persistence window and the probe must stay
healthy throughout. A restart that only cleared a leak for a minute, or retries that re-form a storm
after the next latency blip, relapse there. The challenge runs in a fork so that the real run, and what
the agent sees, never change: the outcome is recorded as evidence for the scorer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sre_gym.orchestrator.faults import Injection
from sre_gym.scoring.rules import fits_fault
from sre_gym.sim import pods as P
from sre_gym.sim.cluster import SimError
from sre_gym.sim.faults.probes import WINDOW_TICKS

if TYPE_CHECKING:
    from sre_gym.sim.faults.injector import Injector

TRIGGER_BLIP_MS = 40.0  # latency blip on the callee that re-fires a retry storm
TRIGGER_BLIP_S = 30.0


@dataclass
class Watch:
    intervention_t: float
    artifact_route: bool  # the probe never failed: the artifact's removal is what must hold
    start_k: int  # first tick after the intervention
    recovered_k: int | None = None


def fits(inj: Injection, target: str | None, obj: str) -> bool:
    """Does an intervention act on this fault (the scorer's rule, ``scoring.rules.fits_fault``)?"""
    return fits_fault(target, obj, inj.affected, inj.culprits, inj.artifacts)


def settle_s(app, target: str, probe: tuple, replicas: int, tick_s: float) -> float:
    """How long a restart of ``target`` takes to settle: a new pod created, its image pulled
    (on a node that may lack it), booted and ready, warmed up, and one SLI window after, read one
    scrape late as the probes read it. Each replica's step of the rollout also waits for the
    controller's next tick. ``probe``: the deployment's (boot, probed, probe delay, probe period)
    as one-element arrays (``pods.ready_at``'s arguments)."""
    run = app.startup_of(target)
    start = P.SCHEDULE_S + app.pull.overhead_s + run.image_mb / app.pull.mb_s + P.CREATE_S
    ready = P.ready_at(np.array([start]), *probe)[0]
    serving = max(float(ready), start + run.boot_s)
    step = serving + tick_s
    return step * max(1, replicas) + run.warmup_s + (WINDOW_TICKS + 1) * tick_s


class PersistenceChecker:
    def __init__(self, inj: Injector, hold_s: float, persistence_s: float) -> None:
        self.inj = inj
        self.hold_ticks = int(math.ceil(hold_s / inj.cl.tick_s))
        self.persistence_s = float(persistence_s)
        # fault index -> one watch per fitting intervention: the challenge belongs to the repair
        # state, and a later intervention (another incident's) may be the one that repaired it
        self.watches: dict[int, list[Watch]] = {}
        self.enabled = True  # off inside a fork

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        if not self.enabled:
            return
        cl = self.inj.cl
        k = int(math.floor((t - cl.t0) / cl.tick_s)) + 1
        for inj in self.inj.injections:
            if inj is None or not (inj.start <= t < inj.end) or not fits(inj, target, obj):
                continue
            start_k = int(math.ceil((inj.start - cl.t0) / cl.tick_s))
            never_failed = bool((self.inj.probe[inj.index, start_k:k] == 1).all())
            self.watches.setdefault(inj.index, []).append(Watch(t, never_failed, k))

    def on_tick(self, tick: int) -> None:
        if not self.enabled or not self.watches:
            return
        cl = self.inj.cl
        t = cl.time_of_tick(tick)
        for idx in sorted(self.watches):
            inj = self.inj.injections[idx]
            if t >= inj.end:
                del self.watches[idx]
                continue
            done: set[tuple[bool, int]] = set()  # (route, recovery) already challenged this tick
            keep = []
            for w in self.watches[idx]:
                if tick < w.start_k:
                    keep.append(w)
                    continue
                if not self._healthy(idx, tick, w):
                    w.recovered_k = None
                    keep.append(w)
                    continue
                if w.recovered_k is None:
                    w.recovered_k = tick
                if tick - w.recovered_k < self.hold_ticks:
                    keep.append(w)
                elif (w.artifact_route, w.recovered_k) not in done:
                    # watches sharing a recovery would fork the same world: one challenge serves all
                    done.add((w.artifact_route, w.recovered_k))
                    self._challenge(inj, w, t)
            if keep:
                self.watches[idx] = keep
            else:
                del self.watches[idx]

    @staticmethod
    def _settle_s(cl, target: str) -> float:
        dep = cl.world.deployment(target)
        if dep is None:
            return 0.0
        i = [dep.index]
        probe = (cl.dep_boot[i], cl.dep_probed[i], cl.dep_probe_delay[i], cl.dep_probe_period[i])
        return settle_s(cl.topo.app, target, probe, dep.replicas, cl.tick_s)

    def _healthy(self, idx: int, tick: int, w: Watch) -> bool:
        # on the artifact route the probe must stay healthy too: removing the artifact by taking
        # the service away (scaled to zero, its only pod deleted) repairs nothing
        ok = self.inj.probe[idx, tick] == 1
        if w.artifact_route:
            ok = ok and self.inj.artifact[idx, tick] == 0
        return ok

    def _challenge(self, inj: Injection, w: Watch, t: float) -> None:
        cl = self.inj.cl

        # the question is whether this repair persists, not what the next fault does: no new
        # injections, deploys or benign disturbances in the fork (what is under way goes on and
        # ends on time) and the fault is not reverted in the fork: the repair alone must keep it
        # healthy
        def keep(a) -> bool:
            fn = getattr(a[2], "func", a[2])
            if fn.__name__ in ("_inject", "_deploy", "_start"):
                return False
            return not (fn.__name__ == "_revert" and a[2].args == (inj.index,))

        fork_cl = cl.fork(keep)
        fork = next(h.__self__ for h in fork_cl.tick_hooks if h.__name__ == "_on_tick")
        fork.persistence.enabled = False
        fork.only = inj.index
        f = inj.fault
        kind = "none"
        if f.target in {d.name for d in fork_cl.world.deployments}:
            try:
                fork_cl.restart(f.target, t)
                kind = "restart"
            except SimError:
                kind = "none"
        if f.mechanism == "retry_storm" and inj.detail.get("change") is not None:
            defect = inj.detail["change"].defect
            for callee in defect.retries if defect else ():
                pods = fork_cl.set_pod_condition(callee, "delay", TRIGGER_BLIP_MS, t)
                fork_cl.at(t + TRIGGER_BLIP_S, _Clear(fork_cl, pods))
                kind = "restart+trigger" if kind == "restart" else "trigger"
        # the restarted pods must come up and warm up, and the probe's window clear, before the
        # repair is judged: a restart's own blip is not a relapse
        settle = self._settle_s(fork_cl, f.target) if kind != "none" else 0.0
        until = t + settle + self.persistence_s
        fork_cl.advance_to(until)
        k0 = max(cl.tick, int(math.ceil((t + settle - cl.t0) / cl.tick_s)))
        k1 = int(math.floor((until - cl.t0) / cl.tick_s))
        healthy = fork.probe[inj.index, k0 : k1 + 1] == 1
        if w.artifact_route:
            healthy &= fork.artifact[inj.index, k0 : k1 + 1] == 0
        bad = np.nonzero(~healthy)[0]
        relapsed_at = cl.time_of_tick(k0 + int(bad[0])) if len(bad) else None
        self.inj.records.append(
            {
                "type": "challenge",
                "t": t,
                "index": inj.index,
                "kind": kind,
                "target": f.target,
                "intervention_t": w.intervention_t,
                "recovered_at": cl.time_of_tick(w.recovered_k),
                "settled_at": t + settle,
                "window_end": until,
                "route": "artifact" if w.artifact_route else "probe",
                "outcome": "relapsed" if relapsed_at is not None else "held",
                "relapsed_at": relapsed_at,
            }
        )


class _Clear:
    """A scheduled action that ends a trigger blip."""

    def __init__(self, cl, pods: list[str]) -> None:
        self.cl, self.pods = cl, pods

    def __call__(self, t: float) -> None:
        self.cl.clear_pod_condition(self.pods, "delay")
