"""A chat-completions client for agents: bounded retries, usage and a redacted transcript.

Any OpenAI-compatible endpoint (vLLM, Ollama, LiteLLM, a hosted API) is reached through the
``openai`` SDK (extra ``llm``). Provider trouble never escapes as an exception: a timeout, a
connection error, 429 or a 5xx is retried with exponential backoff up to ``max_retries`` times; a
4xx other than 429, a reply without choices, and exhausted retries come back as a ``Reply`` whose
``error`` says what happened. Every attempt, answered or not, is kept in ``transcript`` with the
request and the response (the API key never appears in either), for the bundle.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RETRIED = ("timeout", "connection", "rate_limited", "server_error")
CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens")


@dataclass
class Price:
    """Dollars per million tokens of one model."""

    input: float = 0.0
    output: float = 0.0


@dataclass
class Reply:
    """One model turn: the assistant message (``content`` and ``tool_calls``) or an error."""

    content: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # {"id", "name", "arguments"}
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None
    kind: str | None = None  # the error's class: timeout, rate_limited, context_overflow, ...

    def message(self) -> dict[str, Any]:
        """The assistant message to put back into the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            msg["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in self.tool_calls
            ]
        return msg


@dataclass(frozen=True)
class Mark:
    """The client's counters at one moment (``ModelClient.mark()``), to account one invocation."""

    calls: int
    input_tokens: int
    output_tokens: int
    dollars: float
    transcript: int


class ModelClient:
    """``chat(messages, tools)`` against one model of one endpoint."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        backoff_s: float = 2.0,
        price: Price | None = None,
        http_client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import openai

        self.model = model
        self.price = price or Price()
        self.max_retries = int(max_retries)
        self.backoff_s = float(backoff_s)
        self._sleep = sleep
        key = api_key or os.environ.get("OPENAI_API_KEY") or "not-needed"
        self._secrets = {key} if key != "not-needed" else set()
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=key,
            timeout=timeout_s,
            max_retries=0,  # retries are ours, so that each attempt is recorded
            http_client=http_client,
        )
        self.transcript: list[dict[str, Any]] = []
        self.calls = self.input_tokens = self.output_tokens = 0

    @property
    def dollars(self) -> float:
        return (self.input_tokens * self.price.input + self.output_tokens * self.price.output) / 1e6

    def mark(self) -> Mark:
        """The counters now; ``usage_since`` and ``transcript_since`` account from here."""
        return Mark(
            self.calls, self.input_tokens, self.output_tokens, self.dollars, len(self.transcript)
        )

    def usage_since(self, mark: Mark) -> dict[str, Any]:
        """The model calls, tokens and dollars spent since ``mark``: an action's ``usage``."""
        return {
            "model_calls": self.calls - mark.calls,
            "input_tokens": self.input_tokens - mark.input_tokens,
            "output_tokens": self.output_tokens - mark.output_tokens,
            "dollars": max(self.dollars - mark.dollars, 0.0),
        }

    def transcript_since(self, mark: Mark) -> list[dict[str, Any]]:
        """The transcript entries recorded since ``mark`` (for ``record_model``)."""
        return self.transcript[mark.transcript :]

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        response_format: dict[str, Any] | None = None,
    ) -> Reply:
        """One model turn (``tools`` may be empty; ``response_format``, e.g. a JSON object)."""
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            request["tools"] = tools
        if response_format is not None:
            request["response_format"] = response_format
        for attempt in range(self.max_retries + 1):
            reply, raw = self._once(request)
            self.transcript.append(
                self._redact(
                    {
                        "attempt": attempt,
                        "request": {
                            "model": self.model,
                            "messages": list(messages),  # as sent: callers grow theirs
                            "n_tools": len(tools),
                        },
                        "response": raw,
                        "error": reply.error,
                        "kind": reply.kind,
                    }
                )
            )
            if reply.kind not in RETRIED or attempt == self.max_retries:
                break
            self._sleep(self.backoff_s * 2**attempt)
        if reply.error is not None and reply.kind in RETRIED:
            reply.error = f"{reply.error} (gave up after {self.max_retries + 1} attempts)"
        return reply

    def note(self, problem: str) -> None:
        """Record a problem the agent found in the last reply (e.g. a plan that is not JSON)."""
        self.transcript.append({"note": problem, "error": problem, "kind": "agent"})

    def _once(self, request: dict[str, Any]) -> tuple[Reply, Any]:
        import openai

        try:
            resp = self._client.chat.completions.create(**request)
        except openai.APITimeoutError:
            return Reply(error="the model endpoint timed out", kind="timeout"), None
        except openai.APIConnectionError as e:
            return Reply(error=f"cannot reach the model endpoint: {e}", kind="connection"), None
        except openai.RateLimitError as e:
            return Reply(error=f"rate limited (429): {_short(e)}", kind="rate_limited"), None
        except openai.InternalServerError as e:
            return Reply(
                error=f"server error ({e.status_code}): {_short(e)}", kind="server_error"
            ), None
        except openai.APIStatusError as e:
            text = _short(e)
            kind = (
                "context_overflow" if any(w in text.lower() for w in CONTEXT_WORDS) else "refused"
            )
            return Reply(
                error=f"the endpoint refused the request ({e.status_code}): {text}", kind=kind
            ), None
        except (openai.APIError, ValueError) as e:  # a body that is not a chat completion
            return Reply(error=f"malformed reply: {_short(e)}", kind="malformed"), None
        raw = resp.model_dump(mode="json", exclude_none=True)
        self.calls += 1
        usage = getattr(resp, "usage", None)
        inp = int(getattr(usage, "prompt_tokens", 0) or 0)
        out = int(getattr(usage, "completion_tokens", 0) or 0)
        self.input_tokens += inp
        self.output_tokens += out
        choices = getattr(resp, "choices", None) or []
        if not choices or getattr(choices[0], "message", None) is None:
            return Reply(
                error="the reply has no message", kind="empty", input_tokens=inp, output_tokens=out
            ), raw
        msg = choices[0].message
        calls = [
            {
                "id": str(tc.id),
                "name": str(getattr(tc.function, "name", "") or ""),
                "arguments": str(getattr(tc.function, "arguments", "") or ""),
            }
            for tc in (msg.tool_calls or [])
            if getattr(tc, "function", None) is not None
        ]
        return Reply(
            content=msg.content, tool_calls=calls, input_tokens=inp, output_tokens=out
        ), raw

    def _redact(self, entry: dict[str, Any]) -> dict[str, Any]:
        if not self._secrets:
            return entry
        text = json.dumps(entry, default=str)
        for s in self._secrets:
            text = text.replace(s, "[redacted]")
        return json.loads(text)


def _short(e: Exception, n: int = 300) -> str:
    body = getattr(e, "body", None)
    msg = body.get("message") if isinstance(body, dict) else None
    if msg is None and isinstance(body, dict) and isinstance(body.get("error"), dict):
        msg = body["error"].get("message")
    return str(msg or e)[:n]
