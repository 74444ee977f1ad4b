"""Maximum-weight one-to-one matching between faults and incidents, with a deterministic tie-break."""

from __future__ import annotations

import numpy as np


def _hungarian_min(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost assignment of every row of an n x m cost matrix (n <= m) to a distinct column.

    Shortest augmenting paths with potentials (O(n^2 m)). Returns the column of each row. The
    matrices the scorers pass are a few rows and columns, so the loop runs over Python floats:
    numpy's per-call overhead would dominate (the same IEEE operations in the same order, so the
    same result as an array form).
    """
    return np.array(_assign(np.asarray(cost, dtype=float).tolist()), dtype=np.int64)


def _assign(cost: list[list[float]]) -> list[int]:
    """``_hungarian_min`` over a list of rows."""
    n, m = len(cost), len(cost[0])
    inf = float("inf")
    c = [[0.0] * (m + 1)] + [[0.0, *row] for row in cost]
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    p = [0] * (m + 1)  # p[j]: row (1-based) matched to column j, 0 = none
    way = [0] * (m + 1)
    cols = range(1, m + 1)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = p[j0]
            ci, ui = c[i0], u[i0]
            j1, delta = 0, inf
            for j in cols:
                if used[j]:
                    continue
                cur = ci[j] - ui - v[j]
                if cur < minv[j]:
                    minv[j] = cur
                    way[j] = j0
                if minv[j] < delta:  # the first free column of least reduced cost
                    j1, delta = j, minv[j]
            if j1 == 0:  # every free column at infinity: the first free one
                j1 = next(j for j in cols if not used[j])
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                elif j:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    col = [0] * n
    for j in cols:
        if p[j]:
            col[p[j] - 1] = j - 1
    return col


def max_weight_matching(weights: np.ndarray) -> list[tuple[int, int]]:
    """Pairs (row, col) maximising the total of non-negative ``weights``; zero-weight pairs are
    dropped. Among matchings with the maximum total, one with the smallest sum of matched column
    indices wins (earlier incidents are preferred); any tie left after that is broken by the
    assignment algorithm's fixed visiting order, so the result is deterministic. The tie-break is
    folded into integer-scaled weights so that it never outweighs a real difference.
    """
    w = np.asarray(weights, dtype=float)
    n, m = w.shape
    if n == 0 or m == 0 or not (w > 0).any():
        return []
    rows = w.tolist()
    # Integer-valued weights: scale each unit above the largest possible sum of tie-break ranks.
    big = float(n * m + 1)
    score = [[x * big - float(j) if x > 0 else 0.0 for j, x in enumerate(r)] for r in rows]
    transpose = n > m
    if transpose:
        score = [list(col) for col in zip(*score, strict=True)]
    top = max(max(r) for r in score)
    cols = _assign([[top - x for x in r] for r in score])
    pairs = []
    for r, cc in enumerate(cols):
        rr, col = (cc, r) if transpose else (r, cc)
        if rows[rr][col] > 0:
            pairs.append((rr, col))
    return sorted(pairs)
