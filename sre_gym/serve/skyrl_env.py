"""A SkyRL-gym text env over both envs (extra ``skyrl``): ``skyrl_gym.make("sre_gym-marathon")``.

SkyRL's generator drives a ``BaseTextEnv``: ``init(prompt)`` gives the first conversation, and
``step(text)`` takes the model's whole reply and returns the next user message, the reward,
whether the episode is done and metadata. ``SREGymTextEnv`` reads one tool call from the reply,
runs it through a session (``sre_gym.serve.sessions``, as the OpenEnv and MCP servers do) and
answers with the step's observation as JSON (the context budget applies). A reply that holds no
readable call is the env's error result (one step; the episode goes on).

A reply's call: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Hermes and Qwen's
form), or a bare JSON object with ``name``/``tool_name`` and ``arguments`` (or the project's
``tool``/``args``). ``extras`` (SkyRL's per-sample dict) chooses the env and its options:
``{"env": "SREMarathon-v0" | "IncidentArena-v0", "seed": 3, "options": {...}, "max_turns": N,
**session options}``.

Registered as ``sre_gym-marathon`` and ``sre_gym-arena`` when ``skyrl_gym`` is installed; importing
this module registers them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from sre_gym.serve.sessions import ARENA, MARATHON, make_session

TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
MAX_REPLY_CHARS = 1_000_000
IDS = {"sre_gym-marathon": MARATHON, "sre_gym-arena": ARENA}


def read_call(reply: Any) -> tuple[str | None, Any, str | None]:
    """(tool name, arguments, problem) of a model's reply; never raises."""
    if not isinstance(reply, str):
        return None, None, f"a reply is text, got {type(reply).__name__}"
    if len(reply) > MAX_REPLY_CHARS:
        return None, None, f"the reply is {len(reply)} characters; the limit is {MAX_REPLY_CHARS}"
    m = TOOL_CALL.search(reply)
    text = m.group(1) if m else reply.strip()
    try:
        call = json.loads(text)
    except RecursionError:
        return None, None, "the tool call is nested too deep to read"
    except json.JSONDecodeError:
        return (
            None,
            None,
            (
                'no tool call in the reply: send <tool_call>{"name": "<tool>", "arguments": {...}}'
                "</tool_call>"
            ),
        )
    if not isinstance(call, dict):
        return None, None, f"a tool call is a JSON object, got {type(call).__name__}"
    name = next((call[k] for k in ("name", "tool_name", "tool") if k in call), None)
    args = next((call[k] for k in ("arguments", "args") if k in call), {})
    if isinstance(args, str):  # OpenAI's form: the arguments as JSON text
        try:
            args = json.loads(args)
        except (json.JSONDecodeError, RecursionError):
            return name if isinstance(name, str) else None, None, "arguments are not valid JSON"
    return name, args, None


class SREGymTextEnv(BaseTextEnv):
    """One episode of either env per instance, as SkyRL's generator makes them (module doc)."""

    def __init__(
        self, env_config: Any = None, extras: dict[str, Any] | None = None, env: str = MARATHON
    ) -> None:
        super().__init__()
        extras = dict(extras or {})
        self.env_id = extras.pop("env", env)
        self.seed = extras.pop("seed", None)
        self.options = extras.pop("options", None)
        self.max_turns = int(extras.pop("max_turns", 10_000))
        known = {
            "app",
            "profile",
            "schedule",
            "evaluation_key",
            "bundle_dir",
            "reward",
            "max_calls",
            "context",
            "observation_chars",
            "task",
            "reward_mode",
        }
        self.session = make_session(self.env_id, **{k: v for k, v in extras.items() if k in known})
        self.total_reward = 0.0
        self.errors = 0

    def init(self, prompt: list[dict[str, str]]) -> tuple[list[dict[str, str]], dict[str, Any]]:
        """Reset the episode; the prompt gets the tools and the first observation as a user
        message."""
        step = self.session.reset(seed=self.seed, options=self.options)
        self.turns, self.total_reward, self.errors = 0, 0.0, 0
        first = {
            "tools": self.session.tools(),
            "how_to_call": '<tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>',
            "observation": step.view,
        }
        msg = {"role": "user", "content": json.dumps(first, sort_keys=True)}
        return [*(prompt or []), msg], {"env": self.env_id}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        name, args, problem = read_call(action)
        s = self.session
        step = s.malformed(name, problem) if problem is not None else s.call(name, args)
        self.errors += int(step.is_error)
        reward = float(step.reward or 0.0)
        self.total_reward += reward
        done = step.done or self.turns >= self.max_turns
        body = {"result": step.result, **{k: v for k, v in step.view.items() if k != "result"}}
        return BaseTextEnvStepOutput(
            observations=[] if done else [{"role": "user", "content": json.dumps(body)}],
            reward=reward,
            done=done,
            metadata={"info": step.info, "error": step.is_error},
            postprocessed_action=None,
        )

    def get_metrics(self) -> dict[str, Any]:
        return {"turns": self.turns, "return": self.total_reward, "errors": self.errors}

    def close(self) -> None:
        self.session.close()


def register() -> None:
    """Register both ids with ``skyrl_gym`` (done on import; again is a no-op)."""
    import skyrl_gym
    from skyrl_gym.envs.registration import registry

    for env_id, which in IDS.items():
        if env_id not in registry:
            skyrl_gym.register(
                id=env_id,
                entry_point="sre_gym.serve.skyrl_env:SREGymTextEnv",
                kwargs={"env": which},
            )


register()
