"""``sre-gym rollout`` and ``sre-gym qualify`` (a plugin of ``sre_gym.cli``: see ``PLUGINS``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

LEADERBOARD_COLUMNS = (
    ("net_score", "net", "{:7.2f}"),
    ("marathon_score", "paper", "{:7.2f}"),
    ("correlation", "corr", "{:5.3f}"),
    ("localization", "loc", "{:5.3f}"),
    ("repair", "repair", "{:6.3f}"),
    ("intervention_risk", "risk", "{:5.3f}"),
    # model cost per episode (0 for scripted baselines)
    ("cost.model_calls", "calls", "{:6.0f}"),
    ("cost.tokens", "ktokens", "{:7.1f}"),
    ("cost.dollars", "dollars", "{:7.3f}"),
)


def _metric(card: dict[str, Any], key: str) -> float:
    """A leaderboard cell of one scorecard (``cost.tokens``: input plus output, in thousands)."""
    if not key.startswith("cost."):
        return float(card[key])
    cost = card.get("cost") or {}
    if key == "cost.tokens":
        return (cost.get("input_tokens", 0) + cost.get("output_tokens", 0)) / 1000
    return float(cost.get(key[5:], 0))


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def leaderboard(records: list[dict[str, Any]]) -> str:
    """Mean of the main scorecard metrics per agent (rows) and app, best net_score first."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["agent"], r["app"]), []).append(r["scorecard"])
    rows = []
    for (agent, app), cards in groups.items():
        vals = [_mean([_metric(c, k) for c in cards]) for k, _, _ in LEADERBOARD_COLUMNS]
        sd = _std([float(c["net_score"]) for c in cards])
        rows.append((agent, app, len(cards), vals, sd))
    rows.sort(key=lambda r: (r[1], -r[3][0], r[0]))
    head = f"{'agent':<10} {'app':<18} {'seeds':>5} " + " ".join(
        f"{label:>{len(fmt.format(0.0))}}" for _, label, fmt in LEADERBOARD_COLUMNS
    )
    lines = [head + "    net sd"]
    for agent, app, n, vals, sd in rows:
        cells = " ".join(
            fmt.format(v) for v, (_, _, fmt) in zip(vals, LEADERBOARD_COLUMNS, strict=True)
        )
        lines.append(f"{agent:<10} {app:<18} {n:>5} {cells}  {sd:8.2f}")
    return "\n".join(lines)


def _std(xs: list[float]) -> float:
    if len(xs) < 2:
        return 0.0
    m = _mean(xs)
    return (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5


def _rollout(a: argparse.Namespace) -> int:
    if a.suite == "arena":
        from sre_gym.rollouts.arena_cli import rollout_cmd

        return rollout_cmd(a)
    from sre_gym.cli import evaluation_key_arg, llm_options
    from sre_gym.rollouts.runner import rollout

    key = evaluation_key_arg(a.evaluation_key_file)
    schedule = with_split(a.schedule, a.split)
    resources = json.loads(a.resources) if a.resources else None
    labels = json.loads(a.label_selector) if a.label_selector else None
    records = []
    for name in [n for n in a.agent.split(",") if n]:
        res = rollout(
            name,
            a.apps,
            a.seeds,
            workers=a.workers,
            address=a.address,
            out=a.out,
            bundle_dir=a.bundle_dir,
            cluster=a.cluster,
            resources=resources,
            label_selector=labels,
            progress=not a.quiet,
            schedule=schedule,
            evaluation_key=key,
            agent_options=llm_options(a, name) or None,
            reward=a.reward,
        )
        records += res.records
        print(
            f"{name}: {len(res)} episodes ({res.executed} run, {res.skipped} already in "
            f"{a.out or '-'}) in {res.elapsed_s:.1f}s",
            file=sys.stderr,
        )
    if a.json:
        for r in records:
            print(json.dumps(r, sort_keys=True))
    else:
        print(leaderboard(records))
        if a.out:
            print(f"results: {a.out}")
    return 0


def _qualify(a: argparse.Namespace) -> int:
    if a.suite == "arena":
        from sre_gym.rollouts.arena_cli import qualify_cmd

        return qualify_cmd(a)
    from sre_gym.rollouts.qualify import format_report, qualify

    results = qualify(
        a.app,
        a.seeds,
        workers=a.workers,
        address=a.address,
        progress=not a.quiet,
        split=a.split,
    )
    if a.json:
        print(json.dumps(results, sort_keys=True))
    else:
        print(format_report(results))
    return 0 if all(r["passed"] for r in results) else 1


def with_split(schedule: Any, split: str | None) -> Any:
    """The schedule profile with its fault split set (unchanged without ``--split``)."""
    from sre_gym.orchestrator.profiles import schedule_profile_from

    if split is None:
        return schedule
    return schedule_profile_from(schedule).model_copy(update={"split": split})


def _common(p: argparse.ArgumentParser, seeds: str) -> None:
    from sre_gym.orchestrator.split import SPLITS

    p.add_argument("--seeds", default=seeds, help=f"seeds: 7, 0-19 or 0,3,5-7 (default {seeds})")
    p.add_argument(
        "--workers", type=int, default=None, help="parallel Ray workers (default: serial)"
    )
    p.add_argument(
        "--address", default=None, help="join a Ray cluster ('auto' or host:port) instead"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--suite", choices=("marathon", "arena"), default="marathon", help="benchmark suite"
    )
    p.add_argument("--tasks", default=None, help="arena task ids, comma-separated (default: all)")
    p.add_argument(
        "--split",
        choices=SPLITS,
        default=None,
        help="the part of the held-out fault split to draw faults from: train, heldout or all "
        "(default: all; heldout in evaluation mode)",
    )


def register(subparsers: Any) -> None:
    """Add the ``rollout`` and ``qualify`` subcommands."""
    from sre_gym.catalogs import APPS
    from sre_gym.cli import add_evaluation_key, add_model_args, add_reward, profile_arg

    r = subparsers.add_parser(
        "rollout",
        help="run baselines over many apps and seeds (serially or with Ray) and print a leaderboard",
    )
    r.add_argument("--agent", default="runbook", help="baseline name(s), comma-separated")
    r.add_argument("--apps", default=",".join(APPS), help="comma-separated apps (default: all)")
    _common(r, "0-9")
    r.add_argument("--out", default=None, help="results file (.jsonl or .parquet); reruns resume")
    r.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields",
    )
    r.add_argument("--bundle-dir", default=None, help="write a sealed bundle per episode here")
    add_evaluation_key(r)
    add_reward(r)
    add_model_args(r)
    r.add_argument("--cluster", default=None, help="pin tasks to Ray nodes labelled with it")
    r.add_argument("--resources", default=None, help="custom Ray resources per task, JSON")
    r.add_argument("--label-selector", default=None, help="Ray label selector per task, JSON")
    r.set_defaults(fn=_rollout)
    q = subparsers.add_parser(
        "qualify",
        help="check seeds are fair: oracle >= 90 and no-op == 0, with why the oracle missed faults",
    )
    q.add_argument("--app", default=",".join(APPS), help="comma-separated apps (default: all)")
    _common(q, "0-19")
    q.set_defaults(fn=_qualify)
