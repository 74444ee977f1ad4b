"""The fake Prometheus HTTP API: canned answers to instant and range queries, the alerts, the loaded
rules, readiness and build information."""

from __future__ import annotations

import copy
from typing import Any

from sre_gym.testing.fake_http import Response, _json, _Server

BUILDINFO = {
    "version": "2.42.0",
    "revision": "fake",
    "branch": "HEAD",
    "buildUser": "fake@sre-gym",
    "buildDate": "20260101-00:00:00",
    "goVersion": "go1.19.8",
}


class FakePrometheus(_Server):
    """Canned answers to ``/api/v1/query``, ``/api/v1/query_range`` and ``/api/v1/alerts``.

    Set ``instant[query]`` / ``ranges[query]`` to a ``data`` object (``{"resultType", "result"}``)
    and ``alerts`` to the list ``/api/v1/alerts`` returns. An unknown query gets an empty result; a
    query containing ``bad{`` gets Prometheus' HTTP 400 ``bad_data`` parse error. ``queries`` records
    every request (path and parameters).

    ``/api/v1/rules`` serves ``rule_groups`` (the API's group shape; ``load_rule_file`` fills it from
    a rule file as Prometheus would after loading it; none by default) and honours ``type=alert``
    or ``type=record``; ``/-/ready`` answers 200 while ``ready`` (the default), else 503;
    ``/api/v1/status/buildinfo`` serves ``buildinfo``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.instant: dict[str, dict[str, Any]] = {}
        self.ranges: dict[str, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.queries: list[dict[str, Any]] = []
        self.rule_groups: list[dict[str, Any]] = []
        self.ready = True
        self.buildinfo: dict[str, str] = dict(BUILDINFO)

    def set_alerts(self, alerts: list[dict[str, Any]]) -> None:
        with self.lock:
            self.alerts = copy.deepcopy(alerts)

    def load_rule_file(self, doc: dict[str, Any], file: str = "/etc/prometheus/rules.yml") -> None:
        """Serve the groups of a rule file document (``{"groups": [...]}``) as loaded rules."""
        from sre_gym.telemetry.rules import parse_duration

        groups = []
        for g in doc.get("groups") or []:
            rules = []
            for r in g.get("rules") or []:
                common = {
                    "query": str(r.get("expr", "")).strip(),
                    "labels": dict(r.get("labels") or {}),
                    "health": "ok",
                    "evaluationTime": 0.0,
                    "lastEvaluation": "0001-01-01T00:00:00Z",
                }
                if "record" in r:
                    rules.append({"name": r["record"], **common, "type": "recording"})
                    continue
                rules.append(
                    {
                        "state": "inactive",
                        "name": r["alert"],
                        **common,
                        "duration": parse_duration(r.get("for", 0)),
                        "annotations": dict(r.get("annotations") or {}),
                        "alerts": [],
                        "type": "alerting",
                    }
                )
            interval = parse_duration(g["interval"]) if g.get("interval") else 30.0
            groups.append(
                {
                    "name": g["name"],
                    "file": file,
                    "rules": rules,
                    "interval": interval,
                    "limit": int(g.get("limit") or 0),
                    "evaluationTime": 0.0,
                    "lastEvaluation": "0001-01-01T00:00:00Z",
                }
            )
        with self.lock:
            self.rule_groups = groups

    def _rules(self, params: dict[str, str]) -> Response:
        want = {"alert": "alerting", "record": "recording"}.get(params.get("type", ""))
        if params.get("type") and want is None:
            return _json(
                400,
                {
                    "status": "error",
                    "errorType": "bad_data",
                    "error": f"invalid query parameter type='{params['type']}'",
                },
            )
        groups = copy.deepcopy(self.rule_groups)
        if want is not None:
            for g in groups:  # Prometheus keeps the groups, emptied
                g["rules"] = [r for r in g["rules"] if r.get("type") == want]
        return _json(200, {"status": "success", "data": {"groups": groups}})

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        with self.lock:
            self.queries.append({"path": path, "method": method, **params})
            if path == "/api/v1/alerts":
                return _json(
                    200, {"status": "success", "data": {"alerts": copy.deepcopy(self.alerts)}}
                )
            if path == "/-/ready":
                if self.ready:
                    return 200, "text/plain; charset=utf-8", b"Prometheus Server is Ready.\n"
                return 503, "text/plain; charset=utf-8", b"Service Unavailable"
            if path == "/api/v1/rules":
                return self._rules(params)
            if path == "/api/v1/status/buildinfo":
                return _json(200, {"status": "success", "data": dict(self.buildinfo)})
            if path not in ("/api/v1/query", "/api/v1/query_range"):
                return 404, "text/plain; charset=utf-8", b"404 page not found\n"
            query = params.get("query")
            if not query:
                return _json(
                    400,
                    {
                        "status": "error",
                        "errorType": "bad_data",
                        "error": 'invalid parameter "query": unknown query',
                    },
                )
            if "bad{" in query:
                col = query.index("bad{") + 5
                return _json(
                    400,
                    {
                        "status": "error",
                        "errorType": "bad_data",
                        "error": f'invalid parameter "query": 1:{col}: parse error: unexpected end of input inside braces',
                    },
                )
            if path == "/api/v1/query":
                data = self.instant.get(query, {"resultType": "vector", "result": []})
            else:
                data = self.ranges.get(query, {"resultType": "matrix", "result": []})
            return _json(200, {"status": "success", "data": copy.deepcopy(data)})
