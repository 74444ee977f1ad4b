"""PromQL evaluation over many times at once, with Prometheus 2.42 semantics.

``Engine.compile`` parses a query with ``promql_parser`` and turns the AST into a tree of plan nodes;
``Engine.eval`` evaluates a plan at a 1-D array of times in one pass. Every node works on
``[series, times]`` arrays; label-only work (selection, grouping, matching) is cached on the nodes
and reused while the label sets it depends on are unchanged.
"""

from __future__ import annotations

import contextlib
import functools
from collections import OrderedDict
from collections.abc import Iterator, Sequence

import numpy as np
import promql_parser as pp

from ..tsdb import TSDB, Family
from . import aggregations, binops, functions, rangefuncs, spanfuncs
from .grouping import LabelCache
from .nodes import (
    MatrixNode,
    Node,
    NumberNode,
    SelectorNode,
    SeriesTracker,
    StringNode,
    SubqueryNode,
    UnaryNode,
    _SplitNeeded,
)
from .types import Ctx, Labels, LabelSet, PromQLError, RangeIn, Result, Scal, Str

# Present in Prometheus 2.42 but not in promql-parser's table; registered so that queries using
# them parse and can be rejected with a clear "unsupported" error instead of a parse error.
_EXTRA_FUNCS_REGISTERED = False
# label sets whose dict an engine keeps (a marathon makes some thousands)
_LABEL_DICTS_MAX = 100_000


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


class Plan:
    """A compiled query: the root node plus the original text."""

    __slots__ = ("query", "root", "kind", "order", "rcache", "empty_unless")

    def __init__(self, query: str, root: Node, order: str | None) -> None:
        self.query = query
        self.root = root
        self.kind = root.kind
        self.order = order  # "sort" / "sort_desc" / "topk" / "bottomk" when the root orders output
        self.rcache = LabelCache()
        # the query's series trackers when its result is an empty vector, without error, whenever
        # none of them selects a series (a shared rule pack names other apps' services)
        self.empty_unless: tuple[SeriesTracker, ...] | None = (
            tuple({id(s.track): s.track for s in _selectors(root)}.values())
            if _empty_if_unselected(root)
            else None
        )


# functions whose value does not come from their vector argument's series
_NOT_FROM_SERIES = frozenset({"absent", "absent_over_time", "vector", "time", "scalar", "pi"})


def _selectors(node: Node) -> list[SelectorNode]:
    if isinstance(node, SelectorNode):
        return [node]
    return [s for c in node.children() for s in _selectors(c)]


def _empty_if_unselected(node: Node) -> bool:
    """Is ``node``'s value an empty vector, and its evaluation free of errors, whenever its
    selectors select no series at all? Conservative: False where unsure (subqueries, whose step
    checks do not depend on data; ``topk``/``bottomk``, whose parameter is checked at every step)."""
    if isinstance(node, SelectorNode | MatrixNode):
        return True
    if isinstance(node, UnaryNode):
        return _empty_if_unselected(node.expr)
    if isinstance(node, binops.BinNode):
        if node.kind != "vector":
            return False
        lhs, rhs = node.lhs, node.rhs
        if lhs.kind != "vector":
            return _empty_if_unselected(rhs)
        if rhs.kind != "vector":
            return _empty_if_unselected(lhs)
        if node.op == "or":
            return _empty_if_unselected(lhs) and _empty_if_unselected(rhs)
        if node.op == "unless":
            return _empty_if_unselected(lhs)
        # arithmetic, comparison and ``and`` keep only matched pairs
        return _empty_if_unselected(lhs) or _empty_if_unselected(rhs)
    if isinstance(node, aggregations.AggNode):
        return node.op not in ("topk", "bottomk") and _empty_if_unselected(node.expr)
    if isinstance(node, functions.CallNode):
        if node.name in _NOT_FROM_SERIES or node.kind != "vector":
            return False
        series = [a for a in node.args if a.kind in ("vector", "matrix")]
        return len(series) == 1 and _empty_if_unselected(series[0])
    return False

    def __repr__(self) -> str:
        return f"Plan({self.query!r}, kind={self.kind})"


def _parse(query: str) -> tuple[object, dict[int, tuple[object, str]]]:
    """The parser's tree of ``query`` and a memo of its nodes' debug forms, which cost more than
    the parse (keyed by node identity). Queries of rule-pack size are shared by every engine (each reset compiles the same
    rule pack); a longer one, which only an agent's ad-hoc query can be, is parsed afresh."""
    if len(query) > 2048:
        return pp.parse(query), {}
    return _parse_shared(query)


@functools.lru_cache(maxsize=128)  # the rule pack (44), the numeric features (8), agents' queries
def _parse_shared(query: str) -> tuple[object, dict[int, tuple[object, str]]]:
    return pp.parse(query), {}


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
        self._forms: dict[int, tuple[object, str]] = {}  # the debug forms of the tree being built
        self.max_plans = 4096  # LRU bound: agents may send many distinct ad-hoc queries
        self._spans: dict[tuple, tuple] | None = None  # see shared_spans
        self._alive: dict[tuple, tuple] | None = None  # see alive
        # subexpression results by (debug form, times) within shared_spans (see ``nodes.shared``)
        self.shared_results: dict[tuple[str, bytes], object] | None = None
        # one series tracker per (name, matchers) across plans: rules sharing a selector scan once
        self._trackers: dict[tuple, SeriesTracker] = {}
        # one label dict per label set across results, so that consumers caching on a dict's
        # identity (the alert engine's rendered labels) keep hitting as selections change
        self._label_dicts: dict[LabelSet, dict[str, str]] = {}

    def __getstate__(self) -> dict:
        # Plans hold parser objects that cannot be pickled; they are rebuilt on demand.
        state = self.__dict__.copy()
        state["_plans"] = OrderedDict()
        state["_forms"] = {}
        state["_spans"] = None
        state["_alive"] = None
        state["shared_results"] = None
        state["_trackers"] = {}
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
            ast, self._forms = _parse(query)
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

    def _shared(self, sel: SelectorNode) -> SelectorNode:
        """Give ``sel`` the tracker of the selectors with its name and matchers."""
        if len(self._trackers) > self.max_plans:
            self._trackers.clear()
        sel.track = self._trackers.setdefault(sel.track_key, sel.track)
        return sel

    def _build(self, e) -> Node:
        if isinstance(e, pp.ParenExpr):
            return self._build(e.expr)
        if isinstance(e, pp.NumberLiteral):
            return NumberNode(e.val)
        if isinstance(e, pp.StringLiteral):
            return StringNode(e.val)
        if isinstance(e, pp.VectorSelector):
            return self._shared(SelectorNode(e))
        if isinstance(e, pp.MatrixSelector):
            node = MatrixNode(e)
            self._shared(node.sel)
            return node
        if isinstance(e, pp.SubqueryExpr):
            return SubqueryNode(e, self)
        if isinstance(e, pp.UnaryExpr):
            inner = self._build(e.expr)
            if isinstance(inner, NumberNode):
                return NumberNode(-inner.val)
            return UnaryNode(inner)
        if isinstance(e, pp.Call):
            node = functions.CallNode(e, self)
        elif isinstance(e, pp.AggregateExpr):
            node = aggregations.AggNode(e, self)
        elif isinstance(e, pp.BinaryExpr):
            node = binops.BinNode(e, self)
        else:
            raise PromQLError(f"unsupported expression type {type(e).__name__}")
        # the parser's debug form spells out every field (unlike its PromQL text, which writes
        # ``x[5m:]`` as ``x[5m]``): equal forms are the same computation
        if getattr(node, "op", None) not in ("topk", "bottomk"):  # these keep their last ranks
            seen = self._forms.get(id(e))
            if seen is None:  # (the entry keeps ``e`` alive, so its identity is not reused)
                seen = self._forms[id(e)] = (e, repr(e))
            node.sub_key = seen[1]
        return node

    # -- evaluation -----------------------------------------------------------------------------
    def _eval_node(self, node: Node, ctx: Ctx):
        return node.eval(self, ctx)

    @contextlib.contextmanager
    def shared_spans(self) -> Iterator[None]:
        """Within the block, a range function without arguments (``rate``, ``increase``, ...) over a
        plain selector is computed once per metric, range and evaluation times, for every live
        series of the metric, and each call takes its own series' rows of that; and a function
        call, aggregation or binary operation that several queries contain is evaluated once per
        evaluation times (its result is shared, read-only). A round of alerting rules reads a few
        counters through many different matchers, and tiers of one alert differ only in their
        threshold. Results are the same (the functions work row by row, and a subexpression's
        value depends only on its text, the times and the TSDB); the TSDB must not change inside
        the block."""
        outer = self._spans
        self._spans = {} if outer is None else outer
        alive = self._alive
        self._alive = {} if alive is None else alive
        subs = self.shared_results
        self.shared_results = {} if subs is None else subs
        try:
            yield
        finally:
            self._spans = outer
            self._alive = alive
            self.shared_results = subs

    def alive(self, fam: Family, k_lo: int, k_hi: int) -> np.ndarray:
        """Per row of ``fam``: has it a sample in ticks ``[k_lo, k_hi]``? Within ``shared_spans``
        computed once per family and tick range (the columns read are final)."""
        memo = self._alive
        if memo is None:
            return ~np.isnan(fam.data[: len(fam.rows), k_lo : k_hi + 1]).all(axis=1)
        key = (fam.name, k_lo, k_hi)
        hit = memo.get(key)
        if hit is None or hit[0] is not fam or len(hit[1]) < len(fam.rows):
            hit = memo[key] = (
                fam,
                ~np.isnan(fam.data[: len(fam.rows), k_lo : k_hi + 1]).all(axis=1),
            )
        return hit[1]

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
        if plan.empty_unless is not None:
            for tr in plan.empty_unless:
                if tr.select(self.tsdb).labels:
                    break
            else:
                empty = np.zeros((0, len(tms)))
                return Result("vector", [], empty, empty.astype(bool), tms / 1000.0, [])
        try:
            with np.errstate(all="ignore"):
                v = self._eval_node(plan.root, ctx)
        except _SplitNeeded:
            if start is not None or len(tms) < 2:
                raise
            return _merge([self.eval(plan, [t]) for t in tms / 1000.0], tms)
        if len(self._label_dicts) > _LABEL_DICTS_MAX:
            self._label_dicts = {}
        return _to_result(v, tms, plan.rcache, self._label_dicts)

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

    def __init__(self, labels: Labels, shared: dict[LabelSet, dict[str, str]] | None) -> None:
        self.order = np.array(sorted(range(len(labels)), key=labels.__getitem__), dtype=np.intp)
        self.sets = [labels[i] for i in self.order.tolist()]
        if shared is None:
            self.dicts = [dict(ls) for ls in self.sets]
        else:
            self.dicts = [shared.get(ls) or shared.setdefault(ls, dict(ls)) for ls in self.sets]


def _to_result(
    v,
    tms: np.ndarray,
    cache: LabelCache | None = None,
    shared: dict[LabelSet, dict[str, str]] | None = None,
) -> Result:
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
        rl = _ResultLabels(v.labels, shared)
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
