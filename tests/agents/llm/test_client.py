from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from sre_gym.agents.llm.client import ModelClient, Price  # noqa: E402
from sre_gym.testing.scripted_model import COMPLETION_TOKENS, Fault, ScriptedChatServer  # noqa: E402

TOOLS: list[dict] = []
HELLO = [{"role": "user", "content": "hello"}]


def sequence(*replies):
    """A respond function giving these replies in turn (the last one for ever after)."""
    it = iter(replies)
    last = {"content": "ok"}

    def respond(req):
        nonlocal last
        last = next(it, last)
        return last

    return respond


def client(srv, **kw) -> ModelClient:
    kw.setdefault("max_retries", 2)
    return ModelClient("scripted", srv.base_url, backoff_s=0.0, sleep=lambda s: None, **kw)


def test_an_answer_with_its_usage_and_price():
    with ScriptedChatServer(sequence({"content": "fine"})) as srv:
        c = client(srv, price=Price(input=2.0, output=10.0))
        r = c.chat(HELLO, TOOLS)
    assert r.error is None and r.content == "fine" and r.tool_calls == []
    prompt = len(json.dumps(HELLO)) // 4
    assert (c.calls, c.input_tokens, c.output_tokens) == (1, prompt, COMPLETION_TOKENS)
    assert c.dollars == pytest.approx((prompt * 2.0 + COMPLETION_TOKENS * 10.0) / 1e6)
    assert len(c.transcript) == 1 and c.transcript[0]["response"]["choices"][0]


def test_usage_and_transcript_since_a_mark_count_only_what_came_after():
    with ScriptedChatServer(
        sequence({"content": "one"}, Fault(429, "wait"), {"content": "two"})
    ) as srv:
        c = client(srv, price=Price(input=1.0, output=1.0))
        c.chat(HELLO, TOOLS)
        m = c.mark()
        c.chat(HELLO, TOOLS)
    prompt = len(json.dumps(HELLO)) // 4
    assert c.usage_since(m) == {
        "model_calls": 1,
        "input_tokens": prompt,
        "output_tokens": COMPLETION_TOKENS,
        "dollars": pytest.approx((prompt + COMPLETION_TOKENS) / 1e6),
    }
    assert [e["kind"] for e in c.transcript_since(m)] == ["rate_limited", None]


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault(429, "slow down"), "rate_limited"),
        (Fault(500, "boom"), "server_error"),
        (Fault(503, "overloaded"), "server_error"),
    ],
)
def test_transient_errors_are_retried_with_every_attempt_recorded(fault, kind):
    with ScriptedChatServer(sequence(fault, {"content": "back"})) as srv:
        c = client(srv)
        r = c.chat(HELLO, TOOLS)
    assert r.error is None and r.content == "back"
    assert [e["kind"] for e in c.transcript] == [kind, None]
    assert c.calls == 1  # only answered calls count as model calls


def test_exhausted_retries_give_an_error_reply_not_an_exception():
    with ScriptedChatServer(sequence(Fault(500, "down"))) as srv:
        c = client(srv, max_retries=2)
        r = c.chat(HELLO, TOOLS)
        assert len(srv.requests) == 3
    assert r.kind == "server_error" and "gave up after 3 attempts" in r.error
    assert len(c.transcript) == 3 and c.calls == 0


def test_a_timeout_is_recorded_as_one():
    with ScriptedChatServer(sequence(Fault(delay_s=1.5), {"content": "late"})) as srv:
        c = client(srv, timeout_s=0.3, max_retries=0)
        r = c.chat(HELLO, TOOLS)
    assert r.kind == "timeout" and "timed out" in r.error


@pytest.mark.parametrize(
    ("fault", "kind"),
    [
        (Fault(400, "This model's maximum context length is 8192 tokens"), "context_overflow"),
        (Fault(401, "bad key"), "refused"),
        (Fault(200, body="<html>not a completion</html>"), "malformed"),
        (
            Fault(200, body=json.dumps({"id": "x", "object": "chat.completion", "choices": []})),
            "empty",
        ),
    ],
)
def test_refusals_and_garbage_are_not_retried(fault, kind):
    with ScriptedChatServer(sequence(fault)) as srv:
        c = client(srv)
        r = c.chat(HELLO, TOOLS)
        assert len(srv.requests) == 1
    assert r.kind == kind and r.error


def test_the_api_key_never_reaches_the_transcript():
    secret = "sk-test-0123456789abcdef"
    with ScriptedChatServer(sequence({"content": f"echo {secret}"})) as srv:
        c = client(srv, api_key=secret)
        c.chat([{"role": "user", "content": f"my key is {secret}"}], TOOLS)
    assert secret not in json.dumps(c.transcript)
    assert "[redacted]" in json.dumps(c.transcript)
