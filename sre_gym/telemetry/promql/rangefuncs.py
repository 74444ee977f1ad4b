"""Range-vector functions (rate, *_over_time, ...) on gathered windows.

Every function gets ``X[n, T, W]`` (sample values), ``P[n, T, W]`` (sample present), ``tms[T, W]``
(sample times, ms) and a :class:`Win` with the per-column window end, range and scalar arguments;
it returns ``(values[n, T], present[n, T])``. Accumulations follow the order and the Kahan /
incremental-mean formulas of Prometheus 2.42 so that results match it bit for bit where feasible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Win:
    ref: np.ndarray  # window end (ms) per column
    range_ms: int
    enh_ts: np.ndarray  # evaluation timestamp (ms) per column (predict_linear's intercept time)
    args: list[np.ndarray]  # scalar arguments per column


def first_last(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = p.shape[-1]
    return p.argmax(-1), w - 1 - p[..., ::-1].argmax(-1)


def take(x: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.take_along_axis(x, idx[..., None], -1)[..., 0]


def take_t(tms: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Sample time of window position ``idx[n, T]``."""
    return tms[np.arange(tms.shape[0])[None, :], idx]


def prev_sample(x: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Value of the previous present sample at each position and whether one exists."""
    w = x.shape[-1]
    pos = np.where(p, np.arange(w), -1)
    last = np.maximum.accumulate(pos, axis=-1)
    prevpos = np.empty_like(last)
    prevpos[..., 0] = -1
    prevpos[..., 1:] = last[..., :-1]
    prev = np.take_along_axis(x, np.maximum(prevpos, 0), -1)
    return prev, p & (prevpos >= 0)


def kahan_inc(inc: np.ndarray, s: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = s + inc
    c = c + np.where(np.abs(s) >= np.abs(inc), (s - t) + inc, (inc - t) + s)
    return t, c


# -- rate family -----------------------------------------------------------------------------------
def _extrapolated(x, p, tms, win: Win, is_counter: bool, is_rate: bool):
    cnt = p.sum(-1)
    ok = cnt >= 2
    if not ok.any():
        return np.zeros(cnt.shape), ok
    first, last = first_last(p)
    vf, vl = take(x, first), take(x, last)
    tf, tl = take_t(tms, first), take_t(tms, last)
    result = vl - vf
    if is_counter:
        prev, pair = prev_sample(x, p)
        reset = pair & (x < prev)
        if reset.any():
            corr = np.where(reset, prev, 0.0)
            result = np.add.accumulate(np.concatenate([result[..., None], corr], -1), -1)[..., -1]
    range_start = (win.ref - win.range_ms)[None, :]
    dur_start = (tf - range_start) / 1000.0
    dur_end = (win.ref[None, :] - tl) / 1000.0
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
        factor = factor / (win.range_ms / 1000.0)
    return result * factor, ok


def f_rate(x, p, tms, win):
    return _extrapolated(x, p, tms, win, True, True)


def f_increase(x, p, tms, win):
    return _extrapolated(x, p, tms, win, True, False)


def f_delta(x, p, tms, win):
    return _extrapolated(x, p, tms, win, False, False)


def _instant(x, p, tms, is_rate: bool):
    cnt = p.sum(-1)
    ok = cnt >= 2
    if not ok.any():
        return np.zeros(cnt.shape), ok
    _, last = first_last(p)
    p2 = p.copy()
    np.put_along_axis(p2, last[..., None], False, -1)
    _, prevlast = first_last(p2)
    vl, vp = take(x, last), take(x, prevlast)
    if is_rate:
        res = np.where(vl < vp, vl, vl - vp)
        res = res / ((take_t(tms, last) - take_t(tms, prevlast)) / 1000.0)
    else:
        res = vl - vp
    return res, ok


def f_irate(x, p, tms, win):
    return _instant(x, p, tms, True)


def f_idelta(x, p, tms, win):
    return _instant(x, p, tms, False)


def f_resets(x, p, tms, win):
    prev, pair = prev_sample(x, p)
    return (pair & (x < prev)).sum(-1).astype(np.float64), p.any(-1)


def f_changes(x, p, tms, win):
    prev, pair = prev_sample(x, p)
    changed = pair & (x != prev) & ~(np.isnan(x) & np.isnan(prev))
    return changed.sum(-1).astype(np.float64), p.any(-1)


# -- regression ------------------------------------------------------------------------------------
def exact_sum(x: np.ndarray) -> np.ndarray:
    """Sum along the last axis, (nearly always) correctly rounded.

    Prometheus uses Kahan-Neumaier summation, whose result is the correctly rounded sum for all
    but pathological inputs; a pairwise tree of error-free TwoSums gives the same result without a
    Python loop over samples. Infinite sums are returned as they are (like Prometheus).
    """
    s = x
    err = None
    while s.shape[-1] > 1:
        if s.shape[-1] % 2:
            s = np.concatenate([s, np.zeros(s.shape[:-1] + (1,))], -1)
        a = s[..., 0::2]
        b = s[..., 1::2]
        t = a + b
        bp = t - a
        e = (a - (t - bp)) + (b - bp)
        es = e.sum(-1)
        err = es if err is None else err + es
        s = t
    if s.shape[-1] == 0:
        return np.zeros(s.shape[:-1])
    s = s[..., 0]
    if err is None:
        return s
    with np.errstate(invalid="ignore"):
        return np.where(np.isfinite(s), s + err, s)


def _linreg(x, p, tms, icpt):
    """Least squares like Prometheus's ``linearRegression`` (x in seconds from ``icpt``).

    ``icpt`` is ``[T]`` (one intercept time per column) or ``[n, T]``.
    """
    dense = bool(p.all())
    cnt = p.sum(-1)
    n = cnt.astype(np.float64)
    if dense:
        init = x[..., 0]
        const = np.all(x == init[..., None], -1)
    else:
        first, _ = first_last(p)
        init = take(x, first)
        const = np.all(~p | (x == init[..., None]), -1)
    if icpt.ndim == 1:
        xv = (tms - icpt[:, None]) / 1e3  # [T, W], shared by all series
        if not dense:
            xv = np.where(p, xv[None], 0.0)
    else:
        xv = np.where(p, (tms[None, :, :] - icpt[..., None]) / 1e3, 0.0)
    yv = x if dense else np.where(p, x, 0.0)
    xy = xv * yv
    if np.all(np.mod(xv, 1) == 0) and np.abs(xv).max(initial=0) < 2**20:
        # Integer-valued x: every order of summation is exact.
        sx = xv.sum(-1)
        sx2 = (xv * xv).sum(-1)
        sy, sxy = exact_sum(np.stack([yv, xy]))
    else:
        xb = np.broadcast_to(xv, yv.shape)
        sx, sx2, sy, sxy = exact_sum(np.stack([xb, xb * xb, yv, xy]))
    if dense and icpt.ndim == 1:
        sx = np.broadcast_to(np.where(p.shape[-1] > 0, sx, 0.0), n.shape)
        sx2 = np.broadcast_to(sx2, n.shape)
    cov = sxy - sx * sy / n
    var = sx2 - sx * sx / n
    slope = cov / var
    intercept = sy / n - slope * sx / n
    inf = np.isinf(init)
    slope = np.where(const, np.where(inf, np.nan, 0.0), slope)
    intercept = np.where(const, np.where(inf, np.nan, init), intercept)
    return slope, intercept, cnt >= 2


def f_deriv(x, p, tms, win):
    if p.all():
        icpt = tms[:, 0]
    else:
        first, _ = first_last(p)
        icpt = take_t(tms, first)
    slope, _, ok = _linreg(x, p, tms, icpt)
    return slope, ok


def f_predict_linear(x, p, tms, win):
    slope, intercept, ok = _linreg(x, p, tms, win.enh_ts)
    return slope * win.args[0][None, :] + intercept, ok


# -- *_over_time -----------------------------------------------------------------------------------
def f_sum_over_time(x, p, tms, win):
    return exact_sum(np.where(p, x, 0.0)), p.any(-1)


def f_avg_over_time(x, p, tms, win):
    """Prometheus's Kahan-compensated incremental mean, replayed sample by sample."""
    shape = x.shape[:-1]
    xt = np.moveaxis(x, -1, 0).reshape(x.shape[-1], -1)
    pt = np.moveaxis(p, -1, 0).reshape(x.shape[-1], -1)
    dense = bool(pt.all())
    special = not np.isfinite(xt[pt]).all()
    mean = np.zeros(xt.shape[1])
    c = np.zeros(xt.shape[1])
    count = np.zeros(xt.shape[1])
    for k in range(xt.shape[0]):
        v = xt[k]
        if dense:
            count += 1
            cnt = count
        else:
            pk = pt[k]
            count += pk
            cnt = np.where(pk, count, 1.0)
        inc = v / cnt - mean / cnt
        t = mean + inc
        nc = c + np.where(np.abs(mean) >= np.abs(inc), (mean - t) + inc, (inc - t) + mean)
        if dense and not special:
            mean, c = t, nc
            continue
        skip = np.zeros(len(v), dtype=bool) if dense else ~pt[k]
        if special:
            minf = np.isinf(mean)
            vinf = np.isinf(v)
            skip |= minf & ((vinf & ((mean > 0) == (v > 0))) | (~vinf & ~np.isnan(v)))
        mean = np.where(skip, mean, t)
        c = np.where(skip, c, nc)
    res = np.where(np.isinf(mean), mean, mean + c).reshape(shape)
    return res, p.any(-1)


def _welford(x, p):
    shape = x.shape[:-1]
    count = np.zeros(shape)
    mean, cm, aux, ca = (np.zeros(shape) for _ in range(4))
    for k in range(x.shape[-1]):
        pk = p[..., k]
        v = x[..., k]
        count = count + pk
        cnt = np.where(pk, count, 1.0)
        delta = v - (mean + cm)
        nm, ncm = kahan_inc(delta / cnt, mean, cm)
        na, nca = kahan_inc(delta * (v - (nm + ncm)), aux, ca)
        mean, cm = np.where(pk, nm, mean), np.where(pk, ncm, cm)
        aux, ca = np.where(pk, na, aux), np.where(pk, nca, ca)
    return (aux + ca) / np.maximum(count, 1), count > 0


def f_stdvar_over_time(x, p, tms, win):
    return _welford(x, p)


def f_stddev_over_time(x, p, tms, win):
    v, ok = _welford(x, p)
    return np.sqrt(v), ok


def f_min_over_time(x, p, tms, win):
    return _fred(np.fmin, x, p)


def f_max_over_time(x, p, tms, win):
    return _fred(np.fmax, x, p)


def _fred(uf, x, p):
    ok = p.any(-1)
    if x.shape[-1] == 0:
        return np.zeros(ok.shape), ok
    return uf.reduce(np.where(p, x, np.nan), axis=-1), ok


def f_count_over_time(x, p, tms, win):
    c = p.sum(-1)
    return c.astype(np.float64), c > 0


def f_last_over_time(x, p, tms, win):
    ok = p.any(-1)
    if x.shape[-1] == 0:
        return np.zeros(ok.shape), ok
    _, last = first_last(p)
    return take(x, last), ok


def f_present_over_time(x, p, tms, win):
    ok = p.any(-1)
    return np.ones(ok.shape), ok


def f_quantile_over_time(x, p, tms, win):
    ok = p.any(-1)
    return quantile_sorted(x, p, win.args[0][None, :]), ok


def quantile_sorted(x: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Prometheus ``quantile`` over the present values along the last axis (NaNs sort first)."""
    n = p.sum(-1)
    isn = p & np.isnan(x)
    key = np.where(p, np.where(isn, -np.inf, x), np.inf)
    s = np.sort(key, axis=-1)
    nn = isn.sum(-1)
    if nn.any():
        s = np.where(np.arange(s.shape[-1]) < nn[..., None], np.nan, s)
    nf = n.astype(np.float64)
    rank = q * (nf - 1)
    fl = np.floor(rank)
    lower = np.maximum(0, fl)
    upper = np.minimum(nf - 1, lower + 1)
    weight = rank - fl
    li = np.clip(np.nan_to_num(lower), 0, max(s.shape[-1] - 1, 0)).astype(np.intp)
    ui = np.clip(np.nan_to_num(upper), 0, max(s.shape[-1] - 1, 0)).astype(np.intp)
    if s.shape[-1] == 0:
        return np.full(n.shape, np.nan)
    res = take(s, li) * (1 - weight) + take(s, ui) * weight
    res = np.where(q < 0, -np.inf, np.where(q > 1, np.inf, res))
    res = np.where(np.isnan(q) | (n == 0), np.nan, res)
    return res


RANGE_FUNCS = {
    "rate": f_rate,
    "increase": f_increase,
    "delta": f_delta,
    "irate": f_irate,
    "idelta": f_idelta,
    "resets": f_resets,
    "changes": f_changes,
    "deriv": f_deriv,
    "predict_linear": f_predict_linear,
    "sum_over_time": f_sum_over_time,
    "avg_over_time": f_avg_over_time,
    "min_over_time": f_min_over_time,
    "max_over_time": f_max_over_time,
    "count_over_time": f_count_over_time,
    "last_over_time": f_last_over_time,
    "present_over_time": f_present_over_time,
    "stddev_over_time": f_stddev_over_time,
    "stdvar_over_time": f_stdvar_over_time,
    "quantile_over_time": f_quantile_over_time,
}
