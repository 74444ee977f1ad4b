"""The simulator's probe reader (sre_gym/sim/faults/probes.py): the SLI window a probe reads."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from sre_gym.sim.faults.probes import WINDOW_TICKS, Window


def out(served: float, err: float, lat: float = 10.0) -> SimpleNamespace:
    n = 2
    return SimpleNamespace(
        served=np.array([served, served]),
        own_err=np.array([err, 0.0]),
        own_lat=np.array([lat, lat]),
        corrupt=np.zeros(n),
        edge_att=np.full((n, n), served),
        edge_tfail=np.full((n, n), err),
    )


def test_the_window_reads_the_last_minute_one_scrape_late():
    w, sigma = Window(2), np.zeros(2)
    first = w.read(out(10, 0.5), sigma)  # before any tick: the current one
    assert first.own_err[0] == 0.5
    for _ in range(WINDOW_TICKS):
        w.push(out(10, 0.0), sigma)
    w.push(out(30, 1.0), sigma)  # the newest tick enters the ring, the oldest leaves
    sli = w.read(out(99, 0.9), sigma)  # the current tick is not read
    assert sli.served[0] == 10 * (WINDOW_TICKS - 1) + 30
    assert sli.own_err[0] == pytest.approx(30 / (10 * (WINDOW_TICKS - 1) + 30))
    assert sli.edge_tfail[0, 1] == pytest.approx(sli.own_err[0])
    assert sli.p95[1] == pytest.approx(10.0)  # sigma 0: the p95 is the median
