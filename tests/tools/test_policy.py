"""The policy layer's rules, independent of any backend."""

from __future__ import annotations

from sre_gym.tools.policy import forbidden_reason


def test_allowed_operations_pass():
    assert forbidden_reason("k8s_get", {"kind": "pods"}) is None
    assert forbidden_reason("restart", {"deployment": "cartservice"}) is None
    assert (
        forbidden_reason("delete_resource", {"kind": "pods", "name": "cartservice-abc-def"}) is None
    )


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
