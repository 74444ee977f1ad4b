"""The seeded fault schedule (sre_gym/orchestrator/schedule.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.orchestrator.schedule import (
    EPISODE_S,
    INJECT_S,
    TICK_S,
    Schedule,
    ScheduledFault,
    _compatible,
    _conflicts,
    schedule,
)

OB = "online-boutique"
CAT = load_catalog(OB)
FAULTS = {f.id: f for f in CAT.faults}
NAMED_CHANGES = {f.change for f in CAT.faults if f.change}


def check_invariants(s: Schedule) -> None:
    assert s.app == OB and s.release == RELEASE
    assert 55 <= len(s.faults) <= 61
    assert [f.index for f in s.faults] == list(range(len(s.faults)))
    starts = [f.start for f in s.faults]
    assert starts == sorted(starts)
    for f in s.faults:
        assert f.fault_id in FAULTS
        assert 0 <= f.start < INJECT_S
        assert f.start % TICK_S == 0 and f.end % TICK_S == 0
        assert 240 <= f.duration <= 720
        assert f.end <= EPISODE_S
    # no fault twice at once, at most one active change per deployment, no same mechanism+target twice
    for i, a in enumerate(s.faults):
        fa = FAULTS[a.fault_id]
        for b in s.faults[i + 1 :]:
            if b.start >= a.end:
                continue
            fb = FAULTS[b.fault_id]
            assert a.fault_id != b.fault_id, (a, b)
            assert not (fa.delivery == fb.delivery == "change" and fa.target == fb.target), (a, b)
            assert not (fa.mechanism == fb.mechanism and fa.target == fb.target), (a, b)
    # ordinary deploys: benign changes, on the grid, each once; they land on faulted services too,
    # but no code or image build replaces a bad image tag while that fault is active
    assert len({d.change_id for d in s.deploys}) == len(s.deploys)
    by_id = {c.id: c for c in CAT.changes}
    for d in s.deploys:
        assert d.change_id not in NAMED_CHANGES
        assert 0 <= d.time <= EPISODE_S - 300 and d.time % TICK_S == 0
        ch = by_id[d.change_id]
        for f in s.faults:
            fault = FAULTS[f.fault_id]
            bad_tag = fault.change is not None and by_id[fault.change].kind == "image"
            if bad_tag and ch.kind in ("code", "image") and ch.service == fault.target:
                assert not (f.start - 120 <= d.time < f.end + 120), (d, f)


def test_pure_and_stable():
    a = schedule(OB, 11)
    b = schedule(OB, 11)
    assert a == b
    assert a.to_json() == b.to_json()
    d = json.loads(a.to_json())
    assert d == a.to_dict()
    assert list(d) == sorted(d)
    assert d["seed"] == 11 and d["app"] == OB and d["release"] == RELEASE
    assert d["faults"][0] == {
        "index": 0,
        "fault_id": a.faults[0].fault_id,
        "start": a.faults[0].start,
        "end": a.faults[0].end,
    }
    assert schedule(OB, 12) != a
    assert schedule(OB, np.int64(11)) == a


def test_fingerprint_is_stable_across_processes():
    """The schedule depends only on hashed keys (blake2b), never on PYTHONHASHSEED or the machine."""
    import subprocess
    import sys

    code = "from sre_gym.orchestrator.schedule import schedule; print(schedule('online-boutique', 5).to_json())"
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": h},
        ).stdout
        for h in ("0", "123")
    }
    assert outs == {schedule(OB, 5).to_json() + "\n"}


def test_release_is_part_of_the_key():
    assert schedule(OB, 3, release="other-release") != schedule(OB, 3)


@pytest.mark.parametrize("seed", range(10))
def test_invariants_on_ten_seeds(seed):
    s = schedule(OB, seed)
    check_invariants(s)
    first = sum(f.start < INJECT_S / 2 for f in s.faults)
    assert len(s.faults) - first > first  # increasing intensity
    c = s.concurrency()
    assert c.max() >= 2  # faults overlap
    assert len(s.deploys) > 0


# the paper's load (§4): mean simultaneous faults over the injection hour and median peak per app
PAPER_LOAD = {"online-boutique": (5.8, 10), "train-ticket": (6.1, 11), "astronomy-shop": (6.5, 11)}


@pytest.mark.parametrize("app", sorted(PAPER_LOAD))
def test_calibration_over_ten_seeds(app):
    """About 60 faults per run (55-65), 4-12 minute windows, and the paper's concurrency (the
    50-seed figures: ``sre-gym schedule --app A --stats --seeds 0-49``)."""
    mean_target, peak_target = PAPER_LOAD[app]
    means, peaks = [], []
    for seed in range(10):
        s = schedule(app, seed)
        assert 55 <= len(s.faults) <= 65
        assert all(240 <= f.end - f.start <= 720 for f in s.faults)
        c = s.concurrency()
        means.append(c.mean())
        peaks.append(c.max())
    assert abs(np.mean(means) - mean_target) <= 0.5
    assert abs(np.median(peaks) - peak_target) <= 1


def test_stats_command_prints_the_calibration_figures(capsys):
    from sre_gym.cli import main

    assert main(["schedule", "--app", OB, "--stats", "--seeds", "0-4"]) == 0
    out = capsys.readouterr().out
    means = [schedule(OB, s).concurrency().mean() for s in range(5)]
    assert f"mean simultaneous {np.mean(means):.2f}" in out and "faults/run" in out


def test_intensity_grows_through_the_hour():
    quarters = np.zeros(4)
    for seed in range(20):
        for f in schedule(OB, seed).faults:
            quarters[f.start // 900] += 1
    assert np.all(np.diff(quarters) > 0)
    assert quarters[3] > 1.4 * quarters[0]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_arrival_takes_a_least_used_fault_that_fits(seed):
    """Replays the pick rule: the chosen fault does not conflict with anything active and no
    fitting fault had been used fewer times."""
    s = schedule(OB, seed)
    uses = dict.fromkeys(FAULTS, 0)
    active: list = []
    for sf in s.faults:
        active = [a for a in active if a.end > sf.start]
        ok = [f for f in CAT.faults if not any(_conflicts(f, FAULTS[a.fault_id]) for a in active)]
        chosen = FAULTS[sf.fault_id]
        assert chosen in ok
        assert uses[chosen.id] == min(uses[f.id] for f in ok)
        uses[chosen.id] += 1
        active.append(sf)
    assert len({sf.fault_id for sf in s.faults}) >= min(len(FAULTS), len(s.faults)) * 0.8


@pytest.mark.parametrize("seed", range(5))
def test_the_compatible_faults_are_those_that_conflict_with_none_busy(seed):
    """The one-pass filter the scheduler uses keeps exactly the faults (in order) that the
    pairwise rule lets run beside everything busy."""
    g = np.random.default_rng(seed)
    faults = list(CAT.faults)
    for k in (0, 1, 3, 8):
        busy = [faults[i] for i in g.choice(len(faults), size=k, replace=False)]
        expect = [f for f in faults if not any(_conflicts(f, b) for b in busy)]
        assert _compatible(faults, busy) == expect


def test_concurrency_counts_active_faults():
    s = Schedule(
        RELEASE, OB, 0, (ScheduledFault(0, "a", 0, 30), ScheduledFault(1, "b", 15, 45)), ()
    )
    c = s.concurrency()
    assert len(c) == INJECT_S // TICK_S
    assert c[:4].tolist() == [1, 2, 1, 0]
    assert Schedule(RELEASE, OB, 0, (), ()).concurrency().sum() == 0
    assert ScheduledFault(0, "a", 15, 300).duration == 285


@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.integers(min_value=0, max_value=2**31 - 1))
@example(12586234)  # an arrival found no fitting fault and was dropped: 54 faults
def test_property_invariants_hold_for_any_seed(seed):
    s = schedule(OB, seed)
    check_invariants(s)
    assert s == schedule(OB, seed)
    c = s.concurrency()
    assert 1 <= c.max() <= 16
    assert 3.5 <= c.mean() <= 8.5
