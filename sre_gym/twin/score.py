"""Both scores of every episode as of a cut: the paper's Marathon-Score and ``net_score``.

Ports ``scoring/scorer.py:_stages`` and ``scoring/net.py:net`` onto the twin's records: per
(fault, incident) pair, *correlated* (the incident holds an alert attributable to the fault),
*localized* (its root cause is the fault's culprit and its artifact one of the fault's, set before
the fault's revert), *repaired* (an intervention citing it acts on the fault, and a held
persistence challenge found the probe healthy for the hold, before the revert, with the artifact
not back); faults and incidents matched one to one for the most credit
(``scoring/matching.py:max_weight_matching``, the scorer's own), once for each score. net_score
weighs correlation by grouping agreement and charges false alarms, unneeded and out-of-scope
interventions and degradation beyond the no-action run (``scoring/config.py`` weights).

Differs from the full simulator: nothing in the rules; the attributable counts are kept as alerts
are held and seen (``incidents.py``) rather than recounted from the evidence log, and a row whose
credit matrix has no conflicts (each fault and incident in at most one credited pair) is matched
without the assignment algorithm (the same pairs).
"""

from __future__ import annotations

import math

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.scoring.matching import max_weight_matching
from sre_gym.sim.cluster import WARMUP_S
from sre_gym.twin import incidents
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables


def culprits(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, F] each fault's culprit entity when it has exactly one (-2: none or several)."""
    ft = tables(prm.layout).faults
    cat = s.faults.cat
    cul = ft.culprits[np.maximum(cat, 0)]
    one = cul.sum(axis=2) == 1
    return np.where(one & (cat >= 0), cul.argmax(axis=2), -2)


def localized(s: TwinState, culprit: np.ndarray, e, fa, ib) -> np.ndarray:
    """Incident ``ib`` of episode ``e`` is localized to fault ``fa`` (broadcast index arrays): its
    root cause is the fault's culprit (``culprit``: ``culprits``) and its artifact one of the
    fault's, set before the fault's end (``scorer._stages``)."""
    ag, fs = s.agent, s.faults
    art = ag.i_art[e, ib]
    lo = (ag.i_culprit[e, ib] == culprit[e, fa]) & (ag.i_located[e, ib] < fs.end[e, fa])
    return lo & (fs.alias[e, fa] == art[..., None]).any(axis=-1) & (art != 0)


def _pairs(credit: np.ndarray) -> list[tuple[int, int]]:
    pos = credit > 0
    if (pos.sum(axis=0) <= 1).all() and (pos.sum(axis=1) <= 1).all():
        return [(int(a), int(b)) for a, b in zip(*np.nonzero(pos), strict=True)]
    return max_weight_matching(np.round(credit * 1e6))


def repaired(prm: TwinParams, s: TwinState, e: int, a: int, b: int, cut: float) -> bool:
    """``scorer._Repairs.time`` is not None for fault ``a`` and the interventions citing incident
    ``b`` of episode ``e``."""
    fs, ag = s.faults, s.agent
    cfg = prm.scoring
    hold = int(math.ceil(cfg.repair_hold_s / TICK_S))
    start, end = fs.start[e, a], fs.end[e, a]
    end_k = int(math.ceil((end - EPOCH) / TICK_S))
    start_k = int(math.ceil((start - EPOCH) / TICK_S))
    cut_tick = int(math.floor((cut - EPOCH) / TICK_S))
    nx = int(ag.n_x[e])
    xs = [
        i
        for i in np.nonzero(ag.x_inc[e, :nx] == b)[0].tolist()
        if start <= ag.x_t[e, i] < end and ag.x_t[e, i] < cut
    ]
    if not xs:
        return False
    fits = incidents.acts_on(prm, s, np.full(len(xs), e), ag.x_target[e, xs], ag.x_obj[e, xs])[:, a]
    ft = tables(prm.layout).faults
    infra = bool(ft.infra[fs.cat[e, a]])
    for i, ok_fit in sorted(zip(xs, fits, strict=True), key=lambda z: ag.x_t[e, z[0]]):
        if not ok_fit:
            continue
        xt = ag.x_t[e, i]
        k = int(math.floor((xt - EPOCH) / TICK_S)) + 1
        for c in range(int(fs.ch_n[e, a])):
            if fs.ch_t[e, a, c] > cut or fs.ch_held[e, a, c] != 1 or fs.ch_rec[e, a, c] <= xt:
                continue
            r = int(round((fs.ch_rec[e, a, c] - EPOCH) / TICK_S))
            if r < k or r + hold >= end_k or r + hold > cut_tick:
                continue
            ok = bool((fs.probe[e, a, r : r + hold + 1] == 1).all())
            if fs.ch_route[e, a, c]:
                ok = ok and bool((fs.artifact[e, a, r : r + hold + 1] == 0).all())
                ok = ok and bool((fs.probe[e, a, start_k:k] == 1).all())
            undone = not infra and fs.artifact[e, a, min(end_k - 1, cut_tick)] == 1
            if ok and not undone:
                return True
    return False


def scores(prm: TwinParams, s: TwinState, cut: np.ndarray, degradation=None) -> np.ndarray:
    """[E, 2]: (marathon_score, net_score) of each episode as of ``cut`` [E] (s)."""
    cfg = prm.scoring
    fs, ag = s.faults, s.agent
    E = s.E
    out = np.zeros((E, 2))
    incidents.see(prm, s, cut - cfg.invocation_s)
    ni_max = int(ag.n_inc.max(initial=0))
    wc, wl, wr = cfg.w_correlation, cfg.w_localization, cfg.w_repair
    n_sched = fs.n.astype(float)
    unit = np.where(n_sched > 0, 100.0 / np.maximum(n_sched, 1), 100.0)
    culprit = culprits(prm, s)
    matched = np.zeros(E)
    if ni_max:
        K = ag.k_held[:, :, :ni_max]
        live = (fs.injected & (fs.start <= cut[:, None]))[:, :, None]
        C = (K > 0) & live & (np.arange(ni_max)[None, None, :] < ag.n_inc[:, None, None])
    else:
        C = np.zeros((E, fs.cat.shape[1], 0), dtype=bool)
    for e in np.nonzero(C.any(axis=(1, 2)))[0].tolist():
        fa, ib = np.nonzero(C[e])
        lo = localized(s, culprit, e, fa, ib)
        rep = np.array(
            [
                bool(lo[j]) and repaired(prm, s, e, int(fa[j]), int(ib[j]), cut[e])
                for j in range(len(fa))
            ]
        )
        ufa, fa_i = np.unique(fa, return_inverse=True)
        uib, ib_i = np.unique(ib, return_inverse=True)
        credit = np.zeros((len(ufa), len(uib)))
        credit[fa_i, ib_i] = wc + wl * lo + wr * (lo & rep)
        total = sum(credit[a, b] for a, b in _pairs(credit))
        out[e, 0] = 100.0 * total / n_sched[e] if n_sched[e] else 0.0
        q = 2.0 * K[e, fa, ib] / (ag.n_held[e, ib] + ag.n_seen[e, fa])
        cn = np.zeros((len(ufa), len(uib)))
        cn[fa_i, ib_i] = wc * q + wl * lo + wr * (lo & rep)
        pairs = _pairs(cn)
        gain = sum(cn[a, b] for a, b in pairs)
        out[e, 1] = gain
        matched[e] = len({b for _, b in pairs})
    false_alarms = ag.n_inc - matched
    units = out[:, 1] - cfg.w_false_alarm * false_alarms
    units = units - cfg.w_unwarranted * ag.unneeded - cfg.w_out_of_scope * ag.out_of_scope
    deg = np.zeros(E) if degradation is None else np.where(ag.n_x > 0, degradation, 0.0)
    out[:, 1] = np.maximum(cfg.net_floor, unit * units - deg)
    ag.score[:] = out
    return out


def degraded(s: TwinState, cut: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Degraded requests and requests at the entry point of ``rows`` over the scored episode as
    of ``cut`` [E] (``scorer._degradation``: rps * min(1, failed + slow) * tick_s per tick).
    Rows with the same cut are summed together over the same span, as the scorer sums one
    episode's (the same pairwise sums, so the same bits)."""
    k0 = WARMUP_S // TICK_S
    k1 = np.floor((cut - EPOCH) / TICK_S).astype(np.int64) + 1
    deg, req = np.zeros(len(rows)), np.zeros(len(rows))
    for end in np.unique(k1[rows]).tolist():
        j = np.nonzero(k1[rows] == end)[0]
        seg = s.tel.entry[rows[j], k0 : min(end, s.tel.entry.shape[1])]  # [G, K, 3]
        deg[j] = (seg[:, :, 0] * np.minimum(1.0, seg[:, :, 1] + seg[:, :, 2])).sum(axis=1) * TICK_S
        req[j] = seg[:, :, 0].sum(axis=1) * TICK_S
    return deg, req


def degradation_cost(prm: TwinParams, s: TwinState, base: TwinState, cut: np.ndarray):
    """[E] net_score's degradation cost in points (``net._degradation_cost``): the requests
    degraded beyond the no-action run ``base`` (the same seeds, no actions), per percentage
    point of the run's requests. Charged only once a row has intervened (``scores``)."""
    out = np.zeros(s.E)
    rows = np.nonzero(s.agent.n_x > 0)[0]  # (the cost of a row that has not acted is 0)
    if not len(rows):
        return out
    deg, req = degraded(s, cut, rows)
    base_deg, _ = degraded(base, cut, rows)
    excess = np.maximum(0.0, deg - base_deg)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[rows] = np.where(req > 0, prm.scoring.w_degradation * 100.0 * excess / req, 0.0)
    return out
