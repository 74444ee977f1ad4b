"""The held-out fault split (sre_gym/orchestrator/split.py) and the schedules drawn from its parts."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sre_gym.catalogs import APPS, load_catalog
from sre_gym.orchestrator import schedule
from sre_gym.orchestrator.split import assign, fault_parts, in_split


@pytest.mark.parametrize("app", APPS)
def test_every_fault_has_one_part_and_each_mechanism_splits_evenly(app):
    parts = fault_parts(app)
    whole = load_catalog(app, include_quarantined=True).faults
    assert set(parts) == {f.id for f in whole}  # quarantined faults too: releasing one moves none
    assert set(parts.values()) == {"train", "heldout"}
    by_mech: dict[str, Counter] = {}
    for f in whole:
        by_mech.setdefault(f.mechanism, Counter())[parts[f.id]] += 1
    for mech, c in by_mech.items():
        assert abs(c["train"] - c["heldout"]) <= 1, (mech, c)
    n = Counter(parts.values())
    assert abs(n["train"] - n["heldout"]) <= len(by_mech)


def test_assignment_alternates_over_a_mechanisms_services_and_ignores_the_order_given():
    faults = [(f"f{i}", "cpu_hog", f"svc{i // 2}") for i in range(8)]
    parts = assign(faults)
    assert assign(list(reversed(faults))) == parts
    for s in range(4):  # the two faults of each service land in different parts
        assert {parts[f"f{2 * s}"], parts[f"f{2 * s + 1}"]} == {"train", "heldout"}
    assert Counter(parts.values()) == {"train": 4, "heldout": 4}
    # another mechanism is split on its own
    more = assign([*faults, ("g0", "node_failure", "node-a"), ("g1", "node_failure", "node-b")])
    assert {more["g0"], more["g1"]} == {"train", "heldout"}
    assert all(more[f] == parts[f] for f in parts)


@pytest.mark.parametrize("app", APPS)
def test_train_and_heldout_schedules_never_share_a_fault(app):
    train: set[str] = set()
    heldout: set[str] = set()
    for seed in range(100):
        for split, seen in (("train", train), ("heldout", heldout)):
            s = schedule(app, seed, profile={"profile": "marathon", "split": split})
            ids = {f.fault_id for f in s.faults}
            assert all(in_split(app, i, split) for i in ids)
            seen |= ids
    assert not train & heldout
    assert len(train) > 40 and len(heldout) > 40


@pytest.mark.parametrize("app", APPS)
def test_both_parts_keep_the_calibration(app):
    """The arrival process does not depend on the split: the same faults per run and the same
    concurrency as the whole catalog; and each part still draws mostly distinct faults."""
    for seed in range(10):
        whole = schedule(app, seed)
        for split in ("train", "heldout"):
            s = schedule(app, seed, profile={"profile": "marathon", "split": split})
            assert len(s.faults) == len(whole.faults)
            assert np.array_equal(s.concurrency(), whole.concurrency())
            assert len({f.fault_id for f in s.faults}) >= 0.85 * len(s.faults)


def test_all_is_the_default_and_keeps_todays_schedules():
    a = schedule("online-boutique", 3)
    b = schedule("online-boutique", 3, profile={"profile": "marathon", "split": "all"})
    assert a.faults == b.faults and a.deploys == b.deploys


def test_a_filter_that_leaves_nothing_in_the_part_says_so():
    parts = fault_parts("online-boutique")
    only = next(i for i, p in parts.items() if p == "train")
    with pytest.raises(ValueError, match="'heldout' part of the fault split"):
        schedule("online-boutique", 0, profile={"faults": [only], "split": "heldout"})
    with pytest.raises(ValueError, match="split"):
        schedule("online-boutique", 0, profile={"split": "validation"})
