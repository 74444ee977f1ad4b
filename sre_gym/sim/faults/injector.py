"""Applies a schedule to a simulated cluster: injections, reverts, ordinary deploys, and per-tick
evidence of each fault (its symptom probe and whether its responsible artifact is still in place).

Faults act through ordinary operations, one mechanism class each (``mechanisms.py``): a commit
through the build pipeline, a NetworkPolicy, a stressed pod, a node that stops reporting. Reverting
undoes the fault's own artifact only if it is still in place; if the agent already fixed it, the
revert does nothing. The bookkeeping (injections, reverts, the probe and artifact arrays) is the
backend-neutral ``sre_gym.orchestrator.faults.FaultDriver``; the probes come from ``probes.py``.
"""

from __future__ import annotations

import functools

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import Change, Fault
from sre_gym.orchestrator.changes import Presentation, present
from sre_gym.orchestrator.faults import POLICY_NAMES, PROBE_TAIL_S, FaultDriver, Injection
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import stable_hash
from sre_gym.sim.cluster import SimCluster
from sre_gym.sim.dynamics import TickOut
from sre_gym.sim.faults.mechanisms import POD_FIELDS, SELECTOR_HEADROOM, mechanism_of
from sre_gym.sim.faults.persistence import PersistenceChecker
from sre_gym.sim.faults.probes import (
    ANSWERING_ERR_MAX,
    PROBE_KINDS,
    RESTART_QUIET_S,
    STUCK_GRACE_S,
    WINDOW_TICKS,
    SimProbes,
    SLIs,
    Window,
)

__all__ = [
    "ANSWERING_ERR_MAX",
    "POD_FIELDS",
    "POLICY_NAMES",
    "PROBE_KINDS",
    "PROBE_TAIL_S",
    "RESTART_QUIET_S",
    "SELECTOR_HEADROOM",
    "STUCK_GRACE_S",
    "WINDOW_TICKS",
    "Injection",
    "Injector",
    "SLIs",
    "Window",
]


class Injector(FaultDriver):
    def __init__(
        self,
        cl: SimCluster,
        sched: Schedule,
        episode_start: float,
        *,
        hold_s: float = 90,
        persistence_s: float = 120,
    ) -> None:
        super().__init__(sched, episode_start, cl.capacity)
        self.cl = cl
        # bound methods and partials (not lambdas) keep a running env picklable
        for sf in sched.faults:
            cl.at(self.t_ep + sf.start, functools.partial(self._inject, sf.index))
            cl.at(self.t_ep + sf.end, functools.partial(self._revert, sf.index))
        for i, d in enumerate(sched.deploys):
            cl.at(self.t_ep + d.time, functools.partial(self._deploy, i, d.change_id))
        self.shown = self._presentations()
        self.probes = SimProbes(cl)
        cl.tick_hooks.append(self._on_tick)
        self.persistence = PersistenceChecker(self, hold_s, persistence_s)
        # in a persistence challenge's fork: the one fault whose probe the challenge reads (the
        # probes only read the world, so leaving the others out changes nothing)
        self.only: int | None = None

    @property
    def window(self) -> Window:
        return self.probes.window

    def mechanism_of(self, f: Fault):
        return mechanism_of(f)

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        self.persistence.note_intervention(t, target, obj)

    def _presentations(self) -> dict[str, Presentation]:
        """Title and author of every delivery of the run (faults, their reverts, benign deploys),
        drawn together in delivery order so that no number or form tells them apart."""
        out: list[tuple[float, str, Change]] = []
        for sf in self.sched.faults:
            f = self.faults[sf.fault_id]
            if f.change is not None:
                ch = self.changes[f.change]
                out += [(sf.start, f"fault:{sf.index}", ch), (sf.end, f"revert:{sf.index}", ch)]
        for i, d in enumerate(self.sched.deploys):
            out.append((d.time, f"deploy:{i}", self.changes[d.change_id]))
        cat = load_catalog(self.sched.app, include_quarantined=True)
        shown = present(cat, self.cl.streams, out)
        # a revert shows as git words it, from the reverted deploy's title; only its author is drawn
        for key in [k for k in shown if k.startswith("revert:")]:
            fault = shown[f"fault:{key[7:]}"]
            shown[key] = Presentation(f'Revert "{fault.title}"', shown[key].author)
        return shown

    # ------------------------------------------------------------------ inject / revert
    def sha(self, *parts: object) -> str:
        """The commit sha of a delivery of this run (a fault, its revert, a benign deploy)."""
        return stable_hash(
            self.cl.release, self.sched.app, self.sched.seed, "commit", *parts, digits=40
        )

    # the scheduled actions keep these names: the persistence challenge's fork drops injections,
    # deploys and the challenged fault's revert by them
    def _inject(self, idx: int, t: float) -> None:
        self.inject(idx, t)

    def _revert(self, idx: int, t: float) -> None:
        self.revert(idx, t)

    def _deploy(self, i: int, change_id: str, t: float) -> None:  # noqa: D401
        shown = self.shown[f"deploy:{i}"]
        rec = self.cl.deploy_change(
            self.changes[change_id],
            self.sha("deploy", i),
            t,
            title=shown.title,
            author=shown.author,
        )
        self.records.append(
            {
                "type": "deploy",
                "t": t,
                "sha": rec.sha,
                "service": rec.service,
                "revision": rec.revision,
            }
        )

    # ------------------------------------------------------------------ evidence per tick
    def _on_tick(self, tick: int, out: TickOut) -> None:
        if self.cl.entry_only:
            return  # a no-action counterfactual: its probes are never read (they only read)
        t = self.cl.time_of_tick(tick)
        live = self.active(t)
        if self.only is not None:
            live = [inj for inj in live if inj.index == self.only]
        if live:
            self.probes.out = out
            # (a persistence fork keeps the fault past its end: its artifact is still read)
            self.record_tick(tick, t, live, self.probes.reader(tick, t), not self.cl.recording)
        self.window.push(out, self.cl.topo.sigma)
        if live:
            self.persistence.on_tick(tick)
