"""The alert rule pack (and the numeric features' queries) compiled into array plans over the rings.

``TwinEngine`` is the PromQL engine (``telemetry/promql/engine.py``) with its leaves replaced: a
selector's series are resolved once against the static series index (``series.py``), and it reads
samples from the rings; a range function (``rate``, ``increase``, ``max_over_time`` ...) gathers its
windows from the rings and runs the engine's own kernel (``promql/rangefuncs.py``) on them. Every
operator above the leaves (aggregations, binary operators with their vector matching,
``histogram_quantile``, ``label_replace``) is the engine's own node, evaluated over columns that are
(episode, evaluation time) pairs: their per-column semantics (``bool``-less comparisons filtering,
``and``/``or`` on presence, empty sides) make each episode's columns depend on that episode alone.

A rule's output series are static, so each becomes an alert *column* whose labels, and the
entities they name, are known at compile time (``Compiled.columns``).

Differs from the full simulator: the engine's selectors keep only the series with a sample in the
range read; the twin keeps every series of the index and lets absent ones be absent (no result
changes). ``rate`` and ``increase`` run the engine's span kernels (``promql/spanfuncs.py``), the
other range functions its per-window ones, on the same samples.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import promql_parser as pp

from sre_gym.backends.base import alert_entities
from sre_gym.catalogs import catalog_dir
from sre_gym.telemetry.promql import Engine, PromQLError, rangefuncs, spanfuncs
from sre_gym.telemetry.promql.grouping import Dedup
from sre_gym.telemetry.promql.nodes import Node, shared, td_ms
from sre_gym.telemetry.promql.types import Ctx, RangeIn, Vec, drop_name
from sre_gym.telemetry.rules import AlertRule, load_rules
from sre_gym.telemetry.tsdb import TSDB
from sre_gym.twin.layout import Layout
from sre_gym.twin.series import DEPTH, series_index

TICK_MS = 15000
# families the full simulator writes and the twin does not: a rule reading one would silently see
# nothing here, so compiling it is an error (series.py writes what the pack and features read)
UNWRITTEN = frozenset(
    {
        "kube_pod_info",
        "kube_pod_status_phase",
        "kube_pod_container_status_running",
        "kube_pod_container_status_ready",
        "container_cpu_usage_seconds_total",
        "traces_span_metrics_duration_milliseconds_sum",
    }
)


@functools.cache
def rule_pack() -> tuple[AlertRule, ...]:
    """The release's alert rules (as ``backends/sim.py:rule_pack`` loads them)."""
    paths = sorted((catalog_dir() / "alerts").glob("*.yaml"))
    return tuple(r for p in paths for r in load_rules(p))


class _Now:
    """What the leaves read during one evaluation: the rings, the batch clock of the newest
    samples, and how many ticks before it each evaluation time is."""

    rings: tuple[np.ndarray, np.ndarray, np.ndarray] = ()  # type: ignore[assignment]
    clock: int = 0
    ago: np.ndarray = np.zeros(0, dtype=np.int64)  # [T]
    E: int = 0
    since: np.ndarray = np.zeros((0, 0), dtype=np.int64)  # [E, D * SR] ticks since a pod's sample
    k_rows: int = 0  # series rows per deployment read (the first k_rows; the rest are unused)

    def srow_recent(self, span: int) -> np.ndarray:
        """[E, D * SR] bool: the series row had a pod's samples in the last ``span`` ticks."""
        return self.since < span


class _Sel:
    """The static selection of a vector selector: ring rows, labels (with __name__), offset."""

    def __init__(self, vs: pp.VectorSelector, eng: TwinEngine) -> None:
        if vs.at is not None:
            raise PromQLError("unsupported in the twin: @ modifiers")
        name = vs.name
        if name in UNWRITTEN:
            raise PromQLError(f"the twin does not write {name} (twin/series.py)")
        ms = []
        for m in vs.matchers.matchers:
            op = str(m.op)
            ms.append((m.name, op, m.value))
        fam = eng.index.families.get(name)
        rings, rows, labels = [], [], []
        if fam is not None:
            for g, r, ls in zip(fam.ring.tolist(), fam.rows.tolist(), fam.labels, strict=True):
                d = dict(ls)
                if all(_match(d.get(k, ""), op, v) for k, op, v in ms):
                    rings.append(g)
                    rows.append(r)
                    labels.append(ls)
        self.ring_of = np.array(rings, dtype=np.int64)
        self.row_of = np.array(rows, dtype=np.int64)
        self.srow = np.array(
            [eng.index.row_srow[g][r] for g, r in zip(rings, rows, strict=True)], dtype=np.int64
        )
        self.all_labels = tuple(labels)
        self.offset = td_ms(vs.offset) // TICK_MS
        self.sr = eng.sr
        self._subsets: dict[int, tuple] = {}

    def subset(self, k: int):
        """The selection restricted to the first ``k`` series rows of each deployment (pod
        series; other series always): (labels, parts), parts being (ring, rows, positions,
        series rows) per ring read."""
        hit = self._subsets.get(k)
        if hit is None:
            keep = (self.srow < 0) | (self.srow % max(self.sr, 1) < k)
            idx = np.nonzero(keep)[0]
            rings, rows, srow = self.ring_of[idx], self.row_of[idx], self.srow[idx]
            parts = tuple(
                (g, rows[rings == g], np.nonzero(rings == g)[0], srow[rings == g])
                for g in sorted(set(rings.tolist()))
            )
            hit = self._subsets[k] = (tuple(self.all_labels[i] for i in idx), parts)
        return hit


def _match(value: str, op: str, want: str) -> bool:
    if op == "MatchOp.Equal":
        return value == want
    if op == "MatchOp.NotEqual":
        return value != want
    rx = _rx(want)
    hit = rx.fullmatch(value) is not None
    return hit if op == "MatchOp.Re" else not hit


@functools.cache
def _rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def _windows(now: _Now, back: int, offset: int, W: int) -> tuple[np.ndarray, np.ndarray]:
    """Ring columns spanning every window, and where each evaluation's window starts in them."""
    lo = now.clock - int(now.ago.max()) - offset - back
    span = int(now.ago.max() - now.ago.min()) + back + 1
    if span + offset > W:  # (the oldest column read must not have been written over)
        raise PromQLError(f"a window of {span} ticks {offset} back does not fit a ring of {W}")
    return (lo + np.arange(span)) % W, (now.ago.max() - now.ago).astype(np.intp)


def _spans(now: _Now, parts, back: int, offset: int, live_only: bool = False):
    """The samples spanning every window of ``back + 1`` ticks ending ``offset`` before each
    evaluation time.

    Every row of the batch writes the same ring column each tick (telemetry.py), so one span of
    columns covers every window of every episode; a sample a fresh episode never wrote is NaN.
    Returns ``(e, r, span, starts)``: span [P, S] for the (episode, series) pairs (e, r) read
    (every pair, or with ``live_only`` only pod series whose series row had a pod in the span)
    and where each evaluation's window starts in it."""
    es, rs, spans = [], [], []
    starts = None
    for g, rows, pos, srow in parts:
        cols, starts = _windows(now, back, offset, DEPTH[g])
        ring = now.rings[g]
        if live_only and srow[0] >= 0:
            recent = now.srow_recent(len(cols) + offset)  # [E, D * SR]
            e, j = np.nonzero(recent[:, srow])
            span = ring[e[:, None], rows[j][:, None], cols[None, :]]  # [P, S]
            r = pos[j]
        else:
            e = np.repeat(np.arange(now.E), len(rows))
            r = np.tile(pos, now.E)
            span = ring[:, rows[:, None], cols[None, :]].reshape(-1, len(cols))
        es.append(e)
        rs.append(r)
        spans.append(span)
    if len(spans) == 1:
        return es[0], rs[0], spans[0], starts
    return np.concatenate(es), np.concatenate(rs), np.concatenate(spans), starts


class InstantSel(Node):
    """An instant vector selector over the rings."""

    def __init__(self, vs: pp.VectorSelector, eng: TwinEngine) -> None:
        self.sel = _Sel(vs, eng)

    @shared
    def eval(self, eng: TwinEngine, ctx: Ctx) -> Vec:
        now = eng.now
        labels, parts = self.sel.subset(now.k_rows)
        E, T = now.E, len(now.ago)
        n = len(labels)
        vals = np.full((n, E, T), np.nan)
        for g, rows, pos, _ in parts:
            if int(now.ago.max()) + self.sel.offset >= DEPTH[g]:
                raise PromQLError(f"offset {self.sel.offset} does not fit a ring of {DEPTH[g]}")
            cols = (now.clock - now.ago - self.sel.offset) % DEPTH[g]
            x = now.rings[g][:, rows[:, None], cols[None, :]]  # [E, n_g, T]
            vals[pos] = np.moveaxis(x, 1, 0)
        vals = vals.reshape(n, E * T)
        return Vec(labels, vals, ~np.isnan(vals))


class RangeCall(Node):
    """``fn(selector[range])`` with ``fn`` a range function of ``promql/rangefuncs.py``."""

    def __init__(self, call: pp.Call, eng: TwinEngine) -> None:
        self.name = call.func.name
        args = [_unwrap(a) for a in call.args]
        if len(args) != 1 or not isinstance(args[0], pp.MatrixSelector):
            raise PromQLError(f"unsupported in the twin: {self.name} with arguments {args}")
        ms = args[0]
        self.sel = _Sel(ms.vector_selector, eng)
        self.range_ms = td_ms(ms.range)
        if self.range_ms % TICK_MS:
            raise PromQLError("unsupported in the twin: a range that is not a whole tick count")
        self.back = self.range_ms // TICK_MS
        self.fn = rangefuncs.RANGE_FUNCS[self.name]
        self.span_fn = spanfuncs.SPAN_FUNCS.get(self.name)
        self.keep = self.name == "last_over_time"
        self._labels: dict[int, tuple] = {}

    def labels(self, k: int) -> tuple:
        """Output labels for the first ``k`` series rows (the selection's, ``__name__`` dropped)."""
        hit = self._labels.get(k)
        if hit is None:
            sl = self.sel.subset(k)[0]
            dd = Dedup(sl if self.keep else tuple(drop_name(ls) for ls in sl))
            if dd.needed:
                raise PromQLError("unsupported in the twin: series that merge once named")
            hit = self._labels[k] = dd.labels
        return hit

    @shared
    def eval(self, eng: TwinEngine, ctx: Ctx) -> Vec:
        now = eng.now
        labels = self.labels(now.k_rows)
        parts = self.sel.subset(now.k_rows)[1]
        E, T = now.E, len(now.ago)
        n = len(labels)
        out_v = np.zeros((n, E, T))
        out_p = np.zeros((n, E, T), dtype=bool)
        if n:
            e, r, span, starts = _spans(now, parts, self.back, self.sel.offset, live_only=True)
            if len(e):
                v, ok = self._kernel(span, starts, T)
                out_v[r, e] = np.where(ok, v, 0.0)
                out_p[r, e] = ok
        return Vec(labels, out_v.reshape(n, E * T), out_p.reshape(n, E * T))

    def _kernel(self, span: np.ndarray, starts: np.ndarray, T: int):
        """The engine's kernel on the windows within ``span`` [P, S] (times relative to it): its
        span kernel (``promql/spanfuncs.py``, what the engine runs for ``rate`` and kin), else
        the per-window one (``promql/rangefuncs.py``)."""
        w = self.back + 1
        ref = ((starts + self.back) * TICK_MS).astype(np.int64)
        win = rangefuncs.Win(ref, self.range_ms, ref, [])
        if self.span_fn is not None:
            rv = RangeIn(
                (None,) * len(span), span, None, None, 0, TICK_MS, ref, self.range_ms, ref, self
            )
            return self.span_fn(spanfuncs.Span(rv, ref), win)
        x = np.lib.stride_tricks.sliding_window_view(span, w, axis=1)[:, starts]
        tms = (starts[:, None] + np.arange(w)[None, :]) * TICK_MS
        return self.fn(x, ~np.isnan(x), tms, win)


def _unwrap(e):
    while isinstance(e, pp.ParenExpr):
        e = e.expr
    return e


class TwinEngine(Engine):
    """The PromQL engine over the twin's rings (see the module docstring)."""

    def __init__(self, lay: Layout) -> None:
        super().__init__(TSDB(t0=0, tick_s=15, capacity=1))
        self.index = series_index(lay)
        self.now = _Now()
        self.sr = lay.SR
        # series rows read per deployment: only grows, so that label sets (and the operators'
        # caches keyed on them) change at most a few times; rows past it hold no samples
        self.k_rows = min(8, lay.SR)

    def _build(self, e) -> Node:
        e = _unwrap(e)
        if isinstance(e, pp.VectorSelector):
            node: Node = InstantSel(e, self)
        elif isinstance(e, pp.MatrixSelector | pp.SubqueryExpr):
            raise PromQLError("unsupported in the twin: a range vector outside a range function")
        elif isinstance(e, pp.Call) and e.func.name in rangefuncs.RANGE_FUNCS:
            node = RangeCall(e, self)
        else:
            return super()._build(e)
        node.sub_key = repr(e)  # selections shared between rules that read the same series
        return node

    def run(self, plans: list, rings, clock: int, ago: np.ndarray, since: np.ndarray) -> list[Vec]:
        """Evaluate ``plans`` at ``ago`` [T] ticks before the newest samples (batch clock
        ``clock``) in each episode (columns (e, t), e-major). ``since`` [E, D * SR]: ticks since
        each series row last had a pod's samples."""
        E = since.shape[0]
        self.now.rings, self.now.clock, self.now.ago, self.now.E = rings, clock, ago, E
        self.now.since = since
        span = int(ago.max()) + 2 * 20 + 2  # the deepest pod-series window, and margin
        used = (since < span).reshape(E, -1, self.sr).any(axis=(0, 1))
        if used.any():
            need = int(np.nonzero(used)[0].max()) + 1
            while self.k_rows < need:
                self.k_rows = min(self.sr, self.k_rows * 2)
        self.now.k_rows = self.k_rows
        times = np.tile((-ago * TICK_MS).astype(np.int64), E)
        ctx = Ctx(times, times, times)
        self.shared_results = {}
        try:
            # absent and empty windows divide by zero as in the engine (NaN, then dropped)
            with np.errstate(divide="ignore", invalid="ignore"):
                return [p.root.eval(self, ctx) for p in plans]
        finally:
            self.shared_results = None


@dataclass(frozen=True, eq=False)
class Compiled:
    """The rule pack compiled for one app."""

    engine: TwinEngine
    rules: tuple[AlertRule, ...]
    plans: tuple  # per rule (None: its selectors pick nothing here)
    keys: tuple[tuple, ...]  # per rule: the output labels of each of its columns, column order
    col_rule: np.ndarray  # [COLS] rule of each column
    col_for: np.ndarray  # [COLS] its ``for`` in seconds
    col_labels: tuple[dict[str, str], ...]  # [COLS] alert labels
    col_ent: np.ndarray  # [COLS, 2] entities it names (-1 pad)
    col_sev: tuple[str, ...]

    def rows(self, i: int, labels: tuple) -> np.ndarray:
        """Where each column of rule ``i`` is among ``labels`` (an evaluation's output labels,
        which read only the series rows in use: -1 for a column not among them)."""
        return _positions(self.keys[i], labels)


_POS: dict[tuple[int, int], tuple[tuple, tuple, np.ndarray]] = {}


def _positions(want: tuple, labels: tuple) -> np.ndarray:
    """The index of each of ``want`` in ``labels`` (-1: absent), cached on the two objects (the
    operators' label sets are cached, so an evaluation returns the same objects again)."""
    key = (id(want), id(labels))
    hit = _POS.get(key)
    if hit is not None and hit[0] is want and hit[1] is labels:
        return hit[2]
    at = {ls: j for j, ls in enumerate(labels)}
    pos = np.array([at.get(ls, -1) for ls in want], dtype=np.int64)
    if len(_POS) > 4096:
        _POS.clear()
    _POS[key] = (want, labels, pos)
    return pos


@functools.cache
def compile_pack(lay: Layout) -> Compiled:
    """Compile the rule pack for ``lay`` (cached per layout)."""
    eng = TwinEngine(lay)
    rules = rule_pack()
    ent = {e: i for i, e in enumerate(lay.entities)}
    compiled = []
    for r in rules:
        if r.static_labels is None:
            raise PromQLError(f"rule {r.name}: label templates are not supported in the twin")
        if r.interval_s not in (None, 30, 30.0):
            raise PromQLError(f"rule {r.name}: evaluation interval {r.interval_s} (the twin: 30 s)")
        compiled.append(eng.compile(r.expr))
    out_labels = [v.labels for v in static_outputs(eng, compiled)]
    plans, keys, col_rule, col_for, col_labels, col_ent, col_sev = [], [], [], [], [], [], []
    for i, r in enumerate(rules):
        plan, labels = compiled[i], out_labels[i]
        keyed = []
        for j, ls in enumerate(labels):
            al = r.render_labels(dict(ls), 0.0)
            keyed.append((tuple(sorted(al.items())), j, al))
        keyed.sort()
        plans.append(plan if keyed else None)
        keys.append(tuple(labels[j] for _, j, _ in keyed))
        for _, _, al in keyed:
            col_rule.append(i)
            col_for.append(r.for_s)
            col_labels.append(al)
            es = [ent[x] for x in alert_entities(al) if x in ent][:2]
            col_ent.append(es + [-1] * (2 - len(es)))
            col_sev.append(al.get("severity", "none"))
    return Compiled(
        engine=eng,
        rules=rules,
        plans=tuple(plans),
        keys=tuple(keys),
        col_rule=np.array(col_rule, dtype=np.int64),
        col_for=np.array(col_for, dtype=float),
        col_labels=tuple(col_labels),
        col_ent=np.array(col_ent, dtype=np.int64).reshape(-1, 2),
        col_sev=tuple(col_sev),
    )


def static_outputs(eng: TwinEngine, plans: list) -> list[Vec]:
    """The plans evaluated once on rings of zeros with every series row in use: their output
    series (labels) do not depend on the samples, so this gives every row a plan can output."""
    rings = tuple(np.zeros((1, n, w)) for n, w in zip(eng.index.n_rows, DEPTH, strict=True))
    k = eng.k_rows
    try:
        with np.errstate(all="ignore"):
            since = np.zeros((1, eng.index.p_restarts.size), dtype=np.int64)
            return eng.run(plans, rings, 100, np.zeros(1, dtype=np.int64), since)
    finally:
        eng.k_rows = k
