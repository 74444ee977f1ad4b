"""The deployment controller, scheduler and revision history, over slots.

Ports ``sim/controller.py`` (``reconcile``: rolling updates with maxSurge 25 % rounded up and
maxUnavailable 25 % rounded down; ``pick_node``: zone spread, then node spread, then the emptiest
node), ``SimCluster.create_pod`` / ``delete_pod_row`` (image pulls per node, selector chaos on new
pods) and the revision operations of ``sim/interventions.py`` (``_new_revision`` with its reuse of
an equal earlier template, ``rollback``, ``scale``). Every function works on ``(rows, d)`` pairs,
one deployment per row, vectorised over the rows.

A change's controller pass (a new revision, a scale) is requested and run right after the wave of
events or calls that made it, batched over the episodes (``request``/``reconcile_pending``),
which is the order of the full simulator's immediate passes.

Differs from the full simulator: a revision history keeps the last ``R`` revisions (the full
simulator keeps them all); a pod that finds no free slot in its deployment's block is not created
this tick (counted in ``Episode.overflow``; the deployment stays dirty and retries); a slot is
reused only after its last pod's series have left every rule window (``GUARD_TICKS``).
"""

from __future__ import annotations

import numpy as np

from sre_gym.sim.pods import CREATE_S, PENDING, SCHEDULE_S, SHUTDOWN_S, TERMINATING
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import FIRST_BUILD, tables

# a new pod takes a slot only more than this many ticks after the slot's last pod had series: the
# longest range a rule reads a pod's series over is 5 minutes (20 ticks), so the old pod's samples
# never share a window with the new pod's
GUARD_TICKS = 20
# template fields (a revision is one of these plus its number and creation time)
TPL = ("rv_img", "rv_defect", "rv_img_ok", "rv_env", "rv_cpu", "rv_mem", "rv_port", "rv_restart")


def current(s: TwinState, rows: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Position of the current revision of each (row, deployment) in its history."""
    return s.deps.n_rev[rows, d] - 1


def template(s: TwinState, rows: np.ndarray, d: np.ndarray, pos: np.ndarray | None = None):
    """The template at history position ``pos`` (default: the current one), field by field."""
    dp = s.deps
    pos = current(s, rows, d) if pos is None else pos
    return {f: getattr(dp, f)[rows, d, pos].copy() for f in TPL}


# ------------------------------------------------------------------ pods
def delete_pods(prm: TwinParams, s: TwinState, rows, d, mask: np.ndarray, t) -> None:
    """Terminate the pods of ``mask`` [P, C] in block ``d`` of each row (``delete_pod_row``)."""
    p = s.pods
    live = p.alive[rows, d] & (p.state[rows, d] != TERMINATING)
    kill = mask & live
    if not kill.any():
        return
    r, c = np.nonzero(kill)
    rr, dd = rows[r], d[r]
    p.state[rr, dd, c] = TERMINATING
    p.ready[rr, dd, c] = False
    grace = float(prm.layout.topo.app.termination_grace_s)
    p.deleted_at[rr, dd, c] = np.asarray(t)[r] + min(SHUTDOWN_S, grace)
    s.deps.dirty[rows[kill.any(axis=1)], d[kill.any(axis=1)]] = True


def pick_node(prm: TwinParams, s: TwinState, rows: np.ndarray, d: np.ndarray) -> np.ndarray:
    """A ready node per (row, deployment): the zone with fewest of its pods, then a node without
    one, then the emptiest, then the first; -1 if no node is ready (``controller.pick_node``)."""
    lay = prm.layout
    p = s.pods
    node = p.node[rows]
    live = p.alive[rows] & (p.state[rows] != TERMINATING) & (node >= 0)
    r, dd, c = np.nonzero(live)
    at = r * lay.K + node[r, dd, c]
    P = len(rows)
    counts = np.bincount(at, minlength=P * lay.K).reshape(P, lay.K)  # pods per node
    own = dd == d[r]
    mine = np.bincount(at[own], minlength=P * lay.K).reshape(P, lay.K)  # the deployment's
    zone_of = (lay.node_zone[:, None] == np.arange(lay.Z)).astype(np.int64)  # [K, Z]
    zone_mine = (mine[:, :, None] * zone_of[None]).sum(axis=1)  # [P, Z]
    key = (zone_mine[:, lay.node_zone] * 1024 + (mine > 0)) * 1024 * 1024
    key = key + counts * 1024 + np.arange(lay.K)
    key = np.where(s.world.node_ready[rows], key, np.iinfo(np.int64).max)
    best = key.argmin(axis=1)
    return np.where(s.world.node_ready[rows].any(axis=1), best, -1)


def create_pods(prm: TwinParams, s: TwinState, rows, d, t) -> np.ndarray:
    """One new pod of the current revision per (row, deployment) at ``t`` (``create_pod``);
    returns its slot in the block, -1 where the block had no free slot."""
    lay = prm.layout
    tab = tables(lay)
    p, dp, ep = s.pods, s.deps, s.ep
    t = np.asarray(t, dtype=float)
    free = ~p.alive[rows, d]
    has = free.any(axis=1)
    ep.overflow[rows[~has]] += 1
    rows, d, t, free = rows[has], d[has], t[has], free[has]
    if not len(rows):
        return np.where(has, 0, -1)
    c = free.argmax(axis=1)
    p.srow[rows, d, c] = series_row(s, rows, d)
    node = pick_node(prm, s, rows, d)
    pos = current(s, rows, d)
    img = dp.rv_img[rows, d, pos]
    ok = dp.rv_img_ok[rows, d, pos]
    have = np.zeros(len(rows), dtype=bool)
    on = node >= 0
    built = img >= FIRST_BUILD
    static = np.where(
        img == 0, tab.image_static[d], tab.tag_static[np.minimum(img, len(tab.tag_static) - 1)]
    )
    w = s.world
    if on.any():
        seen = w.node_images[rows[on], node[on], d[on]]
        have[on] = np.where(
            built[on],
            (seen == img[on, None]).any(axis=1),
            w.node_static[rows[on], node[on], static[on]],
        )
    need = on & ~have
    cfg = lay.topo.app.pull
    pull = np.where(need, cfg.overhead_s + lay.dep_image_mb[d] / cfg.mb_s, 0.0)
    add = need & ok
    sa = add & ~built
    w.node_static[rows[sa], node[sa], static[sa]] = True
    ba = add & built
    if ba.any():
        ring = w.node_images[rows[ba], node[ba], d[ba]]
        w.node_images[rows[ba], node[ba], d[ba]] = np.concatenate(
            [ring[:, 1:], img[ba, None]], axis=1
        )
    ep.seq[rows] += 1
    zero_f = (
        "mem",
        "cpu_total",
        "periods",
        "throttled",
        "backoff_until",
        "last_term_at",
        "noise_amt",
    )
    for f in zero_f:
        getattr(p, f)[rows, d, c] = 0.0
    for f in ("restarts", "crashes", "last_term", "pulls", "noise_field"):
        getattr(p, f)[rows, d, c] = 0
    p.alive[rows, d, c] = True
    p.ready[rows, d, c] = False
    p.state[rows, d, c] = PENDING
    p.rev[rows, d, c] = dp.rv_num[rows, d, pos]
    p.seq[rows, d, c] = ep.seq[rows]
    p.inc[rows, d, c] += 1
    p.node[rows, d, c] = node
    p.created[rows, d, c] = t
    p.pulled_s[rows, d, c] = pull
    p.start_at[rows, d, c] = t + SCHEDULE_S + pull + CREATE_S
    p.started[rows, d, c] = np.nan
    p.deleted_at[rows, d, c] = np.nan
    p.noise_ev[rows, d, c] = -1
    for j, f in enumerate((p.hog, p.delay, p.balloon)):
        f[rows, d, c] = np.where(dp.sel_on[rows, d, j], dp.sel_amt[rows, d, j], 0.0)
    behaviour(prm, s, rows, d, c, pos)
    out = np.full(len(has), -1)
    out[has] = c
    return out


def series_row(s: TwinState, rows, d) -> np.ndarray:
    """A series row for a new pod: the lowest whose last samples have left every rule window,
    else the least recently used one not held by a pod (counted in ``Telemetry.sr_overflow``)."""
    tel, p = s.tel, s.pods
    tick = s.ep.tick[rows]
    last = tel.sr_last[rows, d]  # [P, SR]
    held = np.zeros(last.shape, dtype=bool)
    alive = p.alive[rows, d]
    r, c = np.nonzero(alive)
    held[r, p.srow[rows[r], d[r], c]] = True
    quiet = ~held & (tick[:, None] - last > GUARD_TICKS)
    ok = quiet.any(axis=1)
    lru = np.where(held, np.iinfo(np.int64).max, last).argmin(axis=1)
    row = np.where(ok, quiet.argmax(axis=1), lru)
    tel.sr_overflow[rows[~ok]] += 1
    tel.sr_last[rows, d, row] = tick  # held from now on (its first samples come this tick)
    return row


def behaviour(prm: TwinParams, s: TwinState, rows, d, c, pos) -> None:
    """Copy the revision's compiled behaviour into the slots (``compile_behaviour``)."""
    lay = prm.layout
    tab = tables(lay)
    p, dp = s.pods, s.deps
    env = dp.rv_env[rows, d, pos]  # [P, KE]
    p.b_defect[rows, d, c] = dp.rv_defect[rows, d, pos]
    p.b_image_ok[rows, d, c] = dp.rv_img_ok[rows, d, pos]
    p.b_probe_ok[rows, d, c] = dp.rv_port[rows, d, pos] == lay.dep_probe_port[d]
    p.b_cpu[rows, d, c] = dp.rv_cpu[rows, d, pos]
    p.b_mem[rows, d, c] = dp.rv_mem[rows, d, pos]
    lk = tab.env.lat_key[d]
    lat = np.where(lk >= 0, tab.env.lat_ms[env[np.arange(len(rows)), np.maximum(lk, 0)]], 0.0)
    p.b_lat[rows, d, c] = lat
    p.b_addr_bad[rows, d, c] = addr_bits(prm, d, env)


def addr_bits(prm: TwinParams, d: np.ndarray, env: np.ndarray) -> np.ndarray:
    """Per (deployment, env codes [P, KE]) the bitmask of the deployment's edges whose address
    variable is wrong (bit j: its j-th edge, callees ascending)."""
    lay = prm.layout
    tab = tables(lay).env
    m = lay.dep_edges[d]  # [P, DEG]
    k = np.where(m >= 0, tab.edge_key[np.maximum(m, 0)], -1)
    code = np.take_along_axis(env, np.maximum(k, 0), axis=1)
    bad = (k >= 0) & tab.addr_bad[np.maximum(m, 0), code]
    return (bad.astype(np.int64) << np.arange(m.shape[1])[None, :]).sum(axis=1)


# ------------------------------------------------------------------ the controller
def _ranked(keys: list[np.ndarray]) -> np.ndarray:
    """Rank of each slot [P, C] by ``keys`` (last key primary), ties by the earlier keys."""
    order = np.lexsort(keys, axis=-1)
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.arange(order.shape[1])[None, :], axis=1)
    return rank


def reconcile(prm: TwinParams, s: TwinState, rows, d, t) -> None:
    """One controller pass over each (row, deployment) pair at ``t`` (``controller.reconcile``):
    delete surplus pods of the current revision (unready, then newest, first), create new ones up
    to the surge, delete unready old pods, then old ready ones as availability allows.

    Every pair's decisions read only its own deployment's pods, so they are made for all pairs at
    once; a row's pairs then act in deployment order, one at a time (its deletions, then its
    creations, whose placement reads what the row's earlier pairs did), as the full simulator's
    loop over deployments does."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return
    d = np.asarray(d, dtype=np.int64)
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    order = np.lexsort((d, rows))
    rows, d, t = rows[order], d[order], t[order]
    start = np.r_[0, np.nonzero(rows[1:] != rows[:-1])[0] + 1]
    k = np.arange(len(rows)) - np.repeat(start, np.diff(np.r_[start, len(rows)]))
    p, dp = s.pods, s.deps
    cur = dp.rv_num[rows, d, current(s, rows, d)]
    live = p.alive[rows, d] & (p.state[rows, d] != TERMINATING)
    new = live & (p.rev[rows, d] == cur[:, None])
    old = live & ~new
    ready = p.ready[rows, d]
    desired = dp.replicas[rows, d]
    surge = np.ceil(0.25 * desired).astype(np.int64)
    unav = np.floor(0.25 * desired).astype(np.int64)
    unav = np.where((desired > 0) & (surge == 0) & (unav == 0), 1, unav)
    seq, created = p.seq[rows, d], p.created[rows, d]
    extra = new.sum(axis=1) - desired
    kill_extra = np.zeros(new.shape, dtype=bool)
    if (extra > 0).any():
        # unready first, then the newest (the full simulator sorts its rows, creation order)
        rank = _ranked([seq, -created, ready, ~new])
        kill_extra = new & (rank < extra[:, None])
    new &= ~kill_extra
    n_new, n_old = new.sum(axis=1), old.sum(axis=1)
    create = np.maximum(np.minimum(desired - n_new, desired + surge - (n_new + n_old)), 0)
    made = np.zeros(len(rows), dtype=np.int64)
    for kk in range(int(k.max()) + 1):  # a row's pairs in deployment order
        on = np.nonzero(k == kk)[0]
        delete_pods(prm, s, rows[on], d[on], kill_extra[on], t[on])
        for j in range(int(create[on].max(initial=0))):
            sub = on[create[on] > j]
            c = create_pods(prm, s, rows[sub], d[sub], t[sub])
            ok = c >= 0
            new[sub[ok], c[ok]] = True
            made[sub[ok]] += 1
        delete_pods(prm, s, rows[on], d[on], old[on] & ~ready[on], t[on])
        # old ready pods go as far as availability allows (the new pods are not ready yet)
        old_ready = old[on] & ready[on]
        nn = new[on].sum(axis=1)
        unready_new = (new[on] & ~p.ready[rows[on], d[on]]).sum(axis=1)
        can = nn + old_ready.sum(axis=1) - (desired[on] - unav[on]) - unready_new
        can = np.where(desired[on] == 0, old_ready.sum(axis=1), can)
        rank = _ranked([seq[on], created[on], ~old_ready])
        kill_old = old_ready & (rank < np.maximum(can, 0)[:, None])
        delete_pods(prm, s, rows[on], d[on], kill_old, t[on])
        left_old = (old_ready & ~kill_old).any(axis=1)
        done = (nn == desired[on]) & ~left_old & (unready_new == 0)
        dp.dirty[rows[on], d[on]] = ~done


def request(s: TwinState, rows, d, t) -> None:
    """A change asks for a controller pass (``_new_revision``/``scale`` reconcile at once in the
    full simulator); it runs at the next ``reconcile_pending``, with its new pods created at
    ``t``."""
    rows, d = np.asarray(rows), np.asarray(d)
    s.deps.pend[rows, d] = True
    s.deps.pend_t[rows, d] = np.broadcast_to(np.asarray(t, dtype=float), rows.shape)
    s.deps.dirty[rows, d] = True


def reconcile_pending(prm: TwinParams, s: TwinState) -> None:
    """The passes changes asked for since the last one (one batched pass)."""
    rows, d = np.nonzero(s.deps.pend)
    if len(rows):
        s.deps.pend[rows, d] = False
        reconcile(prm, s, rows, d, s.deps.pend_t[rows, d])


def idle(prm: TwinParams, s: TwinState, rows, d) -> tuple[np.ndarray, np.ndarray]:
    """For (row, deployment) pairs (rows may repeat): whether a controller pass would change no
    pod, and if so whether the deployment is done (``reconcile`` with nothing to delete or
    create)."""
    p, dp = s.pods, s.deps
    cur = dp.rv_num[rows, d, current(s, rows, d)]
    live = p.alive[rows, d] & (p.state[rows, d] != TERMINATING)
    new = live & (p.rev[rows, d] == cur[:, None])
    old = live & ~new
    ready = p.ready[rows, d]
    desired = dp.replicas[rows, d]
    surge = np.ceil(0.25 * desired).astype(np.int64)
    unav = np.floor(0.25 * desired).astype(np.int64)
    unav = np.where((desired > 0) & (surge == 0) & (unav == 0), 1, unav)
    n_new, n_old = new.sum(axis=1), old.sum(axis=1)
    create = np.minimum(desired - n_new, desired + surge - (n_new + n_old))
    n_ready_old = (old & ready).sum(axis=1)
    can = n_new + n_ready_old - (desired - unav) - (new & ~ready).sum(axis=1)
    can = np.where(desired == 0, n_ready_old, can)
    quiet = (n_new <= desired) & (create <= 0) & ~(old & ~ready).any(axis=1)
    quiet &= (n_ready_old == 0) | (can <= 0)
    done = (n_new == desired) & (n_old == 0) & ~(new & ~ready).any(axis=1)
    return quiet, done


def reconcile_dirty(prm: TwinParams, s: TwinState, t: np.ndarray) -> None:
    """The controller's pass of a tick: every dirty deployment, in order (``SimCluster._step``).
    Deployments a pass would not change (a rollout waiting for its new pods to be ready) are
    settled at once; the others are reconciled in one batched pass."""
    rows, d = np.nonzero(s.deps.dirty)
    if not len(rows):
        return
    quiet, done = idle(prm, s, rows, d)
    s.deps.dirty[rows[quiet], d[quiet]] = ~done[quiet]
    act = ~quiet
    reconcile(prm, s, rows[act], d[act], t[rows[act]])


# ------------------------------------------------------------------ revisions
def _equal_to(s: TwinState, rows, d, tpl: dict) -> np.ndarray:
    """[P, R] bool: history entries whose template equals ``tpl`` (behaviour fields aside)."""
    dp = s.deps
    eq = dp.rv_img[rows, d] == tpl["rv_img"][:, None]
    for f in ("rv_cpu", "rv_mem", "rv_port", "rv_restart"):
        eq &= getattr(dp, f)[rows, d] == tpl[f][:, None]
    eq &= (dp.rv_env[rows, d] == tpl["rv_env"][:, None, :]).all(axis=2)
    eq &= np.arange(dp.rv_num.shape[2])[None, :] < dp.n_rev[rows, d][:, None]
    return eq


def _append(s: TwinState, rows, d, number, tpl: dict, t, drop: np.ndarray) -> None:
    """Remove history entry ``drop`` (-1: none; the oldest when full) and append a revision."""
    dp = s.deps
    R = dp.rv_num.shape[2]
    n = dp.n_rev[rows, d]
    drop = np.where((drop < 0) & (n >= R), 0, drop)
    fields = ("rv_num", "rv_created", *TPL)
    shifting = drop >= 0
    if not shifting.any():
        for f in ("rv_num", "rv_created"):
            getattr(dp, f)[rows, d, n] = number if f == "rv_num" else t
        for f in TPL:
            getattr(dp, f)[rows, d, n] = tpl[f]
        dp.n_rev[rows, d] = n + 1
        return
    for f in fields:
        arr = getattr(dp, f)
        cur = arr[rows, d].copy()  # [P, R, ...]
        idx = np.arange(R)[None, :]
        shift = (drop[:, None] >= 0) & (idx >= drop[:, None])
        src = np.where(shift, np.minimum(idx + 1, R - 1), idx)
        moved = np.take_along_axis(cur, src.reshape(src.shape + (1,) * (cur.ndim - 2)), axis=1)
        arr[rows, d] = moved
    n = np.where(drop >= 0, n - 1, n)
    dp.rv_num[rows, d, n] = number
    dp.rv_created[rows, d, n] = t
    for f in TPL:
        getattr(dp, f)[rows, d, n] = tpl[f]
    dp.n_rev[rows, d] = n + 1


def new_revision(prm: TwinParams, s: TwinState, rows, d, tpl: dict, t) -> np.ndarray:
    """Roll out ``tpl`` (``_new_revision``): nothing where it equals the current template; an
    equal earlier revision moves to the head under a new number (its compiled behaviour kept).
    Returns the current revision number afterwards."""
    rows, d = np.asarray(rows), np.asarray(d)
    dp = s.deps
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    pos = current(s, rows, d)
    eq = _equal_to(s, rows, d, tpl)
    same = eq[np.arange(len(rows)), pos]
    go = ~same
    if go.any():
        r, dd, tt = rows[go], d[go], t[go]
        eqg = eq[go]
        earlier = np.where(eqg.any(axis=1), eqg.argmax(axis=1), -1)
        tp = {k: v[go] for k, v in tpl.items()}
        has = earlier >= 0
        if has.any():  # the behaviour compiled for that template the first time
            for f in ("rv_defect", "rv_img_ok"):
                tp[f][has] = getattr(dp, f)[r[has], dd[has], earlier[has]]
        R = dp.rv_num.shape[2]
        live = np.arange(R)[None, :] < dp.n_rev[r, dd][:, None]
        number = np.where(live, dp.rv_num[r, dd], 0).max(axis=1) + 1
        _append(s, r, dd, number, tp, tt, earlier)
        dp.generation[r, dd] += 1
        request(s, r, dd, tt)
    return dp.rv_num[rows, d, current(s, rows, d)]


def rollback(prm: TwinParams, s: TwinState, rows, d, to, t) -> np.ndarray:
    """Roll back to revision ``to`` (-1: the previous one) (``Interventions.rollback``); the
    target moves to the head under a new number. Returns whether it could (else nothing
    changes, as a refused operation)."""
    rows, d, to = np.asarray(rows), np.asarray(d), np.asarray(to)
    dp = s.deps
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    n = dp.n_rev[rows, d]
    R = dp.rv_num.shape[2]
    live = np.arange(R)[None, :] < n[:, None]
    hit = live & (dp.rv_num[rows, d] == to[:, None])
    target = np.where(to < 0, n - 2, np.where(hit.any(axis=1), hit.argmax(axis=1), -1))
    ok = (target >= 0) & (target != n - 1)
    rows, d, t, target = rows[ok], d[ok], t[ok], target[ok]
    if len(rows):
        tpl = template(s, rows, d, target)
        number = np.where(live[ok], dp.rv_num[rows, d], 0).max(axis=1) + 1
        _append(s, rows, d, number, tpl, t, target)
        dp.generation[rows, d] += 1
        request(s, rows, d, t)
    return ok


def scale(prm: TwinParams, s: TwinState, rows, d, replicas, t, now: bool = False) -> None:
    """Set the desired replicas and reconcile (``Interventions.scale``): at once with ``now``
    (the autoscaler, after a tick's traffic), else at the next pending pass."""
    rows, d = np.asarray(rows), np.asarray(d)
    if not len(rows):
        return
    s.deps.replicas[rows, d] = replicas
    s.deps.generation[rows, d] += 1
    if now:
        s.deps.dirty[rows, d] = True
        reconcile(prm, s, rows, d, t)
    else:
        request(s, rows, d, t)
