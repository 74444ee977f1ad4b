"""Prometheus HTTP API JSON shapes and Go-compatible number formatting."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from .types import RangeIn, Result


def go_float(v: float) -> str:
    """``strconv.FormatFloat(v, 'f', -1, 64)`` plus ``+Inf``/``-Inf``/``NaN`` (label values)."""
    if v != v:
        return "NaN"
    if v == math.inf:
        return "+Inf"
    if v == -math.inf:
        return "-Inf"
    r = repr(float(v))
    if "e" in r:
        return format(Decimal(r), "f")
    if r.endswith(".0"):
        return r[:-2]
    return r


def prom_value(v: float) -> str:
    """A sample value as the Prometheus HTTP API renders it (``jsonutil.MarshalValue``).

    Shortest round-trip digits in ``'f'`` notation, switching to ``'e'`` notation below 1e-6
    and from 1e21 up: ``0.1``, ``0.00001``, ``1e-07``, ``1e+21``, ``+Inf``, ``NaN``.
    """
    a = abs(v)
    if a != 0 and (a < 1e-6 or a >= 1e21) and a != math.inf:
        return repr(float(v))  # Python's repr already uses e-notation in these ranges
    return go_float(v)


def api_time(t_s: float) -> int | float:
    """Timestamps are rendered as seconds with millisecond precision (integers when whole)."""
    ms = int(round(t_s * 1000))
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def instant_json(res: Result, t: float, order: str | None = None, rank: dict | None = None) -> dict:
    ts = api_time(t)
    if res.kind == "string":
        return {"resultType": "string", "result": [ts, res.string]}
    if res.kind == "scalar":
        return {"resultType": "scalar", "result": [ts, prom_value(float(res.values[0, 0]))]}
    idx = [i for i in range(len(res.labels)) if res.present[i, 0]]
    if order in ("sort", "sort_desc"):
        sign = 1.0 if order == "sort" else -1.0

        def key(i: int):
            v = float(res.values[i, 0])
            return (math.isnan(v), sign * v if not math.isnan(v) else 0.0, res.label_sets[i])

        idx.sort(key=key)
    elif order in ("topk", "bottomk") and rank:
        idx.sort(key=lambda i: (*rank.get(res.label_sets[i], (0, 0)), res.label_sets[i]))
    out = [
        {"metric": res.labels[i], "value": [ts, prom_value(float(res.values[i, 0]))]} for i in idx
    ]
    return {"resultType": "vector", "result": out}


def range_json(res: Result) -> dict:
    times = [api_time(float(t)) for t in res.times]
    if res.kind == "scalar":
        vals = [[times[k], prom_value(float(v))] for k, v in enumerate(res.values[0])]
        return {"resultType": "matrix", "result": [{"metric": {}, "values": vals}]}
    if res.kind == "string":
        raise ValueError("string result in a range query")
    out = []
    for i, lab in enumerate(res.labels):
        cols = np.flatnonzero(res.present[i])
        if len(cols) == 0:
            continue
        out.append(
            {
                "metric": lab,
                "values": [[times[k], prom_value(float(res.values[i, k]))] for k in cols.tolist()],
            }
        )
    return {"resultType": "matrix", "result": out}


def matrix_from_range(rv: RangeIn) -> dict:
    """Raw samples of a range selector / subquery evaluated at one instant."""
    x, p, tms = rv.windows()
    out = []
    order = sorted(range(len(rv.labels)), key=lambda i: rv.labels[i])
    for i in order:
        cols = np.flatnonzero(p[i, 0])
        if len(cols) == 0:
            continue
        vals = [
            [api_time(int(tms[0, c]) / 1000), prom_value(float(x[i, 0, c]))] for c in cols.tolist()
        ]
        out.append({"metric": dict(rv.labels[i]), "values": vals})
    return {"resultType": "matrix", "result": out}
