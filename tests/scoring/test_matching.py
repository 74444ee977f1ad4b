"""Maximum-weight one-to-one matching (sre_gym/scoring/matching.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from sre_gym.scoring.matching import _hungarian_min, max_weight_matching


def brute_force(w: np.ndarray) -> tuple[float, int]:
    """(maximum total weight, minimum sum of matched column indices among maximum matchings)."""
    n, m = w.shape
    best = (0.0, 0)
    for assign in itertools.product(*[[None, *range(m)]] * n):
        cols = [c for c in assign if c is not None]
        if len(set(cols)) != len(cols):
            continue
        pairs = [(r, c) for r, c in enumerate(assign) if c is not None and w[r, c] > 0]
        total = float(sum(w[r, c] for r, c in pairs))
        ranks = sum(c for _, c in pairs)
        if total > best[0] or (total == best[0] and ranks < best[1]):
            best = (total, ranks)
    return best


matrices = st.integers(1, 5).flatmap(
    lambda n: st.integers(1, 5).flatmap(
        lambda m: arrays(np.int64, (n, m), elements=st.integers(0, 6))
    )
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(matrices)
def test_maximum_total_equals_brute_force(w):
    pairs = max_weight_matching(w)
    rows = [r for r, _ in pairs]
    cols = [c for _, c in pairs]
    assert len(set(rows)) == len(rows) and len(set(cols)) == len(cols)  # one-to-one
    assert all(w[r, c] > 0 for r, c in pairs)  # zero-weight pairs are dropped
    assert pairs == sorted(pairs)
    best_total, best_ranks = brute_force(w)
    assert sum(w[r, c] for r, c in pairs) == best_total
    # tie-break: among maximum matchings, the smallest total of matched column indices
    assert sum(cols) == best_ranks
    # deterministic: the same matrix always gives the same matching
    assert max_weight_matching(w.copy()) == pairs
    assert max_weight_matching(w.astype(float)) == pairs


@settings(max_examples=100, derandomize=True, deadline=None)
@given(matrices)
def test_transposed_problem_has_the_same_total(w):
    a = max_weight_matching(w)
    b = max_weight_matching(w.T)
    assert sum(w[r, c] for r, c in a) == sum(w.T[r, c] for r, c in b)


@pytest.mark.parametrize(
    ("w", "expected"),
    [
        ([[1, 1]], [(0, 0)]),
        ([[1], [1]], [(0, 0)]),
        ([[0, 0], [0, 0]], []),
        ([[2, 1], [2, 0]], [(0, 1), (1, 0)]),  # 3 beats 2: row 0 gives up its best column
        ([[1, 1, 1], [1, 1, 1], [1, 1, 1]], [(0, 0), (1, 1), (2, 2)]),
        ([[0, 0, 5]], [(0, 2)]),
        ([[3, 0], [0, 0], [0, 4]], [(0, 0), (2, 1)]),  # more rows than columns
        ([[1, 1, 0], [1, 0, 1]], [(0, 1), (1, 0)]),  # column ranks 0+1 beat 0+2
    ],
)
def test_examples(w, expected):
    assert max_weight_matching(np.array(w)) == expected


def test_empty_inputs():
    assert max_weight_matching(np.zeros((0, 3))) == []
    assert max_weight_matching(np.zeros((3, 0))) == []


def test_scorer_scale_credits():
    """The scorer passes credits in thirds scaled to 1e6: a giant incident matches one fault only."""
    third = 333333.0
    assert len(max_weight_matching(np.array([[third], [third], [third]]))) == 1
    w = np.array([[2 * third, third], [third, 0.0]])
    pairs = max_weight_matching(w)
    assert sum(w[r, c] for r, c in pairs) == 2 * third
    # larger matrices of scaled credits: the total is still optimal (checked against brute force)
    rng = np.random.default_rng(1)
    for _ in range(30):
        w = rng.choice([0.0, 333333.0, 666667.0, 1e6], size=(4, 4), p=[0.5, 0.3, 0.1, 0.1])
        pairs = max_weight_matching(w)
        assert sum(w[r, c] for r, c in pairs) == brute_force(w)[0]


def test_hungarian_min_assigns_every_row_optimally():
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 6))
        m = int(rng.integers(n, 7))
        cost = rng.integers(0, 10, (n, m)).astype(float)
        cols = _hungarian_min(cost)
        assert len(set(cols.tolist())) == n
        best = min(
            sum(cost[r, c] for r, c in enumerate(p)) for p in itertools.permutations(range(m), n)
        )
        assert sum(cost[r, c] for r, c in enumerate(cols)) == best
