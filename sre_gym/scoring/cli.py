"""``sre-gym leaderboard RESULTS``: the paper's Table 2 from rollout results (JSONL)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _leaderboard(a: argparse.Namespace) -> int:
    from sre_gym.scoring.leaderboard import leaderboard

    try:
        board = leaderboard(
            a.results, rank_by="marathon_score" if a.reward == "paper" else "net_score"
        )
    except (OSError, ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(board.to_markdown() if a.markdown else board.to_text(), end="")
    if a.md:
        with open(a.md, "w") as f:
            f.write(board.to_markdown())
    if a.csv:
        board.to_csv(a.csv)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``leaderboard`` subcommand to the ``sre-gym`` parser."""
    p = subparsers.add_parser(
        "leaderboard",
        help="one row per method from results JSONL (as `sre-gym run --json` prints)",
        description=(
            "Average each method's runs over seeds, then apps; mark the best value per column. "
            "RESULTS are JSONL files (or directories of *.jsonl) with one run per line."
        ),
    )
    p.add_argument("results", nargs="+", help="results JSONL file(s) or directories")
    p.add_argument("--md", metavar="OUT.md", help="also write the table as markdown")
    p.add_argument("--csv", metavar="OUT.csv", help="also write the table as CSV")
    p.add_argument("--markdown", action="store_true", help="print markdown instead of text")
    p.add_argument(
        "--reward",
        choices=("net", "paper"),
        default="net",
        help="rank by net_score (the default) or by the paper's Marathon-Score",
    )
    p.set_defaults(fn=_leaderboard)
