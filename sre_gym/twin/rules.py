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
changes). ``rate`` and ``increase`` use the per-window kernel where the engine uses its shared-span
kernel; the two agree to rounding.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import promql_parser as pp

from sre_gym.backends.base import alert_entities
from sre_gym.catalogs import catalog_dir
from sre_gym.telemetry.promql import Engine, PromQLError, rangefuncs
from sre_gym.telemetry.promql.grouping import Dedup
from sre_gym.telemetry.promql.nodes import Node, td_ms
from sre_gym.telemetry.promql.types import Ctx, Vec, drop_name
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
    """What the leaves read during one evaluation: the rings and each column's tick."""

    rings: tuple[np.ndarray, np.ndarray, np.ndarray] = ()  # type: ignore[assignment]
    ticks: np.ndarray = np.zeros((0, 0), dtype=np.int64)  # [E, T] evaluation ticks
    last: np.ndarray = np.zeros(0, dtype=np.int64)  # [E] newest tick in the rings


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
        ring_of = np.array(rings, dtype=np.int64)
        row_of = np.array(rows, dtype=np.int64)
        # (ring, its rows, their positions in the selection) per ring the selection reads
        self.parts = tuple(
            (g, row_of[ring_of == g], np.nonzero(ring_of == g)[0]) for g in sorted(set(rings))
        )
        self.rows = row_of
        self.labels = tuple(labels)
        self.offset = td_ms(vs.offset) // TICK_MS


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


def _gather(now: _Now, sel: _Sel, back: int) -> tuple[np.ndarray, np.ndarray]:
    """Samples [E, rows, T, back + 1] at ticks ``tick - offset - back .. tick - offset`` of each
    column, and whether each is present (a sample within the episode and its ring)."""
    E, T = now.ticks.shape
    k = now.ticks[:, :, None] - sel.offset - back + np.arange(back + 1)  # [E, T, w]
    x = np.full((E, len(sel.rows), T, back + 1), np.nan)
    p = np.zeros(x.shape, dtype=bool)
    e = np.arange(E)[:, None, None, None]
    for g, rows, pos in sel.parts:
        W = DEPTH[g]
        valid = (k >= 0) & (k > now.last[:, None, None] - W)
        xs = now.rings[g][e, rows[None, :, None, None], (k % W)[:, None, :, :]]
        x[:, pos] = xs
        p[:, pos] = ~np.isnan(xs) & valid[:, None, :, :]
    return x, p


class InstantSel(Node):
    """An instant vector selector over the rings."""

    def __init__(self, vs: pp.VectorSelector, eng: TwinEngine) -> None:
        self.sel = _Sel(vs, eng)

    def eval(self, eng: TwinEngine, ctx: Ctx) -> Vec:
        sel = self.sel
        E, T = eng.now.ticks.shape
        if not len(sel.rows):
            return Vec(sel.labels, np.zeros((0, E * T)), np.zeros((0, E * T), dtype=bool))
        x, present = _gather(eng.now, sel, 0)
        x, present = x[..., 0], present[..., 0]
        vals = np.moveaxis(x, 1, 0).reshape(len(sel.rows), E * T)
        return Vec(sel.labels, vals, np.moveaxis(present, 1, 0).reshape(len(sel.rows), E * T))


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
        keep = self.name == "last_over_time"
        dd = Dedup(self.sel.labels if keep else tuple(drop_name(ls) for ls in self.sel.labels))
        if dd.needed:
            raise PromQLError("unsupported in the twin: series that merge once named")
        self.labels = dd.labels

    def eval(self, eng: TwinEngine, ctx: Ctx) -> Vec:
        sel = self.sel
        E, T = eng.now.ticks.shape
        n = len(sel.rows)
        out_v = np.zeros((E, n, T))
        out_p = np.zeros((E, n, T), dtype=bool)
        if n:
            x, p = _gather(eng.now, sel, self.back)
            live = p.any(axis=(2, 3))  # (episode, series) pairs with a sample to read
            e, r = np.nonzero(live)
            if len(e):
                w = self.back + 1
                tms = (np.arange(w)[None, :] - self.back) * TICK_MS + np.zeros(
                    (T, 1), dtype=np.int64
                )
                win = rangefuncs.Win(np.zeros(T, dtype=np.int64), self.range_ms, np.zeros(T), [])
                v, ok = self.fn(x[e, r], p[e, r], tms, win)
                out_v[e, r] = np.where(ok, v, 0.0)
                out_p[e, r] = ok
        vals = np.moveaxis(out_v, 1, 0).reshape(n, E * T)
        return Vec(self.labels, vals, np.moveaxis(out_p, 1, 0).reshape(n, E * T))


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

    def _build(self, e) -> Node:
        e = _unwrap(e)
        if isinstance(e, pp.VectorSelector):
            return InstantSel(e, self)
        if isinstance(e, pp.MatrixSelector | pp.SubqueryExpr):
            raise PromQLError("unsupported in the twin: a range vector outside a range function")
        if isinstance(e, pp.Call) and e.func.name in rangefuncs.RANGE_FUNCS:
            return RangeCall(e, self)
        return super()._build(e)

    def run(self, plans: list, rings, ticks: np.ndarray, last: np.ndarray) -> list[Vec]:
        """Evaluate ``plans`` at the ticks [E, T] of each episode (columns (e, t), e-major)."""
        self.now.rings, self.now.ticks, self.now.last = rings, ticks, last
        E, T = ticks.shape
        times = (ticks.reshape(-1) * TICK_MS).astype(np.int64)
        ctx = Ctx(times, times, times)
        self.shared_results = {}
        try:
            return [p.root.eval(self, ctx) for p in plans]
        finally:
            self.shared_results = None


@dataclass(frozen=True, eq=False)
class Compiled:
    """The rule pack compiled for one app."""

    engine: TwinEngine
    rules: tuple[AlertRule, ...]
    plans: tuple  # per rule (None: its selectors pick nothing here)
    rows: tuple[np.ndarray, ...]  # per rule: output row of each of its columns, in column order
    col_rule: np.ndarray  # [COLS] rule of each column
    col_for: np.ndarray  # [COLS] its ``for`` in seconds
    col_labels: tuple[dict[str, str], ...]  # [COLS] alert labels
    col_ent: np.ndarray  # [COLS, 2] entities it names (-1 pad)
    col_sev: tuple[str, ...]


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
    plans, rows_of, col_rule, col_for, col_labels, col_ent, col_sev = [], [], [], [], [], [], []
    for i, r in enumerate(rules):
        plan, labels = compiled[i], out_labels[i]
        keyed = []
        for j, ls in enumerate(labels):
            al = r.render_labels(dict(ls), 0.0)
            keyed.append((tuple(sorted(al.items())), j, al))
        keyed.sort()
        plans.append(plan if keyed else None)
        rows_of.append(np.array([j for _, j, _ in keyed], dtype=np.int64))
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
        rows=tuple(rows_of),
        col_rule=np.array(col_rule, dtype=np.int64),
        col_for=np.array(col_for, dtype=float),
        col_labels=tuple(col_labels),
        col_ent=np.array(col_ent, dtype=np.int64).reshape(-1, 2),
        col_sev=tuple(col_sev),
    )


def static_outputs(eng: TwinEngine, plans: list) -> list[Vec]:
    """The plans evaluated once on rings of zeros: their output series (labels) do not depend on
    the samples, so this gives each plan's rows."""
    rings = tuple(np.zeros((1, n, w)) for n, w in zip(eng.index.n_rows, DEPTH, strict=True))
    with np.errstate(all="ignore"):
        return eng.run(plans, rings, np.array([[100]]), np.array([100]))
