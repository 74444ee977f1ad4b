"""Incident-Arena's check evaluation: resolve a JSON pointer in an artifact, apply one of 16 ops."""

from __future__ import annotations

from typing import Any


class EvidenceError(ValueError):
    """Missing, malformed or forged evidence: an infrastructure error that yields no verdict."""


_MISSING = object()


def resolve(doc: Any, pointer: str) -> Any:
    """RFC 6901 JSON pointer; ``_MISSING`` when a step does not exist."""
    if pointer in ("", "/"):
        return doc
    if not pointer.startswith("/"):
        raise EvidenceError(f"bad JSON pointer {pointer!r}")
    cur = doc
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict):
            if part not in cur:
                return _MISSING
            cur = cur[part]
        elif isinstance(cur, list):
            if not part.isdigit() or int(part) >= len(cur):
                return _MISSING
            cur = cur[int(part)]
        else:
            return _MISSING
    return cur


def _num(x: Any) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise EvidenceError(f"expected a number, observed {x!r}")
    return float(x)


def apply(op: str, observed: Any, value: Any) -> bool:
    if op == "equals":
        return observed == value
    if op == "not_equals":
        return observed != value
    if op == "truthy":
        return bool(observed)
    if op == "falsy":
        return not observed
    if op == "empty":
        return len(observed) == 0
    if op == "not_empty":
        return len(observed) > 0
    if op in ("gte", "lte", "gt", "lt"):
        a, b = _num(observed), _num(value)
        return {"gte": a >= b, "lte": a <= b, "gt": a > b, "lt": a < b}[op]
    if op == "contains_all":
        return all(v in observed for v in value)
    if op == "set_equals":
        return set(observed) == set(value)
    if op == "subset_of":
        return set(observed) <= set(value)
    if op == "all_true":
        vals = observed.values() if isinstance(observed, dict) else observed
        return all(v is True for v in vals)
    if op == "length_gte":
        return len(observed) >= int(value)
    if op == "length_lte":
        return len(observed) <= int(value)
    raise EvidenceError(f"unknown operator {op!r}")


def expected(op: str, value: Any) -> str:
    """The displayed expectation, derived from the assertion (never authored)."""
    if value is None:
        return op
    return f"{op} {value!r}"


def evaluate(check: Any, store: dict[str, Any], gate: str) -> dict[str, Any]:
    """One check record: id, requirement ids, expected, observed, pass."""
    art = check.observe.artifact
    if art not in store:
        raise EvidenceError(f"check {check.id}: artifact {art} is missing")
    observed = resolve(store[art], check.observe.pointer)
    if observed is _MISSING:
        raise EvidenceError(f"check {check.id}: {art}#{check.observe.pointer} does not resolve")
    try:
        ok = apply(check.assert_.op, observed, check.assert_.value)
    except TypeError as e:
        raise EvidenceError(f"check {check.id}: {e}") from e
    return {
        "id": f"{gate}.{check.id}",
        "requirement_ids": list(check.requirement_ids),
        "summary": check.summary,
        "expected": expected(check.assert_.op, check.assert_.value),
        "observed": observed,
        "pass": bool(ok),
    }
