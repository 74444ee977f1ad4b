"""The fixed-grid series store: families, growth, blocks, visibility."""

from __future__ import annotations

import numpy as np
import pytest

from sre_gym.telemetry.tsdb import TSDB, size_class


def test_rows_grow_past_capacity_and_keep_their_samples():
    db = TSDB(t0=0, tick_s=15, capacity=400)
    fam = db.family("up", ("pod",))
    rows = [fam.row((f"p{i}",)) for i in range(40)]  # 8 rows to start, doubled three times
    assert rows == list(range(40)) and fam.data.shape == (64, 400)
    for r in rows:
        db.write(fam, 0, np.array([r]), np.array([float(r)]))
    db.commit(0)
    assert fam.data[:40, 0].tolist() == [float(r) for r in rows]
    assert np.isnan(fam.data[40:, 0]).all() and np.isnan(fam.data[:, 1:]).all()
    assert fam.row(("p3",)) == 3  # an existing series keeps its row
    assert fam.rows[3] == (("pod", "p3"),)


def test_big_families_grow_by_a_quarter_not_double():
    db = TSDB(t0=0, tick_s=15, capacity=400)
    fam = db.family("kube_pod_info", ("pod",))
    for i in range(1025):
        fam.row((f"p{i}",))
    assert fam.data.shape == (1280, 400)  # 1,024 rows doubled from 8, then a quarter more
    assert fam.n_series == 1025 and np.isnan(fam.data).all()


def test_row_hints_size_a_family_once_and_record_its_rows():
    """A family sized from an earlier run's rows grows once, straight to that size; a family
    that grows past its hint raises it; sizes never change the samples or the rows."""
    hints: dict[str, int] = {}
    first = TSDB(t0=0, tick_s=15, capacity=400, row_hints=hints)
    fam = first.family("kube_pod_info", ("pod",))
    for i in range(300):
        fam.row((f"p{i}",))
    assert hints == {"kube_pod_info": 300}
    second = TSDB(t0=0, tick_s=15, capacity=400, row_hints=hints)
    fam2 = second.family("kube_pod_info", ("pod",))
    assert fam2.data.shape == (8, 400)  # nothing is allocated before it is needed
    for i in range(9):
        fam2.row((f"p{i}",))
    block = fam2.data
    assert block.shape == (320, 400) and np.isnan(block).all()  # the hint, rounded up
    for i in range(9, 320):
        assert fam2.row((f"p{i}",)) == i
    assert fam2.data is block  # no regrowth up to the rounded hint
    assert hints["kube_pod_info"] == 320
    fam2.row(("p320",))
    assert fam2.data.shape[0] > 320 and hints["kube_pod_info"] == 321
    assert fam2.rows[:300] == fam.rows
    # a store without hints starts small, as before
    assert TSDB(t0=0, tick_s=15, capacity=400).family("x", ("a",)).data.shape == (8, 400)


def test_size_classes_are_powers_of_two_then_multiples_of_64():
    assert [size_class(r) for r in (0, 1, 8, 9, 14, 100, 128)] == [8, 8, 8, 16, 16, 128, 128]
    rows = (129, 300, 600, 640, 641, 1575)
    assert [size_class(r) for r in rows] == [192, 320, 640, 640, 704, 1600]


def test_a_released_store_lets_go_of_its_blocks_at_once():
    import weakref

    db = TSDB(t0=0, tick_s=15, capacity=400)
    fam = db.family("kube_pod_info", ("pod",))
    for i in range(100):
        fam.row((f"p{i}",))
    block = weakref.ref(fam.data)
    db.release()  # no garbage collection needed: nothing else refers to the block
    assert block() is None
    assert db.families == {} and db.n_ticks == 0 and fam.data.size == 0


def _indicator_stores(n_ticks: int = 40) -> tuple[TSDB, TSDB]:
    """The same 0/1 series (with gaps: pods come and go) in a float16 and a float64 family."""
    rng = np.random.default_rng(7)
    dbs = []
    for dtype in (np.float16, np.float64):
        db = TSDB(t0=0, tick_s=15, capacity=64)
        fam = db.family("kube_pod_status_ready", ("pod", "condition"), dtype)
        rows = fam.rows_for((f"p{i}", c) for i in range(6) for c in ("true", "false"))
        dbs.append((db, fam, rows))
    for k in range(n_ticks):
        live = rng.random(len(dbs[0][2])) < 0.8
        vals = (rng.random(len(live)) < 0.5).astype(float)[live]
        for db, fam, rows in dbs:
            db.write(fam, k, rows[live], vals)
            db.commit(k)
    return dbs[0][0], dbs[1][0]


def test_a_float16_family_holds_indicators_exactly_in_a_quarter_of_the_space():
    narrow, wide = _indicator_stores()
    a, b = narrow.families["kube_pod_status_ready"], wide.families["kube_pod_status_ready"]
    assert a.data.dtype == np.float16 and a.data.nbytes * 4 == b.data.nbytes
    assert np.array_equal(a.data.astype(np.float64), b.data, equal_nan=True)


def test_queries_over_a_float16_family_equal_those_over_float64_bit_for_bit():
    """Readers widen narrow samples before any arithmetic: instant and range queries, with
    scalars that float16 could not hold, give exactly the float64 store's answers."""
    from sre_gym.telemetry.promql import Engine

    narrow, wide = Engine(_indicator_stores()[0]), Engine(_indicator_stores()[1])
    for q in (
        "kube_pod_status_ready * 0.1",
        "sum by (condition) (kube_pod_status_ready) / 3",
        "avg_over_time(kube_pod_status_ready[5m]) * 1.7",
        "max_over_time(kube_pod_status_ready[2m])",
        "rate(kube_pod_status_ready[3m])",
        "changes(kube_pod_status_ready[5m]) / 7",
        "stddev_over_time(kube_pod_status_ready[4m])",
        'kube_pod_status_ready{condition="false"} == 1',
    ):
        for t in (150.0, 330.0, 585.0):
            assert narrow.instant(q, t) == wide.instant(q, t), (q, t)


def test_a_narrow_family_widens_at_the_first_value_it_cannot_hold_and_loses_nothing():
    db = TSDB(t0=0, tick_s=15, capacity=16)
    fam = db.family("kube_pod_info", ("pod",), np.float16)
    rows = fam.rows_for([("a",), ("b",)])
    db.write(fam, 0, rows, np.array([1.0, 0.0]))
    assert fam.data.dtype == np.float16
    db.write(fam, 1, rows, np.array([1.0, 0.1]))  # 0.1 is not a float16
    assert fam.data.dtype == np.float64
    assert (
        fam.data[:2, :2].tolist() == [[1.0, 1.0], [0.0, 0.1]] and np.isnan(fam.data[:2, 2:]).all()
    )
    db.write(fam, 2, rows, np.array([2.0, 3.0]))
    db.family("kube_pod_info", ("pod",), np.float16)  # still the family declared so
    with pytest.raises(ValueError, match="already declared float16"):
        db.family("kube_pod_info", ("pod",))


def test_a_float32_counter_past_2_to_the_24_widens_and_queries_stay_exact():
    """Counters of whole events are float32 until one passes 2**24, where float32 skips odd
    integers: from that write on the family is float64, and every query equals a float64
    store's, bit for bit."""
    from sre_gym.telemetry.promql import Engine

    dbs = []
    for dtype in (np.float32, np.float64):
        db = TSDB(t0=0, tick_s=15, capacity=64)
        fam = db.family("traces_span_metrics_calls_total", ("service_name",), dtype)
        rows = fam.rows_for([("a",), ("b",)])
        count = np.array([2**24 - 300.0, 5.0])
        for k in range(40):
            count += [37.0, 1.0]  # the first counter passes 2**24 at the ninth tick
            db.write(fam, k, rows, count)
            db.commit(k)
        dbs.append((db, fam))
    (narrow, fam32), (wide, _) = dbs
    assert fam32.dtype == np.float32 and fam32.data.dtype == np.float64
    assert np.array_equal(fam32.data, wide.families[fam32.name].data, equal_nan=True)
    for q in ("rate(traces_span_metrics_calls_total[1m])", "traces_span_metrics_calls_total + 1"):
        for t in (60.0, 135.0, 585.0):
            assert Engine(narrow).instant(q, t) == Engine(wide).instant(q, t), (q, t)
