"""PromQL function calls (Prometheus 2.42 function set).

``__name__`` handling follows 2.42: every function drops the metric name except ``last_over_time``,
``sort``, ``sort_desc``, ``label_replace`` and ``label_join``.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
import promql_parser as pp

from sre_gym import fmath

from . import histogram, rangefuncs, spanfuncs
from .gomath import go_log, go_log2, go_log10, go_max, go_min
from .grouping import Dedup, LabelCache, dropped, map_values
from .nodes import shared
from .types import Ctx, LabelSet, PromQLError, RangeIn, Scal, Vec

if TYPE_CHECKING:
    from .engine import Engine
    from .nodes import Node

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_CHUNK_ELEMS = 1_000_000

# Functions promql-parser knows that Prometheus 2.42 does not have (or that we do not implement).
_NOT_IN_242 = {
    "day_of_year",
    "double_exponential_smoothing",
    "first_over_time",
    "histogram_avg",
    "histogram_count",
    "histogram_fraction",
    "histogram_stddev",
    "histogram_stdvar",
    "histogram_sum",
    "info",
    "mad_over_time",
    "sort_by_label",
    "sort_by_label_desc",
    "ts_of_first_over_time",
    "ts_of_last_over_time",
    "ts_of_max_over_time",
    "ts_of_min_over_time",
}

_SIMPLE = {
    "abs": np.abs,
    "ceil": np.ceil,
    "floor": np.floor,
    "exp": fmath.exp,
    "sqrt": np.sqrt,
    "ln": go_log,
    "log2": go_log2,
    "log10": go_log10,
    "sgn": lambda v: np.where(v < 0, -1.0, np.where(v > 0, 1.0, v)),
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "cos": np.cos,
    "cosh": np.cosh,
    "sin": np.sin,
    "sinh": np.sinh,
    "tan": np.tan,
    "tanh": np.tanh,
    "deg": lambda v: v * 180 / math.pi,
    "rad": lambda v: v * math.pi / 180,
}

_DATE = ("minute", "hour", "day_of_week", "day_of_month", "days_in_month", "month", "year")
# the position of the instant-vector argument of the functions that take one
_VECTOR_ARG = {
    **{n: 0 for n in _SIMPLE},
    **{n: 0 for n in _DATE},
    **{n: 0 for n in ("round", "clamp", "clamp_min", "clamp_max", "timestamp", "scalar")},
    **{n: 0 for n in ("sort", "sort_desc", "absent", "label_replace", "label_join")},
    "histogram_quantile": 1,
}


def _unwrap(e):
    while isinstance(e, pp.ParenExpr):
        e = e.expr
    return e


class CallNode:
    """A function call; evaluation dispatches on the function name."""

    sub_key: str | None = None  # see nodes.shared
    kind = "vector"

    def __init__(self, call: pp.Call, eng: Engine) -> None:
        name = call.func.name
        if name in _NOT_IN_242:
            raise PromQLError(f'unsupported function "{name}" (not in Prometheus 2.42)')
        if name not in _IMPL:
            raise PromQLError(f'unsupported function "{name}"')
        self.name = name
        self.args = [eng._build(_unwrap(a)) for a in call.args]
        self._check_arg_kinds()
        self.has_at = any(a.has_at for a in self.args)
        if name in ("time", "scalar", "pi"):
            self.kind = "scalar"
        self._caches: dict[str, LabelCache] = {}
        if name in ("label_replace", "label_join"):
            self._check_label_args()

    def children(self) -> list[Node]:
        return list(self.args)

    def cache(self, key: str) -> LabelCache:
        c = self._caches.get(key)
        if c is None:
            c = self._caches[key] = LabelCache()
        return c

    def _check_arg_kinds(self) -> None:
        """Prometheus' argument types, for what the parser lets through (it accepts ``ln(-2)``)."""
        want = _VECTOR_ARG.get(self.name)
        if want is None or want >= len(self.args):
            return
        got = self.args[want].kind
        if got != "vector":
            raise PromQLError(
                f'expected type instant vector in call to function "{self.name}", got {got}'
            )

    def _check_label_args(self) -> None:
        strs = [a.val for a in self.args[1:]]
        if self.name == "label_replace":
            dst, _, _, rx = strs
            try:
                self._rx = re.compile(rx)  # used with fullmatch
            except re.error:
                raise PromQLError(f"invalid regular expression in label_replace(): {rx}") from None
            if not _LABEL_NAME.fullmatch(dst):
                raise PromQLError(f"invalid destination label name in label_replace(): {dst}")
        else:
            dst = strs[0]
            if not _LABEL_NAME.fullmatch(dst):
                raise PromQLError(f"invalid destination label name in label_join(): {dst}")
            for src in strs[2:]:
                if not _LABEL_NAME.fullmatch(src):
                    raise PromQLError(f"invalid source label name in label_join(): {src}")

    @shared
    def eval(self, eng: Engine, ctx: Ctx):
        return _IMPL[self.name](self, eng, ctx)


# -- helpers ---------------------------------------------------------------------------------------
def _scalar_arg(
    node: CallNode, i: int, eng: Engine, ctx: Ctx, default: float | None = None
) -> np.ndarray:
    if i >= len(node.args):
        return np.full(ctx.n, default)
    v = node.args[i].eval(eng, ctx)
    return v.values


def _range_call(node: CallNode, eng: Engine, ctx: Ctx, mat_idx: int):
    rv: RangeIn = node.args[mat_idx].eval(eng, ctx)
    sargs = [_scalar_arg(node, i, eng, ctx) for i in range(len(node.args)) if i != mat_idx]
    n, t = len(rv.labels), ctx.n
    if n == 0:
        return rv, np.zeros((0, t)), np.zeros((0, t), dtype=bool)
    sfn = spanfuncs.SPAN_FUNCS.get(node.name)
    if sfn is not None:
        if len(node.args) == 1:
            shared = eng.shared_span(node.name, node.args[0], rv, ctx)
            if shared is not None:
                return rv, shared[0], shared[1]
        win = rangefuncs.Win(rv.ref, rv.range_ms, rv.enh_ts, sargs)
        vals, pres = sfn(spanfuncs.Span(rv, rv.ref), win)
        return rv, vals, pres
    fn = rangefuncs.RANGE_FUNCS[node.name]
    _, valid, width = rv.window_index(rv.ref)
    step = max(1, _CHUNK_ELEMS // max(1, n * max(width, 1)))
    vals = np.empty((n, t))
    pres = np.empty((n, t), dtype=bool)
    for s in range(0, t, step):
        sl = slice(s, min(t, s + step))
        x, p, tms = rv.windows(sl)
        if x.shape[-1] == 0:
            vals[:, sl] = np.nan
            pres[:, sl] = False
            continue
        win = rangefuncs.Win(rv.ref[sl], rv.range_ms, rv.enh_ts[sl], [a[sl] for a in sargs])
        v, ok = fn(x, p, tms, win)
        vals[:, sl] = v
        pres[:, sl] = ok
    return rv, vals, pres


def _range_fn(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    mat_idx = 1 if node.name == "quantile_over_time" else 0
    rv, vals, pres = _range_call(node, eng, ctx, mat_idx)
    if node.name == "last_over_time":
        d = node.cache("keep").get(rv.labels)
        if d is None:
            d = node.cache("keep").put(Dedup(rv.labels), rv.labels)
    else:
        d = dropped(node, rv.labels)
    if d.needed:
        # 2.42 checks the whole result matrix: two series with the same labels are an error as soon
        # as both have any output, even at different times.
        active = d.grouping.count(pres.any(1)[:, None])
        if np.any(active > 1):
            raise PromQLError("vector cannot contain metrics with the same labelset")
    return d.apply(vals, pres)


def _simple(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v = node.args[0].eval(eng, ctx)
    return map_values(node, v, _SIMPLE[node.name])


def _round(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v = node.args[0].eval(eng, ctx)
    inv = 1.0 / _scalar_arg(node, 1, eng, ctx, 1.0)
    return map_values(node, v, lambda x: np.floor(x * inv[None, :] + 0.5) / inv[None, :])


def _clamp(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v = node.args[0].eval(eng, ctx)
    if node.name == "clamp":
        lo = _scalar_arg(node, 1, eng, ctx)[None, :]
        hi = _scalar_arg(node, 2, eng, ctx)[None, :]
        out = map_values(node, v, lambda x: go_max(lo, go_min(hi, x)))
        out.present = out.present & ~(hi < lo)
        return out
    b = _scalar_arg(node, 1, eng, ctx)[None, :]
    if node.name == "clamp_min":
        return map_values(node, v, lambda x: go_max(x, b))
    return map_values(node, v, lambda x: go_min(x, b))


def _timestamp(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    from .nodes import SelectorNode

    arg = node.args[0]
    v = arg.eval(eng, ctx)
    if isinstance(arg, SelectorNode):
        ts = arg.sample_times(eng, ctx)
    else:
        ts = ctx.times / 1000.0
    return map_values(node, v, lambda x: np.broadcast_to(ts[None, :], x.shape).copy())


def _vector(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    s = _scalar_arg(node, 0, eng, ctx)
    return Vec(((),), s.reshape(1, -1).copy(), np.ones((1, ctx.n), dtype=bool))


def _scalar(node: CallNode, eng: Engine, ctx: Ctx) -> Scal:
    v: Vec = node.args[0].eval(eng, ctx)
    cnt = v.present.sum(0)
    if len(v.labels) == 0:
        return Scal(np.full(ctx.n, np.nan))
    first = v.present.argmax(0)
    val = v.values[first, np.arange(ctx.n)]
    return Scal(np.where(cnt == 1, val, np.nan))


def _time(node: CallNode, eng: Engine, ctx: Ctx) -> Scal:
    return Scal(ctx.times / 1000.0)


def _pi(node: CallNode, eng: Engine, ctx: Ctx) -> Scal:
    return Scal(np.full(ctx.n, math.pi))


def _absent_labels(arg) -> LabelSet:
    from .nodes import MatrixNode, SelectorNode

    if isinstance(arg, SelectorNode):
        return arg.absent_labels()
    if isinstance(arg, MatrixNode):
        return arg.sel.absent_labels()
    return ()


def _absent(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v: Vec = node.args[0].eval(eng, ctx)
    none = ~v.present.any(0) if len(v.labels) else np.ones(ctx.n, dtype=bool)
    return Vec((_absent_labels(node.args[0]),), np.ones((1, ctx.n)), none.reshape(1, -1))


def _absent_over_time(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    rv: RangeIn = node.args[0].eval(eng, ctx)
    none = np.ones(ctx.n, dtype=bool)
    if len(rv.labels):
        _, valid, width = rv.window_index(rv.ref)
        step = max(1, _CHUNK_ELEMS // max(1, len(rv.labels) * max(width, 1)))
        for s in range(0, ctx.n, step):
            sl = slice(s, min(ctx.n, s + step))
            _, p, _ = rv.windows(sl)
            none[sl] = ~p.any(axis=(0, 2))
    return Vec((_absent_labels(node.args[0]),), np.ones((1, ctx.n)), none.reshape(1, -1))


def _sort(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    return node.args[0].eval(eng, ctx)


def _histogram_quantile(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    q = _scalar_arg(node, 0, eng, ctx)
    v: Vec = node.args[1].eval(eng, ctx)
    c = node.cache("hist")
    layout = c.get(v.labels)
    if layout is None:
        layout = c.put(histogram.Layout(v.labels), v.labels)
    return histogram.histogram_quantile(layout, q, v)


# -- label manipulation ----------------------------------------------------------------------------
def go_expand(template: str, src: str, m: re.Match, names: dict[str, int]) -> str:
    """Go ``regexp.Expand``: ``$1``, ``${1}``, ``$name``, ``${name}``, ``$$``."""
    out: list[str] = []
    i = 0
    n = len(template)
    while i < n:
        j = template.find("$", i)
        if j < 0:
            out.append(template[i:])
            break
        out.append(template[i:j])
        i = j + 1
        if i < n and template[i] == "$":
            out.append("$")
            i += 1
            continue
        brace = i < n and template[i] == "{"
        k = i + 1 if brace else i
        e = k
        while e < n and (template[e].isalnum() or template[e] == "_"):
            e += 1
        name = template[k:e]
        if not name or (brace and (e >= n or template[e] != "}")):
            out.append("$")
            continue
        i = e + 1 if brace else e
        if name.isdigit():
            g = int(name)
            if g <= (m.re.groups if m else 0) and m.start(g) >= 0:
                out.append(src[m.start(g) : m.end(g)])
        elif name in names and m.start(names[name]) >= 0:
            g = names[name]
            out.append(src[m.start(g) : m.end(g)])
    return "".join(out)


def _label_replace(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v: Vec = node.args[0].eval(eng, ctx)
    c = node.cache("lr")
    d = c.get(v.labels)
    if d is None:
        dst, repl, src = (a.val for a in node.args[1:4])
        rx = node._rx
        names = rx.groupindex
        new: list[LabelSet] = []
        for ls in v.labels:
            dd = dict(ls)
            sv = dd.get(src, "")
            m = rx.fullmatch(sv)
            if m is None:
                new.append(ls)
                continue
            res = go_expand(repl, sv, m, names)
            dd.pop(dst, None)
            if res:
                dd[dst] = res
            new.append(tuple(sorted(dd.items())))
        d = c.put(Dedup(tuple(new)), v.labels)
    return d.apply(v.values, v.present)


def _label_join(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    v: Vec = node.args[0].eval(eng, ctx)
    c = node.cache("lj")
    d = c.get(v.labels)
    if d is None:
        dst, sep = node.args[1].val, node.args[2].val
        srcs = [a.val for a in node.args[3:]]
        new: list[LabelSet] = []
        for ls in v.labels:
            dd = dict(ls)
            val = sep.join(dd.get(s, "") for s in srcs)
            dd.pop(dst, None)
            if val:
                dd[dst] = val
            new.append(tuple(sorted(dd.items())))
        d = c.put(Dedup(tuple(new)), v.labels)
    return d.apply(v.values, v.present)


# -- dates -----------------------------------------------------------------------------------------
def civil(secs: np.ndarray) -> dict[str, np.ndarray]:
    """UTC calendar fields of integer unix seconds (proleptic Gregorian, like Go's time)."""
    days = secs // 86400
    sod = secs - days * 86400
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    leap = ((year % 4 == 0) & (year % 100 != 0)) | (year % 400 == 0)
    dim = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[month] + (
        leap & (month == 2)
    )
    return {
        "minute": (sod % 3600) // 60,
        "hour": sod // 3600,
        "day_of_week": (days + 4) % 7,
        "day_of_month": day,
        "days_in_month": dim,
        "month": month,
        "year": year,
    }


def _date(node: CallNode, eng: Engine, ctx: Ctx) -> Vec:
    if not node.args:
        secs = ctx.times // 1000
        val = civil(secs)[node.name].astype(np.float64)
        return Vec(((),), val.reshape(1, -1), np.ones((1, ctx.n), dtype=bool))
    v: Vec = node.args[0].eval(eng, ctx)

    def f(x: np.ndarray) -> np.ndarray:
        finite = np.isfinite(x) & (np.abs(x) < 1e15)
        secs = np.where(finite, x, 0).astype(np.int64)  # int64(v) truncates toward zero
        return np.where(finite, civil(secs)[node.name].astype(np.float64), np.nan)

    return map_values(node, v, f)


_IMPL = {name: _range_fn for name in rangefuncs.RANGE_FUNCS}
_IMPL.update({name: _simple for name in _SIMPLE})
_IMPL.update({name: _date for name in _DATE})
_IMPL.update(
    {
        "round": _round,
        "clamp": _clamp,
        "clamp_min": _clamp,
        "clamp_max": _clamp,
        "timestamp": _timestamp,
        "vector": _vector,
        "scalar": _scalar,
        "time": _time,
        "pi": _pi,
        "absent": _absent,
        "absent_over_time": _absent_over_time,
        "sort": _sort,
        "sort_desc": _sort,
        "histogram_quantile": _histogram_quantile,
        "label_replace": _label_replace,
        "label_join": _label_join,
    }
)

# Functions whose output keeps ``__name__`` in 2.42 (all others drop it).
KEEP_NAME = frozenset({"last_over_time", "sort", "sort_desc", "label_replace", "label_join"})
