"""Range functions computed on one 2-D span instead of per-window 3-D gathers.

All windows of one call lie in the grid columns ``[c0, c1]``; the span is ``data[rows, c0:c1+1]``.
Prefix arrays over the span (present count, index of the last/next present sample, cumulative
counter-reset corrections) turn each window into a couple of column lookups, so the cost is
``O(series x span)`` with a small, fixed number of numpy calls, however many times are evaluated.
"""

from __future__ import annotations

import numpy as np

from ..tsdb import as_float64
from .types import RangeIn


class Span:
    """The samples covering all windows of a range argument for a slice of evaluation times."""

    __slots__ = ("x", "p", "lo", "hi", "valid", "t0", "step", "k", "_lastp", "_nextp", "_pc")

    def __init__(self, rv: RangeIn, ref: np.ndarray) -> None:
        g = rv.n_grid
        lo = -((rv.g0 - (ref - rv.range_ms)) // rv.gstep)
        hi = (ref - rv.g0) // rv.gstep
        lo = np.maximum(lo, 0)
        hi = np.minimum(hi, g - 1)
        valid = lo <= hi
        n = len(rv.labels)
        if not valid.any():
            self.x = np.zeros((n, 1))
            self.p = np.zeros((n, 1), dtype=bool)
            self.lo = np.zeros(len(ref), dtype=np.int64)
            self.hi = self.lo
            c0 = 0
        else:
            c0 = int(lo[valid].min())
            c1 = int(hi[valid].max())
            sl = slice(c0, c1 + 1)
            self.x = as_float64(rv.data[rv.rows, sl] if rv.rows is not None else rv.data[:, sl])
            if rv.present is None:
                self.p = ~np.isnan(self.x)
            else:
                self.p = rv.present[rv.rows, sl] if rv.rows is not None else rv.present[:, sl]
            self.lo = np.where(valid, lo - c0, 0)
            self.hi = np.where(valid, hi - c0, 0)
        self.valid = valid
        self.t0 = rv.g0 + c0 * rv.gstep
        self.step = rv.gstep
        self.k = self.x.shape[1]
        self._lastp = self._nextp = self._pc = None

    @property
    def lastp(self) -> np.ndarray:
        """Index of the last present sample at or before each column (-1 if none)."""
        if self._lastp is None:
            self._lastp = np.maximum.accumulate(np.where(self.p, np.arange(self.k), -1), axis=1)
        return self._lastp

    @property
    def nextp(self) -> np.ndarray:
        """Index of the first present sample at or after each column (k if none)."""
        if self._nextp is None:
            rev = np.where(self.p, np.arange(self.k), self.k)[:, ::-1]
            self._nextp = np.minimum.accumulate(rev, axis=1)[:, ::-1]
        return self._nextp

    @property
    def pc(self) -> np.ndarray:
        """``pc[:, j]`` = number of present samples in columns ``[0, j)``."""
        if self._pc is None:
            pc = np.zeros((self.x.shape[0], self.k + 1), dtype=np.int64)
            np.cumsum(self.p, axis=1, out=pc[:, 1:])
            self._pc = pc
        return self._pc

    def count(self) -> np.ndarray:
        pc = self.pc
        return np.where(self.valid, pc[:, self.hi + 1] - pc[:, self.lo], 0)

    def first_last(self) -> tuple[np.ndarray, np.ndarray]:
        """Column of the first and last present sample of every window ([n, T])."""
        lo_p = self.p[:, self.lo]
        if lo_p.all():
            f = np.broadcast_to(self.lo, lo_p.shape)
        else:
            f = np.where(lo_p, self.lo, self.nextp[:, self.lo])
        return f, self.lastp[:, self.hi]

    def prev_events(self) -> tuple[np.ndarray, np.ndarray]:
        """Previous present value of each sample and whether there is one."""
        lp = self.lastp
        prevp = np.empty_like(lp)
        prevp[:, 0] = -1
        prevp[:, 1:] = lp[:, :-1]
        rows = np.arange(self.x.shape[0])[:, None]
        prev = self.x[rows, np.maximum(prevp, 0)]
        return prev, self.p & (prevp >= 0)

    def times(self, col: np.ndarray) -> np.ndarray:
        return self.t0 + col * self.step


def _gather(a: np.ndarray, col: np.ndarray) -> np.ndarray:
    return a[np.arange(a.shape[0])[:, None], col]


def _extrapolate(result, vf, cnt, tf, tl, ref, range_ms, is_counter, is_rate):
    """Prometheus 2.42 ``extrapolatedRate`` arithmetic (time terms may be [T] or [n, T])."""
    dur_start = (tf - (ref - range_ms)) / 1000.0
    dur_end = (ref - tl) / 1000.0
    sampled = (tl - tf) / 1000.0
    avg = sampled / np.maximum(cnt - 1, 1)
    if is_counter:
        dz = sampled * (vf / result)
        dur_start = np.where((result > 0) & (vf >= 0) & (dz < dur_start), dz, dur_start)
    thr = avg * 1.1
    ext = sampled + np.where(dur_start < thr, dur_start, avg / 2)
    ext = ext + np.where(dur_end < thr, dur_end, avg / 2)
    factor = ext / sampled
    if is_rate:
        factor = factor / (range_ms / 1000.0)
    return result * factor


def _dense_extrapolated(sp: Span, ref, range_ms, is_counter, is_rate):
    """All samples present: first/last sample of a window are its first/last column."""
    lo, hi = sp.lo, sp.hi
    cnt = np.where(sp.valid, hi - lo + 1, 0)
    ok = np.broadcast_to(cnt >= 2, (sp.x.shape[0], len(cnt)))
    vf = sp.x[:, lo]
    result = sp.x[:, hi] - vf
    if is_counter:
        drop = sp.x[:, 1:] < sp.x[:, :-1]
        if drop.any():
            prev = np.empty_like(sp.x)
            prev[:, 1:] = sp.x[:, :-1]
            reset = np.zeros(sp.x.shape, dtype=bool)
            reset[:, 1:] = drop
            f = np.broadcast_to(lo, result.shape)
            la = np.broadcast_to(hi, result.shape)
            result = _add_resets(sp, reset, prev, f, la, result, ok)
    tf, tl = sp.times(lo), sp.times(hi)
    return _extrapolate(result, vf, cnt, tf, tl, ref, range_ms, is_counter, is_rate), ok


def s_extrapolated(sp: Span, ref: np.ndarray, range_ms: int, is_counter: bool, is_rate: bool):
    if sp.p.all():
        return _dense_extrapolated(sp, ref, range_ms, is_counter, is_rate)
    cnt = sp.count()
    ok = cnt >= 2
    n, t = cnt.shape
    if not ok.any():
        return np.zeros((n, t)), ok
    f, la = sp.first_last()
    f = np.where(ok, f, 0)
    la = np.where(ok, la, 0)
    vf, vl = _gather(sp.x, f), _gather(sp.x, la)
    result = vl - vf
    if is_counter:
        prev, pair = sp.prev_events()
        reset = pair & (sp.x < prev)
        if reset.any():
            result = _add_resets(sp, reset, prev, f, la, result, ok)
    tf, tl = sp.times(f), sp.times(la)
    return _extrapolate(result, vf, cnt, tf, tl, ref, range_ms, is_counter, is_rate), ok


def _add_resets(sp: Span, reset, prev, f, la, result, ok):
    """Add counter-reset corrections in sample order, exactly as Prometheus accumulates them."""
    corr = np.where(reset, prev, 0.0)
    c = np.cumsum(corr, axis=1)
    rc = np.cumsum(reset, axis=1)
    nres = _gather(rc, la) - _gather(rc, f)
    cf = _gather(c, f)
    exact = (nres == 0) | ((nres == 1) & (cf == 0))
    out = np.where(nres > 0, result + (_gather(c, la) - cf), result)
    hard = ok & ~exact
    if hard.any():  # several resets in one window: replay them one by one (rare)
        for r, k in zip(*np.nonzero(hard), strict=True):
            v = result[r, k]
            for j in range(f[r, k] + 1, la[r, k] + 1):
                if reset[r, j]:
                    v += prev[r, j]
            out[r, k] = v
    return out


def s_instant(sp: Span, is_rate: bool):
    cnt = sp.count()
    ok = cnt >= 2
    n, t = cnt.shape
    if not ok.any():
        return np.zeros((n, t)), ok
    la = np.where(ok, sp.lastp[:, sp.hi], 0)
    l2 = np.where(ok, _gather(sp.lastp, np.maximum(la - 1, 0)), 0)
    vl, vp = _gather(sp.x, la), _gather(sp.x, l2)
    if not is_rate:
        return vl - vp, ok
    res = np.where(vl < vp, vl, vl - vp)
    return res / ((la - l2) * sp.step / 1000.0), ok


def s_count_events(sp: Span, kind: str):
    """``resets`` / ``changes``: events between consecutive present samples inside windows."""
    cnt = sp.count()
    prev, pair = sp.prev_events()
    if kind == "resets":
        ev = pair & (sp.x < prev)
    else:
        ev = pair & (sp.x != prev) & ~(np.isnan(sp.x) & np.isnan(prev))
    ce = np.zeros((ev.shape[0], sp.k + 1), dtype=np.int64)
    np.cumsum(ev, axis=1, out=ce[:, 1:])
    f, la = sp.first_last()
    f = np.where(cnt > 0, f, 0)
    la = np.where(cnt > 0, la, 0)
    # events at samples f+1..la (an event at f refers to a sample before the window)
    n_ev = _gather(ce, la + 1) - _gather(ce, f + 1)
    return n_ev.astype(np.float64), cnt > 0


def s_last(sp: Span):
    cnt = sp.count()
    la = sp.lastp[:, sp.hi]
    return _gather(sp.x, np.maximum(la, 0)), cnt > 0


SPAN_FUNCS = {
    "rate": lambda sp, w: s_extrapolated(sp, w.ref, w.range_ms, True, True),
    "increase": lambda sp, w: s_extrapolated(sp, w.ref, w.range_ms, True, False),
    "delta": lambda sp, w: s_extrapolated(sp, w.ref, w.range_ms, False, False),
    "irate": lambda sp, w: s_instant(sp, True),
    "idelta": lambda sp, w: s_instant(sp, False),
    "resets": lambda sp, w: s_count_events(sp, "resets"),
    "changes": lambda sp, w: s_count_events(sp, "changes"),
    "last_over_time": lambda sp, w: s_last(sp),
    "count_over_time": lambda sp, w: _count(sp),
    "present_over_time": lambda sp, w: _present(sp),
}


def _count(sp: Span):
    c = sp.count()
    return c.astype(np.float64), c > 0


def _present(sp: Span):
    c = sp.count()
    return np.ones(c.shape), c > 0
