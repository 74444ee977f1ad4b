"""Deploys through the pipeline, as integer-coded template edits (``sim/deploys.py``).

``deploy_change`` ports ``Deploys.deploy_change``: a code change is committed to its service's
repository head and an image built from the head carries the head's defect; an image change
deploys a tag (pullable only if the registry has it; a published tag is a rebuild of the head); a
config change sets env vars, limits or the readiness port in the manifest and the template; a flag
change rewrites flagd's file. ``revert_patch`` is the agent's ``submit_patch(revert=...)`` of an
earlier record. Every deploy is logged per service as ``list_changes`` would show it.

Differs from the full simulator: the repository head is not a source tree but what the twin needs
of it (the defect changes it carries, oldest first, with whether an agent's revert took their lines
out; the manifest's env; whether an env-only change's lines went to the end of the env list); a
revert patch applies and builds unless its record was reverted already (an empty diff) or a later
change meets its edits (``revert_conflicts``, from the changes' edits of the base tree where the
full simulator merges the head's text); it takes the record's change out of the head or, for a revert's
record, puts it back (a build then carries its defect again, as the pipeline's fix predicate
fails once the lines are back); a commit whose lines break a reverted defect's fix predicate
re-arms it (``rearm``, from ``ChangeTables.rearms``: predicates read on the base tree) until it is
reverted itself (``disarm``); a commit whose edits meet those of a change still in the head is
built on the base tree, dropping the rest (``on_base``), and the head it dropped is kept until a
revert of that commit, or of a change it dropped, goes back to it (``restore_base``); a
schedule's revert that does not merge steps back to the tree before the change by undoing the
later records' env and defects (``step_back``), not by restoring a stored tree; a commit's diff
is taken to be non-empty (every catalog change has one).
"""

from __future__ import annotations

import functools

import numpy as np

from sre_gym.twin import controller
from sre_gym.twin.layout import Layout
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import CODE, CONFIG, FIRST_BUILD, FLAGS, IMAGE, tables


def first_carried(prm: TwinParams, s: TwinState, rows, d) -> np.ndarray:
    """The defect a build of the service's head carries (ND: none): the oldest carried defect
    whose lines an agent's revert has not taken out (``Pipeline.defect``: the first whose fix
    predicate does not hold)."""
    nd = len(tables(prm.layout).defects.change)
    car = s.deps.carried[rows, d]  # [P, 4]
    live = (car >= 0) & ~s.deps.patched[rows, d]
    first = np.take_along_axis(car, live.argmax(axis=1)[:, None], axis=1)[:, 0]
    return np.where(live.any(axis=1), first, nd)


def _carry(s: TwinState, rows, d, defect, on) -> None:
    """Append ``defect`` to the head's carried defects where ``on`` (a commit of a defect)."""
    car = s.deps.carried
    for i in np.nonzero(on)[0]:
        r, dd = rows[i], d[i]
        free = np.nonzero(car[r, dd] < 0)[0]
        if len(free):
            car[r, dd, free[0]] = defect[i]
            s.deps.patched[r, dd, free[0]] = False


def uncarry(s: TwinState, rows, d, defect, on) -> None:
    """Take ``defect`` out of the head where ``on`` (``Pipeline.revert``: the pipeline stops
    tracking it), keeping the order of the rest."""
    car, pat = s.deps.carried, s.deps.patched
    for i in np.nonzero(on)[0]:
        r, dd = rows[i], d[i]
        keep = [k for k, x in enumerate(car[r, dd]) if x >= 0 and x != defect[i]]
        pad = car.shape[2] - len(keep)
        car[r, dd] = [car[r, dd, k] for k in keep] + [-1] * pad
        pat[r, dd] = [pat[r, dd, k] for k in keep] + [False] * pad


def on_base(prm: TwinParams, s: TwinState, rows, d, c, on) -> np.ndarray:
    """Committing change ``c`` [P] (where ``on``: a source or manifest edit) whose edits meet
    those of a change still in the head: neither its diff nor a three-way merge applies, and the
    pipeline builds it on the service's base tree, dropping the rest (``Pipeline.commit``). The
    head's other changes are then out (a revert of them is empty), its manifest env is the
    catalog's, and the defects it carried are fixed unless the change re-arms them."""
    tab = tables(prm.layout)
    ct = tab.changes
    ch, dp = s.changes, s.deps
    cj, inv = ch.cid[rows, d], ch.inv_cid[rows, d]  # [P, L]
    eff = np.where(cj >= 0, cj, np.where(ch.inv_add[rows, d], inv, -1))
    inhead = (eff >= 0) & ~ch.undone[rows, d]
    clash = inhead & ct.overlap[np.maximum(c, 0)[:, None], np.maximum(eff, 0)]
    fb = on & clash.any(axis=1)
    if not fb.any():
        return fb
    rows, d, c, inhead = rows[fb], d[fb], c[fb], inhead[fb]
    # the head as it stood, for a revert of this commit or of what it drops (``restore_base``)
    ch.base_drop[rows, d] = inhead
    ch.base_env[rows, d] = dp.git_env[rows, d]
    ch.base_car[rows, d] = dp.carried[rows, d]
    ch.base_pat[rows, d] = dp.patched[rows, d]
    r, j = np.nonzero(inhead)
    ch.undone[rows[r], d[r], j] = True
    dp.git_env[rows, d] = tab.env.init[d]
    car = dp.carried[rows, d]
    keep = (car >= 0) & ct.rearms[c[:, None], np.maximum(car, 0)]
    r, k = np.nonzero((car >= 0) & ~keep)
    dp.patched[rows[r], d[r], k] = True
    return fb


def restore_base(prm: TwinParams, s: TwinState, rows, d, upto, keep_later) -> None:
    """Go back to the head before record ``upto`` [P] where it is the last commit built on the
    base tree (``Changes.base_rid``) or a record that commit dropped (``Pipeline.revert``: the
    revert of the commit merges its diff, which holds all it dropped, back out; a revert of a
    dropped change merges nothing and steps back to the tree before that change). The records
    the commit dropped before ``upto`` are back in the head with their env and defects; those
    from ``upto`` on leave it, all of them unless ``keep_later`` [P] (a clean merge of the
    commit's revert keeps what came after it, and its env keys and defects)."""
    ct = tables(prm.layout).changes
    ch, dp = s.changes, s.deps
    for i in range(len(rows)):
        r, dd, up, keep = int(rows[i]), int(d[i]), int(upto[i]), bool(keep_later[i])
        one, at = np.array([r]), np.array([dd])
        rid, cj = ch.rid[r, dd], ch.cid[r, dd]
        drop = ch.base_drop[r, dd] & (rid >= 0)
        later = np.nonzero((rid > ch.base_rid[r, dd]) & ~ch.undone[r, dd] & keep)[0]
        now = dp.git_env[r, dd].copy()  # (what the later records set stays)
        dp.git_env[r, dd] = ch.base_env[r, dd]
        dp.carried[r, dd], dp.patched[r, dd] = ch.base_car[r, dd], ch.base_pat[r, dd]
        for j in sorted(np.nonzero(drop & (rid >= up))[0], key=lambda j: -rid[j]):
            _undo_env(ct, s, r, dd, j)
            defect = np.array([ct.defect[cj[j]] if cj[j] >= 0 else -1])
            uncarry(s, one, at, defect, defect >= 0)
        for j in sorted(later, key=lambda j: rid[j]):
            eff = _effective(ch, r, dd, j)
            keys = ct.env_key[eff][ct.env_key[eff] >= 0] if eff >= 0 else []
            dp.git_env[r, dd, keys] = now[keys]
            defect = np.array([ct.defect[cj[j]] if cj[j] >= 0 else -1])
            _carry(s, one, at, defect, (defect >= 0) & ~np.isin(defect, dp.carried[r, dd]))
        ch.undone[r, dd, drop & (rid < up)] = False
        if not keep:
            ch.undone[r, dd, (rid >= 0) & (rid >= up)] = True
        ch.base_rid[r, dd] = -1


def _effective(ch, r: int, dd: int, j: int) -> int:
    """The catalog change record ``j`` concerns: the one it delivers, or the one it reverts."""
    return int(ch.cid[r, dd, j]) if ch.cid[r, dd, j] >= 0 else int(ch.inv_cid[r, dd, j])


def _undo_env(ct, s: TwinState, r: int, dd: int, j: int) -> None:
    """Set the manifest's env keys of record ``j`` back to what they were before it (``prev``)."""
    eff = _effective(s.changes, r, dd, j)
    if eff >= 0:
        keys, prev = ct.env_key[eff], s.changes.prev[r, dd, j]
        on = (keys >= 0) & (prev >= 0)
        s.deps.git_env[r, dd, keys[on]] = prev[on]


def base_meets(prm: TwinParams, s: TwinState, rows, d) -> np.ndarray:
    """[P] a change still in the head after the last commit built on the base tree meets the
    edits of that commit or of a change it dropped (the commit's revert then conflicts)."""
    ct = tables(prm.layout).changes
    ch = s.changes
    y = ch.base_rid[rows, d]
    rid, cj = ch.rid[rows, d], ch.cid[rows, d]
    later = (rid > y[:, None]) & ~ch.undone[rows, d] & (cj >= 0)
    eff = np.where(cj >= 0, cj, ch.inv_cid[rows, d])
    mine = (ch.base_drop[rows, d] | (rid == y[:, None])) & (eff >= 0)
    meet = ct.overlap[np.maximum(eff, 0)[:, :, None], np.maximum(cj, 0)[:, None, :]]
    return (meet & mine[:, :, None] & later[:, None, :]).any(axis=(1, 2)) & (y >= 0)


def base_case(s: TwinState, rows, d, rid) -> tuple[np.ndarray, np.ndarray]:
    """[P] (record ``rid`` is the last commit built on the base tree, it is one that commit
    dropped)."""
    ch = s.changes
    y = ch.base_rid[rows, d]
    own = (y >= 0) & (rid == y)
    dropped = ((ch.rid[rows, d] == rid[:, None]) & ch.base_drop[rows, d]).any(axis=1) & (y >= 0)
    return own, dropped & ~own


def rearm(prm: TwinParams, s: TwinState, rows, d, c, on) -> None:
    """Committing change ``c`` [P] (where ``on``) puts back text that a carried defect's fix
    predicate forbids: a defect whose lines an agent's revert took out is carried again."""
    rearms = tables(prm.layout).changes.rearms  # [NC, ND]
    car = s.deps.carried[rows, d]  # [P, 4]
    hit = (car >= 0) & rearms[np.maximum(c, 0)[:, None], np.maximum(car, 0)] & on[:, None]
    r, k = np.nonzero(hit & s.deps.patched[rows, d])
    s.deps.patched[rows[r], d[r], k] = False


def disarm(prm: TwinParams, s: TwinState, rows, d, c, on) -> None:
    """Taking change ``c`` [P] out of the head (where ``on``) takes out the text it re-armed
    defects with (``rearm``): those whose own lines are out (their record reverted) are fixed
    again."""
    tab = tables(prm.layout)
    car = s.deps.carried[rows, d]  # [P, 4]
    hit = (car >= 0) & tab.changes.rearms[np.maximum(c, 0)[:, None], np.maximum(car, 0)]
    hit &= on[:, None] & ~s.deps.patched[rows, d]
    own = tab.defects.change[np.maximum(car, 0)]  # [P, 4] the defects' own changes
    ch = s.changes
    out = (ch.cid[rows, d][:, None, :] == own[:, :, None]) & ch.undone[rows, d][:, None, :]
    r, k = np.nonzero(hit & out.any(axis=2))
    s.deps.patched[rows[r], d[r], k] = True


def set_patched(s: TwinState, rows, d, defect, on, value: bool) -> None:
    """An agent's revert took ``defect``'s lines out of the head (``value``) or put them back;
    the pipeline keeps tracking it either way, so a build carries it again once they are back."""
    hit = (s.deps.carried[rows, d] == defect[:, None]) & on[:, None] & (defect >= 0)[:, None]
    r, k = np.nonzero(hit)
    s.deps.patched[rows[r], d[r], k] = value


def log_change(
    prm: TwinParams,
    s: TwinState,
    rows,
    d,
    t,
    rev,
    cid,
    prev=None,
    inv_cid=None,
    inv_add=None,
    at_end=None,
) -> np.ndarray:
    """Append a change record to each service's log; returns the record ids."""
    ch = s.changes
    rid = ch.n[rows].copy()
    ch.n[rows] += 1
    L = ch.t.shape[2]
    pos = ch.svc_n[rows, d] % L
    ch.svc_n[rows, d] += 1
    ch.t[rows, d, pos] = t
    ch.rev[rows, d, pos] = rev
    ch.diff[rows, d, pos] = True
    ch.rid[rows, d, pos] = rid
    ch.cid[rows, d, pos] = cid
    ch.prev[rows, d, pos] = -1 if prev is None else prev
    ch.undone[rows, d, pos] = False
    ch.inv_cid[rows, d, pos] = -1 if inv_cid is None else inv_cid
    ch.inv_add[rows, d, pos] = False if inv_add is None else inv_add
    ch.at_end[rows, d, pos] = False if at_end is None else at_end
    return rid


def lands_at_end(prm: TwinParams, s: TwinState, rows, d, c) -> np.ndarray:
    """[P] an env-only change committed now puts its lines at the end of the env list: its diff
    appends there, or it inserts where a change still in the head already added lines, so that
    neither the diff nor a three-way merge applies and the pipeline sets the variables instead
    (``Pipeline.commit`` -> ``with_env``, which appends)."""
    ct = tables(prm.layout).changes
    ch = s.changes
    anchor = ct.env_anchor[c]
    cj = ch.cid[rows, d]  # [P, L]
    added = (ch.prev[rows, d] == 0).any(axis=2) & (cj >= 0) & ~ch.undone[rows, d]
    same = added & (ct.env_anchor[np.maximum(cj, 0)] == anchor[:, None]) & (anchor >= 0)[:, None]
    return ct.env_only[c] & (ct.env_end[c] | same.any(axis=1))


@functools.cache
def base_env_tail(lay: Layout) -> np.ndarray:
    """[D] the last variable of each deployment's env list in its base manifest (-1: none, or
    not tracked): the line a variable appended at the end goes right after."""
    from sre_gym.catalogs.schema import manifest_path
    from sre_gym.sim.source_trees import base_tree, env_block, services_with_trees

    tab = tables(lay)
    tracked = set(services_with_trees(lay.app))
    out = np.full(lay.D, -1, dtype=np.int64)
    for d, svc in enumerate(lay.dep_names):
        if svc not in tracked:
            continue
        lines = base_tree(lay.app, svc).get(manifest_path(svc), "").split("\n")
        span = env_block(lines)
        names = [] if span is None else lines[span[0] + 1 : span[1]]
        names = [ln.strip()[len("- name:") :].strip().strip('"') for ln in names]
        names = [n for n in names if n and n in tab.env.key_of]
        out[d] = tab.env.key_of[names[-1]] if names else -1
    return out


def env_tail_before(prm: TwinParams, s: TwinState, rows, d) -> np.ndarray:
    """[P, L] the variable last in the env list just before each record of deployment ``d`` was
    committed: the last one a change still in the head appended at the end before it, else the
    base manifest's last (``base_env_tail``). Reverted appends count as gone (as of now)."""
    ct = tables(prm.layout).changes
    ch = s.changes
    cj = ch.cid[rows, d]  # [P, L]
    keys = ct.env_key[np.maximum(cj, 0)]  # [P, L, KK]
    new = (ch.prev[rows, d] == 0) & (keys >= 0)
    last_new = np.where(new, keys, -1).max(axis=2)  # (the variable an append leaves last)
    app = ch.at_end[rows, d] & (cj >= 0) & ~ch.undone[rows, d] & (last_new >= 0)
    rid = ch.rid[rows, d]
    # the latest such append before each record (by record id: the log is a ring)
    earlier = app[:, None, :] & (rid[:, None, :] < rid[:, :, None])  # [P, L(j), L(k)]
    best = np.where(earlier, rid[:, None, :], -1).argmax(axis=2)
    tail = np.take_along_axis(last_new, best, axis=1)
    return np.where(earlier.any(axis=2), tail, base_env_tail(prm.layout)[d][:, None])


def revert_conflicts(prm: TwinParams, s: TwinState, rows, a, c) -> np.ndarray:
    """[P] the revert of record ``c`` of service ``a`` conflicts with a later change still in
    the head (``Pipeline.revert_diff``: "conflicts with later changes to the same lines"): one
    whose edits meet its own (``ChangeTables.overlap``), or, for env changes, lines that sit
    together in the manifest's env list: two that both added their variable (it was not set
    before) at the end of the list (``deploys.lands_at_end``), or a variable's value line and an
    append right after it (``deploys.env_tail_before``). Later patch records (no catalog change)
    count as meeting nothing."""
    ct = tables(prm.layout).changes
    ch = s.changes
    # the revert of an agent's revert meets what the change it concerns meets
    cx = np.where(ch.cid[rows, a, c] >= 0, ch.cid[rows, a, c], ch.inv_cid[rows, a, c])  # [P]
    cj = ch.cid[rows, a]  # [P, L]
    later = (ch.t[rows, a] > ch.t[rows, a, c][:, None]) & ~ch.undone[rows, a] & (cj >= 0)
    later &= (cx >= 0)[:, None]
    cxx, cjj = np.maximum(cx, 0), np.maximum(cj, 0)
    meet = ct.overlap[cxx[:, None], cjj]
    appended = ((ch.prev[rows, a] == 0) & (ct.env_key[cjj] >= 0)).any(axis=2)  # [P, L]
    app_x = np.take_along_axis(appended, c[:, None], axis=1)[:, 0]
    end_x = np.take_along_axis(ch.at_end[rows, a], c[:, None], axis=1)
    env = (end_x & app_x[:, None]) & (ch.at_end[rows, a] & appended)
    # a value line and an append right after it sit together too: the revert of a change that
    # set the variable last in the list when a later change appended, or of an append made right
    # after a variable a later change set
    tail = env_tail_before(prm, s, rows, a)  # [P, L]
    kx, kj = ct.env_key[cxx], ct.env_key[cjj]  # [P, KK], [P, L, KK]
    set_x = (kx >= 0) & (ch.prev[rows, a, c] != 0)
    set_j = (kj >= 0) & (ch.prev[rows, a] != 0)
    after_x = (
        ch.at_end[rows, a]
        & appended
        & (set_x[:, None, :] & (kx[:, None] == tail[..., None])).any(2)
    )
    tail_x = tail[np.arange(len(rows)), c]
    before_x = (end_x[:, 0] & app_x)[:, None] & (set_j & (kj == tail_x[:, None, None])).any(axis=2)
    return (later & (meet | env | after_x | before_x)).any(axis=1)


def step_back(prm: TwinParams, s: TwinState, rows, d, upto) -> None:
    """Go back to the head before record ``upto`` [P] (``Pipeline.revert`` when the revert does
    not merge: the tree before the change): the records from it on that are in the head leave
    it, newest first, each undoing its env edits (back to its ``prev``) and its defect, and a
    revert among them puts the change it took out back (its latest delivery)."""
    ct = tables(prm.layout).changes
    ch = s.changes
    for i in range(len(rows)):
        r, dd, up = int(rows[i]), int(d[i]), int(upto[i])
        one, at = np.array([r]), np.array([dd])
        rid, cj = ch.rid[r, dd], ch.cid[r, dd]
        for j in sorted(np.nonzero((rid >= up) & ~ch.undone[r, dd])[0], key=lambda j: -rid[j]):
            _undo_env(ct, s, r, dd, j)
            eff = _effective(ch, r, dd, j)
            defect = np.array([ct.defect[eff] if eff >= 0 else -1])
            if cj[j] >= 0:
                uncarry(s, one, at, defect, defect >= 0)
            elif eff >= 0:  # (a revert: the delivery it took out is back)
                back = np.nonzero((cj == eff) & (rid < rid[j]) & ch.undone[r, dd])[0]
                if len(back):
                    ch.undone[r, dd, back[np.argmax(rid[back])]] = False
                    _carry(s, one, at, defect, defect >= 0)
            ch.undone[r, dd, j] = True


def mark_undone(s: TwinState, rows, rid) -> None:
    """The records ``rid`` [P] were reverted (their changes are out of the head)."""
    ch = s.changes
    hit = ch.rid[rows] == rid[:, None, None]
    r, d, j = np.nonzero(hit)
    ch.undone[rows[r], d, j] = True


def set_flags(prm: TwinParams, s: TwinState, rows, flag, var) -> None:
    """Choose variants ``var`` [P, FC] of flags ``flag`` [P, FC] (-1 pad) (``_set_flags``)."""
    from sre_gym.twin.world import flag_effects

    on = flag >= 0
    r, j = np.nonzero(on)
    s.world.flag_var[rows[r], flag[r, j]] = var[r, j]
    flag_effects(prm, s, rows)


def deploy_change(
    prm: TwinParams, s: TwinState, rows, c, t, revert: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Roll out catalog change ``c`` [P] at ``t`` (``revert``: the ``git revert`` of a code
    change delivered earlier). Returns (record id, revision) per row."""
    rows, c = np.asarray(rows), np.asarray(c)
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    tab = tables(prm.layout)
    ct = tab.changes
    dp = s.deps
    revert = np.zeros(len(rows), dtype=bool) if revert is None else revert
    d = ct.dep[c]
    kind = ct.kind[c]
    tracked = ct.tracked[c]
    defect = ct.defect[c]
    keys = ct.env_key[c]  # [P, KC]
    has_key = keys >= 0
    fb = on_base(prm, s, rows, d, c, tracked & ~revert & ~ct.env_only[c] & (kind != FLAGS))
    prev = np.where(has_key, dp.git_env[rows[:, None], d[:, None], np.maximum(keys, 0)], -1)
    # the pipeline: a commit carries its defect, a revert takes it out; a config commit edits
    # the manifest at the head
    _carry(s, rows, d, defect, tracked & ~revert & (defect >= 0))
    uncarry(s, rows, d, defect, tracked & revert & (defect >= 0))
    rearm(prm, s, rows, d, c, tracked & ~revert)
    git = tracked & ~revert & (kind == CONFIG)
    r, j = np.nonzero(has_key & git[:, None])
    dp.git_env[rows[r], d[r], keys[r, j]] = ct.env_code[c[r], j]
    rev = np.zeros(len(rows), dtype=np.int64)
    fl = kind == FLAGS
    if fl.any():
        set_flags(prm, s, rows[fl], ct.flag[c[fl]], ct.flag_var[c[fl]])
        fd = d[fl]
        rev[fl] = dp.rv_num[rows[fl], fd, dp.n_rev[rows[fl], fd] - 1]
    go = ~fl
    if go.any():
        rr, dd, cc, tt = rows[go], d[go], c[go], t[go]
        tpl = controller.template(s, rr, dd)
        k = kind[go]
        code = k == CODE
        if code.any():
            nb = dp.builds[rr[code]]
            dp.builds[rr[code]] += 1
            tpl["rv_img"][code] = FIRST_BUILD + nb
            carried = first_carried(prm, s, rr[code], dd[code])
            nd = len(tab.defects.change)
            own = np.where(
                revert[go][code], nd, np.where(defect[go][code] >= 0, defect[go][code], nd)
            )
            tpl["rv_defect"][code] = np.where(tracked[go][code], carried, own)
            tpl["rv_img_ok"][code] = True
        img = k == IMAGE
        if img.any():
            ok = ct.tag_ok[cc[img]]
            tpl["rv_img"][img] = ct.tag[cc[img]]
            carried = first_carried(prm, s, rr[img], dd[img])
            nd = len(tab.defects.change)
            tpl["rv_defect"][img] = np.where(ok & tracked[go][img], carried, nd)
            tpl["rv_img_ok"][img] = ok
        cfg = k == CONFIG
        if cfg.any():
            kk = keys[go]
            r2, j2 = np.nonzero(has_key[go] & cfg[:, None])
            tpl["rv_env"][r2, kk[r2, j2]] = ct.env_code[cc[r2], j2]
            cpu, mem, port = ct.cpu[cc], ct.mem[cc], ct.port[cc]
            tpl["rv_cpu"] = np.where(cfg & ~np.isnan(cpu), cpu, tpl["rv_cpu"])
            tpl["rv_mem"] = np.where(cfg & ~np.isnan(mem), mem, tpl["rv_mem"])
            tpl["rv_port"] = np.where(cfg & (port >= 0), port, tpl["rv_port"])
        rev[go] = controller.new_revision(prm, s, rr, dd, tpl, tt)
    end = lands_at_end(prm, s, rows, d, c) & ~revert
    # a revert commit is a record of taking the change out (its own revert puts it back)
    cid, inv = np.where(revert, -1, c), np.where(revert, c, -1)
    rid = log_change(prm, s, rows, d, t, rev, cid, prev, inv_cid=inv, at_end=end)
    s.changes.base_rid[rows[fb], d[fb]] = rid[fb]
    return rid, rev


def revert_patch(
    prm: TwinParams, s: TwinState, rows, d, eff, adds, prev, t
) -> tuple[np.ndarray, np.ndarray]:
    """The agent's ``submit_patch(revert=<record>)`` on service ``d``, built and rolled out with
    the manifest's env (``Pipeline.submit`` + ``deploy_patch``). The record concerns catalog
    change ``eff`` (-1: none the twin tracks) and ``adds`` it (a delivery, or a revert of a revert)
    or takes it out; its revert does the opposite: the change's lines leave the head (its defect's
    fix holds) or come back (a build carries the defect again), and the manifest's env keys of the
    change go back to the record's ``prev``. Returns (record id, revision)."""
    rows, d, eff = np.asarray(rows), np.asarray(d), np.asarray(eff)
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    tab = tables(prm.layout)
    ct = tab.changes
    dp = s.deps
    known = eff >= 0
    cc = np.maximum(eff, 0)
    defect = np.where(known, ct.defect[cc], -1)
    set_patched(s, rows, d, defect, known & adds, True)
    set_patched(s, rows, d, defect, known & ~adds, False)
    rearm(prm, s, rows, d, eff, known & ~adds)  # (the change's lines are back)
    disarm(prm, s, rows, d, eff, known & adds)
    keys = np.where(known[:, None], ct.env_key[cc], -1)
    now = np.where(keys >= 0, dp.git_env[rows[:, None], d[:, None], np.maximum(keys, 0)], -1)
    r, j = np.nonzero((keys >= 0) & (prev >= 0))
    dp.git_env[rows[r], d[r], keys[r, j]] = prev[r, j]
    tpl = controller.template(s, rows, d)
    nb = dp.builds[rows]
    dp.builds[rows] += 1
    tpl["rv_img"] = FIRST_BUILD + nb
    tpl["rv_defect"] = first_carried(prm, s, rows, d)
    tpl["rv_img_ok"] = np.ones(len(rows), dtype=bool)
    manifest = known & np.isin(np.where(known, ct.kind[cc], -1), (CONFIG, IMAGE))
    git = dp.git_env[rows, d]
    tpl["rv_env"] = np.where(manifest[:, None] & (git > 0), git, tpl["rv_env"])
    rev = controller.new_revision(prm, s, rows, d, tpl, t)
    rid = log_change(
        prm, s, rows, d, t, rev, np.full(len(rows), -1), now, np.where(known, eff, -1), ~adds
    )
    # which records can be reverted now: those whose edit matches the head (``undone``: the
    # revert of a change already out of the head, or of a take-out already undone, is empty)
    ch = s.changes
    same = (ch.cid[rows, d] == eff[:, None]) | (ch.inv_cid[rows, d] == eff[:, None])
    same &= known[:, None]
    added = (ch.cid[rows, d] >= 0) | ch.inv_add[rows, d]
    now_out = adds[:, None]  # the change is out of the head after this revert
    r, j = np.nonzero(same)
    ch.undone[rows[r], d[r], j] = (added == now_out)[r, j]
    return rid, rev
