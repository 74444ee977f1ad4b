"""Instrumented tools: specs with JSON Schemas, the policy layer and dispatch."""

from sre_gym.tools.specs import BUDGET_S, TOOLS, ToolSpec

__all__ = ["BUDGET_S", "TOOLS", "ToolSpec"]
