"""The fake Prometheus HTTP API: canned answers to instant and range queries, and the alerts."""

from __future__ import annotations

import copy
from typing import Any

from sre_gym.testing.fake_http import Response, _json, _Server


class FakePrometheus(_Server):
    """Canned answers to ``/api/v1/query``, ``/api/v1/query_range`` and ``/api/v1/alerts``.

    Set ``instant[query]`` / ``ranges[query]`` to a ``data`` object (``{"resultType", "result"}``)
    and ``alerts`` to the list ``/api/v1/alerts`` returns. An unknown query gets an empty result; a
    query containing ``bad{`` gets Prometheus' HTTP 400 ``bad_data`` parse error. ``queries`` records
    every request (path and parameters).
    """

    def __init__(self) -> None:
        super().__init__()
        self.instant: dict[str, dict[str, Any]] = {}
        self.ranges: dict[str, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.queries: list[dict[str, Any]] = []

    def set_alerts(self, alerts: list[dict[str, Any]]) -> None:
        with self.lock:
            self.alerts = copy.deepcopy(alerts)

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        with self.lock:
            self.queries.append({"path": path, "method": method, **params})
            if path == "/api/v1/alerts":
                return _json(
                    200, {"status": "success", "data": {"alerts": copy.deepcopy(self.alerts)}}
                )
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
