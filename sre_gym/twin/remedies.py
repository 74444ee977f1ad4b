"""The discrete remedies: what an action decides, as calls (``wrappers/remedies.py:DiscreteRemedies``).

Action 0 does nothing; ``1 + r * n + s`` applies ``REMEDIES[r]`` to service ``s``; past those,
``evacuate`` a node (``envs/numeric_layout.py``). Each remedy reports (or extends) the service's
incident first and cites it: ``rollback`` undoes the suspect change (the last deploy at or before
the first firing alert on the service: a rollback to the revision before it and a revert through
the pipeline), ``restart``, ``scale_up``, ``delete_pods`` (its pods on NotReady nodes),
``raise_cpu`` (twice the limit, at most 4 cores), ``delete_netpol`` (the newest egress allow-list
on it), ``flag_off`` (its flags back to default), ``restore_env`` (its env vars back to git);
``evacuate`` deletes the services' pods on a NotReady node. With ``auto_report`` every other node
and service with firing alerts gets its incident opened or extended each invocation. The decision
reads only what an agent sees (alerts, changes, Kubernetes state, git), as the wrapper does.

Differs from the full simulator: nothing in the decisions (``tests/twin/test_conformance.py``).
"""

from __future__ import annotations

import numpy as np

from sre_gym.clock import MAX_REPLICAS
from sre_gym.envs.numeric_layout import MAX_CPU_CORES, REMEDIES
from sre_gym.twin import codes as K
from sre_gym.twin.calls import (
    DELETE_NETPOL,
    DELETE_POD,
    PATCH_CPU,
    PATCH_ENV,
    PATCH_FLAG,
    PATCH_REVERT,
    REPORT,
    RESOLVE,
    RESTART,
    ROLLBACK,
    SCALE,
    UPDATE,
    Calls,
    firing_of,
)
from sre_gym.twin.features import drift, firing, flags_off, stranded
from sre_gym.twin.incidents import held_mask
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables
from sre_gym.twin.world import policy_target

RB, RS, SU, DP, RC, DN, FO, RE = range(len(REMEDIES))
EVACUATE = len(REMEDIES)
REPORTED = -1  # the wrapper's named_by for an automatic report


def decode(prm: TwinParams, action: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(remedy, target) per action: remedy -1 for no-op, EVACUATE for a node (target: node)."""
    n = prm.layout.n
    a = np.asarray(action, dtype=np.int64) - 1
    remedy = np.where(a < 0, -1, np.minimum(a // n, EVACUATE))
    target = np.where(a < 0, -1, np.where(remedy == EVACUATE, a - EVACUATE * n, a % n))
    return remedy, target


def suspect(s: TwinState, rows, d) -> tuple[np.ndarray, np.ndarray]:
    """``DiscreteRemedies._suspect``: the log position and record id of the last change to
    ``d`` at or before the first alert firing on it now (-1 without one)."""
    fire = firing_of(s, rows, d)
    first = np.where(fire, s.alerts.fired[rows], np.inf).min(axis=1)
    ch = s.changes
    t = ch.t[rows, d]  # [P, L]
    ok = (t <= first[:, None]) & (ch.rid[rows, d] >= 0)
    key = np.where(ok, t, -np.inf)
    best = key.max(axis=1)
    tie = ok & (key == best[:, None])
    rid = np.where(tie, ch.rid[rows, d], np.iinfo(np.int64).max)
    pos = rid.argmin(axis=1)
    has = ok.any(axis=1) & np.isfinite(first)
    return np.where(has, pos, -1), np.where(has, rid[np.arange(len(rows)), pos], -1)


def _incident(prm, s, calls: Calls, rows, ent, art, remedy, offset) -> np.ndarray:
    """``DiscreteRemedies._incident``: the incident each row cites for ``ent`` [P] and the calls
    opening or extending it (appended to ``calls``); returns the incident ids."""
    ag = s.agent
    fire = firing_of(s, rows, ent)
    iid0 = ag.incident_of[rows, ent]
    known_open = (iid0 >= 0) & ag.i_open[rows, np.maximum(iid0, 0)]
    known = held_mask(s, rows, np.where(iid0 >= 0, iid0, -2))
    extend = known_open & ((known & fire).any(axis=1) | ~fire.any(axis=1))
    new = (fire & ~known).any(axis=1)
    revise = (remedy != REPORTED) & (ag.i_named_by[rows, np.maximum(iid0, 0)] != remedy)
    change = revise & (ag.i_art[rows, np.maximum(iid0, 0)] != art)
    upd = extend & (new | change)
    calls.add(rows[upd], UPDATE, b=ent[upd], c=np.where(change, art, 0)[upd], iid=iid0[upd])
    close = known_open & ~extend
    calls.add(rows[close], RESOLVE, iid=iid0[close])
    fresh = ~extend
    iid = np.where(extend, iid0, ag.n_inc[rows] + offset)
    calls.add(rows[fresh], REPORT, a=ent[fresh], c=art[fresh])
    # (has calls, names the artifact): the wrapper remembers the incident only in the first case
    # and who named its artifact only in the second
    return iid, fresh, upd | close | fresh, fresh | (upd & change)


def plan(prm: TwinParams, s: TwinState, action: np.ndarray, t0: np.ndarray):
    """The calls of each episode's action (and automatic reports), and the wrapper's memory of
    which incident it now cites per entity. Returns (calls, updates) where ``updates`` are
    (rows, entity, incident, named_by) to apply after the calls ran."""
    lay = prm.layout
    calls = Calls.empty(s.E, t0)
    remedy, target = decode(prm, action)
    dp = s.deps
    pos = dp.n_rev - 1
    ee, dd = np.indices(pos.shape)
    acts: list[tuple] = []  # (rows, [(kind, a, b, c, x)] per op, art) per remedy kind
    updates = []
    strand = stranded(prm, s)
    n_reports = np.zeros(s.E, dtype=np.int64)
    for r in range(EVACUATE + 1):
        rows = np.nonzero(remedy == r)[0]
        if not len(rows):
            continue
        tg = target[rows]
        ops, art, go = _ops(prm, s, r, rows, tg, strand, pos)
        rows, tg, art = rows[go], tg[go], art[go]
        ops = [(k, *(np.asarray(v)[go] if np.ndim(v) else v for v in rest)) for k, *rest in ops]
        ent = tg if r != EVACUATE else lay.D + tg
        iid, fresh, _, names = _incident(prm, s, calls, rows, ent, art, np.full(len(rows), r), 0)
        n_reports[rows] += fresh
        for kind, a, b, c, x, on in ops:
            calls.add(rows[on], kind, a=a[on], b=b[on], c=c[on], x=x[on], iid=iid[on])
        updates.append((rows, ent, iid, np.full(len(rows), r), names))
        acts.append(rows)
    acted = np.zeros(s.E, dtype=bool)
    for rows in acts:
        acted[rows] = True
    if prm.auto_report:
        updates += _auto(prm, s, calls, remedy, target, acted, n_reports)
    _note_acted(prm, s, calls)
    return calls, updates


def _ops(prm, s, r, rows, tg, strand, pos):
    """The remedy's operations for ``rows`` (each a (kind, a, b, c, x, on) with arrays over rows),
    its artifact code, and which rows have anything to do."""
    lay = prm.layout
    tab = tables(lay)
    dp, p = s.deps, s.pods
    P = len(rows)
    z = np.zeros(P, dtype=np.int64)
    one = np.ones(P, dtype=bool)
    cur = dp.rv_num[rows, tg, pos[rows, tg]] if r != EVACUATE else z
    if r == RB:
        spos, rid = suspect(s, rows, tg)
        has = rid >= 0
        srev = s.changes.rev[rows, tg, np.maximum(spos, 0)]
        R = dp.rv_num.shape[2]
        live = np.arange(R)[None, :] < dp.n_rev[rows, tg][:, None]
        nums = np.where(live & (dp.rv_num[rows, tg] < srev[:, None]), dp.rv_num[rows, tg], -1)
        before = nums.max(axis=1)
        ops = [
            (ROLLBACK, tg, np.where(has, before, -1), z, z, ~has | (before >= 0)),
            (PATCH_REVERT, tg, rid, spos, z, has),
        ]
        art = np.where(has, K.code(K.SHA, np.maximum(rid, 0)), K.code(K.DEPREV, tg, cur))
        return ops, art, one
    if r == RS:
        alive = p.alive[rows, tg]
        seq = np.where(alive, p.seq[rows, tg], np.iinfo(np.int64).max)
        c = seq.argmin(axis=1)
        inc = p.inc[rows, tg, c]
        art = np.where(
            alive.any(axis=1), K.code(K.POD, tg * lay.C + c, inc), K.code(K.DEPREV, tg, cur)
        )
        return [(RESTART, tg, z, z, z, one)], art, one
    if r == SU:
        want = np.minimum(dp.replicas[rows, tg] + 1, MAX_REPLICAS)
        return [(SCALE, tg, want, z, z, one)], K.code(K.DEPLOYMENT, tg), one
    if r in (DP, EVACUATE):
        if r == DP:
            mine = strand[rows, tg]  # [P, C] of the service
            seq = np.where(mine, p.seq[rows, tg], np.iinfo(np.int64).max)
            order = np.argsort(seq, axis=1)
            ops = []
            for j in range(lay.C):
                c = order[:, j]
                on = mine[np.arange(P), c]
                ops.append((DELETE_POD, tg, c, p.inc[rows, tg, c], z, on))
            first = p.node[rows, tg, order[:, 0]]
            return ops, K.code(K.NODENAME, np.maximum(first, 0)), mine.any(axis=1)
        # the wrapper's order: deployments by their first stranded pod on any NotReady node
        # (``stranded_pods`` groups the pod list, which is in creation order), then their pods
        big = np.iinfo(np.int64).max
        mine = strand[rows, : lay.n]
        seq_all = np.where(mine, p.seq[rows, : lay.n], big)  # [P, n, C]
        dep_first = np.broadcast_to(seq_all.min(axis=2, keepdims=True), seq_all.shape)
        on_node = mine & (p.node[rows, : lay.n] == tg[:, None, None])
        flat = on_node.reshape(P, -1)
        seq = np.where(flat, seq_all.reshape(P, -1), big)
        order = np.lexsort((seq, np.where(flat, dep_first.reshape(P, -1), big)), axis=1)
        ops = []
        for j in range(min(flat.shape[1], 64)):
            k = order[:, j]
            on = flat[np.arange(P), k]
            d, c = k // lay.C, k % lay.C
            ops.append((DELETE_POD, d, c, p.inc[rows, d, c], z, on))
        return ops, K.code(K.NODE, tg), flat.any(axis=1)
    if r == RC:
        cpu = dp.rv_cpu[rows, tg, pos[rows, tg]]
        go = cpu < MAX_CPU_CORES
        cores = np.round(np.minimum(2.0 * cpu, MAX_CPU_CORES) * 1000).astype(np.int64) / 1000.0
        return [(PATCH_CPU, tg, z, z, cores, go)], K.code(K.DEPLOYMENT, tg), go
    if r == DN:
        mine = s.world.pol_on[rows] & (policy_target(prm)[None, :] == tg[:, None])
        # the newest by creation, then by name (``egress_policies`` order, its last)
        created = np.where(mine, s.world.pol_created[rows], -np.inf)
        last = mine & (created == created.max(axis=1)[:, None])
        newest = np.where(last, s.world.pol_name[rows], -1).argmax(axis=1)
        go = mine.any(axis=1)
        name = s.world.pol_name[rows, newest]
        return [(DELETE_NETPOL, newest, z, z, z, go)], K.code(K.NETPOL, name), go
    if r == FO:
        fl = tab.flags
        off = flags_off(prm, s)[rows] & (fl.service[None, :] == tg[:, None])
        ops = [
            (PATCH_FLAG, np.full(P, i), np.full(P, fl.default[i]), z, z, off[:, i])
            for i in range(len(fl.names))
        ]
        first = off.argmax(axis=1) if off.shape[1] else z
        return ops, K.code(K.FLAG, first), off.any(axis=1)
    # restore_env
    dr = drift(prm, s)[rows, tg]  # [P, KE]
    git = dp.git_env[rows, tg]
    ops = [
        (PATCH_ENV, tg, np.full(P, k), git[:, k], z, dr[:, k])
        for k in range(dr.shape[1])
        if dr[:, k].any()
    ]
    first = dr.argmax(axis=1)
    return ops, K.code(K.ENV, first), dr.any(axis=1)


def _auto(prm, s, calls, remedy, target, acted, n_reports) -> list:
    """``auto_report``: each other node, then service, with firing alerts gets its incident opened
    or extended (artifact: the node; a service's first env var off git, else its suspect change,
    else the deployment)."""
    lay = prm.layout
    fire = firing(s)
    ent = s.alerts.ent
    named = np.zeros((s.E, lay.U), dtype=bool)
    e, a, j = np.nonzero(fire[:, :, None] & (ent >= 0))
    named[e, ent[e, a, j]] = True
    skip = np.where(acted, np.where(remedy == EVACUATE, lay.D + target, target), -1)
    offset = n_reports.copy()
    out = []
    dr = drift(prm, s)[:, : lay.n]
    for k in range(lay.K):
        u = lay.D + k
        rows = np.nonzero(named[:, u] & (skip != u))[0]
        if len(rows):
            ent_ = np.full(len(rows), u)
            art = K.code(K.NODE, np.full(len(rows), k))
            rep = np.full(len(rows), REPORTED)
            iid, fresh, any_, names = _incident(prm, s, calls, rows, ent_, art, rep, offset[rows])
            offset[rows] += fresh
            out.append((rows[any_], ent_[any_], iid[any_], rep[any_], names[any_]))
    for d in range(lay.n):
        rows = np.nonzero(named[:, d] & (skip != d))[0]
        if not len(rows):
            continue
        dd = np.full(len(rows), d)
        has_drift = dr[rows, d].any(axis=1)
        _, rid = suspect(s, rows, dd)
        art = np.where(
            has_drift,
            K.code(K.ENV, dr[rows, d].argmax(axis=1)),
            np.where(rid >= 0, K.code(K.SHA, np.maximum(rid, 0)), K.code(K.DEPLOYMENT, dd)),
        )
        rep = np.full(len(rows), REPORTED)
        iid, fresh, any_, names = _incident(prm, s, calls, rows, dd, art, rep, offset[rows])
        offset[rows] += fresh
        out.append((rows[any_], dd[any_], iid[any_], rep[any_], names[any_]))
    return out


def _note_acted(prm: TwinParams, s: TwinState, calls: Calls) -> None:
    """``NumericObservation.step``: the invocation each service was last intervened on."""
    tab = tables(prm.layout)
    flag_svc = np.append(tab.flags.service, -1)  # (index -1 for an app without flags)
    pol_svc = np.append(policy_target(prm), -1)
    direct = (ROLLBACK, PATCH_REVERT, RESTART, SCALE, DELETE_POD, PATCH_CPU, PATCH_ENV)
    for j in range(int(calls.n.max(initial=0))):
        rows = np.nonzero(calls.n > j)[0]
        kind = calls.kind[rows, j]
        a = calls.a[rows, j]
        w = np.where(np.isin(kind, direct), a, -1)
        w = np.where(kind == PATCH_FLAG, flag_svc[np.minimum(a, len(flag_svc) - 1)], w)
        w = np.where(kind == DELETE_NETPOL, pol_svc[np.minimum(a, len(pol_svc) - 1)], w)
        ok = (w >= 0) & (w < prm.layout.n)
        s.agent.acted[rows[ok], w[ok]] = s.agent.inv[rows[ok]]


def apply_updates(s: TwinState, updates: list) -> None:
    """After the calls: the wrapper's incident per entity, and which remedy named the artifact
    of the incidents whose report or update named one."""
    ag = s.agent
    for rows, ent, iid, named_by, names in updates:
        ag.incident_of[rows, ent] = iid
        ok = names & (iid < ag.n_inc[rows])
        ag.i_named_by[rows[ok], iid[ok]] = named_by[ok]
