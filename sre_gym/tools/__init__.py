"""Instrumented tools: specs with JSON Schemas, the policy layer (forbidden operations, access
profiles) and dispatch."""

from sre_gym.tools.policy import ACCESS_PROFILES, DEFAULT_PROFILE
from sre_gym.tools.specs import BUDGET_S, END_INVOCATION, TOOLS, ToolSpec

__all__ = ["BUDGET_S", "DEFAULT_PROFILE", "END_INVOCATION", "ACCESS_PROFILES", "TOOLS", "ToolSpec"]
