"""Go ``math`` functions whose results differ from C's in the last bits or in special cases.

Prometheus is written in Go, so ``x ^ y``, ``log2``/``log10`` and ``clamp`` follow Go's algorithms
here (vectorised) to stay bit-identical with it where that is cheap.
"""

from __future__ import annotations

import numpy as np

from sre_gym import fmath

# Go evaluates these constant expressions exactly and rounds once; so do these literals.
_INV_LN2 = 1.442695040888963407359924681001892137  # 1/Ln2
_INV_LN10 = 0.434294481903251827651128918916605082294397005803666566114  # 1/Ln10


def go_max(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``math.Max``: NaN wins and ``Max(+0, -0) == +0``."""
    return np.where((a == 0) & (b == 0), a + b, np.maximum(a, b))


def go_min(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``math.Min``: NaN wins and ``Min(+0, -0) == -0``."""
    return np.where((a == 0) & (b == 0), -((-a) + (-b)), np.minimum(a, b))


# Go's math.Log is fdlibm's e_log.c algorithm, as sre_gym.fmath.log; its Exp (in math.Pow too)
# fdlibm's e_exp.c, as fmath.exp
go_log = fmath.log


def go_log2(v: np.ndarray) -> np.ndarray:
    """``math.Log2``: ``Log(frac) * (1/Ln2) + exp``, exact for powers of two."""
    v = np.asarray(v, dtype=np.float64)
    frac, exp = np.frexp(v)
    out = go_log(frac) * _INV_LN2 + exp
    out = np.where(frac == 0.5, exp - 1.0, out)
    return np.where(np.isfinite(v) & (v > 0), out, np.log2(v))


def go_log10(v: np.ndarray) -> np.ndarray:
    """``math.Log10``: ``Log(x) * (1/Ln10)``."""
    return go_log(v) * _INV_LN10


def _is_odd_int(y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        yi = np.trunc(y)
        return (yi == y) & (np.abs(y) < 2.0**53) & (np.fmod(yi, 2) != 0)


def go_pow(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``math.Pow``: special cases, ``y = ±0.5`` via Sqrt, integer part by repeated squaring."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    out = np.full(x.shape, np.nan)
    done = np.zeros(x.shape, dtype=bool)

    def put(mask: np.ndarray, val) -> None:
        nonlocal done
        m = mask & ~done
        out[m] = val[m] if isinstance(val, np.ndarray) else val
        done |= m

    with np.errstate(all="ignore"):
        put((y == 0) | (x == 1), 1.0)
        put(y == 1, x)
        put(np.isnan(x) | np.isnan(y), np.nan)
        zero = x == 0
        neg_zero_odd = np.signbit(x) & _is_odd_int(y)
        put(zero & (y < 0) & neg_zero_odd, -np.inf)
        put(zero & (y < 0), np.inf)
        put(zero & (y > 0) & neg_zero_odd, x)
        put(zero & (y > 0), 0.0)
        yinf = np.isinf(y)
        put(yinf & (x == -1), 1.0)
        put(yinf & ((np.abs(x) < 1) == (y > 0)), 0.0)
        put(yinf, np.inf)
        xinf = np.isinf(x)
        # Pow(-Inf, y) = Pow(-0, -y)
        put(xinf & (x < 0) & (y < 0) & _is_odd_int(y), -0.0)
        put(xinf & (x < 0) & (y < 0), 0.0)
        put(xinf & (x < 0) & (y > 0) & _is_odd_int(y), -np.inf)
        put(xinf & (x < 0) & (y > 0), np.inf)
        put(xinf & (y < 0), 0.0)
        put(xinf & (y > 0), np.inf)
        put(y == 0.5, np.sqrt(x))
        put(y == -0.5, 1 / np.sqrt(x))
        ay = np.abs(y)
        yi = np.trunc(ay)
        yf = ay - yi
        put((yf != 0) & (x < 0), np.nan)
        big = yi >= 2.0**63
        put(big & (x == -1), 1.0)
        put(big & ((np.abs(x) < 1) == (y > 0)), 0.0)
        put(big, np.inf)
        rest = ~done
        if rest.any():
            xr, yr, yir, yfr = x[rest], y[rest], yi[rest], yf[rest]
            up = yfr > 0.5
            yfr = np.where(up, yfr - 1, yfr)
            yir = np.where(up, yir + 1, yir)
            a1 = np.where(yfr != 0, fmath.exp(yfr * go_log(xr)), 1.0)
            ae = np.zeros(xr.shape, dtype=np.int64)
            x1, xe = np.frexp(xr)
            xe = xe.astype(np.int64)
            i = yir.astype(np.int64)
            active = i != 0
            while active.any():
                over = active & ((xe < -(1 << 12)) | (xe > (1 << 12)))
                ae = np.where(over, ae + xe, ae)
                active &= ~over
                odd = active & ((i & 1) == 1)
                a1 = np.where(odd, a1 * x1, a1)
                ae = np.where(odd, ae + xe, ae)
                x1 = np.where(active, x1 * x1, x1)
                xe = np.where(active, xe << 1, xe)
                small = active & (x1 < 0.5)
                x1 = np.where(small, x1 + x1, x1)
                xe = np.where(small, xe - 1, xe)
                i = np.where(active, i >> 1, 0)
                active &= i != 0
            neg = yr < 0
            a1 = np.where(neg, 1 / a1, a1)
            ae = np.where(neg, -ae, ae)
            out[rest] = np.ldexp(a1, np.clip(ae, -(1 << 30), 1 << 30).astype(np.int32))
    return out
