"""Unit tests for the vectorised PromQL engine (hand-computed Prometheus 2.42 expectations)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sre_gym.telemetry.promql import Engine, PromQLError
from sre_gym.telemetry.promql.format import go_float, prom_value
from sre_gym.telemetry.tsdb import TSDB

NAN = math.nan
N = 40  # committed ticks: t = 0, 15, ..., 585


def build(t0: int = 0) -> TSDB:
    """Small TSDB whose values are easy to reason about.

    req_total{job="a",inst="1"}: 0, 10, 20, ...            (+10 per tick)
    req_total{job="a",inst="2"}: 0, 5, 10, 15, 20, 2, 7, ... (one reset at tick 5)
    req_total{job="b",inst="1"}: 100, 101, 102, ...        (+1 per tick)
    temp{job="a"}: 1, 2, 3, ...;  temp{job="b"}: 5;  temp{job="c"}: only ticks 10..19
    lat_bucket{le}: cumulative 2/5/9/10 observations per tick for le=0.1/0.5/1/+Inf
    late{k="v"}: 7 from tick 20 on
    """
    db = TSDB(t0=t0, tick_s=15, capacity=48)
    c = db.family("req_total", ("job", "inst"))
    rows = {
        ("a", "1"): 10.0 * np.arange(N),
        ("a", "2"): np.concatenate([[0, 5, 10, 15, 20], 2 + 5 * np.arange(N - 5)]).astype(float),
        ("b", "1"): np.arange(N, dtype=float) + 100,
    }
    for k, v in rows.items():
        c.data[c.row(k), :N] = v
    g = db.family("temp", ("job",))
    gc = np.full(N, NAN)
    gc[10:20] = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3]
    for k, v in {
        ("a",): np.arange(N, dtype=float) + 1,
        ("b",): np.full(N, 5.0),
        ("c",): gc,
    }.items():
        g.data[g.row(k), :N] = v
    h = db.family("lat_bucket", ("le",))
    for le, per in (("0.1", 2), ("0.5", 5), ("1", 9), ("+Inf", 10)):
        h.data[h.row((le,)), :N] = per * np.arange(N)
    late = db.family("late", ("k",))
    late.data[late.row(("v",)), 20:N] = 7.0
    db.commit(N - 1)
    g.data[0, N] = 1000.0  # written but not committed: must stay invisible
    return db


@pytest.fixture()
def eng() -> Engine:
    return Engine(build())


def vec(eng: Engine, q: str, t: float) -> dict[tuple, float]:
    """Instant vector as {sorted label items: value}."""
    data = eng.instant(q, t)
    assert data["resultType"] == "vector", data
    return {tuple(sorted(s["metric"].items())): float(s["value"][1]) for s in data["result"]}


def one(eng: Engine, q: str, t: float) -> float:
    v = vec(eng, q, t)
    assert len(v) == 1, v
    return next(iter(v.values()))


def L(**kw) -> tuple:  # noqa: N802 - reads like a label literal
    return tuple(sorted(kw.items()))


# -- selectors -------------------------------------------------------------------------------------
def test_selector_matchers(eng):
    assert set(vec(eng, 'req_total{job="a"}', 60)) == {
        L(__name__="req_total", job="a", inst="1"),
        L(__name__="req_total", job="a", inst="2"),
    }
    assert set(vec(eng, 'req_total{job!="a"}', 60)) == {L(__name__="req_total", job="b", inst="1")}
    assert len(vec(eng, 'req_total{inst=~"1|3"}', 60)) == 2
    assert len(vec(eng, 'req_total{inst!~"1"}', 60)) == 1
    assert len(vec(eng, 'req_total{inst=~"1.*", job=~"a"}', 60)) == 1
    assert len(vec(eng, '{__name__=~"req_.*|temp"}', 60)) == 5  # temp{job="c"} absent at 60
    assert len(vec(eng, 'temp{missing=""}', 60)) == 2  # empty matcher matches absent labels
    assert vec(eng, 'temp{job=""}', 60) == {}
    assert vec(eng, 'temp{job=~"A"}', 60) == {}  # regexes are case sensitive and anchored
    assert vec(eng, 'temp{job=~"a."}', 60) == {}
    assert vec(eng, "nonexistent", 60) == {}


def test_selections_follow_series_added_later(eng):
    """Families only gain series: a cached selection takes in new matching series (in label order,
    as a fresh engine selects them) and stays the same object when the new ones do not match."""
    q = 'req_total{job=~"a|c"}'
    plan = eng.compile(q)
    eng.eval(plan, [60])
    first = plan.root.select(eng.tsdb)
    fam = eng.tsdb.families["req_total"]
    fam.data[fam.row(("b", "9")), :N] = 1.0  # does not match
    assert plan.root.select(eng.tsdb) is first
    fam.data[fam.row(("c", "0")), :N] = 2.0  # matches, and sorts after every job="a"
    fam.data[fam.row(("a", "0")), :N] = 3.0  # matches, and sorts before inst="1"
    assert plan.root.select(eng.tsdb) is not first
    fresh = Engine(eng.tsdb)
    assert plan.root.select(eng.tsdb).labels == fresh.compile(q).root.select(eng.tsdb).labels
    for t in (60, 300):
        got, want = eng.eval(plan, [t]), fresh.eval(q, [t])
        assert got.labels == want.labels and len(got.labels) == 4
        assert np.array_equal(got.values, want.values)


def test_selectors_with_the_same_matchers_share_one_tracker(eng):
    """Rules that read one selector scan the TSDB once: the engine gives every selector with the
    same name and matchers (in any order) one series tracker, and keeps others apart."""
    a = eng.compile('sum(req_total{job="a", inst=~"1|2"})').root.expr
    b = eng.compile('rate(req_total{inst=~"1|2", job="a"}[1m])').root.args[0].sel
    c = eng.compile('req_total{job="a"}').root
    assert a.track is b.track and a.track is not c.track
    assert eng.eval('sum(req_total{job="a", inst=~"1|2"})', [60]).values.shape == (1, 1)
    assert b.select(eng.tsdb) is a.select(eng.tsdb)


EMPTY_WHEN_UNSELECTED = [
    "nope",
    'rate(nope{job="a"}[1m]) / rate(nope_total[1m])',
    "histogram_quantile(0.9, sum by (le) (rate(nope_bucket[5m])))",
    'label_replace(nope > 5, "x", "$1", "job", "(.+)")',
    "max by (job) (nope) * on (job) group_left nope2",
    "vector(1) and nope",
    "-nope unless nope2",
    "nope or nope2",
    "quantile(0.5, nope) > bool 1",
    "clamp(nope, 0, scalar(nope2))",
    "time() + nope * 0",
]
NOT_EMPTY_WHEN_UNSELECTED = [
    "absent(nope)",
    "absent_over_time(nope[5m])",
    "vector(1) or nope",
    "nope or vector(2)",
    "topk(2, nope)",
    "max_over_time(nope[5m:1m])",
    "scalar(nope)",
    "day_of_month()",
    "sum(nope) or on () vector(0)",
]


@pytest.mark.parametrize("q", EMPTY_WHEN_UNSELECTED + NOT_EMPTY_WHEN_UNSELECTED)
def test_queries_on_unselected_series_skip_evaluation_only_when_the_result_must_be_empty(eng, q):
    """A query whose selectors pick no series is answered without evaluation when its result is
    then necessarily an empty vector; the answer equals a full evaluation's, and a query that
    can be non-empty over no series (absent, vector, time, a scalar) is always evaluated."""
    plan = eng.compile(q)
    assert (plan.empty_unless is not None) == (q in EMPTY_WHEN_UNSELECTED)
    times = [0, 60, 300]
    fast = eng.eval(plan, times)
    plan.empty_unless = None  # force the full evaluation
    full = eng.eval(plan, times)
    assert fast.kind == full.kind and fast.labels == full.labels
    assert fast.values.shape == full.values.shape
    assert np.array_equal(fast.values, full.values, equal_nan=True)
    assert np.array_equal(fast.present, full.present)


def test_queries_evaluate_again_once_a_series_they_select_appears(eng):
    q = 'rate(nope_total{job="a"}[1m]) * 60'
    plan = eng.compile(q)
    assert plan.empty_unless is not None
    assert eng.eval(plan, [300]).labels == []
    fam = eng.tsdb.family("nope_total", ("job",))
    fam.data[fam.row(("a",)), :N] = 2.0 * np.arange(N)
    assert one(eng, q, 300) == pytest.approx(8.0)  # 2 per 15 s scrape, per minute


def test_instant_lookback_staleness_and_visibility(eng):
    assert one(eng, "temp{job='a'}", 60) == 5.0
    assert one(eng, "temp{job='a'}", 67) == 5.0  # between scrapes: latest sample <= t
    assert one(eng, "temp{job='c'}", 285) == 3.0
    assert vec(eng, "temp{job='c'}", 300) == {}  # NaN after a sample is a staleness marker
    assert vec(eng, "temp{job='c'}", 149) == {}  # not born yet
    assert vec(eng, "late", 299) == {} and one(eng, "late", 300) == 7.0
    # Beyond the last committed tick (585 s): the last sample stays visible for the 5 m lookback,
    # and the uncommitted column (1000) is never seen.
    assert one(eng, "temp{job='a'}", 600) == 40.0
    assert one(eng, "temp{job='a'}", 885) == 40.0
    assert vec(eng, "temp{job='a'}", 886) == {}
    short = Engine(eng.tsdb, lookback_s=10)
    assert one(short, "temp{job='a'}", 70) == 5.0
    assert vec(short, "temp{job='a'}", 71) == {}


def test_offset_and_at_modifier(eng):
    assert one(eng, "temp{job='a'} offset 1m", 120) == 5.0
    assert one(eng, "temp{job='a'} offset -30s", 60) == 7.0
    assert one(eng, "temp{job='a'} @ 150", 500) == 11.0
    assert one(eng, "temp{job='a'} @ 150 offset 15s", 500) == 10.0
    assert one(eng, "temp{job='a'} @ start()", 90) == 7.0
    r = eng.eval("temp{job='a'} @ start()", [30, 60, 90])  # independent instant queries
    assert r.values.tolist() == [[3.0, 5.0, 7.0]]
    rng = eng.range("temp{job='a'} @ end()", 30, 90, 30)  # one range query: end() = 90
    assert [v for _, v in rng["result"][0]["values"]] == ["7", "7", "7"]
    assert one(eng, "rate(req_total{job='a',inst='1'}[1m] @ 60)", 300) == pytest.approx(40 / 60)


def test_instant_range_selector_returns_raw_samples(eng):
    data = eng.instant("temp{job='a'}[45s]", 60)
    assert data["resultType"] == "matrix"
    assert data["result"] == [
        {
            "metric": {"__name__": "temp", "job": "a"},
            "values": [[15, "2"], [30, "3"], [45, "4"], [60, "5"]],
        }
    ]  # closed interval [t-45s, t] as in Prometheus 2.x
    stale = eng.instant("temp{job='c'}[30s]", 300)["result"]
    assert stale[0]["values"] == [[270, "5"], [285, "3"]]


def test_new_series_and_ticks_are_picked_up(eng):
    plan = eng.compile("sum(temp)")
    assert one(eng, "sum(temp)", 585) == 45.0
    fam = eng.tsdb.families["temp"]
    eng.tsdb.write(fam, 40, fam.rows_for([("a",), ("d",)]), np.array([41.0, 100.0]))
    eng.tsdb.commit(40)
    assert eng.compile("sum(temp)") is plan  # plans are cached by query string
    assert one(eng, "sum(temp)", 600) == 141.0


# -- range functions -------------------------------------------------------------------------------
def test_rate_increase_delta_hand_computed(eng):
    r = vec(eng, "rate(req_total[1m])", 60)  # samples at 0..60, no extrapolation needed
    assert r[L(job="a", inst="1")] == pytest.approx(40 / 60, rel=1e-15)
    assert r[L(job="a", inst="2")] == pytest.approx(20 / 60, rel=1e-15)
    assert r[L(job="b", inst="1")] == pytest.approx(4 / 60, rel=1e-15)
    # Window [7, 67]: samples at 15..60 (sampled 45 s); extrapolated by 8 s and 7 s to 60 s.
    assert one(eng, "rate(req_total{job='a',inst='1'}[1m])", 67) == pytest.approx(
        (30 * 60 / 45) / 60
    )
    # Counter reset at tick 5 (20 -> 2): ticks 2..6 are 10,15,20,2,7 -> 7 - 10 + 20 = 17.
    assert one(eng, "increase(req_total{inst='2'}[1m])", 90) == 17.0
    assert one(eng, "increase(req_total{inst='2'}[2m])", 120) == 37.0
    # Window [-60, 30]: samples 0, 15, 30. A counter starting at 0 is not extrapolated below
    # zero; one starting at 100 gets half an interval (the 60 s gap exceeds 1.1 x 15 s).
    assert one(eng, "increase(req_total{inst='2'}[90s])", 30) == 10.0
    assert one(eng, "increase(req_total{job='b'}[90s])", 30) == pytest.approx(2 * 37.5 / 30)
    # Window [10, 60]: samples 15..60 (30 over 45 s), 5 s to the start is below the threshold.
    assert one(eng, "increase(req_total{job='a', inst='1'}[50s])", 60) == pytest.approx(
        30 * 50 / 45
    )
    assert one(eng, "delta(temp{job='a'}[1m])", 60) == 4.0
    assert vec(eng, "rate(temp{job='c'}[1m])", 150) == {}  # a single sample gives no rate
    # Window [120, 180]: 3, 1, 4 at 150..180; 30 s gap at the start -> half an interval.
    assert one(eng, "delta(temp{job='c'}[1m])", 180) == pytest.approx(1 * 37.5 / 30)
    # Window [133, 193]: 17 s to the first sample is above 1.1 x 15 s (half an interval is used),
    # 13 s after the last one is below it (extrapolated fully): 30 + 7.5 + 13 = 50.5 s.
    assert one(eng, "delta(temp{job='c'}[1m])", 193) == pytest.approx(1 * 50.5 / 30)


def test_irate_idelta_resets_changes(eng):
    assert one(eng, "irate(req_total{inst='2'}[1m])", 75) == pytest.approx(
        2 / 15
    )  # reset: last value
    assert one(eng, "irate(req_total{inst='2'}[1m])", 90) == pytest.approx(5 / 15)
    assert one(eng, "idelta(temp{job='c'}[1m])", 165) == -2.0
    assert one(eng, "resets(req_total{inst='2'}[5m])", 150) == 1.0
    assert one(eng, "resets(req_total{inst='2'}[5m])", 450) == 0.0
    assert vec(eng, "changes(temp[5m])", 300) == {
        L(job="a"): 20.0,
        L(job="b"): 0.0,
        L(job="c"): 9.0,
    }


def test_regression_functions(eng):
    assert one(eng, "deriv(temp{job='a'}[1m])", 60) == pytest.approx(1 / 15)
    assert one(eng, "deriv(temp{job='b'}[1m])", 60) == 0.0
    assert one(eng, "predict_linear(temp{job='a'}[1m], 60)", 60) == pytest.approx(9.0)
    assert one(eng, "predict_linear(temp{job='b'}[1m], 600)", 60) == 5.0


def test_over_time_functions(eng):
    c = "temp{job='c'}"  # ticks 10..19 = 3 1 4 1 5 9 2 6 5 3
    assert one(eng, f"avg_over_time({c}[1m])", 210) == pytest.approx((3 + 1 + 4 + 1 + 5) / 5)
    assert one(eng, f"sum_over_time({c}[1m])", 210) == 14.0
    assert one(eng, f"min_over_time({c}[1m])", 210) == 1.0
    assert one(eng, f"max_over_time({c}[1m])", 300) == 6.0
    assert one(eng, f"count_over_time({c}[10m])", 400) == 10.0
    assert one(eng, f"last_over_time({c}[1m])", 330) == 3.0
    assert vec(eng, f"last_over_time({c}[1m])", 360) == {}
    assert one(eng, f"present_over_time({c}[1m])", 300) == 1.0
    assert one(eng, f"quantile_over_time(0.5, {c}[2m])", 300) == 4.5
    assert one(eng, f"quantile_over_time(0, {c}[2m])", 300) == 1.0
    assert one(eng, f"quantile_over_time(2, {c}[2m])", 300) == math.inf
    assert one(eng, f"stdvar_over_time({c}[30s])", 180) == pytest.approx(14 / 9)  # 3, 1, 4
    assert one(eng, f"stddev_over_time({c}[1m])", 300) == pytest.approx(math.sqrt(2.5))
    assert one(eng, "stddev_over_time(temp{job='b'}[5m])", 300) == 0.0
    # last_over_time keeps the metric name, every other range function drops it.
    assert set(vec(eng, f"last_over_time({c}[1m])", 200)) == {L(__name__="temp", job="c")}
    assert set(vec(eng, f"max_over_time({c}[1m])", 200)) == {L(job="c")}


def test_absent_and_absent_over_time(eng):
    assert vec(eng, 'absent(nope{job="x", a=~"b", c="d", c="e"})', 60) == {L(job="x"): 1.0}
    assert vec(eng, "absent(temp)", 60) == {}
    assert vec(eng, "absent(temp{job='c'})", 60) == {L(job="c"): 1.0}
    assert vec(eng, "absent(sum(nope))", 60) == {(): 1.0}
    assert vec(eng, "absent_over_time(temp{job='c'}[1m])", 330) == {}
    assert vec(eng, "absent_over_time(temp{job='c'}[1m])", 400) == {L(job="c"): 1.0}


# -- instant-vector functions ----------------------------------------------------------------------
def test_math_functions_drop_name(eng):
    assert vec(eng, "abs(-temp{job='b'})", 0) == {L(job="b"): 5.0}
    assert one(eng, "sqrt(temp{job='b'} - 1)", 0) == 2.0
    assert one(eng, "ceil(temp{job='b'} / 2)", 0) == 3.0
    assert one(eng, "floor(temp{job='b'} / 2)", 0) == 2.0
    assert one(eng, "exp(temp{job='b'} * 0)", 0) == 1.0
    assert one(eng, "ln(temp{job='b'} / temp{job='b'})", 0) == 0.0
    assert one(eng, "log2(temp{job='b'} + 3)", 0) == 3.0
    assert one(eng, "log10(temp{job='b'} * 20)", 0) == 2.0
    assert vec(eng, "sgn(temp - 5)", 0) == {L(job="a"): -1.0, L(job="b"): 0.0}
    assert one(eng, "round(temp{job='b'} / 2)", 0) == 3.0  # ties round up
    assert one(eng, "round(temp{job='b'} / 3, 0.25)", 0) == 1.75
    assert vec(eng, "clamp(temp, 2, 4)", 60) == {L(job="a"): 4.0, L(job="b"): 4.0}
    assert vec(eng, "clamp(temp, 4, 2)", 60) == {}  # max < min: empty
    assert vec(eng, "clamp_min(temp, 5.5)", 0) == {L(job="a"): 5.5, L(job="b"): 5.5}
    assert vec(eng, "clamp_max(temp, 3)", 0) == {L(job="a"): 1.0, L(job="b"): 3.0}
    assert one(eng, "deg(temp{job='b'} * 0 + pi())", 0) == 180.0


def test_time_functions(eng):
    assert eng.instant("time()", 90) == {"resultType": "scalar", "result": [90, "90"]}
    assert vec(eng, "timestamp(temp{job='a'})", 67) == {L(job="a"): 60.0}  # sample time
    assert vec(eng, "timestamp(temp{job='a'} * 2)", 67) == {L(job="a"): 67.0}  # evaluation time
    assert vec(eng, "vector(3)", 0) == {(): 3.0}
    assert one(eng, "scalar(temp{job='a'}) + temp{job='b'}", 30) == 8.0
    assert eng.instant("scalar(temp)", 30)["result"][1] == "NaN"  # not exactly one element
    # 2023-11-14T22:13:20Z is a Tuesday.
    t = 1_700_000_000
    assert one(eng, f"year(vector({t}))", 0) == 2023
    assert one(eng, f"month(vector({t}))", 0) == 11
    assert one(eng, f"day_of_month(vector({t}))", 0) == 14
    assert one(eng, f"day_of_week(vector({t}))", 0) == 2
    assert one(eng, f"hour(vector({t}))", 0) == 22
    assert one(eng, f"minute(vector({t}))", 0) == 13
    assert one(eng, f"days_in_month(vector({t}))", 0) == 30
    assert one(eng, "days_in_month(vector(951782400))", 0) == 29  # 2000-02-29 (leap year)
    assert one(eng, "minute()", 3 * 3600 + 125) == 2.0
    assert one(eng, "hour()", 3 * 3600 + 125) == 3.0


def test_label_replace_and_join(eng):
    q = 'label_replace(temp{job="a"}, "dst", "x-$1-${2}y", "job", "(.)(.*)")'
    assert vec(eng, q, 0) == {L(__name__="temp", job="a", dst="x-a-y"): 1.0}
    assert set(vec(eng, 'label_replace(temp, "job", "", "job", "a")', 0)) == {
        L(__name__="temp"),
        L(__name__="temp", job="b"),
    }
    assert set(vec(eng, 'label_replace(temp, "dst", "$1", "job", "z(.*)")', 0)) == {
        L(__name__="temp", job="a"),
        L(__name__="temp", job="b"),
    }  # no match: unchanged
    assert vec(eng, 'label_join(req_total{job="b"}, "id", "/", "job", "inst", "none")', 0) == {
        L(__name__="req_total", job="b", inst="1", id="b/1/"): 100.0
    }
    with pytest.raises(PromQLError, match="vector cannot contain metrics with the same labelset"):
        eng.instant('label_replace(temp, "job", "same", "", "")', 0)
    with pytest.raises(PromQLError, match="invalid destination label name"):
        eng.compile('label_replace(temp, "1x", "", "job", "")')
    with pytest.raises(PromQLError, match="invalid regular expression"):
        eng.compile('label_replace(temp, "x", "", "job", "(")')


def test_functions_refuse_a_scalar_where_prometheus_wants_a_vector(eng):
    # the parser lets `ln(-2)` through (it refuses `ln(2)`); Prometheus refuses both
    for q in ("ln(-2)", "abs(-(3))", "histogram_quantile(0.9, -1)", "sort(-1)"):
        with pytest.raises(PromQLError, match="expected type (instant )?vector"):
            eng.compile(q)


def test_sort_orders_instant_output(eng):
    asc = eng.instant("sort(req_total)", 30)["result"]
    assert [s["value"][1] for s in asc] == ["10", "20", "102"]
    desc = eng.instant("sort_desc(req_total)", 30)["result"]
    assert [s["value"][1] for s in desc] == ["102", "20", "10"]
    assert all("__name__" in s["metric"] for s in desc)  # sort keeps the name


def test_histogram_quantile(eng):
    # 20 observations at t=30: 4 <= 0.1, 10 <= 0.5, 18 <= 1, 20 total.
    assert one(eng, "histogram_quantile(0.5, lat_bucket)", 30) == 0.5
    assert one(eng, "histogram_quantile(0.1, lat_bucket)", 30) == pytest.approx(0.05)
    assert one(eng, "histogram_quantile(0.75, lat_bucket)", 30) == pytest.approx(0.5 + 0.5 * 5 / 8)
    assert one(eng, "histogram_quantile(0.99, lat_bucket)", 30) == 1.0  # in +Inf bucket
    assert one(eng, "histogram_quantile(-1, lat_bucket)", 30) == -math.inf
    assert one(eng, "histogram_quantile(2, lat_bucket)", 30) == math.inf
    assert math.isnan(one(eng, "histogram_quantile(0.5, lat_bucket)", 0))  # zero observations
    assert math.isnan(one(eng, 'histogram_quantile(0.5, lat_bucket{le!="+Inf"})', 30))
    assert math.isnan(one(eng, 'histogram_quantile(0.5, lat_bucket{le="+Inf"})', 30))
    # Non-monotonic buckets are made monotonic: le=0.5 below le=0.1 is raised to 4.
    # Buckets 0.1:4, 0.5:0 (raised to 4), 1:18, +Inf:20 -> rank 5 falls in (0.5, 1].
    bad = 'label_replace(lat_bucket{le="0.1"} offset 30s, "le", "0.5", "le", ".*")'
    q = f'histogram_quantile(0.25, lat_bucket{{le!="0.5"}} or {bad})'
    assert one(eng, q, 30) == pytest.approx(0.5 + 0.5 * 1 / 14)
    assert set(vec(eng, "histogram_quantile(0.5, rate(lat_bucket[1m]))", 60)) == {()}


# -- aggregations ----------------------------------------------------------------------------------
def test_aggregations(eng):
    t = 30  # req_total: a/1=20, a/2=10, b/1=102
    assert vec(eng, "sum(req_total)", t) == {(): 132.0}
    assert vec(eng, "sum by (job) (req_total)", t) == {L(job="a"): 30.0, L(job="b"): 102.0}
    assert vec(eng, "sum without (inst) (req_total)", t) == {L(job="a"): 30.0, L(job="b"): 102.0}
    assert vec(eng, "sum(req_total) by (__name__)", t) == {L(__name__="req_total"): 132.0}
    assert vec(eng, "avg by (job) (req_total)", t) == {L(job="a"): 15.0, L(job="b"): 102.0}
    assert vec(eng, "min by (job) (req_total)", t) == {L(job="a"): 10.0, L(job="b"): 102.0}
    assert vec(eng, "max(req_total)", t) == {(): 102.0}
    assert vec(eng, "count by (inst) (req_total)", t) == {L(inst="1"): 2.0, L(inst="2"): 1.0}
    assert vec(eng, "group by (job) (req_total)", t) == {L(job="a"): 1.0, L(job="b"): 1.0}
    assert one(eng, "stddev(req_total{job='a'})", t) == 5.0
    assert one(eng, "stdvar(req_total{job='a'})", t) == 25.0
    assert one(eng, "quantile(0.5, req_total)", t) == 20.0
    assert one(eng, "quantile(0.25, req_total)", t) == 15.0
    assert one(eng, "quantile(1.5, req_total)", t) == math.inf
    assert vec(eng, "sum(nope)", t) == {}


def test_topk_bottomk(eng):
    t = 30
    top = eng.instant("topk(2, req_total)", t)["result"]
    assert [s["value"][1] for s in top] == ["102", "20"]
    assert top[0]["metric"]["__name__"] == "req_total"  # topk keeps the full labels
    assert set(vec(eng, "bottomk(1, req_total)", t)) == {L(__name__="req_total", job="a", inst="2")}
    assert set(vec(eng, "topk by (job) (1, req_total)", t)) == {
        L(__name__="req_total", job="a", inst="1"),
        L(__name__="req_total", job="b", inst="1"),
    }
    assert vec(eng, "topk(0, req_total)", t) == {}
    assert len(vec(eng, "topk(1.9, req_total)", t)) == 1
    with pytest.raises(PromQLError, match="overflows int64"):
        eng.instant("topk(scalar(nope), req_total)", t)


def test_count_values(eng):
    assert vec(eng, 'count_values("v", temp)', 60) == {L(v="5"): 2.0}
    assert vec(eng, 'count_values by (job) ("v", temp)', 60) == {
        L(job="a", v="5"): 1.0,
        L(job="b", v="5"): 1.0,
    }
    assert vec(eng, 'count_values("v", temp / 4)', 0) == {L(v="0.25"): 1.0, L(v="1.25"): 1.0}
    with pytest.raises(PromQLError, match="invalid label name"):
        eng.compile('count_values("1bad", temp)')


# -- binary operators ------------------------------------------------------------------------------
def test_arithmetic_and_name_dropping(eng):
    assert vec(eng, "temp{job='b'} * 2", 0) == {L(job="b"): 10.0}
    assert vec(eng, "2 - temp{job='b'}", 0) == {L(job="b"): -3.0}
    assert vec(eng, "temp{job='b'} % 3", 0) == {L(job="b"): 2.0}
    assert vec(eng, "temp{job='b'} ^ 2", 0) == {L(job="b"): 25.0}
    assert vec(eng, "-temp{job='b'}", 0) == {L(job="b"): -5.0}
    assert vec(eng, "temp{job='b'} atan2 0", 0) == {
        L(__name__="temp", job="b"): math.pi / 2
    }  # keeps name
    assert vec(eng, "temp / temp", 0) == {L(job="a"): 1.0, L(job="b"): 1.0}
    assert one(eng, "temp{job='b'} / 0", 0) == math.inf
    assert math.isnan(one(eng, "(temp{job='b'} - 5) / 0", 0))
    assert eng.instant("1 + 2 * 3 ^ 2", 0)["result"] == [0, "19"]
    assert eng.instant("2 ^ 3 ^ 2", 0)["result"] == [0, "512"]  # right associative
    assert eng.instant("-(1)", 0)["result"] == [0, "-1"]


def test_comparisons_filter_and_bool(eng):
    assert vec(eng, "temp > 3", 30) == {L(__name__="temp", job="b"): 5.0}  # filter keeps name
    assert vec(eng, "3 < temp", 30) == {L(__name__="temp", job="b"): 5.0}  # vector value kept
    assert vec(eng, "temp > bool 3", 30) == {L(job="a"): 0.0, L(job="b"): 1.0}  # bool drops name
    assert vec(eng, "temp == temp", 30) == {
        L(__name__="temp", job="a"): 3.0,
        L(__name__="temp", job="b"): 5.0,
    }
    assert vec(eng, "temp != bool temp", 30) == {L(job="a"): 0.0, L(job="b"): 0.0}
    assert eng.instant("1 < bool 2", 0)["result"] == [0, "1"]
    assert vec(eng, "(temp - 5) / 0 > 0", 0) == {}  # NaN compares false
    with pytest.raises(PromQLError, match="BOOL"):
        eng.compile("1 > 2")


def test_vector_matching(eng):
    t = 30
    q = "req_total / ignoring(inst) group_left sum by (job) (req_total)"
    assert vec(eng, q, t) == {
        L(job="a", inst="1"): pytest.approx(20 / 30),
        L(job="a", inst="2"): pytest.approx(10 / 30),
        L(job="b", inst="1"): 1.0,
    }
    q = "sum by (job) (req_total) / on(job) group_right req_total"
    assert vec(eng, q, t) == {
        L(job="a", inst="1"): 1.5,
        L(job="a", inst="2"): 3.0,
        L(job="b", inst="1"): 1.0,
    }
    # group_left(extra) copies labels from the "one" side.
    q = 'temp * on(job) group_left(inst) req_total{inst="2"}'
    assert vec(eng, q, t) == {L(job="a", inst="2"): 30.0}
    assert vec(eng, 'temp + on(job) req_total{inst="1"}', t) == {
        L(job="a"): 23.0,
        L(job="b"): 107.0,
    }
    assert vec(eng, 'temp > on(job) req_total{inst="1"} - 20', t) == {
        L(job="a"): 3.0
    }  # `on` keeps only on-labels
    with pytest.raises(PromQLError, match="many-to-many matching not allowed"):
        eng.instant("temp + on(job) req_total", t)
    assert len(vec(eng, "req_total + on(job) group_left temp", t)) == 3
    with pytest.raises(PromQLError, match="many-to-one matching must be explicit"):
        eng.instant("req_total + on(job) temp", t)
    q = 'req_total / on(job) group_left(inst) sum by (job, inst) (req_total{inst="1"})'
    with pytest.raises(PromQLError, match="grouping labels must ensure unique matches"):
        eng.instant(q, t)


def test_set_operators(eng):
    t = 30
    assert set(vec(eng, 'req_total and on(job) temp{job="b"}', t)) == {
        L(__name__="req_total", job="b", inst="1")
    }
    assert set(vec(eng, 'req_total unless on(job) temp{job="b"}', t)) == {
        L(__name__="req_total", job="a", inst="1"),
        L(__name__="req_total", job="a", inst="2"),
    }
    assert vec(eng, "temp or vector(0)", t) == {
        L(__name__="temp", job="a"): 3.0,
        L(__name__="temp", job="b"): 5.0,
        (): 0.0,
    }
    assert vec(eng, "nope or on() vector(0)", t) == {(): 0.0}
    assert vec(eng, "temp{job='c'} or temp{job='b'}", 150) == {
        L(__name__="temp", job="c"): 3.0,
        L(__name__="temp", job="b"): 5.0,
    }
    assert vec(eng, "temp and temp > 4", t) == {L(__name__="temp", job="b"): 5.0}


def test_duplicate_labelsets_after_dropping_name(eng):
    db = eng.tsdb
    other = db.family("temp2", ("job",))
    other.data[other.row(("a",)), : db.n_ticks] = 1.0
    with pytest.raises(PromQLError, match="same labelset"):
        eng.instant('{__name__=~"temp|temp2"} * 1', 30)
    assert len(vec(eng, '{__name__=~"temp|temp2"}', 30)) == 3  # fine while names differ


# -- subqueries ------------------------------------------------------------------------------------
def test_subqueries(eng):
    # Inner evaluated at multiples of 30 s in [t-range, t]: 60, 90, 120 -> temp{a} = 5, 7, 9.
    assert one(eng, "max_over_time(temp{job='a'}[1m:30s])", 120) == 9.0
    assert one(eng, "count_over_time(temp{job='a'}[1m:30s])", 120) == 3.0
    assert one(eng, "count_over_time(temp{job='a'}[1m:30s])", 125) == 2.0  # 90, 120 (aligned)
    assert one(eng, "min_over_time(temp{job='a'}[1m:30s] offset 30s)", 120) == 3.0
    assert one(eng, "sum_over_time(temp{job='a'}[2m:])", 120) == 1 + 5 + 9  # default step 60 s
    assert one(
        eng, "max_over_time(rate(req_total{inst='1', job='a'}[1m])[2m:15s])", 300
    ) == pytest.approx(2 / 3)
    data = eng.instant("temp{job='a'}[1m:30s]", 120)
    assert data["resultType"] == "matrix"
    assert data["result"][0]["values"] == [[60, "5"], [90, "7"], [120, "9"]]


# -- results, formatting, errors -------------------------------------------------------------------
def test_result_shapes(eng):
    assert eng.instant('"hello"', 5) == {"resultType": "string", "result": [5, "hello"]}
    assert eng.instant("1.5", 2.5) == {"resultType": "scalar", "result": [2.5, "1.5"]}
    rng = eng.range("temp{job='c'}", 270, 330, 15)
    assert rng == {
        "resultType": "matrix",
        "result": [
            {"metric": {"__name__": "temp", "job": "c"}, "values": [[270, "5"], [285, "3"]]}
        ],
    }
    assert eng.range("time()", 0, 30, 15)["result"] == [
        {"metric": {}, "values": [[0, "0"], [15, "15"], [30, "30"]]}
    ]
    res = eng.eval(eng.compile("temp"), np.array([0, 150, 300]))
    assert res.kind == "vector"
    assert res.labels == [
        {"__name__": "temp", "job": "a"},
        {"__name__": "temp", "job": "b"},
        {"__name__": "temp", "job": "c"},
    ]
    assert np.array_equal(
        res.values, np.array([[1, 11, 21], [5, 5, 5], [NAN, 3, NAN]]), equal_nan=True
    )
    assert res.present.tolist() == [[True] * 3, [True] * 3, [False, True, False]]
    nan_res = eng.eval("(temp - temp) / 0", [0])
    assert nan_res.present.all() and np.isnan(nan_res.values).all()  # NaN samples are present


def test_value_formatting():
    cases = {
        0.1: "0.1",
        1e-05: "0.00001",
        1e-7: "1e-07",
        1e21: "1e+21",
        1e20: "100000000000000000000",
        100.0: "100",
        -0.0: "-0",
        math.inf: "+Inf",
        -math.inf: "-Inf",
        NAN: "NaN",
        123456789.125: "123456789.125",
    }
    for v, s in cases.items():
        assert prom_value(v) == s, v
    assert go_float(1e-7) == "0.0000001"  # 'f' formatting used for count_values labels


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("sum(", "parse error"),
        ("rate(temp)", "expected type matrix"),
        ("temp{", "parse error"),
        ("holt_winters(temp[5m], 0.5, 0.5)", 'unsupported function "holt_winters"'),
        ("sort_by_label(temp)", 'unsupported function "sort_by_label"'),
        ("limitk(1, temp)", 'unsupported aggregation "limitk"'),
        ('temp{a="b" or c="d"}', "unsupported"),
        ('temp{a=~"(?P<x"}', "regex"),
    ],
)
def test_errors_are_promql_errors(eng, query, message):
    with pytest.raises(PromQLError, match=message):
        eng.instant(query, 0)
    assert issubclass(PromQLError, ValueError)


def test_range_query_errors(eng):
    with pytest.raises(PromQLError, match="range vector"):
        eng.range("temp[1m]", 0, 60, 15)
    with pytest.raises(PromQLError, match="string"):
        eng.range('"x"', 0, 60, 15)
    with pytest.raises(PromQLError, match="step"):
        eng.range("temp", 0, 60, 0)


# -- determinism and vectorisation ----------------------------------------------------------------
QUERIES = [
    "temp",
    "rate(req_total[1m])",
    "sum by (job) (rate(req_total[2m])) > 0.1",
    "histogram_quantile(0.9, rate(lat_bucket[1m]))",
    "max_over_time(temp[1m]) - min_over_time(temp[1m])",
    "req_total / ignoring(inst) group_left sum by (job) (req_total)",
    "topk(1, temp)",
    "temp or vector(0)",
    "avg_over_time(temp[1m:30s])",
    "absent(temp{job='c'})",
]


@pytest.mark.parametrize("query", QUERIES)
def test_batch_equals_per_time_evaluation(eng, query):
    times = np.arange(0, 700, 35)
    batch = eng.eval(query, times)
    fresh = Engine(build())
    for k, t in enumerate(times):
        single = fresh.eval(query, [t])
        got = {
            tuple(sorted(lab.items())): batch.values[i, k]
            for i, lab in enumerate(batch.labels)
            if batch.present[i, k]
        }
        exp = {
            tuple(sorted(lab.items())): single.values[i, 0]
            for i, lab in enumerate(single.labels)
            if single.present[i, 0]
        }
        assert got.keys() == exp.keys(), (query, t)
        for key, v in exp.items():
            assert got[key] == v or (math.isnan(got[key]) and math.isnan(v)), (query, t, key)


def test_results_are_deterministic(eng):
    q = "sum by (job) (rate(req_total[1m])) or temp"
    a = eng.range(q, 0, 600, 30)
    b = Engine(build()).range(q, 0, 600, 30)
    assert a == b
    keys = [tuple(sorted(s["metric"].items())) for s in a["result"]]
    assert keys == sorted(keys)


# -- property tests --------------------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_PROP_DB = build()
_PROP_ENG = Engine(_PROP_DB)

_NAMES = ["req_total", "temp", "lat_bucket", "late", "nope"]
_MATCHERS = ["", '{job="a"}', '{job!="a"}', '{inst=~"1|2"}', '{job!~"c"}', '{le=~"0.*"}']
_RANGES = ["30s", "1m", "2m", "5m"]
_LABELS = ["job", "inst", "le", "nope"]


@st.composite
def selectors(draw, rng: bool = False) -> str:
    s = draw(st.sampled_from(_NAMES)) + draw(st.sampled_from(_MATCHERS))
    if rng:
        s += "[" + draw(st.sampled_from(_RANGES)) + "]"
    if draw(st.booleans()):
        s += " offset " + draw(st.sampled_from(["15s", "1m", "-30s"]))
    return s


def instant_exprs(depth: int = 3):
    leaf = st.one_of(
        selectors(),
        st.sampled_from(["1", "0.5", "-2", "time()", "vector(1)", "pi()"]),
        st.builds(
            lambda f, s: f"{f}({s})",
            st.sampled_from(
                [
                    "rate",
                    "increase",
                    "delta",
                    "irate",
                    "idelta",
                    "resets",
                    "changes",
                    "deriv",
                    "avg_over_time",
                    "min_over_time",
                    "max_over_time",
                    "sum_over_time",
                    "count_over_time",
                    "last_over_time",
                    "present_over_time",
                    "stddev_over_time",
                    "absent_over_time",
                ]
            ),
            selectors(rng=True),
        ),
    )
    if depth == 0:
        return leaf
    sub = instant_exprs(depth - 1)
    grp = st.lists(st.sampled_from(_LABELS), max_size=2, unique=True).map(lambda ls: ", ".join(ls))
    return st.one_of(
        leaf,
        st.builds(
            lambda op, m, g, e: f"{op} {m} ({g}) ({e})",
            st.sampled_from(["sum", "avg", "min", "max", "count", "group", "stddev", "stdvar"]),
            st.sampled_from(["by", "without"]),
            grp,
            sub,
        ),
        st.builds(
            lambda a, op, b: f"({a}) {op} ({b})",
            sub,
            st.sampled_from(
                [
                    "+",
                    "-",
                    "*",
                    "/",
                    "%",
                    "^",
                    "atan2",
                    ">",
                    "<",
                    "==",
                    "!=",
                    ">=",
                    "<= bool",
                    "and",
                    "or",
                    "unless",
                    "+ on(job)",
                    "/ ignoring(inst)",
                    "* on(job) group_left",
                    "- ignoring(le) group_right",
                    "> bool on(job, inst)",
                ]
            ),
            sub,
        ),
        st.builds(
            lambda f, e: f"{f}({e})",
            st.sampled_from(
                [
                    "abs",
                    "ceil",
                    "floor",
                    "exp",
                    "ln",
                    "sqrt",
                    "sgn",
                    "sort",
                    "sort_desc",
                    "absent",
                    "scalar",
                    "timestamp",
                    "hour",
                    "round",
                    "-",
                ]
            ),
            sub,
        ),
        st.builds(lambda k, e: f"topk({k}, {e})", st.sampled_from(["1", "2", "0"]), sub),
        st.builds(
            lambda q, e: f"histogram_quantile({q}, {e})",
            st.sampled_from(["0.5", "0.99", "1.5"]),
            sub,
        ),
        st.builds(lambda q, e: f"quantile({q}, {e})", st.sampled_from(["0.5", "-1"]), sub),
        st.builds(lambda e: f'count_values("v", {e})', sub),
        st.builds(lambda e: f'label_replace({e}, "x", "$1", "job", "(.*)")', sub),
        st.builds(
            lambda f, e, r: f"{f}(({e})[{r}:30s])",
            st.sampled_from(["max_over_time", "rate", "avg_over_time"]),
            sub,
            st.sampled_from(["1m", "2m"]),
        ),
        st.builds(
            lambda lo, hi, e: f"clamp({e}, {lo}, {hi})",
            st.sampled_from(["0", "3"]),
            st.sampled_from(["2", "10"]),
            sub,
        ),
    )


_TIMES = st.lists(st.integers(min_value=-60, max_value=900), min_size=1, max_size=5, unique=True)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=instant_exprs(), times=_TIMES)
def test_random_queries_only_raise_promql_errors_and_vectorise(query, times):
    times = sorted(times)
    try:
        batch = _PROP_ENG.eval(query, times)
    except PromQLError:
        return
    assert batch.values.shape == (len(batch.labels), len(times))
    # Every time evaluated on its own gives the same series and values (or the same error).
    for k, t in enumerate(times):
        single = _PROP_ENG.eval(query, [t])  # must not fail where the batch succeeded
        got = {
            tuple(sorted(lab.items())): (batch.values[i, k])
            for i, lab in enumerate(batch.labels)
            if batch.present[i, k]
        }
        exp = {
            tuple(sorted(lab.items())): (single.values[i, 0])
            for i, lab in enumerate(single.labels)
            if single.present[i, 0]
        }
        assert got.keys() == exp.keys(), (query, t)
        for key, v in exp.items():
            g = got[key]
            assert (
                g == v or (math.isnan(g) and math.isnan(v)) or math.isclose(g, v, rel_tol=1e-12)
            ), (query, t, key)


# A deliberately naive reference evaluator (one time at a time, Python loops over samples) for a
# subset of the grammar, written from the Prometheus documentation/semantics independently of the
# vectorised code paths.
def _ref_series(db: TSDB, name: str, matchers: dict[str, tuple[str, str]]):
    fam = db.families.get(name)
    if fam is None:
        return []
    out = []
    for r, labels in enumerate(fam.rows):
        d = dict(labels)
        if all((d.get(k, "") == v) == (op == "=") for k, (op, v) in matchers.items()):
            out.append((tuple(sorted(labels)), fam.data[r, : db.n_ticks]))
    return out


def _ref_eval(db: TSDB, node, t: float) -> dict:
    kind = node[0]
    if kind == "sel":
        _, name, m = node
        out = {}
        for labels, row in _ref_series(db, name, m):
            k = min(int((t - db.t0) // db.tick_s), db.n_ticks - 1)
            if k >= 0 and db.time_of(k) >= t - 300 and not math.isnan(row[k]):
                out[(("__name__", name),) + labels] = row[k]
        return out
    if kind == "range":
        _, fn, name, m, rng = node
        out = {}
        for labels, row in _ref_series(db, name, m):
            pts = [
                (db.time_of(k), row[k])
                for k in range(db.n_ticks)
                if t - rng <= db.time_of(k) <= t and not math.isnan(row[k])
            ]
            if fn in ("rate", "increase"):
                if len(pts) < 2:
                    continue
                inc, prev = 0.0, None
                for _, v in pts:
                    if prev is not None:
                        inc += v - prev if v >= prev else v
                    prev = v
                first_t, last_t, first_v = pts[0][0], pts[-1][0], pts[0][1]
                sampled = last_t - first_t
                avg = sampled / (len(pts) - 1)
                to_start, to_end = first_t - (t - rng), t - last_t
                if inc > 0 and first_v >= 0:
                    to_start = min(to_start, sampled * first_v / inc)
                ext = sampled + (to_start if to_start < avg * 1.1 else avg / 2)
                ext += to_end if to_end < avg * 1.1 else avg / 2
                val = inc * ext / sampled
                out[labels] = val / rng if fn == "rate" else val
            elif pts:
                vals = [v for _, v in pts]
                out[labels] = {
                    "max_over_time": max(vals),
                    "sum_over_time": math.fsum(vals),
                    "count_over_time": float(len(vals)),
                }[fn]
        return out
    if kind == "agg":
        _, op, by, sub = node
        groups: dict = {}
        for labels, v in _ref_eval(db, sub, t).items():
            key = tuple((k, x) for k, x in labels if k in by)
            groups.setdefault(key, []).append(v)
        return {
            k: {"sum": math.fsum, "max": max, "count": len}[op](vs) * 1.0
            for k, vs in groups.items()
        }
    if kind == "scalar_op":
        _, op, k, sub = node
        out = {}
        for labels, v in _ref_eval(db, sub, t).items():
            if op == "*":
                out[tuple(p for p in labels if p[0] != "__name__")] = v * k
            elif v > k:
                out[labels] = v
        return out
    raise AssertionError(node)


@st.composite
def ref_queries(draw, depth: int = 2):
    name = draw(st.sampled_from(["req_total", "temp", "lat_bucket", "late"]))
    m = draw(st.sampled_from([{}, {"job": ("=", "a")}, {"job": ("!=", "a")}, {"inst": ("=", "1")}]))
    msel = "{" + ",".join(f'{k}{op}"{v}"' for k, (op, v) in m.items()) + "}"
    choice = draw(st.integers(0, 2 if depth else 1))
    if choice == 0:
        node, q = ("sel", name, m), name + msel
    elif choice == 1:
        fn = draw(
            st.sampled_from(
                ["rate", "increase", "max_over_time", "sum_over_time", "count_over_time"]
            )
        )
        r = draw(st.sampled_from([30, 60, 90, 300]))
        node, q = ("range", fn, name, m, r), f"{fn}({name}{msel}[{r}s])"
    else:
        sub_node, sub_q = draw(ref_queries(depth - 1))
        op = draw(st.sampled_from(["sum", "max", "count"]))
        by = draw(st.lists(st.sampled_from(["job", "inst", "le"]), max_size=2, unique=True))
        node, q = ("agg", op, set(by), sub_node), f"{op} by ({', '.join(by)}) ({sub_q})"
    if depth and draw(st.booleans()):
        op = draw(st.sampled_from(["*", ">"]))
        k = draw(st.sampled_from([0.5, 2.0, 10.0]))
        node, q = ("scalar_op", op, k, node), f"({q}) {op} {k}"
    return node, q


@settings(max_examples=300, deadline=None)
@given(nq=ref_queries(), t=st.integers(min_value=0, max_value=900))
def test_engine_matches_naive_reference(nq, t):
    node, query = nq
    res = _PROP_ENG.eval(query, [t])
    got = {
        tuple(sorted(lab.items())): v for lab, v in zip(res.labels, res.values[:, 0], strict=True)
    }
    exp = {tuple(sorted(k)): v for k, v in _ref_eval(_PROP_DB, node, t).items()}
    assert got.keys() == exp.keys(), query
    for key, v in exp.items():
        assert math.isclose(got[key], v, rel_tol=1e-9, abs_tol=1e-12), (query, key, got[key], v)


# The span (2-D prefix) implementations must agree with the straightforward per-window (3-D)
# implementations of the same functions on arbitrary data with gaps and counter resets.
@settings(max_examples=150, deadline=None)
@given(
    data=st.lists(
        st.lists(
            st.one_of(st.none(), st.floats(0, 50, allow_nan=False), st.just(0.0)),
            min_size=30,
            max_size=30,
        ),
        min_size=1,
        max_size=4,
    ),
    refs=st.lists(st.integers(-20_000, 500_000), min_size=1, max_size=6),
    range_ms=st.sampled_from([15_000, 30_000, 45_000, 60_000, 100_000, 300_000]),
)
def test_span_functions_match_window_functions(data, refs, range_ms):
    from sre_gym.telemetry.promql import rangefuncs, spanfuncs
    from sre_gym.telemetry.promql.types import RangeIn

    arr = np.array([[NAN if v is None else v for v in row] for row in data])
    ref = np.array(refs, dtype=np.int64)
    labels = tuple(((("i", str(i)),)) for i in range(len(arr)))
    rv = RangeIn(labels, arr, None, None, 0, 15_000, ref, range_ms, ref, None)
    x, p, tms = rv.windows()
    win = rangefuncs.Win(ref, range_ms, ref, [])
    with np.errstate(all="ignore"):
        _compare_span_and_window(rv, ref, win, x, p, tms, spanfuncs, rangefuncs)


def _compare_span_and_window(rv, ref, win, x, p, tms, spanfuncs, rangefuncs) -> None:
    for name, span_fn in spanfuncs.SPAN_FUNCS.items():
        sv, sp = span_fn(spanfuncs.Span(rv, ref), win)
        if x.shape[-1] == 0:
            assert not sp.any(), name
            continue
        wv, wp = rangefuncs.RANGE_FUNCS[name](x, p, tms, win)
        assert np.array_equal(sp, wp), name
        both = sp & wp
        assert np.allclose(sv[both], wv[both], rtol=1e-12, equal_nan=True), (
            name,
            sv[both],
            wv[both],
        )


def _exact(r) -> object:
    """A result as comparable text: every present sample with its labels and time column."""
    if np.ndim(r.values) < 2:  # a scalar or a string
        return ("plain", np.asarray(r.values).tolist())
    return sorted(
        (tuple(sorted(lab.items())), k, float(r.values[i, k]))
        for i, lab in enumerate(r.labels)
        for k in range(r.values.shape[1])
        if r.present[i, k]
    )


def _alone_and_shared(queries: list[str], times: list[int]) -> tuple[list, list]:
    """Each query's exact result (or error) on its own engine, and all of them on one engine
    inside ``shared_spans``."""

    def run(eng: Engine, q: str):
        try:
            return _exact(eng.eval(q, times))
        except PromQLError as e:
            return ("error", str(e))

    alone = [run(Engine(build()), q) for q in queries]
    eng = Engine(build())
    with eng.shared_spans():
        together = [run(eng, q) for q in queries]
    return alone, together


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(instant_exprs(), min_size=1, max_size=4), times=_TIMES)
def test_range_functions_shared_across_queries_change_no_result(queries, times):
    # inside shared_spans, rate() and its kin are computed once per metric, range and times for
    # every series and each call takes its rows: a batch of queries must give exactly what each
    # gives alone, and errors stay errors
    times = sorted(times)
    alone, together = _alone_and_shared(queries, times)
    assert repr(together) == repr(alone), queries


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=instant_exprs(), times=_TIMES)
def test_subexpressions_shared_across_queries_change_no_result(query, times):
    # inside shared_spans, a call, aggregation or binary operation that several queries contain is
    # evaluated once per times: queries built around one subexpression give what each gives alone
    times = sorted(times)
    queries = [
        query,
        f"({query}) > 1",
        f"({query}) > bool 1",
        f"-({query})",
        f"sum(({query}))",
        f"({query}) or temp",
        f"({query})",
    ]
    alone, together = _alone_and_shared(queries, times)
    assert repr(together) == repr(alone), queries


def test_shared_subexpressions_are_keyed_by_their_whole_structure():
    # the parser's PromQL text writes a subquery with the default step as a range (x[5m:] as
    # x[5m]): sharing goes by the debug form, which keeps the two apart
    a, b = "sum_over_time(temp[5m:])", "sum_over_time(temp[5m])"
    times = [600.0]
    alone = [_exact(Engine(build()).eval(q, times)) for q in (a, b)]
    assert alone[0] != alone[1]
    eng = Engine(build())
    with eng.shared_spans():
        together = [_exact(eng.eval(q, times)) for q in (a, b)]
    assert together == alone
    # and equal subexpressions are computed once: the second query adds only its comparison
    eng = Engine(build())
    with eng.shared_spans():
        eng.eval("sum by (job) (rate(req_total[1m])) > 1", times)
        before = len(eng.shared_results)
        eng.eval("sum by (job) (rate(req_total[1m])) > 2", times)
        assert len(eng.shared_results) == before + 1
    assert eng.shared_results is None  # nothing is kept past the block


def _sub_keys(node) -> list:
    out = [getattr(node, "sub_key", None)]
    for child in node.children() if hasattr(node, "children") else ():
        out += _sub_keys(child)
    return out


def test_engines_share_parsed_queries_and_their_debug_forms_and_still_pickle():
    import copy
    import pickle

    import promql_parser as pp

    from sre_gym.telemetry.promql import engine as engine_mod

    q = 'sum by (job) (rate(req_total{job!="x"}[1m])) / ignoring(x) (1 + count(temp) > bool 2)'
    first, second = Engine(build()), Engine(build())
    a, b = first.compile(q), second.compile(q)
    assert a is not b and a.root is not b.root  # plans (and their trackers) stay per engine
    # the debug forms, which key shared subexpressions, are the parser's, computed once
    ast = pp.parse(q)
    keys = _sub_keys(a.root)
    assert keys == _sub_keys(b.root) and keys[0] == repr(ast)
    assert engine_mod._parse(q) is engine_mod._parse(q)
    # a query longer than a rule is parsed afresh each time: agents cannot fill the cache
    long_q = 'sum(temp{job=~"' + "a|" * 1500 + 'c"})'
    assert engine_mod._parse(long_q) is not engine_mod._parse(long_q)
    assert first.eval(long_q, [600.0]).labels == Engine(build()).eval(long_q, [600.0]).labels
    for eng in (first, second):  # what the memo holds (parser objects) is not carried along
        for clone in (pickle.loads(pickle.dumps(eng)), copy.deepcopy(eng)):
            assert _exact(clone.eval(q, [600.0])) == _exact(eng.eval(q, [600.0]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=instant_exprs(), times=_TIMES)
def test_skipping_series_without_samples_changes_no_result(query, times):
    # temp{job="c"} has samples only in ticks 10-19 and late{} only from tick 20: selections skip
    # them where an evaluation reads no sample of theirs, and nothing may show the difference
    import sre_gym.telemetry.promql.nodes as nodes_mod

    times = sorted(times)
    out = []
    for live in (False, True):
        nodes_mod.LIVE_ONLY = live
        try:
            r = Engine(build()).eval(query, times)
        except PromQLError as e:
            out.append(("error", str(e)))
            continue
        finally:
            nodes_mod.LIVE_ONLY = True
        out.append(_exact(r))
    a, b = out
    assert repr(a) == repr(b), query
