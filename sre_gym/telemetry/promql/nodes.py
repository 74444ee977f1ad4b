"""Plan nodes for series selection: instant and range selectors, subqueries, and the node base.

Selection is the label-only part of evaluation: a selector scans the TSDB's families once for the
series its matchers accept and keeps them, adding series created later, so that evaluation at many
times reads sample arrays only. ``Engine`` (engine.py) builds these nodes and the operator nodes of
functions.py, aggregations.py and binops.py from the parsed query.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import promql_parser as pp

from ..tsdb import TSDB, Family, as_float64
from .grouping import map_values
from .types import NAME, Ctx, Labels, LabelSet, PromQLError, RangeIn, Scal, Str, Vec, bounds

if TYPE_CHECKING:
    from .engine import Engine

_OPS = {"MatchOp.Equal": "=", "MatchOp.NotEqual": "!=", "MatchOp.Re": "=~", "MatchOp.NotRe": "!~"}


def _label_key(x: tuple) -> tuple:
    return x[0]


# selectors skip series with no sample in the ticks an evaluation reads (results are the same; the
# switch exists so that tests can compare both ways)
LIVE_ONLY = True


class _SplitNeeded(PromQLError):
    """Raised when a batch of independent instant queries cannot share one evaluation."""


def td_ms(td: _dt.timedelta | None) -> int:
    if td is None:
        return 0
    return td.days * 86_400_000 + td.seconds * 1000 + td.microseconds // 1000


class Node:
    """A plan node; ``kind`` is the PromQL value type it evaluates to."""

    kind = "vector"
    has_at = False  # the subtree contains an @ modifier
    sub_key: str | None = None  # set by the engine on nodes whose results may be shared

    def eval(self, eng: Engine, ctx: Ctx):  # pragma: no cover - abstract
        raise NotImplementedError

    def children(self) -> list[Node]:
        return []


def shared(evaluate: Callable) -> Callable:
    """Decorate a node's ``eval``: within ``Engine.shared_spans``, nodes with the same
    ``sub_key`` evaluated at the same times share one result (read-only)."""

    @functools.wraps(evaluate)
    def ev(self: Node, eng: Engine, ctx: Ctx):
        memo = eng.shared_results
        if memo is None or self.sub_key is None:
            return evaluate(self, eng, ctx)
        k = (self.sub_key, ctx.key)
        hit = memo.get(k)
        if hit is None:
            hit = memo[k] = evaluate(self, eng, ctx)
        return hit

    return ev


class NumberNode(Node):
    kind = "scalar"

    def __init__(self, val: float) -> None:
        self.val = float(val)

    def eval(self, eng: Engine, ctx: Ctx) -> Scal:
        return Scal(np.full(ctx.n, self.val))


class StringNode(Node):
    kind = "string"

    def __init__(self, val: str) -> None:
        self.val = val

    def eval(self, eng: Engine, ctx: Ctx) -> Str:
        return Str(self.val)


class Selection:
    """Series matched by a selector: sorted labels plus (family, rows, output positions) parts."""

    __slots__ = ("labels", "parts", "single")

    def __init__(self, labels: Labels, parts: list[tuple[Family, np.ndarray, np.ndarray]]) -> None:
        self.labels = labels
        self.parts = parts
        self.single = len(parts) == 1


class _Matcher:
    """One label matcher as a callable (a class, not a closure, so plans can be pickled)."""

    __slots__ = ("op", "value", "rx")

    def __init__(self, op: str, value: str) -> None:
        self.op, self.value, self.rx = op, value, None
        if op in ("=~", "!~"):
            try:
                self.rx = re.compile(value)  # fullmatch anchors like Prometheus's ^(?:...)$
            except re.error as e:
                raise PromQLError(f"invalid regular expression {value!r}: {e}") from None

    def __call__(self, v: str) -> bool:
        if self.op == "=~":
            return self.rx.fullmatch(v) is not None
        if self.op == "!~":
            return self.rx.fullmatch(v) is None
        if self.op == "=":
            return v == self.value
        return v != self.value

    def __getstate__(self) -> tuple[str, str]:
        return (self.op, self.value)

    def __setstate__(self, state: tuple[str, str]) -> None:
        self.__init__(*state)


def _compile_matcher(label: str, op: str, value: str) -> _Matcher:
    return _Matcher(op, value)


class SeriesTracker:
    """The series a metric name and label matchers pick, kept as families gain rows.

    Families only ever gain rows: a named tracker scans just the rows added since it last looked;
    its family is held, not keyed by id (ids of freed families get reused). The engine gives every
    selector with the same name and matchers one tracker, so rules that share a selector scan once.
    """

    def __init__(self, name: str | None, name_fns: list, label_ms: list) -> None:
        self.name = name
        self._name_fns = name_fns
        self._label_ms = label_ms
        self._key: object = object()
        self._sel: Selection | None = None
        self._fam: Family | None = None
        self._found: list[tuple[LabelSet, Family, int]] | None = []
        self._scanned = 0
        # live subsets of the selection ``_live_of``, by their mask (selectors that share the
        # tracker read different windows)
        self._live_of: Selection | None = None
        self._live: dict[bytes, Selection] = {}

    # -- selection ------------------------------------------------------------------------------
    def select(self, tsdb: TSDB) -> Selection:
        fams = tsdb.families
        if self.name is None:
            key = tuple((n, f.version) for n, f in fams.items())
            if key != self._key or self._sel is None:
                self._key, self._sel = key, self._select(tsdb)
            return self._sel
        fam = fams.get(self.name)
        if self._sel is None or fam is not self._fam:
            self._sel = self._select(tsdb)
        elif fam is not None and len(fam.rows) > self._scanned:
            new = self._scan(self.name, fam, self._scanned)
            self._scanned = len(fam.rows)
            if new:  # else the selection (and what downstream caches keyed on it) stays as it is
                sel = self._sel
                if sel.single:
                    # insert into flat lists (C-level copies) rather than re-walk every series in
                    # Python: a new pod's series sort among its deployment's, not at the end
                    labels, rows = list(sel.labels), sel.parts[0][1].tolist()
                    for ls, _, r in sorted(new, key=_label_key):
                        i = bisect.bisect_right(labels, ls)
                        labels.insert(i, ls)
                        rows.insert(i, r)
                    self._found = None  # rebuilt from the selection if ever needed
                    arr = np.array(rows, dtype=np.intp)
                    self._sel = Selection(
                        tuple(labels), [(fam, arr, np.arange(len(arr), dtype=np.intp))]
                    )
                else:
                    found = self._found_list()
                    for x in new:
                        bisect.insort(found, x, key=_label_key)
                    self._sel = self._selection(found)
        return self._sel

    def _found_list(self) -> list[tuple[LabelSet, Family, int]]:
        """The selected (labels, family, row) triples, sorted by labels."""
        if self._found is None:
            fam, rows, _ = self._sel.parts[0]
            self._found = [
                (ls, fam, r) for ls, r in zip(self._sel.labels, rows.tolist(), strict=True)
            ]
        return self._found

    def _scan(self, n: str, fam: Family, start: int) -> list[tuple[LabelSet, Family, int]]:
        """Rows of family ``n`` from ``start`` on that the matchers accept, with their labels."""
        found = []
        lsets = fam.query_labels
        name = (NAME, n)
        for r in range(len(lsets), len(fam.rows)):
            ls = [p for p in fam.rows[r] if p[1] != ""]  # sorted, as a family's rows are
            bisect.insort(ls, name)
            lsets.append(tuple(ls))
        # each matcher reads its label by position (a label the family lacks reads as "")
        names = fam.label_names
        ms = [(names.index(lab) if lab in names else -1, fn) for lab, fn in self._label_ms]
        values = fam.label_values
        for r in range(start, len(fam.rows)):
            vals = values[r]
            for pos, fn in ms:
                if not fn(vals[pos] if pos >= 0 else ""):
                    break
            else:
                found.append((lsets[r], fam, r))
        return found

    def _select(self, tsdb: TSDB) -> Selection:
        if self.name is not None:
            names = [self.name] if self.name in tsdb.families else []
        else:
            names = list(tsdb.families)
        found: list[tuple[LabelSet, Family, int]] = []
        for n in names:
            if all(fn(n) for fn in self._name_fns):
                found += self._scan(n, tsdb.families[n], 0)
        found.sort(key=lambda x: x[0])
        fam = tsdb.families.get(self.name) if self.name is not None else None
        self._fam, self._found = fam, found
        self._scanned = len(fam.rows) if fam is not None else 0
        return self._selection(found)

    def select_live(self, eng: Engine, k_lo: int, k_hi: int) -> Selection:
        """The selection without the series that have no sample in ticks ``[k_lo, k_hi]``: series
        of pods long gone would only be absent in every output, yet cost work in each evaluation.
        Kept while the live set stays the same, so that downstream caches keep hitting."""
        sel = self.select(eng.tsdb)
        k_lo, k_hi = max(int(k_lo), 0), min(int(k_hi), eng.tsdb.n_ticks - 1)
        if not sel.parts or k_hi < k_lo:
            return sel
        keep = np.empty(len(sel.labels), dtype=bool)
        for fam, rows, pos in sel.parts:
            keep[pos] = eng.alive(fam, k_lo, k_hi)[rows]
        if keep.all():
            return sel
        if self._live_of is not sel or len(self._live) > 16:
            self._live_of, self._live = sel, {}
        key = keep.tobytes()
        sub = self._live.get(key)
        if sub is not None:
            return sub
        idx = np.flatnonzero(keep)
        at = np.full(len(keep), -1, dtype=np.intp)
        at[idx] = np.arange(len(idx))
        parts = [(fam, rows[keep[pos]], at[pos[keep[pos]]]) for fam, rows, pos in sel.parts]
        sub = Selection(tuple(sel.labels[i] for i in idx.tolist()), [p for p in parts if len(p[1])])
        self._live[key] = sub
        return sub

    def _selection(self, found: list[tuple[LabelSet, Family, int]]) -> Selection:
        labels = tuple(f[0] for f in found)
        # a named tracker reads one family: no grouping needed
        if found and (self.name is not None or all(f[1] is found[0][1] for f in found)):
            rows = np.fromiter((f[2] for f in found), dtype=np.intp, count=len(found))
            return Selection(labels, [(found[0][1], rows, np.arange(len(found), dtype=np.intp))])
        parts: list[tuple[Family, np.ndarray, np.ndarray]] = []
        by_fam: dict[int, tuple[Family, list[int], list[int]]] = {}
        for pos, (_, fam, r) in enumerate(found):
            ent = by_fam.setdefault(id(fam), (fam, [], []))
            ent[1].append(r)
            ent[2].append(pos)
        for fam, rows, pos in by_fam.values():
            parts.append((fam, np.asarray(rows, dtype=np.intp), np.asarray(pos, dtype=np.intp)))
        return Selection(labels, parts)


class SelectorNode(Node):
    """Instant vector selector (``name{matchers} offset d @ t``)."""

    def __init__(self, vs: pp.VectorSelector) -> None:
        if vs.matchers.or_matchers:
            raise PromQLError("unsupported: 'or' inside label matchers (not in Prometheus 2.42)")
        self.name: str | None = vs.name
        self.matchers = [(m.name, _OPS[str(m.op)], m.value) for m in vs.matchers.matchers]
        self.offset_ms = td_ms(vs.offset)
        self.at: tuple[str, int] | None = None
        if vs.at is not None:
            self.has_at = True
            t = vs.at.type
            if t == pp.AtModifierType.Start:
                self.at = ("start", 0)
            elif t == pp.AtModifierType.End:
                self.at = ("end", 0)
            else:
                self.at = ("t", int(round(vs.at.at.timestamp() * 1000)))
        name_fns = [_compile_matcher(lab, op, val) for lab, op, val in self.matchers if lab == NAME]
        label_ms = [
            (lab, _compile_matcher(lab, op, val)) for lab, op, val in self.matchers if lab != NAME
        ]
        self.track = SeriesTracker(self.name, name_fns, label_ms)

    @property
    def track_key(self) -> tuple:
        """Selectors with the same key pick the same series (the engine shares their tracker)."""
        return (self.name, tuple(sorted(self.matchers)))

    def select(self, tsdb: TSDB) -> Selection:
        return self.track.select(tsdb)

    def select_live(self, eng: Engine, k_lo: int, k_hi: int) -> Selection:
        return self.track.select_live(eng, k_lo, k_hi)

    # -- evaluation -----------------------------------------------------------------------------
    def ref_times(self, ctx: Ctx) -> np.ndarray:
        if self.at is None:
            base = ctx.times
        elif self.at[0] == "start":
            base = ctx.start
        elif self.at[0] == "end":
            base = ctx.end
        else:
            base = np.full(ctx.n, self.at[1], dtype=np.int64)
        return base - self.offset_ms

    def sample_index(self, eng: Engine, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Tick of the sample an instant selector sees at each ref time, and whether it exists."""
        tsdb = eng.tsdb
        t0, tick = eng.t0_ms, eng.tick_ms
        k = (ref - t0) // tick
        np.minimum(k, tsdb.n_ticks - 1, out=k)
        valid = (k >= 0) & (t0 + k * tick >= ref - eng.lookback_ms)
        return np.maximum(k, 0), valid  # (integers: np.clip is several times slower)

    def eval(self, eng: Engine, ctx: Ctx) -> Vec:
        k, valid = self.sample_index(eng, self.ref_times(ctx))
        seen = k[valid]
        if LIVE_ONLY and len(seen):
            sel = self.select_live(eng, *bounds(seen))
        else:
            sel = self.select(eng.tsdb)
        n = len(sel.labels)
        if n == 0:
            return Vec(sel.labels, np.zeros((0, ctx.n)), np.zeros((0, ctx.n), dtype=bool))
        if sel.single:
            fam, rows, _ = sel.parts[0]
            values = as_float64(fam.data[rows[:, None], k[None, :]])
        else:
            values = np.empty((n, ctx.n))
            for fam, rows, pos in sel.parts:
                values[pos] = fam.data[rows[:, None], k[None, :]]
        present = ~np.isnan(values)
        present &= valid[None, :]
        return Vec(sel.labels, values, present)

    def sample_times(self, eng: Engine, ctx: Ctx) -> np.ndarray:
        k, _ = self.sample_index(eng, self.ref_times(ctx))
        return (eng.t0_ms + k * eng.tick_ms) / 1000.0

    def absent_labels(self) -> LabelSet:
        """Labels ``absent()`` reports: equality matchers, minus labels matched more than once."""
        out: dict[str, str] = {}
        drop: set[str] = set()
        for lab, op, val in self.matchers:
            if lab == NAME:
                continue
            if op == "=" and lab not in out:
                out[lab] = val
            else:
                drop.add(lab)
        return tuple(sorted((k, v) for k, v in out.items() if k not in drop and v != ""))


class MatrixNode(Node):
    """Range vector selector ``sel[range]``."""

    kind = "matrix"

    def __init__(self, ms: pp.MatrixSelector) -> None:
        self.sel = SelectorNode(ms.vector_selector)
        self.has_at = self.sel.has_at
        self.range_ms = td_ms(ms.range)

    def children(self) -> list[Node]:
        return [self.sel]

    def eval(self, eng: Engine, ctx: Ctx) -> RangeIn:
        ref = self.sel.ref_times(ctx)
        if LIVE_ONLY and len(ref):
            r_lo, r_hi = bounds(ref)
            lo = (r_lo - self.range_ms - eng.t0_ms) // eng.tick_ms
            sel = self.sel.select_live(eng, lo, (r_hi - eng.t0_ms) // eng.tick_ms)
        else:
            sel = self.sel.select(eng.tsdb)
        nt = eng.tsdb.n_ticks
        rows = None
        if not sel.parts:
            data = np.zeros((0, nt))
        elif sel.single:
            fam, rows, _ = sel.parts[0]
            data = fam.data[:, :nt]
        else:
            data = np.empty((len(sel.labels), nt))
            for fam, frows, pos in sel.parts:
                data[pos] = fam.data[frows, :nt]
        return RangeIn(
            sel.labels,
            data,
            None,
            rows,
            eng.t0_ms,
            eng.tick_ms,
            self.sel.ref_times(ctx),
            self.range_ms,
            ctx.times,
            self,
        )


class SubqueryNode(Node):
    """``expr[range:step] offset d @ t``: the inner expression on an absolute, step-aligned grid."""

    kind = "matrix"

    def __init__(self, sq: pp.SubqueryExpr, eng: Engine) -> None:
        self.expr = eng._build(sq.expr)
        self.range_ms = td_ms(sq.range)
        self.step_ms = td_ms(sq.step) if sq.step is not None else 0
        self.offset_ms = td_ms(sq.offset)
        self.at: tuple[str, int] | None = None
        if sq.at is not None:
            t = sq.at.type
            if t == pp.AtModifierType.Start:
                self.at = ("start", 0)
            elif t == pp.AtModifierType.End:
                self.at = ("end", 0)
            else:
                self.at = ("t", int(round(sq.at.at.timestamp() * 1000)))
        self.has_at = self.at is not None or self.expr.has_at

    def children(self) -> list[Node]:
        return [self.expr]

    def ref_times(self, ctx: Ctx) -> np.ndarray:
        if self.at is None:
            base = ctx.times
        elif self.at[0] == "start":
            base = ctx.start
        elif self.at[0] == "end":
            base = ctx.end
        else:
            base = np.full(ctx.n, self.at[1], dtype=np.int64)
        return base - self.offset_ms

    def eval(self, eng: Engine, ctx: Ctx) -> RangeIn:
        step = self.step_ms or eng.subquery_step_ms
        ref = self.ref_times(ctx)
        if self.expr.has_at and not (
            np.all(ctx.start == ctx.start[0]) and np.all(ctx.end == ctx.end[0])
        ):
            raise _SplitNeeded("@ start()/end() inside a subquery")
        lo = int(ref.min()) - self.range_ms
        g0 = -((-lo) // step) * step  # first multiple of step >= lo
        hi = int(ref.max())
        g = max((hi - g0) // step + 1, 0)
        grid = g0 + np.arange(g, dtype=np.int64) * step
        if g > 200_000:
            raise PromQLError("subquery would evaluate too many steps")
        inner_ctx = Ctx(grid, np.full(g, ctx.start[0]), np.full(g, ctx.end[0]))
        v = eng._eval_node(self.expr, inner_ctx) if g else None
        if v is None:
            labels: Labels = ()
            data = np.zeros((0, 0))
            present = np.zeros((0, 0), dtype=bool)
        elif isinstance(v, Scal):
            raise PromQLError("subquery is only allowed on instant vector, got scalar")
        else:
            labels, data, present = v.labels, v.values, v.present
        return RangeIn(labels, data, present, None, g0, step, ref, self.range_ms, ctx.times, self)


class UnaryNode(Node):
    def __init__(self, expr: Node) -> None:
        self.expr = expr
        self.kind = expr.kind
        self.has_at = expr.has_at
        self._cache = None

    def children(self) -> list[Node]:
        return [self.expr]

    def eval(self, eng: Engine, ctx: Ctx):
        v = eng._eval_node(self.expr, ctx)
        if isinstance(v, Scal):
            return Scal(-v.values)
        return map_values(self, v, np.negative, drop=True)
