"""The arena's open-loop load: a seeded per-second arrival schedule for every lane.

After Incident-Arena's load generator: a warm-up, then repeating [peak, trough] cycles, Poisson
arrivals with a small seeded rate jitter, open loop (a slow system does not slow the offered load).
Arrivals are drawn once for the whole horizon at reset from the ``rng`` streams, so what the agent
does (or reads) never changes the traffic it is graded on.
"""

from __future__ import annotations

import numpy as np

from sre_gym import fmath
from sre_gym.catalogs.arena.schema import Load, Substrate
from sre_gym.rng import Streams

WARMUP, PEAK, TROUGH = 0, 1, 2


def phases(load: Load, horizon: int) -> np.ndarray:
    """Phase of every second (WARMUP, PEAK, TROUGH)."""
    t = np.arange(horizon)
    pos = (t - load.warmup_s) % load.period_s
    out = np.where(pos < load.peak_s, PEAK, TROUGH).astype(np.int8)
    out[t < load.warmup_s] = WARMUP
    return out


def rates(load: Load, horizon: int) -> np.ndarray:
    """The scheduled total rate (requests/s, before driver multipliers) of every second."""
    ph = phases(load, horizon)
    r = np.where(ph == PEAK, load.peak_rps, load.trough_rps).astype(float)
    r[ph == WARMUP] = load.warmup_rps
    return r


def cycle_start_at_or_after(load: Load, t: float) -> int:
    """The first cycle boundary (start of a peak) at or after ``t`` (never before the warm-up end)."""
    t = max(float(t), float(load.warmup_s))
    k = int(np.ceil((t - load.warmup_s) / load.period_s))
    return load.warmup_s + k * load.period_s


def arrivals(
    sub: Substrate, load: Load, streams: Streams, horizon: int
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(lane names, scheduled mean arrivals [lanes, seconds], drawn arrivals [lanes, seconds])."""
    lanes = sorted(sub.lanes)
    base = rates(load, horizon)
    jitter = 1.0 + load.rate_jitter * streams.gen("arena:jitter").standard_normal(horizon)
    mean = np.empty((len(lanes), horizon))
    for i, name in enumerate(lanes):
        lane = sub.lanes[name]
        mult = load.drivers.get(lane.driver, 0.0)
        mean[i] = np.clip(base * jitter, 0, None) * mult * lane.share
    drawn = np.empty_like(mean, dtype=np.int64)
    for i, name in enumerate(lanes):
        drawn[i] = streams.gen(f"arena:arrivals:{name}").poisson(mean[i])
    for i, name in enumerate(lanes):
        src = sub.lanes[name].follows
        if src is not None:  # the same requests, seen at a later stage (a job's run)
            j = lanes.index(src)
            mean[i], drawn[i] = mean[j], drawn[j]
    return lanes, mean, drawn


def noise(lanes: list[str], streams: Streams, horizon: int) -> np.ndarray:
    """Per-second multiplicative latency noise (lognormal, sigma 0.05) per lane."""
    out = np.empty((len(lanes), horizon))
    for i, name in enumerate(lanes):
        out[i] = fmath.exp(0.05 * streams.gen(f"arena:noise:{name}").standard_normal(horizon))
    return out
