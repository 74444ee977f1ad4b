"""Value types shared by the PromQL engine modules.

An instant vector is evaluated at many times at once: ``labels`` is a tuple of label sets (one per
row) and ``values``/``present`` are ``[n_rows, n_times]`` arrays. Presence is kept separately from
the values because PromQL has real NaN samples (``0/0``) that are different from "no sample".
Label tuples are shared between evaluations while the underlying series do not change, so every
label-only computation can be cached by the identity of its input ``labels`` object.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ..tsdb import as_float64

LabelSet = tuple[tuple[str, str], ...]  # sorted (name, value) pairs, including __name__
Labels = tuple[LabelSet, ...]

NAME = "__name__"


class PromQLError(ValueError):
    """Any parse, type or evaluation error of a PromQL query."""


class Vec:
    """Instant vector over times: rows are series, columns evaluation times."""

    __slots__ = ("labels", "values", "present")

    def __init__(self, labels: Labels, values: np.ndarray, present: np.ndarray) -> None:
        self.labels = labels
        self.values = values
        self.present = present


class Scal:
    """Scalar over times."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


class Str:
    """String literal (the same at every time)."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value


class RangeIn:
    """A range vector argument: samples on a regular grid plus one window per evaluation time.

    ``data``/``present`` are ``[n, G]`` with sample times ``g0 + j * gstep`` (ms). The window for
    output column ``k`` is the closed interval ``[ref[k] - range_ms, ref[k]]`` (Prometheus 2.x).
    ``rows`` (optional) selects rows of ``data`` lazily, so TSDB families are never copied whole.
    """

    __slots__ = (
        "labels",
        "data",
        "present",
        "rows",
        "g0",
        "gstep",
        "ref",
        "range_ms",
        "enh_ts",
        "node",
    )

    def __init__(
        self,
        labels: Labels,
        data: np.ndarray,
        present: np.ndarray | None,
        rows: np.ndarray | None,
        g0: int,
        gstep: int,
        ref: np.ndarray,
        range_ms: int,
        enh_ts: np.ndarray,
        node: object,
    ) -> None:
        self.labels = labels
        self.data = data
        self.present = present
        self.rows = rows
        self.g0 = g0
        self.gstep = gstep
        self.ref = ref
        self.range_ms = range_ms
        self.enh_ts = enh_ts
        self.node = node

    @property
    def n_grid(self) -> int:
        return self.data.shape[1]

    def window_index(self, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Grid index of the first sample and validity mask ``[T, W]`` of each window."""
        g = self.n_grid
        lo = -((self.g0 - (ref - self.range_ms)) // self.gstep)  # ceil division
        hi = (ref - self.g0) // self.gstep
        lo = np.maximum(lo, 0)
        hi = np.minimum(hi, g - 1)
        width = int((hi - lo).max()) + 1 if len(ref) else 0
        if width <= 0:
            return lo, np.zeros((len(ref), 0), dtype=bool), 0
        idx = lo[:, None] + np.arange(width)
        valid = idx <= hi[:, None]
        return lo, valid, width

    def windows(self, sl: slice = slice(None)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Gather ``X[n, T, W]``, presence ``P[n, T, W]`` and sample times ``tms[T, W]`` (ms)."""
        ref = self.ref[sl]
        lo, valid, width = self.window_index(ref)
        n = len(self.labels)
        t = len(ref)
        if width == 0 or self.n_grid == 0:
            return (
                np.full((n, t, 0), np.nan),
                np.zeros((n, t, 0), dtype=bool),
                np.zeros((t, 0), dtype=np.int64),
            )
        idx = lo[:, None] + np.arange(width)
        cols = np.minimum(idx, self.n_grid - 1).ravel()
        if self.rows is not None:
            x = self.data[self.rows[:, None], cols[None, :]].reshape(n, t, width)
        else:
            x = self.data[:, cols].reshape(n, t, width)
        x = as_float64(x)
        if self.present is None:
            p = ~np.isnan(x)
        else:
            src = self.present if self.rows is None else self.present[self.rows]
            p = src[:, cols].reshape(n, t, width)
        p &= valid[None]
        tms = self.g0 + idx * self.gstep
        return x, p, tms


@dataclass
class Ctx:
    """Evaluation context: the times (ms) and the query start/end used by ``@ start()/end()``."""

    times: np.ndarray  # int64 ms, [T]
    start: np.ndarray  # int64 ms, [T]
    end: np.ndarray  # int64 ms, [T]

    @property
    def n(self) -> int:
        return len(self.times)

    @functools.cached_property
    def key(self) -> bytes:
        """The context as bytes (a dictionary key)."""
        return self.times.tobytes() + self.start.tobytes() + self.end.tobytes()


@dataclass
class Result:
    """Result of :meth:`Engine.eval`: ``values`` is NaN where a series is absent.

    ``present`` distinguishes absent series from real NaN samples. ``labels`` are dicts including
    ``__name__`` when the series keeps it; rows are sorted by label set. The label dicts are shared
    between evaluations while the series set is unchanged (treat them as read-only).
    """

    kind: str  # "vector" | "scalar" | "string"
    labels: list[dict[str, str]]
    values: np.ndarray
    present: np.ndarray
    times: np.ndarray  # seconds (float) of each column
    label_sets: list[LabelSet] = field(default_factory=list)
    string: str | None = None


def bounds(a: np.ndarray) -> tuple[int, int]:
    """``(min, max)`` of a non-empty integer array. A rule's evaluation times are a handful, and
    for so few, Python's min and max over a list beat two numpy reductions."""
    if len(a) <= 32:
        t = a.tolist()
        return min(t), max(t)
    return int(a.min()), int(a.max())


def drop_name(ls: LabelSet) -> LabelSet:
    # label sets are sorted, and ``__name__`` sorts before every lower-case label name: it is
    # nearly always first (this runs for every series whenever a selection changes)
    if ls and ls[0][0] == NAME:
        return ls[1:]
    for i in range(1, len(ls)):
        if ls[i][0] == NAME:
            return ls[:i] + ls[i + 1 :]
    return ls
