"""Incident-Arena's 16 check operators and JSON pointers."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena.schema import OPS, Check
from sre_gym.scoring.arena.checks import EvidenceError, apply, evaluate, expected, resolve

CASES = [
    ("equals", 1, 1, True),
    ("not_equals", 1, 2, True),
    ("truthy", [1], None, True),
    ("falsy", 0, None, True),
    ("empty", [], None, True),
    ("not_empty", [], None, False),
    ("gte", 2, 2, True),
    ("lte", 3, 2, False),
    ("gt", 3, 2, True),
    ("lt", 3, 2, False),
    ("contains_all", [1, 2, 3], [1, 3], True),
    ("set_equals", [2, 1], [1, 2], True),
    ("subset_of", ["a"], ["a", "b"], True),
    ("all_true", {"x": True, "y": 1}, None, False),
    ("length_gte", [1, 2], 2, True),
    ("length_lte", [1, 2], 1, False),
]


def test_every_operator_is_covered():
    assert {c[0] for c in CASES} == set(OPS)


@pytest.mark.parametrize("op,observed,value,want", CASES)
def test_operators(op, observed, value, want):
    assert apply(op, observed, value) is want


def test_numbers_only_for_comparisons():
    with pytest.raises(EvidenceError):
        apply("gte", True, 1)


def test_pointer_escapes_and_missing_steps():
    doc = {"a/b": {"c~d": [10, 20]}}
    assert resolve(doc, "/a~1b/c~0d/1") == 20
    assert resolve(doc, "/a~1b/x") is not doc and str(resolve(doc, "/nope"))


def _check(pointer):
    return Check.model_validate(
        {
            "id": "c",
            "requirement_ids": ["R"],
            "summary": "s",
            "observe": {"artifact": "derived/x.json", "pointer": pointer},
            "assert": {"op": "equals", "value": True},
        }
    )


def test_evaluate_records_and_errors():
    rec = evaluate(_check("/ok"), {"derived/x.json": {"ok": True}}, "outcome")
    assert rec["pass"] and rec["id"] == "outcome.c" and rec["expected"] == expected("equals", True)
    with pytest.raises(EvidenceError, match="does not resolve"):
        evaluate(_check("/missing"), {"derived/x.json": {}}, "outcome")
    with pytest.raises(EvidenceError, match="missing"):
        evaluate(_check("/ok"), {}, "outcome")
