"""The live backend's interventions: rollback, config patches, scale, restart and delete.

``LiveInterventions`` changes deployments with the requests ``kubectl`` sends: ``rollout undo`` (a
JSON patch putting back a ReplicaSet's pod template and annotations), strategic-merge patches of one
setting of the first container and of the restart stamp, the scale subresource, and deletes of pods
and NetworkPolicies. A refusal (a bad key or value, an unknown revision) sends nothing.
"""

from __future__ import annotations

import json
from typing import Any

from sre_gym.backends.base import OperationError
from sre_gym.backends.live_client import LiveClient
from sre_gym.backends.live_objects import (
    HASH_LABEL,
    PROBE_HANDLERS,
    REVISION,
    _annotations,
    _containers,
    _image,
    _revision,
    _template_key,
)
from sre_gym.catalogs.schema import parse_cpu, parse_mem
from sre_gym.clock import MAX_REPLICAS, rfc3339

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
# deployment annotations ``kubectl rollout undo`` keeps instead of taking them from the ReplicaSet
ROLLBACK_KEEP = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    }
)


class LiveInterventions(LiveClient):
    """The write side of ``LiveBackend``: each intervention sends at most one mutating request,
    and only once its checks pass."""

    def rollback(self, deployment: str, to_revision: int | None, t: float) -> str:
        """``kubectl rollout undo``: put the pod template of the previous (or the requested)
        revision's ReplicaSet back into the deployment, with that ReplicaSet's annotations."""
        dep = self._deployment(deployment)
        rss = [r for r in self._replicasets(deployment) if _revision(r) is not None]
        revisions = sorted({_revision(r) for r in rss})  # type: ignore[type-var]
        current = _revision(dep) or (revisions[-1] if revisions else None)
        if to_revision is None:
            if len(revisions) < 2:
                raise OperationError(
                    f"deployment {deployment!r} has no previous revision to roll back to"
                )
            target = revisions[-2]
        else:
            target = int(to_revision)
            if target not in revisions:
                have = ", ".join(str(r) for r in revisions) or "none"
                raise OperationError(
                    f"deployment {deployment!r} has no revision {target} (have: {have})"
                )
            if target == current:
                raise OperationError(
                    f"revision {target} is already the current revision of {deployment!r}"
                )
        rs = next(r for r in rss if _revision(r) == target)
        template = json.loads(json.dumps((rs.get("spec") or {}).get("template") or {}))
        if _template_key(template) == _template_key((dep.get("spec") or {}).get("template") or {}):
            raise OperationError(
                f"the current template of {deployment!r} already matches revision {target}"
            )
        labels = (template.get("metadata") or {}).get("labels") or {}
        labels.pop(HASH_LABEL, None)
        annotations = {k: v for k, v in _annotations(dep).items() if k in ROLLBACK_KEEP}
        annotations.update({k: v for k, v in _annotations(rs).items() if k not in ROLLBACK_KEEP})
        patch = [
            {"op": "replace", "path": "/spec/template", "value": template},
            {"op": "add", "path": "/metadata/annotations", "value": annotations},
        ]
        self._patch_deployment(deployment, patch)
        return f"deployment.apps/{deployment} rolled back to revision {target} (image {_image(template)})"

    def patch_config(self, deployment: str, key: str, value: str, t: float) -> str:
        """Set one setting of the first container: ``env.<NAME>``, ``resources.limits.cpu|memory``
        or ``readinessProbe.port`` (a strategic-merge patch, so the rest of the template stays)."""
        value = str(value)
        dep = self._deployment(deployment)
        containers = _containers((dep.get("spec") or {}).get("template") or {})
        if not containers:
            raise OperationError(f"deployment {deployment!r} has no containers")
        c = containers[0]
        change: dict[str, Any]
        if key in ("resources.limits.cpu", "resources.limits.memory"):
            res = key.rsplit(".", 1)[1]
            try:
                (parse_cpu if res == "cpu" else parse_mem)(value)
            except ValueError as e:
                raise OperationError(str(e)) from None
            current = ((c.get("resources") or {}).get("limits") or {}).get(res)
            change = {"resources": {"limits": {res: value}}}
        elif key == "readinessProbe.port":
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise OperationError(f"readinessProbe.port must be a port number, got {value!r}")
            probe = c.get("readinessProbe") or {}
            handler = next((h for h in PROBE_HANDLERS if isinstance(probe.get(h), dict)), None)
            if handler is None:
                raise OperationError(
                    f"container {c.get('name')!r} of {deployment!r} has no readiness probe with a port"
                )
            current = probe[handler].get("port")
            change = {"readinessProbe": {handler: {"port": int(value)}}}
        elif key.startswith("env."):
            var = key[4:]
            if not var or not var.replace("_", "").isalnum():
                raise OperationError(f"invalid environment variable name {var!r}")
            old = next((e for e in c.get("env") or [] if e.get("name") == var), None)
            current = old.get("value") if old is not None and "valueFrom" not in old else None
            entry: dict[str, Any] = {"name": var, "value": value}
            if old is not None and "valueFrom" in old:
                entry["valueFrom"] = None  # a literal value replaces the reference
            change = {"env": [entry]}
        else:
            raise OperationError(
                f"unsupported key {key!r}: use env.<NAME>, resources.limits.cpu, resources.limits.memory or readinessProbe.port"
            )
        if current is not None and str(current) == value:
            return f"deployment.apps/{deployment} not changed ({key} is already {value})"
        body = {"spec": {"template": {"spec": {"containers": [{"name": c.get("name"), **change}]}}}}
        self._patch_deployment(deployment, body)
        return f"deployment.apps/{deployment} patched ({key}={value}); rolling out a new revision"

    def _patch_deployment(self, name: str, body: Any) -> None:
        """A strategic-merge patch (a dict body) or a JSON patch (a list body) of one deployment."""
        self._k8s(
            "deployment", name, self.apps.patch_namespaced_deployment, name, self.namespace, body
        )

    def scale(self, deployment: str, replicas: int, t: float) -> str:
        if not 0 <= int(replicas) <= MAX_REPLICAS:
            raise OperationError(f"replicas must be between 0 and {MAX_REPLICAS}, got {replicas}")
        self._k8s(
            "deployment",
            deployment,
            self.apps.patch_namespaced_deployment_scale,
            deployment,
            self.namespace,
            {"spec": {"replicas": int(replicas)}},
        )
        return f"deployment.apps/{deployment} scaled to {int(replicas)}"

    def restart(self, deployment: str, t: float) -> str:
        """``kubectl rollout restart``, stamped with the episode time ``t`` (not the wall clock)."""
        body = {"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: rfc3339(t)}}}}}
        self._patch_deployment(deployment, body)
        return f"deployment.apps/{deployment} restarted"

    def delete(self, kind: str, name: str, t: float) -> str:
        if kind == "pods":
            self._k8s("pod", name, self.core.delete_namespaced_pod, name, self.namespace)
            return f'pod "{name}" deleted'
        if kind == "networkpolicies":
            self._k8s(
                "networkpolicy",
                name,
                self.net.delete_namespaced_network_policy,
                name,
                self.namespace,
            )
            return f'networkpolicy.networking.k8s.io "{name}" deleted'
        raise OperationError(f"deleting {kind} is not supported; delete pods or networkpolicies")
