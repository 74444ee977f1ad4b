"""Observed repair persistence on a live run (sre_gym/backends/live_episode.py)."""

from __future__ import annotations

import numpy as np

from sre_gym.backends.live_episode import ObservedRepairs
from sre_gym.catalogs import load_catalog
from sre_gym.orchestrator.faults import Injection

T0, TICK = 1000.0, 15.0


class Ep:
    """The parts of a live episode the watcher reads."""

    def __init__(self) -> None:
        self.t0, self.tick_s = T0, TICK
        f = next(
            f for f in load_catalog("online-boutique").faults if f.mechanism == "replicas_zero"
        )
        inj = Injection(0, f, T0, T0 + 60 * TICK, [f.target], [f.target], ["deployment/x"])

        class Drv:
            injections = [inj]
            probe = np.full((1, 100), -1, dtype=np.int8)
            artifact = np.full((1, 100), -1, dtype=np.int8)
            records: list = []

        self.faults = Drv()
        self.inj = inj


def run(probe: list[int], hold_s=30.0, persistence_s=60.0):
    ep = Ep()
    rep = ObservedRepairs(ep, hold_s, persistence_s)
    rep.note_intervention(T0 + 2 * TICK + 1, ep.inj.fault.target, "")
    rep.note_intervention(T0 + 2 * TICK + 1, "someone-else", "")  # not this fault's scope
    for k, v in enumerate(probe):
        ep.faults.probe[0, k] = v
        ep.faults.artifact[0, k] = 0
        rep.on_tick(k)
    return ep.faults.records


def test_a_repair_that_holds_through_the_window_is_held():
    (c,) = run([0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1])
    assert c["kind"] == "observed" and c["outcome"] == "held" and c["route"] == "probe"
    assert c["recovered_at"] == T0 + 4 * TICK  # first healthy tick after the intervention
    assert c["settled_at"] == T0 + 6 * TICK  # + the hold (two ticks)
    assert c["window_end"] == T0 + 10 * TICK  # + the persistence window (four ticks)


def test_a_relapse_inside_the_window_is_recorded_as_such():
    (c,) = run([0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1])
    assert c["outcome"] == "relapsed" and c["relapsed_at"] == T0 + 8 * TICK


def test_a_probe_that_never_failed_takes_the_artifact_route():
    (c,) = run([1] * 14)
    assert c["route"] == "artifact" and c["outcome"] == "held"


def test_no_recovery_no_record():
    assert run([0] * 20) == []
