"""A scheduled episode on a live cluster: the timeline, the fault evidence, the observed repairs.

``LiveEpisode`` is the part of ``LiveBackend`` that runs a schedule. ``advance_to(t)`` waits on the
episode clock through every due moment up to ``t``: each fault's start and end (``LiveFaults``
injects and reverts it) and each tick (every 15 episode seconds: whether each active fault's
artifact is still in place, read from the cluster then and there, and Prometheus' alerts). Probes
and entry-point traffic are read from Prometheus afterwards, for the ticks it has scraped
(``LiveProbes``), so the evidence arrays fill in one or two ticks behind the clock; the last step
waits two ticks past the episode's end to read them all.

Repairs are judged as on the simulator (the probe recovers after an intervention that acts on the
fault and holds for the hold period, before the revert), but a live cluster cannot be forked, so
the persistence challenge is *observed*, not provoked: after the hold, the real run's probe must
stay healthy for the persistence window (as far as it lies before the fault's revert); the record
says ``kind: "observed"``. Any exception in the run reverts every injection before it propagates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sre_gym.backends.base import OperationError
from sre_gym.orchestrator.faults import PROBE_TAIL_S
from sre_gym.scoring.rules import fits_fault

READ_LAG_TICKS = 2  # Prometheus has scraped a tick's data this many ticks later


@dataclass
class _Watch:
    intervention_t: float
    start_k: int  # first tick after the intervention
    artifact_route: bool | None = None  # decided once the probes before it are read
    recovered_k: int | None = None
    observing_until: int | None = None  # last tick of the observed persistence window


class ObservedRepairs:
    """Follows interventions on a live run and records each repair's observed persistence."""

    def __init__(self, ep: LiveEpisode, hold_s: float, persistence_s: float) -> None:
        self.ep = ep
        self.hold_ticks = int(math.ceil(hold_s / ep.tick_s))
        self.persist_ticks = int(math.ceil(persistence_s / ep.tick_s))
        self.watches: dict[int, list[_Watch]] = {}

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        k = int(math.floor((t - self.ep.t0) / self.ep.tick_s)) + 1
        for inj in self.ep.faults.injections:
            if inj is None or not (inj.start <= t < inj.end):
                continue
            if fits_fault(target, obj, inj.affected, inj.culprits, inj.artifacts):
                self.watches.setdefault(inj.index, []).append(_Watch(t, k))

    def on_tick(self, k: int) -> None:
        """Tick ``k``'s probes have been read: advance every watch."""
        ep, drv = self.ep, self.ep.faults
        for idx in sorted(self.watches):
            inj = drv.injections[idx]
            end_k = int(math.ceil((inj.end - ep.t0) / ep.tick_s))
            keep = []
            for w in self.watches[idx]:
                if k < w.start_k:
                    keep.append(w)
                    continue
                if w.artifact_route is None:
                    s = int(math.ceil((inj.start - ep.t0) / ep.tick_s))
                    w.artifact_route = bool((drv.probe[idx, s : w.start_k] == 1).all())
                ok = drv.probe[idx, k] == 1
                if w.artifact_route:
                    ok = ok and drv.artifact[idx, k] == 0
                if w.observing_until is not None:
                    if not ok or k >= w.observing_until:
                        self._record(inj, w, k, held=bool(ok))
                        continue
                    keep.append(w)
                    continue
                if k >= end_k:
                    continue
                if not ok:
                    w.recovered_k = None
                    keep.append(w)
                    continue
                if w.recovered_k is None:
                    w.recovered_k = k
                if k - w.recovered_k >= self.hold_ticks:
                    w.observing_until = min(k + self.persist_ticks, end_k - 1)
                    if w.observing_until <= k:
                        self._record(inj, w, k, held=True)
                        continue
                keep.append(w)
            if keep:
                self.watches[idx] = keep
            else:
                del self.watches[idx]

    def _record(self, inj: Any, w: _Watch, k: int, held: bool) -> None:
        ep = self.ep
        t = ep.t0 + k * ep.tick_s
        settled = ep.t0 + (w.recovered_k + self.hold_ticks) * ep.tick_s
        ep.faults.records.append(
            {
                "type": "challenge",
                "t": t,
                "index": inj.index,
                "kind": "observed",
                "target": inj.fault.target,
                "intervention_t": w.intervention_t,
                "recovered_at": ep.t0 + w.recovered_k * ep.tick_s,
                "settled_at": settled,
                "window_end": ep.t0 + (w.observing_until or k) * ep.tick_s,
                "route": "artifact" if w.artifact_route else "probe",
                "outcome": "held" if held else "relapsed",
                "relapsed_at": None if held else t,
            }
        )


class LiveEpisode:
    """The schedule-running part of ``LiveBackend`` (which sets ``faults``, ``probes``,
    ``repairs``, ``clock``, ``t0``, ``tick_s``, ``episode_start`` and ``episode_end``)."""

    faults: Any = None  # LiveFaults, or None for a backend without a schedule
    probes: Any = None
    repairs: ObservedRepairs | None = None

    def _setup_episode(self) -> None:
        self._next_tick = 0
        self._read_ticks = 0  # ticks whose probes and entry are read
        self._moments = sorted(
            {(self.episode_start + sf.start, 0, sf.index) for sf in self.schedule.faults}
            | {(self.episode_start + sf.end, 1, sf.index) for sf in self.schedule.faults}
        )
        cap = self.faults.probe.shape[1]
        self.entry = np.zeros((cap, 3))

    def time_of_tick(self, k: int) -> float:
        return self.t0 + k * self.tick_s

    def advance_to(self, t: float) -> None:
        """Wait until ``t`` on the episode clock, running every due injection, revert and tick."""
        if self.faults is None:
            self._wait(t)
            self.poll_alerts()
            return
        try:
            self._run_until(t)
            if t >= self.episode_end:  # the last step: read every tick
                self._wait(t + READ_LAG_TICKS * self.tick_s)
            self._read(self.now)
        except BaseException:
            self.faults.revert_all(self.now)
            raise

    def _run_until(self, t: float) -> None:
        cap = self.faults.probe.shape[1]
        while True:
            tick_t = self.time_of_tick(self._next_tick) if self._next_tick < cap else math.inf
            moment = self._moments[0][0] if self._moments else math.inf
            nxt = min(tick_t, moment)
            if nxt > t:
                break
            self._wait(nxt)
            if moment <= tick_t:
                at, kind, idx = self._moments.pop(0)
                if kind == 0:
                    self.faults.inject(idx, at)
                else:
                    self.faults.revert(idx, at)
                continue
            self._tick(self._next_tick, tick_t)
            self._next_tick += 1
        self._wait(t)
        self.poll_alerts()

    def _wait(self, t: float) -> None:
        now = self.now
        while now < t:
            self.sleep(t - now)
            later = self.now
            if later <= now:
                raise RuntimeError("advance_to: the clock did not move while sleeping")
            now = later

    def _tick(self, k: int, t: float) -> None:
        drv = self.faults
        for inj in drv.active(t):
            if t < inj.end:
                drv.artifact[inj.index, k] = int(drv.present(inj))
        self.poll_alerts()

    def _read(self, now: float) -> None:
        """Read probes and entry traffic for the ticks Prometheus has scraped by ``now``."""
        last = min(
            int(math.floor((now - self.t0) / self.tick_s)) - READ_LAG_TICKS,
            self._next_tick - 1,
        )
        if last < self._read_ticks:
            return
        ticks = list(range(self._read_ticks, last + 1))
        times = [self.time_of_tick(k) for k in ticks]
        drv = self.faults
        live = [
            inj
            for inj in drv.injections
            if inj is not None and inj.start <= times[-1] and times[0] <= inj.end + PROBE_TAIL_S
        ]
        try:
            self.probes.read(live, ticks, times)
            self.entry[ticks[0] : ticks[-1] + 1] = self.probes.entry_rows(times)
        except OperationError:  # Prometheus did not answer: these ticks are read next time
            return
        for k, tk in zip(ticks, times, strict=True):
            act = [i for i in drv.active(tk) if i.start <= tk]
            for inj in act:
                drv.probe[inj.index, k] = self.probes.reader(k, tk)(inj)
            self.repairs.on_tick(k)
        self._read_ticks = last + 1

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        """An intervention ran: follow it for the observed persistence of its repair."""
        if self.repairs is not None:
            self.repairs.note_intervention(t, target, obj)
