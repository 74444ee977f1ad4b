"""The fixed-grid series store: families, growth, blocks, visibility."""

from __future__ import annotations

import mmap
import pickle
from collections import OrderedDict

import numpy as np

from sre_gym.telemetry.tsdb import TSDB, nan_block, size_class


def _owner(a: np.ndarray) -> object:
    """The object that holds an array's memory."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a.obj if isinstance(a, memoryview) else a


def test_nan_block_is_nan_writable_and_big_ones_own_their_pages():
    small = nan_block(8, 400)  # 25.6 kB: from the heap
    big = nan_block(64, 400)  # 204.8 kB: pages of its own
    for a in (small, big):
        assert a.dtype == np.float64 and np.isnan(a).all() and a.flags.writeable
    assert not isinstance(_owner(small), mmap.mmap)
    assert isinstance(_owner(big), mmap.mmap)
    big[3, 7] = 1.5
    copy = pickle.loads(pickle.dumps(big))  # forks and bundles copy the samples, not the pages
    assert copy[3, 7] == 1.5 and np.isnan(copy[3, 8]) and copy.flags.writeable


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
    assert block.shape == (512, 400) and np.isnan(block).all()  # the hint, rounded up
    for i in range(9, 512):
        assert fam2.row((f"p{i}",)) == i
    assert fam2.data is block  # no regrowth up to the rounded hint
    assert hints["kube_pod_info"] == 512
    fam2.row(("p512",))
    assert fam2.data.shape[0] > 512 and hints["kube_pod_info"] == 513
    assert fam2.rows[:300] == fam.rows
    # a store without hints starts small, as before
    assert TSDB(t0=0, tick_s=15, capacity=400).family("x", ("a",)).data.shape == (8, 400)


def test_pages_of_a_dead_block_serve_the_next_block_of_its_size(monkeypatch):
    """A big block's pages go back to a free list when nothing refers to the block (views
    included) and are reused, NaN-filled again, for the next block of that size; past the
    limit they are let go."""
    import gc

    from sre_gym.telemetry import tsdb

    # an empty free list, whatever the tests before this one left in it
    monkeypatch.setattr(tsdb, "_FREE_PAGES", OrderedDict())
    monkeypatch.setattr(tsdb, "_free_bytes", 0)
    a = nan_block(97, 401)
    pages = _owner(a)
    view = a[10:20, 5:9]
    a[:] = 3.0
    del a
    gc.collect()
    assert 97 * 401 * 8 not in tsdb._FREE_PAGES or pages not in tsdb._FREE_PAGES[97 * 401 * 8]
    del view  # the last view keeps the pages in use
    gc.collect()
    assert pages in tsdb._FREE_PAGES[97 * 401 * 8]
    b = nan_block(97, 401)
    assert _owner(b) is pages and np.isnan(b).all()
    assert pages not in tsdb._FREE_PAGES.get(97 * 401 * 8, [])
    monkeypatch.setattr(tsdb, "_FREE_LIMIT_BYTES", 0)
    del b
    gc.collect()
    assert 97 * 401 * 8 not in tsdb._FREE_PAGES and tsdb._free_bytes == 0


def test_size_classes_are_powers_of_two_then_multiples_of_256():
    assert [size_class(r) for r in (0, 1, 8, 9, 14, 300, 1024)] == [8, 8, 8, 16, 16, 512, 1024]
    assert [size_class(r) for r in (1025, 1575, 1792, 1793)] == [1280, 1792, 1792, 2048]


def test_a_released_store_gives_its_pages_back_at_once(monkeypatch):
    from sre_gym.telemetry import tsdb

    monkeypatch.setattr(tsdb, "_FREE_PAGES", OrderedDict())
    monkeypatch.setattr(tsdb, "_free_bytes", 0)
    db = TSDB(t0=0, tick_s=15, capacity=400)
    fam = db.family("kube_pod_info", ("pod",))
    for i in range(100):
        fam.row((f"p{i}",))
    pages = _owner(fam.data)
    db.release()  # no garbage collection needed: the block has no other reference
    assert pages in tsdb._FREE_PAGES[128 * 400 * 8]
    assert db.families == {} and db.n_ticks == 0
