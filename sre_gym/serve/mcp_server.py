"""An MCP server over one marathon: coding agents call the nineteen tools as MCP tools.

``sre-gym mcp --app A --seed S`` serves one SREMarathon-v0 episode, driven call by call as the
``ToolCallSteps`` wrapper drives it: every tool runs at once inside the current invocation, through
the same policy layer (profiles, forbidden operations, the citation rule, the 110 s budget), and
``end_invocation`` hands the 120 simulated seconds back, returning the new alert history. The tools
have the names and JSON Schemas ``sre-gym tools --json`` prints, plus ``end_invocation``; one
resource, ``sre-gym://episode``, tells a harness where the episode stands without spending time.

When the episode ends, or when the server stops before it has, the bundle is sealed: a server that
stops early plays out the remaining invocations with no calls (the agent stopped acting), so that
the bundle holds a whole, scorable run.

Transports: stdio (the default; the wire is stdout, so nothing else may print there) and streamable
HTTP on 127.0.0.1. ``mcp`` (extra ``mcp``) is imported only here, on demand.
"""

from __future__ import annotations

import json
import signal
import threading
from typing import Any

import gymnasium as gym

from sre_gym.tools.cli import tool_table
from sre_gym.tools.specs import END_INVOCATION
from sre_gym.wrappers.tool_call_steps import ToolCallSteps

ENV_ID = "SREMarathon-v0"
STATUS_URI = "sre-gym://episode"
INSTRUCTIONS = (
    "You operate a microservice application in Kubernetes for a whole marathon: faults keep "
    "arriving from code changes, configuration changes and infrastructure trouble, and alerts are "
    "noisy. Correlate alerts into incidents (report_incident), localize each incident's root cause, "
    "and repair it with the least risky intervention. Time is simulated: each call costs its "
    "duration out of a 110 s budget per invocation, and end_invocation lets 120 s pass and returns "
    "the alert history as it then stands. Call end_invocation whenever you are waiting for "
    "something to happen."
)


class MarathonSession:
    """One episode, driven one tool call at a time (thread-safe: calls are serialised)."""

    def __init__(
        self,
        app: str = "online-boutique",
        seed: int = 0,
        *,
        profile: str | None = None,
        schedule: str | dict | None = None,
        evaluation_key: str | None = None,
        bundle_dir: str | None = None,
        reward: str = "net",
    ) -> None:
        kw: dict[str, Any] = {"app": app, "bundle_dir": bundle_dir, "reward": reward}
        if profile is not None:
            kw["profile"] = profile
        if schedule is not None:
            kw["schedule"] = schedule
        if evaluation_key is not None:
            kw["evaluation_key"] = evaluation_key
        self.env = ToolCallSteps(gym.make(ENV_ID, **kw))
        self.base = self.env.base
        self._lock = threading.Lock()
        obs, self.info = self.env.reset(seed=seed)
        self.obs = obs
        self.done = False

    # ------------------------------------------------------------------ surface
    def tools(self) -> list[dict[str, Any]]:
        """Name, description and input schema of every tool of the profile, then end_invocation."""
        rows = [
            {"name": r["name"], "description": r["description"], "input_schema": r["schema"]}
            for r in tool_table(self.base.profile)
        ]
        rows.append(
            {
                "name": END_INVOCATION.name,
                "description": END_INVOCATION.description,
                "input_schema": END_INVOCATION.json_schema(),
            }
        )
        return rows

    def call(self, name: str, arguments: dict[str, Any] | None) -> tuple[dict[str, Any], bool]:
        """Run one call; returns (result, is_error). Nothing raises for bad input: a malformed or
        refused call is an error result and changes nothing but the evidence the env keeps."""
        with self._lock:
            if self.done:
                return {"ok": False, "error": "the episode is over: " + self._ending()}, True
            if not isinstance(name, str) or not name:
                return {"ok": False, "error": "a tool call needs a tool name"}, True
            args = {} if arguments is None else arguments
            obs, _, terminated, truncated, info = self.env.step({"tool": name, "args": args})
            self.obs, self.info = obs, info
            results = self.env.step_results
            first = dict(results[0]) if results else {"ok": False, "error": "no result"}
            if info.get("invocation_ended"):
                first = {**results[-1]} if name == END_INVOCATION.name else first
                first["observation"] = {
                    "time": int(obs["time"]),
                    "invocation": int(obs["invocation"]),
                    "alerts": json.loads(obs["alerts"]),
                    "incidents": json.loads(obs["incidents"]),
                }
            if terminated or truncated:
                self.done = True
                first["episode_over"] = self._ending()
            return first, not first.get("ok", False)

    def status(self) -> dict[str, Any]:
        """Where the episode stands, without spending simulated time: the current invocation, the
        simulated time, the budget left in this invocation and whether the episode is over."""
        with self._lock:
            return {
                "invocation": int(self.base.invocation),
                "time": int(self.obs["time"]),
                "budget_left_s": float(self.base.budget_left),
                "episode_over": self.done,
            }

    def close(self) -> str | None:
        """End the episode if it is still running (no more calls), seal it; the bundle path."""
        with self._lock:
            while not self.done:
                _, _, terminated, truncated, self.info = self.env.step([])
                self.done = bool(terminated or truncated)
            return self.info.get("bundle")

    def _ending(self) -> str:
        bundle = self.info.get("bundle")
        return f"bundle sealed at {bundle}" if bundle else "no bundle directory was given"


def build_server(session: MarathonSession) -> Any:
    """The low-level MCP server over ``session``: our schemas exactly, our errors as results."""
    from mcp import types
    from mcp.server.lowlevel import Server

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t["name"], description=t["description"], input_schema=t["input_schema"]
                )
                for t in session.tools()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        args = params.arguments
        if args is not None and not isinstance(args, dict):
            res, err = {"ok": False, "error": "arguments must be an object"}, True
        else:
            res, err = session.call(params.name, args)
        text = json.dumps(res, sort_keys=True, default=str)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=res,
            is_error=err,
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=STATUS_URI,
                    name="episode",
                    description="where the episode stands (read by harnesses; costs no time)",
                    mime_type="application/json",
                )
            ]
        )

    async def read_resource(ctx: Any, params: Any) -> types.ReadResourceResult:
        if str(params.uri) != STATUS_URI:
            raise ValueError(f"unknown resource {params.uri!r}; the server has {STATUS_URI}")
        text = json.dumps(session.status(), sort_keys=True)
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=STATUS_URI, mime_type="application/json", text=text)
            ]
        )

    return Server(
        "sre-gym",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def serve_stdio(session: MarathonSession) -> None:
    """Serve over stdin/stdout until the client closes the stream; then seal the episode."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(session)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    # MCP clients close stdin, wait 2 s, then send SIGTERM and SIGKILL 2 s later: a SIGTERM ends
    # serving as stdin's end does, and one that comes while the episode is sealed is ignored
    signal.signal(signal.SIGTERM, _exit_on_term)
    try:
        anyio.run(main)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        session.close()


def _exit_on_term(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def serve_http(session: MarathonSession, port: int, host: str = "127.0.0.1") -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` (loopback only) until interrupted."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the MCP server listens on loopback only, not {host!r}")
    import uvicorn

    app = build_server(session).streamable_http_app(host=host, json_response=True)
    try:
        uvicorn.run(app, host=host, port=int(port), log_level="warning")
    finally:
        session.close()
