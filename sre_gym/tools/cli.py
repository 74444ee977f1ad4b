"""``sre-gym tools``: list the instrumented tools with their kinds, durations and schemas.

Agent authors need the exact tool surface (names, argument schemas, simulated costs, and which access
profile has which tool) without reading the source; ``--json`` gives it in a form to feed a model.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sre_gym.tools.policy import ACCESS_PROFILES, DEFAULT_PROFILE
from sre_gym.tools.specs import BUDGET_S, END_INVOCATION, TOOLS


def tool_table(profile: str = DEFAULT_PROFILE) -> list[dict[str, Any]]:
    """The tools of a profile as plain dicts: name, kind, duration, description, JSON Schema."""
    return [
        {
            "name": s.name,
            "kind": s.kind,
            "duration_s": s.duration_s,
            "description": s.description,
            "schema": s.json_schema(),
        }
        for n, s in TOOLS.items()
        if n in ACCESS_PROFILES[profile]
    ]


def _run(a: argparse.Namespace) -> int:
    rows = tool_table(a.profile)
    if a.json:
        print(json.dumps(rows, sort_keys=True, indent=None if a.compact else 2))
        return 0
    out = sys.stdout
    print(
        f"{len(rows)} tools in profile {a.profile!r} (budget {BUDGET_S} s per invocation; "
        f"{END_INVOCATION.name} is the control call of the one-call-per-step wrappers)",
        file=out,
    )
    for r in rows:
        props = r["schema"].get("properties", {})
        req = set(r["schema"].get("required", []))
        args = ", ".join(f"{k}{'' if k in req else '?'}" for k in props)
        print(f"  {r['name']:<17} {r['kind']:<9} {r['duration_s']:>3}s  ({args})", file=out)
        print(f"      {r['description']}", file=out)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``tools`` subcommand to the ``sre-gym`` parser."""
    p = subparsers.add_parser(
        "tools", help="list the tools with their kinds, durations and JSON Schemas"
    )
    p.add_argument("--json", action="store_true", help="print the tools with schemas as JSON")
    p.add_argument("--compact", action="store_true", help="with --json: one line")
    p.add_argument(
        "--profile",
        default=DEFAULT_PROFILE,
        choices=list(ACCESS_PROFILES),
        help="only the tools of this access profile",
    )
    p.set_defaults(fn=_run)
