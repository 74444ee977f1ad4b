"""The agent's tool calls of an invocation, as arrays, and running them at their simulated times.

``Calls`` holds each episode's calls in order (``[E, J]``: the call's kind and arguments, the
incident it cites); ``run`` executes the calls whose time has come, as ``SREMarathonEnv.call``
runs them through ``tools/dispatch.py:Toolbox``: each takes its tool's duration on the
invocation's clock (a call that does not fit the 110 s budget is refused and takes none), an
intervention needs the open incident it cites, and a refused operation changes nothing. Every
executed intervention is recorded for the scorer and starts the persistence watch of the faults
it acts on.

Differs from the full simulator: only the calls the discrete remedies make exist here; a
``submit_patch`` reverting a record builds unless it was reverted already or a later change still
in the head meets its edits (``deploys.revert_conflicts``: the two changes' edits of the base tree, and for
env-only changes where their lines went, not a three-way merge of the head's text;
``deploys.revert_patch``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym.sim.pods import TERMINATING
from sre_gym.tools.specs import BUDGET_S, TOOLS
from sre_gym.twin import codes as K
from sre_gym.twin import controller, deploys, faults, incidents, probes, world
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import ENV_CODE, tables

(
    REPORT,
    UPDATE,
    RESOLVE,
    ROLLBACK,
    PATCH_REVERT,
    RESTART,
    SCALE,
    DELETE_POD,
    PATCH_CPU,
    PATCH_ENV,
    PATCH_FLAG,
    DELETE_NETPOL,
) = range(12)
TOOL = (
    "report_incident",
    "update_incident",
    "resolve_incident",
    "rollback",
    "submit_patch",
    "restart",
    "scale",
    "delete_resource",
    "patch_config",
    "patch_config",
    "patch_config",
    "delete_resource",
)
DURATION = np.array([TOOLS[t].duration_s for t in TOOL], dtype=float)
INTERVENES = np.array([k >= ROLLBACK for k in range(len(TOOL))])
MAX_CALLS = 64  # envs/marathon.py: the first 64 calls of an invocation run


@dataclass
class Calls:
    """An invocation's calls per episode (``J`` at most ``MAX_CALLS``)."""

    n: np.ndarray  # [E] calls
    kind: np.ndarray  # [E, J]
    a: np.ndarray  # [E, J] first argument (entity, deployment, incident ...)
    b: np.ndarray  # [E, J]
    c: np.ndarray  # [E, J]
    x: np.ndarray  # [E, J] float argument (CPU cores)
    iid: np.ndarray  # [E, J] incident cited (interventions, updates, resolves; -1)
    ptr: np.ndarray  # [E] calls run so far
    cursor: np.ndarray  # [E] time the next call runs at

    @classmethod
    def empty(cls, E: int, t0: np.ndarray) -> Calls:
        z = np.zeros((E, MAX_CALLS), dtype=np.int64)
        return cls(
            np.zeros(E, dtype=np.int64),
            z.copy(),
            z.copy(),
            z.copy(),
            z.copy(),
            np.zeros((E, MAX_CALLS)),
            np.full((E, MAX_CALLS), -1, dtype=np.int64),
            np.zeros(E, dtype=np.int64),
            np.asarray(t0, dtype=float).copy(),
        )

    def add(self, rows, kind, a=0, b=0, c=0, x=0.0, iid=-1) -> None:
        """Append a call to each of ``rows`` (calls past MAX_CALLS are dropped, as the env drops
        them)."""
        rows = np.asarray(rows)
        if not len(rows):
            return
        pos = self.n[rows]
        ok = pos < MAX_CALLS
        r, p = rows[ok], pos[ok]

        def at(v):
            return np.broadcast_to(np.asarray(v), rows.shape)[ok]

        self.kind[r, p], self.a[r, p], self.b[r, p], self.c[r, p] = at(kind), at(a), at(b), at(c)
        self.x[r, p], self.iid[r, p] = at(x), at(iid)
        self.n[rows] += 1


def run(prm: TwinParams, s: TwinState, calls: Calls, before: np.ndarray, t0: np.ndarray) -> None:
    """Run, in order, each episode's calls that start before ``before`` [E] (the next tick)."""
    while True:
        j = calls.ptr
        due = (j < np.minimum(calls.n, MAX_CALLS)) & (calls.cursor < before)
        if not due.any():
            return
        rows = np.nonzero(due)[0]
        jj = j[rows]
        kind = calls.kind[rows, jj]
        dur = DURATION[kind]
        left = t0[rows] + BUDGET_S - calls.cursor[rows]
        fits = dur <= left
        t = calls.cursor[rows].copy()
        calls.ptr[rows] += 1
        calls.cursor[rows] += np.where(fits, dur, 0.0)
        for k in np.unique(kind[fits]):
            sel = fits & (kind == k)
            r = rows[sel]
            _RUN[int(k)](
                prm,
                s,
                r,
                calls.a[r, jj[sel]],
                calls.b[r, jj[sel]],
                calls.c[r, jj[sel]],
                calls.x[r, jj[sel]],
                calls.iid[r, jj[sel]],
                t[sel],
            )
        controller.reconcile_pending(prm, s)  # each call's rollout before the next call


# ------------------------------------------------------------------ reports
def firing_of(s: TwinState, rows, entity) -> np.ndarray:
    """[P, A] bool: alerts firing at the invocation's start that name ``entity`` [P]."""
    from sre_gym.twin.features import firing

    fire = firing(s)[rows]
    ent = s.alerts.ent[rows]
    return fire & (ent == entity[:, None, None]).any(axis=2)


def _report(prm, s, rows, a, b, c, x, iid, t) -> None:
    ag = s.agent
    new = ag.n_inc[rows].copy()
    if (new >= ag.i_open.shape[1]).any():
        raise RuntimeError(f"more incidents than the twin keeps ({ag.i_open.shape[1]})")
    ag.n_inc[rows] += 1
    ag.i_open[rows, new] = True
    ag.i_at[rows, new] = t
    ag.i_culprit[rows, new] = a
    ag.i_art[rows, new] = c
    ag.i_located[rows, new] = t
    ag.i_named_by[rows, new] = -1
    incidents.hold(prm, s, rows, new, firing_of(s, rows, a))


def _update(prm, s, rows, a, b, c, x, iid, t) -> None:
    ag = s.agent
    ok = (iid >= 0) & (iid < ag.n_inc[rows])
    ok &= ag.i_open[rows, np.maximum(iid, 0)]
    rows, a, b, c, iid, t = rows[ok], a[ok], b[ok], c[ok], iid[ok], t[ok]
    if not len(rows):
        return
    incidents.hold(prm, s, rows, iid, firing_of(s, rows, b))
    change = (c != 0) & (ag.i_art[rows, iid] != c)
    ag.i_art[rows[change], iid[change]] = c[change]
    ag.i_located[rows[change], iid[change]] = t[change]


def _resolve(prm, s, rows, a, b, c, x, iid, t) -> None:
    ag = s.agent
    ok = (iid >= 0) & (iid < ag.n_inc[rows]) & ag.i_open[rows, np.maximum(iid, 0)]
    ag.i_open[rows[ok], iid[ok]] = False


# ------------------------------------------------------------------ interventions
def _cited(s: TwinState, rows, iid) -> np.ndarray:
    ag = s.agent
    ok = (iid >= 0) & (iid < ag.n_inc[rows])
    return ok & ag.i_open[rows, np.maximum(iid, 0)]


def _record(prm, s, rows, target, obj, iid, t) -> None:
    """An executed intervention: evidence for the scorer, and the persistence watches."""
    ag = s.agent
    x = ag.n_x[rows]
    if (x >= ag.x_t.shape[1]).any():
        raise RuntimeError(f"more interventions than the twin keeps ({ag.x_t.shape[1]})")
    ag.n_x[rows] += 1
    ag.x_t[rows, x], ag.x_target[rows, x], ag.x_obj[rows, x], ag.x_inc[rows, x] = (
        t,
        target,
        obj,
        iid,
    )
    fits = incidents.acts_on(prm, s, rows, target, obj)
    # net_score's judgement of it (scoring/net.py:_judge): needed, and within its incident
    fs = s.faults
    grace = prm.scoring.attribution_grace_s
    active = (
        fits
        & fs.injected[rows]
        & (fs.start[rows] <= t[:, None])
        & (t[:, None] <= fs.end[rows] + grace)
    )
    needed = active.any(axis=1)
    ag.unneeded[rows[~needed]] += 1
    held = incidents.held_mask(s, rows, iid)  # [P, A]
    just = np.zeros(len(rows), dtype=bool)
    r, a = np.nonzero(held)
    if len(r):
        att = incidents.attributable(prm, s, rows[r], a)  # [Q, F]
        np.logical_or.at(just, r, (att & active[r]).any(axis=1))
    ag.out_of_scope[rows[needed & ~just]] += 1
    probes.note_intervention(prm, s, rows, t, fits)


def _rollback(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, b, iid, t = rows[go], a[go], b[go], iid[go], t[go]
    ok = controller.rollback(prm, s, rows, a, b, t)
    _record(prm, s, rows[ok], a[ok], K.code(K.DEPLOYMENT, a[ok]), iid[ok], t[ok])


def _patch_revert(prm, s, rows, a, b, c, x, iid, t) -> None:
    """``submit_patch(revert=<record>)``: ``b`` the record id, ``c`` its place in the log."""
    go = _cited(s, rows, iid)
    rows, a, b, c, iid, t = rows[go], a[go], b[go], c[go], iid[go], t[go]
    ch = s.changes
    ok = (ch.rid[rows, a, c] == b) & _tracked(prm)[a] & ~ch.undone[rows, a, c]
    ok &= ~deploys.revert_conflicts(prm, s, rows, a, c)
    # the revert of a commit built on the base tree also takes back what it dropped
    own, _ = deploys.base_case(s, rows, a, b)
    ok &= ~(own & deploys.base_meets(prm, s, rows, a))
    rows, a, b, c, iid, t, own = rows[ok], a[ok], b[ok], c[ok], iid[ok], t[ok], own[ok]
    if own.any():
        deploys.restore_base(prm, s, rows[own], a[own], b[own], np.ones(int(own.sum()), bool))
    if len(rows):
        cid, inv = ch.cid[rows, a, c], ch.inv_cid[rows, a, c]
        eff = np.where(cid >= 0, cid, inv)
        adds = (cid >= 0) | ch.inv_add[rows, a, c]
        deploys.mark_undone(s, rows, b)
        deploys.revert_patch(prm, s, rows, a, eff, adds, ch.prev[rows, a, c], t)
        _record(prm, s, rows, a, K.code(K.SOURCE, a), iid, t)


def _tracked(prm):
    from sre_gym.twin.features import _tracked as tr

    return tr(prm)


def _restart(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, iid, t = rows[go], a[go], iid[go], t[go]
    tpl = controller.template(s, rows, a)
    tpl["rv_restart"] = np.floor(t).astype(np.int64)
    controller.new_revision(prm, s, rows, a, tpl, t)
    _record(prm, s, rows, a, K.code(K.DEPLOYMENT, a), iid, t)


def _scale(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, b, iid, t = rows[go], a[go], b[go], iid[go], t[go]
    controller.scale(prm, s, rows, a, b, t)
    _record(prm, s, rows, a, K.code(K.DEPLOYMENT, a), iid, t)


def _delete_pod(prm, s, rows, a, b, c, x, iid, t) -> None:
    """``delete_resource(pods, <name>)``: ``a`` deployment, ``b`` slot, ``c`` incarnation."""
    go = _cited(s, rows, iid)
    rows, a, b, c, iid, t = rows[go], a[go], b[go], c[go], iid[go], t[go]
    p = s.pods
    ok = p.alive[rows, a, b] & (p.inc[rows, a, b] == c) & (p.state[rows, a, b] != TERMINATING)
    rows, a, b, c, iid, t = rows[ok], a[ok], b[ok], c[ok], iid[ok], t[ok]
    if not len(rows):
        return
    C = prm.layout.C
    for i in range(len(rows)):  # one pod each, then its deployment's controller pass
        kill = np.zeros((1, C), dtype=bool)
        kill[0, b[i]] = True
        r, d, tt = rows[i : i + 1], a[i : i + 1], t[i : i + 1]
        controller.delete_pods(prm, s, r, d, kill, tt)
        controller.request(s, r, d, tt)
    _record(prm, s, rows, a, K.code(K.POD, a * C + b, c), iid, t)


def _patch_cpu(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, x, iid, t = rows[go], a[go], x[go], iid[go], t[go]
    tpl = controller.template(s, rows, a)
    tpl["rv_cpu"] = x
    controller.new_revision(prm, s, rows, a, tpl, t)
    kcpu = faults.extra_keys(prm)[0]
    _record(prm, s, rows, a, K.code(K.DEPKEY, a, kcpu), iid, t)


def _patch_env(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, b, c, iid, t = rows[go], a[go], b[go], c[go], iid[go], t[go]
    faults.patch_env(prm, s, rows, a, b, c.astype(ENV_CODE), t)
    _record(prm, s, rows, a, K.code(K.DEPKEY, a, b), iid, t)


def _patch_flag(prm, s, rows, a, b, c, x, iid, t) -> None:
    """``patch_config(flagd, flags.<name>, <variant>)``: ``a`` flag, ``b`` variant."""
    go = _cited(s, rows, iid)
    rows, a, b, iid, t = rows[go], a[go], b[go], iid[go], t[go]
    s.world.flag_var[rows, a] = b
    world.flag_effects(prm, s, rows)
    owner = tables(prm.layout).flags.service[a]
    _record(prm, s, rows, owner, K.code(K.FLAGD, a), iid, t)


def _delete_netpol(prm, s, rows, a, b, c, x, iid, t) -> None:
    go = _cited(s, rows, iid)
    rows, a, iid, t = rows[go], a[go], iid[go], t[go]
    gone = world.first_named(s, rows, a)  # (deleted by name: the first so named)
    ok = gone >= 0
    rows, a, gone, iid, t = rows[ok], a[ok], gone[ok], iid[ok], t[ok]
    if not len(rows):
        return
    s.world.pol_on[rows, gone] = False
    world.blocked(prm, s, rows)
    tgt = world.policy_target(prm)
    _record(prm, s, rows, tgt[a], K.code(K.NETPOL, s.world.pol_name[rows, a]), iid, t)


_RUN = {
    REPORT: _report,
    UPDATE: _update,
    RESOLVE: _resolve,
    ROLLBACK: _rollback,
    PATCH_REVERT: _patch_revert,
    RESTART: _restart,
    SCALE: _scale,
    DELETE_POD: _delete_pod,
    PATCH_CPU: _patch_cpu,
    PATCH_ENV: _patch_env,
    PATCH_FLAG: _patch_flag,
    DELETE_NETPOL: _delete_netpol,
}
