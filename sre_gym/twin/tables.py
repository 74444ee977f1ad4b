"""Catalog data as integer-coded tables: env values, images, defects, changes, faults, flags.

The full simulator keeps a pod template as strings (image, env vars, limits) and compiles each
distinct (deployment, template) into a ``Behaviour`` (``sim/state.py:compile_behaviour``). The twin
keeps a template *factored*: an image id, a defect id, one value code per env key, the limits as
floats, the readiness port and a restart stamp. This module builds, once per app, everything those
codes index: the value vocabulary with what each value means to the dynamics (a wrong address, a
Go duration), each defect's numbers per edge, and each catalog change and fault as rows of arrays.

Differs from the full simulator: limits are compared as numbers (``500m`` and ``0.5`` are the same
template here); a config drift of a value the vocabulary lacks drifts to a shared placeholder.
"""

from __future__ import annotations

import functools
import typing
from dataclasses import dataclass

import numpy as np

from sre_gym import fmath
from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import ProbeSpec, parse_cpu, parse_mem
from sre_gym.orchestrator.changes import _footprint
from sre_gym.orchestrator.faults import POLICY_NAMES
from sre_gym.orchestrator.open_world import HAND_EDITS
from sre_gym.sim.netpol import baseline, blocked
from sre_gym.sim.source_trees import services_with_trees
from sre_gym.sim.state import go_duration_ms, norm_addr
from sre_gym.twin.layout import Layout

# an env value code (values of every env key of the app; a few hundred)
ENV_CODE = np.int16

# change kinds
CODE, CONFIG, IMAGE, FLAGS = 0, 1, 2, 3
# fault mechanisms (the classes of sim/faults/mechanisms.py, with their field)
(
    M_CHANGE,
    M_POD_HOG,
    M_POD_DELAY,
    M_POD_BALLOON,
    M_SEL_HOG,
    M_SEL_DELAY,
    M_SEL_BALLOON,
    M_PARTITION,
    M_NODE,
    M_ZONE,
    M_REPLICAS0,
    M_DRIFT,
) = range(12)
POD_FIELD = {M_POD_HOG: 0, M_POD_DELAY: 1, M_POD_BALLOON: 2, M_SEL_HOG: 0}
POD_FIELD |= {M_SEL_DELAY: 1, M_SEL_BALLOON: 2}
_FIELD_OF = {"cpu_hog": 0, "network_delay": 1, "mem_balloon": 2, "dependency_oom": 2}
# how a pod condition's size is read (mechanisms.magnitude)
MAG_CORES_FRAC, MAG_BALLOON_FRAC, MAG_ABS = 0, 1, 2
# probe kinds, in the catalog schema's order (their codes are indices)
PROBE_KINDS: tuple[str, ...] = typing.get_args(ProbeSpec.model_fields["kind"].annotation)
FIRST_BUILD = 1 << 20  # image ids from here on are builds of this run (below: catalog and tags)


@dataclass(frozen=True)
class EnvTables:
    keys: tuple[str, ...]  # K env keys
    values: tuple[str | None, ...]  # V values; code 0 is "absent"
    key_of: dict[str, int]
    code_of: dict[str, int]
    init: np.ndarray  # [D, K] int16 catalog env of each deployment (also its manifest in git)
    edge_key: np.ndarray  # [M] the caller's address variable of each edge (-1: none)
    addr_bad: np.ndarray  # [M, V] bool: that value of the variable misroutes the edge
    lat_key: np.ndarray  # [D] the deployment's latency variable (-1: none)
    lat_ms: np.ndarray  # [V] the value as a Go duration in ms (0 if it does not parse)
    drift: np.ndarray  # [V] the value a config drift edits it to (mechanisms.drift)
    hand_keys: np.ndarray  # [h] the keys people edit by hand (open_world.HAND_EDITS)


@dataclass(frozen=True)
class DefectTables:
    """Per defect (row ``ND`` is "no defect") what compile_behaviour reads."""

    change: np.ndarray  # [ND] the catalog change carrying it
    err: np.ndarray  # [ND+1]
    lat: np.ndarray
    cpu_mult: np.ndarray
    crash_after: np.ndarray
    leak: np.ndarray
    hold: np.ndarray
    corrupt: np.ndarray
    consume: np.ndarray
    timeout: np.ndarray  # [ND+1, M] ms per edge (the caller's defect overrides it)
    log_timeout: np.ndarray  # [ND+1, M] fmath.log of it (inf where unbounded)
    retries: np.ndarray  # [ND+1, M]
    pool: np.ndarray  # [ND+1, M]
    broken: np.ndarray  # [ND+1, M] bool


@dataclass(frozen=True)
class ChangeTables:
    ids: tuple[str, ...]
    index: dict[str, int]
    dep: np.ndarray  # [NC] deployment
    kind: np.ndarray  # [NC] CODE | CONFIG | IMAGE | FLAGS
    defect: np.ndarray  # [NC] defect id, -1 none
    tracked: np.ndarray  # [NC] bool: its service has a repository (a code change builds from it)
    env_key: np.ndarray  # [NC, KC] keys set (-1 pad)
    env_code: np.ndarray  # [NC, KC] their values
    cpu: np.ndarray  # [NC] new CPU limit (NaN: unchanged)
    mem: np.ndarray  # [NC] new memory limit (NaN: unchanged)
    port: np.ndarray  # [NC] new readiness port (-1: unchanged)
    tag: np.ndarray  # [NC] image id of the tag deployed (image changes), 0 otherwise
    tag_ok: np.ndarray  # [NC] bool: the registry has the tag (published)
    flag: np.ndarray  # [NC, FC] flags set (-1 pad)
    flag_var: np.ndarray  # [NC, FC] variant index set
    flag_default: np.ndarray  # [NC, FC] each set flag's default variant (a revert's value)
    env_only: np.ndarray  # [NC] bool: it only sets env vars (a manifest edit, any head)
    overlap: np.ndarray  # [NC, NC] bool: same service, and their edits meet (the same or
    # adjacent lines of a file, or an env var set by both): a revert of one after the other
    # conflicts (``Pipeline.revert_diff``)
    rearms: np.ndarray  # [NC, ND] bool: the change's lines break that defect's fix predicate
    # (a defect whose lines an agent reverted is carried again once this change is committed)
    env_anchor: np.ndarray  # [NC] env-only: the manifest line its diff inserts before (-1)
    env_end: np.ndarray  # [NC] bool: that line ends the env list (it appends to the list)


@dataclass(frozen=True)
class FaultTables:
    ids: tuple[str, ...]
    index: dict[str, int]
    mech: np.ndarray  # [NF] M_*
    target: np.ndarray  # [NF] deployment, node or zone index (by mechanism)
    change: np.ndarray  # [NF] catalog change (-1)
    mag_kind: np.ndarray  # [NF] MAG_*
    mag: np.ndarray  # [NF] the magnitude parameter
    peer: np.ndarray  # [NF] the peer service (partition, drift), -1
    drift_key: np.ndarray  # [NF] the env key a drift edits (-1)
    policy: np.ndarray  # [NF] policy id of a partition (-1)
    admit: np.ndarray  # [NP, n] bool: what each partition's egress allow-list admits
    culprits: np.ndarray  # [NF, U] bool
    affected: np.ndarray  # [NF, U] bool (node faults add the hard callers of what they strand)
    probe_kind: np.ndarray  # [NF] index in PROBE_KINDS
    probe_svc: np.ndarray  # [NF] service (node, zone, or queue consumer group) the probe reads
    probe_peer: np.ndarray  # [NF] -1
    probe_max: np.ndarray  # [NF] NaN: none
    infra: np.ndarray  # [NF] bool: node or zone (no agent brings the machine back)
    retry_storm: np.ndarray  # [NF] bool: a persistence challenge re-fires its trigger
    trigger: np.ndarray  # [NF, D] bool: the callees whose latency blip re-fires it
    remedies: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FlagTables:
    names: tuple[str, ...]
    service: np.ndarray  # [NFL] deployment whose flag it is
    default: np.ndarray  # [NFL] default variant index
    value: np.ndarray  # [NFL, VMAX] numeric value of each variant (True is 1)
    owned: np.ndarray  # [NFL] bool: the load generator's (never counted)
    err: np.ndarray  # [NFL, n] per unit of the variant's value
    lat: np.ndarray
    hog: np.ndarray
    publish: np.ndarray
    consume: np.ndarray
    leak: np.ndarray  # [NFL, D]
    not_ready: np.ndarray  # [NFL, D] bool
    broken: np.ndarray  # [NFL, M] bool
    has_effect: np.ndarray  # [NFL, n] bool: the flag's effects name the service


@dataclass(frozen=True)
class Tables:
    env: EnvTables
    defects: DefectTables
    changes: ChangeTables
    faults: FaultTables
    flags: FlagTables
    base_blocked: np.ndarray  # [M] bool: edges the namespace's own policies drop
    tag_ids: dict[tuple[str, str], int]
    # images nodes keep (an image is pulled once per node, whichever deployment runs it)
    image_static: np.ndarray  # [D] static image of each deployment's catalog image
    tag_static: np.ndarray  # [T+1] static image of each tag id (0: unused)
    n_static: int


def _env_tables(lay: Layout) -> EnvTables:
    cat = load_catalog(lay.app, include_quarantined=True)
    a = cat.app
    topo = lay.topo
    keys: list[str] = []
    values: list[str | None] = [None]

    def key(k: str) -> int:
        if k not in keys:
            keys.append(k)
        return keys.index(k)

    def code(v: str | None) -> int:
        if v not in values:
            values.append(v)
        return values.index(v)

    for name in lay.dep_names:
        for k, v in a.service(name).env.items():
            key(k), code(v)
    for c in cat.changes:
        for k, v in c.env.items():
            key(k), code(str(v))
    hand = [key(k) for k, _ in HAND_EDITS]
    for _, vs in HAND_EDITS:
        for v in vs:
            code(v)
    for (_, _), var in topo.addr_env.items():
        key(var)
    lat_vars = {a.service(nm).latency_env for nm in lay.dep_names if a.service(nm).latency_env}
    for v in lat_vars:
        key(v)
    # a drift edits an address to the next port (or appends -v2): two rounds close the vocabulary
    for _ in range(2):
        for v in list(values):
            code(_drifted(v))
    other = code("<drifted>")  # what a drift of a value outside the vocabulary gives
    K, V = len(keys), len(values)
    if np.iinfo(ENV_CODE).max <= V:
        raise ValueError(f"{V} env values do not fit the twin's {np.dtype(ENV_CODE).name} codes")
    init = np.zeros((lay.D, K), dtype=ENV_CODE)
    for d, name in enumerate(lay.dep_names):
        for k, v in a.service(name).env.items():
            init[d, keys.index(k)] = values.index(v)
    edge_key = np.full(lay.M, -1, dtype=np.int64)
    addr_bad = np.zeros((lay.M, V), dtype=bool)
    for m, (ca, cb) in enumerate(zip(lay.ga, lay.gb, strict=True)):
        var = topo.addr_env.get((int(ca), int(cb)))
        if var is None:
            continue
        edge_key[m] = keys.index(var)
        want = topo.callee_addr[cb]
        for j, v in enumerate(values):
            got = norm_addr(v)
            addr_bad[m, j] = got != (want if ":" in got else want.split(":")[0])
    lat_key = np.full(lay.D, -1, dtype=np.int64)
    for d, name in enumerate(lay.dep_names):
        var = a.service(name).latency_env
        if var and d < lay.n:
            lat_key[d] = keys.index(var)
    lat_ms = np.zeros(V)
    for j, v in enumerate(values):
        if v is not None:
            ms = go_duration_ms(v)
            lat_ms[j] = ms if ms is not None else 0.0
    at = {v: i for i, v in enumerate(values)}
    drift = np.array([at.get(_drifted(v), other) for v in values], dtype=ENV_CODE)
    return EnvTables(
        keys=tuple(keys),
        values=tuple(values),
        key_of={k: i for i, k in enumerate(keys)},
        code_of={v: i for i, v in enumerate(values) if v is not None},
        init=init,
        edge_key=edge_key,
        addr_bad=addr_bad,
        lat_key=lat_key,
        lat_ms=lat_ms,
        drift=drift,
        hand_keys=np.array(hand, dtype=np.int64),
    )


def _drifted(cur: str | None) -> str:
    """``mechanisms.drift``'s edit of the current value (absent reads as empty)."""
    cur = cur or ""
    host, _, port = cur.rpartition(":")
    if port.isdigit() and host:
        return f"{host}:{int(port) + 1}"
    return f"{cur}-v2"


def _defects(lay: Layout) -> DefectTables:
    cat = load_catalog(lay.app, include_quarantined=True)
    topo = lay.topo
    carriers = [c for c in cat.changes if c.defect is not None]
    nd = len(carriers)
    base_to = topo.timeout_ms[lay.ga, lay.gb]
    base_re = topo.retries[lay.ga, lay.gb]
    base_pool = topo.pool[lay.ga, lay.gb]
    timeout = np.tile(base_to, (nd + 1, 1))
    retries = np.tile(base_re, (nd + 1, 1))
    pool = np.tile(base_pool, (nd + 1, 1))
    broken = np.zeros((nd + 1, lay.M), dtype=bool)
    cols = {k: np.zeros(nd + 1) for k in ("err", "lat", "leak", "hold", "corrupt", "consume")}
    cpu_mult = np.ones(nd + 1)
    crash = np.full(nd + 1, np.inf)
    for i, c in enumerate(carriers):
        d = c.defect
        s = lay.dep_index[c.service]
        cols["err"][i], cols["lat"][i], cols["leak"][i] = (
            d.error_rate,
            d.latency_ms,
            d.mem_leak_mib_s,
        )
        cols["hold"][i], cols["corrupt"][i], cols["consume"][i] = (
            d.hold_ms,
            d.corrupt_rate,
            d.consume_ms,
        )
        cpu_mult[i] = d.cpu_mult
        crash[i] = d.crash_after_s if d.crash_after_s else np.inf
        if s >= lay.n:
            continue
        for m in np.nonzero(lay.ga == s)[0]:
            callee = topo.names[lay.gb[m]]
            if callee in d.timeouts_ms:
                timeout[i, m] = d.timeouts_ms[callee]
            if callee in d.retries:
                retries[i, m] = d.retries[callee]
            if callee in d.pool_size:
                pool[i, m] = d.pool_size[callee]
            broken[i, m] = callee in d.broken_edges
    return DefectTables(
        change=np.array([cat.changes.index(c) for c in carriers], dtype=np.int64),
        cpu_mult=cpu_mult,
        crash_after=crash,
        timeout=timeout,
        log_timeout=fmath.log(timeout),
        retries=retries,
        pool=pool,
        broken=broken,
        **cols,
    )


def _changes(lay: Layout, env: EnvTables, defects: DefectTables) -> tuple[ChangeTables, dict]:
    cat = load_catalog(lay.app, include_quarantined=True)
    a = cat.app
    tracked_svcs = set(services_with_trees(lay.app))
    flag_names = [f.name for f in a.flags]
    tag_ids: dict[tuple[str, str], int] = {}
    for c in cat.changes:
        if c.kind == "image" and c.image_tag is not None:
            tag_ids.setdefault((c.service, c.image_tag), len(tag_ids) + 1)
    nc = len(cat.changes)
    kc = max([len(c.env) for c in cat.changes] + [1])
    fc = max([len(c.flags) for c in cat.changes] + [1])
    env_key = np.full((nc, kc), -1, dtype=np.int64)
    env_code = np.zeros((nc, kc), dtype=ENV_CODE)
    flag = np.full((nc, fc), -1, dtype=np.int64)
    flag_var = np.zeros((nc, fc), dtype=np.int64)
    flag_default = np.zeros((nc, fc), dtype=np.int64)
    defect_of = {int(ch): i for i, ch in enumerate(defects.change)}
    kind = np.zeros(nc, dtype=np.int64)
    tag = np.zeros(nc, dtype=np.int64)
    tag_ok = np.zeros(nc, dtype=bool)
    cpu = np.full(nc, np.nan)
    mem = np.full(nc, np.nan)
    port = np.full(nc, -1, dtype=np.int64)
    for i, c in enumerate(cat.changes):
        kind[i] = FLAGS if c.flags else {"code": CODE, "config": CONFIG, "image": IMAGE}[c.kind]
        for j, (k, v) in enumerate(c.env.items()):
            env_key[i, j], env_code[i, j] = env.key_of[k], env.code_of[str(v)]
        for j, (f, v) in enumerate(c.flags.items()):
            fl = a.flags[flag_names.index(f)]
            flag[i, j] = flag_names.index(f)
            flag_var[i, j] = list(fl.variants).index(v)
            flag_default[i, j] = list(fl.variants).index(fl.default)
        if "cpu_limit" in c.resources:
            cpu[i] = parse_cpu(c.resources["cpu_limit"])
        if "mem_limit" in c.resources:
            mem[i] = parse_mem(c.resources["mem_limit"])
        if c.readiness_port is not None:
            port[i] = c.readiness_port
        if c.kind == "image" and c.image_tag is not None:
            tag[i] = tag_ids[(c.service, c.image_tag)]
            tag_ok[i] = c.image_tag in cat.published_tags.get(c.service, ())
    applied = _applied(lay.app, cat.changes, tracked_svcs)
    return (
        ChangeTables(
            ids=tuple(c.id for c in cat.changes),
            index={c.id: i for i, c in enumerate(cat.changes)},
            dep=np.array([lay.dep_index[c.service] for c in cat.changes], dtype=np.int64),
            kind=kind,
            defect=np.array([defect_of.get(i, -1) for i in range(nc)], dtype=np.int64),
            tracked=np.array([c.service in tracked_svcs for c in cat.changes]),
            env_key=env_key,
            env_code=env_code,
            cpu=cpu,
            mem=mem,
            port=port,
            tag=tag,
            tag_ok=tag_ok,
            flag=flag,
            flag_var=flag_var,
            flag_default=flag_default,
            env_only=np.array([bool(c.env_only) for c in cat.changes]),
            overlap=_overlap(lay.app, cat.changes, applied),
            rearms=_rearms(lay.app, cat.changes, defects.change, applied),
            **_env_anchors(lay.app, cat.changes, tracked_svcs),
        ),
        tag_ids,
    )


def _applied(app: str, changes, tracked) -> list[dict[str, str | None] | None]:
    """Per change, the files its diff changes in its service's base tree (path -> new text, None
    for a deleted file); None for a change with no source diff to apply there (env-only changes,
    which the pipeline applies wherever the settings stand, flags, untracked services)."""
    from sre_gym.sim.diffs import PatchError, apply_diff
    from sre_gym.sim.source_trees import base_tree

    out: list[dict[str, str | None] | None] = []
    for c in changes:
        if c.service not in tracked or not c.diff.strip() or c.env_only:
            out.append(None)
            continue
        tree = base_tree(app, c.service)
        try:
            after = apply_diff(tree, c.diff)[0]
        except PatchError:
            out.append(None)
            continue
        paths = set(tree) | set(after)
        out.append({p: after.get(p) for p in paths if after.get(p) != tree.get(p)})
    return out


def _overlap(app: str, changes, applied) -> np.ndarray:
    """[NC, NC]: the edits of two changes of one service meet: for source and manifest edits
    (``applied``), their diffs against the service's base tree touch the same or adjacent lines of
    a file (``sim/diffs.py:edits_meet``, what a three-way merge refuses) or create or delete the same
    file; otherwise (env-only changes) one variable set by both (``orchestrator/changes.py``'s
    footprints)."""
    from sre_gym.sim.diffs import edits_meet, line_edits
    from sre_gym.sim.source_trees import base_tree

    foot = [_footprint(c) for c in changes]
    # each change's line edits per file it changes (None: it creates or deletes the file)
    edits: list[dict | None] = []
    for c, a in zip(changes, applied, strict=True):
        tree = base_tree(app, c.service) if a is not None else {}
        edits.append(
            None
            if a is None
            else {
                p: None if x is None or p not in tree else line_edits(tree[p], x)
                for p, x in a.items()
            }
        )
    nc = len(changes)
    out = np.zeros((nc, nc), dtype=bool)
    by_svc: dict[str, list[int]] = {}
    for i, c in enumerate(changes):
        by_svc.setdefault(c.service, []).append(i)
    for idx in by_svc.values():
        for i in idx:
            for j in idx:
                a, b = edits[i], edits[j]
                if i == j:
                    continue
                if a is None or b is None:
                    out[i, j] = not foot[i].isdisjoint(foot[j])
                    continue
                out[i, j] = any(
                    a[p] is None or b[p] is None or edits_meet(a[p], b[p])
                    for p in a.keys() & b.keys()
                )
    return out


def _rearms(app: str, changes, defect_change: np.ndarray, applied) -> np.ndarray:
    """[NC, ND]: change c of a service, applied to its base tree, makes the fix predicate of a
    defect of that service fail where it held on the base tree (``Pipeline.defect`` reads every
    carried defect's predicate on the head, so such a commit re-arms a reverted defect)."""
    from sre_gym.sim.source_trees import base_tree, fix_holds

    out = np.zeros((len(changes), len(defect_change)), dtype=bool)
    for i, c in enumerate(changes):
        if applied[i] is None:
            continue
        tree = base_tree(app, c.service)
        after = {**tree, **applied[i]}
        after = {p: t for p, t in after.items() if t is not None}
        for k, j in enumerate(defect_change.tolist()):
            fix = changes[j].fix
            if j == i or changes[j].service != c.service or fix is None:
                continue
            out[i, k] = fix_holds(fix, tree) and not fix_holds(fix, after)
    return out


def _env_anchors(app: str, changes, tracked) -> dict[str, np.ndarray]:
    """Where each env-only change's diff inserts its lines in the service's base manifest, and
    whether that is the end of the env list (``sim/source_trees.py:with_env`` appends there)."""
    from sre_gym.catalogs.schema import manifest_path
    from sre_gym.sim.source_trees import base_tree, env_block
    from sre_gym.unidiff import parse_diff

    anchor = np.full(len(changes), -1, dtype=np.int64)
    end = np.zeros(len(changes), dtype=bool)
    for i, c in enumerate(changes):
        if not (c.env_only and c.diff.strip() and c.service in tracked):
            continue
        lines = base_tree(app, c.service).get(manifest_path(c.service), "").split("\n")
        span = env_block(lines)
        hunks = [h for fp in parse_diff(c.diff) for h in fp.hunks]
        if span is None or len(hunks) != 1:
            continue
        stop = span[1]
        at = hunks[0].old_start - 1  # 0-based line of the hunk's first line
        for kind, _ in hunks[0].lines:
            if kind != " ":
                break
            at += 1
        anchor[i], end[i] = at, at == stop
    return {"env_anchor": anchor, "env_end": end}


def _faults(lay: Layout, env: EnvTables, changes: ChangeTables) -> FaultTables:
    cat = load_catalog(lay.app, include_quarantined=True)
    a = cat.app
    topo = lay.topo
    ent = {e: i for i, e in enumerate(lay.entities)}
    nf = len(cat.faults)
    mech = np.zeros(nf, dtype=np.int64)
    target = np.zeros(nf, dtype=np.int64)
    change = np.full(nf, -1, dtype=np.int64)
    mag_kind = np.full(nf, MAG_ABS, dtype=np.int64)
    mag = np.zeros(nf)
    peer = np.full(nf, -1, dtype=np.int64)
    drift_key = np.full(nf, -1, dtype=np.int64)
    policy = np.full(nf, -1, dtype=np.int64)
    admit: list[np.ndarray] = []
    culprits = np.zeros((nf, lay.U), dtype=bool)
    affected = np.zeros((nf, lay.U), dtype=bool)
    pk = np.zeros(nf, dtype=np.int64)
    ps = np.full(nf, -1, dtype=np.int64)
    pp = np.full(nf, -1, dtype=np.int64)
    pmax = np.full(nf, np.nan)
    groups = [g for _, g in lay.queue_names]
    trigger = np.zeros((nf, lay.D), dtype=bool)
    for i, f in enumerate(cat.faults):
        for c in f.culprits:
            culprits[i, ent[c]] = True
        for c in f.affected:
            affected[i, ent[c]] = True
        sel = f.params.get("attach") == "selector"
        m = f.mechanism
        if f.delivery == "change":
            mech[i], change[i] = M_CHANGE, changes.index[f.change]
            target[i] = lay.dep_index[f.target]
            defect = cat.changes[change[i]].defect
            for callee in defect.retries if defect is not None else ():
                trigger[i, lay.dep_index[callee]] = True
        elif m in _FIELD_OF:
            fld = _FIELD_OF[m]
            mech[i] = (M_SEL_HOG if sel else M_POD_HOG) + fld
            target[i] = lay.dep_index[f.target]
            p = f.params
            if "cores_frac" in p:
                mag_kind[i], mag[i] = MAG_CORES_FRAC, float(p["cores_frac"])
            elif "balloon_frac" in p:
                mag_kind[i], mag[i] = MAG_BALLOON_FRAC, float(p["balloon_frac"])
            else:
                mag[i] = float(next(p[k] for k in ("cores", "delay_ms", "balloon_mi") if k in p))
        elif m == "network_partition":
            mech[i], target[i] = M_PARTITION, lay.dep_index[f.target]
            peer[i] = topo.index[str(f.params["peer"])]
            row = np.zeros(lay.n, dtype=bool)
            for e in a.edges:
                if e.caller == f.target and e.callee != f.params["peer"]:
                    row[topo.index[e.callee]] = True
            policy[i] = len(admit)
            admit.append(row)
        elif m == "node_failure":
            mech[i], target[i] = M_NODE, lay.nodes.index(f.target)
        elif m == "zone_outage":
            mech[i], target[i] = M_ZONE, lay.zones.index(f.target)
        elif m == "replicas_zero":
            mech[i], target[i] = M_REPLICAS0, lay.dep_index[f.target]
        elif m == "config_drift":
            mech[i], target[i] = M_DRIFT, lay.dep_index[f.target]
            peer[i] = topo.index[str(f.params["peer"])]
            var = topo.addr_env[(topo.index[f.target], peer[i])]
            drift_key[i] = env.key_of[var]
        else:  # pragma: no cover - the catalogs use only these mechanisms
            raise ValueError(f"{f.id}: mechanism {m} has no twin form")
        pr = f.probe
        pk[i] = PROBE_KINDS.index(pr.kind)
        if pr.kind == "node_workloads":
            ps[i] = lay.nodes.index(pr.service)
        elif pr.kind == "zone_available":
            ps[i] = lay.zones.index(pr.service)
        elif pr.kind == "queue_lag":
            ps[i] = groups.index(pr.service)
        else:
            ps[i] = topo.index[pr.service]
        if pr.peer is not None:
            pp[i] = topo.index[pr.peer]
        if pr.max is not None:
            pmax[i] = float(pr.max)
    return FaultTables(
        ids=tuple(f.id for f in cat.faults),
        index={f.id: i for i, f in enumerate(cat.faults)},
        mech=mech,
        target=target,
        change=change,
        mag_kind=mag_kind,
        mag=mag,
        peer=peer,
        drift_key=drift_key,
        policy=policy,
        admit=np.array(admit, dtype=bool).reshape(len(admit), lay.n),
        culprits=culprits,
        affected=affected,
        probe_kind=pk,
        probe_svc=ps,
        probe_peer=pp,
        probe_max=pmax,
        infra=np.isin(mech, (M_NODE, M_ZONE)),
        retry_storm=np.array([f.mechanism == "retry_storm" for f in cat.faults]),
        trigger=trigger,
        remedies=tuple(tuple(f.remedies) for f in cat.faults),
    )


def _flags(lay: Layout) -> FlagTables:
    a = lay.topo.app
    topo = lay.topo
    nfl = len(a.flags)
    vmax = max([len(f.variants) for f in a.flags] + [1])
    value = np.zeros((nfl, vmax))
    z = {k: np.zeros((nfl, lay.n)) for k in ("err", "lat", "hog", "publish", "consume")}
    leak = np.zeros((nfl, lay.D))
    not_ready = np.zeros((nfl, lay.D), dtype=bool)
    broken = np.zeros((nfl, lay.M), dtype=bool)
    has = np.zeros((nfl, lay.n), dtype=bool)
    for i, f in enumerate(a.flags):
        for j, v in enumerate(f.variants.values()):
            value[i, j] = 1.0 if v is True else float(v)
        for svc, e in f.effects.items():
            d = lay.dep_index[svc]
            s = topo.index.get(svc)
            if s is not None:
                has[i, s] = True
                z["err"][i, s] = e.error_rate
                z["lat"][i, s] = e.latency_ms
                z["hog"][i, s] = e.cpu_cores
                z["publish"][i, s] = e.publish_copies
                z["consume"][i, s] = e.consume_ms
                for c in e.broken_edges:
                    m = lay.edge_of[s, topo.index[c]]
                    if m >= 0:
                        broken[i, m] = True
            leak[i, d] = e.mem_leak_mib_s
            not_ready[i, d] = e.not_ready
    return FlagTables(
        names=tuple(f.name for f in a.flags),
        service=np.array([lay.dep_index[f.service] for f in a.flags], dtype=np.int64),
        default=np.array([list(f.variants).index(f.default) for f in a.flags], dtype=np.int64),
        value=value,
        owned=np.array([f.benchmark_owned for f in a.flags], dtype=bool),
        leak=leak,
        not_ready=not_ready,
        broken=broken,
        has_effect=has,
        **z,
    )


@functools.cache
def tables(lay: Layout) -> Tables:
    """The coded catalog of ``lay``'s app (cached per layout)."""
    env = _env_tables(lay)
    defects = _defects(lay)
    changes, tag_ids = _changes(lay, env, defects)
    a = lay.topo.app
    base = blocked(a, lay.topo.names, baseline(a, 0.0))
    names: list[str] = []

    def static(img: str) -> int:
        if img not in names:
            names.append(img)
        return names.index(img)

    image_static = np.array([static(a.service(d).image) for d in lay.dep_names], dtype=np.int64)
    tag_static = np.zeros(len(tag_ids) + 1, dtype=np.int64)
    for (svc, tag), i in tag_ids.items():
        tag_static[i] = static(f"{a.service(svc).image.rsplit(':', 1)[0]}:{tag}")
    return Tables(
        env=env,
        defects=defects,
        changes=changes,
        faults=_faults(lay, env, changes),
        flags=_flags(lay),
        base_blocked=base[lay.ga, lay.gb],
        tag_ids=tag_ids,
        image_static=image_static,
        tag_static=tag_static,
        n_static=len(names),
    )


__all__ = ["POLICY_NAMES", "Tables", "tables"]
