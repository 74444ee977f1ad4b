"""Run one marathon through a coding agent (Claude Code, Codex, ...) over sre-gym's MCP server.

The server (``sre-gym mcp --transport http``) holds the episode; the agent is started once per
invocation with a prompt, acts through the MCP tools and ends its turn by calling
``end_invocation``. If it exits without doing so, this harness ends the invocation for it (the
agent simply made no more calls). When the episode is over the server is stopped, which seals the
bundle; ``sre-gym score <bundle>`` prints the scorecard.

    python examples/mcp/run_coding_agent.py --bundle-dir runs -- \\
        claude -p {prompt} --mcp-config examples/mcp/claude_code.mcp.json --strict-mcp-config \\
        --tools "" --allowedTools mcp__sre_gym

    CODEX_HOME=/tmp/codex-sre python examples/mcp/run_coding_agent.py --bundle-dir runs -- \\
        codex exec {prompt}

(with examples/mcp/codex_config.toml copied to /tmp/codex-sre/config.toml).

``{prompt}`` in the agent command is replaced by this invocation's prompt, ``{url}`` by the
server's URL. The agent command is run without a shell.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import subprocess
import sys
import time

PROMPT = (
    "Invocation {n} of the SRE marathon on {app}. Use the sre_gym MCP tools: read the alerts "
    "(get_alerts) and anything else you need, keep your incidents up to date, repair what you have "
    "localized, and call end_invocation when you are done for this invocation."
)


def wait_for_port(port: int, proc: subprocess.Popen, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the MCP server exited with code {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise SystemExit(f"the MCP server did not listen on 127.0.0.1:{port} in {timeout_s:.0f} s")


async def end_invocation(url: str) -> dict:
    """End the current invocation (if the agent has not) and return the server's result."""
    from mcp import Client

    async with Client(url) as c:
        res = await c.call_tool("end_invocation", {})
        return dict(res.structured_content or {})


async def status(url: str) -> dict:
    """Where the episode stands (the server's status resource; reading it costs no time)."""
    import json

    from mcp import Client

    async with Client(url) as c:
        res = await c.read_resource("sre-gym://episode")
        return json.loads(res.contents[0].text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--schedule", default="marathon")
    ap.add_argument("--bundle-dir", required=True)
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--agent-timeout-s", type=float, default=600)
    ap.add_argument("agent", nargs=argparse.REMAINDER, help="-- then the agent command")
    a = ap.parse_args(argv)
    cmd = a.agent[1:] if a.agent[:1] == ["--"] else a.agent
    if not cmd:
        ap.error("give the agent command after --")
    url = f"http://127.0.0.1:{a.port}/mcp"
    server = subprocess.Popen(
        [sys.executable, "-m", "sre_gym.cli", "mcp", "--transport", "http", "--port", str(a.port),
         "--app", a.app, "--seed", str(a.seed), "--schedule", a.schedule,
         "--bundle-dir", a.bundle_dir],
    )  # fmt: skip
    try:
        wait_for_port(a.port, server)
        while not (st := asyncio.run(status(url)))["episode_over"]:
            n = st["invocation"]
            prompt = PROMPT.format(n=n, app=a.app)
            argv_n = [x.replace("{prompt}", prompt).replace("{url}", url) for x in cmd]
            try:
                subprocess.run(argv_n, timeout=a.agent_timeout_s, check=False)
            except subprocess.TimeoutExpired:
                print(f"invocation {n}: the agent ran out of time", file=sys.stderr)
            st = asyncio.run(status(url))
            if st["invocation"] == n and not st["episode_over"]:
                asyncio.run(end_invocation(url))  # the agent stopped without ending it
    finally:
        server.terminate()  # the server seals the bundle as it stops
        server.wait(timeout=300)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
