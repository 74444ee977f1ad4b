"""RBAC of the agent identity: the manifest grants exactly the requests the live backend sends.

The requests are read off the backend's modules: every ``self.<api>.<method>(...)`` in the source of
``LiveBackend``'s classes, with ``<api>`` the client class ``live.py`` binds to that attribute, and
each method's HTTP method and path from the ``kubernetes`` client's own request builder.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
from pathlib import Path

import pytest
import yaml

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

from kubernetes import client as k8s  # noqa: E402

from sre_gym.backends import live as live_mod  # noqa: E402
from sre_gym.backends.live import LiveBackend  # noqa: E402
from sre_gym.backends.live_rbac import (  # noqa: E402
    CLUSTER_ROLE_NAME,
    PERMISSIONS,
    ROLE_NAME,
    allows,
    manifest,
    render,
)
from sre_gym.cli import main  # noqa: E402

NS = "online-boutique"
VERBS = {"PATCH": "patch", "POST": "create", "PUT": "update"}


def _api_classes() -> dict[str, type]:
    """``self.<attr> = k8s.<Class>(...)`` in live.py: attribute -> client API class."""
    out = {}
    for node in ast.walk(ast.parse(Path(live_mod.__file__).read_text())):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr.endswith("Api")
        ):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                    out[t.attr] = getattr(k8s, node.value.func.attr)
    return out


def backend_calls() -> set[tuple[str, str]]:
    """(API attribute, method) of every client call in the classes LiveBackend is made of."""
    apis = _api_classes()
    files = {
        inspect.getsourcefile(c) for c in LiveBackend.__mro__ if c.__module__.startswith("sre_gym")
    }
    calls = set()
    for f in files:
        for node in ast.walk(ast.parse(Path(f).read_text())):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and node.value.attr in apis
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id == "self"
            ):
                calls.add((node.value.attr, node.attr))
    return calls


def request_of(api: type, method: str) -> tuple[str, str]:
    """The HTTP method and path template the client sends for ``api.method``."""
    src = inspect.getsource(getattr(api, f"_{method}_serialize"))
    return (
        re.search(r"method='(\w+)'", src).group(1),
        re.search(r"resource_path='([^']+)'", src).group(1),
    )


def permission_of(http: str, path: str) -> tuple[str, str, str, bool]:
    """(verb, API group, resource[/subresource], namespaced) as the API server authorizes it."""
    parts = path.strip("/").split("/")
    group, rest = ("", parts[2:]) if parts[0] == "api" else (parts[1], parts[3:])
    namespaced = rest[0] == "namespaces" and len(rest) > 2
    if namespaced:
        rest = rest[2:]
    resource = rest[0] + (f"/{rest[2]}" if len(rest) > 2 else "")
    named = len(rest) > 1
    verb = (
        VERBS.get(http)
        or {
            "GET": "get" if named else "list",
            "DELETE": "delete" if named else "deletecollection",
        }[http]
    )
    return verb, group, resource, namespaced


def required() -> dict[tuple[str, str, str, bool], str]:
    apis = _api_classes()
    return {permission_of(*request_of(apis[attr], m)): m for attr, m in sorted(backend_calls())}


def docs(**kw) -> list[dict]:
    return list(yaml.safe_load_all(render(NS, **kw)))


def test_the_calls_are_read_off_the_backend():
    calls = backend_calls()
    assert {a for a, _ in calls} == {"core", "apps", "net"}
    assert ("apps", "patch_namespaced_deployment_scale") in calls  # an intervention
    assert ("core", "read_namespaced_pod_log") in calls  # a read
    assert permission_of(*request_of(k8s.CoreV1Api, "read_namespaced_pod_log")) == (
        "get",
        "",
        "pods/log",
        True,
    )
    assert permission_of(*request_of(k8s.CoreV1Api, "list_namespace")) == (
        "list",
        "",
        "namespaces",
        False,
    )


def test_permissions_are_exactly_the_backend_s_requests():
    need = required()
    have = {(p.verb, p.group, p.resource, p.namespaced): p.used_by for p in PERMISSIONS}
    assert have == need
    assert len(PERMISSIONS) == len(have)  # no duplicates


def test_the_manifest_parses_and_covers_every_call_with_nothing_more():
    parsed = docs()
    kinds = [d["kind"] for d in parsed]
    assert kinds == ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]
    by_kind = {d["kind"]: d for d in parsed}
    role, cluster = by_kind["Role"]["rules"], by_kind["ClusterRole"]["rules"]
    for (verb, group, resource, namespaced), method in required().items():
        assert allows(role if namespaced else cluster, verb, resource, group), method
    granted = {
        (v, g, r, kind == "Role")
        for kind in ("Role", "ClusterRole")
        for rule in by_kind[kind]["rules"]
        for v in rule["verbs"]
        for g in rule["apiGroups"]
        for r in rule["resources"]
    }
    assert granted == set(required())


def test_the_manifest_is_namespaced_without_secrets_wildcards_or_namespace_changes():
    text = render(NS)
    assert "secrets" not in text.lower() and "*" not in text
    parsed = docs()
    for d in parsed:
        if d["kind"] in ("ServiceAccount", "Role", "RoleBinding"):
            assert d["metadata"]["namespace"] == NS
    by_kind = {d["kind"]: d for d in parsed}
    assert by_kind["RoleBinding"]["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": ROLE_NAME,
    }
    assert by_kind["ClusterRoleBinding"]["roleRef"]["name"] == CLUSTER_ROLE_NAME
    assert (
        by_kind["RoleBinding"]["subjects"]
        == by_kind["ClusterRoleBinding"]["subjects"]
        == [{"kind": "ServiceAccount", "name": "sre-gym-agent", "namespace": NS}]
    )
    everything = by_kind["Role"]["rules"] + by_kind["ClusterRole"]["rules"]
    for verb in ("get", "list", "watch", "create", "update", "patch", "delete"):
        assert not allows(everything, verb, "secrets")
    for verb in ("create", "update", "patch", "delete", "deletecollection"):
        assert not allows(everything, verb, "namespaces")
    for rule in by_kind["ClusterRole"]["rules"]:  # cluster-wide: reads only
        assert set(rule["verbs"]) <= {"get", "list"}
    for sub in ("pods/exec", "pods/attach", "pods/portforward", "serviceaccounts/token"):
        assert not allows(everything, "create", sub) and not allows(everything, "get", sub)


def test_namespace_only_leaves_out_the_cluster_scoped_reads():
    parsed = docs(namespace_only=True)
    assert [d["kind"] for d in parsed] == ["ServiceAccount", "Role", "RoleBinding"]
    assert all(d["metadata"]["namespace"] == NS for d in parsed)
    text = render(NS, namespace_only=True)
    assert "Namespace only" in text and CLUSTER_ROLE_NAME not in text


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="invalid namespace"):
        manifest("Bad_NS")
    with pytest.raises(ValueError, match="invalid service account"):
        manifest(NS, "agent/1")


def test_allows_evaluates_rbac_rules():
    rules = [{"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get"]}]
    assert allows(rules, "get", "deployments") and allows(rules, "get", "deployments", "apps")
    assert not allows(rules, "get", "deployments", "") and not allows(rules, "patch", "deployments")
    assert allows([{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}], "delete", "secrets")


def test_the_cli_prints_the_manifest(capsys, tmp_path):
    assert main(["live", "rbac", "--namespace", "shop", "--service-account", "bot"]) == 0
    parsed = list(yaml.safe_load_all(capsys.readouterr().out))
    assert parsed == manifest("shop", "bot")
    assert main(["live", "rbac", "--app", "train-ticket", "--namespace-only"]) == 0
    parsed = list(yaml.safe_load_all(capsys.readouterr().out))
    assert {d["metadata"]["namespace"] for d in parsed} == {"train-ticket"}
    assert main(["live", "rbac", "--namespace", "Bad_NS"]) == 2
    assert "invalid namespace" in capsys.readouterr().err
    out = tmp_path / "rbac.yaml"
    assert main(["live", "rbac", "-o", str(out)]) == 0
    assert out.read_text() == render(NS)


# ------------------------------------------------------------------ the fault injector's identity
def injector_calls() -> set[tuple[str, str]]:
    """(API attribute, method) of every client call in live_faults.py and live_chaos.py
    (``drv.<api>.<m>`` and ``self.<api>.<m>``)."""
    from sre_gym.backends import live_chaos, live_faults

    apis = {"core", "apps", "net", "custom"}
    calls = set()
    trees = [ast.parse(Path(m.__file__).read_text()) for m in (live_faults, live_chaos)]
    for node in (n for tree in trees for n in ast.walk(tree)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr in apis
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id in ("self", "drv")
        ):
            calls.add((node.value.attr, node.attr))
    # reads through the shared client plumbing (LiveClient._deployment)
    calls.add(("apps", "read_namespaced_deployment"))
    return calls


def test_the_injector_s_permissions_are_exactly_its_requests():
    from sre_gym.backends.live_rbac import INJECTOR_PERMISSIONS

    cls = {"core": k8s.CoreV1Api, "apps": k8s.AppsV1Api, "net": k8s.NetworkingV1Api}
    need = {}
    for a, m in sorted(injector_calls()):
        if a == "custom":  # one generic path: a permission per Chaos Mesh kind it is used on
            verb, _, _, ns = permission_of(*request_of(k8s.CustomObjectsApi, m))
            for plural in ("stresschaos", "networkchaos"):
                need[(verb, "chaos-mesh.org", plural, ns)] = m
        else:
            need[permission_of(*request_of(cls[a], m))] = m
    have = {(p.verb, p.group, p.resource, p.namespaced): p.used_by for p in INJECTOR_PERMISSIONS}
    assert have == need
    assert ("patch", "", "nodes", False) in have  # node outages
    assert not any(p.resource == "secrets" for p in INJECTOR_PERMISSIONS)


def test_sre_gym_live_rbac_injector_prints_the_injector_s_identity(capsys):
    assert main(["live", "rbac", "--injector"]) == 0
    ds = [d for d in yaml.safe_load_all(capsys.readouterr().out) if d]
    kinds = [d["kind"] for d in ds]
    assert kinds == ["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]
    assert ds[0]["metadata"]["name"] == "sre-gym-injector"
    cluster = ds[3]["rules"]
    assert allows(cluster, "patch", "nodes") and not allows(cluster, "delete", "nodes")
    assert not allows(ds[1]["rules"], "get", "secrets")
