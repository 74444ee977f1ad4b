"""Gymnasium spaces for tool-call actions and JSON-text observations."""

from __future__ import annotations

import json
import string
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import create_shared_memory

from sre_gym.tools.specs import TOOLS

PRINTABLE = string.printable  # a str, so the charset order never depends on hashing
MAX_ACTION_CHARS = 1_000_000


def text(max_length: int) -> spaces.Text:
    """Printable-ASCII text (the env JSON-encodes with ensure_ascii, so every field fits)."""
    return spaces.Text(max_length=max_length, min_length=0, charset=PRINTABLE)


_SAMPLE_QUERIES = (
    'sum by (service_name) (rate(traces_span_metrics_calls_total{status_code="STATUS_CODE_ERROR"}[1m]))',
    "kube_deployment_status_replicas_available",
    "up",
    "max by (pod) (container_memory_working_set_bytes)",
)
_KINDS = ("pods", "deployments", "events", "nodes", "networkpolicies", "replicasets")


def is_call(c: Any) -> bool:
    """A well-formed tool call: ``{"tool": str, "args": dict}`` (args may be left out)."""
    return (
        isinstance(c, dict)
        and isinstance(c.get("tool"), str)
        and isinstance(c.get("args", {}), dict)
    )


def sample_call(g: np.random.Generator, tools: tuple[str, ...]) -> dict[str, Any]:
    """One call to one of ``tools`` with plausible arguments."""
    tool = tools[int(g.integers(0, len(tools)))]
    if tool == "query_metrics":
        args: dict[str, Any] = {"query": _SAMPLE_QUERIES[int(g.integers(0, len(_SAMPLE_QUERIES)))]}
    elif tool == "k8s_get":
        args = {"kind": _KINDS[int(g.integers(0, len(_KINDS)))]}
    elif tool == "report_incident":
        args = {"alert_ids": [], "root_cause_services": [], "summary": "sampled"}
    else:
        args = {}
    return {"tool": tool, "args": args}


class JsonSpace(spaces.Space):
    """Base of the structured, JSON-serialisable spaces: not flattenable to numpy, JSON round
    trips (strings pass through), and equality by type so that vector envs can compare copies."""

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def to_jsonable(self, sample_n: Any) -> list[str]:
        return [s if isinstance(s, str) else json.dumps(s, sort_keys=True) for s in sample_n]

    def from_jsonable(self, sample_n: list[str]) -> list[Any]:
        return [json.loads(s) for s in sample_n]

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)


@create_shared_memory.register(JsonSpace)
def _no_shared_memory(space: JsonSpace, n: int = 1, ctx: Any = None) -> None:
    # a list of messages or calls has no fixed size; say how to vectorise instead of failing vaguely
    raise TypeError(
        f"{space!r} has no fixed size, so AsyncVectorEnv cannot put it in shared memory: use "
        'gym.make_vec(..., vectorization_mode="async", vector_kwargs={"shared_memory": False}) '
        "or AsyncVectorEnv(..., shared_memory=False)"
    )


_SAMPLED_TOOLS = (
    "get_alerts",
    "query_metrics",
    "k8s_get",
    "list_changes",
    "get_topology",
    "report_incident",
)


class ToolCalls(JsonSpace):
    """An invocation's action: a list of tool calls ``[{"tool": name, "args": {...}}, ...]``.

    The env also accepts the same list as a JSON string, or ``{"calls": [...], "notes": str,
    "usage": {...}}``. Anything else is accepted too and answered with an error result, so sampling
    and arbitrary agent output never crash a step. ``sample()`` draws one to three read or report
    calls with plausible arguments.
    """

    def __init__(self, max_calls: int = 64, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(seed=seed)
        self.max_calls = max_calls

    def contains(self, x: Any) -> bool:
        if isinstance(x, str):
            return len(x) <= MAX_ACTION_CHARS
        if isinstance(x, dict):
            x = x.get("calls")
        return isinstance(x, list) and len(x) <= self.max_calls and all(is_call(c) for c in x)

    def sample(self, mask: Any = None, probability: Any = None) -> list[dict[str, Any]]:
        if mask is not None or probability is not None:
            raise NotImplementedError("ToolCalls.sample does not support masks")
        g = self.np_random
        return [sample_call(g, _SAMPLED_TOOLS) for _ in range(int(g.integers(1, 4)))]

    def __repr__(self) -> str:
        return f"ToolCalls(max_calls={self.max_calls}, tools={len(TOOLS)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCalls) and other.max_calls == self.max_calls
