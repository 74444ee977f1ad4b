"""The interventions on a :class:`~sre_gym.sim.cluster.SimCluster`: what tools and the orchestrator
do to the running world.

:class:`Interventions` is mixed into ``SimCluster`` and holds the operations on deployments (rollback,
restart, scale, patch, unset_env, restore_template, delete_pod), NetworkPolicies, runtime pod
conditions, third-party failures, node readiness and feature flags. :class:`SimError` is what they
raise when they refuse; state is then unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from sre_gym.catalogs.schema import parse_cpu, parse_mem
from sre_gym.clock import MAX_REPLICAS, rfc3339
from sre_gym.sim import flags as flags_mod
from sre_gym.sim import netpol as netpol_mod
from sre_gym.sim import pods as P
from sre_gym.sim.controller import k8s_suffix, reconcile
from sre_gym.sim.state import Deployment, Revision, Template


class SimError(ValueError):
    """An operation the cluster refuses (unknown object, invalid value); state is unchanged."""


class Interventions:
    """Operations on the cluster's state, mixed into ``SimCluster`` (whose state they change)."""

    # ------------------------------------------------------------------ operations
    def _dep(self, name: str) -> Deployment:
        d = self.world.deployment(name)
        if d is None:
            known = ", ".join(x.name for x in self.world.deployments)
            raise SimError(f"deployment {name!r} not found (known: {known})")
        return d

    def _new_revision(
        self, dep: Deployment, tpl: Template, cause: str, t: float, commit: str | None = None
    ) -> Revision:
        if tpl == dep.current.template:
            return dep.current
        number = max(r.number for r in dep.revisions) + 1
        earlier = next((r for r in dep.revisions if r.template == tpl), None)
        if earlier is not None:
            # Kubernetes reuses the ReplicaSet with that template and moves its revision to the head
            dep.revisions.remove(earlier)
            cause, commit = cause or earlier.change_cause, commit or earlier.commit
        rev = Revision(number, tpl, cause, t, commit)
        dep.revisions.append(rev)
        dep.generation += 1
        dep.dirty = True
        dep.rollout_started = t
        self._behaviour_of(dep, tpl)
        self.world.event(
            t,
            "Normal",
            "ScalingReplicaSet",
            "Deployment",
            dep.name,
            f"Scaled up replica set {dep.name}-{k8s_suffix(10, self.release, self.seed, 'rs', dep.name, rev.number)} to 1",
        )
        reconcile(self, dep, t)
        return rev

    def rollback(self, name: str, t: float, to_revision: int | None = None) -> Revision:
        dep = self._dep(name)
        if to_revision is None:
            if len(dep.revisions) < 2:
                raise SimError(f"deployment {name!r} has no previous revision to roll back to")
            target = dep.revisions[-2]
        else:
            target = dep.revision(int(to_revision))
            if target is None:
                have = ", ".join(str(r.number) for r in dep.revisions)
                raise SimError(f"deployment {name!r} has no revision {to_revision} (have: {have})")
            if target is dep.current:
                raise SimError(
                    f"revision {to_revision} is already the current revision of {name!r}"
                )
        # Kubernetes moves the target revision to the head of the history under a new number.
        dep.revisions.remove(target)
        rev = Revision(
            max([r.number for r in dep.revisions] + [target.number]) + 1,
            target.template,
            target.change_cause,
            t,
            target.commit,
        )
        dep.revisions.append(rev)
        dep.generation += 1
        dep.dirty = True
        dep.rollout_started = t
        self._behaviour_of(dep, rev.template)
        self.world.event(
            t,
            "Normal",
            "DeploymentRollback",
            "Deployment",
            name,
            f"Rolled back deployment {name!r} to revision {target.number}",
        )
        reconcile(self, dep, t)
        return rev

    def restart(self, name: str, t: float) -> Revision:
        dep = self._dep(name)
        tpl = replace(dep.current.template, restarted_at=rfc3339(t))
        return self._new_revision(dep, tpl, dep.current.change_cause, t, dep.current.commit)

    def scale(self, name: str, replicas: int, t: float) -> None:
        dep = self._dep(name)
        if not 0 <= int(replicas) <= MAX_REPLICAS:
            raise SimError(f"replicas must be between 0 and {MAX_REPLICAS}, got {replicas}")
        dep.replicas = int(replicas)
        dep.generation += 1
        dep.dirty = True
        self.world.event(
            t,
            "Normal",
            "ScalingReplicaSet",
            "Deployment",
            name,
            f"Scaled deployment {name} to {replicas}",
        )
        reconcile(self, dep, t)

    def patch(
        self, name: str, key: str, value: str, t: float, cause: str | None = None
    ) -> Revision:
        """Patch one setting of the pod template: an env var, ``resources.limits.cpu|memory`` or
        ``readinessProbe.port``."""
        dep = self._dep(name)
        tpl = dep.current.template
        value = str(value)
        if key == "resources.limits.cpu":
            try:
                parse_cpu(value)
            except ValueError as e:
                raise SimError(str(e)) from e
            new = replace(tpl, cpu_limit=value)
        elif key == "resources.limits.memory":
            try:
                parse_mem(value)
            except ValueError as e:
                raise SimError(str(e)) from e
            new = replace(tpl, mem_limit=value)
        elif key == "readinessProbe.port":
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise SimError(f"readinessProbe.port must be a port number, got {value!r}")
            new = replace(tpl, readiness_port=int(value))
        elif key.startswith("flags.") and self.topo.app.flag_configmap and name == "flagd":
            return self._set_flags({key[6:]: value}, t, strict=True)
        elif key.startswith("env."):
            var = key[4:]
            if not var or not var.replace("_", "").isalnum():
                raise SimError(f"invalid environment variable name {var!r}")
            new = tpl.with_env(var, value)
        else:
            raise SimError(
                f"unsupported key {key!r}: use env.<NAME>, resources.limits.cpu, resources.limits.memory or readinessProbe.port"
            )
        return self._new_revision(
            dep,
            new,
            f"kubectl patch deployment {name} ({key}={value})" if cause is None else cause,
            t,
        )

    def unset_env(self, name: str, var: str, t: float) -> Revision:
        dep = self._dep(name)
        tpl = dep.current.template
        new = replace(tpl, env=tuple((k, v) for k, v in tpl.env if k != var))
        return self._new_revision(dep, new, "", t)

    def delete_pod(self, name: str, t: float) -> None:
        r = self.pods.index_of(name)
        if r is None or self.pods.state[r] == P.TERMINATING:
            raise SimError(f"pod {name!r} not found")
        self.delete_pod_row(r, t)
        reconcile(self, self.world.deployments[self.pods.dep[r]], t)

    def delete_networkpolicy(self, name: str, t: float) -> None:
        for i, pol in enumerate(self.world.netpols):
            if pol.name == name:
                del self.world.netpols[i]
                self.world.netpol_version += 1
                return
        raise SimError(f"networkpolicy {name!r} not found")

    def restore_template(
        self, name: str, tpl: Template, t: float, cause: str, sha: str | None = None
    ) -> Revision:
        return self._new_revision(self._dep(name), tpl, cause, t, sha)

    # ------------------------------------------------------------------ orchestrator-side operations
    def add_networkpolicy(self, policy: netpol_mod.NetworkPolicy) -> None:
        self.world.netpols.append(policy)
        self.world.netpol_version += 1

    def set_pod_condition(self, dep_name: str, field: str, value: float, t: float) -> list[str]:
        """Set a runtime condition (hog, delay, balloon) on every live pod of a deployment."""
        dep = self._dep(dep_name)
        rows = [int(r) for r in self.pods.live() if self.pods.dep[r] == dep.index]
        getattr(self.pods, field)[rows] = value
        return [self.pods.names[r] for r in rows]

    def third_party(
        self, service: str, delta: float, what: str, t: float, timeout_ms: float = 0.0
    ) -> None:
        """A third party the service calls starts (``delta`` > 0) or stops failing that share of
        its requests; ``what`` names it in the service's error logs. A failed call waits out the
        caller's ``timeout_ms`` first, which the service's mean latency carries."""
        i = self.topo.index[service]
        self.outside_err[i] = min(max(self.outside_err[i] + delta, 0.0), 1.0)
        self.outside_lat[i] = max(self.outside_lat[i] + delta * timeout_ms, 0.0)
        if delta > 0:
            msg = f"upstream {what} timed out: context deadline exceeded"
            if msg not in self.log_messages:
                self.log_messages.append(msg)
            self.outside_msg[i] = self.log_messages.index(msg)
        elif self.outside_err[i] <= 1e-9:
            self.outside_err[i], self.outside_msg[i], self.outside_lat[i] = 0.0, 0, 0.0

    def attach_condition(self, dep_name: str, field: str, value: float, t: float) -> list[str]:
        """Set a runtime condition on a deployment's pods by selector: on every live pod now and on
        every pod created until ``detach_condition``."""
        dep = self._dep(dep_name)
        self.selector_conditions.setdefault(dep.index, {})[field] = float(value)
        return self.set_pod_condition(dep_name, field, value, t)

    def detach_condition(self, dep_name: str, field: str) -> None:
        dep = self._dep(dep_name)
        self.selector_conditions.get(dep.index, {}).pop(field, None)
        rows = [int(r) for r in self.pods.live() if self.pods.dep[r] == dep.index]
        getattr(self.pods, field)[rows] = 0.0

    def clear_pod_condition(self, pod_names: list[str], field: str) -> None:
        for nm in pod_names:
            r = self.pods.index_of(nm)
            if r is not None:
                getattr(self.pods, field)[r] = 0.0

    def set_node_ready(self, node: str, ready: bool, t: float) -> list[str]:
        for nd in self.world.nodes:
            if nd.name == node:
                nd.ready = ready
                nd.down_since = None if ready else t
                self.world.event(
                    t,
                    "Normal" if ready else "Warning",
                    "NodeReady" if ready else "NodeNotReady",
                    "Node",
                    node,
                    f"Node {node} status is now: {'NodeReady' if ready else 'NodeNotReady'}",
                )
                for d in self.world.deployments:
                    d.dirty = True
                p = self.pods
                i = self.world.nodes.index(nd)
                return sorted(
                    {self.world.deployments[p.dep[r]].name for r in p.live() if p.node[r] == i}
                )
        raise SimError(f"node {node!r} not found")

    def flag_variants(self) -> dict[str, str]:
        cm = self.topo.app.flag_configmap
        text = self.world.configmaps.get(cm, {}).get(flags_mod.FLAG_FILE, "") if cm else ""
        return flags_mod.variants_of(text)

    def _set_flags(self, chosen: dict[str, str], t: float, strict: bool = False) -> Revision:
        """Rewrite the flag file in flagd's ConfigMap (flagd picks changes up without a restart)."""
        app = self.topo.app
        known = {f.name: f for f in app.flags}
        for flag, variant in chosen.items():
            if flag not in known:
                raise SimError(f"unknown flag {flag!r} (flags: {', '.join(known)})")
            if variant not in known[flag].variants:
                raise SimError(
                    f"flag {flag!r} has no variant {variant!r} (variants: {', '.join(known[flag].variants)})"
                )
        cur = self.flag_variants()
        cur.update(chosen)
        self.world.configmaps[app.flag_configmap] = {
            flags_mod.FLAG_FILE: flags_mod.flag_file(app, cur)
        }
        self.world.event(
            t,
            "Normal",
            "Updated",
            "ConfigMap",
            app.flag_configmap,
            f"configmap {app.flag_configmap} updated ({', '.join(f'{k}={v}' for k, v in chosen.items())})",
        )
        return self._dep("flagd").current
