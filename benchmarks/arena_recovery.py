"""Does recovery take time? The oracle's full fix declared at once against the same fix followed by
ten minutes of waiting, over every arena task; and every partial fix (each proper subset of a task's
legs), which must neither pass nor count as a full fix.

    python benchmarks/arena_recovery.py [--seeds 0-1]
"""

from __future__ import annotations

import argparse
from collections import Counter

from sre_gym.agents.arena import DECLARE, WAIT, Scripted, fix_calls, half_fixes
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.rollouts.arena_qualify import run
from sre_gym.rollouts.runner import parse_seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="0-1")
    seeds = parse_seeds(ap.parse_args().seeds)
    at_once, waited, partial = [], [], []
    for t in task_ids():
        task = load_task(t)
        a = [run(t, s, Scripted([*fix_calls(task), DECLARE])) for s in seeds]
        w = [run(t, s, Scripted([*fix_calls(task), WAIT, DECLARE])) for s in seeds]
        p = [run(t, s, Scripted(c)) for c in half_fixes(task).values() for s in seeds]
        at_once += a
        waited += w
        partial += p
        late = Counter(r["failure_class"] for r in a if not r["pass"])
        print(
            f"{t}: at once {sum(r['pass'] for r in a)}/{len(a)} pass {dict(late) or ''}"
            f" | after 600 s {sum(r['pass'] for r in w)}/{len(w)} pass"
        )
    n = len(at_once)
    failed = [r for r in at_once if not r["pass"]]
    cls = Counter(r["failure_class"] for r in failed)
    print(
        f"full fix declared at once: {len(failed)}/{n} task-seeds fail ({len(failed) / n:.1%}), "
        f"classes {dict(cls)}"
    )
    ok = sum(r["pass"] for r in waited)
    print(f"full fix, then 600 s: {ok}/{n} pass ({ok / n:.1%})")
    print(
        f"partial fixes: {len(partial)} episodes, {sum(r['pass'] for r in partial)} pass, "
        f"{sum(bool(r['analytics'].get('full_fix')) for r in partial)} counted as a full fix"
    )


if __name__ == "__main__":
    main()
