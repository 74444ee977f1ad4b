"""The policy layer's rules and access profiles, independent of any backend."""

from __future__ import annotations

import pytest

from sre_gym.tools import TOOLS
from sre_gym.tools.policy import (
    ACCESS_PROFILES,
    check_profile,
    diff_paths,
    forbidden_reason,
    profile_allows,
    profile_refusal,
)


def test_allowed_operations_pass():
    assert forbidden_reason("k8s_get", {"kind": "pods"}) is None
    assert forbidden_reason("restart", {"deployment": "cartservice"}) is None
    assert (
        forbidden_reason("delete_resource", {"kind": "pods", "name": "cartservice-abc-def"}) is None
    )
    assert forbidden_reason("delete_resource", {"kind": "networkpolicies", "name": "x"}) is None
    patch = "--- a/src/cart.cs\n+++ b/src/cart.cs\n@@ -1 +1 @@\n-a\n+b\n"
    assert forbidden_reason("submit_patch", {"service": "cartservice", "diff": patch}) is None
    assert forbidden_reason("read_source", {"service": "loadgenerator"}) is None  # reading is fine


def test_forbidden_operations_have_reasons():
    assert "secrets" in forbidden_reason("k8s_describe", {"kind": "secrets", "name": "x"})
    assert "namespace" in forbidden_reason(
        "delete_resource", {"kind": "namespaces", "name": "online-boutique"}
    )
    assert "load generator" in forbidden_reason(
        "delete_resource", {"kind": "pods", "name": "loadgenerator-x-y"}
    )
    assert "benchmark" in forbidden_reason("rollback", {"deployment": "loadgenerator"})
    assert "monitoring" in forbidden_reason(
        "delete_resource", {"kind": "configmaps", "name": "prometheus-rules"}
    )
    assert "orchestrator" in forbidden_reason(
        "delete_resource", {"kind": "deployments", "name": "chaos-controller-manager"}
    )
    assert "benchmark" in forbidden_reason(
        "delete_resource", {"kind": "deployments", "name": "kube-state-metrics"}
    )
    assert "orchestrator" in forbidden_reason(
        "patch_config", {"deployment": "frontend", "key": "env.CHAOS_MODE", "value": "off"}
    )
    assert "benchmark" in forbidden_reason(
        "submit_patch", {"service": "loadgenerator", "diff": "--- a/x\n+++ b/x\n"}
    )
    bad = "--- a/monitoring/alerts/rules.yaml\n+++ b/monitoring/alerts/rules.yaml\n@@\n-x\n+y\n"
    assert "belongs to the benchmark" in forbidden_reason(
        "submit_patch", {"service": "frontend", "diff": bad}
    )


def test_diff_paths_reads_the_headers():
    diff = "--- a/src/x.go\n+++ b/src/x.go\n--- /dev/null\n+++ b/new.py\n"
    assert diff_paths(diff) == ["src/x.go", "src/x.go", "new.py"]


def test_profiles_nest_and_cover_the_tools():
    order = ["confined", "shell-visible", "build-capable", "full"]
    assert list(ACCESS_PROFILES) == order
    for a, b in zip(order, order[1:], strict=False):
        assert ACCESS_PROFILES[a] < ACCESS_PROFILES[b]
    assert ACCESS_PROFILES["full"] == set(TOOLS)
    assert (
        "query_logs" not in ACCESS_PROFILES["confined"]
        and "query_logs" in ACCESS_PROFILES["shell-visible"]
    )
    assert {"read_source", "submit_patch"} <= ACCESS_PROFILES["build-capable"] - ACCESS_PROFILES[
        "shell-visible"
    ]
    assert {"rollback", "scale", "restart", "patch_config"} <= ACCESS_PROFILES["confined"]
    assert profile_allows("full", "delete_resource") and not profile_allows(
        "build-capable", "delete_resource"
    )
    with pytest.raises(ValueError, match="known profiles"):
        check_profile("root")


def test_profile_refusals_name_the_profile_that_has_the_tool():
    msg = profile_refusal("confined", "query_logs")
    assert "confined" in msg and "shell-visible" in msg
    assert "build-capable" in profile_refusal("shell-visible", "submit_patch")
    assert profile_refusal("confined", "k8s_describe", {"kind": "deployments"}) is None
    assert "pods" in profile_refusal("confined", "k8s_describe", {"kind": "pods", "name": "x"})
    assert profile_refusal("shell-visible", "k8s_describe", {"kind": "pods", "name": "x"}) is None
    assert profile_refusal("full", "delete_resource") is None


def test_every_apps_load_generator_is_protected():
    assert "benchmark" in forbidden_reason(
        "scale", {"deployment": "ts-load-generator", "replicas": 0}
    )
    assert "load generator" in forbidden_reason(
        "delete_resource", {"kind": "pods", "name": "ts-load-generator-5d8f-abcde"}
    )
    mine = frozenset({"traffic-maker"})  # whatever an app calls it, from its catalog
    assert forbidden_reason("restart", {"deployment": "traffic-maker"}) is None
    assert "benchmark" in forbidden_reason("restart", {"deployment": "traffic-maker"}, mine)
    assert "load generator" in forbidden_reason(
        "delete_resource", {"kind": "pods", "name": "traffic-maker-abc-def"}, mine
    )
