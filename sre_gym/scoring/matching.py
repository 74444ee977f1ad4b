"""Maximum-weight one-to-one matching between faults and incidents, with a deterministic tie-break."""

from __future__ import annotations

import numpy as np


def _hungarian_min(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost assignment of every row of an n x m cost matrix (n <= m) to a distinct column.

    Shortest augmenting paths with potentials (O(n^2 m)), vectorised over columns. Returns the
    column of each row.
    """
    n, m = cost.shape
    INF = np.inf
    u = np.zeros(n + 1)
    v = np.zeros(m + 1)
    p = np.zeros(m + 1, dtype=np.int64)  # p[j]: row (1-based) matched to column j, 0 = none
    way = np.zeros(m + 1, dtype=np.int64)
    c = np.zeros((n + 1, m + 1))
    c[1:, 1:] = cost
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, INF)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = c[i0, 1:] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], INF)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            used_idx = np.nonzero(used)[0]
            u[p[used_idx]] += delta
            v[used_idx] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    col = np.zeros(n, dtype=np.int64)
    for j in range(1, m + 1):
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
    # Integer-valued weights: scale each unit above the largest possible sum of tie-break ranks.
    rank = np.arange(m, dtype=float)[None, :].repeat(n, axis=0)
    big = float(n * m + 1)
    score = np.where(w > 0, w * big - rank, 0.0)
    transpose = n > m
    if transpose:
        score = score.T
    cols = _hungarian_min(score.max() - score)
    pairs = []
    for r, cc in enumerate(cols):
        rr, col = (int(cc), r) if transpose else (r, int(cc))
        if w[rr, col] > 0:
            pairs.append((rr, col))
    return sorted(pairs)
