"""The seeded fault schedule: a pure function of (release, app, seed, profile).

Arrivals are stratified over an intensity that grows through the 60-minute injection window (so load
ramps up and arrivals do not clump the way a Poisson process would); durations are triangular on 4-12
minutes with the mode at 4; each arrival takes a catalog fault that does not conflict with what is
active (one change in flight per deployment, no fault twice at once), preferring faults used least.
Benign deploys (``changes``) keep arriving all run long, at the profile's change-failure rate. That is
the ``marathon`` profile; ``profiles.py`` holds the others (``short``, ``single``, explicit fields),
which change the run's length, the window, the count, the ramp and the faults to draw from.

The schedule is ground truth: the env never shows it to the agent.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.catalogs.schema import Fault
from sre_gym.clock import EPISODE_S, INJECT_S, TICK_S
from sre_gym.orchestrator.changes import benign_times, pick_benign
from sre_gym.orchestrator.profiles import ScheduleProfile, schedule_profile_from
from sre_gym.rng import Streams


@dataclass(frozen=True)
class ScheduleParams:
    """Calibration of one app's schedule (see the paper's §4: faults per run, concurrency)."""

    n_min: int = 55
    n_max: int = 61
    intensity_power: float = 1.0  # arrival density grows like (offset + t/T)^power
    intensity_offset: float = 1.0
    min_s: int = 240
    mode_s: int = 240
    max_s: int = 720
    deploys_per_hour: float = 12.0  # benign deploys when a window holds no change-delivered fault


# Calibrated to the paper's §4 (mean simultaneous faults over the injection window / median peak):
# Online Boutique 5.8 / 10, Train Ticket 6.1 / 11, Astronomy Shop 6.5 / 11; `sre-gym schedule --stats`
# measures them.
PARAMS: dict[str, ScheduleParams] = {
    "online-boutique": ScheduleParams(),
    "train-ticket": ScheduleParams(n_min=58, n_max=64, mode_s=270),
    "astronomy-shop": ScheduleParams(n_min=59, n_max=65, mode_s=300),
}


@dataclass(frozen=True)
class ScheduledFault:
    index: int
    fault_id: str
    start: int  # seconds after the episode start
    end: int  # revert time, seconds after the episode start

    @property
    def duration(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class ScheduledDeploy:
    change_id: str
    time: int


@dataclass(frozen=True)
class Schedule:
    release: str
    app: str
    seed: int
    faults: tuple[ScheduledFault, ...]
    deploys: tuple[ScheduledDeploy, ...]
    duration_s: int = EPISODE_S  # the run's length (after the warm-up)
    inject_s: int = INJECT_S  # faults start only before this
    profile: str = "marathon"

    def to_dict(self) -> dict:
        return {
            "release": self.release,
            "app": self.app,
            "seed": self.seed,
            "profile": self.profile,
            "duration_s": self.duration_s,
            "inject_s": self.inject_s,
            "faults": [asdict(f) for f in self.faults],
            "deploys": [asdict(d) for d in self.deploys],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def concurrency(self, step: int = TICK_S) -> np.ndarray:
        """Active faults at every tick of the injection window."""
        grid = np.arange(0, self.inject_s, step)
        s = np.array([f.start for f in self.faults])
        e = np.array([f.end for f in self.faults])
        if not len(s):
            return np.zeros(len(grid), dtype=int)
        return ((s[None, :] <= grid[:, None]) & (grid[:, None] < e[None, :])).sum(axis=1)


_INFRA = frozenset({"node_failure", "zone_outage"})


def _conflicts(a: Fault, b: Fault) -> bool:
    """Faults that may not be active together: one fault per target at a time (a second fault on
    the same service would overwrite or mask the first's artifact), and infrastructure faults that
    take down the same machines."""
    if a.id == b.id or a.target == b.target:
        return True
    return a.mechanism in _INFRA and b.mechanism in _INFRA


def _compatible(faults: list[Fault], busy: list[Fault]) -> list[Fault]:
    """The faults that conflict with none of ``busy``, in their order (``_conflicts`` against each,
    in one pass over sets)."""
    if not busy:
        return list(faults)
    ids = {b.id for b in busy}
    targets = {b.target for b in busy}
    infra = any(b.mechanism in _INFRA for b in busy)
    return [
        f
        for f in faults
        if f.id not in ids and f.target not in targets and not (infra and f.mechanism in _INFRA)
    ]


def plan_deploys(
    app: str,
    seed: int,
    release: str,
    placed: list[ScheduledFault],
    faults: list[Fault],
    prof: ScheduleProfile,
    prm: ScheduleParams,
    power: float,
    offset: float,
    inject: int,
    episode: int,
) -> list[ScheduledDeploy]:
    """The benign deploys of a run (``changes``): as many in the injection window as the profile's
    change-failure rate asks for against the change-delivered faults there (the app's base rate
    when there are none), then the same rate to the end; drawn from their own stream, so the
    deploy plan never moves a fault."""
    by_id = {f.id: f for f in load_catalog(app, include_quarantined=True).faults}
    changes = {c.id: c for c in load_catalog(app, include_quarantined=True).changes}
    k = sum(1 for sf in placed if by_id[sf.fault_id].delivery == "change" and sf.start < inject)
    r = prof.change_failure_rate
    n_in = int(round(k * (1 - r) / r)) if k else int(round(prm.deploys_per_hour * inject / 3600))
    g = Streams(release, app, seed).gen("deploys")
    times = benign_times(n_in, n_in / inject, power, offset, inject, episode, g)
    blocked = [
        (sf.start, sf.end, by_id[sf.fault_id].target)
        for sf in placed
        if by_id[sf.fault_id].change and changes[by_id[sf.fault_id].change].kind == "image"
    ]
    return [ScheduledDeploy(cid, t) for t, cid in pick_benign(app, times, blocked, g)]


def schedule(
    app: str,
    seed: int,
    release: str = RELEASE,
    profile: str | dict | ScheduleProfile | None = None,
) -> Schedule:
    """The fault and deploy schedule of one run (same inputs, same schedule, everywhere).

    ``profile`` is a name (``marathon``, the default; ``short``; ``single``), a dict of
    ``ScheduleProfile`` fields or a ``ScheduleProfile``; fields it leaves ``None`` take the app's
    calibration (the fault count keeps the calibrated rate over the injection window). A window that
    would outlast the run is cut at its end."""
    prof = schedule_profile_from(profile)
    cat = load_catalog(app)
    prm = PARAMS[app]
    inject, episode = prof.injection_s, prof.duration_s
    if prof.n_faults is not None:
        n_min, n_max = prof.n_faults
    else:  # the app's calibrated arrival rate over this injection window
        n_min, n_max = (max(1, round(x * inject / INJECT_S)) for x in (prm.n_min, prm.n_max))
    k = prm.intensity_power if prof.intensity_power is None else prof.intensity_power
    a = prm.intensity_offset if prof.intensity_offset is None else prof.intensity_offset
    min_s, mode_s, max_s = prof.window_s or (prm.min_s, prm.mode_s, prm.max_s)
    g = Streams(release, app, int(seed)).gen("schedule")
    n = int(g.integers(n_min, n_max + 1))
    u = (np.arange(n) + g.random(n)) / max(n, 1)
    lo, hi = a ** (k + 1), (a + 1) ** (k + 1)
    starts = ((lo + u * (hi - lo)) ** (1 / (k + 1)) - a) * inject
    starts = np.minimum((starts // TICK_S) * TICK_S, inject - TICK_S).astype(int)
    durs = g.triangular(min_s, mode_s, max_s, n) if max_s > min_s else np.full(n, float(min_s))
    durs = np.clip((durs // TICK_S) * TICK_S, min_s, max_s).astype(int)
    picks = g.random(n)
    faults = prof.pick(list(cat.faults), app)
    uses = {f.id: 0 for f in faults}
    # placed faults that a later arrival may still overlap: arrivals come in start order, but one that
    # waited for a free target may start after the next ones, so overlap is checked on whole windows
    placed: list[tuple[int, int, Fault]] = []
    out: list[ScheduledFault] = []
    for i in range(n):
        s, d = int(starts[i]), int(durs[i])
        placed = [p for p in placed if p[1] > starts[i]]  # no later arrival starts before starts[i]
        while True:
            end = min(s + d, episode)
            busy = [af for a_s, a_e, af in placed if a_s < end and s < a_e]
            ok = _compatible(faults, busy)
            if ok or s + TICK_S >= inject:
                break
            s += TICK_S  # everything conflicts right now: the arrival waits for a fault to end
        if not ok:
            continue
        least = min(uses[f.id] for f in ok)
        pool = [f for f in ok if uses[f.id] == least]
        f = pool[int(picks[i] * len(pool))]
        uses[f.id] += 1
        placed.append((s, end, f))
        out.append(ScheduledFault(len(out), f.id, s, end))
    deploys = plan_deploys(app, int(seed), release, out, faults, prof, prm, k, a, inject, episode)
    return Schedule(release, app, int(seed), tuple(out), tuple(deploys), episode, inject, prof.name)


def custom_schedule(
    app: str, seed: int, release: str, faults: Any, prof: ScheduleProfile | None = None
) -> Schedule | None:
    """A hand-picked schedule from ``reset(options={"faults": [...]})``: fault ids (each starts a
    minute into the episode for 6 minutes) or ``{"fault": id, "start": s, "end": e}`` (seconds after
    the episode start), in a run as long as ``prof`` says (the marathon's 90 minutes by default). For
    curricula, fault studies and catalog validation; None means seeded."""
    if faults is None:
        return None
    prof = schedule_profile_from(prof)
    duration = prof.duration_s
    # quarantined faults may be picked by hand (to re-validate them); seeded schedules leave them out
    known = {f.id for f in load_catalog(app, include_quarantined=True).faults}
    out = []
    for i, spec in enumerate(faults):
        if isinstance(spec, str):
            spec = {"fault": spec}
        if not isinstance(spec, dict) or spec.get("fault") not in known:
            raise ValueError(f"options['faults'][{i}]: unknown fault {spec!r} for {app}")
        start = int(spec.get("start", 60))
        end = int(spec.get("end", start + 360))
        if not (0 <= start < end <= duration) or start % 15 or end % 15:
            raise ValueError(
                f"options['faults'][{i}]: start/end must be multiples of 15 s inside the "
                f"{duration} s episode"
            )
        out.append(ScheduledFault(i, spec["fault"], start, end))
    return Schedule(
        release, app, int(seed), tuple(out), (), duration, duration, f"{prof.name}+faults"
    )
