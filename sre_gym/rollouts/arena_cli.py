"""The arena side of ``sre-gym rollout --suite arena``, ``sre-gym qualify --suite arena`` and
``sre-gym arena calibrate`` / ``sre-gym arena regrade`` (registered by ``sre_gym.cli``)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _tasks(spec: str | None) -> list[str]:
    from sre_gym.catalogs.arena import task_ids

    return [t for t in spec.split(",") if t] if spec else list(task_ids())


def rollout_cmd(a: argparse.Namespace) -> int:
    from sre_gym.rollouts.arena_qualify import format_leaderboard, leaderboard_rows, rollout
    from sre_gym.rollouts.runner import parse_seeds

    agents = [n for n in a.agent.split(",") if n]
    recs = rollout(agents, _tasks(getattr(a, "tasks", None)), parse_seeds(a.seeds), a.bundle_dir)
    if a.out:
        with open(a.out, "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in recs)
    if a.json:
        for r in recs:
            print(json.dumps(r, sort_keys=True))
    else:
        print(format_leaderboard(leaderboard_rows(recs)))
    return 0


def qualify_cmd(a: argparse.Namespace) -> int:
    from sre_gym.rollouts.arena_qualify import format_qualification, qualify
    from sre_gym.rollouts.runner import parse_seeds

    seeds = parse_seeds(a.seeds if a.seeds != "0-19" else "0-7")
    res = qualify(_tasks(getattr(a, "tasks", None)), seeds)
    print(json.dumps(res, sort_keys=True) if a.json else format_qualification(res))
    return 0 if all(r["qualified"] for r in res) else 1


def _calibrate(a: argparse.Namespace) -> int:
    from sre_gym.rollouts.arena_calibrate import write_calibration

    data = write_calibration(_tasks(a.tasks))
    for t in _tasks(a.tasks):
        print(f"{t}: fingerprint {data[t]['fingerprint']} ({data[t]['source']} bands)")
    return 0


def _regrade(a: argparse.Namespace) -> int:
    from sre_gym.bundle import read_bundle
    from sre_gym.scoring.arena.grade import grade

    ev = read_bundle(a.bundle)
    v = grade(ev)
    stored = ev.artifacts.get("verdict.json")
    print(
        json.dumps(
            {
                "overall": v["overall"],
                "status": v["status"],
                "failure_class": v.get("failure_class"),
                "matches_online": v == stored,
            },
            sort_keys=True,
        )
    )
    return 0 if v == stored else 1


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "arena", help="IncidentArena-v0: calibrate SLI bands, re-grade a bundle"
    )
    sub = p.add_subparsers(dest="arena_cmd", required=True)
    c = sub.add_parser(
        "calibrate", help="recompute SLI bands and fingerprints into calibration.yaml"
    )
    c.add_argument("--tasks", default=None, help="comma-separated task ids (default: all)")
    c.set_defaults(fn=_calibrate)
    r = sub.add_parser("regrade", help="re-grade a sealed arena bundle offline")
    r.add_argument("bundle")
    r.set_defaults(fn=_regrade)
