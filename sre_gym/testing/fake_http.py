"""The HTTP plumbing of the fake cluster: a threaded standard-library server on a free local port.

``_Server`` binds 127.0.0.1:<free port>, serves in a background thread and answers every request
with its ``handle(method, path, params, content type, body)``; a subclass (``FakeKubernetes``,
``FakePrometheus``) supplies ``handle``. The ``Date`` header of every answer reads the server's
``server_time`` clock when one is set (else the wall clock, as ``http.server`` does). Query
parameters and form-encoded POST bodies arrive as one dict; an exception in ``handle`` becomes an
HTTP 500 answer, never a hung client. ``_json`` and ``_status`` build answers (a Kubernetes
``Status`` object for ``_status``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

Response = tuple[int, str, bytes]


def _json(status: int, obj: Any) -> Response:
    return status, "application/json", json.dumps(obj).encode()


def _status(code: int, reason: str, message: str, **details: Any) -> Response:
    return _json(
        code,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure" if code >= 400 else "Success",
            "message": message,
            "reason": reason,
            "details": details,
            "code": code,
        },
    )


class _Handler(BaseHTTPRequestHandler):
    owner: _Server  # set on the per-server subclass
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after shutdown

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def date_time_string(self, timestamp: float | None = None) -> str:
        """The ``Date`` header: the owner's ``server_time()`` when set, else the wall clock."""
        if timestamp is None and self.owner.server_time is not None:
            timestamp = self.owner.server_time()
        return super().date_time_string(timestamp)

    def _serve(self) -> None:
        url = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if self.command == "POST" and ctype == "application/x-www-form-urlencoded":
            form = parse_qs(body.decode(), keep_blank_values=True)
            params.update({k: v[-1] for k, v in form.items()})
        self.owner.local.auth = self.headers.get("Authorization") or ""
        try:
            status, out_type, payload = self.owner.handle(
                self.command, unquote(url.path), params, ctype, body
            )
        except Exception as e:  # a bug in a fake must show up as an answer, not a hung client
            status, out_type, payload = _status(500, "InternalError", f"{type(e).__name__}: {e}")
        self.send_response(status)
        self.send_header("Content-Type", out_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class _Server:
    """An HTTP server on 127.0.0.1:<free port> in a background thread; use as a context manager."""

    def __init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.lock = threading.RLock()
        self.local = threading.local()  # per request thread: ``auth``, its Authorization header
        # the server's clock for the Date header of every answer (None: the wall clock)
        self.server_time: Callable[[], float] | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> str:
        """Bind and serve; returns the base URL."""
        if self._httpd is None:
            handler = type("Handler", (_Handler,), {"owner": self})
            httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            httpd.daemon_threads = False
            httpd.block_on_close = True  # server_close joins every request thread
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"{type(self).__name__}-{httpd.server_address[1]}",
                daemon=True,
            )
            self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving, close the socket and join the threads."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            if self._thread is not None:
                self._thread.join(timeout=10)
        self._httpd, self._thread = None, None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        raise NotImplementedError
