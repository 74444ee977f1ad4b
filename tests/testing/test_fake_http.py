"""The fakes' HTTP server: a free local port, parameters in one dict, a bug answered as HTTP 500."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from sre_gym.testing.fake_http import Response, _json, _Server


class Echo(_Server):
    """Answers with what ``handle`` was given; ``/boom`` raises."""

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        if path == "/boom":
            raise ZeroDivisionError("division by zero")
        return _json(200, {"method": method, "path": path, "params": params, "ctype": ctype})


def fetch(url: str, data: bytes | None = None, ctype: str | None = None) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=data, headers={"Content-Type": ctype} if ctype else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_query_and_form_parameters_arrive_as_one_dict():
    with Echo() as srv:
        assert srv.running and srv.url.startswith("http://127.0.0.1:")
        status, got = fetch(f"{srv.url}/a%20b?x=1&x=2&empty=")
        assert status == 200
        assert got == {
            "method": "GET",
            "path": "/a b",
            "params": {"x": "2", "empty": ""},
            "ctype": "",
        }
        form = urllib.parse.urlencode({"query": "up", "time": "3"}).encode()
        status, got = fetch(
            f"{srv.url}/q?time=1", form, "application/x-www-form-urlencoded; charset=utf-8"
        )
        assert got["method"] == "POST" and got["params"] == {"query": "up", "time": "3"}
        assert got["ctype"] == "application/x-www-form-urlencoded"
    assert not srv.running


def test_an_exception_in_handle_is_an_internal_error_answer():
    with Echo() as srv:
        status, got = fetch(f"{srv.url}/boom")
    assert status == 500
    assert (got["kind"], got["reason"], got["code"]) == ("Status", "InternalError", 500)
    assert got["message"] == "ZeroDivisionError: division by zero"


def test_a_server_has_no_url_until_started():
    srv = Echo()
    with pytest.raises(RuntimeError, match="Echo is not started"):
        _ = srv.url
    srv.stop()  # stopping a server that never started is harmless
    assert not srv.running


def test_the_date_header_reads_the_server_clock_when_set():
    import email.utils
    import time

    with Echo() as srv:
        with urllib.request.urlopen(f"{srv.url}/x", timeout=10) as r:
            wall = email.utils.parsedate_to_datetime(r.headers["Date"]).timestamp()
        assert abs(wall - time.time()) < 5  # http.server's own default
        srv.server_time = lambda: 1767225600.0  # 2026-01-01T00:00:00Z
        with urllib.request.urlopen(f"{srv.url}/x", timeout=10) as r:
            assert r.headers["Date"] == "Thu, 01 Jan 2026 00:00:00 GMT"
