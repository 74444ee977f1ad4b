"""``sre-gym mcp``: serve one episode's tools to a coding agent over MCP (stdio or HTTP).

``sre-gym openenv``: serve episodes to an LLM-RL trainer through OpenEnv (on 127.0.0.1).

Both serve ``SREMarathon-v0`` (the default) or an ``IncidentArena-v0`` task (``--env
IncidentArena-v0 --task arena-008``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

ENV_CHOICES = ("SREMarathon-v0", "IncidentArena-v0")
EPILOG = """serve an IncidentArena task:
  sre-gym {cmd} --env IncidentArena-v0 --task arena-008{extra}
one call per step; declare_repair_complete ends the episode, and the verdict (pass 1.0, fail 0.0;
--arena-reward checks: the fraction of checks passed) is the final reward."""


def session_options(a: argparse.Namespace) -> dict[str, Any]:
    """The session options (``sre_gym.serve.sessions``) the command line asks for."""
    from sre_gym.cli import evaluation_key_arg
    from sre_gym.serve.sessions import ARENA

    chars = None if a.observation_chars == 0 else a.observation_chars
    common: dict[str, Any] = {
        "bundle_dir": a.bundle_dir,
        "evaluation_key": evaluation_key_arg(a.evaluation_key_file),
        "context": a.context,
        "observation_chars": chars,
    }
    if a.env == ARENA:
        return {"task": a.task, "reward_mode": a.arena_reward, **common}
    return {
        "app": a.app,
        "profile": a.profile,
        "schedule": a.schedule,
        "reward": a.reward,
        **common,
    }


def _run(a: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401

        from sre_gym.serve.mcp_server import serve_http, serve_stdio
        from sre_gym.serve.sessions import make_session
    except ImportError:
        print(
            "error: the MCP server needs the mcp extra: pip install 'sre-gym[mcp]'", file=sys.stderr
        )
        return 2
    session = make_session(a.env, **session_options(a))
    session.reset(seed=a.seed)
    if a.transport == "http":
        serve_http(session, a.port)
    else:
        serve_stdio(session)
    bundle = session.info.get("bundle")
    if bundle:
        print(f"bundle sealed at {bundle}", file=sys.stderr)
    return 0


def _run_openenv(a: argparse.Namespace) -> int:
    try:
        import openenv  # noqa: F401
    except ImportError:
        print(
            "error: the OpenEnv server needs the openenv extra: pip install 'sre-gym[openenv]'",
            file=sys.stderr,
        )
        return 2
    from sre_gym.serve.openenv_env import serve

    serve(a.port, a.host, env=a.env, max_concurrent_envs=a.max_sessions, **session_options(a))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    from sre_gym.catalogs import APPS
    from sre_gym.catalogs.arena import task_ids
    from sre_gym.cli import add_evaluation_key, add_reward, profile_arg
    from sre_gym.envs.observation_text import CONTEXTS, OBSERVATION_CHARS
    from sre_gym.tools.policy import ACCESS_PROFILES, DEFAULT_PROFILE

    p.add_argument("--env", default=ENV_CHOICES[0], choices=ENV_CHOICES, help="the env to serve")
    p.add_argument("--app", default="online-boutique", choices=APPS, help="(SREMarathon-v0)")
    p.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        choices=list(ACCESS_PROFILES),
        help="access profile (SREMarathon-v0)",
    )
    p.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields "
        "(SREMarathon-v0)",
    )
    p.add_argument(
        "--task", default="arena-008", choices=task_ids(), help="the task (IncidentArena-v0)"
    )
    p.add_argument(
        "--arena-reward",
        default="binary",
        choices=("binary", "checks"),
        help="the verdict as reward: pass or fail, or the fraction of checks (IncidentArena-v0)",
    )
    p.add_argument(
        "--context",
        default="delta",
        choices=CONTEXTS,
        help="delta: each step shows what is new (alerts new or changed since the last step, the "
        "call's result, the open incidents); cumulative: the whole alert history every step",
    )
    p.add_argument(
        "--observation-chars",
        type=int,
        default=OBSERVATION_CHARS,
        metavar="N",
        help=f"cap each step's observation at N characters, truncation marked (default "
        f"{OBSERVATION_CHARS}; 0: no cap)",
    )
    p.add_argument("--bundle-dir", default=None, help="seal every episode's bundle here")
    add_evaluation_key(p)
    add_reward(p)


def register(subparsers: Any) -> None:
    """Add the ``mcp`` and ``openenv`` subcommands to the ``sre-gym`` parser."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "mcp",
        help="serve one episode's tools over MCP (stdio, or streamable HTTP on 127.0.0.1)",
        epilog=EPILOG.format(cmd="mcp", extra=" --transport http --port 8765"),
        formatter_class=fmt,
    )
    _common(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    p.add_argument("--port", type=int, default=8765, help="with --transport http (127.0.0.1 only)")
    p.set_defaults(fn=_run)

    o = subparsers.add_parser(
        "openenv",
        help="serve episodes to an LLM-RL trainer as an OpenEnv environment (on 127.0.0.1)",
        epilog=EPILOG.format(cmd="openenv", extra=" --port 8000 --max-sessions 8"),
        formatter_class=fmt,
    )
    _common(o)
    # loopback only, as for sre-gym mcp: the server has no authentication
    o.add_argument("--host", default="127.0.0.1", choices=("127.0.0.1",), help="loopback only")
    o.add_argument("--port", type=int, default=8000)
    o.add_argument(
        "--max-sessions",
        type=int,
        default=1,
        help="WebSocket sessions (episodes) at once; one more is refused with CAPACITY_REACHED",
    )
    o.set_defaults(fn=_run_openenv)
