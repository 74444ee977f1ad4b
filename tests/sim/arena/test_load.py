"""The arena's open-loop load schedule."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_substrate, load_task
from sre_gym.rng import Streams
from sre_gym.sim.arena.load import PEAK, TROUGH, WARMUP, arrivals, cycle_start_at_or_after, phases


def test_phases_and_cycle_boundaries():
    load = load_task("arena-008").load
    ph = phases(load, 200)
    assert (ph[:30] == WARMUP).all() and (ph[30:50] == PEAK).all() and (ph[50:90] == TROUGH).all()
    assert cycle_start_at_or_after(load, 0) == 30
    assert cycle_start_at_or_after(load, 31) == 90
    assert cycle_start_at_or_after(load, 90) == 90


def test_arrivals_are_seeded_and_follow_the_schedule():
    task = load_task("arena-008")
    sub = load_substrate(task.substrate)
    lanes, mean, a = arrivals(sub, task.load, Streams("r", task.id, 1), 600)
    _, _, b = arrivals(sub, task.load, Streams("r", task.id, 1), 600)
    _, _, c = arrivals(sub, task.load, Streams("r", task.id, 2), 600)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    send = lanes.index("send")
    ph = phases(task.load, 600)
    assert abs(a[send][ph == PEAK].mean() - 50) < 3 and abs(a[send][ph == TROUGH].mean() - 10) < 1
