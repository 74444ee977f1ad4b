"""``preflight``: every check passes on a healthy fake cluster, and each failure is named by its check."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

import yaml  # noqa: E402

from sre_gym.backends.live_preflight import CHECKS, Check, preflight  # noqa: E402
from sre_gym.backends.live_rbac import allows, manifest  # noqa: E402
from sre_gym.backends.live_rules import RELEASE_LABEL, rule_file  # noqa: E402
from sre_gym.catalogs import RELEASE, load_app  # noqa: E402
from sre_gym.cli import main  # noqa: E402
from sre_gym.testing.fake_kube_routes import ACCESS_REVIEWS  # noqa: E402

from .conftest import APP, NS, T0  # noqa: E402


@pytest.fixture
def healthy(fc):
    """The fake cluster with the pack loaded in Prometheus and the API server's clock at T0."""
    fc.prom.load_rule_file(rule_file())
    fc.kube.server_time = lambda: T0
    return fc


def check(fc, api, *, clock=lambda: T0, **kw) -> dict[str, Check]:
    if "prometheus_url" not in kw:
        kw["prometheus_url"] = fc.prom.url
    checks = preflight(APP, api_client=api, clock=clock, **kw)
    assert [c.name for c in checks] == list(CHECKS)
    return {c.name: c for c in checks}


def failed(checks: dict[str, Check]) -> list[str]:
    return [name for name, c in checks.items() if not c.ok]


def test_a_healthy_cluster_passes_every_check_and_changes_nothing(healthy, api):
    checks = check(healthy, api)
    assert failed(checks) == [], [c.line() for c in checks.values()]
    n = len(load_app(APP).services)
    assert checks["deployments"].detail == f"all {n} deployments of {APP} are ready in {NS}"
    assert checks["alert rules"].detail == f"all 44 rules of the pack ({RELEASE}) are loaded"
    assert "v1.31.0-fake" in checks["kubernetes API"].detail
    assert "0.5 s" in checks["clock skew"].detail  # the Date header has whole seconds
    # only access reviews were posted; Prometheus got only GETs
    assert {m["path"] for m in healthy.kube.mutations} == {ACCESS_REVIEWS}
    assert {q["method"] for q in healthy.prom.queries} == {"GET"}
    reviews = healthy.kube.access_reviews
    assert {"verb": "delete", "resource": "namespaces", "name": NS, "namespace": NS} in [
        {k: v for k, v in r.items() if k != "group"} for r in reviews
    ]
    assert {(r["verb"], r["resource"]) for r in reviews if r["resource"] == "secrets"} == {
        ("get", "secrets"),
        ("list", "secrets"),
        ("watch", "secrets"),
    }


def test_the_shipped_rbac_passes_the_access_checks(healthy, api):
    docs = {d["kind"]: d for d in manifest(NS)}
    rules = docs["Role"]["rules"] + docs["ClusterRole"]["rules"]
    healthy.kube.policy = lambda verb, resource: allows(rules, verb, resource)
    assert failed(check(healthy, api)) == []
    only = manifest(NS, namespace_only=True)[1]["rules"]
    healthy.kube.policy = lambda verb, resource: allows(only, verb, resource)
    checks = check(healthy, api)
    assert failed(checks) == []
    assert "list nodes" in checks["backend permissions"].detail  # named, not failed


def test_readable_secrets_fail_their_check(healthy, api):
    healthy.kube.policy = lambda verb, resource: resource != "namespaces" or verb == "list"
    checks = check(healthy, api)
    assert failed(checks) == ["secrets unreadable"]
    assert "get/list/watch Secrets" in checks["secrets unreadable"].detail
    healthy.kube.policy = lambda verb, resource: resource != "namespaces" and verb != "get"
    checks = check(healthy, api)
    assert failed(checks) == ["secrets unreadable", "backend permissions"]
    assert "may list/watch Secrets" in checks["secrets unreadable"].detail


def test_a_deletable_namespace_fails_its_check(healthy, api):
    healthy.kube.policy = lambda verb, resource: resource != "secrets"
    checks = check(healthy, api)
    assert failed(checks) == ["namespace undeletable"]
    assert checks["namespace undeletable"].detail == f"this identity may delete namespace {NS}"


def test_a_missing_permission_is_named(healthy, api):
    healthy.kube.policy = lambda verb, resource: (
        resource
        not in (
            "secrets",
            "namespaces",
            "deployments/scale",
            "pods/log",
        )
    )
    checks = check(healthy, api)
    assert failed(checks) == ["backend permissions"]
    detail = checks["backend permissions"].detail
    assert "patch deployments/scale" in detail and "get pods/log" in detail
    assert "list namespaces" not in detail  # cluster-scoped reads do not fail the check


def test_missing_and_unready_deployments_are_named(healthy, api):
    healthy.kube.remove("deployments", "cartservice")
    dep = healthy.kube.get("deployments", "frontend")
    dep["status"]["readyReplicas"] = 1
    healthy.kube.add("deployments", dep)
    checks = check(healthy, api)
    assert failed(checks) == ["deployments"]
    assert checks["deployments"].detail == (
        f"missing from namespace {NS}: cartservice; not ready: frontend (1/2 ready)"
    )
    dep["spec"]["replicas"] = 0
    healthy.kube.add("deployments", dep)
    assert "frontend (scaled to 0)" in check(healthy, api)["deployments"].detail
    dep["spec"]["replicas"], dep["metadata"]["generation"] = 2, 5
    healthy.kube.add("deployments", dep)
    assert "frontend (generation 5 not observed yet)" in check(healthy, api)["deployments"].detail


def test_deployments_in_another_namespace_are_missing(healthy, api):
    checks = check(healthy, api, namespace="elsewhere")
    assert failed(checks) == ["deployments"]
    assert checks["deployments"].detail.startswith("missing from namespace elsewhere: ")


def test_prometheus_without_the_rules_fails_the_rule_check(fc, api):
    fc.kube.server_time = lambda: T0
    checks = check(fc, api)
    assert failed(checks) == ["alert rules"]
    assert checks["alert rules"].detail.startswith(f"44 of the pack's 44 rules ({RELEASE}) are not")
    doc = rule_file()
    dropped = doc["groups"][0]["rules"].pop(0)["alert"]
    fc.prom.load_rule_file(doc)
    detail = check(fc, api)["alert rules"].detail
    assert detail.startswith(f"1 of the pack's 44 rules ({RELEASE}) are not loaded: {dropped}")
    fc.prom.load_rule_file(rule_file("sre-marathon-r1"))
    detail = check(fc, api)["alert rules"].detail
    assert f"loaded with {RELEASE_LABEL}=sre-marathon-r1 (44)" in detail


def test_prometheus_down_or_not_ready_fails_both_prometheus_checks(healthy, api):
    healthy.prom.ready = False
    checks = check(healthy, api)
    assert failed(checks) == ["prometheus", "alert rules"]
    assert "answered HTTP 503" in checks["prometheus"].detail
    assert checks["alert rules"].detail == "not checked: Prometheus is not ready"
    url = healthy.prom.url
    healthy.prom.stop()
    checks = check(healthy, api, prometheus_url=url)
    assert failed(checks) == ["prometheus", "alert rules"]
    assert "unreachable" in checks["prometheus"].detail
    assert checks["alert rules"].detail == "not checked: Prometheus cannot be reached"


def test_clock_skew_beyond_the_bound_fails(healthy, api):
    checks = check(healthy, api, clock=lambda: T0 + 30)
    assert failed(checks) == ["clock skew"]
    assert checks["clock skew"].detail.startswith("this clock is 29.5 s ahead of the API server's")
    healthy.kube.server_time = lambda: T0 + 10
    assert failed(check(healthy, api)) == ["clock skew"]
    assert "behind" in check(healthy, api)["clock skew"].detail
    assert failed(check(healthy, api, max_skew_s=15)) == []


def test_an_unreachable_api_fails_every_kubernetes_check(healthy):
    from kubernetes import client as k8s

    cfg = k8s.Configuration()
    cfg.host = healthy.kube.url
    healthy.kube.stop()
    with k8s.ApiClient(cfg) as api:
        checks = check(healthy, api)
    assert failed(checks) == list(CHECKS[:6])
    assert "unreachable" in checks["kubernetes API"].detail
    assert checks["deployments"].detail == "not checked: the Kubernetes API cannot be reached"


def test_an_api_that_refuses_access_reviews_fails_the_access_checks(healthy, api):
    for _ in range(3):
        healthy.kube.refuse("POST", "selfsubjectaccessreviews", 403, "Forbidden", "no reviews")
    checks = check(healthy, api)
    assert failed(checks) == ["secrets unreadable", "namespace undeletable", "backend permissions"]
    assert all("could not ask the API" in checks[n].detail for n in failed(checks))


# ---------------------------------------------------------------------------------------- the CLI
def kubeconfig(tmp_path, url: str) -> str:
    path = tmp_path / "kubeconfig"
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": url}}],
        "users": [{"name": "agent", "user": {"token": "t0ken"}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "agent"}}],
        "current-context": "fake",
    }
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


def test_the_cli_prints_one_line_per_check_and_exits_1_on_a_failure(fc, tmp_path, capsys):
    fc.prom.load_rule_file(rule_file())  # the fake dates its answers with the wall clock here
    cfg = kubeconfig(tmp_path, fc.kube.url)
    args = ["live", "preflight", "--kubeconfig", cfg, "--prometheus-url", fc.prom.url]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:-1]] == ["ok"] * len(CHECKS)
    assert lines[-1] == "preflight: all checks passed"
    fc.kube.remove("deployments", "frontend")
    assert main([*args, "--app", APP, "--namespace", NS]) == 1
    out = capsys.readouterr().out
    assert "FAIL  deployments" in out and "frontend" in out
    assert out.splitlines()[-1] == "preflight: FAILED (deployments)"
    assert main([*args, "--context", "nowhere"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  kubernetes API        no Kubernetes configuration" in out


def test_preflight_names_a_missing_extra():
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'kubernetes':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from sre_gym.cli import main\n"
        "sys.exit(main(['live', 'preflight']))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "pip install 'sre_gym[live]'" in r.stderr, r.stderr
