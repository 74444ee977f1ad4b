"""Servers that expose episodes to agents and trainers outside the Python process (MCP, OpenEnv)."""
