"""An MCP server over one episode: coding agents call the env's tools as MCP tools.

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

``sre-gym mcp --env IncidentArena-v0 --task arena-008`` serves an arena task the same way: its
eleven tools, one call per step, ``declare_repair_complete`` ends the episode and the verdict is
graded (its pass or fail is the episode's reward; the bundle holds the whole verdict).
"""

from __future__ import annotations

import json
import signal
from typing import Any

from sre_gym.serve.sessions import (
    ARENA,
    MARATHON,
    ArenaSession,
    MarathonSession,
    Step,
)

ENV_ID = MARATHON
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
ARENA_INSTRUCTIONS = (
    "You repair one incident on a simulated production system. Read the instruction in the "
    "first result, investigate and repair through the tools, and call declare_repair_complete when "
    "the repair is done: traffic then continues through a soak and a challenge, and the run is "
    "graded on the outcome and on how safely you repaired it. Each call costs its simulated "
    "duration and one of a limited number of calls."
)
Session = MarathonSession | ArenaSession


def mcp_result(session: Session, step: Step) -> tuple[dict[str, Any], bool]:
    """A step as an MCP tool result (structured content, is_error): the call's result, plus the
    observation (what changed, fitted to the cap) when the invocation or the episode ended."""
    res = dict(step.result or {"ok": False, "error": "no result"})
    ended = step.view.get("invocation_ended") or step.done
    if ended or session.env_id == ARENA:
        res["observation"] = {k: v for k, v in step.view.items() if k != "result"}
    if step.done:
        bundle = step.info.get("bundle")
        res["episode_over"] = f"bundle sealed at {bundle}" if bundle else "the episode is over"
    return res, step.is_error


def build_server(session: Session) -> Any:
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
        # a malformed call (no name, arguments that are not an object or nested too deep) is the
        # env's error result: recorded, one step, and the session goes on
        res, err = mcp_result(session, session.call(params.name, params.arguments))
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
        instructions=ARENA_INSTRUCTIONS if session.env_id == ARENA else INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )


def serve_stdio(session: Session) -> None:
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


def serve_http(session: Session, port: int, host: str = "127.0.0.1") -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` (loopback only) until interrupted."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the MCP server listens on loopback only, not {host!r}")
    import uvicorn

    app = build_server(session).streamable_http_app(host=host, json_response=True)
    try:
        uvicorn.run(app, host=host, port=int(port), log_level="warning")
    finally:
        session.close()
