"""Compare the engine with a real Prometheus 2.42 server on the same (backfilled) data.

Each query in ``queries.txt`` is run as instant queries at several times (including times between
scrapes and after the end of the data) and as range queries with aligned and unaligned steps, via
``prometheus-api-client``. Results must have the same series, timestamps and values within 1e-9
relative tolerance; queries Prometheus rejects must be rejected by the engine too.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from pathlib import Path

import pytest

from sre_gym.telemetry.promql import Engine, PromQLError

from .conftest import TICK_S, _unavailable

QUERIES = [
    line
    for line in Path(__file__).with_name("queries.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]
INSTANT_OFFSETS = [0, 15, 605, 899, 1200, 1785, 1790, 1810]
RANGES = [(0, 1800, 15), (7, 1700, 37), (100, 1900, 60)]
ORDERED = ("sort(", "sort_desc(", "topk(", "bottomk(")


@pytest.fixture(scope="module")
def client(live_prometheus):
    try:
        from prometheus_api_client import PrometheusConnect
    except ImportError:
        _unavailable("prometheus-api-client is not installed")
    return PrometheusConnect(live_prometheus["url"], disable_ssl=True)


def _close(a: str, b: str) -> bool:
    try:
        fa, fb = float(a), float(b)
    except ValueError:
        return a == b
    if math.isnan(fa) or math.isnan(fb):
        return math.isnan(fa) and math.isnan(fb)
    return fa == fb or math.isclose(fa, fb, rel_tol=1e-9, abs_tol=0.0)


def _series(result, kind: str) -> dict[str, list]:
    if kind in ("scalar", "string"):
        return {"": [tuple(result)]}
    key = "value" if kind == "vector" else "values"
    out = {}
    for s in result:
        pts = [tuple(s[key])] if kind == "vector" else [tuple(p) for p in s[key]]
        out[json.dumps(s["metric"], sort_keys=True)] = pts
    return out


def _compare(mine: dict, theirs, kind: str, ordered: bool) -> str | None:
    if kind == "vector" and theirs and not isinstance(theirs[0], dict):
        kind = "scalar" if mine["resultType"] == "scalar" else "string"
    if mine["resultType"] != kind and not (
        kind == "vector" and mine["resultType"] in ("scalar", "string")
    ):
        return f"result type {mine['resultType']} vs {kind}"
    kind = mine["resultType"]
    a, b = _series(mine["result"], kind), _series(theirs, kind)
    if set(a) != set(b):
        return f"series differ: engine-only {sorted(set(a) - set(b))[:3]}, prom-only {sorted(set(b) - set(a))[:3]}"
    for k in a:
        if len(a[k]) != len(b[k]):
            return f"{k}: {len(a[k])} vs {len(b[k])} points"
        for (ta, va), (tb, vb) in zip(a[k], b[k], strict=True):
            if float(ta) != float(tb) or not _close(va, vb):
                return f"{k} at {ta}: engine {va} vs prometheus {vb}"
    if ordered and kind == "vector":
        oa = [json.dumps(s["metric"], sort_keys=True) for s in mine["result"]]
        ob = [json.dumps(s["metric"], sort_keys=True) for s in theirs]
        if oa != ob:
            return f"order differs: {oa} vs {ob}"
    return None


def _with_base(query: str, base: int) -> str:
    return re.sub(r"\{base(?:\+(\d+))?\}", lambda m: str(base + int(m.group(1) or 0)), query)


def test_engine_matches_live_prometheus(live_prometheus, client):
    from prometheus_api_client.exceptions import PrometheusApiClientException

    base = live_prometheus["base"]
    eng = Engine(live_prometheus["tsdb"], lookback_s=TICK_S - 0.001, subquery_step_s=30)
    failures: list[str] = []
    compared = 0
    for q in (_with_base(q, base) for q in QUERIES):
        ordered = q.startswith(ORDERED)
        for off in INSTANT_OFFSETS:
            t = base + off
            try:
                theirs = client.custom_query(q, params={"time": t})
            except PrometheusApiClientException:
                theirs = None
            try:
                mine = eng.instant(q, t)
            except PromQLError:
                mine = None
            compared += 1
            if (theirs is None) != (mine is None):
                failures.append(
                    f"{q!r} @ {off}: error mismatch (engine={mine is None}, prom={theirs is None})"
                )
                continue
            if theirs is not None:
                kind = "matrix" if mine["resultType"] == "matrix" else "vector"
                err = _compare(mine, theirs, kind, ordered)
                if err:
                    failures.append(f"{q!r} @ {off}: {err}")
        for s, e, step in RANGES:
            start = dt.datetime.fromtimestamp(base + s, tz=dt.UTC)
            end = dt.datetime.fromtimestamp(base + e, tz=dt.UTC)
            try:
                theirs = client.custom_query_range(q, start, end, str(step))
            except PrometheusApiClientException:
                theirs = None
            try:
                mine = eng.range(q, base + s, base + e, step)
            except PromQLError:
                mine = None
            compared += 1
            if (theirs is None) != (mine is None):
                failures.append(f"{q!r} range step {step}: error mismatch (engine={mine is None})")
                continue
            if theirs is not None:
                err = _compare(mine, theirs, "matrix", False)
                if err:
                    failures.append(f"{q!r} range {s}..{e} step {step}: {err}")
    print(
        f"\nlive Prometheus: {len(QUERIES)} queries, {compared} comparisons, {len(failures)} failures"
    )
    assert len(QUERIES) >= 30
    assert not failures, "\n".join(failures[:30])


def test_comparison_detects_differences(live_prometheus, client):
    """Guards the harness: a different query, value or series set must be reported."""
    base = live_prometheus["base"]
    eng = Engine(live_prometheus["tsdb"], lookback_s=TICK_S - 0.001)
    t = base + 900
    mine = eng.instant("queue_depth", t)
    assert len(mine["result"]) == 2
    assert (
        _compare(mine, client.custom_query("queue_depth", params={"time": t}), "vector", False)
        is None
    )
    assert _compare(
        mine, client.custom_query("queue_depth + 1", params={"time": t}), "vector", False
    )
    assert _compare(
        mine, client.custom_query('queue_depth{queue="q1"}', params={"time": t}), "vector", False
    )
    scal = eng.instant("time() / 1000 + 1", t)
    assert (
        _compare(
            scal, client.custom_query("time() / 1000 + 1", params={"time": t}), "vector", False
        )
        is None
    )
    assert _compare(
        scal, client.custom_query("time() / 1000 - 1", params={"time": t}), "vector", False
    )
