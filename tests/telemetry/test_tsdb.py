"""The fixed-grid series store: families, growth, blocks, visibility."""

from __future__ import annotations

import mmap
import pickle

import numpy as np

from sre_gym.telemetry.tsdb import TSDB, nan_block


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
