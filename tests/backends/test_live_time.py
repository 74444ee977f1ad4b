"""The episode clock and the one time-compression transform (sre_gym/backends/live_time.py)."""

from __future__ import annotations

import time

import promql_parser as pp
import pytest

from sre_gym.backends.live_rules import rule_file
from sre_gym.backends.live_time import (
    CompressedClock,
    TimeScale,
    WallClock,
    compress_promql,
    compress_rule_file,
    duration_ms,
    format_ms,
)


def durations(expr) -> list[int]:
    """Every duration of a parsed query, in ms: ranges, offsets, subquery ranges and steps."""
    out: list[int] = []

    def visit(e):
        for attr in ("range", "offset", "step"):
            v = getattr(e, attr, None)
            if v is not None and hasattr(v, "total_seconds"):
                out.append(round(v.total_seconds() * 1000))
        for child in ("expr", "lhs", "rhs", "vector_selector", "param"):
            c = getattr(e, child, None)
            if c is not None and not isinstance(c, int | float | str):
                visit(c)
        for a in getattr(e, "args", None) or []:
            visit(a)

    visit(expr)
    return out


def test_durations_parse_and_format():
    assert duration_ms("1h30m") == 5_400_000 and duration_ms("250ms") == 250
    assert format_ms(60_000) == "1m" and format_ms(1500) == "1500ms" and format_ms(2000) == "2s"
    with pytest.raises(ValueError):
        duration_ms("5x")
    with pytest.raises(ValueError, match="whole number of milliseconds"):
        TimeScale(7).duration("1m")


def test_a_query_keeps_its_structure_with_every_duration_divided():
    s = TimeScale(60)
    q = "sum(max_over_time(rate(x[5m])[10m:30s])) + sum(y offset 10m) - sum(rate(z[2m] offset 1h))"
    out = compress_promql(q, s)
    assert "[5s]" in out and "[10s:500ms]" in out and "offset 10s" in out and "offset 1m" in out
    a, b = durations(pp.parse(q)), durations(pp.parse(out))
    assert sorted(b) == sorted(x // 60 for x in a) and len(a) == 6
    assert compress_promql(q, TimeScale()) == q


def test_the_rule_pack_compresses_rule_by_rule():
    s = TimeScale(100)
    src, out = rule_file(), compress_rule_file(rule_file(), s)
    rules = [
        (r, c)
        for g, h in zip(src["groups"], out["groups"], strict=True)
        for r, c in zip(g["rules"], h["rules"], strict=True)
    ]
    assert len(rules) == 44
    assert sum(len(durations(pp.parse(r["expr"]))) for r, _ in rules) >= 60  # the walk sees them
    for r, c in rules:
        assert {k: v for k, v in r.items() if k not in ("expr", "for")} == {
            k: v for k, v in c.items() if k not in ("expr", "for")
        }
        a, b = durations(pp.parse(r["expr"])), durations(pp.parse(c["expr"]))
        assert b == [x // 100 for x in a]
        if "for" in r:
            assert duration_ms(c["for"]) * 100 == duration_ms(r["for"])


def test_time_scales_map_both_ways():
    s = TimeScale(50, episode0=1000.0, prom0=10.0)
    assert s.to_prom(1100.0) == 12.0 and s.from_prom(12.0) == 1100.0 and s.seconds(15) == 0.3
    assert TimeScale().identity and not s.identity


def test_a_compressed_clock_runs_k_times_faster_and_sleeps_k_times_shorter():
    c = CompressedClock(200, start=5000.0)
    t0, w0 = c.now(), time.time()
    c.sleep(20.0)  # 0.1 s of wall time
    dt, dw = c.now() - t0, time.time() - w0
    assert dt == pytest.approx(dw * 200, rel=0.05) and dt >= 20.0
    assert c.scale.k == 200 and c.scale.episode0 == 5000.0
    assert WallClock().scale.identity
    with pytest.raises(ValueError):
        CompressedClock(0)
