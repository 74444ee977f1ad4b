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
from sre_gym.catalogs.schema import Change, Fault, parse_cpu, parse_mem
from sre_gym.orchestrator.changes import Presentation, present
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import stable_hash
from sre_gym.sim.cluster import ChangeRecord, SimCluster
from sre_gym.sim.diffs import reverse_diff
from sre_gym.sim.dynamics import _Z95, TickOut
from sre_gym.sim.faults.persistence import PersistenceChecker
from sre_gym.sim.netpol import egress_allowlist
from sre_gym.sim.pods import BACKOFF, IMAGE_WAIT, RUNNING, TERMINATING, ready_at

POD_FIELDS = {
    "cpu_hog": "hog",
    "network_delay": "delay",
    "mem_balloon": "balloon",
    "dependency_oom": "balloon",
}
# names of egress policies a platform team might plausibly apply (picked by a stable hash)
POLICY_NAMES = (
    "{src}-egress-allowlist",
    "restrict-{src}-egress",
    "{src}-default-deny-egress",
    "egress-lockdown-{src}",
)
PROBE_KINDS = (
    "error_ratio",
    "latency_p95",
    "edge_error",
    "rollout_complete",
    "no_restarts",
    "node_workloads",
)
RESTART_QUIET_S = 300.0  # a pod that exited within the longest back-off is not yet trusted
STUCK_GRACE_S = 30.0  # a running pod not ready this long after its startup is stuck
# A service failing more than this share of its own requests over the window is not recovered,
# whatever its symptom reads: pods that take traffic before they listen (a JVM booting behind no
# readiness probe) refuse it fast, which would otherwise read as low latency and no bad data. Above
# the worst third-party spell of the open world (30 %), so that an outside dependency does not hold
# a repair back.
ANSWERING_ERR_MAX = 0.5
PROBE_TAIL_S = 600  # probes keep being recorded this long after a fault's revert
WINDOW_TICKS = 4  # SLI probes read the last minute (4 scrapes), one scrape behind
SELECTOR_HEADROOM = 0.5  # selector chaos is neutralised below this share of the pods' CPU limit


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
    def __init__(
        self,
        cl: SimCluster,
        sched: Schedule,
        episode_start: float,
        *,
        hold_s: float = 90,
        persistence_s: float = 120,
    ) -> None:
        self.cl = cl
        self.sched = sched
        self.t_ep = float(episode_start)
        cat = load_catalog(sched.app, include_quarantined=True)
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
        self.shown = self._presentations()
        self.window = Window(cl.topo.n)
        cl.tick_hooks.append(self._on_tick)
        self.persistence = PersistenceChecker(self, hold_s, persistence_s)

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        self.persistence.note_intervention(t, target, obj)

    def _presentations(self) -> dict[str, Presentation]:
        """Title and author of every delivery of the run (faults, their reverts, benign deploys),
        drawn together in delivery order so that no number or form tells them apart."""
        out: list[tuple[float, str, Change]] = []
        for sf in self.sched.faults:
            f = self.faults[sf.fault_id]
            if f.change is not None:
                ch = self.changes[f.change]
                out += [(sf.start, f"fault:{sf.index}", ch), (sf.end, f"revert:{sf.index}", ch)]
        for i, d in enumerate(self.sched.deploys):
            out.append((d.time, f"deploy:{i}", self.changes[d.change_id]))
        cat = load_catalog(self.sched.app, include_quarantined=True)
        shown = present(cat, self.cl.streams, out)
        # a revert shows as git words it, from the reverted deploy's title; only its author is drawn
        for key in [k for k in shown if k.startswith("revert:")]:
            fault = shown[f"fault:{key[7:]}"]
            shown[key] = Presentation(f'Revert "{fault.title}"', shown[key].author)
        return shown

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
            shown = self.shown[f"fault:{idx}"]
            rec = cl.deploy_change(ch, commit, t, title=shown.title, author=shown.author)
            after = cl.world.deployment(f.target).current
            detail.update(before=before, after=after.template, change=ch, record=rec)
            artifacts = self._change_aliases(ch, rec, after.number)
        elif f.mechanism in POD_FIELDS and f.params.get("attach") == "selector":
            fld = POD_FIELDS[f.mechanism]
            amount = self._magnitude(f)
            pods = cl.attach_condition(f.target, fld, amount, t)
            detail.update(field=fld, pods=pods, selector=True, amount=amount)
            artifacts = _aliases(
                f"deployment/{f.target}",
                f"deployments/{f.target}",
                *pods,
                *(f"pod/{p}" for p in pods),
            )
        elif f.mechanism in POD_FIELDS:
            fld = POD_FIELDS[f.mechanism]
            pods = cl.set_pod_condition(f.target, fld, self._magnitude(f), t)
            detail.update(field=fld, pods=pods)
            artifacts = _aliases(*pods, *(f"pod/{p}" for p in pods), *(f"pods/{p}" for p in pods))
            if not pods:  # nothing was running to inject into: the fault has no effect
                artifacts = _aliases(f"deployment/{f.target}")
        elif f.mechanism == "network_partition":
            name = str(f.params.get("policy") or "")
            if not name or name == "auto":
                pick = int(stable_hash(self.sched.seed, f.id, digits=8), 16) % len(POLICY_NAMES)
                name = POLICY_NAMES[pick].format(src=f.target)
            cl.add_networkpolicy(
                egress_allowlist(cl.topo.app, name, f.target, str(f.params["peer"]), t)
            )
            detail.update(policy=name)
            artifacts = _aliases(
                name, f"networkpolicy/{name}", f"networkpolicies/{name}", f"netpol/{name}"
            )
        elif f.mechanism in ("node_failure", "zone_outage"):
            nodes = (
                [f.target]
                if f.mechanism == "node_failure"
                else [n.name for n in cl.world.nodes if n.zone == f.target]
            )
            deps = sorted({d for n in nodes for d in cl.set_node_ready(n, False, t)})
            deps = [d for d in deps if d in cl.topo.index]
            detail.update(nodes=nodes, probe_deps=deps)
            affected = sorted({s for d in deps for s in hard_callers(cl.topo.app, d)})
            if f.mechanism == "zone_outage":
                affected += nodes  # node alerts are about the zone's machines
            kind = "node" if f.mechanism == "node_failure" else "zone"
            artifacts = _aliases(
                f.target,
                f"{kind}/{f.target}",
                f"{kind}s/{f.target}",
                *(f"node/{n}" for n in nodes) if kind == "zone" else (),
            )
            if kind == "zone":
                artifacts += _aliases(f"topology.kubernetes.io/zone={f.target}")
        elif f.mechanism == "replicas_zero":
            dep = cl.world.deployment(f.target)
            detail.update(replicas=dep.replicas)
            cl.scale(f.target, 0, t)
            artifacts = _aliases(
                f"deployment/{f.target}",
                f"deployments/{f.target}",
                f"{f.target}/replicas",
                f"{f.target}.spec.replicas",
                "spec.replicas",
                "replicas",
            )
        elif f.mechanism == "config_drift":
            key, value = self._drift(f)
            dep = cl.world.deployment(f.target)
            before = dep.current.template.env_dict().get(key[4:])
            rev = cl.patch(f.target, key, value, t, cause="")
            detail.update(key=key, value=value, before=before)
            artifacts = _aliases(
                *_key_aliases(f.target, key),
                f"{f.target}@{rev.number}",
                f"deployment/{f.target}@{rev.number}",
            )
        else:  # pragma: no cover - catalog validation names only known mechanisms
            raise ValueError(f"unknown mechanism {f.mechanism}")
        inj = Injection(
            idx, f, t, self.t_ep + sf.end, culprits, affected, artifacts, commit, detail
        )
        self.injections[idx] = inj
        self.records.append({"type": "injection", "t": t, **inj.evidence()})

    def _magnitude(self, f: Fault) -> float:
        """A pod condition's size: absolute, or a share of the target's current limit."""
        tpl = self.cl.world.deployment(f.target).current.template
        p = f.params
        if "cores_frac" in p:
            return float(p["cores_frac"]) * parse_cpu(tpl.cpu_limit)
        if "balloon_frac" in p:
            return float(p["balloon_frac"]) * parse_mem(tpl.mem_limit)
        for k in ("cores", "delay_ms", "balloon_mi"):
            if k in p:
                return float(p[k])
        raise ValueError(f"{f.id}: no magnitude parameter")

    def _drift(self, f: Fault) -> tuple[str, str]:
        """An edited address that looks right but points at the wrong port or host."""
        topo = self.cl.topo
        peer = str(f.params["peer"])
        var = topo.addr_env.get((topo.index[f.target], topo.index[peer]))
        if var is None:
            raise ValueError(f"{f.id}: {f.target} has no address setting for {peer}")
        cur = self.cl.world.deployment(f.target).current.template.env_dict().get(var, "")
        host, _, port = cur.rpartition(":")
        if port.isdigit() and host:
            return f"env.{var}", f"{host}:{int(port) + 1}"
        return f"env.{var}", f"{cur}-v2"

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
            items += _key_aliases(dep, k)
        for flag in ch.flags:
            items += [
                flag,
                f"flags.{flag}",
                f"flagd/{flag}",
                f"flagd/flags.{flag}",
                f"flagd-config/{flag}",
                f"configmap/flagd-config/{flag}",
            ]
        return _aliases(*items)

    def present(self, inj: Injection) -> bool:
        """Is the fault's responsible artifact still in place?"""
        cl, f, d = self.cl, inj.fault, inj.detail
        if f.delivery == "change":
            ch: Change = d["change"]
            if ch.flags:
                chosen = cl.flag_variants()
                return any(chosen.get(k) == v for k, v in ch.flags.items())
            cur = cl.world.deployment(f.target).current.template
            after = d["after"]
            if ch.kind == "code":  # any image built from a head that still carries the defect
                img = cl.world.images.get(cur.image)
                return img is not None and img.defect is not None and img.change is ch
            if ch.kind == "image":
                return cur.image == after.image
            env = cur.env_dict()
            if any(env.get(k) != v for k, v in ch.env.items()):
                return False
            if "cpu_limit" in ch.resources and cur.cpu_limit != after.cpu_limit:
                return False
            if "mem_limit" in ch.resources and cur.mem_limit != after.mem_limit:
                return False
            return not (ch.readiness_port is not None and cur.readiness_port != ch.readiness_port)
        if d.get("selector"):
            # the chaos stays until its revert; it is neutralised once the pods have the headroom
            # to absorb it (it takes less than half of their CPU limit)
            limit = parse_cpu(cl.world.deployment(f.target).current.template.cpu_limit)
            return d["amount"] >= SELECTOR_HEADROOM * limit
        if "pods" in d:
            p = cl.pods
            for nm in d["pods"]:
                r = p.index_of(nm)
                if r is not None and getattr(p, d["field"])[r] > 0 and p.state[r] != TERMINATING:
                    return True
            return False
        if "policy" in d:
            return any(np_.name == d["policy"] for np_ in cl.world.netpols)
        if "nodes" in d:
            return any(not nd.ready for nd in cl.world.nodes if nd.name in d["nodes"])
        if "replicas" in d:
            return cl.world.deployment(f.target).replicas == 0
        if "key" in d:
            return (
                cl.world.deployment(f.target).current.template.env_dict().get(d["key"][4:])
                == d["value"]
            )
        return False  # pragma: no cover

    def _revert(self, idx: int, t: float) -> None:
        inj = self.injections[idx]
        if inj is None or inj.reverted:
            return
        inj.reverted = True
        acted = self.present(inj)
        cl, f, d = self.cl, inj.fault, inj.detail
        # a defect still in the repository head is reverted even when no pod runs it (the agent
        # rolled back): the next build would bring it back
        ch = d.get("change")
        in_head = (
            ch is not None
            and ch.kind == "code"
            and cl.pipeline is not None
            and cl.pipeline.defect(ch.service)[1] is ch
        )
        if acted or in_head or d.get("selector"):  # selector chaos is the injector's own
            if f.delivery == "change":
                self._revert_change(inj, t)
            elif d.get("selector"):
                cl.detach_condition(f.target, d["field"])
            elif "pods" in d:
                cl.clear_pod_condition(d["pods"], d["field"])
            elif "policy" in d:
                cl.delete_networkpolicy(d["policy"], t)
            elif "nodes" in d:
                for n in d["nodes"]:
                    cl.set_node_ready(n, True, t)
            elif "replicas" in d:
                cl.scale(f.target, d["replicas"], t)
            elif "key" in d:
                if d["before"] is None:
                    cl.unset_env(f.target, d["key"][4:], t)
                else:
                    cl.patch(f.target, d["key"], d["before"], t, cause="")
        self.records.append({"type": "revert", "t": t, "index": idx, "acted": acted})

    def _revert_change(self, inj: Injection, t: float) -> None:
        """The revert commit of a faulty change, deployed: a code change's revert is built from
        the head without it; a config or image change's revert restores the settings it set."""
        cl = self.cl
        ch: Change = inj.detail["change"]
        before = inj.detail["before"]
        sha = self._sha("revert", inj.index)
        shown = self.shown[f"revert:{inj.index}"]
        title = shown.title
        tracked = cl.pipeline is not None and ch.service in cl.pipeline_services
        if ch.flags:
            defaults = {f.name: f.default for f in cl.topo.app.flags}
            revert = ch.model_copy(update={"flags": {k: defaults[k] for k in ch.flags}})
            cl.deploy_change(revert, sha, t, title=title, author=shown.author, revert_of=inj.commit)
            return
        if ch.kind == "code" and tracked:
            cl.deploy_change(ch, sha, t, title=title, author=shown.author, revert_of=inj.commit)
            return
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
        rev = cl.restore_template(ch.service, new, t, f"deploy {sha[:7]}: {title}", sha)
        diff = reverse_diff(inj.detail["record"].diff)
        if tracked:
            diff = cl.pipeline.revert(inj.commit, sha)
        cl.changes.append(
            ChangeRecord(
                sha=sha,
                service=ch.service,
                kind=ch.kind,
                title=title,
                author=shown.author,
                time=t,
                files=list(ch.files),
                diff=diff,
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
        shown = self.shown[f"deploy:{i}"]
        rec = self.cl.deploy_change(
            self.changes[change_id],
            self._sha("deploy", i),
            t,
            title=shown.title,
            author=shown.author,
        )
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
        if live:
            health = self._health(tick, out)
            for inj in live:
                self.probe[inj.index, tick] = health(inj)
                # (a persistence fork keeps the fault past its end: its artifact is still read)
                if t < inj.end or not self.cl.recording:
                    self.artifact[inj.index, tick] = int(self.present(inj))
        self.window.push(out, self.cl.topo.sigma)
        if live:
            self.persistence.on_tick(tick)

    def _health(self, tick: int, out: TickOut):
        cl = self.cl
        topo = cl.topo
        st = cl.deployment_status()
        t = cl.time_of_tick(tick)
        # a workload scaled to zero is not healthy, however quiet it is
        serving = st["spec_replicas"] > 0
        avail_ok = (st["status_replicas_available"] >= st["spec_replicas"]) & serving
        p = cl.pods
        live = p.live()
        # a pod that crashed recently, or is stuck waiting (back-off, image pull), is unsettled; a pod
        # that is simply starting up after a rollout is not
        state = p.state[live]
        stuck = (state == BACKOFF) | (state == IMAGE_WAIT)
        unsettled = stuck | ((p.restarts[live] > 0) & (t - p.last_term_at[live] < RESTART_QUIET_S))
        bad = np.bincount(p.dep[live][unsettled], minlength=len(cl.world.deployments))
        # a pod of an older revision still running may crash again: the workload is quiet only once
        # the rollout has replaced every one of them
        cur = np.array([d.current.number for d in cl.world.deployments])
        behind = np.bincount(
            p.dep[live][p.rev[live] != cur[p.dep[live]]], minlength=len(cl.world.deployments)
        )
        quiet = (bad == 0) & (behind == 0) & avail_ok
        # a rollout that is progressing is fine; one whose new pods are stuck (image pull, back-off,
        # never passing readiness) is not
        d = p.dep[live]
        due = ready_at(
            p.started[live],
            cl.dep_boot[d],
            cl.dep_probed[d],
            cl.dep_probe_delay[d],
            cl.dep_probe_period[d],
        )
        never_ready = (state == RUNNING) & ~p.ready[live] & (t > np.nan_to_num(due) + STUCK_GRACE_S)
        stuck_n = np.bincount(p.dep[live][stuck | never_ready], minlength=len(cl.world.deployments))
        rollout_ok = avail_ok & (stuck_n == 0)
        # SLIs as an SLO reads them: over the last minute, one scrape behind
        sli = self.window.read(out, topo.sigma)
        # serving now, and over the window the SLIs read (a window without requests has no ratio)
        has = (out.served > 0) & (sli.served > 0)
        # taking requests now, but failing most of them over the window, or with no window yet
        refusing = (out.served > 0) & ((sli.served <= 0) | (sli.own_err > ANSWERING_ERR_MAX))
        idx = topo.index

        node_of = {nd.name: i for i, nd in enumerate(cl.world.nodes)}
        # workloads of the app (not the load generator or flagd) still sitting on each node
        app_pods = live[(p.dep[live] < topo.n) & (p.node[live] >= 0)]
        live_nodes = np.bincount(p.node[app_pods], minlength=len(cl.world.nodes))

        zone_of = [nd.zone for nd in cl.world.nodes]

        dep_idx = {d.name: d.index for d in cl.world.deployments}

        some_ready = serving & (st["status_replicas_available"] >= 1)

        def workloads_up(inj: Injection) -> bool:
            """The moved workloads run somewhere (not merely gone: scaling to zero is no repair)."""
            return all(some_ready[dep_idx[d]] for d in inj.detail.get("probe_deps", ()))

        def health(inj: Injection) -> int:
            pr = inj.fault.probe
            if pr.kind == "node_workloads":
                i = node_of[pr.service]
                return int(cl.world.nodes[i].ready or (live_nodes[i] == 0 and workloads_up(inj)))
            if pr.kind == "zone_available":
                empty = all(
                    nd.ready or live_nodes[i] == 0
                    for i, nd in enumerate(cl.world.nodes)
                    if zone_of[i] == pr.service
                )
                return int(empty and workloads_up(inj))
            if pr.kind == "queue_lag":
                lags = [
                    lag
                    for (_, group), lag in zip(cl.queues.names, cl.queues.lag, strict=True)
                    if group == pr.service
                ]
                return int(all(lag <= pr.max for lag in lags))
            s = idx[pr.service]
            if pr.kind == "error_ratio":
                return int(bool(has[s]) and sli.own_err[s] <= pr.max)
            if refusing[s]:  # (a consumer that takes no requests is judged by the rest alone)
                return 0
            if pr.kind == "corruption":
                return int(bool(has[s]) and sli.corrupt[s] <= pr.max)
            if pr.kind == "latency_p95":
                return int(bool(has[s]) and sli.p95[s] <= pr.max)
            if pr.kind == "edge_error":  # the caller must be serving for its edge to count
                return int(bool(has[s]) and sli.edge_tfail[s, idx[pr.peer]] <= pr.max)
            if pr.kind == "rollout_complete":
                return int(bool(rollout_ok[s]))
            if pr.kind == "no_restarts":
                return int(bool(quiet[s]))
            raise ValueError(pr.kind)  # pragma: no cover

        return health


@dataclass
class SLIs:
    """Per-service SLIs over a window: own error share, own p95 (ms), corrupt share, and per edge
    the transport-failure share of attempts."""

    own_err: np.ndarray
    p95: np.ndarray
    corrupt: np.ndarray
    edge_tfail: np.ndarray
    served: np.ndarray  # requests in the window (0: the ratios have no value, as rate() gives none)


class Window:
    """The last ``WINDOW_TICKS`` ticks of what the symptom probes read, so that a probe sees what a
    1-minute rate() in an SLO rule sees, one scrape interval late: shares are ratios of the window's
    sums (requests, errors, attempts), latency the traffic-weighted p95 of its ticks."""

    def __init__(self, n: int) -> None:
        w = WINDOW_TICKS
        self.k = 0  # ticks pushed so far
        self.served = np.zeros((w, n))
        self.errs = np.zeros((w, n))
        self.lat = np.zeros((w, n))  # served-weighted p95
        self.bad = np.zeros((w, n))
        self.att = np.zeros((w, n, n))
        self.tfail = np.zeros((w, n, n))

    def push(self, out: TickOut, sigma: np.ndarray) -> None:
        i = self.k % WINDOW_TICKS
        self.served[i] = out.served
        self.errs[i] = out.own_err * out.served
        self.lat[i] = out.own_lat * np.exp(_Z95 * sigma) * out.served
        self.bad[i] = out.corrupt * out.served
        self.att[i] = out.edge_att
        self.tfail[i] = out.edge_tfail * out.edge_att
        self.k += 1

    def read(self, out: TickOut, sigma: np.ndarray) -> SLIs:
        """The SLIs of the window ending one tick ago (the current tick alone before any tick)."""
        if self.k == 0:
            p95 = out.own_lat * np.exp(_Z95 * sigma)
            return SLIs(out.own_err, p95, out.corrupt, out.edge_tfail, out.served)
        rows = slice(0, min(self.k, WINDOW_TICKS))  # the ring is full after WINDOW_TICKS pushes
        served = self.served[rows].sum(axis=0)
        tot = np.maximum(served, 1e-12)
        att = np.maximum(self.att[rows].sum(axis=0), 1e-12)
        return SLIs(
            own_err=self.errs[rows].sum(axis=0) / tot,
            p95=self.lat[rows].sum(axis=0) / tot,
            corrupt=self.bad[rows].sum(axis=0) / tot,
            edge_tfail=self.tfail[rows].sum(axis=0) / att,
            served=served,
        )


def _key_aliases(dep: str, k: str) -> list[str]:
    """The ways to name one setting of a deployment (env.X, X, dep/X, ...)."""
    out = [k, f"{dep}/{k}", f"{dep}.{k}", f"deployment/{dep}/{k}"]
    if k.startswith("env."):
        out += [k[4:], f"{dep}/{k[4:]}"]
    return out
