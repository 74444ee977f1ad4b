"""The application services' pods: replicas, rolling restarts and readiness.

A Deployment is rolled one pod at a time, as Kubernetes does for two replicas under the default
strategy (maxSurge 25 % rounds up to 1, maxUnavailable 25 % rounds down to 0): a new pod is
created, boots, turns ready at the first readiness probe after its boot, and only then replaces an
old pod; then the next. A pod reads the settings its process takes at start (a pool's size) from
the stored configuration when it starts, so a change to such a setting reaches the traffic pod by
pod, and a running pod keeps what it started with until it is replaced.

Boot times are drawn from the ``rng`` streams keyed by service and rollout number, so what the
agent reads never changes them and the same actions always give the same rollout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sre_gym import fmath
from sre_gym.catalogs.arena.schema import Substrate
from sre_gym.rng import Streams


@dataclass
class Deployment:
    slots: list[int]  # the version each replica runs
    versions: dict[int, dict[str, Any]]  # version -> the start-time settings it read
    pending: list[tuple[int, int, int]] = field(default_factory=list)  # (t_ready, slot, version)
    rollouts: int = 0
    started: list[float] = field(default_factory=list)  # when each replica turned ready


def ready_after(boot_s: float, delay_s: float, period_s: float) -> int:
    """Seconds from pod creation to ready: the first probe at ``delay + k * period`` that finds
    the process booted."""
    k = max(0, math.ceil((boot_s - delay_s) / period_s))
    return int(math.ceil(delay_s + k * period_s))


class Deployments:
    def __init__(self, sub: Substrate, streams: Streams, config: dict[str, Any]) -> None:
        self.sub = sub
        self.streams = streams
        self.deps: dict[str, Deployment] = {}
        for svc in sub.services:
            if svc in sub.stateful:
                continue
            n = max(1, int(config.get(f"{svc}.replicas", 1)))
            # pods started long before the run: their caches are warm
            self.deps[svc] = Deployment(
                [0] * n, {0: self._start_values(svc, config)}, started=[-1e9] * n
            )

    def _start_values(self, svc: str, stored: dict[str, Any]) -> dict[str, Any]:
        return {
            k: stored[k] for k in self.sub.start_keys if k.startswith(svc + ".") and k in stored
        }

    def roll(self, svc: str, t: int, stored: dict[str, Any]) -> list[int]:
        """Start a rolling restart of ``svc`` at ``t`` (now, or once a build is done); pods start
        from ``stored``. A rollout started during another one takes over from the pods that are
        running now. Returns the ready times of the new pods."""
        d = self.deps[svc]
        d.rollouts += 1
        v = max(d.versions) + 1
        d.versions[v] = self._start_values(svc, stored)
        d.pending = []
        r = self.sub.rollout
        g = self.streams.gen(f"arena:boot:{svc}", d.rollouts)
        boots = r.boot_s * g.lognormal(0.0, r.boot_sigma, len(d.slots))
        ready, now = [], int(t)
        for slot, boot in enumerate(boots):
            now += ready_after(float(boot), r.probe_delay_s, r.probe_period_s)
            d.pending.append((now, slot, v))
            ready.append(now)
        return ready

    def reseed(self, svc: str, stored: dict[str, Any]) -> None:
        """The running pods as if they had started from ``stored`` (a fault in the deployed
        values, present since boot)."""
        d = self.deps.get(svc)
        if d is not None:
            for v in set(d.slots):
                d.versions[v] = self._start_values(svc, stored)

    def image(self, svc: str, slot: int) -> Any:
        d = self.deps[svc]
        return d.versions[d.slots[slot]].get(f"{svc}.image")

    def next_change(self, t: int) -> int | None:
        ts = [p[0] for d in self.deps.values() for p in d.pending if p[0] > t]
        return min(ts) if ts else None

    def advance(self, t: int) -> list[tuple[str, int, int, dict[str, Any]]]:
        """Replace every pod whose successor is ready by ``t``; returns the pods that started
        (service, slot, ready time, start-time settings)."""
        started = []
        for svc, d in self.deps.items():
            keep = []
            for tr, slot, v in d.pending:
                if tr <= t:
                    d.slots[slot] = v
                    d.started[slot] = float(tr)
                    started.append((svc, slot, tr, d.versions[v]))
                else:
                    keep.append((tr, slot, v))
            d.pending = keep
            live = set(d.slots) | {v for _, _, v in d.pending}
            d.versions = {v: x for v, x in d.versions.items() if v in live}
        return started

    def resize(self, svc: str, replicas: int) -> None:
        """Scale: surplus pods go at once; added pods run the newest version (a simplification:
        their boot is not modelled, the pool share follows the stored total either way)."""
        d = self.deps.get(svc)
        if d is None or replicas <= 0:
            return
        newest = max(d.versions)
        d.slots = (d.slots + [newest] * replicas)[:replicas]
        d.started = (d.started + [-1e9] * replicas)[:replicas]

    def cold_share(self, svc: str, secs: np.ndarray, ttl_s: float) -> np.ndarray:
        """Per second, the share of the service's lookups that miss a cache its pods fill from
        empty at start: a pod's misses fall off as exp(-age / ttl) (entries live ``ttl_s``)."""
        d = self.deps.get(svc)
        out = np.zeros(len(secs))
        if d is None or ttl_s <= 0:
            return out
        for t0 in d.started:
            out += fmath.exp(-np.maximum(secs - t0, 0.0) / ttl_s)
        return out / len(d.started)

    def generations(self, svc: str) -> list[tuple[float, dict[str, Any]]]:
        """(share of the service's pods, start-time settings) per running version."""
        d = self.deps.get(svc)
        if d is None:
            return []
        n = len(d.slots)
        return [(d.slots.count(v) / n, d.versions[v]) for v in sorted(set(d.slots))]

    def rolling(self, svc: str) -> bool:
        d = self.deps.get(svc)
        return bool(d and d.pending)

    def snapshot(self) -> dict[str, Any]:
        out = {}
        for svc, d in sorted(self.deps.items()):
            newest = max(d.versions)
            out[svc] = {
                "replicas": len(d.slots),
                "updated": d.slots.count(newest),
                "rollouts": d.rollouts,
                "rolling": bool(d.pending),
            }
        return out
