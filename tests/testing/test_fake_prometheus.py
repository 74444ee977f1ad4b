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
