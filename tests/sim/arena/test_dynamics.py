"""The arena's per-second mechanisms against their definitions."""

from __future__ import annotations

import numpy as np

from sre_gym.sim.arena.dynamics import (
    _cancelled,
    checkpoint_mask,
    pool_queue,
    sakasegawa_wait_s,
)


def _loop(lam, hold, cap, timeout, q0=0.0):
    mu = cap / hold
    q, out, refused = q0, [], []
    for i in range(len(lam)):
        v = q + lam[i] - mu[i]
        r = max(0.0, v - mu[i] * timeout)
        q = max(0.0, min(v, mu[i] * timeout))
        out.append(q)
        refused.append(r)
    return np.array(out), np.array(refused)


def test_the_backlog_follows_the_lindley_recursion_below_the_timeout():
    rng = np.random.default_rng(0)
    rate = np.tile(np.r_[np.full(20, 50.0), np.full(40, 10.0)], 5)  # peak and trough cycles
    lam = rng.poisson(rate).astype(float)
    hold = np.full(300, 0.36)
    wait, refused, qend = pool_queue(lam, hold, 14, 10.0, 0.0)  # 12/2 at the strict hold
    q, r = _loop(lam, hold, 14, 10.0)
    want = np.where(q > 0, q / (14 / 0.36), sakasegawa_wait_s(lam, hold, 14))
    assert np.allclose(wait, np.minimum(want, 10.0))
    assert refused.sum() == r.sum() == 0 and np.isclose(qend, q[-1])
    assert wait.max() > 3.0  # the peak's backlog: seconds of latency, no errors (task 012)


def test_the_acquisition_timeout_caps_the_backlog_and_refuses_the_rest():
    lam = np.full(60, 50.0)
    hold = np.full(60, 0.36)
    wait, refused, _ = pool_queue(lam, hold, 5, 10.0, 0.0)  # 3/2: mu = 13.9/s
    _, r = _loop(lam, hold, 5, 10.0)
    assert np.allclose(refused, r) and refused[-1] > 30 and wait.max() <= 10.0


def test_a_healthy_pool_barely_waits():
    lam, hold = np.full(20, 50.0), np.full(20, 0.09)
    wait, refused, _ = pool_queue(lam, hold, 30, 10.0, 0.0)
    assert wait.max() < 0.001 and refused.sum() == 0


def test_checkpoint_windows_follow_the_schedule():
    cfg = {
        "db-maintenance.enabled": True,
        "db-maintenance.period_s": 60,
        "db-maintenance.offset_s": 35,
        "db-maintenance.duration_s": 8,
    }
    m = checkpoint_mask(cfg, np.arange(120))
    assert list(np.flatnonzero(m)) == [*range(35, 43), *range(95, 103)]
    cfg["db-maintenance.enabled"] = False
    assert not checkpoint_mask(cfg, np.arange(120)).any()


def test_cancellation_grows_with_duration_and_vanishes_without_a_timeout():
    d = np.array([80.0, 150.0, 220.0])
    c = _cancelled(d, np.full(8, 150.0))
    assert c[0] < 0.01 and abs(c[1] - 0.5) < 1e-6 and c[2] > 0.9
    assert not _cancelled(d, np.zeros(8)).any()
