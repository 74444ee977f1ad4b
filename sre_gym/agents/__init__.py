"""Baseline agents and the factory ``make_agent``."""

from __future__ import annotations

from typing import Any

from sre_gym.agents.base import Agent, NoopAgent
from sre_gym.agents.keep import KeepAgent
from sre_gym.agents.oracle import OracleAgent
from sre_gym.agents.random import RandomAgent
from sre_gym.agents.runbook import RunbookAgent

AGENTS = ("noop", "oracle", "runbook", "random", "keep")


def make_agent(name: str, env: Any = None, seed: int | None = None, **options: Any) -> Agent:
    """A baseline by name. The oracle needs ``env`` (it reads ground truth); ``random`` is seeded
    with ``seed``; the others ignore both. LLM agents (``sre_gym.agents.llm.LLM_AGENTS``) need
    ``env`` and ``model=``, and take their endpoint options here (see ``make_llm_agent``)."""
    from sre_gym.agents.llm import LLM_AGENTS

    if name in LLM_AGENTS:
        from sre_gym.agents.llm import make_llm_agent

        return make_llm_agent(name, env, **options)
    if options:
        raise TypeError(f"the {name} agent takes no options, got {', '.join(sorted(options))}")
    if name == "noop":
        return NoopAgent()
    if name == "oracle":
        return OracleAgent(env)
    if name == "runbook":
        return RunbookAgent()
    if name == "random":
        return RandomAgent(seed)
    if name == "keep":
        return KeepAgent()
    raise ValueError(
        f"unknown agent {name!r}; available: {', '.join(AGENTS)}, and with a model endpoint "
        f"{', '.join(LLM_AGENTS)}"
    )


__all__ = [
    "AGENTS",
    "Agent",
    "KeepAgent",
    "NoopAgent",
    "OracleAgent",
    "RandomAgent",
    "RunbookAgent",
    "make_agent",
]
