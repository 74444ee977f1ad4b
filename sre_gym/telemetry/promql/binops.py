"""Binary operators: arithmetic, comparisons (with/without ``bool``) and set operators.

Vector matching (signatures, one/many sides, result labels) is label-only and cached per pair of
input label tuples; per evaluation the work is a handful of gathers and elementwise ops over
``[rows, times]``. Errors follow Prometheus 2.42 (many-to-many, multiple matches) and are raised
only at times where both sides are non-empty, as 2.42 short-circuits otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import promql_parser as pp

from .gomath import go_pow
from .grouping import Dedup, Grouping, LabelCache, dropped
from .nodes import shared
from .types import NAME, Ctx, Labels, LabelSet, PromQLError, Scal, Vec

if TYPE_CHECKING:
    from .engine import Engine
    from .nodes import Node

_ARITH = {"+", "-", "*", "/", "%", "^", "atan2"}
_CMP = {"==", "!=", ">", "<", ">=", "<="}
_SET = {"and", "or", "unless"}
_DROPS_NAME = {"+", "-", "*", "/", "%", "^"}  # 2.42: atan2 keeps __name__

C = pp.VectorMatchCardinality


def apply_op(op: str, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """``(value, keep)`` like Go's ``vectorElemBinop``; ``keep`` is None for arithmetic."""
    if op == "+":
        return a + b, None
    if op == "-":
        return a - b, None
    if op == "*":
        return a * b, None
    if op == "/":
        return a / b, None
    if op == "%":
        return np.fmod(a, b), None
    if op == "^":
        return go_pow(a, b), None
    if op == "atan2":
        return np.arctan2(a, b), None
    if op == "==":
        return a, a == b
    if op == "!=":
        return a, a != b
    if op == ">":
        return a, a > b
    if op == "<":
        return a, a < b
    if op == ">=":
        return a, a >= b
    if op == "<=":
        return a, a <= b
    raise PromQLError(f"unsupported binary operator {op!r}")


def _fmt_labels(ls: LabelSet) -> str:
    return "{" + ", ".join(f'{k}="{v}"' for k, v in ls) + "}"


class MatchPlan:
    """Label-only part of a vector-vector operation for one pair of input label tuples."""

    def __init__(self, node: BinNode, lhs: Labels, rhs: Labels) -> None:
        swap = node.card == C.OneToMany
        m_labels, o_labels = (rhs, lhs) if swap else (lhs, rhs)
        sig_m = [node.sig(ls) for ls in m_labels]
        sig_o = [node.sig(ls) for ls in o_labels]
        self.o_group = Grouping(sig_o)
        index = {k: i for i, k in enumerate(self.o_group.keys)}
        g_m = np.array([index.get(s, -1) for s in sig_m], dtype=np.intp)
        self.swap = swap
        self.o_dupes = bool(np.any(self.o_group.sizes > 1))
        if node.card == C.OneToOne:
            rows = np.flatnonzero(g_m >= 0)
            self.m_rows = rows
            self.o_rows = None
            self.g = g_m[rows]
            labels = tuple(node.result_labels(m_labels[i], None) for i in rows.tolist())
            sig_matched = [sig_m[i] for i in rows.tolist()]
            self.m_group = Grouping(sig_matched)
            self.m_dupes = self.m_group.n_groups != len(sig_matched)
            self.out = Dedup(labels)
        else:
            members = self.o_group.members()
            pm: list[int] = []
            po: list[int] = []
            labels_l: list[LabelSet] = []
            for i, g in enumerate(g_m.tolist()):
                if g < 0:
                    continue
                for j in members[g].tolist():
                    pm.append(i)
                    po.append(j)
                    labels_l.append(node.result_labels(m_labels[i], o_labels[j]))
            self.m_rows = np.asarray(pm, dtype=np.intp)
            self.o_rows = np.asarray(po, dtype=np.intp)
            self.g = None
            self.m_dupes = False
            self.out = Dedup(tuple(labels_l))
        self.sig_o = sig_o
        self.o_labels = o_labels


class BinNode:
    sub_key: str | None = None  # see nodes.shared

    def __init__(self, be: pp.BinaryExpr, eng: Engine) -> None:
        self.op = str(be.op)
        if self.op not in _ARITH | _CMP | _SET:
            raise PromQLError(f"unsupported binary operator {self.op!r}")
        self.lhs: Node = eng._build(be.lhs)
        self.rhs: Node = eng._build(be.rhs)
        mod = be.modifier
        self.return_bool = bool(mod.return_bool) if mod is not None else False
        self.card = mod.card if mod is not None else C.OneToOne
        if self.op in _SET:
            self.card = C.ManyToMany
        self.on = False
        self.match_labels: frozenset[str] = frozenset()
        if mod is not None and mod.matching is not None:
            self.on = mod.matching.type == pp.LabelModifierType.Include
            self.match_labels = frozenset(mod.matching.labels)
        self.include: list[str] = list(mod.group_labels or []) if mod is not None else []
        if mod is not None and getattr(mod, "fill_values", None) is not None:
            fv = mod.fill_values
            if any(getattr(fv, a, None) is not None for a in ("lhs", "rhs")):
                raise PromQLError("unsupported: fill modifiers (not in Prometheus 2.42)")
        both_scalar = self.lhs.kind == "scalar" and self.rhs.kind == "scalar"
        self.kind = "scalar" if both_scalar else "vector"
        self.has_at = self.lhs.has_at or self.rhs.has_at
        self.drops_name = self.op in _DROPS_NAME or self.return_bool
        self._cache = LabelCache()
        self._dc = LabelCache()

    def children(self) -> list[Node]:
        return [self.lhs, self.rhs]

    def cache(self, key: str) -> LabelCache:
        return self._dc

    # -- label helpers ---------------------------------------------------------------------------
    def sig(self, ls: LabelSet) -> LabelSet:
        if self.on:
            return tuple(p for p in ls if p[0] in self.match_labels)
        return tuple(p for p in ls if p[0] not in self.match_labels and p[0] != NAME)

    def result_labels(self, ls: LabelSet, other: LabelSet | None) -> LabelSet:
        d = dict(ls)
        if self.op in _DROPS_NAME or self.return_bool:
            d.pop(NAME, None)
        if self.card == C.OneToOne:
            if self.on:
                d = {k: v for k, v in d.items() if k in self.match_labels}
            else:
                for k in self.match_labels:
                    d.pop(k, None)
        if other is not None:
            od = dict(other)
            for ln in self.include:
                v = od.get(ln, "")
                if v:
                    d[ln] = v
                else:
                    d.pop(ln, None)
        return tuple(sorted(d.items()))

    # -- evaluation ------------------------------------------------------------------------------
    @shared
    def eval(self, eng: Engine, ctx: Ctx):
        a = self.lhs.eval(eng, ctx)
        b = self.rhs.eval(eng, ctx)
        if isinstance(a, Scal) and isinstance(b, Scal):
            value, keep = apply_op(self.op, a.values, b.values)
            if keep is not None:
                value = keep.astype(np.float64)
            return Scal(value)
        if isinstance(a, Scal) or isinstance(b, Scal):
            return self._vector_scalar(a, b)
        if self.op in _SET:
            return self._set_op(a, b)
        return self._vector_vector(a, b)

    def _vector_scalar(self, a, b) -> Vec:
        swap = isinstance(a, Scal)
        v: Vec = b if swap else a
        s = (a if swap else b).values[None, :]
        lv, rv = (s, v.values) if swap else (v.values, s)
        value, keep = apply_op(self.op, lv, rv)
        present = v.present
        if keep is not None:
            value = v.values
            if self.return_bool:
                value = keep.astype(np.float64)
            else:
                present = present & keep
        value = np.broadcast_to(value, v.values.shape)
        if self.drops_name:
            return dropped(self, v.labels).apply(value, present)
        return Vec(v.labels, value, present)

    def _set_op(self, a: Vec, b: Vec) -> Vec:
        st = self._cache.get(a.labels, b.labels)
        if st is None:
            sig_a = [self.sig(ls) for ls in a.labels]
            sig_b = [self.sig(ls) for ls in b.labels]
            if self.op == "or":
                ga = Grouping(sig_a)
                idx = {k: i for i, k in enumerate(ga.keys)}
                gb = np.array([idx.get(s, -1) for s in sig_b], dtype=np.intp)
                st = (ga, gb, Dedup(a.labels + b.labels))
            else:
                gb_ = Grouping(sig_b)
                idx = {k: i for i, k in enumerate(gb_.keys)}
                ga_ = np.array([idx.get(s, -1) for s in sig_a], dtype=np.intp)
                st = (gb_, ga_, None)
            self._cache.put(st, a.labels, b.labels)
        grouping, gmap, dedup = st
        t = a.present.shape[1]
        if self.op == "or":
            cnt = grouping.count(a.present) if grouping.n_groups else np.zeros((0, t), np.int64)
            hit = _lookup(cnt > 0, gmap, t)
            bp = b.present & ~hit
            vals = np.concatenate([a.values, np.broadcast_to(b.values, b.present.shape)], 0)
            return dedup.apply(vals, np.concatenate([a.present, bp], 0))
        cnt = grouping.count(b.present) if grouping.n_groups else np.zeros((0, t), np.int64)
        hit = _lookup(cnt > 0, gmap, t)
        if self.op == "and":
            return Vec(a.labels, a.values, a.present & hit)
        return Vec(a.labels, a.values, a.present & ~hit)

    def _vector_vector(self, a: Vec, b: Vec) -> Vec:
        mp: MatchPlan | None = self._cache.get(a.labels, b.labels)
        if mp is None:
            mp = self._cache.put(MatchPlan(self, a.labels, b.labels), a.labels, b.labels)
        t = a.present.shape[1]
        m, o = (b, a) if mp.swap else (a, b)
        both = a.present.any(0) & b.present.any(0)
        og = mp.o_group
        if mp.o_dupes:
            cnt_o = og.count(o.present)
            bad = (cnt_o > 1) & both[None, :]
            if bad.any():
                gi = int(np.argwhere(bad)[0][0])
                self._many_to_many(mp, o, gi, int(np.argwhere(bad)[0][1]))
        if mp.o_rows is None:  # one-to-one
            rows = mp.m_rows
            if len(rows) == 0:
                return Vec((), np.zeros((0, t)), np.zeros((0, t), dtype=bool))
            cnt_o = og.count(o.present)
            val_o = og.sum(o.values, o.present)
            vm = m.values[rows]
            pm = m.present[rows]
            vo = val_o[mp.g]
            matched = pm & (cnt_o[mp.g] > 0)
            la, lb = (vo, vm) if mp.swap else (vm, vo)
        else:
            if len(mp.m_rows) == 0:
                return Vec((), np.zeros((0, t)), np.zeros((0, t), dtype=bool))
            vm = m.values[mp.m_rows]
            vo = o.values[mp.o_rows]
            matched = m.present[mp.m_rows] & o.present[mp.o_rows]
            la, lb = (vo, vm) if mp.swap else (vm, vo)
        value, keep = apply_op(self.op, la, lb)
        present = matched
        if keep is not None:
            if self.return_bool:
                value = keep.astype(np.float64)
            else:
                present = matched & keep
        present = present & both[None, :]
        if mp.o_rows is None:
            if mp.m_dupes and np.any(mp.m_group.count(present) > 1):
                raise PromQLError(
                    "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)"
                )
            return mp.out.apply(value, present)
        return mp.out.apply(
            value,
            present,
            "multiple matches for labels: grouping labels must ensure unique matches",
        )

    def _many_to_many(self, mp: MatchPlan, o: Vec, gi: int, ti: int) -> None:
        side = "left" if mp.swap else "right"
        rows = [r for r in mp.o_group.members()[gi].tolist() if o.present[r, ti]]
        sig = mp.o_group.keys[gi]
        raise PromQLError(
            f"found duplicate series for the match group {_fmt_labels(sig)} on the {side} hand-side of "
            f"the operation: [{_fmt_labels(mp.o_labels[rows[1]])}, {_fmt_labels(mp.o_labels[rows[0]])}]"
            ";many-to-many matching not allowed: matching labels must be unique on one side"
        )


def _lookup(hit: np.ndarray, gmap: np.ndarray, t: int) -> np.ndarray:
    """``hit[gmap[i]]`` with False for unmatched rows (gmap == -1)."""
    if len(gmap) == 0:
        return np.zeros((0, t), dtype=bool)
    if hit.shape[0] == 0:
        return np.zeros((len(gmap), t), dtype=bool)
    out = hit[np.maximum(gmap, 0)]
    out &= (gmap >= 0)[:, None]
    return out
