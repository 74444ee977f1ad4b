"""The agent interface shared by the baselines: ``act(obs, info) -> action``."""

from __future__ import annotations

import json
from typing import Any


class Agent:
    """A policy for SREMarathon-v0. ``act`` gets each observation and returns the next action."""

    name = "agent"

    def reset(self) -> None:
        """Forget everything from a previous episode (called when an episode starts)."""

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        raise NotImplementedError

    def __call__(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        if int(obs["invocation"]) == 0:
            self.reset()
        return self.act(obs, info)


def alerts_of(obs: dict[str, Any]) -> list[dict[str, Any]]:
    return json.loads(obs["alerts"])


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


class NoopAgent(Agent):
    """Does nothing: the floor every other method is compared with."""

    name = "noop"

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        return []
