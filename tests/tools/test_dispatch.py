"""Tool dispatch: validation, the incident store, interventions and their evidence."""

from __future__ import annotations

import pytest

from sre_gym.backends.sim import SimBackend
from sre_gym.bundle.evidence import Evidence
from sre_gym.tools.dispatch import Toolbox


@pytest.fixture()
def box():
    b = SimBackend("online-boutique", 0)
    b.advance_to(b.episode_start + 900)
    return Toolbox(b, Evidence(manifest={})), b


def run(tb, tool, t, **args):
    out, dur = tb.execute({"tool": tool, "args": args}, t, 0, 110)
    return out, dur


def test_reads_return_results_and_take_their_duration(box):
    tb, b = box
    t = b.now
    out, dur = run(tb, "k8s_get", t, kind="pods")
    assert out["ok"] and dur == 1
    assert {p["deployment"] for p in out["result"]} >= {"frontend", "cartservice", "redis-cart"}
    out, _ = run(tb, "query_metrics", t, query="sum(kube_deployment_spec_replicas)")
    assert out["ok"] and out["result"]["resultType"] == "vector"
    assert float(out["result"]["result"][0]["value"][1]) == 12
    out, _ = run(tb, "query_metrics", t, query="up{", range_s=600)
    assert not out["ok"] and "parse" in out["error"].lower() or "unclosed" in out["error"]
    out, _ = run(tb, "query_metrics", t, query="up", time=int(t) + 60)
    assert not out["ok"] and "future" in out["error"]


def test_unknown_tool_and_bad_types_are_errors(box):
    tb, b = box
    out, dur = tb.execute({"tool": "drop_tables", "args": {}}, b.now, 0, 110)
    assert not out["ok"] and "unknown tool" in out["error"] and dur == 0
    out, _ = tb.execute(
        {
            "tool": "scale",
            "args": {"deployment": "cartservice", "replicas": "2", "incident_id": "INC-0001"},
        },
        b.now,
        0,
        110,
    )
    assert not out["ok"] and "replicas" in out["error"]
    out, _ = tb.execute(
        {"tool": "get_alerts", "args": {"state": "firing", "bogus": 1}}, b.now, 0, 110
    )
    assert not out["ok"] and "bogus" in out["error"]
    out, _ = tb.execute(["get_alerts"], b.now, 0, 110)
    assert not out["ok"] and "object" in out["error"]


def test_interventions_must_cite_an_open_incident(box):
    tb, b = box
    out, _ = run(tb, "restart", b.now, deployment="cartservice", incident_id="INC-0001")
    assert not out["ok"] and "report one first" in out["error"]
    assert b.cluster.world.deployment("cartservice").current.number == 1
    rep, _ = run(
        tb, "report_incident", b.now, alert_ids=[], root_cause_services=["cartservice"], summary="x"
    )
    assert rep["ok"] and rep["result"]["id"] == "INC-0001"
    out, _ = run(tb, "restart", b.now, deployment="cartservice", incident_id="INC-0001")
    assert out["ok"]
    assert b.cluster.world.deployment("cartservice").current.number == 2
    (x,) = tb.ev.of("intervention")
    assert x["in_scope"] and x["target"] == "cartservice" and x["incident_id"] == "INC-0001"
    out, _ = run(tb, "restart", b.now, deployment="frontend", incident_id="INC-0001")
    assert out["ok"] and tb.ev.of("intervention")[-1]["in_scope"] is False
    run(tb, "resolve_incident", b.now, incident_id="INC-0001")
    out, _ = run(tb, "restart", b.now, deployment="cartservice", incident_id="INC-0001")
    assert not out["ok"] and "resolved" in out["error"]


def test_reports_validate_alert_ids_and_entities(box):
    tb, b = box
    out, _ = run(tb, "report_incident", b.now, alert_ids=["ALR-9999"], root_cause_services=[])
    assert not out["ok"] and "ALR-9999" in out["error"]
    out, _ = run(tb, "report_incident", b.now, alert_ids=[], root_cause_services=["mainframe"])
    assert not out["ok"] and "mainframe" in out["error"]
    assert tb.incidents == {} and tb.ev.of("incident") == []


@pytest.mark.parametrize(
    "tool,args,why",
    [
        ("k8s_get", {"kind": "secrets"}, "secrets"),
        ("k8s_describe", {"kind": "secrets", "name": "redis-cart-auth"}, "secrets"),
        (
            "delete_resource",
            {"kind": "namespaces", "name": "online-boutique", "incident_id": "INC-0001"},
            "namespace",
        ),
        (
            "delete_resource",
            {"kind": "secrets", "name": "redis-cart-auth", "incident_id": "INC-0001"},
            "secrets",
        ),
        (
            "scale",
            {"deployment": "loadgenerator", "replicas": 0, "incident_id": "INC-0001"},
            "benchmark",
        ),
        (
            "patch_config",
            {
                "deployment": "frontend",
                "key": "env.PROMETHEUS_RULES",
                "value": "off",
                "incident_id": "INC-0001",
            },
            "monitoring",
        ),
    ],
)
def test_forbidden_operations_are_blocked_recorded_and_change_nothing(box, tool, args, why):
    tb, b = box
    run(tb, "report_incident", b.now, alert_ids=[], root_cause_services=["frontend"])
    revs = [d.current.number for d in b.cluster.world.deployments]
    out, dur = tb.execute({"tool": tool, "args": args}, b.now, 0, 110)
    assert not out["ok"] and out["error"].startswith("blocked by policy") and why in out["error"]
    assert [e["tool"] for e in tb.ev.of("forbidden")] == [tool]
    assert [d.current.number for d in b.cluster.world.deployments] == revs
    assert dur == 1


def test_changes_are_listed_and_shown_by_prefix(box):
    tb, b = box
    out, _ = run(tb, "list_changes", b.now)
    assert out["ok"]
    if out["result"]:
        sha = out["result"][0]["sha"]
        shown, _ = run(tb, "show_change", b.now, sha=sha[:9])
        assert shown["ok"] and shown["result"]["sha"] == sha and "diff" in shown["result"]
    bad, _ = run(tb, "show_change", b.now, sha="0000000")
    assert not bad["ok"]


def test_tool_calls_are_recorded_with_bounded_results(box):
    tb, b = box
    run(tb, "query_logs", b.now, service="frontend", limit=500, since_s=3600)
    (ev,) = tb.ev.of("tool_call")
    assert (
        ev["tool"] == "query_logs"
        and ev["ok"]
        and len(ev["result"]) <= 1100
        and len(ev["result_sha256"]) == 64
    )
