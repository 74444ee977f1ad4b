"""OpenEnv's wire types for sre_gym: an action that takes anything a model sends, the two envs'
observations, and the state.

``SREAction`` is OpenEnv's tool call (``{"type": "call_tool", "tool_name": ..., "arguments":
{...}}``, or ``{"type": "list_tools"}``) and validates whatever arrives: a payload that is not a
tool call (the project's own ``{"tool", "args"}`` form, a list where the name should be, extra
keys) becomes an action carrying the reason, which the environment answers with an error result
(one step; the episode goes on), never a validation error that would end a trainer's rollout.
Its schema names one required field, ``tool_name``, so that a harness that wraps a reply that is
not a JSON object into that field (verifiers' OpenEnv taskset does) sends a call the env answers.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.mcp_types import CallToolObservation, Tool
from openenv.core.env_server.types import Action, State
from pydantic import ConfigDict, Field, PrivateAttr, ValidationError, model_validator

EXPECTED = (
    'expected an OpenEnv tool call {"type": "call_tool", "tool_name": "<a tool of the list>", '
    '"arguments": {...}}'
)


class SREAction(Action):
    """One tool call (or ``type: list_tools``). Any payload validates; see the module doc."""

    model_config = ConfigDict(
        title="SREToolCall",
        json_schema_extra={
            "description": "Call one tool: tool_name is a tool of the list sent with the first "
            "observation (available_tools); arguments follow its input_schema."
        },
    )

    type: Literal["call_tool", "list_tools"] = Field(
        default="call_tool", description="call_tool, or list_tools to list the tools"
    )
    tool_name: str = Field(description="the tool to call")
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="the tool's arguments (a JSON object)"
    )
    _problem: str | None = PrivateAttr(default=None)

    @property
    def problem(self) -> str | None:
        """Why the payload is not a tool call (None for a well-formed one)."""
        return self._problem

    @model_validator(mode="wrap")
    @classmethod
    def _any_payload(cls, data: Any, handler: Any) -> SREAction:
        if isinstance(data, SREAction):
            return data
        if isinstance(data, dict) and data.get("type") == "list_tools":
            extra = set(data) - {"type", "metadata", "tool_name", "arguments"}
            if not extra:
                return cls.model_construct(type="list_tools", tool_name="", arguments={})
        problem = None
        try:
            return handler(data)
        except ValidationError as e:
            problem = _reason(data, e)
        act = cls.model_construct(type="call_tool", tool_name=_name(data), arguments={})
        act._problem = problem
        return act


def _name(data: Any) -> str:
    """The tool the payload seems to name (for the record), or ''."""
    if isinstance(data, dict):
        for key in ("tool_name", "tool", "name"):
            v = data.get(key)
            if isinstance(v, str):
                return v[:64]
    return ""


def _reason(data: Any, e: ValidationError) -> str:
    if not isinstance(data, dict):
        return f"{EXPECTED}; got {type(data).__name__}"
    parts = []
    for err in e.errors()[:4]:
        loc = ".".join(str(x) for x in err["loc"]) or "action"
        parts.append(f"{loc[:64]}: {err['msg']}")
    return f"{EXPECTED}; " + "; ".join(parts)


class SREObservation(CallToolObservation):
    """One step of a marathon: the call's result and what is new (or the whole history)."""

    # empty for the observation of reset (no call was made)
    tool_name: str = Field(default="", description="the tool this step called")
    time: int = Field(default=0, description="simulated unix seconds (the next call's time)")
    invocation: int = Field(default=0, description="the current invocation (0-based)")
    n_invocations: int = Field(default=0, description="invocations in the episode")
    budget_left_s: int = Field(default=0, description="seconds left of this invocation's budget")
    invocation_ended: bool = Field(default=False, description="this step handed time back")
    alerts: list[dict[str, Any]] = Field(
        default_factory=list,
        description="alerts new or changed since the last step (context delta), or the whole "
        "history (context cumulative); the history: get_alerts with since and until",
    )
    alerts_in_history: int = Field(default=0, description="alerts in the history so far")
    firing: int = Field(default=0, description="alerts firing now")
    incidents: list[dict[str, Any]] = Field(
        default_factory=list, description="the open incidents the agent reported"
    )
    notes: str = Field(default="", description="the agent's persistent notes")
    truncated: dict[str, str] = Field(
        default_factory=dict, description="what the size cap left out, per field"
    )
    available_tools: list[Tool] | None = Field(
        default=None, description="the tools (sent with the observation of reset)"
    )


class ArenaObservation(CallToolObservation):
    """One step of an IncidentArena task: the call's result and where the episode stands."""

    tool_name: str = Field(default="", description="the tool this step called")
    task: str = Field(default="", description="the task id")
    instruction: str | None = Field(
        default=None, description="the task's brief (with the first observation, context delta)"
    )
    clock_s: int = Field(default=0, description="seconds since the episode started")
    budget_left_s: int = Field(default=0, description="seconds left of the agent window")
    calls_left: int = Field(default=0, description="tool calls left")
    truncated: dict[str, str] = Field(default_factory=dict)
    available_tools: list[Tool] | None = Field(default=None)


class SREState(State):
    """``episode_id``, ``step_count`` (tool calls that reached the env), and where the episode is:
    the invocation (a marathon) or the task (the arena)."""

    env: str = ""
    invocation: int = 0
    n_invocations: int = 0
    task: str = ""
    done: bool = False
