"""Servers that expose an episode to agents outside the Python process (MCP)."""
