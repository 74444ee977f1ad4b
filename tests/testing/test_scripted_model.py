from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from sre_gym.testing.scripted_model import (
    COMPLETION_TOKENS,
    Fault,
    ScriptedChatServer,
    SreScript,
    tool_call,
)


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_replies_carry_deterministic_usage_and_faults_their_status():
    replies = iter([{"content": "hi"}, Fault(503, "busy")])
    with ScriptedChatServer(lambda req: next(replies)) as srv:
        msgs = [{"role": "user", "content": "x" * 40}]
        status, body = post(srv.base_url, {"model": "m", "messages": msgs})
        assert status == 200 and body["choices"][0]["message"]["content"] == "hi"
        assert body["usage"]["prompt_tokens"] == len(json.dumps(msgs)) // 4
        assert body["usage"]["completion_tokens"] == COMPLETION_TOKENS
        status, body = post(srv.base_url, {"model": "m", "messages": msgs})
        assert status == 503 and body["error"]["message"] == "busy"
        assert len(srv.requests) == 2


def test_sre_script_reports_each_workload_once_and_answers_plans_with_an_empty_one():
    script = SreScript()
    first = script({"messages": [{"role": "user", "content": "go"}]})
    assert first["tool_calls"][0]["function"]["name"] == "get_alerts"
    alerts = [
        {"id": "A1", "labels": {"service": "cart"}},
        {"id": "A2", "labels": {"deployment": "cart"}},
        {"id": "A3", "labels": {"service": "ad"}},
    ]
    tool = {"role": "tool", "content": json.dumps({"ok": True, "result": alerts})}
    reply = script({"messages": [tool]})
    reported = [json.loads(c["function"]["arguments"]) for c in reply["tool_calls"]]
    assert [r["root_cause_services"] for r in reported] == [["cart"], ["ad"]]
    assert script({"messages": [tool]}) == {"content": "Nothing more to do this turn."}
    plan = script({"messages": [{"role": "user"}], "response_format": {"type": "json_object"}})
    assert json.loads(plan["content"]) == {}
    assert tool_call(7, "x", "{bad")["function"]["arguments"] == "{bad"


def test_the_module_serves_the_script_on_a_given_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sre_gym.testing.scripted_model", "--port", str(port)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert "127.0.0.1" in proc.stdout.readline()
        deadline = time.monotonic() + 10
        while True:
            try:
                status, body = post(
                    f"http://127.0.0.1:{port}/v1",
                    {"model": "m", "messages": [{"role": "user", "content": "go"}]},
                )
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert status == 200
        assert body["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_alerts"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
