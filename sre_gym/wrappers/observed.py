"""Cluster facts the numeric RL wrappers read, through the same backend calls an agent's tools make.

``NumericObservation`` turns them into features and ``DiscreteRemedies`` decides its remedies and
its action mask from them, so both see one account of the cluster. Each function reads only what
``k8s_get``/``k8s_describe`` and ``read_source`` show (never ground truth) and returns an empty
answer when the backend cannot say.
"""

from __future__ import annotations

import functools
from typing import Any

import yaml

from sre_gym.backends.base import Backend, OperationError
from sre_gym.catalogs.schema import App, manifest_path
from sre_gym.sim.flags import FLAG_FILE, variants_of
from sre_gym.sim.source_trees import manifest_settings


def pod_owner(pod: str) -> str:
    """The deployment of a pod named ``<deployment>-<replicaset hash>-<suffix>``."""
    return pod.rsplit("-", 2)[0] if pod.count("-") >= 2 else pod


def stranded_pods(backend: Backend) -> dict[str, list[tuple[str, str]]]:
    """Per deployment, (pod, node) of its pods on NotReady nodes that are not terminating."""
    out: dict[str, list[tuple[str, str]]] = {}
    try:
        down = {n["name"] for n in backend.k8s_get("nodes", None) if n["status"] != "Ready"}
        if not down:
            return out
        pods = backend.k8s_get("pods", None)
    except (OperationError, NotImplementedError):
        return out
    for p in pods:
        if p["node"] in down and p["status"] != "Terminating":
            out.setdefault(p["deployment"], []).append((p["name"], p["node"]))
    return out


# the labels that name a workload in the apps' manifests (the simulator and the catalogs use ``app``;
# the Astronomy Shop's Helm chart selects by ``opentelemetry.io/name``)
NAME_LABELS = ("app", "app.kubernetes.io/name", "opentelemetry.io/name")


def egress_policies(backend: Backend, services: tuple[str, ...]) -> dict[str, list[str]]:
    """Per service, the NetworkPolicies that restrict its egress (they select its pods by a
    ``NAME_LABELS`` label and list ``Egress`` among their policy types), oldest first."""
    out: dict[str, list[str]] = {}
    try:
        policies = backend.k8s_get("networkpolicies", None)
    except (OperationError, NotImplementedError):
        return out
    for p in sorted(policies, key=lambda p: (p.get("created") or "", p["name"])):
        if "Egress" not in (p.get("policy_types") or ()):
            continue
        selector = p.get("pod_selector") or {}
        svc = next((selector[k] for k in NAME_LABELS if selector.get(k) in services), None)
        if svc is not None:
            out.setdefault(svc, []).append(p["name"])
    return out


def flags_changed(backend: Backend, app: App) -> dict[str, dict[str, str]]:
    """Per service, its feature flags (the app catalog names each flag's service) whose variant in
    the flag ConfigMap is not the default, mapped to that default. Flags the load generator owns
    are left out; empty for an app without flags or when the ConfigMap cannot be read."""
    out: dict[str, dict[str, str]] = {}
    if not app.flag_configmap:
        return out
    try:
        cm = backend.k8s_describe("configmaps", app.flag_configmap)
        chosen = variants_of(cm["data"][FLAG_FILE])
    except (OperationError, NotImplementedError, KeyError, TypeError):
        return out
    for f in app.flags:
        if not f.benchmark_owned and chosen.get(f.name, f.default) != f.default:
            out.setdefault(f.service, {})[f.name] = f.default
    return out


def env_drift(backend: Backend, service: str, dep: dict[str, Any] | None = None) -> dict[str, str]:
    """The env vars of the service's running pod template whose value differs from its manifest at
    the head of its repository, mapped to the manifest's value: what ``kubectl diff`` against git
    shows of a hand edit. Variables only one side has are left out (a deploy adds them). ``dep``:
    the deployment's ``k8s_describe``, if read; empty when either side cannot be read."""
    read = getattr(backend, "read_source", None)
    if read is None:
        return {}
    try:
        if dep is None:
            dep = backend.k8s_describe("deployments", service)
        live = {e["name"]: str(e["value"]) for e in dep["template"]["env"]}
        git = _manifest_env(service, read(service, manifest_path(service)))
    except (OperationError, NotImplementedError, KeyError, TypeError, yaml.YAMLError):
        return {}
    return {k: v for k, v in git if k in live and live[k] != v}


@functools.lru_cache(maxsize=256)  # manifests change only with a deploy: parse each text once
def _manifest_env(service: str, text: str) -> tuple[tuple[str, str], ...]:
    path = manifest_path(service)
    return tuple(manifest_settings({path: text}, service).get("env", {}).items())


def call_workload(call: dict, backend: Backend, app: App) -> str | None:
    """The workload an intervening tool call acts on, as its caller knows it: the deployment or
    service it names, the owner of a pod it deletes, the workload a NetworkPolicy it deletes
    selects (read before the deletion), the service a feature flag it patches changes; None for
    a call that does not intervene or names nothing readable."""
    tool, args = call.get("tool"), call.get("args")
    if not isinstance(args, dict) or not isinstance(tool, str):
        return None
    if tool == "patch_config" and args.get("deployment") == "flagd":
        key = str(args.get("key", ""))
        return next((f.service for f in app.flags if f"flags.{f.name}" == key), None)
    if tool in ("rollback", "scale", "restart", "patch_config"):
        return _text(args.get("deployment"))
    if tool == "submit_patch":
        return _text(args.get("service"))
    if tool != "delete_resource":
        return None
    name = _text(args.get("name"))
    if name is None:
        return None
    if args.get("kind") == "pods":
        return pod_owner(name)
    if args.get("kind") == "networkpolicies":
        try:
            policies = backend.k8s_get("networkpolicies", None)
        except (OperationError, NotImplementedError):
            return None
        for p in policies:
            if p.get("name") == name:
                selector = p.get("pod_selector") or {}
                return next((selector[k] for k in NAME_LABELS if k in selector), None)
    return None


def _text(v: object) -> str | None:
    return v if isinstance(v, str) and v else None
