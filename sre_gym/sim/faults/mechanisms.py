"""The simulator's fault mechanisms: one class per way of causing a fault, in a table.

Each class implements ``sre_gym.orchestrator.faults.Mechanism`` on a ``SimCluster`` (the driver is
the simulator's ``Injector``): ``inject`` acts through an ordinary operation (a commit through the
build pipeline, a stressed pod, chaos attached by selector, an egress NetworkPolicy, nodes that stop
reporting, a deployment scaled to zero, an edited address) and fills in the injection's scope and
artifact aliases; ``present`` says whether that artifact is still in place; ``revert`` undoes it.
``mechanism_of`` picks a fault's class: every change-delivered fault is a ``ChangeDelivery``; the
others by their catalog mechanism (``MECHANISMS``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from sre_gym.catalogs import hard_callers
from sre_gym.catalogs.schema import Change, Fault, parse_cpu, parse_mem
from sre_gym.orchestrator.faults import (
    Injection,
    aliases,
    change_aliases,
    key_aliases,
    node_aliases,
    policy_aliases,
    policy_name,
    replicas_aliases,
)
from sre_gym.sim.cluster import ChangeRecord
from sre_gym.sim.diffs import reverse_diff
from sre_gym.sim.netpol import egress_allowlist
from sre_gym.sim.pods import TERMINATING

if TYPE_CHECKING:
    from sre_gym.sim.faults.injector import Injector

POD_FIELDS = {
    "cpu_hog": "hog",
    "network_delay": "delay",
    "mem_balloon": "balloon",
    "dependency_oom": "balloon",
}
SELECTOR_HEADROOM = 0.5  # selector chaos is neutralised below this share of the pods' CPU limit


def magnitude(drv: Injector, f: Fault) -> float:
    """A pod condition's size: absolute, or a share of the target's current limit."""
    tpl = drv.cl.world.deployment(f.target).current.template
    p = f.params
    if "cores_frac" in p:
        return float(p["cores_frac"]) * parse_cpu(tpl.cpu_limit)
    if "balloon_frac" in p:
        return float(p["balloon_frac"]) * parse_mem(tpl.mem_limit)
    for k in ("cores", "delay_ms", "balloon_mi"):
        if k in p:
            return float(p[k])
    raise ValueError(f"{f.id}: no magnitude parameter")


class ChangeDelivery:
    """A faulty commit deployed through the build pipeline (code, image, config or flag change)."""

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f, cl = inj.fault, drv.cl
        ch = drv.changes[f.change]
        before = cl.world.deployment(f.target).current.template
        commit = drv.sha("fault", inj.index)
        shown = drv.shown[f"fault:{inj.index}"]
        rec = cl.deploy_change(ch, commit, t, title=shown.title, author=shown.author)
        after = cl.world.deployment(f.target).current
        inj.detail.update(before=before, after=after.template, change=ch, record=rec)
        inj.artifacts = change_aliases(ch, rec.sha, rec.image, after.number)
        inj.commit = commit

    def present(self, drv: Injector, inj: Injection) -> bool:
        cl, f, d = drv.cl, inj.fault, inj.detail
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

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        # a defect still in the repository head is reverted even when no pod runs it (the agent
        # rolled back): the next build would bring it back
        cl = drv.cl
        ch = inj.detail["change"]
        return (
            ch.kind == "code"
            and cl.pipeline is not None
            and cl.pipeline.defect(ch.service)[1] is ch
        )

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        """The revert commit of a faulty change, deployed: a code change's revert is built from
        the head without it; a config or image change's revert restores the settings it set."""
        cl = drv.cl
        ch: Change = inj.detail["change"]
        before = inj.detail["before"]
        sha = drv.sha("revert", inj.index)
        shown = drv.shown[f"revert:{inj.index}"]
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
        if tracked:
            diff = cl.pipeline.revert(inj.commit, sha)
        else:
            # a change whose commit found the head already holding it (the same change drawn
            # again after a rollback that left git as it was) committed nothing to undo
            done = inj.detail["record"].diff
            diff = reverse_diff(done) if done.strip() else ""
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


class PodCondition:
    """A condition set on the target's running pods (a CPU hog, network delay, a memory
    balloon); it leaves with the pods."""

    def __init__(self, fld: str) -> None:
        self.field = fld

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f = inj.fault
        pods = drv.cl.set_pod_condition(f.target, self.field, magnitude(drv, f), t)
        inj.detail.update(field=self.field, pods=pods)
        inj.artifacts = aliases(*pods, *(f"pod/{p}" for p in pods), *(f"pods/{p}" for p in pods))
        if not pods:  # nothing was running to inject into: the fault has no effect
            inj.artifacts = aliases(f"deployment/{f.target}")

    def present(self, drv: Injector, inj: Injection) -> bool:
        p, d = drv.cl.pods, inj.detail
        for nm in d["pods"]:
            r = p.index_of(nm)
            if r is not None and getattr(p, d["field"])[r] > 0 and p.state[r] != TERMINATING:
                return True
        return False

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return False

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        drv.cl.clear_pod_condition(inj.detail["pods"], inj.detail["field"])


class SelectorChaos:
    """Chaos attached to the target's pods by label selector: it re-attaches to replacement pods
    and stays until its revert."""

    def __init__(self, fld: str) -> None:
        self.field = fld

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f = inj.fault
        amount = magnitude(drv, f)
        pods = drv.cl.attach_condition(f.target, self.field, amount, t)
        inj.detail.update(field=self.field, pods=pods, selector=True, amount=amount)
        inj.artifacts = aliases(
            f"deployment/{f.target}",
            f"deployments/{f.target}",
            *pods,
            *(f"pod/{p}" for p in pods),
        )

    def present(self, drv: Injector, inj: Injection) -> bool:
        # the chaos stays until its revert; it is neutralised once the pods have the headroom to
        # absorb it (it takes less than half of their CPU limit)
        limit = parse_cpu(drv.cl.world.deployment(inj.fault.target).current.template.cpu_limit)
        return inj.detail["amount"] >= SELECTOR_HEADROOM * limit

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return True  # the chaos is the injector's own

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        drv.cl.detach_condition(inj.fault.target, inj.detail["field"])


class NetworkPartition:
    """An egress NetworkPolicy on the target that leaves out one peer."""

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f, cl = inj.fault, drv.cl
        name = policy_name(f, drv.sched.seed)
        cl.add_networkpolicy(
            egress_allowlist(cl.topo.app, name, f.target, str(f.params["peer"]), t)
        )
        inj.detail.update(policy=name)
        inj.artifacts = policy_aliases(name)

    def present(self, drv: Injector, inj: Injection) -> bool:
        return any(np_.name == inj.detail["policy"] for np_ in drv.cl.world.netpols)

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return False

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        drv.cl.delete_networkpolicy(inj.detail["policy"], t)


class NodeOutage:
    """A node (or every node of a zone) stops reporting Ready."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "node" or "zone"

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f, cl = inj.fault, drv.cl
        nodes = (
            [f.target]
            if self.kind == "node"
            else [n.name for n in cl.world.nodes if n.zone == f.target]
        )
        deps = sorted({d for n in nodes for d in cl.set_node_ready(n, False, t)})
        deps = [d for d in deps if d in cl.topo.index]
        inj.detail.update(nodes=nodes, probe_deps=deps)
        affected = sorted({s for d in deps for s in hard_callers(cl.topo.app, d)})
        if self.kind == "zone":
            affected += nodes  # node alerts are about the zone's machines
        inj.affected = affected
        inj.artifacts = node_aliases(self.kind, f.target, nodes)

    def present(self, drv: Injector, inj: Injection) -> bool:
        return any(not nd.ready for nd in drv.cl.world.nodes if nd.name in inj.detail["nodes"])

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return False

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        for n in inj.detail["nodes"]:
            drv.cl.set_node_ready(n, True, t)


class ReplicasZero:
    """The target scaled to zero replicas."""

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f, cl = inj.fault, drv.cl
        inj.detail.update(replicas=cl.world.deployment(f.target).replicas)
        cl.scale(f.target, 0, t)
        inj.artifacts = replicas_aliases(f.target)

    def present(self, drv: Injector, inj: Injection) -> bool:
        return drv.cl.world.deployment(inj.fault.target).replicas == 0

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return False

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        drv.cl.scale(inj.fault.target, inj.detail["replicas"], t)


class ConfigDrift:
    """A hand edit of an address setting that looks right but points at the wrong port or host."""

    def inject(self, drv: Injector, inj: Injection, t: float) -> None:
        f, cl = inj.fault, drv.cl
        key, value = drift(drv, f)
        before = cl.world.deployment(f.target).current.template.env_dict().get(key[4:])
        rev = cl.patch(f.target, key, value, t, cause="")
        inj.detail.update(key=key, value=value, before=before)
        inj.artifacts = aliases(
            *key_aliases(f.target, key),
            f"{f.target}@{rev.number}",
            f"deployment/{f.target}@{rev.number}",
        )

    def present(self, drv: Injector, inj: Injection) -> bool:
        d = inj.detail
        env = drv.cl.world.deployment(inj.fault.target).current.template.env_dict()
        return env.get(d["key"][4:]) == d["value"]

    def always_revert(self, drv: Injector, inj: Injection) -> bool:
        return False

    def revert(self, drv: Injector, inj: Injection, t: float) -> None:
        d, target = inj.detail, inj.fault.target
        if d["before"] is None:
            drv.cl.unset_env(target, d["key"][4:], t)
        else:
            drv.cl.patch(target, d["key"], d["before"], t, cause="")


def drift(drv: Injector, f: Fault) -> tuple[str, str]:
    """An edited address that looks right but points at the wrong port or host."""
    topo = drv.cl.topo
    peer = str(f.params["peer"])
    var = topo.addr_env.get((topo.index[f.target], topo.index[peer]))
    if var is None:
        raise ValueError(f"{f.id}: {f.target} has no address setting for {peer}")
    cur = drv.cl.world.deployment(f.target).current.template.env_dict().get(var, "")
    host, _, port = cur.rpartition(":")
    if port.isdigit() and host:
        return f"env.{var}", f"{host}:{int(port) + 1}"
    return f"env.{var}", f"{cur}-v2"


CHANGE = ChangeDelivery()
MECHANISMS: dict[str, object] = {
    "cpu_hog": PodCondition("hog"),
    "network_delay": PodCondition("delay"),
    "mem_balloon": PodCondition("balloon"),
    "dependency_oom": PodCondition("balloon"),
    "network_partition": NetworkPartition(),
    "node_failure": NodeOutage("node"),
    "zone_outage": NodeOutage("zone"),
    "replicas_zero": ReplicasZero(),
    "config_drift": ConfigDrift(),
}
SELECTOR = {fld: SelectorChaos(fld) for fld in set(POD_FIELDS.values())}


def mechanism_of(f: Fault):
    """The class that injects ``f`` on the simulator (a ``Mechanism``)."""
    if f.delivery == "change":
        return CHANGE
    m = MECHANISMS.get(f.mechanism)
    if m is None:  # pragma: no cover - catalog validation names only known mechanisms
        raise ValueError(f"unknown mechanism {f.mechanism}")
    if isinstance(m, PodCondition) and f.params.get("attach") == "selector":
        return SELECTOR[m.field]
    return m
