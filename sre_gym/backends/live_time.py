"""Time on a live cluster: the episode clock, and the one transform that compresses an episode.

A live run follows a ``Clock``: ``now()`` is the episode time (unix seconds) and ``sleep(s)`` waits
``s`` episode seconds. ``WallClock`` is the wall clock, for a real cluster. ``CompressedClock(k)``
runs the episode ``k`` times faster than the wall clock, for tests: the fake cluster keeps episode
time, while a real Prometheus keeps wall time. Its ``scale`` (a ``TimeScale``) is the one documented
transform between the two, applied everywhere the episode meets Prometheus:

- times: an episode time ``t`` is Prometheus time ``prom0 + (t - ep0) / k`` (queries, alert
  ``activeAt``, range results);
- durations: every duration in PromQL (range selectors, subquery ranges and steps, ``offset``), a
  rule's ``for:``, a group's ``interval``, and the scrape and evaluation intervals, divided by ``k``
  (``compress_promql``, ``compress_rule_file``);
- counters: the loopback exporter advances a counter by (episode rate) x (Prometheus seconds), so a
  ``rate()`` over the compressed window reads the episode's rate per second, and every threshold of
  the rule pack (ratios, rates, counts, latencies, gauges) stays as written.

With ``k = 1`` (``WallClock``) every transform is the identity. See docs/live.md.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Protocol

import promql_parser as pp

# a PromQL duration literal: 1h30m, 5m, 250ms, ...
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000, "w": 604_800_000}
_UNIT_MS["y"] = 365 * _UNIT_MS["d"]
_DURATION = r"(?:\d+(?:ms|[smhdwy]))+"
_PART = re.compile(r"(\d+)(ms|[smhdwy])")
# durations appear in PromQL only in [range], [range:step], [:step] and after offset
_RANGE = re.compile(rf"\[\s*({_DURATION})?\s*(?::\s*({_DURATION})?\s*)?\]")
_OFFSET = re.compile(rf"\boffset\s+(-?)({_DURATION})")


def duration_ms(text: str) -> int:
    """Milliseconds of a PromQL duration literal (``1h30m`` -> 5400000)."""
    parts = _PART.findall(text)
    if not parts or "".join(a + b for a, b in parts) != text:
        raise ValueError(f"not a PromQL duration: {text!r}")
    return sum(int(n) * _UNIT_MS[u] for n, u in parts)


def format_ms(ms: int) -> str:
    """A duration literal for ``ms`` milliseconds, in the largest unit that divides it."""
    for unit in ("h", "m", "s"):
        if ms % _UNIT_MS[unit] == 0 and ms:
            return f"{ms // _UNIT_MS[unit]}{unit}"
    return f"{ms}ms"


@dataclass(frozen=True)
class TimeScale:
    """Episode time runs ``k`` times faster than Prometheus time; ``episode0`` and ``prom0`` are
    the same instant on each clock. ``k = 1`` with equal origins is the identity."""

    k: float = 1.0
    episode0: float = 0.0
    prom0: float = 0.0

    @property
    def identity(self) -> bool:
        return self.k == 1.0 and self.episode0 == self.prom0

    def to_prom(self, t: float) -> float:
        return self.prom0 + (float(t) - self.episode0) / self.k

    def from_prom(self, t: float) -> float:
        return self.episode0 + (float(t) - self.prom0) * self.k

    def seconds(self, s: float) -> float:
        """An episode duration in Prometheus seconds."""
        return float(s) / self.k

    def duration(self, text: str) -> str:
        """A PromQL duration literal divided by ``k`` (exactly, in milliseconds)."""
        ms = duration_ms(text)
        out = ms / self.k
        if out != int(out) or (ms and out < 1):
            raise ValueError(f"{text} / {self.k:g} is not a whole number of milliseconds")
        return format_ms(int(out))


def compress_promql(query: str, scale: TimeScale) -> str:
    """``query`` with every duration (ranges, subquery steps, offsets) divided by ``scale.k``.
    The result parses, and has the same structure (checked with promql-parser)."""
    if scale.k == 1.0:
        return query

    def rng(m: re.Match) -> str:
        a, b = m.group(1), m.group(2)
        inner = scale.duration(a) if a else ""
        if ":" in m.group(0):
            inner += ":" + (scale.duration(b) if b else "")
        return f"[{inner}]"

    out = _RANGE.sub(rng, query)
    out = _OFFSET.sub(lambda m: f"offset {m.group(1)}{scale.duration(m.group(2))}", out)
    try:
        pp.parse(out)
    except ValueError as e:  # pragma: no cover - a duration inside a string literal, say
        raise ValueError(f"compressing {query!r} gave an invalid query: {e}") from None
    return out


def compress_rule_file(doc: dict[str, Any], scale: TimeScale) -> dict[str, Any]:
    """A rule file document with each rule's ``expr`` durations and ``for:``, and each group's
    ``interval``, divided by ``scale.k`` (``keep_firing_for`` too). Nothing else changes."""
    groups = []
    for g in doc.get("groups") or []:
        g2 = dict(g)
        if g.get("interval"):
            g2["interval"] = scale.duration(str(g["interval"]))
        rules = []
        for r in g.get("rules") or []:
            r2 = dict(r)
            r2["expr"] = compress_promql(str(r["expr"]), scale)
            for key in ("for", "keep_firing_for"):
                if r.get(key):
                    r2[key] = scale.duration(str(r[key]))
            rules.append(r2)
        g2["rules"] = rules
        groups.append(g2)
    return {**doc, "groups": groups}


class Clock(Protocol):
    """The episode clock of a live run."""

    scale: TimeScale

    def now(self) -> float: ...
    def sleep(self, s: float) -> None: ...


class WallClock:
    """The wall clock: episode time is unix time, and Prometheus keeps the same time."""

    scale = TimeScale()

    def now(self) -> float:
        return time.time()

    def sleep(self, s: float) -> None:
        if s > 0:
            time.sleep(s)


class CompressedClock:
    """Episode time running ``k`` times faster than the wall clock, from ``start`` (episode time,
    default: the wall clock now) at the moment it is made. Prometheus keeps wall time; ``scale``
    maps between them."""

    def __init__(self, k: float, start: float | None = None) -> None:
        if k <= 0:
            raise ValueError("k must be positive")
        self.k = float(k)
        self.wall0 = time.time()
        self.start = float(start) if start is not None else self.wall0
        self.scale = TimeScale(self.k, self.start, self.wall0)

    def now(self) -> float:
        return self.start + (time.time() - self.wall0) * self.k

    def sleep(self, s: float) -> None:
        if s > 0:
            time.sleep(s / self.k)
