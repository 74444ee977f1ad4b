"""The backend-neutral side of fault injection: an injection, a mechanism, a probe reader, a driver.

A *mechanism* is one way of causing a fault (a commit delivered through the pipeline, an egress
NetworkPolicy, a node outage, a scaled-down deployment, ...): it injects one scheduled fault into a
world and fills in the injection's scope and artifacts, says whether its responsible artifact is
still in place, and reverts it. Each backend has a table of mechanisms (``sim/faults/mechanisms.py``
for the simulator, ``backends/live_faults.py`` for a live cluster). A *probe reader* answers each
active fault's symptom probe at a tick (the simulator from its SLI window, a live backend with
PromQL). A *driver* (``FaultDriver``) applies a schedule through a mechanism table and keeps the
evidence the scorer reads, the same on every backend: one ``injection`` and one ``revert`` event per
fault, and per tick the probe (1 healthy, 0 failing, -1 not read) and whether the artifact is present.

Nothing here knows a backend: the schedule and the catalog come in, evidence goes out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import Change, Fault
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import stable_hash

PROBE_TAIL_S = 600  # probes keep being recorded this long after a fault's revert


@dataclass
class Injection:
    """One injected fault: its window (absolute times), scope, artifact aliases and, hidden in
    ``detail``, what its mechanism needs to tell whether it is present and to revert it."""

    index: int
    fault: Fault
    start: float  # absolute time
    end: float
    culprits: list[str]
    affected: list[str]
    artifacts: list[str]
    commit: str | None = None
    detail: dict = field(default_factory=dict)  # what revert needs (hidden)
    reverted: bool = False

    def evidence(self) -> dict:
        f = self.fault
        return {
            "index": self.index,
            "fault_id": f.id,
            "category": f.category,
            "delivery": f.delivery,
            "mechanism": f.mechanism,
            "target": f.target,
            "start": self.start,
            "end": self.end,
            "culprits": list(self.culprits),
            "affected": list(self.affected),
            "artifacts": list(self.artifacts),
            "commit": self.commit,
            "probe": f.probe.model_dump(),
            "probe_services": list(self.detail.get("probe_deps", [])),
        }


def aliases(*items: str) -> list[str]:
    """Artifact aliases: lower-cased, stripped, first occurrence kept, empty ones dropped."""
    out: list[str] = []
    for it in items:
        a = it.strip().lower()
        if a and a not in out:
            out.append(a)
    return out


def key_aliases(dep: str, k: str) -> list[str]:
    """The ways to name one setting of a deployment (env.X, X, dep/X, ...)."""
    out = [k, f"{dep}/{k}", f"{dep}.{k}", f"deployment/{dep}/{k}"]
    if k.startswith("env."):
        out += [k[4:], f"{dep}/{k[4:]}"]
    return out


# names a platform team might give an egress lockdown policy (a partition fault's "auto" name)
POLICY_NAMES = (
    "{src}-egress-allowlist",
    "restrict-{src}-egress",
    "{src}-default-deny-egress",
    "egress-lockdown-{src}",
)


def policy_name(f: Fault, seed: int) -> str:
    """The NetworkPolicy's name: the catalog's, or one a platform team might pick (stable hash)."""
    name = str(f.params.get("policy") or "")
    if not name or name == "auto":
        pick = int(stable_hash(seed, f.id, digits=8), 16) % len(POLICY_NAMES)
        name = POLICY_NAMES[pick].format(src=f.target)
    return name


def policy_aliases(name: str) -> list[str]:
    """The ways to name a NetworkPolicy."""
    return aliases(name, f"networkpolicy/{name}", f"networkpolicies/{name}", f"netpol/{name}")


def replicas_aliases(dep: str) -> list[str]:
    """The ways to name a deployment's replica count."""
    return aliases(
        f"deployment/{dep}",
        f"deployments/{dep}",
        f"{dep}/replicas",
        f"{dep}.spec.replicas",
        "spec.replicas",
        "replicas",
    )


def change_aliases(ch: Change, sha: str, image: str, rev: int | None) -> list[str]:
    """The ways to name a deployed change: its commit, revision, image, or the settings it set."""
    dep = ch.service
    common = [sha, f"{dep}@{rev}", f"{dep}@revision-{rev}", f"deployment/{dep}@{rev}"]
    if ch.kind == "code":
        return aliases(*common, image, image.rsplit("/", 1)[-1])
    if ch.kind == "image":
        return aliases(*common, image, image.rsplit("/", 1)[-1], ch.image_tag or "")
    keys = [f"env.{k}" for k in ch.env] + [
        f"resources.limits.{'cpu' if k == 'cpu_limit' else 'memory'}" for k in ch.resources
    ]
    if ch.readiness_port is not None:
        keys.append("readinessProbe.port")
    items = list(common)
    for k in keys:
        items += key_aliases(dep, k)
    for flag in ch.flags:
        items += [
            flag,
            f"flags.{flag}",
            f"flagd/{flag}",
            f"flagd/flags.{flag}",
            f"flagd-config/{flag}",
            f"configmap/flagd-config/{flag}",
        ]
    return aliases(*items)


def node_aliases(kind: str, target: str, nodes: list[str]) -> list[str]:
    """The ways to name a lost node or zone."""
    out = aliases(
        target,
        f"{kind}/{target}",
        f"{kind}s/{target}",
        *(f"node/{n}" for n in nodes) if kind == "zone" else (),
    )
    if kind == "zone":
        out += aliases(f"topology.kubernetes.io/zone={target}")
    return out


class Mechanism(Protocol):
    """One way of causing a fault, on one backend. ``driver`` is the backend's ``FaultDriver``."""

    def inject(self, driver: Any, inj: Injection, t: float) -> None:
        """Act on the world at ``t`` and fill in ``inj`` (culprits, affected, artifacts, commit,
        detail)."""
        ...

    def present(self, driver: Any, inj: Injection) -> bool:
        """Is the fault's responsible artifact still in place?"""
        ...

    def revert(self, driver: Any, inj: Injection, t: float) -> None:
        """Undo the fault's own artifact (called only when it is present or ``always_revert``)."""
        ...

    def always_revert(self, driver: Any, inj: Injection) -> bool:
        """Revert even when the artifact is gone (a defect still in the repository head, chaos
        that is the injector's own)."""
        ...


class ProbeReader(Protocol):
    """Symptom probes of the active faults at one tick: 1 healthy, 0 failing."""

    def reader(self, tick: int, t: float) -> Callable[[Injection], int]:
        """A function answering each active fault's probe as of tick ``tick`` (time ``t``)."""
        ...


class FaultDriver:
    """Applies a schedule through a table of mechanisms and keeps the scorer's fault evidence.

    A backend subclasses it: it calls ``inject(i, t)`` and ``revert(i, t)`` at each fault's start
    and end (the simulator from scheduled actions, a live backend from its clock), and
    ``record_tick`` once per tick with its probe reader. ``mechanism_of`` picks a fault's mechanism."""

    def __init__(self, sched: Schedule, episode_start: float, capacity: int) -> None:
        self.sched = sched
        self.t_ep = float(episode_start)
        cat = load_catalog(sched.app, include_quarantined=True)
        self.faults = {f.id: f for f in cat.faults}
        self.changes = {c.id: c for c in cat.changes}
        nf = len(sched.faults)
        self.injections: list[Injection | None] = [None] * nf
        self.records: list[dict] = []  # evidence events, in time order
        self.probe = np.full((nf, capacity), -1, dtype=np.int8)
        self.artifact = np.full((nf, capacity), -1, dtype=np.int8)

    def mechanism_of(self, f: Fault) -> Mechanism:
        raise NotImplementedError

    def inject(self, idx: int, t: float) -> Injection:
        """Inject scheduled fault ``idx`` at ``t`` through its mechanism; record the injection."""
        sf = self.sched.faults[idx]
        f = self.faults[sf.fault_id]
        inj = Injection(idx, f, t, self.t_ep + sf.end, list(f.culprits), list(f.affected), [])
        self.mechanism_of(f).inject(self, inj, t)
        self.injections[idx] = inj
        self.records.append({"type": "injection", "t": t, **inj.evidence()})
        return inj

    def present(self, inj: Injection) -> bool:
        """Is the fault's responsible artifact still in place?"""
        return self.mechanism_of(inj.fault).present(self, inj)

    def revert(self, idx: int, t: float) -> None:
        """End fault ``idx``'s window: undo its artifact if it is still in place (if the agent
        already fixed it, the revert does nothing) and record the revert."""
        inj = self.injections[idx]
        if inj is None or inj.reverted:
            return
        inj.reverted = True
        acted = self.present(inj)
        mech = self.mechanism_of(inj.fault)
        if acted or mech.always_revert(self, inj):
            mech.revert(self, inj, t)
        self.records.append({"type": "revert", "t": t, "index": idx, "acted": acted})

    def active(self, t: float) -> list[Injection]:
        """Injections whose probes are still recorded at ``t`` (until ``PROBE_TAIL_S`` after the
        revert)."""
        return [inj for inj in self.injections if inj is not None and t <= inj.end + PROBE_TAIL_S]

    def record_tick(
        self,
        tick: int,
        t: float,
        live: list[Injection],
        health: Callable[[Injection], int],
        artifacts_past_end: bool = False,
    ) -> None:
        """One tick's evidence of the active faults: each probe, and while the window lasts (or
        with ``artifacts_past_end``, as in a what-if fork) whether the artifact is present."""
        for inj in live:
            self.probe[inj.index, tick] = health(inj)
            if t < inj.end or artifacts_past_end:
                self.artifact[inj.index, tick] = int(self.present(inj))
