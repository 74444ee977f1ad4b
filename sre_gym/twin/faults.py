"""Fault injection, presence and revert, ported from ``sim/faults/mechanisms.py`` and
``orchestrator/faults.py:FaultDriver`` as masked updates over the episodes a fault event touches.

Every mechanism of the catalogs has its twin form: a change delivered through the pipeline (code,
image, config, flags), a condition on the target's pods or attached by selector, an egress
allow-list, nodes (or a zone's) that stop reporting, a scale to zero and an edited address. Each
fault's artifact aliases are kept as codes (``codes.py``), its scope as entity masks.

Differs from the full simulator: artifact aliases are only those a discrete remedy can name
(commits, ``svc@rev``, pods, ``deployment/svc``, nodes, zones, policies, env keys, flags); the rest
(image names, other spellings) are left out, which no twin policy can tell.
"""

from __future__ import annotations

import numpy as np

from sre_gym.sim.faults.mechanisms import SELECTOR_HEADROOM
from sre_gym.sim.pods import TERMINATING
from sre_gym.twin import codes as K
from sre_gym.twin import controller, deploys, world
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import (
    CODE,
    CONFIG,
    FLAGS,
    IMAGE,
    M_CHANGE,
    M_DRIFT,
    M_NODE,
    M_PARTITION,
    M_POD_BALLOON,
    M_POD_DELAY,
    M_POD_HOG,
    M_REPLICAS0,
    M_SEL_BALLOON,
    M_SEL_DELAY,
    M_SEL_HOG,
    M_ZONE,
    MAG_BALLOON_FRAC,
    MAG_CORES_FRAC,
    POD_FIELD,
    tables,
)

POD_MECHS = (M_POD_HOG, M_POD_DELAY, M_POD_BALLOON)
SEL_MECHS = (M_SEL_HOG, M_SEL_DELAY, M_SEL_BALLOON)


def extra_keys(prm: TwinParams) -> tuple[int, int, int]:
    """DEPKEY key ids past the env keys: the CPU limit, the memory limit, the readiness port."""
    ke = len(tables(prm.layout).env.keys)
    return ke, ke + 1, ke + 2


def _fields(p):
    return (p.hog, p.delay, p.balloon)


def _aliases(s: TwinState, rows, f, codes_list: list[np.ndarray]) -> None:
    """Append codes (each [P], 0 to skip) to the faults' alias lists."""
    al = s.faults.alias
    for cd in codes_list:
        cd = np.asarray(cd, dtype=np.int64)
        pos = (al[rows, f] != 0).sum(axis=1)
        ok = (cd != 0) & (pos < al.shape[2])
        al[rows[ok], f[ok], pos[ok]] = cd[ok]


def magnitude(prm: TwinParams, s: TwinState, rows, d, cat) -> np.ndarray:
    """A pod condition's size from the target's current limits (``mechanisms.magnitude``)."""
    ft = tables(prm.layout).faults
    pos = controller.current(s, rows, d)
    cpu = s.deps.rv_cpu[rows, d, pos]
    mem = s.deps.rv_mem[rows, d, pos]
    mk, mag = ft.mag_kind[cat], ft.mag[cat]
    return np.where(
        mk == MAG_CORES_FRAC, mag * cpu, np.where(mk == MAG_BALLOON_FRAC, mag * mem, mag)
    )


def set_condition(s: TwinState, rows, d, field: np.ndarray, value) -> np.ndarray:
    """Set a runtime condition on every live pod of ``d`` (``set_pod_condition``); returns the
    [P, C] mask of pods set."""
    p = s.pods
    live = p.alive[rows, d] & (p.state[rows, d] != TERMINATING)
    value = np.broadcast_to(np.asarray(value, dtype=float), rows.shape)
    for j, arr in enumerate(_fields(p)):
        sel = field == j
        if sel.any():
            cur = arr[rows[sel], d[sel]]
            arr[rows[sel], d[sel]] = np.where(live[sel], value[sel, None], cur)
    return live


def set_nodes(prm: TwinParams, s: TwinState, rows, nodes: np.ndarray, ready: bool, t) -> np.ndarray:
    """Nodes ``nodes`` [P, K] stop (or resume) reporting Ready (``set_node_ready``); every
    deployment is dirty. Returns [P, D] deployments with live pods on those nodes."""
    w, p = s.world, s.pods
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape)
    r, k = np.nonzero(nodes)
    w.node_ready[rows[r], k] = ready
    w.node_down[rows[r], k] = np.inf if ready else t[r]
    s.deps.dirty[rows] = True
    live = p.alive[rows] & (p.state[rows] != TERMINATING)
    on = (p.node[rows][..., None] == np.arange(prm.layout.K)) & nodes[:, None, None, :]
    return (live[..., None] & on).any(axis=(2, 3))


# ------------------------------------------------------------------ inject
def inject(prm: TwinParams, s: TwinState, rows, f, t) -> None:
    """Inject scheduled fault ``f`` of each row at ``t`` (``FaultDriver.inject``)."""
    lay = prm.layout
    tab = tables(lay)
    ft = tab.faults
    fs = s.faults
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    cat = fs.cat[rows, f]
    mech, target = ft.mech[cat], ft.target[cat]
    fs.injected[rows, f] = True
    fs.affected[rows, f] = ft.affected[cat]
    fs.alias[rows, f] = 0
    for m in np.unique(mech):
        sel = mech == m
        _INJECT[int(m)](prm, s, rows[sel], f[sel], cat[sel], target[sel], t[sel])


def _inject_change(prm, s, rows, f, cat, d, t) -> None:
    tab = tables(prm.layout)
    ct = tab.changes
    fs, dp = s.faults, s.deps
    c = tab.faults.change[cat]
    pos = controller.current(s, rows, d)
    for src, dst in (
        ("rv_img", "before_img"),
        ("rv_defect", "before_defect"),
        ("rv_img_ok", "before_ok"),
        ("rv_env", "before_env"),
        ("rv_cpu", "before_cpu"),
        ("rv_mem", "before_mem"),
        ("rv_port", "before_port"),
    ):
        getattr(fs, dst)[rows, f] = getattr(dp, src)[rows, d, pos]
    keys = ct.env_key[c]
    fs.before_git[rows, f] = np.where(
        keys >= 0, dp.git_env[rows[:, None], d[:, None], np.maximum(keys, 0)], -1
    )
    rid, rev = deploys.deploy_change(prm, s, rows, c, t)
    pos = controller.current(s, rows, d)
    fs.after_img[rows, f] = dp.rv_img[rows, d, pos]
    fs.after_cpu[rows, f] = dp.rv_cpu[rows, d, pos]
    fs.after_mem[rows, f] = dp.rv_mem[rows, d, pos]
    fs.commit[rows, f] = rid
    fs.rev[rows, f] = rev
    cd = ct.dep[c]
    out = [K.code(K.SHA, rid), K.code(K.DEPREV, cd, rev)]
    cfg = ct.kind[c] == CONFIG
    for j in range(keys.shape[1]):
        on = cfg & (keys[:, j] >= 0)
        kj = np.maximum(keys[:, j], 0)
        out += [np.where(on, K.code(K.ENV, kj), 0), np.where(on, K.code(K.DEPKEY, cd, kj), 0)]
    kcpu, kmem, kport = extra_keys(prm)
    out += [
        np.where(cfg & ~np.isnan(ct.cpu[c]), K.code(K.DEPKEY, cd, kcpu), 0),
        np.where(cfg & ~np.isnan(ct.mem[c]), K.code(K.DEPKEY, cd, kmem), 0),
        np.where(cfg & (ct.port[c] >= 0), K.code(K.DEPKEY, cd, kport), 0),
    ]
    fl = ct.flag[c]
    for j in range(fl.shape[1]):
        on = fl[:, j] >= 0
        fj = np.maximum(fl[:, j], 0)
        out += [np.where(on, K.code(K.FLAG, fj), 0), np.where(on, K.code(K.FLAGD, fj), 0)]
    _aliases(s, rows, f, out)


def _inject_pod(prm, s, rows, f, cat, d, t) -> None:
    field = np.array([POD_FIELD[int(m)] for m in tables(prm.layout).faults.mech[cat]])
    hit = set_condition(s, rows, d, field, magnitude(prm, s, rows, d, cat))
    fs = s.faults
    fs.pods[rows, f] = np.where(hit, s.pods.inc[rows, d], -1)
    C = prm.layout.C
    codes_ = [
        np.where(hit[:, c], K.code(K.POD, d * C + c, s.pods.inc[rows, d, c]), 0) for c in range(C)
    ]
    none = ~hit.any(axis=1)
    _aliases(s, rows, f, [*codes_, np.where(none, K.code(K.DEPLOYMENT, d), 0)])


def _inject_selector(prm, s, rows, f, cat, d, t) -> None:
    field = np.array([POD_FIELD[int(m)] for m in tables(prm.layout).faults.mech[cat]])
    amount = magnitude(prm, s, rows, d, cat)
    s.deps.sel_on[rows, d, field] = True
    s.deps.sel_amt[rows, d, field] = amount
    hit = set_condition(s, rows, d, field, amount)
    s.faults.amount[rows, f] = amount
    C = prm.layout.C
    codes_ = [
        np.where(hit[:, c], K.code(K.POD, d * C + c, s.pods.inc[rows, d, c]), 0) for c in range(C)
    ]
    _aliases(s, rows, f, [K.code(K.DEPLOYMENT, d), *codes_])


def _inject_partition(prm, s, rows, f, cat, d, t) -> None:
    pol = tables(prm.layout).faults.policy[cat]
    s.world.pol_on[rows, pol] = True
    s.world.pol_created[rows, pol] = t
    world.blocked(prm, s, rows)
    _aliases(s, rows, f, [K.code(K.NETPOL, s.world.pol_name[rows, pol])])


def _inject_nodes(prm, s, rows, f, cat, target, t) -> None:
    lay = prm.layout
    ft = tables(lay).faults
    zone = ft.mech[cat] == M_ZONE
    nodes = np.where(
        zone[:, None],
        lay.node_zone[None, :] == target[:, None],
        np.arange(lay.K)[None, :] == target[:, None],
    )
    s.faults.nodes[rows, f] = nodes
    deps = set_nodes(prm, s, rows, nodes, False, t)[:, : lay.n]
    s.faults.probe_deps[rows, f] = False
    s.faults.probe_deps[rows, f, : lay.n] = deps
    aff = np.zeros((len(rows), lay.U), dtype=bool)
    aff[:, : lay.n] = (deps[:, :, None] & lay.hard_reach[None]).any(axis=1)
    aff[:, lay.D : lay.D + lay.K] = nodes & zone[:, None]
    s.faults.affected[rows, f] = aff
    out = [np.where(zone, K.code(K.ZONE, target), K.code(K.NODENAME, target))]
    out += [
        np.where(nodes[:, k] & (zone | (target == k)), K.code(K.NODE, k), 0) for k in range(lay.K)
    ]
    _aliases(s, rows, f, out)


def _inject_replicas(prm, s, rows, f, cat, d, t) -> None:
    s.faults.replicas[rows, f] = s.deps.replicas[rows, d]
    controller.scale(prm, s, rows, d, 0, t)
    _aliases(s, rows, f, [K.code(K.DEPLOYMENT, d)])


def patch_env(prm: TwinParams, s: TwinState, rows, d, key, code, t) -> np.ndarray:
    """Set (``code`` > 0) or unset (0) one env var of the template (``patch``/``unset_env``)."""
    tpl = controller.template(s, rows, d)
    tpl["rv_env"][np.arange(len(rows)), key] = code
    return controller.new_revision(prm, s, rows, d, tpl, t)


def _inject_drift(prm, s, rows, f, cat, d, t) -> None:
    tab = tables(prm.layout)
    key = tab.faults.drift_key[cat]
    pos = controller.current(s, rows, d)
    cur = s.deps.rv_env[rows, d, pos, key]
    value = tab.env.drift[cur]
    s.faults.before_env[rows, f, 0] = cur
    s.faults.drift_code[rows, f] = value
    rev = patch_env(prm, s, rows, d, key, value, t)
    s.faults.rev[rows, f] = rev
    _aliases(s, rows, f, [K.code(K.ENV, key), K.code(K.DEPKEY, d, key), K.code(K.DEPREV, d, rev)])


_INJECT = {
    M_CHANGE: _inject_change,
    **dict.fromkeys(POD_MECHS, _inject_pod),
    **dict.fromkeys(SEL_MECHS, _inject_selector),
    M_PARTITION: _inject_partition,
    M_NODE: _inject_nodes,
    M_ZONE: _inject_nodes,
    M_REPLICAS0: _inject_replicas,
    M_DRIFT: _inject_drift,
}


# ------------------------------------------------------------------ presence
def present(prm: TwinParams, s: TwinState, rows, f) -> np.ndarray:
    """Is each fault's artifact still in place (``Mechanism.present``)? [P] bool."""
    lay = prm.layout
    tab = tables(lay)
    ft, ct = tab.faults, tab.changes
    fs, dp, p = s.faults, s.deps, s.pods
    cat = fs.cat[rows, f]
    mech, d = ft.mech[cat], ft.target[cat]
    out = np.zeros(len(rows), dtype=bool)
    dd = np.minimum(d, lay.D - 1)
    pos = controller.current(s, rows, dd)
    # a change delivered
    ch = mech == M_CHANGE
    if ch.any():
        c = ft.change[np.where(ch, cat, 0)]
        k = ct.kind[c]
        img = dp.rv_img[rows, dd, pos]
        fl = ct.flag[c]
        if s.world.flag_var.shape[1]:
            var = s.world.flag_var[rows[:, None], np.maximum(fl, 0)]
            flags_on = ((fl >= 0) & (var == ct.flag_var[c])).any(axis=1)
        else:
            flags_on = np.zeros(len(rows), dtype=bool)
        code_on = dp.rv_defect[rows, dd, pos] == ct.defect[c]
        img_on = img == fs.after_img[rows, f]
        keys = ct.env_key[c]
        env = dp.rv_env[rows[:, None], dd[:, None], pos[:, None], np.maximum(keys, 0)]
        cfg_on = ((keys < 0) | (env == ct.env_code[c])).all(axis=1)
        cpu_set, mem_set = ~np.isnan(ct.cpu[c]), ~np.isnan(ct.mem[c])
        cfg_on &= ~cpu_set | (dp.rv_cpu[rows, dd, pos] == fs.after_cpu[rows, f])
        cfg_on &= ~mem_set | (dp.rv_mem[rows, dd, pos] == fs.after_mem[rows, f])
        cfg_on &= (ct.port[c] < 0) | (dp.rv_port[rows, dd, pos] == ct.port[c])
        val = np.select([k == FLAGS, k == CODE, k == IMAGE], [flags_on, code_on, img_on], cfg_on)
        out = np.where(ch, val, out)
    pod = np.isin(mech, POD_MECHS)
    if pod.any():
        inc = fs.pods[rows, f]
        fld = np.stack(_fields(p), axis=-1)[rows, dd]  # [P, C, 3]
        field = np.array([POD_FIELD.get(int(m), 0) for m in mech])
        val = np.take_along_axis(fld, field[:, None, None].repeat(lay.C, 1), axis=2)[..., 0]
        ok = (inc >= 0) & p.alive[rows, dd] & (p.inc[rows, dd] == inc)
        ok &= (val > 0) & (p.state[rows, dd] != TERMINATING)
        out = np.where(pod, ok.any(axis=1), out)
    sel = np.isin(mech, SEL_MECHS)
    if sel.any():
        out = np.where(sel, fs.amount[rows, f] >= SELECTOR_HEADROOM * dp.rv_cpu[rows, dd, pos], out)
    part = mech == M_PARTITION
    if part.any():
        pol = ft.policy[np.where(part, cat, 0)]
        named = world.same_name(s, rows, np.maximum(pol, 0)).any(axis=1)
        out = np.where(part, named, out)
    node = (mech == M_NODE) | (mech == M_ZONE)
    if node.any():
        down = fs.nodes[rows, f] & ~s.world.node_ready[rows]
        out = np.where(node, down.any(axis=1), out)
    rep = mech == M_REPLICAS0
    if rep.any():
        out = np.where(rep, dp.replicas[rows, dd] == 0, out)
    dr = mech == M_DRIFT
    if dr.any():
        key = ft.drift_key[np.where(dr, cat, 0)]
        cur = dp.rv_env[rows, dd, pos, np.maximum(key, 0)]
        out = np.where(dr, cur == fs.drift_code[rows, f], out)
    return out


def always_revert(prm: TwinParams, s: TwinState, rows, f) -> np.ndarray:
    """Revert even when the artifact is gone: a defect still in the head, selector chaos."""
    tab = tables(prm.layout)
    ft, ct = tab.faults, tab.changes
    cat = s.faults.cat[rows, f]
    mech = ft.mech[cat]
    out = np.isin(mech, SEL_MECHS)
    ch = mech == M_CHANGE
    if ch.any():
        c = ft.change[np.where(ch, cat, 0)]
        d = ct.dep[c]
        head = deploys.first_carried(prm, s, rows, d)
        code = ch & (ct.kind[c] == CODE) & ct.tracked[c] & (ct.defect[c] >= 0)
        out |= code & (head == ct.defect[c])
    return out


# ------------------------------------------------------------------ revert
def revert(prm: TwinParams, s: TwinState, rows, f, t) -> None:
    """End each fault's window (``FaultDriver.revert``): undo its artifact if it is still there
    (or must be undone anyway)."""
    fs = s.faults
    t = np.broadcast_to(np.asarray(t, dtype=float), rows.shape).copy()
    go = fs.injected[rows, f] & ~fs.reverted[rows, f]
    rows, f, t = rows[go], f[go], t[go]
    if not len(rows):
        return
    fs.reverted[rows, f] = True
    act = present(prm, s, rows, f) | always_revert(prm, s, rows, f)
    rows, f, t = rows[act], f[act], t[act]
    if not len(rows):
        return
    ft = tables(prm.layout).faults
    cat = fs.cat[rows, f]
    mech = ft.mech[cat]
    for m in np.unique(mech):
        sel = mech == m
        _REVERT[int(m)](prm, s, rows[sel], f[sel], cat[sel], ft.target[cat[sel]], t[sel])


def _revert_change(prm, s, rows, f, cat, d, t) -> None:
    tab = tables(prm.layout)
    ct = tab.changes
    fs, dp = s.faults, s.deps
    c = tab.faults.change[cat]
    k = ct.kind[c]
    fl = k == FLAGS
    if fl.any():
        r = rows[fl]
        deploys.set_flags(prm, s, r, ct.flag[c[fl]], ct.flag_default[c[fl]])
        fd = ct.dep[c[fl]]
        rev = dp.rv_num[r, fd, dp.n_rev[r, fd] - 1]
        deploys.log_change(prm, s, r, fd, t[fl], rev, np.full(len(r), -1))
    # the pipeline's revert: after a commit built on the base tree, reverting it puts back what
    # it dropped (all that came after it too, where a later change meets those edits), and
    # reverting a change it dropped steps back to the tree before that change
    # (``deploys.restore_base``)
    com = fs.commit[rows, f]
    hist = ~fl & ct.tracked[c] & (com >= 0)
    if hist.any():
        r, dd, cm = rows[hist], ct.dep[c[hist]], com[hist]
        own, dropped = deploys.base_case(s, r, dd, cm)
        go = own | dropped
        keep = own & ~deploys.base_meets(prm, s, r, dd)
        deploys.restore_base(prm, s, r[go], dd[go], cm[go], keep[go])
        # a revert that does not merge (a later change still in the head meets its lines) steps
        # back to the tree before the change, taking out all that came after it
        at = s.changes.rid[r, dd] == cm[:, None]
        pos = at.argmax(axis=1)
        live = ~go & at.any(axis=1) & ~s.changes.undone[r, dd, pos]
        stuck = live & deploys.revert_conflicts(prm, s, r, dd, pos)
        deploys.step_back(prm, s, r[stuck], dd[stuck], cm[stuck])
    # the delivery's commit is reverted in the head: a later revert of it merges nothing
    # (``Pipeline.revert_diff`` fails, and so does the agent's submit_patch)
    if hist.any():
        deploys.mark_undone(s, rows[hist], com[hist])
    code = (k == CODE) & ct.tracked[c]
    if code.any():
        deploys.deploy_change(
            prm, s, rows[code], c[code], t[code], revert=np.ones(code.sum(), bool)
        )
    rest = ~fl & ~code
    if rest.any():
        r, dd, cc, tt, ff = rows[rest], d[rest], c[rest], t[rest], f[rest]
        tpl = controller.template(s, r, dd)
        kk = ct.kind[cc]
        img = (kk == CODE) | (kk == IMAGE)
        for src, dst in (
            ("before_img", "rv_img"),
            ("before_defect", "rv_defect"),
            ("before_ok", "rv_img_ok"),
        ):
            tpl[dst] = np.where(img, getattr(fs, src)[r, ff], tpl[dst])
        keys = ct.env_key[cc]
        benv = fs.before_env[r, ff]
        i2, j2 = np.nonzero((keys >= 0) & ~img[:, None])
        tpl["rv_env"][i2, keys[i2, j2]] = benv[i2, keys[i2, j2]]
        cfg = kk == CONFIG
        tpl["rv_cpu"] = np.where(cfg & ~np.isnan(ct.cpu[cc]), fs.before_cpu[r, ff], tpl["rv_cpu"])
        tpl["rv_mem"] = np.where(cfg & ~np.isnan(ct.mem[cc]), fs.before_mem[r, ff], tpl["rv_mem"])
        tpl["rv_port"] = np.where(cfg & (ct.port[cc] >= 0), fs.before_port[r, ff], tpl["rv_port"])
        rev = controller.new_revision(prm, s, r, dd, tpl, tt)
        # the pipeline's revert puts the manifest back as it was before the delivery
        tracked = ct.tracked[cc]
        bg = fs.before_git[r, ff]
        prev = np.where(keys >= 0, dp.git_env[r[:, None], dd[:, None], np.maximum(keys, 0)], -1)
        i3, j3 = np.nonzero((keys >= 0) & (bg >= 0) & tracked[:, None] & cfg[:, None])
        dp.git_env[r[i3], dd[i3], keys[i3, j3]] = bg[i3, j3]
        # in git, a revert commit of the delivery's (its own revert puts the change back)
        inv = np.where(tracked & (fs.commit[r, ff] >= 0), cc, -1)
        deploys.log_change(prm, s, r, dd, tt, rev, np.full(len(r), -1), prev, inv_cid=inv)


def _revert_pod(prm, s, rows, f, cat, d, t) -> None:
    p = s.pods
    field = np.array([POD_FIELD[int(m)] for m in tables(prm.layout).faults.mech[cat]])
    inc = s.faults.pods[rows, f]
    mine = (inc >= 0) & p.alive[rows, d] & (p.inc[rows, d] == inc)
    for j, arr in enumerate(_fields(p)):
        sel = field == j
        if sel.any():
            cur = arr[rows[sel], d[sel]]
            arr[rows[sel], d[sel]] = np.where(mine[sel], 0.0, cur)


def _revert_selector(prm, s, rows, f, cat, d, t) -> None:
    field = np.array([POD_FIELD[int(m)] for m in tables(prm.layout).faults.mech[cat]])
    s.deps.sel_on[rows, d, field] = False
    set_condition(s, rows, d, field, 0.0)


def _revert_partition(prm, s, rows, f, cat, d, t) -> None:
    # the injector deletes by name: the first policy so named, maybe another partition's
    gone = world.first_named(s, rows, tables(prm.layout).faults.policy[cat])
    ok = gone >= 0
    s.world.pol_on[rows[ok], gone[ok]] = False
    world.blocked(prm, s, rows)


def _revert_nodes(prm, s, rows, f, cat, target, t) -> None:
    set_nodes(prm, s, rows, s.faults.nodes[rows, f], True, t)


def _revert_replicas(prm, s, rows, f, cat, d, t) -> None:
    controller.scale(prm, s, rows, d, s.faults.replicas[rows, f], t)


def _revert_drift(prm, s, rows, f, cat, d, t) -> None:
    key = tables(prm.layout).faults.drift_key[cat]
    patch_env(prm, s, rows, d, key, s.faults.before_env[rows, f, 0], t)


_REVERT = {
    M_CHANGE: _revert_change,
    **dict.fromkeys(POD_MECHS, _revert_pod),
    **dict.fromkeys(SEL_MECHS, _revert_selector),
    M_PARTITION: _revert_partition,
    M_NODE: _revert_nodes,
    M_ZONE: _revert_nodes,
    M_REPLICAS0: _revert_replicas,
    M_DRIFT: _revert_drift,
}
