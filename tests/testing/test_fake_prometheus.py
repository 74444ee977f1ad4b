"""The fake Prometheus HTTP API, called through ``handle``: canned data, errors, alerts, the record."""

from __future__ import annotations

import json

from sre_gym.testing.fake_prometheus import FakePrometheus


def call(prom, path, method="GET", **params):
    status, out_type, payload = prom.handle(method, path, params, "", b"")
    return status, (json.loads(payload) if out_type == "application/json" else payload.decode())


def test_queries_get_their_canned_data_or_an_empty_result():
    prom = FakePrometheus()
    vec = {"resultType": "vector", "result": [{"metric": {"job": "x"}, "value": [1, "2"]}]}
    prom.instant["up"] = vec
    status, out = call(prom, "/api/v1/query", query="up", time="1")
    assert (status, out) == (200, {"status": "success", "data": vec})
    out["data"]["result"].clear()  # an answer is a copy
    assert call(prom, "/api/v1/query", query="up")[1]["data"] == vec
    assert call(prom, "/api/v1/query", query="nope")[1]["data"] == {
        "resultType": "vector",
        "result": [],
    }
    assert call(prom, "/api/v1/query_range", method="POST", query="up")[1]["data"] == {
        "resultType": "matrix",
        "result": [],
    }
    assert prom.queries[0] == {"path": "/api/v1/query", "method": "GET", "query": "up", "time": "1"}
    assert [q["method"] for q in prom.queries] == ["GET", "GET", "GET", "POST"]


def test_bad_queries_and_unknown_paths_get_prometheus_errors():
    prom = FakePrometheus()
    status, out = call(prom, "/api/v1/query", query="sum(bad{job=")
    assert status == 400 and out["errorType"] == "bad_data" and out["status"] == "error"
    assert out["error"] == (
        'invalid parameter "query": 1:9: parse error: unexpected end of input inside braces'
    )
    status, out = call(prom, "/api/v1/query_range")
    assert status == 400 and out["error"] == 'invalid parameter "query": unknown query'
    assert call(prom, "/api/v1/labels") == (404, "404 page not found\n")


def test_alerts_are_served_as_set():
    prom = FakePrometheus()
    alerts = [{"labels": {"alertname": "A"}, "state": "firing"}]
    prom.set_alerts(alerts)
    alerts[0]["state"] = "pending"  # set_alerts keeps a copy
    status, out = call(prom, "/api/v1/alerts")
    assert status == 200 and out == {
        "status": "success",
        "data": {"alerts": [{"labels": {"alertname": "A"}, "state": "firing"}]},
    }


def test_readiness_and_build_information():
    prom = FakePrometheus()
    assert call(prom, "/-/ready") == (200, "Prometheus Server is Ready.\n")
    prom.ready = False
    assert call(prom, "/-/ready") == (503, "Service Unavailable")
    status, out = call(prom, "/api/v1/status/buildinfo")
    assert status == 200 and out["status"] == "success" and out["data"]["version"] == "2.42.0"


def test_rules_are_served_as_loaded_from_a_rule_file():
    prom = FakePrometheus()
    assert call(prom, "/api/v1/rules") == (200, {"status": "success", "data": {"groups": []}})
    doc = {
        "groups": [
            {
                "name": "g",
                "interval": "1m",
                "rules": [
                    {"record": "job:up:sum", "expr": "sum by (job) (up)"},
                    {
                        "alert": "Down",
                        "expr": "up == 0\n",
                        "for": "2m",
                        "labels": {"severity": "page"},
                        "annotations": {"summary": "{{ $labels.job }} down"},
                    },
                ],
            },
            {"name": "h", "rules": [{"alert": "Always", "expr": "vector(1)"}]},
        ]
    }
    prom.load_rule_file(doc)
    status, out = call(prom, "/api/v1/rules")
    g, h = out["data"]["groups"]
    assert (g["name"], g["interval"], h["interval"]) == ("g", 60.0, 30.0)
    rec, alert = g["rules"]
    assert (rec["type"], rec["name"], rec["query"]) == (
        "recording",
        "job:up:sum",
        "sum by (job) (up)",
    )
    assert alert["type"] == "alerting" and alert["name"] == "Down" and alert["query"] == "up == 0"
    assert (alert["duration"], alert["state"], alert["alerts"]) == (120.0, "inactive", [])
    assert alert["labels"] == {"severity": "page"} and alert["annotations"]["summary"]
    assert h["rules"][0]["duration"] == 0.0
    _, out = call(prom, "/api/v1/rules", type="alert")
    assert [[r["name"] for r in g["rules"]] for g in out["data"]["groups"]] == [
        ["Down"],
        ["Always"],
    ]
    _, out = call(prom, "/api/v1/rules", type="record")
    assert [[r["name"] for r in g["rules"]] for g in out["data"]["groups"]] == [["job:up:sum"], []]
    status, out = call(prom, "/api/v1/rules", type="both")
    assert status == 400 and out["errorType"] == "bad_data"
    out["data"] = None  # answers are copies
    assert prom.rule_groups[0]["rules"][1]["name"] == "Down"
