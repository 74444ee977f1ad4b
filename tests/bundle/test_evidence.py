"""Evidence events: what ``Evidence.add`` stores is plain JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sre_gym.bundle.evidence import Evidence, jsonable


def test_jsonable_makes_numpy_scalars_and_tuples_plain_and_keeps_plain_leaves():
    src = {
        1: np.float64(0.1),  # a float subclass: it becomes a float all the same
        "n": (np.int64(3), np.int8(-2), np.bool_(False)),
        "plain": ["s", 2, 2.5, True, None],
        "nested": {"x": [np.float32(0.5)]},
    }
    out = jsonable(src)
    assert out == {
        "1": 0.1,
        "n": [3, -2, False],
        "plain": ["s", 2, 2.5, True, None],
        "nested": {"x": [0.5]},
    }
    assert type(out["1"]) is float and [type(v) for v in out["n"]] == [int, int, bool]
    assert type(out["nested"]["x"][0]) is float
    assert json.loads(json.dumps(out)) == out
    s = "kept"
    assert jsonable(s) is s


def test_evidence_add_stores_plain_events_and_refuses_unknown_types():
    ev = Evidence(manifest={})
    e = ev.add("intervention", np.float64(12.0), service="cart", replicas=np.int64(2))
    assert e == {"type": "intervention", "t": 12.0, "service": "cart", "replicas": 2}
    assert ev.of("intervention") == [e]
    with pytest.raises(ValueError, match="unknown evidence event type"):
        ev.add("gossip", 1.0)
