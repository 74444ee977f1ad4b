"""Tool dispatch: validation, profiles, the incident store, interventions and their evidence."""

from __future__ import annotations

import pytest

from sre_gym.backends.base import OperationError
from sre_gym.backends.sim import SimBackend
from sre_gym.bundle.evidence import Evidence
from sre_gym.sim.diffs import reverse_diff
from sre_gym.tools.dispatch import Invalid, Toolbox


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
    want = sum(d.replicas for d in b.cluster.world.deployments)  # every deployment, side jobs too
    assert float(out["result"]["result"][0]["value"][1]) == want
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
    rev0 = b.cluster.world.deployment("cartservice").current.number
    out, _ = run(tb, "restart", b.now, deployment="cartservice", incident_id="INC-0001")
    assert not out["ok"] and "report one first" in out["error"]
    assert b.cluster.world.deployment("cartservice").current.number == rev0
    rep, _ = run(
        tb, "report_incident", b.now, alert_ids=[], root_cause_services=["cartservice"], summary="x"
    )
    assert rep["ok"] and rep["result"]["id"] == "INC-0001"
    out, _ = run(tb, "restart", b.now, deployment="cartservice", incident_id="INC-0001")
    assert out["ok"]
    assert b.cluster.world.deployment("cartservice").current.number == rev0 + 1
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


# ---------------------------------------------------------------------- traces, source and patches


def test_get_traces_reads_sampled_traces(box):
    tb, b = box
    out, dur = run(tb, "get_traces", b.now, limit=3)
    assert out["ok"] and dur == 3 and 1 <= len(out["result"]) <= 3
    tr = out["result"][-1]
    assert {"trace_id", "route", "duration_ms", "status", "errors", "slowest"} <= set(tr)
    full, _ = run(tb, "get_traces", b.now, trace_id=tr["trace_id"])
    assert full["ok"] and full["result"][0]["spans"][0]["service"] == "frontend"
    bad, _ = run(tb, "get_traces", b.now, service="mainframe")
    assert not bad["ok"] and "mainframe" in bad["error"]


class Hidden:
    """A backend without the source and build methods (as SimBackend may be): every other attribute
    is the real backend's."""

    HIDE = ("list_source", "read_source", "submit_patch")

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        if name in self.HIDE:
            raise AttributeError(name)
        return getattr(self._real, name)


def test_source_tools_without_backend_support_return_clear_errors(box):
    _, real = box
    tb = Toolbox(Hidden(real), Evidence(manifest={}))
    out, dur = run(tb, "read_source", real.now, service="cartservice")
    assert not out["ok"] and "source access is not available" in out["error"] and dur == 2
    run(tb, "report_incident", real.now, alert_ids=[], root_cause_services=["cartservice"])
    revs = [d.current.number for d in real.cluster.world.deployments]
    out, _ = run(
        tb,
        "submit_patch",
        real.now,
        service="cartservice",
        diff="--- a/x\n+++ b/x\n",
        incident_id="INC-0001",
    )
    assert not out["ok"] and "build pipeline is not available" in out["error"]
    assert tb.ev.of("intervention") == []
    assert [d.current.number for d in real.cluster.world.deployments] == revs


BAD = "--- a/src/cart.cs\n+++ b/src/cart.cs\n@@ -1 +1 @@\n-line0\n+line1\n"


class FakeBuild:
    """A tiny backend with source trees and a pipeline, for the happy paths of the source tools."""

    def __init__(self):
        self.files = {"cartservice": {"src/cart.cs": "line1\nline2\nline3\nline4\n"}}
        self.builds = []
        self.change_list = [
            {"sha": "ab12cd34" * 5, "service": "cartservice", "kind": "code", "t": 3, "diff": BAD},
            {"sha": "ab12ff00" * 5, "service": "frontend", "kind": "code", "t": 4, "diff": BAD},
            {"sha": "99" * 20, "service": "cartservice", "kind": "image", "t": 4, "diff": ""},
            {"sha": "77" * 20, "service": "cartservice", "kind": "code", "t": 50, "diff": BAD},
        ]

    def changes(self):
        return self.change_list

    def topology(self):
        return {"services": [{"name": "cartservice"}, {"name": "frontend"}], "nodes": []}

    def alerts(self, t):
        return []

    def alert_entities(self, aid):
        return []

    def list_source(self, service):
        if service not in self.files:
            raise OperationError(f"no source for {service!r}")
        return sorted(self.files[service])

    def read_source(self, service, path):
        try:
            return self.files[service][path]
        except KeyError:
            raise OperationError(f"{service}: no file {path!r}") from None

    def submit_patch(self, service, diff, t):
        if "syntax error" in diff:
            raise OperationError("lint failed: src/cart.cs:3: syntax error")
        self.builds.append((service, t, diff))
        return {"lint": "passed", "unit-tests": "passed", "build": "passed", "rollout": "started"}


def test_read_source_lists_files_and_pages_lines():
    fb = FakeBuild()
    tb = Toolbox(fb, Evidence(manifest={}))
    out, dur = run(tb, "read_source", 0, service="cartservice")
    assert out == {"ok": True, "result": {"service": "cartservice", "files": ["src/cart.cs"]}}
    assert dur == 2
    out, _ = run(
        tb, "read_source", 0, service="cartservice", path="src/cart.cs", start_line=2, max_lines=2
    )
    r = out["result"]
    assert (r["content"], r["start_line"], r["end_line"], r["total_lines"]) == (
        "line2\nline3",
        2,
        3,
        4,
    )
    out, _ = run(tb, "read_source", 0, service="cartservice", path="src/cart.cs", start_line=9)
    assert not out["ok"] and "past the end" in out["error"]
    out, _ = run(tb, "read_source", 0, service="cartservice", path="nope.cs")
    assert not out["ok"] and "no file" in out["error"]


def test_submit_patch_is_an_intervention_through_the_pipeline():
    fb = FakeBuild()
    tb = Toolbox(fb, Evidence(manifest={}))
    patch = "--- a/src/cart.cs\n+++ b/src/cart.cs\n@@ -1 +1 @@\n-line1\n+fixed\n"
    out, _ = run(tb, "submit_patch", 5, service="cartservice", diff=patch, incident_id="INC-0001")
    assert not out["ok"] and "report one first" in out["error"] and fb.builds == []
    run(tb, "report_incident", 5, alert_ids=[], root_cause_services=["cartservice"])
    out, dur = run(tb, "submit_patch", 7, service="cartservice", diff=patch, incident_id="INC-0001")
    assert out["ok"] and out["result"]["build"] == "passed" and dur == 60
    assert fb.builds == [("cartservice", 7, patch)]
    (x,) = tb.ev.of("intervention")
    assert (x["tool"], x["target"], x["object"], x["in_scope"]) == (
        "submit_patch",
        "cartservice",
        "source/cartservice",
        True,
    )
    out, _ = run(tb, "submit_patch", 9, service="frontend", diff=patch, incident_id="INC-0001")
    assert out["ok"] and tb.ev.of("intervention")[-1]["in_scope"] is False  # counts toward risk
    out, _ = run(
        tb,
        "submit_patch",
        9,
        service="cartservice",
        diff=patch + "syntax error",
        incident_id="INC-0001",
    )
    assert not out["ok"] and out["error"].startswith("lint failed")
    assert len(tb.ev.of("intervention")) == 2  # a failed pipeline changed nothing


def test_profiles_refuse_without_penalty(box):
    _, b = box
    tb = Toolbox(b, Evidence(manifest={}), profile="confined")
    out, dur = run(tb, "query_logs", b.now, service="frontend")
    assert not out["ok"] and "'confined' access profile" in out["error"] and dur == 0
    pod = b.k8s_get("pods", None)[0]["name"]
    out, _ = run(tb, "k8s_describe", b.now, kind="pods", name=pod)
    assert not out["ok"] and "describing pods" in out["error"]
    out, _ = run(tb, "k8s_describe", b.now, kind="deployments", name="cartservice")
    assert out["ok"]
    out, _ = run(tb, "k8s_get", b.now, kind="secrets")  # in the profile, but forbidden
    assert not out["ok"] and out["error"].startswith("blocked by policy")
    assert [e["tool"] for e in tb.ev.of("forbidden")] == ["k8s_get"]
    with pytest.raises(ValueError, match="known profiles"):
        Toolbox(b, Evidence(manifest={}), profile="admin")


def test_invalid_calls_are_reported_in_place(box):
    tb, b = box
    out, dur = tb.execute(Invalid("arguments are not valid JSON", tool="get_alerts"), b.now, 0, 110)
    assert out == {"ok": False, "error": "arguments are not valid JSON"} and dur == 0
    (ev,) = tb.ev.of("tool_call")
    assert ev["tool"] == "get_alerts" and not ev["ok"]


def test_submit_patch_reverts_a_change_by_sha():
    fb = FakeBuild()
    tb = Toolbox(fb, Evidence(manifest={}))
    run(tb, "report_incident", 5, alert_ids=[], root_cause_services=["cartservice"])
    out, dur = run(
        tb, "submit_patch", 7, service="cartservice", revert="AB12CD34", incident_id="INC-0001"
    )
    assert out["ok"] and dur == 60
    assert fb.builds == [("cartservice", 7, reverse_diff(BAD))]  # undone on top of the current tree
    assert [x["object"] for x in tb.ev.of("intervention")] == ["source/cartservice"]
    refusals = {
        "ab12": "at least 7",  # too short a prefix
        "ab12000": "no change with sha",
        "ab12ff00": "belongs to frontend, not cartservice",
        "9999999": "no source diff to revert",
        "7777777": "no change with sha",  # not deployed yet at t=7
    }
    for sha, why in refusals.items():
        out, _ = run(
            tb, "submit_patch", 7, service="cartservice", revert=sha, incident_id="INC-0001"
        )
        assert not out["ok"] and why in out["error"], (sha, out)
    for args in ({}, {"diff": BAD, "revert": "ab12cd34"}):
        out, _ = run(tb, "submit_patch", 7, service="cartservice", incident_id="INC-0001", **args)
        assert not out["ok"] and "exactly one of diff or revert" in out["error"]
    assert len(fb.builds) == 1 and len(tb.ev.of("intervention")) == 1  # refusals changed nothing


def test_the_record_of_arguments_never_raises():
    from sre_gym.tools.dispatch import _plain

    deep: object = "x"
    for _ in range(1500):
        deep = [deep]
    assert "nested more than 64" in _plain(deep)

    class Bad:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    assert _plain({"k": Bad()}) == "<arguments of type dict that are not JSON>"
    assert _plain({(1, 2): 3}) == "{(1, 2): 3}"  # not JSON: its repr


def test_get_alerts_takes_a_time_range():
    b = SimBackend("online-boutique", 3)
    b.advance_to(b.episode_start + 3600)
    tb = Toolbox(b, Evidence(manifest={}))
    every, _ = run(tb, "get_alerts", b.now)
    starts = sorted({a["starts_at"] for a in every["result"]})
    assert len(starts) >= 2, "the test needs alerts that started at different times"
    from sre_gym.clock import parse_time

    mid = int(parse_time(starts[len(starts) // 2]))
    early, _ = run(tb, "get_alerts", b.now, until=mid)
    late, _ = run(tb, "get_alerts", b.now, since=mid)
    assert early["result"] and late["result"]
    assert {a["id"] for a in early["result"]} | {a["id"] for a in late["result"]} == {
        a["id"] for a in every["result"]
    }
    assert all(a["starts_at"] < starts[len(starts) // 2] for a in early["result"])
