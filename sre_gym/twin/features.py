"""The numeric observation and the action mask, from the twin's arrays.

Ports ``wrappers/numeric.py:NumericObservation.features`` (the same eight PromQL queries, compiled
onto the rings like the rule pack; Kubernetes state from the slots and revisions; alert counts
from the alert log; the agent's own incidents and interventions) and
``wrappers/remedies.py:DiscreteRemedies.action_mask`` (which remedies can do something now). The
layout is ``envs/numeric_layout.py``'s, shared with the full simulator's wrappers.

Differs from the full simulator: the per-pod query results are summed per service in the twin's
series-row order (the full simulator's in pod-name order): sums of the same values, so equal to
rounding; an env var's first drifted key is the first in the twin's key order.
"""

from __future__ import annotations

import functools

import numpy as np

from sre_gym import fmath
from sre_gym.clock import EPOCH, MAX_REPLICAS, TICK_S
from sre_gym.envs.numeric_layout import (
    GLOBAL_FEATURES,
    MAX_CPU_CORES,
    QUERIES,
    REMEDIES,
    SERVICE_FEATURES,
)
from sre_gym.sim.pods import TERMINATING
from sre_gym.twin.rules import TwinEngine
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables

COL = {k: j for j, k in enumerate(SERVICE_FEATURES)}
NAMES = tuple(QUERIES)
# 0.1 added k times, as NumericObservation adds it per firing alert (bit for bit)
_TENTHS = np.array([sum([0.1] * k, 0.0) for k in range(512)])


@functools.cache
def _queries(lay):
    """The feature queries compiled for ``lay``, and which services call which."""
    eng = TwinEngine(lay)
    plans = [eng.compile(QUERIES[k]) for k in NAMES]
    idx = lay.topo.index
    callees = np.zeros((lay.n, lay.n), dtype=bool)
    for e in lay.topo.app.edges:
        if e.caller in idx and e.callee in idx:
            callees[idx[e.caller], idx[e.callee]] = True
    return eng, plans, callees


_OWNER: dict[tuple[object, str, int], tuple[tuple, np.ndarray]] = {}


def _owner(lay, k: str, labels: tuple) -> np.ndarray:
    """The service of each output row of query ``k`` (-1: none), cached on the labels object
    (the engine returns the same one while the series rows in use stay the same)."""
    key = (lay, k, id(labels))
    hit = _OWNER.get(key)
    if hit is not None and hit[0] is labels:
        return hit[1]
    idx = lay.topo.index
    label = {"rps": "service_name", "errors": "service_name", "p95": "service_name"}.get(
        k, "deployment" if k in ("ready", "desired") else "pod"
    )
    svc = []
    for ls in labels:
        name = dict(ls).get(label, "")
        if label == "pod":
            name = name.rsplit("-", 2)[0] if name.count("-") >= 2 else name
        svc.append(idx.get(name, -1))
    own = np.array(svc, dtype=np.int64)
    if len(_OWNER) > 1024:
        _OWNER.clear()
    _OWNER[key] = (labels, own)
    return own


def n_obs(prm: TwinParams) -> int:
    lay = prm.layout
    return lay.n * len(SERVICE_FEATURES) + lay.K + len(GLOBAL_FEATURES)


def firing(s: TwinState) -> np.ndarray:
    """[E, A] bool: the logged alerts firing at the current invocation's start."""
    al = s.alerts
    t = (EPOCH + (s.ep.tick - 1) * TICK_S).astype(float)[:, None]
    n = np.arange(al.col.shape[1])[None, :] < al.n[:, None]
    return n & (al.fired <= t) & (al.resolved > t)


def entity_alerts(s: TwinState, fire: np.ndarray, U: int) -> np.ndarray:
    """[E, U] int: firing alerts naming each entity."""
    ent = s.alerts.ent  # [E, A, 2]
    out = np.zeros((s.E, U + 1), dtype=np.int64)
    e = np.broadcast_to(np.arange(s.E)[:, None, None], ent.shape)
    sel = fire[:, :, None] & (ent >= 0)
    np.add.at(out, (e[sel], ent[sel]), 1)
    return out[:, :U]


def drift(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, D, KE] bool: env vars of the running template that differ from the manifest in git
    (both set; only services with a repository), as ``observed.env_drift``."""
    dp = s.deps
    pos = dp.n_rev - 1
    e, d = np.indices(pos.shape)
    live = dp.rv_env[e, d, pos]
    git = dp.git_env
    tracked = _tracked(prm)
    return (live > 0) & (git > 0) & (live != git) & tracked[None, :, None]


@functools.cache
def _tracked(prm: TwinParams) -> np.ndarray:
    from sre_gym.sim.source_trees import services_with_trees

    have = set(services_with_trees(prm.layout.app))
    return np.array([nm in have for nm in prm.layout.dep_names])


def egress(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, n] int: egress allow-lists restricting each service."""
    from sre_gym.twin.world import policy_target

    tgt = policy_target(prm)
    out = np.zeros((s.E, prm.layout.n), dtype=np.int64)
    for j in range(len(tgt)):
        out[:, tgt[j]] += s.world.pol_on[:, j]
    return out


def flags_off(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, NFL] bool: flags (not the load generator's) off their default."""
    fl = tables(prm.layout).flags
    return (s.world.flag_var != fl.default[None, :]) & ~fl.owned[None, :]


def flag_counts(prm: TwinParams, s: TwinState) -> np.ndarray:
    lay = prm.layout
    fl = tables(lay).flags
    out = np.zeros((s.E, lay.n), dtype=np.int64)
    off = flags_off(prm, s)
    for i, d in enumerate(fl.service):
        if d < lay.n:
            out[:, d] += off[:, i]
    return out


def stranded(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, D, C] bool: pods on NotReady nodes that are not terminating (``stranded_pods``)."""
    p = s.pods
    down = ~s.world.node_ready
    e = np.arange(s.E)[:, None, None]
    on_down = down[e, np.maximum(p.node, 0)] & (p.node >= 0)
    return p.alive & (p.state != TERMINATING) & on_down


def observe(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, obs] float32: ``NumericObservation.features`` as of each episode's invocation start."""
    lay = prm.layout
    n = lay.n
    eng, plans, callees = _queries(lay)
    tel = s.tel
    since = ((s.ep.tick - 1)[:, None] - tel.sr_last.reshape(s.E, -1)).astype(np.int64)
    vecs = eng.run(
        plans, (tel.long, tel.pod, tel.inst), int(s.ep.clock[0]) - 1, np.zeros(1, np.int64), since
    )
    per = {}
    for k, v in zip(NAMES, vecs, strict=True):
        own = _owner(lay, k, v.labels)
        val = np.where(v.present & np.isfinite(v.values), v.values, 0.0)  # [rows, E]
        out = np.zeros((s.E, n))
        ok = own >= 0
        if k == "throttle":
            for j in np.nonzero(ok)[0]:
                out[:, own[j]] = np.maximum(out[:, own[j]], np.where(v.present[j], val[j], 0.0))
        else:
            for j in np.nonzero(ok)[0]:
                out[:, own[j]] = out[:, own[j]] + val[j]
        per[k] = out
    f = np.zeros((s.E, n, len(SERVICE_FEATURES)))
    r = per["rps"]
    f[:, :, COL["rps"]] = fmath.log1p(np.maximum(r, 0.0)) / 10
    with np.errstate(divide="ignore", invalid="ignore"):
        f[:, :, COL["error_ratio"]] = np.where(r > 0, per["errors"] / r, 0.0)
    f[:, :, COL["p95"]] = fmath.log1p(np.maximum(per["p95"], 0.0)) / 12
    f[:, :, COL["ready"]] = per["ready"] / 20
    f[:, :, COL["desired"]] = per["desired"] / 20
    f[:, :, COL["restarts"]] = per["restarts"] / 20
    f[:, :, COL["waiting"]] = per["waiting"] / 10
    f[:, :, COL["cpu_throttle"]] = per["throttle"]
    f[:, :, COL["egress_policies"]] = egress(prm, s) / 5
    f[:, :, COL["flags_changed"]] = flag_counts(prm, s) / 5
    ag = s.agent
    culprit = np.where(ag.i_open, ag.i_culprit, -1)
    f[:, :, COL["open_incident"]] = (culprit[:, :, None] == np.arange(n)).any(axis=1)
    inv = ag.inv[:, None]
    f[:, :, COL["since_action"]] = np.where(ag.acted < 0, 1.0, np.minimum(inv - ag.acted, 10) / 10)
    dp = s.deps
    pos = dp.n_rev - 1
    e, d = np.indices(pos.shape)
    created = np.floor(dp.rv_created[e, d, pos])[:, :n]
    t = (EPOCH + (s.ep.tick - 1) * TICK_S).astype(float)[:, None]
    f[:, :, COL["revision_age"]] = fmath.log1p(np.maximum(0.0, t - created)) / 10
    f[:, :, COL["env_drift"]] = drift(prm, s)[:, :n].sum(axis=2) / 5
    fire = firing(s)
    cnt = entity_alerts(s, fire, lay.U)
    f[:, :, COL["firing_alerts"]] = _TENTHS[np.minimum(cnt[:, :n], len(_TENTHS) - 1)]
    alerting = cnt[:, :n] > 0
    f[:, :, COL["firing_callees"]] = (alerting[:, None, :] & callees[None]).sum(axis=2) / 5
    node_f = s.world.node_ready.astype(float)
    glob = np.stack(
        [
            ag.inv / s.ep.n_inv,
            fire.sum(axis=1) / 100,
            ag.i_open.sum(axis=1) / 50,
        ],
        axis=1,
    )
    out = np.concatenate([f.reshape(s.E, -1), node_f, glob], axis=1)
    return np.clip(np.nan_to_num(out, nan=0.0), 0.0, 1.0).astype(np.float32)


def action_mask(prm: TwinParams, s: TwinState) -> np.ndarray:
    """[E, A] int8: the actions that can do something now (``DiscreteRemedies.action_mask``)."""
    lay = prm.layout
    n, R = lay.n, len(REMEDIES)
    mask = np.ones((s.E, 1 + R * n + lay.K), dtype=np.int8)
    strand = stranded(prm, s)
    on_node = np.zeros((s.E, lay.K), dtype=bool)
    e, d, c = np.nonzero(strand[:, :n])
    on_node[e, s.pods.node[e, d, c]] = True
    mask[:, 1 + R * n :] = on_node

    def off(remedy: str, bad: np.ndarray) -> None:
        j = 1 + REMEDIES.index(remedy) * n
        mask[:, j : j + n] = np.where(bad, 0, mask[:, j : j + n])

    dp = s.deps
    pos = dp.n_rev - 1
    ee, dd = np.indices(pos.shape)
    off("delete_pods", ~strand.any(axis=2)[:, :n])
    off("delete_netpol", egress(prm, s) == 0)
    off("flag_off", flag_counts(prm, s) == 0)
    off("rollback", dp.n_rev[:, :n] < 2)
    off("scale_up", dp.replicas[:, :n] >= MAX_REPLICAS)
    off("raise_cpu", dp.rv_cpu[ee, dd, pos][:, :n] >= MAX_CPU_CORES)
    off("restore_env", ~drift(prm, s)[:, :n].any(axis=2))
    done = s.agent.inv >= s.ep.n_inv
    mask[done] = 1
    return mask
