"""Applies a schedule to a simulated cluster: injections, reverts, ordinary deploys, and per-tick
evidence of each fault (its symptom probe and whether its responsible artifact is still in place).

Faults act through ordinary operations: a commit through the build pipeline, a NetworkPolicy, a
stressed pod, a node that stops reporting. Reverting undoes the fault's own artifact only if it is
still in place; if the agent already fixed it, the revert does nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace

import numpy as np

from sre_gym.catalogs import hard_callers, load_catalog
from sre_gym.catalogs.schema import Change, Fault
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import stable_hash
from sre_gym.sim.cluster import ChangeRecord, SimCluster
from sre_gym.sim.dynamics import _Z95, TickOut
from sre_gym.sim.pods import TERMINATING

POD_FIELDS = {
    "cpu_hog": ("hog", "cores"),
    "network_delay": ("delay", "delay_ms"),
    "dependency_oom": ("balloon", "balloon_mi"),
}
PROBE_KINDS = (
    "error_ratio",
    "latency_p95",
    "edge_error",
    "rollout_complete",
    "no_restarts",
    "node_workloads",
)
RESTART_QUIET_S = 120.0  # a pod that exited this recently is not yet trusted
PROBE_TAIL_S = 600  # probes keep being recorded this long after a fault's revert


@dataclass
class Injection:
    index: int
    fault: Fault
    start: float  # absolute sim time
    end: float
    culprits: list[str]
    affected: list[str]
    artifacts: list[str]
    commit: str | None = None
    detail: dict = field(default_factory=dict)  # what revert needs (hidden)
    reverted: bool = False

    def evidence(self) -> dict:
        f = self.fault
        return {
            "index": self.index,
            "fault_id": f.id,
            "category": f.category,
            "delivery": f.delivery,
            "mechanism": f.mechanism,
            "target": f.target,
            "start": self.start,
            "end": self.end,
            "culprits": list(self.culprits),
            "affected": list(self.affected),
            "artifacts": list(self.artifacts),
            "commit": self.commit,
            "probe": f.probe.model_dump(),
            "probe_services": list(self.detail.get("probe_deps", [])),
        }


def _aliases(*items: str) -> list[str]:
    out: list[str] = []
    for it in items:
        a = it.strip().lower()
        if a and a not in out:
            out.append(a)
    return out


class Injector:
    def __init__(self, cl: SimCluster, sched: Schedule, episode_start: float) -> None:
        self.cl = cl
        self.sched = sched
        self.t_ep = float(episode_start)
        cat = load_catalog(sched.app)
        self.faults = {f.id: f for f in cat.faults}
        self.changes = {c.id: c for c in cat.changes}
        nf = len(sched.faults)
        self.injections: list[Injection | None] = [None] * nf
        self.records: list[dict] = []  # evidence events, in time order
        self.probe = np.full((nf, cl.capacity), -1, dtype=np.int8)
        self.artifact = np.full((nf, cl.capacity), -1, dtype=np.int8)
        # bound methods and partials (not lambdas) keep a running env picklable
        for sf in sched.faults:
            cl.at(self.t_ep + sf.start, functools.partial(self._inject, sf.index))
            cl.at(self.t_ep + sf.end, functools.partial(self._revert, sf.index))
        for i, d in enumerate(sched.deploys):
            cl.at(self.t_ep + d.time, functools.partial(self._deploy, i, d.change_id))
        cl.tick_hooks.append(self._on_tick)

    # ------------------------------------------------------------------ inject / revert
    def _sha(self, *parts: object) -> str:
        return stable_hash(
            self.cl.release, self.sched.app, self.sched.seed, "commit", *parts, digits=40
        )

    def _inject(self, idx: int, t: float) -> None:
        sf = self.sched.faults[idx]
        f = self.faults[sf.fault_id]
        cl = self.cl
        culprits, affected = list(f.culprits), list(f.affected)
        artifacts: list[str] = []
        detail: dict = {}
        commit = None
        if f.delivery == "change":
            ch = self.changes[f.change]
            dep = cl.world.deployment(f.target)
            before = dep.current.template
            commit = self._sha("fault", idx)
            rec = cl.deploy_change(ch, commit, t)
            after = cl.world.deployment(f.target).current
            detail.update(before=before, after=after.template, change=ch, record=rec)
            artifacts = self._change_aliases(ch, rec, after.number)
        elif f.mechanism in POD_FIELDS:
            fld, prm = POD_FIELDS[f.mechanism]
            pods = cl.set_pod_condition(f.target, fld, float(f.params[prm]), t)
            detail.update(field=fld, pods=pods)
            artifacts = _aliases(*pods, *(f"pod/{p}" for p in pods), *(f"pods/{p}" for p in pods))
        elif f.mechanism == "network_partition":
            name = str(f.params["policy"])
            cl.add_networkpolicy(name, f.target, str(f.params["peer"]), t, owner="platform-team")
            detail.update(policy=name)
            artifacts = _aliases(
                name, f"networkpolicy/{name}", f"networkpolicies/{name}", f"netpol/{name}"
            )
        elif f.mechanism == "node_failure":
            deps = cl.set_node_ready(f.target, False, t)
            deps = [d for d in deps if d in cl.topo.index]
            detail.update(node=f.target, probe_deps=deps)
            affected = sorted({s for d in deps for s in hard_callers(cl.topo.app, d)})
            artifacts = _aliases(f.target, f"node/{f.target}", f"nodes/{f.target}")
        else:  # pragma: no cover - catalog validation names only known mechanisms
            raise ValueError(f"unknown mechanism {f.mechanism}")
        inj = Injection(
            idx, f, t, self.t_ep + sf.end, culprits, affected, artifacts, commit, detail
        )
        self.injections[idx] = inj
        self.records.append({"type": "injection", "t": t, **inj.evidence()})

    def _change_aliases(self, ch: Change, rec: ChangeRecord, rev: int) -> list[str]:
        dep = ch.service
        common = [rec.sha, f"{dep}@{rev}", f"{dep}@revision-{rev}", f"deployment/{dep}@{rev}"]
        if ch.kind == "code":
            return _aliases(*common, rec.image, rec.image.rsplit("/", 1)[-1])
        if ch.kind == "image":
            return _aliases(*common, rec.image, rec.image.rsplit("/", 1)[-1], ch.image_tag or "")
        keys = [f"env.{k}" for k in ch.env] + [
            f"resources.limits.{'cpu' if k == 'cpu_limit' else 'memory'}" for k in ch.resources
        ]
        if ch.readiness_port is not None:
            keys.append("readinessProbe.port")
        items = list(common)
        for k in keys:
            items += [k, f"{dep}/{k}", f"{dep}.{k}", f"deployment/{dep}/{k}"]
            if k.startswith("env."):
                items += [k[4:], f"{dep}/{k[4:]}"]
        return _aliases(*items)

    def present(self, inj: Injection) -> bool:
        """Is the fault's responsible artifact still in place?"""
        cl, f, d = self.cl, inj.fault, inj.detail
        if f.delivery == "change":
            cur = cl.world.deployment(f.target).current.template
            ch: Change = d["change"]
            after = d["after"]
            if ch.kind in ("code", "image"):
                return cur.image == after.image
            env = cur.env_dict()
            if any(env.get(k) != v for k, v in ch.env.items()):
                return False
            if "cpu_limit" in ch.resources and cur.cpu_limit != after.cpu_limit:
                return False
            if "mem_limit" in ch.resources and cur.mem_limit != after.mem_limit:
                return False
            return not (ch.readiness_port is not None and cur.readiness_port != ch.readiness_port)
        if "pods" in d:
            p = cl.pods
            for nm in d["pods"]:
                r = p.index_of(nm)
                if r is not None and getattr(p, d["field"])[r] > 0 and p.state[r] != TERMINATING:
                    return True
            return False
        if "policy" in d:
            return any(np_.name == d["policy"] for np_ in cl.world.netpols)
        if "node" in d:
            return not next(nd for nd in cl.world.nodes if nd.name == d["node"]).ready
        return False  # pragma: no cover

    def _revert(self, idx: int, t: float) -> None:
        inj = self.injections[idx]
        if inj is None or inj.reverted:
            return
        inj.reverted = True
        acted = self.present(inj)
        cl, f, d = self.cl, inj.fault, inj.detail
        if acted:
            if f.delivery == "change":
                self._revert_change(inj, t)
            elif "pods" in d:
                cl.clear_pod_condition(d["pods"], d["field"])
            elif "policy" in d:
                cl.delete_networkpolicy(d["policy"], t)
            elif "node" in d:
                cl.set_node_ready(d["node"], True, t)
        self.records.append({"type": "revert", "t": t, "index": idx, "acted": acted})

    def _revert_change(self, inj: Injection, t: float) -> None:
        cl = self.cl
        ch: Change = inj.detail["change"]
        before = inj.detail["before"]
        dep = cl.world.deployment(ch.service)
        cur = dep.current.template
        if ch.kind in ("code", "image"):
            new = replace(cur, image=before.image)
        else:
            new = cur
            benv = before.env_dict()
            for k in ch.env:
                new = (
                    new.with_env(k, benv[k])
                    if k in benv
                    else replace(new, env=tuple((a, b) for a, b in new.env if a != k))
                )
            if "cpu_limit" in ch.resources:
                new = replace(new, cpu_limit=before.cpu_limit)
            if "mem_limit" in ch.resources:
                new = replace(new, mem_limit=before.mem_limit)
            if ch.readiness_port is not None:
                new = replace(new, readiness_port=before.readiness_port)
        sha = self._sha("revert", inj.index)
        title = f'Revert "{ch.title}"'
        rev = cl.restore_template(ch.service, new, t, f"deploy {sha[:7]}: {title}", sha)
        cl.changes.append(
            ChangeRecord(
                sha=sha,
                service=ch.service,
                kind=ch.kind,
                title=title,
                author="release-manager",
                time=t,
                files=list(ch.files),
                diff=_reverse_diff(inj.detail["record"].diff),
                image=new.image,
                revision=rev.number,
                pipeline={
                    "lint": "passed",
                    "unit-tests": "passed",
                    "build": "passed" if ch.kind == "code" else "skipped (no source change)",
                    "rollout": "started",
                },
                change_id=f"revert:{ch.id}",
            )
        )

    def _deploy(self, i: int, change_id: str, t: float) -> None:  # noqa: D401
        rec = self.cl.deploy_change(self.changes[change_id], self._sha("deploy", i), t)
        self.records.append(
            {
                "type": "deploy",
                "t": t,
                "sha": rec.sha,
                "service": rec.service,
                "revision": rec.revision,
            }
        )

    # ------------------------------------------------------------------ evidence per tick
    def _on_tick(self, tick: int, out: TickOut) -> None:
        t = self.cl.time_of_tick(tick)
        live = [inj for inj in self.injections if inj is not None and t <= inj.end + PROBE_TAIL_S]
        if not live:
            return
        health = self._health(tick, out)
        for inj in live:
            self.probe[inj.index, tick] = health(inj)
            if t < inj.end:
                self.artifact[inj.index, tick] = int(self.present(inj))

    def _health(self, tick: int, out: TickOut):
        cl = self.cl
        topo = cl.topo
        st = cl.deployment_status()
        t = cl.time_of_tick(tick)
        avail_ok = st["status_replicas_available"] >= st["spec_replicas"]
        rollout_ok = (
            (st["status_replicas_updated"] == st["spec_replicas"])
            & (st["status_replicas"] == st["spec_replicas"])
            & avail_ok
        )
        p = cl.pods
        live = p.live()
        unsettled = ~p.ready[live] | (
            (p.restarts[live] > 0) & (t - p.last_term_at[live] < RESTART_QUIET_S)
        )
        bad = np.bincount(p.dep[live][unsettled], minlength=len(cl.world.deployments))
        quiet = (bad == 0) & avail_ok
        has = out.served > 0
        p95 = out.own_lat * np.exp(_Z95 * topo.sigma)
        idx = topo.index

        node_of = {nd.name: i for i, nd in enumerate(cl.world.nodes)}
        live_nodes = np.bincount(p.node[live][p.node[live] >= 0], minlength=len(cl.world.nodes))

        def health(inj: Injection) -> int:
            pr = inj.fault.probe
            if pr.kind == "node_workloads":
                i = node_of[pr.service]
                return int(cl.world.nodes[i].ready or live_nodes[i] == 0)
            s = idx[pr.service]
            if pr.kind == "error_ratio":
                return int(bool(has[s]) and out.own_err[s] <= pr.max)
            if pr.kind == "latency_p95":
                return int(bool(has[s]) and p95[s] <= pr.max)
            if pr.kind == "edge_error":
                return int(out.edge_tfail[s, idx[pr.peer]] <= pr.max)
            if pr.kind == "rollout_complete":
                return int(bool(rollout_ok[s]))
            if pr.kind == "no_restarts":
                return int(bool(quiet[s]))
            raise ValueError(pr.kind)  # pragma: no cover

        return health


def _reverse_diff(diff: str) -> str:
    out = []
    for line in diff.splitlines():
        if line.startswith("--- ") or line.startswith("+++ "):
            out.append(line)
        elif line.startswith("+"):
            out.append("-" + line[1:])
        elif line.startswith("-"):
            out.append("+" + line[1:])
        else:
            out.append(line)
    return "\n".join(out) + "\n"
