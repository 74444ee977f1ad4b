"""Evidence: what a run recorded, and the only thing the scorer reads.

Events are plain JSON-able dicts, appended in time order, each with a ``type`` and a simulated time
``t`` (unix seconds on the simulated clock). Arrays hold per-tick system evidence (each fault's symptom
probe and artifact state, entry-point traffic). A bundle is this object on disk; scoring a bundle and
scoring a live run are the same function on the same data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

EVENT_TYPES = frozenset(
    {
        "injection",  # a fault started (ground truth; never shown to the agent)
        "revert",  # the orchestrator's end of a fault window
        "challenge",  # a repair persistence check (restart, trigger re-fire) and its outcome
        "deploy",  # an ordinary deploy went out
        "alert",  # an alert started firing
        "alert_resolved",
        "invocation",  # the agent was invoked
        "tool_call",  # a call and its outcome
        "incident",  # an incident was reported, updated or resolved (full state after the change)
        "intervention",  # an executed intervention
        "forbidden",  # a blocked forbidden operation
        "usage",  # model calls / tokens / dollars reported with an action
        "model",  # a model exchange of an LLM agent (request, response or provider error)
        "k8s_event",  # a Kubernetes event a live read saw (copied: the API forgets them in an hour)
    }
)


_PLAIN = frozenset({str, int, float, bool, type(None)})  # exactly these types (not subclasses)


def jsonable(x: Any) -> Any:
    """Plain JSON types (numpy scalars and tuples become Python numbers and lists)."""
    if type(x) in _PLAIN:  # most leaves: nothing to convert
        return x
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [jsonable(v) for v in x]
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    return x


@dataclass
class Evidence:
    manifest: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    # JSON documents by relative path (the arena's Arena-shaped artifacts); empty for the marathon
    artifacts: dict[str, Any] = field(default_factory=dict)

    def add(self, type_: str, t: float, **fields: Any) -> dict[str, Any]:
        if type_ not in EVENT_TYPES:
            raise ValueError(f"unknown evidence event type {type_!r}")
        ev = jsonable({"type": type_, "t": float(t), **fields})
        self.events.append(ev)
        return ev

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == type_]

    def events_jsonl(self) -> str:
        return "".join(
            json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in self.events
        )
