"""Schedule profiles: how long a run lasts and how hard and what kind its faults are.

``marathon`` is the paper's run and the default (90 minutes: about sixty faults over a 60-minute
window of growing intensity, then 30 minutes without new faults; the per-app calibration in
``schedule.PARAMS``). ``short`` is the lighter-pressure regime the paper contrasts it with: 30 minutes,
a handful of faults arriving at an even rate over the first 20, so that they overlap far less. ``single``
is the episodic setting of other benchmarks: one fault in a 20-minute run, starting within its first
4 minutes. Any field can be set explicitly (``schedule_profile_from({"profile": "short", "n_faults": [3, 3]})``)
for curricula and ablations; a field left ``None`` takes the app's calibrated value (the fault count
keeps the calibrated arrival rate over a shorter or longer injection window).

A profile is data: it goes into the bundle manifest, and the same (release, app, seed, profile) gives
the same schedule everywhere.
"""

from __future__ import annotations

import fnmatch
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sre_gym.catalogs.schema import Fault
from sre_gym.clock import INVOCATION_S
from sre_gym.orchestrator.split import in_split


class ScheduleProfile(BaseModel):
    """One schedule regime. Times in seconds; ``window_s`` is (min, mode, max) of a fault's window."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    duration_s: int = Field(5400, ge=600, le=14400, description="length of the run")
    inject_s: int | None = Field(
        None,
        ge=15,
        description="faults start only in [0, inject_s); default: two thirds of the run",
    )
    n_faults: tuple[int, int] | None = Field(None, description="faults per run, drawn in [lo, hi]")
    intensity_power: float | None = Field(None, ge=0, le=8, description="0 = even arrival rate")
    intensity_offset: float | None = Field(None, gt=0, le=100)
    window_s: tuple[int, int, int] | None = None
    change_failure_rate: float = Field(
        0.15,
        gt=0,
        le=1,
        description="share of the injection window's deploys that deliver a fault (benign deploys "
        "make up the rest, and keep arriving at that rate after the window)",
    )
    categories: tuple[str, ...] | None = Field(None, description="only faults of these categories")
    faults: tuple[str, ...] | None = Field(
        None, description="only faults whose id matches one of these ids or glob patterns"
    )
    split: Literal["all", "train", "heldout"] | None = Field(
        None,
        description="which part of the held-out fault split to draw from (orchestrator/split.py): "
        "'train', 'heldout' or 'all'; None is 'all', or 'heldout' in evaluation mode",
    )

    @model_validator(mode="after")
    def _consistent(self) -> ScheduleProfile:
        if self.duration_s % INVOCATION_S:
            raise ValueError(f"duration_s must be a multiple of {INVOCATION_S} s")
        if self.inject_s is not None and (self.inject_s % 15 or self.inject_s > self.duration_s):
            raise ValueError("inject_s must be a multiple of 15 s and at most duration_s")
        if self.n_faults is not None and not (0 <= self.n_faults[0] <= self.n_faults[1] <= 500):
            raise ValueError("n_faults must be [lo, hi] with 0 <= lo <= hi <= 500")
        if self.window_s is not None:
            lo, mode, hi = self.window_s
            if not (60 <= lo <= mode <= hi <= self.duration_s) or lo % 15 or hi % 15:
                raise ValueError(
                    "window_s must be (min, mode, max) with 60 <= min <= mode <= max <= duration_s, "
                    "min and max multiples of 15 s"
                )
        return self

    @property
    def invocations(self) -> int:
        return self.duration_s // INVOCATION_S

    @property
    def injection_s(self) -> int:
        """The injection window: ``inject_s``, or the marathon's share of the run (60 of 90 min)."""
        return self.inject_s if self.inject_s is not None else self.duration_s * 2 // 3 // 15 * 15

    def pick(self, faults: list[Fault], app: str) -> list[Fault]:
        """The catalog faults this profile may schedule; a filter that leaves nothing is an error."""
        out = faults
        part = self.split or "all"
        if part != "all":
            out = [f for f in out if in_split(app, f.id, part)]
        if self.categories is not None:
            known = {f.category for f in faults}
            unknown = sorted(set(self.categories) - known)
            if unknown:
                raise ValueError(
                    f"schedule profile: no {app} fault has category {', '.join(unknown)} "
                    f"(categories: {', '.join(sorted(known))})"
                )
            out = [f for f in out if f.category in self.categories]
        if self.faults is not None:
            for pat in self.faults:
                if not any(fnmatch.fnmatchcase(f.id, pat) for f in faults):
                    raise ValueError(
                        f"schedule profile: {pat!r} matches no schedulable {app} fault "
                        "(quarantined faults run only from reset(options={'faults': [...]}))"
                    )
            out = [f for f in out if any(fnmatch.fnmatchcase(f.id, p) for p in self.faults)]
        if not out:
            where = f" in the {part!r} part of the fault split" if part != "all" else ""
            raise ValueError(
                f"schedule profile {self.name!r}: its filters leave no {app} fault{where}"
            )
        return out


def schedule_profile_key(p: ScheduleProfile) -> str:
    """The name results are filed under: a named profile's name, else its fields as sorted JSON."""
    if SCHEDULE_PROFILES.get(p.name) == p:
        return p.name
    return json.dumps(p.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


SCHEDULE_PROFILES: dict[str, ScheduleProfile] = {
    "marathon": ScheduleProfile(name="marathon"),
    "short": ScheduleProfile(name="short", duration_s=1800, n_faults=(6, 8), intensity_power=0.0),
    "single": ScheduleProfile(
        name="single", duration_s=1200, inject_s=240, n_faults=(1, 1), intensity_power=0.0
    ),
}
DEFAULT = "marathon"


def schedule_profile_from(spec: Any) -> ScheduleProfile:
    """A profile from its name, a ``ScheduleProfile``, or a dict of fields (``{"profile": base, ...}``
    starts from a named profile and overrides some of its fields). Raises ``ValueError`` with the
    reason on anything else."""
    if spec is None:
        return SCHEDULE_PROFILES[DEFAULT]
    if isinstance(spec, ScheduleProfile):
        return spec
    if isinstance(spec, str):
        if spec not in SCHEDULE_PROFILES:
            raise ValueError(
                f"unknown schedule profile {spec!r}; known: {', '.join(SCHEDULE_PROFILES)} "
                "(or a dict of ScheduleProfile fields)"
            )
        return SCHEDULE_PROFILES[spec]
    if isinstance(spec, dict):
        fields = dict(spec)
        base = fields.pop("profile", None)
        start = schedule_profile_from(base).model_dump() if base is not None else {}
        if base is not None and "name" not in fields:
            start["name"] = f"{base}+custom" if fields else base
        try:
            return ScheduleProfile(**{**start, **fields})
        except ValidationError as e:
            why = "; ".join(
                f"{'.'.join(map(str, er['loc'])) or 'profile'}: {er['msg']}" for er in e.errors()
            )
            raise ValueError(f"bad schedule profile: {why}") from None
    raise ValueError(
        f"a schedule profile is a name ({', '.join(SCHEDULE_PROFILES)}), a dict or a ScheduleProfile, "
        f"not {type(spec).__name__}"
    )
