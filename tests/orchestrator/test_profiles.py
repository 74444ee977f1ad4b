"""Schedule profiles (sre_gym/orchestrator/profiles.py) and what they do to the schedule."""

from __future__ import annotations

import json
from fnmatch import fnmatchcase

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sre_gym.catalogs import APPS, load_catalog
from sre_gym.clock import TICK_S
from sre_gym.orchestrator import SCHEDULE_PROFILES, ScheduleProfile, schedule, schedule_profile_from

OB = "online-boutique"
SEEDS = range(10)


def test_named_profiles_have_their_lengths():
    assert (
        SCHEDULE_PROFILES["marathon"].invocations == 45
        and SCHEDULE_PROFILES["marathon"].injection_s == 3600
    )
    assert (
        SCHEDULE_PROFILES["short"].invocations == 15
        and SCHEDULE_PROFILES["short"].injection_s == 1200
    )
    assert (
        SCHEDULE_PROFILES["single"].invocations == 10
        and SCHEDULE_PROFILES["single"].injection_s == 240
    )
    assert schedule_profile_from(None) is SCHEDULE_PROFILES["marathon"]


@pytest.mark.parametrize("app", APPS)
def test_marathon_is_the_default_schedule(app):
    assert schedule(app, 3, profile="marathon").to_json() == schedule(app, 3).to_json()
    assert schedule(app, 3).profile == "marathon" and schedule(app, 3).duration_s == 5400


@pytest.mark.parametrize("app", APPS)
def test_single_is_one_fault_early_in_a_20_minute_run(app):
    for seed in SEEDS:
        s = schedule(app, seed, profile="single")
        assert (s.profile, s.duration_s, len(s.faults)) == ("single", 1200, 1)
        f = s.faults[0]
        assert 0 <= f.start < 240 and f.start % TICK_S == 0
        assert 240 <= f.duration <= 720 and f.end <= 1200
        assert all(0 <= d.time <= 1200 - 300 for d in s.deploys)


@pytest.mark.parametrize("app", APPS)
def test_short_is_fewer_and_sparser_than_marathon(app):
    short = [schedule(app, s, profile="short") for s in SEEDS]
    full = [schedule(app, s) for s in SEEDS]
    assert all(6 <= len(s.faults) <= 8 and s.duration_s == 1800 for s in short)
    assert all(f.start < 1200 and f.end <= 1800 for s in short for f in s.faults)
    mean_short = np.mean([s.concurrency().mean() for s in short])
    mean_full = np.mean([s.concurrency().mean() for s in full])
    assert mean_short < 3.0 < 5.0 < mean_full
    assert max(s.concurrency().max() for s in short) < np.median(
        [s.concurrency().max() for s in full]
    )


def test_same_seed_same_profile_same_schedule_and_profiles_differ():
    prof = {"profile": "short", "categories": ["code", "config"]}
    assert schedule(OB, 5, profile=prof).to_json() == schedule(OB, 5, profile=prof).to_json()
    assert schedule(OB, 5, profile="short").to_json() != schedule(OB, 5, profile="single").to_json()


def test_filters_by_category_and_by_id_pattern():
    cat = {f.id: f for f in load_catalog(OB).faults}
    s = schedule(OB, 1, profile={"profile": "short", "categories": ["network"]})
    assert s.faults and {cat[f.fault_id].category for f in s.faults} == {"network"}
    pats = ["ob-code-cart*", "ob-config-*"]
    s = schedule(OB, 1, profile={"profile": "short", "faults": pats, "n_faults": [4, 4]})
    assert len(s.faults) == 4
    assert all(any(fnmatchcase(f.fault_id, p) for p in pats) for f in s.faults)


def test_explicit_fields_override_the_base_and_keep_the_calibrated_rate():
    p = schedule_profile_from(
        {"profile": "single", "n_faults": [2, 2], "window_s": [300, 300, 300]}
    )
    assert p.name == "single+custom" and p.duration_s == 1200
    s = schedule(OB, 0, profile=p)
    assert len(s.faults) == 2 and all(f.duration == 300 for f in s.faults)
    # Only the length given: two thirds of it inject faults at the marathon's rate (55-61 per hour).
    s = schedule(OB, 0, profile={"duration_s": 1800})
    assert s.profile == "custom" and s.duration_s == 1800 and s.inject_s == 1200
    assert 18 <= len(s.faults) <= 20


def test_profile_round_trips_through_json():
    p = schedule_profile_from({"profile": "short", "categories": ["code"], "intensity_power": 2})
    again = schedule_profile_from(json.loads(json.dumps(p.model_dump(mode="json"))))
    assert again == p
    assert schedule(OB, 2, profile=again).to_json() == schedule(OB, 2, profile=p).to_json()


@pytest.mark.parametrize(
    ("spec", "msg"),
    [
        ("nope", "unknown schedule profile 'nope'"),
        (3, "not int"),
        ({"duration_s": 100}, "duration_s: Input should be greater than or equal to 600"),
        ({"duration_s": 1000}, "multiple of 120"),
        ({"inject_s": 4000, "duration_s": 3600}, "at most duration_s"),
        ({"n_faults": [5, 2]}, "n_faults must be"),
        ({"window_s": [30, 60, 90]}, "window_s must be"),
        ({"profile": "short", "colour": "red"}, "colour: Extra inputs are not permitted"),
        ({"profile": "nope"}, "unknown schedule profile"),
    ],
)
def test_bad_profiles_say_why(spec, msg):
    with pytest.raises(ValueError, match=msg):
        schedule_profile_from(spec)


def test_filters_that_leave_nothing_say_why():
    tt = "train-ticket"
    quarantined = sorted(
        {f.id for f in load_catalog(tt, include_quarantined=True).faults}
        - {f.id for f in load_catalog(tt).faults}
    )
    assert quarantined
    with pytest.raises(ValueError, match="no online-boutique fault has category teleport"):
        schedule(OB, 0, profile={"categories": ["teleport"]})
    with pytest.raises(ValueError, match="'ob-nothing-\\*' matches no schedulable"):
        schedule(OB, 0, profile={"faults": ["ob-nothing-*"]})
    for fid in quarantined:  # quarantined faults never enter a seeded schedule, even by name
        with pytest.raises(ValueError, match="matches no schedulable"):
            schedule(tt, 0, profile={"faults": [fid]})


def test_profiles_are_frozen():
    with pytest.raises(ValueError):
        SCHEDULE_PROFILES["short"].duration_s = 60  # type: ignore[misc]
    assert isinstance(SCHEDULE_PROFILES["short"], ScheduleProfile)


@settings(max_examples=40, deadline=None)
@given(
    app=st.sampled_from(APPS),
    seed=st.integers(0, 10_000),
    invocations=st.integers(5, 60),
    inject_share=st.floats(0.05, 1.0),
    n=st.tuples(st.integers(0, 40), st.integers(0, 40)).map(sorted),
    window=st.tuples(st.integers(4, 48), st.integers(0, 8), st.integers(0, 8)),
    power=st.floats(0.0, 4.0),
)
# 17 faults in a 75 s injection window: arrivals wait for free targets, then start after later ones
@example(
    app="online-boutique",
    seed=0,
    invocations=12,
    inject_share=0.0546875,
    n=[0, 17],
    window=(4, 0, 0),
    power=0.0,
)
def test_any_valid_profile_gives_a_consistent_schedule(
    app, seed, invocations, inject_share, n, window, power
):
    duration = invocations * 120
    inject = max(15, int(duration * inject_share) // 15 * 15)
    lo = min(window[0] * 15, duration)
    hi = min(lo + window[2] * 15, duration)
    mode = min(lo + window[1] * 15, hi)
    prof = {
        "duration_s": duration,
        "inject_s": inject,
        "n_faults": list(n),
        "window_s": [lo, mode, hi],
        "intensity_power": power,
    }
    s = schedule(app, seed, profile=prof)
    assert s.to_json() == schedule(app, seed, profile=prof).to_json()
    assert len(s.faults) <= n[1] and s.duration_s == duration and s.inject_s == inject
    faults = {f.id: f for f in load_catalog(app).faults}
    for f in s.faults:
        assert 0 <= f.start < inject and f.start % TICK_S == 0 and f.end % TICK_S == 0
        assert f.start < f.end <= duration
        assert f.duration <= hi and (f.duration >= lo or f.end == duration)
    for a in s.faults:  # never two faults on one target at once
        for b in s.faults:
            if a.index < b.index and a.start < b.end and b.start < a.end:
                assert faults[a.fault_id].target != faults[b.fault_id].target
    assert all(0 <= d.time <= duration - 300 for d in s.deploys)
