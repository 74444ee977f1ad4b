"""A scripted chat-completions server on 127.0.0.1, for testing LLM agents with no model.

``ScriptedChatServer(respond)`` serves ``POST /v1/chat/completions``: ``respond(request)`` gets the
request body and returns the assistant message (``{"content": ..., "tool_calls": [...]}``), or a
``Fault`` to answer with provider trouble instead (an HTTP status with an error body, a reply after
a delay, a body that is not a completion, a reply without choices). Usage is reported as the
request's size in characters / 4 for the prompt and 16 tokens for the completion, so cost
accounting has deterministic figures to check. Every request is kept in ``requests``.

``SreScript`` is a deterministic stand-in for a model that reads only the conversation: it lists
the firing alerts, reports one incident per workload they name that it has not reported yet, and
ends its turn; asked for a JSON object (``response_format``), as plan-making methods do, it answers
an empty plan.

``python -m sre_gym.testing.scripted_model --port 8000`` serves ``SreScript`` on 127.0.0.1 until
interrupted, for trying the LLM agents from the command line with no model.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMPLETION_TOKENS = 16


@dataclass
class Fault:
    """Provider trouble to answer one request with."""

    status: int = 200  # an HTTP error status (429, 500, 400, ...), or 200 with a bad body
    message: str = ""
    body: str | None = None  # sent as is (e.g. not JSON, or a completion without choices)
    delay_s: float = 0.0  # answer only after this long (a client timeout shorter than it fires)


class ScriptedChatServer:
    """``with ScriptedChatServer(respond) as srv:`` then point a client at ``srv.base_url``."""

    def __init__(
        self, respond: Callable[[dict[str, Any]], dict[str, Any] | Fault], port: int = 0
    ) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self._n = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                n = int(self.headers.get("Content-Length", 0))
                try:
                    req = json.loads(self.rfile.read(n) or b"{}")
                except json.JSONDecodeError:
                    self._send(400, {"error": {"message": "request is not JSON"}})
                    return
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                outer.requests.append(req)
                out = outer.respond(req)
                if isinstance(out, Fault):
                    if out.delay_s:
                        time.sleep(out.delay_s)
                    if out.body is not None:
                        self._send(out.status, out.body)
                        return
                    if out.status != 200:
                        self._send(out.status, {"error": {"message": out.message, "type": "x"}})
                        return
                    out = {"content": out.message}
                outer._n += 1
                prompt = len(json.dumps(req.get("messages", []))) // 4
                if req.get("stream"):
                    self._stream(req, out, prompt)
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{outer._n}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": req.get("model", "scripted"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "tool_calls" if out.get("tool_calls") else "stop",
                                "message": {"role": "assistant", **out},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": COMPLETION_TOKENS,
                            "total_tokens": prompt + COMPLETION_TOKENS,
                        },
                    },
                )

            def _stream(self, req: dict[str, Any], out: dict[str, Any], prompt: int) -> None:
                """The same answer as server-sent events (``stream: true``): the message in one
                chunk, then the finish reason and usage, then ``[DONE]``."""
                head = {
                    "id": f"chatcmpl-{outer._n}",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": req.get("model", "scripted"),
                }
                calls = [{**c, "index": i} for i, c in enumerate(out.get("tool_calls") or [])]
                delta = {"role": "assistant", "content": out.get("content")}
                if calls:
                    delta["tool_calls"] = calls
                usage = {
                    "prompt_tokens": prompt,
                    "completion_tokens": COMPLETION_TOKENS,
                    "total_tokens": prompt + COMPLETION_TOKENS,
                }
                reason = "tool_calls" if calls else "stop"
                events = [
                    {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": reason}]},
                    {**head, "choices": [], "usage": usage},
                ]
                data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
                body = data.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _send(self, status: int, body: Any) -> None:
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def tool_call(n: int, name: str, args: dict[str, Any] | str) -> dict[str, Any]:
    """One tool call of an assistant message (``args`` as a string is sent as is)."""
    return {
        "id": f"call_{n:05d}",
        "type": "function",
        "function": {
            "name": name,
            "arguments": args if isinstance(args, str) else json.dumps(args),
        },
    }


class SreScript:
    """A deterministic model: list the firing alerts, report what is new, end the turn."""

    def __init__(self) -> None:
        self.reported: set[str] = set()
        self.n = 0

    def __call__(self, req: dict[str, Any]) -> dict[str, Any]:
        msgs = req["messages"]
        last = msgs[-1]
        if req.get("response_format", {}).get("type") == "json_object":
            return {"content": "{}"}  # a plan with nothing in it
        if last["role"] == "user":
            self.n += 1
            return {
                "content": None,
                "tool_calls": [tool_call(self.n, "get_alerts", {"state": "firing"})],
            }
        if last["role"] == "tool":
            try:
                result = json.loads(last["content"])
            except json.JSONDecodeError:
                return {"content": "done"}
            alerts = result.get("result") if isinstance(result.get("result"), list) else []
            calls = []
            for a in alerts:
                w = _workload(a.get("labels", {}))
                if w is None or w in self.reported:
                    continue
                self.reported.add(w)
                self.n += 1
                args = {"alert_ids": [a["id"]], "root_cause_services": [w]}
                calls.append(tool_call(self.n, "report_incident", args))
            if calls:
                return {"content": None, "tool_calls": calls}
        return {"content": "Nothing more to do this turn."}


def _workload(labels: dict[str, str]) -> str | None:
    for key in ("service_name", "deployment", "server", "service"):
        if labels.get(key):
            return labels[key]
    return None


def main(argv: list[str] | None = None) -> None:
    """Serve ``SreScript`` on 127.0.0.1 until interrupted."""
    ap = argparse.ArgumentParser(description="a scripted chat-completions server on 127.0.0.1")
    ap.add_argument("--port", type=int, default=8000)
    a = ap.parse_args(argv)
    srv = ScriptedChatServer(SreScript(), port=a.port)
    print(f"serving SreScript at {srv.base_url} (Ctrl-C stops it)", flush=True)
    try:
        srv._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv._httpd.server_close()


if __name__ == "__main__":
    main()
