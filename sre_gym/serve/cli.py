"""``sre-gym mcp``: serve one marathon's tools to a coding agent over MCP (stdio or HTTP).

``sre-gym openenv``: serve marathons to an LLM-RL trainer through OpenEnv (on 127.0.0.1)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _run(a: argparse.Namespace) -> int:
    from sre_gym.cli import evaluation_key_arg

    try:
        import mcp  # noqa: F401

        from sre_gym.serve.mcp_server import MarathonSession, serve_http, serve_stdio
    except ImportError:
        print(
            "error: the MCP server needs the mcp extra: pip install 'sre-gym[mcp]'", file=sys.stderr
        )
        return 2
    session = MarathonSession(
        a.app,
        a.seed,
        profile=a.profile,
        schedule=a.schedule,
        evaluation_key=evaluation_key_arg(a.evaluation_key_file),
        bundle_dir=a.bundle_dir,
        reward=a.reward,
    )
    if a.transport == "http":
        serve_http(session, a.port)
    else:
        serve_stdio(session)
    bundle = session.info.get("bundle")
    if bundle:
        print(f"bundle sealed at {bundle}", file=sys.stderr)
    return 0


def _run_openenv(a: argparse.Namespace) -> int:
    from sre_gym.cli import evaluation_key_arg

    try:
        import openenv  # noqa: F401
    except ImportError:
        print(
            "error: the OpenEnv server needs the openenv extra: pip install 'sre-gym[openenv]'",
            file=sys.stderr,
        )
        return 2
    from sre_gym.serve.openenv_env import serve

    serve(
        a.port,
        a.host,
        app=a.app,
        schedule=a.schedule,
        profile=a.profile,
        evaluation_key=evaluation_key_arg(a.evaluation_key_file),
        bundle_dir=a.bundle_dir,
        max_concurrent_envs=a.max_sessions,
        reward=a.reward,
    )
    return 0


def register(subparsers: Any) -> None:
    """Add the ``mcp`` and ``openenv`` subcommands to the ``sre-gym`` parser."""
    from sre_gym.catalogs import APPS
    from sre_gym.cli import add_evaluation_key, add_reward, profile_arg
    from sre_gym.tools.policy import ACCESS_PROFILES, DEFAULT_PROFILE

    p = subparsers.add_parser(
        "mcp", help="serve one episode's tools over MCP (stdio, or streamable HTTP on 127.0.0.1)"
    )
    p.add_argument("--app", default="online-boutique", choices=APPS)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--profile", default=DEFAULT_PROFILE, choices=list(ACCESS_PROFILES), help="access profile"
    )
    p.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields",
    )
    p.add_argument("--bundle-dir", default=None, help="seal the episode's bundle here")
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--port", type=int, default=8765, help="with --transport http (127.0.0.1 only)")
    add_evaluation_key(p)
    add_reward(p)
    p.set_defaults(fn=_run)

    o = subparsers.add_parser(
        "openenv",
        help="serve episodes to an LLM-RL trainer as an OpenEnv environment (on 127.0.0.1)",
    )
    o.add_argument("--app", default="online-boutique", choices=APPS)
    o.add_argument(
        "--profile", default=DEFAULT_PROFILE, choices=list(ACCESS_PROFILES), help="access profile"
    )
    o.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields",
    )
    o.add_argument("--bundle-dir", default=None, help="seal every episode's bundle here")
    # loopback only, as for sre-gym mcp: the server has no authentication
    o.add_argument("--host", default="127.0.0.1", choices=("127.0.0.1",), help="loopback only")
    o.add_argument("--port", type=int, default=8000)
    o.add_argument(
        "--max-sessions", type=int, default=1, help="WebSocket sessions (episodes) at once"
    )
    add_evaluation_key(o)
    add_reward(o)
    o.set_defaults(fn=_run_openenv)
