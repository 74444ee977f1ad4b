"""Random search over each arena task's own calls: the failure classes it reaches and the share of
failures the outcome gate alone decided.

    python benchmarks/arena_random_search.py [--seeds 0-1] [--per-seed 25] [--tasks arena-011,...]
"""

from __future__ import annotations

import argparse
import json
import time

from sre_gym.rollouts.arena_search import search, summarize
from sre_gym.rollouts.runner import parse_seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0-1")
    ap.add_argument("--per-seed", type=int, default=25)
    ap.add_argument("--tasks", default=None)
    a = ap.parse_args()
    tasks = [t for t in a.tasks.split(",") if t] if a.tasks else None
    t0 = time.process_time()
    recs = search(tasks, parse_seeds(a.seeds), a.per_seed)
    s = summarize(recs)
    s["cpu_s"] = round(time.process_time() - t0, 1)
    print(json.dumps(s, indent=1))


if __name__ == "__main__":
    main()
