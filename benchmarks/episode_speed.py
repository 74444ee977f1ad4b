"""Wall time of full episodes (reset + every invocation), no-op or a random masked policy.

Prints the median seconds per episode and the speed-up over real time (5400 simulated seconds per
episode). With ``--compare REF`` it times this tree against a reference commit in the same run: REF
is checked out into a temporary ``git worktree``, and rounds alternate between the two trees (each
round a fresh process that warms up, then runs ``--episodes`` episodes), so that drift in the
machine's speed hits both alike. It prints both medians and their ratio.

``--cpu`` times the process's CPU seconds instead of wall seconds: steadier when other work shares
the machine.

``--policy random-masked`` plays a seeded random policy over ``DiscreteRemedies`` on
``NumericObservation`` instead of no-ops: what an RL learner's episodes cost, with interventions,
incidents, the numeric features, the action mask and the no-action counterfactual.

``--no-counterfactual`` runs the env with ``counterfactual=False``, as the training examples do.

Run: python benchmarks/episode_speed.py [--episodes N] [--app APP] [--cpu] [--policy P]
     [--no-counterfactual] [--compare REF [--rounds K]]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# run in a child process with the tree under test first on sys.path; prints one JSON list of seconds
CHILD = """
import json, sys, time
import gymnasium as gym
import numpy as np
import sre_gym
app, n, clock, policy = sys.argv[1], int(sys.argv[2]), getattr(time, sys.argv[3]), sys.argv[4]
kwargs = {} if sys.argv[5] == "1" else {"counterfactual": False}
env = gym.make("SREMarathon-v0", app=app, **kwargs)
if policy == "random-masked":
    from sre_gym.wrappers import DiscreteRemedies, NumericObservation
    env = DiscreteRemedies(NumericObservation(env))
def episode(seed):
    rng = np.random.default_rng(seed)
    t = clock()
    _, info = env.reset(seed=seed)
    done = False
    while not done:
        if policy == "noop":
            action = []
        else:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        _, _, term, trunc, info = env.step(action)
        done = term or trunc
    return clock() - t
episode(999)  # warm caches (catalog, rule pack, compiled queries)
print(json.dumps([episode(s) for s in range(n)]))
"""


def timed(
    tree: Path,
    app: str,
    n: int,
    clock: str = "perf_counter",
    policy: str = "noop",
    counterfactual: bool = True,
) -> list[float]:
    """Seconds of ``n`` episodes of ``app`` with the sre_gym of ``tree`` (``clock``:
    ``perf_counter`` for wall time, ``process_time`` for the process's CPU time; ``policy``:
    ``noop``, or ``random-masked`` on the numeric stack; ``counterfactual``: the env argument)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, app, str(n), clock, policy, "1" if counterfactual else "0"],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"episodes under {tree} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare(
    ref: str,
    app: str,
    n: int,
    rounds: int,
    clock: str = "perf_counter",
    policy: str = "noop",
    counterfactual: bool = True,
) -> None:
    with tempfile.TemporaryDirectory(prefix="sre-gym-ref-") as tmp:
        wt = Path(tmp) / "ref"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(wt), ref],
            check=True,
            capture_output=True,
        )
        try:
            times: dict[str, list[float]] = {"ref": [], "head": []}
            for _ in range(rounds):
                times["ref"] += timed(wt, app, n, clock, policy, counterfactual)
                times["head"] += timed(ROOT, app, n, clock, policy, counterfactual)
        finally:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)],
                capture_output=True,
            )
    ref_med, head_med = statistics.median(times["ref"]), statistics.median(times["head"])
    print(
        f"app={app} policy={policy} counterfactual={counterfactual} episodes={len(times['head'])} "
        f"per tree, {rounds} alternating rounds, clock={clock}"
    )
    print(f"ref={ref} median_s={ref_med:.3f}")
    print(f"head median_s={head_med:.3f}")
    print(f"speedup_over_ref={ref_med / head_med:.2f}x (above 1: this tree is faster)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=7)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--compare", metavar="REF", help="a commit to time against, in the same run")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds with --compare")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time the process's CPU seconds, not wall seconds (steadier on a shared machine)",
    )
    ap.add_argument(
        "--policy",
        choices=("noop", "random-masked"),
        default="noop",
        help="noop: empty actions; random-masked: a seeded random policy over the numeric stack's "
        "masked discrete remedies (what an RL learner's first episodes cost)",
    )
    ap.add_argument(
        "--no-counterfactual",
        action="store_true",
        help="counterfactual=False, as the training examples run the env (a reference commit "
        "older than that argument cannot run this)",
    )
    a = ap.parse_args()
    clock = "process_time" if a.cpu else "perf_counter"
    cf = not a.no_counterfactual
    if a.compare:
        compare(a.compare, a.app, a.episodes, a.rounds, clock, a.policy, cf)
        return
    times = timed(ROOT, a.app, a.episodes, clock, a.policy, cf)
    med = statistics.median(times)
    print(
        f"app={a.app} policy={a.policy} counterfactual={cf} episodes={a.episodes} "
        f"median_s={med:.3f} min_s={min(times):.3f} max_s={max(times):.3f}"
    )
    print(f"speedup_over_real_time={5400 / med:.0f}x")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"wall_s={time.perf_counter() - t0:.1f}", file=sys.stderr)
