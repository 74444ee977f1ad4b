"""Elementary functions from IEEE arithmetic alone: the same bits on every machine.

numpy computes ``exp``, ``log``, ``log1p`` and ``**`` with whatever the CPU offers: its own
AVX-512 kernels where the CPU has AVX-512, the C library's elsewhere. The two differ in the last
bit for a few percent of arguments (measured here: ``np.exp`` on 46,164 of a million normal draws
against the C library's), so a world that used them would give other telemetry, alerts and, rarely,
scores on another machine. These functions use only ``+ - * /``, comparisons and exact scaling by
powers of two, which every IEEE 754 machine rounds alike: the classic fdlibm algorithms (within one
unit in the last place of the exact result), vectorised. (``np.sin``, for the diurnal load, is
left as numpy's: its float64 loop gave the same bits with the CPU-specific kernels on and off.)
"""

from __future__ import annotations

import numpy as np

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.44269504088896338700e00
_EXP_OVER = 7.09782712893383973096e02
_EXP_UNDER = -7.45133219101941108420e02
_P = (
    1.66666666666666657415e-01,
    -2.77777777770155933842e-03,
    6.61375632143793436117e-05,
    -1.65339022054652515390e-06,
    4.13813679705723846039e-08,
)
_L = (
    6.666666666666735130e-01,
    3.999999999940941908e-01,
    2.857142874366239149e-01,
    2.222219843214978396e-01,
    1.818357216161805012e-01,
    1.531383769920937332e-01,
    1.479819860511658591e-01,
)
_SQRT2_2 = 0.70710678118654752440084436210484903928483593768847


def exp(v) -> np.ndarray:
    """``e ** v`` (fdlibm ``e_exp.c``: reduce by ``k ln 2`` with ``k`` the nearest whole number to
    ``v / ln 2``, a rational approximation on the rest, scale by ``2 ** k``)."""
    x = np.clip(np.asarray(v, dtype=np.float64), _EXP_UNDER - 1.0, _EXP_OVER + 1.0)
    k = np.rint(x * _LOG2E)
    hi = x - k * _LN2_HI
    lo = k * _LN2_LO
    r = hi - lo
    t = r * r
    p1, p2, p3, p4, p5 = _P
    c = r - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
    y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    # 0 below the range, inf above it; NaN stays NaN (y is NaN whatever k becomes)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return np.ldexp(y, k.astype(np.int64))


def log(v) -> np.ndarray:
    """The natural logarithm (fdlibm ``e_log.c``: ``x = 2 ** k (1 + f)``, a polynomial in
    ``s = f / (2 + f)``); ``log(0) = -inf``, NaN below 0."""
    x = np.asarray(v, dtype=np.float64)
    # 0, negatives, inf and NaN are answered by definition, below
    odd = not (x.min(initial=1.0) > 0.0 and x.max(initial=1.0) < np.inf)
    if odd:
        special = ~(x > 0.0) | (x == np.inf)
    f1, ki = np.frexp(np.where(special, 1.0, x) if odd else x)
    small = f1 < _SQRT2_2
    f = np.where(small, f1 + f1, f1) - 1.0
    k = ki - small  # (whole numbers: exact as floats below)
    s = f / (2.0 + f)
    s2 = s * s
    s4 = s2 * s2
    l1, l2, l3, l4, l5, l6, l7 = _L
    r = s2 * (l1 + s4 * (l3 + s4 * (l5 + s4 * l7))) + s4 * (l2 + s4 * (l4 + s4 * l6))
    hfsq = 0.5 * f * f
    out = k * _LN2_HI - ((hfsq - (s * (hfsq + r) + k * _LN2_LO)) - f)
    if odd:
        out = np.where(special, np.where(x == 0.0, -np.inf, np.where(x > 0.0, x, np.nan)), out)
    return out


def log1p(v) -> np.ndarray:
    """``log(1 + v)``, accurate for small ``v``: ``log(u) * v / (u - 1)`` with ``u = 1 + v``
    rounded (the rounding error of ``u`` cancels), ``v`` itself where ``u`` rounds to 1."""
    x = np.asarray(v, dtype=np.float64)
    u = 1.0 + x
    d = u - 1.0
    one = d == 0.0
    lu = log(u)
    with np.errstate(invalid="ignore"):  # (inf / inf where v is inf: replaced below)
        out = np.where(one, x, lu * (x / np.where(one, 1.0, d)))
    if not np.abs(x).max(initial=0.0) < np.inf:  # inf or NaN in: log(u) is the answer there
        out = np.where(np.isfinite(x), out, lu)
    return out


def ipow(base, n) -> np.ndarray:
    """``base ** n`` for whole ``n >= 0`` (broadcast): ``n`` multiplications in turn."""
    b = np.asarray(base, dtype=np.float64)
    k = np.asarray(n)
    out = np.ones(np.broadcast_shapes(b.shape, k.shape))
    for j in range(int(k.max(initial=0))):
        out = np.where(j < k, out * b, out)
    return out
