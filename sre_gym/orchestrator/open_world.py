"""The open world: benign anomalies a production namespace shows with no fault behind them.

Faults are not the only abnormal things in a real namespace. Third parties have flaky spells, batch
jobs and exporters get OOM-killed, people edit deployments by hand, kubelets stop reporting for a
minute and come back, marketing campaigns double the traffic and the autoscalers follow, clients
send requests that fail validation. Each anomaly here is drawn from the run's own counter-based
stream, ``Streams(release, app, seed).gen("open-world")``, independently of the fault schedule; the
only place the schedule enters is to keep a node flap off a node that a fault takes down (two
actors would fight over the same kubelet). None is recorded as evidence or scored, and each can be
ruled out by looking: the errors name an outside host, the crashing workload serves no request, the
hand edit sets a log level, the node is Ready again a minute later, the scale events name the HPA.

``NoiseProfile`` sets the rates, per hour and per thing they happen to (an outside dependency, a side
workload, ten services, a node); its defaults (``production``) are a judgement of what a team's
namespace sees, not a measurement, set so that in a marathon with no agent about one alert in five
has no fault behind it: two flaky spells of each third party an hour (the failing calls time
out, so latency rises with the errors), two or three OOM kills of each side workload an hour, one or
two hand edits an hour per ten services, a node flap every four hours per node, two traffic surges an
hour, and 0.2 % of requests failing as client errors. Like the fault schedule, this is a compressed
hour: a real namespace spreads as much over a day. ``quiet`` keeps only the load noise of
``sim/faults/noise.py``, ``off`` turns both off.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.catalogs.schema import parse_mem
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import Streams

KINDS = ("third_party", "side_oom", "manual_edit", "node_flap", "surge")
# settings people change by hand: none is an address, a timeout or anything a fault breaks
HAND_EDITS = (
    ("LOG_LEVEL", ("debug", "trace")),
    ("OTEL_TRACES_SAMPLER_ARG", ("0.5", "1.0")),
    ("DEBUG_HEADERS", ("true",)),
)
FLAP_GUARD_S = 120  # a node flap keeps this far from a fault's window on the same machine


class NoiseProfile(BaseModel):
    """How noisy the world is besides the faults: rates per hour of the run and sizes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    load_noise: float = Field(1.0, ge=0, le=10, description="scale of noise.py's load noise")
    background_error: float = Field(
        0.002,
        ge=0,
        le=0.05,
        description="share of every service's requests failing as client errors",
    )
    third_party_per_hour: float = Field(2.0, ge=0, le=60, description="per outside dependency")
    third_party_error: tuple[float, float] = (0.08, 0.3)
    third_party_s: tuple[int, int] = (120, 420)
    side_oom_per_hour: float = Field(2.5, ge=0, le=60, description="per side workload")
    side_oom_s: tuple[int, int] = (120, 600)
    manual_edit_per_hour: float = Field(1.5, ge=0, le=60, description="per ten serving services")
    manual_revert_after_s: tuple[int, int] = (300, 1500)
    node_flap_per_hour: float = Field(0.25, ge=0, le=60, description="per node")
    node_flap_s: tuple[int, int] = (25, 90)
    surge_per_hour: float = Field(2.0, ge=0, le=60, description="for the namespace")
    surge_factor: tuple[float, float] = (1.5, 2.2)
    surge_s: tuple[int, int] = (300, 720)


NOISE_PROFILES: dict[str, NoiseProfile] = {
    "production": NoiseProfile(name="production"),
    "quiet": NoiseProfile(
        name="quiet",
        background_error=0.0,
        third_party_per_hour=0.0,
        side_oom_per_hour=0.0,
        manual_edit_per_hour=0.0,
        node_flap_per_hour=0.0,
        surge_per_hour=0.0,
    ),
}
NOISE_PROFILES["off"] = NOISE_PROFILES["quiet"].model_copy(
    update={"name": "off", "load_noise": 0.0}
)


def noise_profile_from(spec: Any) -> NoiseProfile:
    """A noise profile from its name, a ``NoiseProfile`` or a dict of fields (``{"profile": base,
    ...}`` overrides some fields of a named one); ``ValueError`` with the reason otherwise."""
    if spec is None:
        return NOISE_PROFILES["production"]
    if isinstance(spec, NoiseProfile):
        return spec
    if isinstance(spec, str):
        if spec not in NOISE_PROFILES:
            raise ValueError(f"unknown noise profile {spec!r}; known: {', '.join(NOISE_PROFILES)}")
        return NOISE_PROFILES[spec]
    if isinstance(spec, dict):
        fields = dict(spec)
        base = noise_profile_from(fields.pop("profile", "production")).model_dump()
        base["name"] = fields.pop("name", "custom")
        try:
            return NoiseProfile(**{**base, **fields})
        except ValidationError as e:
            why = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
            raise ValueError(f"bad noise profile: {why}") from None
    raise ValueError(
        f"a noise profile is a name, a dict or a NoiseProfile, not {type(spec).__name__}"
    )


@dataclass(frozen=True)
class Anomaly:
    """One benign anomaly: ``kind`` on ``target`` from ``start`` to ``end`` (seconds after the
    episode start), of size ``amount`` (error share, traffic factor), ``detail`` as the kind needs."""

    index: int
    kind: str
    target: str
    start: int
    end: int
    amount: float = 0.0
    detail: tuple[tuple[str, str], ...] = ()

    def __deepcopy__(self, memo: dict | None = None) -> Anomaly:
        return self  # frozen values: copies of the world share it


def _node_held(sched: Schedule, node: str, lo: int, hi: int) -> bool:
    cat = load_catalog(sched.app, include_quarantined=True)
    faults = {f.id: f for f in cat.faults}
    zone = {n.name: n.zone for n in cat.app.nodes}
    for sf in sched.faults:
        f = faults[sf.fault_id]
        if f.mechanism not in ("node_failure", "zone_outage"):
            continue
        near = sf.start - FLAP_GUARD_S <= hi and lo <= sf.end + FLAP_GUARD_S
        if near and f.target in (node, zone.get(node)):
            return True
    return False


def plan(sched: Schedule, profile: NoiseProfile, release: str = RELEASE) -> tuple[Anomaly, ...]:
    """The anomalies of one run: a pure function of (release, app, seed, profile), the schedule
    entering only to keep node flaps off nodes a fault holds."""
    app = load_catalog(sched.app).app
    g = Streams(release, sched.app, sched.seed).gen("open-world")
    episode = sched.duration_s
    serving = [s.name for s in app.serving]
    side = [s.name for s in app.services if s.kind == "batch"]
    externals = list(app.externals)
    rates = {  # a bigger namespace sees more of each: rates scale with what they happen to
        "third_party": profile.third_party_per_hour * len(externals),
        "side_oom": profile.side_oom_per_hour * len(side),
        "manual_edit": profile.manual_edit_per_hour * len(serving) / 10.0,
        "node_flap": profile.node_flap_per_hour * len(app.nodes),
        "surge": profile.surge_per_hour,
    }
    out: list[Anomaly] = []
    for kind in KINDS:
        m = int(round(rates[kind] * episode / 3600.0))
        if m <= 0:
            continue
        u = g.random((m, 6))
        for i in range(m):
            r = u[i]
            start = int((i + r[0]) / m * (episode - 300)) // 15 * 15

            def span(lohi: tuple[float, float], x: float) -> float:
                return lohi[0] + x * (lohi[1] - lohi[0])

            if kind == "third_party":
                x = externals[int(r[1] * len(externals))]
                end = start + int(span(profile.third_party_s, r[2])) // 15 * 15
                amt = span(profile.third_party_error, r[3])
                a = Anomaly(
                    0,
                    kind,
                    x.service,
                    start,
                    end,
                    round(float(amt), 4),
                    (("host", x.host), ("what", x.what), ("timeout_ms", x.timeout_ms)),
                )
            elif kind == "side_oom":
                tgt = side[int(r[1] * len(side))]
                end = start + int(span(profile.side_oom_s, r[2])) // 15 * 15
                a = Anomaly(0, kind, tgt, start, end)
            elif kind == "manual_edit":
                tgt = serving[int(r[1] * len(serving))]
                key, values = HAND_EDITS[int(r[2] * len(HAND_EDITS))]
                value = values[int(r[3] * len(values))]
                # about half the hand edits are taken back by hand later
                back = r[4] < 0.5
                end = start + int(span(profile.manual_revert_after_s, r[5])) // 15 * 15
                a = Anomaly(
                    0,
                    kind,
                    tgt,
                    start,
                    end if back else episode + 1,
                    detail=(("key", key), ("value", value)),
                )
            elif kind == "node_flap":
                node = app.nodes[int(r[1] * len(app.nodes))].name
                end = start + max(15, int(span(profile.node_flap_s, r[2])) // 15 * 15)
                if _node_held(sched, node, start, end):
                    continue
                a = Anomaly(0, kind, node, start, end)
            else:
                end = start + int(span(profile.surge_s, r[2])) // 15 * 15
                a = Anomaly(
                    0,
                    kind,
                    app.entrypoint,
                    start,
                    end,
                    round(float(span(profile.surge_factor, r[3])), 3),
                )
            out.append(a)
    out.sort(key=lambda a: (a.start, a.kind, a.target))
    return tuple(
        Anomaly(i, a.kind, a.target, a.start, a.end, a.amount, a.detail) for i, a in enumerate(out)
    )


class OpenWorld:
    """Applies a plan to a simulated cluster through the operations anyone would use (an edited
    deployment, a node that stops reporting) and the world's own knobs (traffic, third parties)."""

    def __init__(self, cl, sched: Schedule, episode_start: float, profile: NoiseProfile) -> None:
        self.cl = cl
        self.t_ep = float(episode_start)
        self.profile = profile
        self.anomalies = plan(sched, profile, cl.release)
        self.before: dict[int, str | None] = {}
        cl.background_error = profile.background_error
        for a in self.anomalies:
            cl.at(self.t_ep + a.start, functools.partial(self._start, a.index))
            if a.end <= sched.duration_s:
                cl.at(self.t_ep + a.end, functools.partial(self._stop, a.index))

    def _start(self, i: int, t: float) -> None:
        a = self.anomalies[i]
        cl = self.cl
        d = dict(a.detail)
        if a.kind == "third_party":
            cl.third_party(a.target, a.amount, f"{d['what']} {d['host']}", t, d["timeout_ms"])
        elif a.kind == "side_oom":
            dep = cl.world.deployment(a.target)
            limit = parse_mem(dep.current.template.mem_limit)
            cl.set_pod_condition(a.target, "balloon", 1.3 * limit, t)
        elif a.kind == "manual_edit":
            dep = cl.world.deployment(a.target)
            self.before[i] = dep.current.template.env_dict().get(d["key"])
            cl.patch(a.target, f"env.{d['key']}", d["value"], t, cause="")
        elif a.kind == "node_flap":
            node = next(n for n in cl.world.nodes if n.name == a.target)
            if node.ready:
                cl.set_node_ready(a.target, False, t)
            else:
                self.before[i] = "down"  # already down: not this flap's to heal
        else:
            cl.load_factor *= a.amount

    def _stop(self, i: int, t: float) -> None:
        a = self.anomalies[i]
        cl = self.cl
        d = dict(a.detail)
        if a.kind == "third_party":
            cl.third_party(a.target, -a.amount, "", t, d["timeout_ms"])
        elif a.kind == "side_oom":
            cl.set_pod_condition(a.target, "balloon", 0.0, t)
        elif a.kind == "manual_edit":
            dep = cl.world.deployment(a.target)
            if dep.current.template.env_dict().get(d["key"]) != d["value"]:
                return  # someone changed it since
            prev = self.before.get(i)
            if prev is None:
                cl.unset_env(a.target, d["key"], t)
            else:
                cl.patch(a.target, f"env.{d['key']}", prev, t, cause="")
        elif a.kind == "node_flap":
            if self.before.get(i) != "down":
                cl.set_node_ready(a.target, True, t)
        else:
            cl.load_factor /= a.amount
