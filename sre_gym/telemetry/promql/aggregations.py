"""Aggregation operators (sum, avg, ..., topk, quantile, count_values) with by/without.

Groups are computed once per input label tuple. ``sum``/``count``/``min``/``max`` are single
``reduceat`` calls; ``avg``/``stddev``/``stdvar`` replay Prometheus 2.42's incremental formulas over
group members (vectorised across groups and times) so that results match bit for bit, falling back
to a two-pass formula for very large groups.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import promql_parser as pp

from .grouping import Grouping, LabelCache
from .nodes import shared
from .rangefuncs import quantile_sorted
from .types import NAME, Ctx, Labels, LabelSet, PromQLError, Vec

if TYPE_CHECKING:
    from .engine import Engine
    from .nodes import Node

_OPS = {
    "sum",
    "avg",
    "min",
    "max",
    "count",
    "group",
    "stddev",
    "stdvar",
    "topk",
    "bottomk",
    "quantile",
    "count_values",
}
_EXACT_MAX_GROUP = 8
_LABEL_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


class AggState:
    """Label-only data of one aggregation for one input label tuple."""

    __slots__ = ("grouping", "labels", "members")

    def __init__(self, grouping: Grouping, labels: Labels) -> None:
        self.grouping = grouping
        self.labels = labels
        self.members: np.ndarray | None = None

    def padded_members(self) -> np.ndarray:
        """``[groups, max_size]`` row indices, -1 padded, members in row order."""
        if self.members is None:
            ms = self.grouping.members()
            width = max((len(m) for m in ms), default=0)
            out = np.full((len(ms), width), -1, dtype=np.intp)
            for i, m in enumerate(ms):
                out[i, : len(m)] = m
            self.members = out
        return self.members


class AggNode:
    sub_key: str | None = None  # see nodes.shared
    kind = "vector"

    def __init__(self, agg: pp.AggregateExpr, eng: Engine) -> None:
        op = str(agg.op)
        if op not in _OPS:
            raise PromQLError(f'unsupported aggregation "{op}" (not in Prometheus 2.42)')
        self.op = op
        self.expr: Node = eng._build(agg.expr)
        self.param: Node | None = eng._build(agg.param) if agg.param is not None else None
        mod = agg.modifier
        self.without = mod is not None and mod.type == pp.AggModifierType.Without
        self.grouping = sorted(mod.labels) if mod is not None else []
        self._gset = frozenset(self.grouping)
        self.has_at = self.expr.has_at or (self.param is not None and self.param.has_at)
        self._cache = LabelCache()
        self.last_rank: tuple[Labels, np.ndarray, np.ndarray] | None = None
        if op == "count_values":
            lab = self.param.val  # type: ignore[union-attr]
            if not lab or lab[0].isdigit() or not set(lab) <= _LABEL_NAME_CHARS:
                raise PromQLError(f'invalid label name "{lab}"')

    def children(self) -> list[Node]:
        return [self.expr] + ([self.param] if self.param is not None else [])

    def group_key(self, ls: LabelSet) -> LabelSet:
        if self.without:
            return tuple(p for p in ls if p[0] not in self._gset and p[0] != NAME)
        return tuple(p for p in ls if p[0] in self._gset)

    def state(self, labels: Labels) -> AggState:
        st = self._cache.get(labels)
        if st is None:
            keys = [self.group_key(ls) for ls in labels]
            g = Grouping(keys)
            st = self._cache.put(AggState(g, tuple(g.keys)), labels)
        return st

    @shared
    def eval(self, eng: Engine, ctx: Ctx) -> Vec:
        pv = self.param.eval(eng, ctx) if self.param is not None else None
        v: Vec = self.expr.eval(eng, ctx)
        t = ctx.n
        if self.op == "count_values":
            return self._count_values(v, pv.value, t)  # type: ignore[union-attr]
        st = self.state(v.labels)
        g = st.grouping
        if self.op in ("topk", "bottomk"):
            return self._topk(v, st, pv.values)  # type: ignore[union-attr]
        if g.n_groups == 0:
            return Vec((), np.zeros((0, t)), np.zeros((0, t), dtype=bool))
        cnt = g.count(v.present)
        present = cnt > 0
        op = self.op
        if op == "sum":
            vals = g.seq_sum(v.values, v.present)
        elif op == "count":
            vals = cnt.astype(np.float64)
        elif op == "group":
            vals = np.ones(cnt.shape)
        elif op == "max":
            vals = g.reduce(np.fmax, v.values, v.present)
        elif op == "min":
            vals = g.reduce(np.fmin, v.values, v.present)
        elif op == "avg":
            vals = self._avg(v, st, cnt)
        elif op in ("stddev", "stdvar"):
            vals = self._var(v, st, cnt)
            if op == "stddev":
                vals = np.sqrt(vals)
        elif op == "quantile":
            vals = self._quantile(v, st, pv.values)  # type: ignore[union-attr]
        else:  # pragma: no cover
            raise PromQLError(f"unsupported aggregation {op}")
        return Vec(st.labels, vals, present)

    # -- incremental formulas --------------------------------------------------------------------
    def _member_iter(self, v: Vec, st: AggState):
        mem = st.padded_members()
        for k in range(mem.shape[1]):
            rows = mem[:, k]
            ok = rows >= 0
            rc = np.maximum(rows, 0)
            yield v.values[rc], v.present[rc] & ok[:, None]

    def _avg(self, v: Vec, st: AggState, cnt: np.ndarray) -> np.ndarray:
        if st.grouping.identity:
            return v.values.copy()
        if st.grouping.sizes.max() > _EXACT_MAX_GROUP:
            return st.grouping.sum(v.values, v.present) / np.maximum(cnt, 1)
        mean = np.zeros(cnt.shape)
        count = np.zeros(cnt.shape)
        for x, p in self._member_iter(v, st):
            count = count + p
            c = np.where(p, count, 1.0)
            minf = np.isinf(mean)
            xinf = np.isinf(x)
            skip = ~p | (minf & ((xinf & ((mean > 0) == (x > 0))) | (~xinf & ~np.isnan(x))))
            mean = np.where(skip, mean, mean + (x / c - mean / c))
        return mean

    def _var(self, v: Vec, st: AggState, cnt: np.ndarray) -> np.ndarray:
        if st.grouping.sizes.max() > _EXACT_MAX_GROUP:
            mean = st.grouping.sum(v.values, v.present) / np.maximum(cnt, 1)
            dev = v.values - mean[st.grouping.gidx]
            return st.grouping.sum(dev * dev, v.present) / np.maximum(cnt, 1)
        mean = np.zeros(cnt.shape)
        aux = np.zeros(cnt.shape)
        count = np.zeros(cnt.shape)
        for x, p in self._member_iter(v, st):
            count = count + p
            c = np.where(p, count, 1.0)
            first = p & (count == 1)
            delta = x - mean
            nm = mean + delta / c
            na = aux + delta * (x - nm)
            mean = np.where(first, x, np.where(p, nm, mean))
            aux = np.where(first, 0.0, np.where(p, na, aux))
        return aux / np.maximum(count, 1)

    def _quantile(self, v: Vec, st: AggState, q: np.ndarray) -> np.ndarray:
        mem = st.padded_members()
        rc = np.maximum(mem, 0)
        x = v.values[rc]  # [G, M, T]
        p = v.present[rc] & (mem >= 0)[:, :, None]
        return quantile_sorted(x.transpose(0, 2, 1), p.transpose(0, 2, 1), q[None, :])

    # -- topk / bottomk --------------------------------------------------------------------------
    def _topk(self, v: Vec, st: AggState, kparam: np.ndarray) -> Vec:
        n, t = v.values.shape
        for f in kparam:
            if not (math.isfinite(f) and -9.2e18 < f < 9.2e18):
                raise PromQLError(f"Scalar value {_go_num(f)} overflows int64")
        k = np.trunc(kparam)
        if n == 0:
            return Vec(v.labels, v.values, v.present)
        vals = v.values
        isn = np.isnan(vals)
        key = -vals if self.op == "topk" else vals
        key = np.where(isn, 0.0, key)
        rows = np.broadcast_to(np.arange(n)[:, None], (n, t))
        gid = np.broadcast_to(st.grouping.gidx[:, None], (n, t))
        order = np.lexsort((rows, key, isn, ~v.present, gid), axis=0)
        pos = np.empty_like(order)
        np.put_along_axis(pos, order, np.broadcast_to(np.arange(n)[:, None], (n, t)), axis=0)
        starts = np.concatenate(([0], np.cumsum(st.grouping.sizes)[:-1]))
        rank = pos - starts[st.grouping.gidx][:, None]
        keep = v.present & (rank < k[None, :])
        self.last_rank = (v.labels, rank, st.grouping.gidx)
        return Vec(v.labels, vals, keep)

    # -- count_values ----------------------------------------------------------------------------
    def _count_values(self, v: Vec, label: str, t: int) -> Vec:
        from .format import go_float

        r_idx, t_idx = np.nonzero(v.present)
        if len(r_idx) == 0:
            return Vec((), np.zeros((0, t)), np.zeros((0, t), dtype=bool))
        st = self._cache.get(v.labels)
        if st is None:
            keys = []
            for ls in v.labels:
                base = tuple(p for p in ls if p[0] != label)
                keys.append(self.group_key(base))
            g = Grouping(keys)
            st = self._cache.put(AggState(g, tuple(g.keys)), v.labels)
        vals = v.values[r_idx, t_idx]
        add_label = not (self.without and label in self._gset)
        if add_label:
            uv, inv = np.unique(vals, return_inverse=True)
            inv = inv.reshape(-1)
        else:  # the value label is removed again by `without`: one count per group
            uv, inv = np.zeros(1), np.zeros(len(vals), dtype=np.intp)
        code = st.grouping.gidx[r_idx] * len(uv) + inv
        ucode, cinv = np.unique(code, return_inverse=True)
        cinv = cinv.reshape(-1)
        counts = np.zeros((len(ucode), t))
        np.add.at(counts, (cinv, t_idx), 1.0)
        labels: list[LabelSet] = []
        for c in ucode.tolist():
            gk = st.grouping.keys[c // len(uv)]
            if add_label:
                gk = tuple(sorted(gk + ((label, go_float(float(uv[c % len(uv)]))),)))
            labels.append(gk)
        return Vec(tuple(labels), counts, counts > 0)


def _go_num(f: float) -> str:
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    return repr(f)
