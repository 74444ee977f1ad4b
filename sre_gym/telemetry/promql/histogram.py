"""``histogram_quantile`` over classic ``le`` buckets (Prometheus 2.42 ``bucketQuantile``).

Bucket layout (which rows form one histogram, in which order) is label-only work, done once per
label tuple. The quantile is then computed for all histograms and times at once on a padded
``[histogram, bucket, time]`` array, emulating 2.42 exactly: buckets absent at a time are left out,
equal upper bounds are merged, counts are forced monotonic, a missing ``+Inf`` bucket or fewer than
two buckets give NaN, and ``q`` outside [0, 1] gives -Inf/+Inf.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .grouping import Dedup
from .types import NAME, Labels, LabelSet, Vec

_DEC = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+")


def go_parse_float(s: str) -> float | None:
    """``strconv.ParseFloat(s, 64)`` for the forms that matter (no whitespace or underscores)."""
    low = s.lower()
    if low in ("inf", "+inf", "infinity", "+infinity"):
        return math.inf
    if low in ("-inf", "-infinity"):
        return -math.inf
    if low in ("nan", "+nan", "-nan"):
        return math.nan if low == "nan" else None
    if _DEC.fullmatch(s):
        return float(s)
    if _HEX.fullmatch(s):
        sign = -1.0 if s.startswith("-") else 1.0
        return sign * float.fromhex(s.lstrip("+-"))
    return None


class Layout:
    """Histograms of an input label tuple: slot of each usable row and upper bounds per slot."""

    def __init__(self, labels: Labels) -> None:
        groups: dict[LabelSet, list[tuple[float, int]]] = {}
        out_labels: dict[LabelSet, LabelSet] = {}
        for i, ls in enumerate(labels):
            d = dict(ls)
            if "le" not in d:
                continue
            ub = go_parse_float(d["le"])
            if ub is None:
                continue
            sig = tuple(p for p in ls if p[0] != "le")
            if sig not in groups:
                groups[sig] = []
                out_labels[sig] = tuple(p for p in sig if p[0] != NAME)
            groups[sig].append((ub, i))
        self.sigs = list(groups)
        g = len(self.sigs)
        ubs_per: list[list[float]] = []
        rows: list[int] = []
        slots: list[int] = []
        bmax = 1
        for sig in self.sigs:
            members = sorted(groups[sig], key=lambda x: (math.isnan(x[0]), x[0]))
            uniq: list[float] = []
            for ub, i in members:
                if not uniq or not (ub == uniq[-1] or (math.isnan(ub) and math.isnan(uniq[-1]))):
                    uniq.append(ub)
                rows.append(i)
                slots.append(len(uniq) - 1)
            ubs_per.append(uniq)
            bmax = max(bmax, len(uniq))
        self.n_groups = g
        self.bmax = bmax
        self.ub = np.full((g, bmax), np.nan)
        for gi, u in enumerate(ubs_per):
            self.ub[gi, : len(u)] = u
        self.rows = np.asarray(rows, dtype=np.intp)
        grp = (
            np.repeat(np.arange(g), [len(groups[s]) for s in self.sigs])
            if g
            else np.zeros(0, np.intp)
        )
        self.flat = grp * bmax + np.asarray(slots, dtype=np.intp)
        self.dupes = len(set(self.flat.tolist())) != len(self.flat)
        self.out = Dedup(tuple(out_labels[s] for s in self.sigs))


def histogram_quantile(layout: Layout, q: np.ndarray, v: Vec) -> Vec:
    g, b = layout.n_groups, layout.bmax
    t = v.values.shape[1]
    if g == 0:
        return Vec((), np.zeros((0, t)), np.zeros((0, t), dtype=bool))
    vals = v.values[layout.rows]
    pres = v.present[layout.rows]
    a = np.full((g * b, t), np.nan)
    p = np.zeros((g * b, t), dtype=bool)
    if layout.dupes:
        acc = np.zeros((g * b, t))
        np.add.at(acc, layout.flat, np.where(pres, vals, 0.0))
        np.logical_or.at(p, layout.flat, pres)
        a = np.where(p, acc, np.nan)
    else:
        a[layout.flat] = np.where(pres, vals, np.nan)
        p[layout.flat] = pres
    a = a.reshape(g, b, t)
    p = p.reshape(g, b, t)
    # Monotonicity fix over present buckets (NaN counts are left alone, as in Go).
    run = np.fmax.accumulate(np.where(p, a, np.nan), axis=1)
    before = np.empty_like(run)
    before[:, 0] = np.nan
    before[:, 1:] = run[:, :-1]
    before = np.where(np.isnan(before), -np.inf, before)
    a = np.where(p & (a < before), before, a)
    npres = p.sum(1)
    any_p = npres > 0
    bidx = np.arange(b)[None, :, None]
    lastp = b - 1 - p[:, ::-1, :].argmax(1)  # [g, t]
    gi = np.arange(g)[:, None]
    ti = np.arange(t)[None, :]
    ub2 = layout.ub
    ub_last = ub2[gi, lastp]
    obs = a[gi, lastp, ti]
    rank = q[None, :] * obs
    pos = np.where(p, bidx, -1)
    lastpos = np.maximum.accumulate(pos, axis=1)
    prevp = np.empty_like(lastpos)
    prevp[:, 0] = -1
    prevp[:, 1:] = lastpos[:, :-1]
    cond = p & (bidx != lastp[:, None, :]) & (a >= rank[:, None, :])
    found = cond.any(1)
    bsel = cond.argmax(1)
    # Not found: the upper bound of the second-highest present bucket.
    pl = prevp[gi, lastp, ti]
    res_nf = np.where(pl >= 0, ub2[gi, np.maximum(pl, 0)], np.nan)
    pb = prevp[gi, bsel, ti]
    has_prev = pb >= 0
    pbc = np.maximum(pb, 0)
    start = np.where(has_prev, ub2[gi, pbc], 0.0)
    cprev = np.where(has_prev, a[gi, pbc, ti], 0.0)
    end = ub2[gi, bsel]
    cnt = a[gi, bsel, ti] - cprev
    r = rank - cprev
    res_f = np.where(~has_prev & (end <= 0), end, start + (end - start) * (r / cnt))
    res = np.where(found, res_f, res_nf)
    res = np.where((npres < 2) | (obs == 0), np.nan, res)
    res = np.where(ub_last == np.inf, res, np.nan)
    qq = q[None, :]
    res = np.where(qq < 0, -np.inf, np.where(qq > 1, np.inf, res))
    res = np.where(np.isnan(qq), np.nan, res)
    return layout.out.apply(res, any_p)
