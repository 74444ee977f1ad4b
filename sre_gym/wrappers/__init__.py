"""Wrappers that adapt SREMarathon-v0 to the ways RL users reach it.

- ``ToolCallSteps``: one tool call per step with its result at once (ReAct-style LLM agents);
- ``ChatObservation`` + ``OpenAITools``: chat messages in, OpenAI-style tool calls out;
- ``NumericObservation`` + ``DiscreteRemedies``: a flat ``Box`` and a ``Discrete`` action for classic
  RL algorithms (RLlib PPO, SB3).

Each records its constructor arguments, so ``gym.make`` specs and ``gym.make_vec(...,
wrappers=[...])`` rebuild the same stack in any process.
"""

from sre_gym.wrappers.chat import ChatObservation
from sre_gym.wrappers.numeric import NumericObservation
from sre_gym.wrappers.openai_tools import OpenAITools, openai_tools
from sre_gym.wrappers.remedies import REMEDIES, DiscreteRemedies
from sre_gym.wrappers.tool_call_steps import ToolCallSteps

__all__ = [
    "REMEDIES",
    "ChatObservation",
    "DiscreteRemedies",
    "NumericObservation",
    "OpenAITools",
    "ToolCallSteps",
    "openai_tools",
]
