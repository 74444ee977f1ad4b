"""What an agent may send as an action, read into tool calls, notes and usage."""

from __future__ import annotations

import json
from typing import Any

import numpy as np


def parse_action(action: Any) -> tuple[list[Any], str | None, dict | None, str | None]:
    """(calls, notes, usage, error) from any action the agent sends."""
    if isinstance(action, bytes | bytearray):
        try:
            action = action.decode("utf-8")
        except UnicodeDecodeError:
            return [], None, None, "the action is bytes that are not UTF-8 text"
    if isinstance(action, str):
        if len(action) > 1_000_000:
            return (
                [],
                None,
                None,
                f"the action is {len(action)} characters long; the limit is 1000000",
            )
        try:
            action = json.loads(action)
        except (json.JSONDecodeError, RecursionError) as e:
            return [], None, None, f"the action is not valid JSON: {str(e)[:200]}"
    notes = usage = None
    if isinstance(action, dict):
        if "tool" in action:
            action = [action]
        else:
            unknown = set(action) - {"calls", "notes", "usage"}
            if unknown:
                return (
                    [],
                    None,
                    None,
                    f"unexpected keys in action: {', '.join(sorted(str(k)[:32] for k in unknown))} (use calls, notes, usage)",
                )
            notes = action.get("notes")
            usage = action.get("usage")
            if notes is not None and not isinstance(notes, str):
                return [], None, None, '"notes" must be a string'
            if usage is not None and not isinstance(usage, dict):
                return [], None, None, '"usage" must be an object'
            action = action.get("calls", [])
    if action is None:
        # outside the action space: an error result (an empty list is the way to make no call)
        return [], notes, usage, "an action is a list of tool calls, got None (send [] for none)"
    if isinstance(action, tuple | np.ndarray):
        action = list(action)
    if not isinstance(action, list):
        return [], notes, usage, f"an action is a list of tool calls, got {type(action).__name__}"
    return action, notes, usage, None
