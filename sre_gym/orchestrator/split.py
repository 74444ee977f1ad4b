"""The held-out fault split: each catalog fault belongs to ``train`` or ``heldout``, for good.

The catalog is fixed and public, so a policy trained on many seeds can memorise which diffs are
faulty. Training schedules draw from one part and evaluation schedules from the other, so that an
evaluated agent meets faults (and faulty diffs) it never trained on; the change corpus and the
benign deploys stay shared (``ScheduleProfile.split``).

The assignment is a pure function of the app's whole catalog (quarantined faults included, so
that quarantining or releasing one fault never moves another). Within each mechanism the faults
are ordered by target service and then by a SHA-256 of their id, and take the parts in turn from a
start the mechanism's own hash picks: every mechanism is split evenly (to one fault), and a
service's faults of one mechanism alternate between the parts, so both parts ask the same skills
on the same services.

Half and half: Online Boutique has 140 schedulable faults and a marathon draws 55-61 distinct ones
(Train Ticket 58-64 of 397, Astronomy Shop 59-65 of 194), so each part must hold more than the
largest draw; an even split is the largest held-out part that leaves training as diverse.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Literal

Split = Literal["all", "train", "heldout"]
SPLITS: tuple[str, ...] = ("all", "train", "heldout")


def _h(s: str) -> int:
    return int.from_bytes(hashlib.sha256(s.encode()).digest()[:8], "big")


@functools.cache
def fault_parts(app: str) -> dict[str, str]:
    """fault id -> ``"train"`` or ``"heldout"`` for every fault of ``app``'s catalog."""
    from sre_gym.catalogs import load_catalog

    faults = load_catalog(app, include_quarantined=True).faults
    return assign([(f.id, f.mechanism, f.target) for f in faults])


def assign(faults: list[tuple[str, str, str]]) -> dict[str, str]:
    """Parts of ``(id, mechanism, target)`` triples: per mechanism, ordered by (target, hash of
    the id), alternating from a start the mechanism's hash picks."""
    by_mech: dict[str, list[tuple[str, int, str]]] = {}
    for fid, mech, target in faults:
        by_mech.setdefault(mech, []).append((target, _h(fid), fid))
    out: dict[str, str] = {}
    for mech, members in by_mech.items():
        start = _h("mechanism:" + mech) % 2
        for i, (_, _, fid) in enumerate(sorted(members)):
            out[fid] = "heldout" if (i + start) % 2 else "train"
    return out


def in_split(app: str, fault_id: str, split: str) -> bool:
    """Whether a fault may be drawn under ``split`` (``all`` takes every fault)."""
    return split == "all" or fault_parts(app).get(fault_id) == split
