"""RBAC for the live backend's agent identity: a namespaced Role granting exactly what it calls.

``PERMISSIONS`` lists every request ``LiveBackend`` sends to the Kubernetes API (its reads in
``live_reads.py`` and ``live_client.py``, its interventions in ``live_interventions.py``) as the
(verb, API group, resource) the API server authorizes; ``tests/backends/test_live_rbac.py`` reads
the client calls off those modules and checks that this list covers them, no more and no less.
``manifest(namespace, service_account)`` turns it into a ServiceAccount, a Role and a RoleBinding in
the app namespace, plus a read-only ClusterRole and ClusterRoleBinding for the two cluster-scoped
reads (nodes, the namespace list) unless ``namespace_only``; ``render`` gives the YAML that
``sre-gym live rbac`` prints. ``allows(rules, verb, resource)`` evaluates RBAC rules (for tests
and fakes). Nothing here imports the ``live`` extra.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sre_gym.backends.live_rules import dump_yaml

__all__ = [
    "CLUSTER_ROLE_NAME",
    "INJECTOR_ACCOUNT",
    "INJECTOR_PERMISSIONS",
    "injector_manifest",
    "PERMISSIONS",
    "ROLE_NAME",
    "SERVICE_ACCOUNT",
    "Permission",
    "allows",
    "manifest",
    "render",
]

ROLE_NAME = "sre-gym-agent"
SERVICE_ACCOUNT = "sre-gym-agent"
CLUSTER_ROLE_NAME = "sre-gym-agent-cluster-reads"
_VERB_ORDER = ("get", "list", "watch", "create", "update", "patch", "delete")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


@dataclass(frozen=True)
class Permission:
    """One request the backend sends, as RBAC sees it (``resource`` may name a subresource)."""

    verb: str
    group: str  # "" is the core API group
    resource: str  # e.g. "pods", "pods/log", "deployments/scale"
    namespaced: bool
    used_by: str  # the client method(s) that send it


PERMISSIONS: tuple[Permission, ...] = (
    # reads (live_reads.py, live_client.py): get and list only; the backend polls, never watches
    Permission("get", "", "pods", True, "read_namespaced_pod"),
    Permission("list", "", "pods", True, "list_namespaced_pod"),
    Permission("get", "", "pods/log", True, "read_namespaced_pod_log"),
    Permission("list", "", "events", True, "list_namespaced_event"),
    Permission("list", "", "services", True, "list_namespaced_service"),
    Permission("list", "", "configmaps", True, "list_namespaced_config_map"),
    Permission("get", "apps", "deployments", True, "read_namespaced_deployment"),
    Permission("list", "apps", "deployments", True, "list_namespaced_deployment"),
    Permission("list", "apps", "replicasets", True, "list_namespaced_replica_set"),
    Permission(
        "get", "networking.k8s.io", "networkpolicies", True, "read_namespaced_network_policy"
    ),
    Permission(
        "list", "networking.k8s.io", "networkpolicies", True, "list_namespaced_network_policy"
    ),
    # interventions (live_interventions.py): rollback (a JSON patch: apps/v1 has no rollback
    # subresource), config patches and restarts patch the deployment; scale patches its subresource
    Permission("patch", "apps", "deployments", True, "patch_namespaced_deployment"),
    Permission("patch", "apps", "deployments/scale", True, "patch_namespaced_deployment_scale"),
    Permission("delete", "", "pods", True, "delete_namespaced_pod"),
    Permission(
        "delete", "networking.k8s.io", "networkpolicies", True, "delete_namespaced_network_policy"
    ),
    # cluster-scoped reads (k8s_get nodes|namespaces, k8s_describe nodes): a Role cannot grant them
    Permission("get", "", "nodes", False, "read_node"),
    Permission("list", "", "nodes", False, "list_node"),
    Permission("list", "", "namespaces", False, "list_namespace"),
)

# the fault injector's identity (live_faults.py): a separate, more privileged service account, so
# that the agent's stays namespaced and read-mostly; tests/backends/test_live_rbac.py checks that
# this list is exactly the injector's requests
INJECTOR_ACCOUNT = "sre-gym-injector"
INJECTOR_PERMISSIONS: tuple[Permission, ...] = (
    Permission("get", "apps", "deployments", True, "read_namespaced_deployment"),
    Permission("patch", "apps", "deployments", True, "patch_namespaced_deployment"),
    Permission("patch", "apps", "deployments/scale", True, "patch_namespaced_deployment_scale"),
    Permission("list", "", "pods", True, "list_namespaced_pod"),
    Permission("get", "", "configmaps", True, "read_namespaced_config_map"),
    Permission("update", "", "configmaps", True, "replace_namespaced_config_map"),
    Permission(
        "create", "networking.k8s.io", "networkpolicies", True, "create_namespaced_network_policy"
    ),
    Permission(
        "list", "networking.k8s.io", "networkpolicies", True, "list_namespaced_network_policy"
    ),
    Permission(
        "delete", "networking.k8s.io", "networkpolicies", True, "delete_namespaced_network_policy"
    ),
    # Chaos Mesh experiments (only when its CRDs are installed: live_chaos.py)
    Permission("create", "chaos-mesh.org", "stresschaos", True, "create_namespaced_custom_object"),
    Permission("get", "chaos-mesh.org", "stresschaos", True, "get_namespaced_custom_object"),
    Permission("patch", "chaos-mesh.org", "stresschaos", True, "patch_namespaced_custom_object"),
    Permission("delete", "chaos-mesh.org", "stresschaos", True, "delete_namespaced_custom_object"),
    Permission("create", "chaos-mesh.org", "networkchaos", True, "create_namespaced_custom_object"),
    Permission("get", "chaos-mesh.org", "networkchaos", True, "get_namespaced_custom_object"),
    Permission("patch", "chaos-mesh.org", "networkchaos", True, "patch_namespaced_custom_object"),
    Permission("delete", "chaos-mesh.org", "networkchaos", True, "delete_namespaced_custom_object"),
    # node outages taint and cordon nodes: cluster-scoped, so a ClusterRole
    Permission("get", "", "nodes", False, "read_node"),
    Permission("patch", "", "nodes", False, "patch_node"),
)


def injector_manifest(
    namespace: str, service_account: str = INJECTOR_ACCOUNT
) -> list[dict[str, Any]]:
    """The fault injector's ServiceAccount, Role and RoleBinding in ``namespace``, and the
    ClusterRole and ClusterRoleBinding for the node taints of node and zone outages."""
    _check_name("namespace", namespace)
    _check_name("service account name", service_account)
    labels = {"app.kubernetes.io/part-of": "sre-gym"}
    subject = {"kind": "ServiceAccount", "name": service_account, "namespace": namespace}
    role = f"{service_account}"
    return [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": service_account, "namespace": namespace, "labels": labels},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": role, "namespace": namespace, "labels": labels},
            "rules": _rules([p for p in INJECTOR_PERMISSIONS if p.namespaced]),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": role, "namespace": namespace, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
            "subjects": [subject],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": f"{role}-nodes", "labels": labels},
            "rules": _rules([p for p in INJECTOR_PERMISSIONS if not p.namespaced]),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": f"{role}-nodes-{namespace}", "labels": labels},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": f"{role}-nodes",
            },
            "subjects": [subject],
        },
    ]


_INJECTOR_HEADER = """\
# RBAC for the sre_gym live backend's fault injector: ServiceAccount {sa} in namespace {ns}.
# A separate identity from the agent's: it patches deployment templates and scale, replaces the
# flag ConfigMap, creates and deletes NetworkPolicies in the app namespace, and taints and cordons
# nodes (a ClusterRole: nodes are cluster-scoped) for node and zone outages. No Secrets, no
# wildcards. Pass its client as injector_api_client= (gym.make(..., backend="live")).
"""

_HEADER = """\
# RBAC for the sre_gym live backend's agent identity: ServiceAccount {sa}
# in namespace {ns}.
# The Role grants exactly the requests LiveBackend sends (sre_gym/backends/live_reads.py and
# live_interventions.py): reads are get/list (the backend polls, it never watches); interventions
# patch deployments (rollback is a JSON patch of the deployment, apps/v1 has no rollback
# subresource; config patches and restarts are strategic-merge patches), patch deployments/scale,
# and delete pods and NetworkPolicies. Nothing else: no Secret in any verb, no pods/exec, no create,
# no wildcards, and no verb on namespaces but list, so the namespace cannot be deleted.
{cluster}# Whoever may patch a deployment could mount a Secret into a pod: the Toolbox sends only the
# structured patches above; an admission policy is the second fence.
# A token for a kubeconfig: kubectl -n {ns} create token {sa}
"""
_CLUSTER = """\
# Nodes and the namespace list are cluster-scoped, so no Role can grant them: the ClusterRole
# {role} grants get/list nodes and list namespaces, read-only, for
# k8s_get nodes|namespaces and k8s_describe nodes. Without it (sre-gym live rbac
# --namespace-only) those reads answer with the API's refusal and everything else works.
"""
_NO_CLUSTER = """\
# Namespace only: nodes and the namespace list are cluster-scoped and not granted, so k8s_get
# nodes|namespaces and k8s_describe nodes answer with the API's refusal.
"""


def _rules(perms: list[Permission]) -> list[dict[str, Any]]:
    """RBAC rules, one per (API group, resource), verbs in kubectl's order."""
    by: dict[tuple[str, str], set[str]] = {}
    for p in perms:
        by.setdefault((p.group, p.resource), set()).add(p.verb)
    return [
        {
            "apiGroups": [group],
            "resources": [resource],
            "verbs": sorted(verbs, key=_VERB_ORDER.index),
        }
        for (group, resource), verbs in sorted(by.items())
    ]


def _check_name(what: str, name: str) -> None:
    if not _DNS_LABEL.match(name) or len(name) > 63:
        raise ValueError(f"invalid {what} {name!r}: use a DNS label (lowercase, digits, '-')")


def manifest(
    namespace: str, service_account: str = SERVICE_ACCOUNT, *, namespace_only: bool = False
) -> list[dict[str, Any]]:
    """The ServiceAccount, Role and RoleBinding in ``namespace`` (and, unless ``namespace_only``,
    the read-only ClusterRole and ClusterRoleBinding of the cluster-scoped reads)."""
    _check_name("namespace", namespace)
    _check_name("service account name", service_account)
    labels = {"app.kubernetes.io/part-of": "sre-gym"}
    subject = {"kind": "ServiceAccount", "name": service_account, "namespace": namespace}
    docs: list[dict[str, Any]] = [
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": service_account, "namespace": namespace, "labels": labels},
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": ROLE_NAME, "namespace": namespace, "labels": labels},
            "rules": _rules([p for p in PERMISSIONS if p.namespaced]),
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": ROLE_NAME, "namespace": namespace, "labels": labels},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ROLE_NAME},
            "subjects": [subject],
        },
    ]
    if not namespace_only:
        docs += [
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": CLUSTER_ROLE_NAME, "labels": labels},
                "rules": _rules([p for p in PERMISSIONS if not p.namespaced]),
            },
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRoleBinding",
                "metadata": {"name": f"{service_account}-{namespace}", "labels": labels},
                "roleRef": {
                    "apiGroup": "rbac.authorization.k8s.io",
                    "kind": "ClusterRole",
                    "name": CLUSTER_ROLE_NAME,
                },
                "subjects": [subject],
            },
        ]
    return docs


def render(
    namespace: str,
    service_account: str = SERVICE_ACCOUNT,
    *,
    namespace_only: bool = False,
    injector: bool = False,
) -> str:
    """The manifest as multi-document YAML with a header saying what it grants and why
    (``injector``: the fault injector's identity instead of the agent's)."""
    if injector:
        sa = INJECTOR_ACCOUNT if service_account == SERVICE_ACCOUNT else service_account
        head = _INJECTOR_HEADER.format(sa=sa, ns=namespace)
        return head + "---\n".join(
            dump_yaml(d, flow_lists=True) for d in injector_manifest(namespace, sa)
        )
    docs = manifest(namespace, service_account, namespace_only=namespace_only)
    cluster = _NO_CLUSTER if namespace_only else _CLUSTER.format(role=CLUSTER_ROLE_NAME)
    head = _HEADER.format(sa=service_account, ns=namespace, cluster=cluster)
    return head + "---\n".join(dump_yaml(d, flow_lists=True) for d in docs)


def allows(rules: list[dict[str, Any]], verb: str, resource: str, group: str | None = None) -> bool:
    """Whether RBAC ``rules`` grant ``verb`` on ``resource`` (``pods/log`` for a subresource) in
    API ``group`` (None: any group). ``*`` matches as in Kubernetes; resourceNames are ignored."""
    for r in rules:
        if verb not in r.get("verbs", ()) and "*" not in r.get("verbs", ()):
            continue
        if resource not in r.get("resources", ()) and "*" not in r.get("resources", ()):
            continue
        if group is None or group in r.get("apiGroups", ()) or "*" in r.get("apiGroups", ()):
            return True
    return False
