"""The ground floor: the run's clock, its cadence and the bounds every backend enforces alike.

Nothing here imports from the rest of sre_gym, so every layer (simulator, live backend, tools,
agents, scoring) can depend on it without depending on each other.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from typing import Any

EPOCH = 1767225600  # 2026-01-01T00:00:00Z: wall-clock origin of every simulated run
TICK_S = 15  # one scrape interval: the simulator's step and the telemetry's resolution
INVOCATION_S = 120  # the agent is invoked every 120 seconds; runs last a whole number of them
INJECT_S = 3600  # faults and deploys arrive in the first 60 minutes ...
EPISODE_S = 5400  # ... and the run goes on for 30 quiet minutes more
MAX_REPLICAS = 20  # the replica bound of scale operations, on every backend

_TS = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$")


@functools.lru_cache(maxsize=1 << 16)  # alert views format the same few hundred times every step
def _seconds(t: int) -> str:
    return _dt.datetime.fromtimestamp(t, tz=_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339(t: float, nanos: bool = False) -> str:
    """Unix seconds as an RFC 3339 UTC timestamp, whole seconds (``nanos``: with the 9-digit
    fraction kubelet log lines carry). No wall clock is read."""
    if not nanos:
        return _seconds(int(t))
    d = _dt.datetime.fromtimestamp(t, tz=_dt.UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond:06d}000Z"


def parse_time(s: Any) -> float | None:
    """Unix seconds of an RFC 3339 timestamp (any fraction length, ``Z`` or offset), or None."""
    if not isinstance(s, str):
        return None
    m = _TS.match(s.strip())
    if not m:
        return None
    base, frac, tz = m.groups()
    tz = "+00:00" if tz in (None, "Z") else (tz if ":" in tz else f"{tz[:3]}:{tz[3:]}")
    d = _dt.datetime.fromisoformat(f"{base}{tz}")
    return d.timestamp() + (float(f"0.{frac}") if frac else 0.0)
