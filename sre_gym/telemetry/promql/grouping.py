"""Static row grouping and per-group reductions, shared by aggregations, binops and dedup.

Grouping is computed once per label tuple (cached by the callers) and reductions are single numpy
``reduceat`` calls over rows sorted by group, so the per-evaluation cost does not depend on the
number of groups.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from .types import Labels, PromQLError, Vec, drop_name


class Grouping:
    """Rows partitioned into groups; ``keys[g]`` is the key of group ``g`` (first-seen order)."""

    __slots__ = ("gidx", "keys", "perm", "starts", "sizes", "n_groups", "identity", "_padded")

    def __init__(self, row_keys: Sequence[Hashable]) -> None:
        index: dict[Hashable, int] = {}
        gidx = np.empty(len(row_keys), dtype=np.intp)
        for i, k in enumerate(row_keys):
            g = index.get(k)
            if g is None:
                g = index[k] = len(index)
            gidx[i] = g
        self.gidx = gidx
        self.keys = list(index)
        self.n_groups = len(index)
        self.perm = np.argsort(gidx, kind="stable")
        sizes = np.bincount(gidx, minlength=self.n_groups) if len(gidx) else np.zeros(0, np.intp)
        self.sizes = sizes
        self.starts = (
            np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp) if len(sizes) else sizes
        )
        # True when every group has exactly one row in row order (reductions are then identities).
        self.identity = self.n_groups == len(gidx) and bool(np.all(gidx == np.arange(len(gidx))))
        self._padded: np.ndarray | None = None

    def count(self, present: np.ndarray) -> np.ndarray:
        if self.identity:
            return present.astype(np.int64)
        if self.n_groups == 0:
            return np.zeros((0, present.shape[1]), dtype=np.int64)
        return np.add.reduceat(present[self.perm].astype(np.int64), self.starts, axis=0)

    def sum(self, values: np.ndarray, present: np.ndarray) -> np.ndarray:
        """Sum of present values per group (absent rows contribute exactly nothing)."""
        v = np.where(present, values, 0.0)
        if self.identity:
            return v
        if self.n_groups == 0:
            return np.zeros((0, values.shape[1]))
        return np.add.reduceat(v[self.perm], self.starts, axis=0)

    def padded(self) -> np.ndarray:
        """``[groups, max_size]`` member rows in row order, padded with ``n`` (a zero row)."""
        if self._padded is None:
            n = len(self.gidx)
            width = int(self.sizes.max()) if self.n_groups else 0
            out = np.full((self.n_groups, width), n, dtype=np.intp)
            rank = np.arange(n) - self.starts[self.gidx[self.perm]]
            out[self.gidx[self.perm], rank] = self.perm
            self._padded = out
        return self._padded

    def seq_sum(self, values: np.ndarray, present: np.ndarray) -> np.ndarray:
        """Sum per group adding members strictly in row order (as Prometheus does).

        ``reduceat``/``sum`` may use pairwise summation, which differs in the last bits; an
        ``accumulate`` over the padded member matrix is sequential by definition.
        """
        if self.identity:
            return np.where(present, values, 0.0)
        t = values.shape[1]
        if self.n_groups == 0:
            return np.zeros((0, t))
        vz = np.zeros((values.shape[0] + 1, t))
        np.copyto(vz[:-1], values, where=present)
        if self.n_groups == 1:
            return np.add.accumulate(vz[self.perm], axis=0)[-1:]
        return np.add.accumulate(vz[self.padded()], axis=1)[:, -1]

    def reduce(self, ufunc: np.ufunc, values: np.ndarray, present: np.ndarray) -> np.ndarray:
        """``ufunc.reduceat`` with absent rows replaced by NaN (for fmin/fmax)."""
        v = np.where(present, values, np.nan)
        if self.identity:
            return v
        if self.n_groups == 0:
            return np.zeros((0, values.shape[1]))
        return ufunc.reduceat(v[self.perm], self.starts, axis=0)

    def members(self) -> list[np.ndarray]:
        """Row indices of each group, in row order."""
        return np.split(self.perm, np.cumsum(self.sizes)[:-1]) if self.n_groups else []


class Dedup:
    """Merges rows with identical label sets; two of them present at once is an error."""

    __slots__ = ("grouping", "labels", "needed")

    def __init__(self, labels: Labels) -> None:
        self.grouping = Grouping(labels)
        self.needed = not self.grouping.identity and self.grouping.n_groups != len(labels)
        self.labels: Labels = tuple(self.grouping.keys) if self.needed else labels

    def apply(self, values: np.ndarray, present: np.ndarray, msg: str | None = None) -> Vec:
        if not self.needed:
            return Vec(self.labels, values, present)
        cnt = self.grouping.count(present)
        if np.any(cnt > 1):
            raise PromQLError(msg or "vector cannot contain metrics with the same labelset")
        vals = self.grouping.sum(values, present)
        return Vec(self.labels, vals, cnt > 0)


class LabelCache:
    """Single-entry cache keyed by the identity of one or two label tuples."""

    __slots__ = ("_keys", "_value")

    def __init__(self) -> None:
        self._keys: tuple = ()
        self._value = None

    def get(self, *keys: object):
        if len(keys) == len(self._keys) and all(
            a is b for a, b in zip(keys, self._keys, strict=True)
        ):
            return self._value
        return None

    def put(self, value, *keys: object):
        self._keys = keys
        self._value = value
        return value


# (here, not in functions.py, so that nodes.py can use them without importing functions.py, which
# imports nodes.py)
def dropped(node, labels: Labels, key: str = "drop") -> Dedup:
    c = node.cache(key) if hasattr(node, "cache") else node.__dict__.setdefault("_dc", LabelCache())
    d = c.get(labels)
    if d is None:
        d = c.put(Dedup(tuple(drop_name(ls) for ls in labels)), labels)
    return d


def map_values(node, v: Vec, fn, drop: bool = True) -> Vec:
    """Apply ``fn`` elementwise; drop ``__name__`` (merging rows that become identical)."""
    vals = fn(v.values)
    if not drop:
        return Vec(v.labels, vals, v.present)
    return dropped(node, v.labels).apply(vals, v.present)
