"""PromQL evaluation over many times at once, with Prometheus 2.42 semantics.

``Engine.compile`` parses a query with ``promql_parser`` and turns the AST into a tree of plan nodes;
``Engine.eval`` evaluates a plan at a 1-D array of times in one pass. Every node works on
``[series, times]`` arrays; label-only work (selection, grouping, matching) is cached on the nodes
and reused while the label sets it depends on are unchanged.
"""

from __future__ import annotations

import bisect
import contextlib
import datetime as _dt
import re
from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np
import promql_parser as pp

from ..tsdb import TSDB, Family
from . import aggregations, binops, functions, rangefuncs, spanfuncs
from .grouping import LabelCache
from .types import NAME, Ctx, Labels, LabelSet, PromQLError, RangeIn, Result, Scal, Str, Vec

_OPS = {"MatchOp.Equal": "=", "MatchOp.NotEqual": "!=", "MatchOp.Re": "=~", "MatchOp.NotRe": "!~"}

# Present in Prometheus 2.42 but not in promql-parser's table; registered so that queries using
# them parse and can be rejected with a clear "unsupported" error instead of a parse error.
_EXTRA_FUNCS_REGISTERED = False


def _label_key(x: tuple) -> tuple:
    return x[0]


# selectors skip series with no sample in the ticks an evaluation reads (results are the same; the
# switch exists so that tests can compare both ways)
LIVE_ONLY = True


def _register_extra_functions() -> None:
    global _EXTRA_FUNCS_REGISTERED
    if _EXTRA_FUNCS_REGISTERED:
        return
    vt = pp.ValueType
    with contextlib.suppress(Exception):  # depends on the parser build
        pp.register_extra_functions(
            [pp.Function("holt_winters", [vt.Matrix, vt.Scalar, vt.Scalar], vt.Vector)]
        )
    _EXTRA_FUNCS_REGISTERED = True


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

    def eval(self, eng: Engine, ctx: Ctx):  # pragma: no cover - abstract
        raise NotImplementedError

    def children(self) -> list[Node]:
        return []


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
        self._name_ms = [m for m in self.matchers if m[0] == NAME]
        self._label_ms = [
            (lab, _compile_matcher(lab, op, val)) for lab, op, val in self.matchers if lab != NAME
        ]
        self._name_fns = [_compile_matcher(lab, op, val) for lab, op, val in self._name_ms]
        self._key: object = object()
        self._sel: Selection | None = None
        # families only ever gain rows: a named selector scans just the rows added since it last
        # looked; its family is held, not keyed by id (ids of freed families get reused)
        self._fam: Family | None = None
        self._found: list[tuple[LabelSet, Family, int]] = []
        self._scanned = 0
        self._live: tuple[Selection, bytes, Selection] | None = None

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
                for x in new:  # new series mostly sort last: insertion beats a full re-sort
                    bisect.insort(self._found, x, key=_label_key)
                self._sel = self._selection(self._found)
        return self._sel

    def _scan(self, n: str, fam: Family, start: int) -> list[tuple[LabelSet, Family, int]]:
        """Rows of family ``n`` from ``start`` on that the matchers accept, with their labels."""
        found = []
        for r in range(start, len(fam.rows)):
            labels = fam.rows[r]
            d = dict(labels)
            if all(fn(d.get(lab, "")) for lab, fn in self._label_ms):
                ls = tuple(sorted(tuple(p for p in labels if p[1] != "") + ((NAME, n),)))
                found.append((ls, fam, r))
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
            keep[pos] = ~np.isnan(fam.data[rows, k_lo : k_hi + 1]).all(axis=1)
        if keep.all():
            return sel
        key = keep.tobytes()
        live = self._live
        if live is not None and live[0] is sel and live[1] == key:
            return live[2]
        idx = np.flatnonzero(keep)
        at = np.full(len(keep), -1, dtype=np.intp)
        at[idx] = np.arange(len(idx))
        parts = [(fam, rows[keep[pos]], at[pos[keep[pos]]]) for fam, rows, pos in sel.parts]
        sub = Selection(tuple(sel.labels[i] for i in idx.tolist()), [p for p in parts if len(p[1])])
        self._live = (sel, key, sub)
        return sub

    @staticmethod
    def _selection(found: list[tuple[LabelSet, Family, int]]) -> Selection:
        labels = tuple(f[0] for f in found)
        if found and all(f[1] is found[0][1] for f in found):  # one family: no grouping needed
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
        k = (ref - eng.t0_ms) // eng.tick_ms
        k = np.minimum(k, tsdb.n_ticks - 1)
        valid = (k >= 0) & (eng.t0_ms + k * eng.tick_ms >= ref - eng.lookback_ms)
        return np.clip(k, 0, None), valid

    def eval(self, eng: Engine, ctx: Ctx) -> Vec:
        k, valid = self.sample_index(eng, self.ref_times(ctx))
        seen = k[valid]
        if LIVE_ONLY and len(seen):
            sel = self.select_live(eng, int(seen.min()), int(seen.max()))
        else:
            sel = self.select(eng.tsdb)
        n = len(sel.labels)
        if n == 0:
            return Vec(sel.labels, np.zeros((0, ctx.n)), np.zeros((0, ctx.n), dtype=bool))
        if sel.single:
            fam, rows, _ = sel.parts[0]
            values = fam.data[rows[:, None], k[None, :]]
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
            lo = (int(ref.min()) - self.range_ms - eng.t0_ms) // eng.tick_ms
            sel = self.sel.select_live(eng, lo, (int(ref.max()) - eng.t0_ms) // eng.tick_ms)
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
        return functions.map_values(self, v, np.negative, drop=True)


class Plan:
    """A compiled query: the root node plus the original text."""

    __slots__ = ("query", "root", "kind", "order", "rcache")

    def __init__(self, query: str, root: Node, order: str | None) -> None:
        self.query = query
        self.root = root
        self.kind = root.kind
        self.order = order  # "sort" / "sort_desc" / "topk" / "bottomk" when the root orders output
        self.rcache = LabelCache()

    def __repr__(self) -> str:
        return f"Plan({self.query!r}, kind={self.kind})"


class Engine:
    """Evaluates PromQL against a :class:`~sre_gym.telemetry.tsdb.TSDB`.

    ``lookback_s`` is the instant-selector lookback (Prometheus ``--query.lookback-delta``);
    ``subquery_step_s`` is the step of subqueries written without one (Prometheus uses the global
    evaluation interval).
    """

    def __init__(self, tsdb: TSDB, lookback_s: float = 300, subquery_step_s: float = 60) -> None:
        _register_extra_functions()
        self.tsdb = tsdb
        self.lookback_ms = int(round(lookback_s * 1000))
        self.subquery_step_ms = int(round(subquery_step_s * 1000))
        self._plans: OrderedDict[str, Plan] = OrderedDict()
        self.max_plans = 4096  # LRU bound: agents may send many distinct ad-hoc queries
        self._spans: dict[tuple, tuple] | None = None  # see shared_spans

    def __getstate__(self) -> dict:
        # Plans hold parser objects that cannot be pickled; they are rebuilt on demand.
        state = self.__dict__.copy()
        state["_plans"] = OrderedDict()
        state["_spans"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        _register_extra_functions()
        self.__dict__.update(state)

    @property
    def t0_ms(self) -> int:
        return self.tsdb.t0 * 1000

    @property
    def tick_ms(self) -> int:
        return self.tsdb.tick_s * 1000

    # -- compilation ----------------------------------------------------------------------------
    def compile(self, query: str) -> Plan:
        """Parse and plan ``query`` once; plans are cached by query string."""
        plan = self._plans.get(query)
        if plan is not None:
            self._plans.move_to_end(query)
            return plan
        if not isinstance(query, str):
            raise PromQLError(f"query must be a string, got {type(query).__name__}")
        try:
            ast = pp.parse(query)
        except ValueError as e:
            raise PromQLError(f"parse error: {e}") from None
        except BaseException as e:  # the Rust parser may panic on odd input
            if isinstance(e, KeyboardInterrupt | SystemExit):
                raise
            raise PromQLError(f"parse error: {e}") from None
        root = self._build(ast)
        order = None
        r = root
        if isinstance(r, functions.CallNode) and r.name in ("sort", "sort_desc"):
            order = r.name
        elif isinstance(r, aggregations.AggNode) and r.op in ("topk", "bottomk"):
            order = r.op
        plan = Plan(query, root, order)
        self._plans[query] = plan
        if len(self._plans) > self.max_plans:
            self._plans.popitem(last=False)
        return plan

    def _build(self, e) -> Node:
        if isinstance(e, pp.ParenExpr):
            return self._build(e.expr)
        if isinstance(e, pp.NumberLiteral):
            return NumberNode(e.val)
        if isinstance(e, pp.StringLiteral):
            return StringNode(e.val)
        if isinstance(e, pp.VectorSelector):
            return SelectorNode(e)
        if isinstance(e, pp.MatrixSelector):
            return MatrixNode(e)
        if isinstance(e, pp.SubqueryExpr):
            return SubqueryNode(e, self)
        if isinstance(e, pp.UnaryExpr):
            inner = self._build(e.expr)
            if isinstance(inner, NumberNode):
                return NumberNode(-inner.val)
            return UnaryNode(inner)
        if isinstance(e, pp.Call):
            return functions.CallNode(e, self)
        if isinstance(e, pp.AggregateExpr):
            return aggregations.AggNode(e, self)
        if isinstance(e, pp.BinaryExpr):
            return binops.BinNode(e, self)
        raise PromQLError(f"unsupported expression type {type(e).__name__}")

    # -- evaluation -----------------------------------------------------------------------------
    def _eval_node(self, node: Node, ctx: Ctx):
        return node.eval(self, ctx)

    @contextlib.contextmanager
    def shared_spans(self) -> Iterator[None]:
        """Within the block, a range function without arguments (``rate``, ``increase``, ...) over a
        plain selector is computed once per metric, range and evaluation times, for every live
        series of the metric, and each call takes its own series' rows of that. A round of alerting
        rules reads a few counters through many different matchers. Results are the same (the
        functions work row by row); the TSDB must not change inside the block."""
        outer = self._spans
        self._spans = {} if outer is None else outer
        try:
            yield
        finally:
            self._spans = outer

    def shared_span(
        self, fn: str, arg: Node, rv: RangeIn, ctx: Ctx
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """``fn``'s (values, present) for the series of ``rv`` from the metric-wide computation, or
        None outside ``shared_spans`` or where it does not apply (offset, @, no metric name)."""
        memo = self._spans
        if (
            memo is None
            or not isinstance(arg, MatrixNode)
            or arg.sel.name is None
            or arg.sel.offset_ms
            or arg.sel.at is not None
            or rv.rows is None
        ):
            return None
        key = (fn, arg.sel.name, arg.range_ms, ctx.times.tobytes())
        hit = memo.get(key)
        if hit is None:
            wide = self.compile(f"{arg.sel.name}[{arg.range_ms}ms]").root.eval(self, ctx)
            if wide.rows is None:
                return None
            win = rangefuncs.Win(wide.ref, wide.range_ms, wide.enh_ts, [])
            vals, pres = spanfuncs.SPAN_FUNCS[fn](spanfuncs.Span(wide, wide.ref), win)
            where = np.full(int(wide.rows.max()) + 1, -1, dtype=np.intp)
            where[wide.rows] = np.arange(len(wide.rows))
            hit = memo[key] = (vals, pres, where)
        vals, pres, where = hit
        if int(rv.rows.max()) >= len(where):
            return None
        pos = where[rv.rows]
        if (pos < 0).any():  # pragma: no cover - the call's live series are the metric's
            return None
        return vals[pos], pres[pos]

    def eval(
        self,
        plan: Plan | str,
        times: Sequence[float] | np.ndarray,
        *,
        start: float | None = None,
        end: float | None = None,
    ) -> Result:
        """Evaluate ``plan`` at every time in ``times`` (seconds).

        Without ``start``/``end`` every time is an independent instant query (as in rule
        evaluation: ``@ start()`` is that time). With them, the times are the steps of one range
        query from ``start`` to ``end``.
        """
        if isinstance(plan, str):
            plan = self.compile(plan)
        tms = np.round(np.asarray(times, dtype=np.float64) * 1000).astype(np.int64).reshape(-1)
        if len(tms) == 0:
            empty = np.zeros((0, 0))
            kind = "vector" if plan.kind == "matrix" else plan.kind
            return Result(kind, [], empty, empty.astype(bool), np.zeros(0), [])
        if start is None:
            ctx = Ctx(tms, tms, tms)
        else:
            s = int(round(start * 1000))
            e = int(round((end if end is not None else start) * 1000))
            ctx = Ctx(
                tms, np.full(len(tms), s, dtype=np.int64), np.full(len(tms), e, dtype=np.int64)
            )
        if plan.kind == "matrix":
            raise PromQLError(
                'invalid expression type "range vector" for range query, must be Scalar or instant Vector'
            )
        try:
            with np.errstate(all="ignore"):
                v = self._eval_node(plan.root, ctx)
        except _SplitNeeded:
            if start is not None or len(tms) < 2:
                raise
            return _merge([self.eval(plan, [t]) for t in tms / 1000.0], tms)
        return _to_result(v, tms, plan.rcache)

    def instant(self, query: str, t: float) -> dict:
        """Prometheus ``/api/v1/query`` ``data`` object for ``query`` at ``t`` (seconds)."""
        from . import format as fmt

        plan = self.compile(query)
        if plan.kind == "matrix":
            tms = np.array([int(round(t * 1000))], dtype=np.int64)
            with np.errstate(all="ignore"):
                rv = self._eval_node(plan.root, Ctx(tms, tms, tms))
            return fmt.matrix_from_range(rv)
        res = self.eval(plan, [t])
        rank = None
        if plan.order in ("topk", "bottomk") and plan.root.last_rank is not None:
            labels, rk, gidx = plan.root.last_rank
            rank = {ls: (int(gidx[i]), int(rk[i, 0])) for i, ls in enumerate(labels)}
        return fmt.instant_json(res, t, plan.order, rank)

    def range(self, query: str, start: float, end: float, step: float) -> dict:
        """Prometheus ``/api/v1/query_range`` ``data`` object."""
        from . import format as fmt

        if step <= 0:
            raise PromQLError("zero or negative query resolution step widths are not accepted")
        if end < start:
            raise PromQLError("end timestamp must not be before start time")
        s_ms, e_ms, st_ms = (int(round(x * 1000)) for x in (start, end, step))
        n = (e_ms - s_ms) // st_ms + 1
        if n > 11_000:
            raise PromQLError("exceeded maximum resolution of 11,000 points per timeseries")
        times = (s_ms + np.arange(n, dtype=np.int64) * st_ms) / 1000.0
        plan = self.compile(query)
        if plan.kind in ("string", "matrix"):
            what = "string" if plan.kind == "string" else "range vector"
            raise PromQLError(
                f'invalid expression type "{what}" for range query, must be Scalar or instant Vector'
            )
        res = self.eval(plan, times, start=start, end=end)
        return fmt.range_json(res)


class _ResultLabels:
    """Sorted row order and label dicts of a label tuple (cached per plan)."""

    __slots__ = ("order", "dicts", "sets")

    def __init__(self, labels: Labels) -> None:
        self.order = np.array(sorted(range(len(labels)), key=labels.__getitem__), dtype=np.intp)
        self.sets = [labels[i] for i in self.order.tolist()]
        self.dicts = [dict(ls) for ls in self.sets]


def _to_result(v, tms: np.ndarray, cache: LabelCache | None = None) -> Result:
    secs = tms / 1000.0
    if isinstance(v, Str):
        return Result(
            "string", [], np.zeros((0, len(tms))), np.zeros((0, len(tms)), bool), secs, [], v.value
        )
    if isinstance(v, Scal):
        vals = np.asarray(v.values, dtype=np.float64).reshape(1, -1)
        return Result("scalar", [{}], vals, np.ones_like(vals, dtype=bool), secs, [()])
    if isinstance(v, RangeIn):  # pragma: no cover - guarded by callers
        raise PromQLError("range vector result")
    rl = cache.get(v.labels) if cache is not None else None
    if rl is None:
        rl = _ResultLabels(v.labels)
        if cache is not None:
            cache.put(rl, v.labels)
    keep = v.present.any(axis=1)[rl.order]
    order = rl.order[keep]
    pos = np.flatnonzero(keep).tolist()
    label_sets = [rl.sets[i] for i in pos]
    present = v.present[order]
    values = np.where(present, v.values[order], np.nan)
    return Result("vector", [rl.dicts[i] for i in pos], values, present, secs, label_sets)


def _merge(parts: list[Result], tms: np.ndarray) -> Result:
    """Column-wise union of single-time results (same plan, so the same kind)."""
    kind = parts[0].kind
    secs = tms / 1000.0
    if kind != "vector":
        vals = np.concatenate([p.values for p in parts], axis=1)
        ones = np.ones_like(vals, dtype=bool)
        return Result(kind, parts[0].labels, vals, ones, secs, parts[0].label_sets, parts[0].string)
    sets = sorted({ls for p in parts for ls in p.label_sets})
    index = {ls: i for i, ls in enumerate(sets)}
    values = np.full((len(sets), len(parts)), np.nan)
    present = np.zeros((len(sets), len(parts)), dtype=bool)
    for k, p in enumerate(parts):
        for j, ls in enumerate(p.label_sets):
            values[index[ls], k] = p.values[j, 0]
            present[index[ls], k] = p.present[j, 0]
    return Result("vector", [dict(ls) for ls in sets], values, present, secs, sets)
