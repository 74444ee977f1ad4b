"""Both scores of every baseline and named adversary: the table docs/scoring.md quotes.

Plays each agent on each (app, seed) of the marathon and prints one row per episode: the paper's
Marathon-Score, ``net_score`` (the default reward) and what moves them (stages, incident precision,
intervention risk, degradation ratio, and the net score's costs). Agents are the baselines
(``sre_gym.agents.AGENTS``), the scripted adversaries (``sre_gym.testing.ADVERSARIES``) and the
numeric stack's automatic reports playing no-op (``numeric-noop-auto``: ``DiscreteRemedies(...,
auto_report=True)`` choosing action 0 every step).

With ``--bundle-dir`` every episode's sealed bundle is kept (under ``DIR/AGENT/``), so the figures
can be re-scored offline.

Run: python benchmarks/score_table.py [--apps online-boutique,astronomy-shop] [--seeds 0]
     [--agents all|baselines|adversaries|NAME,...] [--bundle-dir DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import gymnasium as gym

import sre_gym  # noqa: F401
from sre_gym.agents import AGENTS, make_agent
from sre_gym.envs.marathon import agent_info
from sre_gym.rollouts.runner import parse_seeds
from sre_gym.testing import ADVERSARIES, make_adversary
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

NUMERIC = ("numeric-noop-auto",)


def play(app: str, seed: int, name: str, bundle_dir: str | None) -> dict[str, Any]:
    """One marathon of ``name`` on (app, seed); the final scorecard."""
    where = None if bundle_dir is None else f"{bundle_dir}/{name}"
    env = gym.make("SREMarathon-v0", app=app, bundle_dir=where)
    if name in NUMERIC:
        wrapped = DiscreteRemedies(NumericObservation(env), auto_report=True)
        wrapped.reset(seed=seed)
        done = False
        while not done:
            _, _, term, trunc, info = wrapped.step(0)
            done = term or trunc
    else:
        agent = (
            make_agent(name, env=env, seed=seed)
            if name in AGENTS
            else make_adversary(name, env=env)
        )
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, term, trunc, info = env.step(agent(obs, agent_info(info)))
            done = term or trunc
    env.close()
    return info["scorecard"]


def row(app: str, seed: int, name: str, card: dict[str, Any], secs: float) -> dict[str, Any]:
    deg = card["degradation"] or {}
    net = card.get("net") or {}
    return {
        "app": app,
        "seed": seed,
        "agent": name,
        "marathon_score": card["marathon_score"],
        "net_score": card.get("net_score"),
        "C/L/R": [card["correlation"], card["localization"], card["repair"]],
        "incidents": card["incidents"],
        "incident_precision": card["incident_precision"],
        "interventions": card["interventions"],
        "intervention_risk": card["intervention_risk"],
        "degradation_ratio": deg.get("ratio"),
        "net": net,
        "handled": card["outcomes"]["handled"],
        "seconds": round(secs, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--apps", default="online-boutique,astronomy-shop")
    ap.add_argument("--seeds", default="0", help="e.g. 0 or 0-3 or 0,5")
    ap.add_argument("--agents", default="all", help="all, baselines, adversaries, or names")
    ap.add_argument("--bundle-dir", help="keep each episode's sealed bundle here")
    ap.add_argument("--json", action="store_true", help="print JSON lines instead of a table")
    a = ap.parse_args()
    groups = {
        "baselines": list(AGENTS),
        "adversaries": [*ADVERSARIES, *NUMERIC],
    }
    groups["all"] = groups["baselines"] + groups["adversaries"]
    names = groups.get(a.agents) or a.agents.split(",")
    if not a.json:
        print(
            f"{'app':16} {'seed':>4} {'agent':34} {'paper':>7} {'net':>7} "
            f"{'prec':>5} {'risk':>5} {'degr':>5} {'handled':>7}"
        )
    for app in a.apps.split(","):
        for seed in parse_seeds(a.seeds):
            for name in names:
                t = time.perf_counter()
                card = play(app, seed, name, a.bundle_dir)
                r = row(app, seed, name, card, time.perf_counter() - t)
                if a.json:
                    print(json.dumps(r), flush=True)
                    continue
                net = "-" if r["net_score"] is None else f"{r['net_score']:7.2f}"
                deg = "-" if r["degradation_ratio"] is None else f"{r['degradation_ratio']:5.2f}"
                print(
                    f"{app:16} {seed:>4} {name:34} {r['marathon_score']:7.2f} {net:>7} "
                    f"{r['incident_precision']:5.2f} {r['intervention_risk']:5.2f} {deg:>5} "
                    f"{r['handled']:>7}",
                    flush=True,
                )
    print("# done", file=sys.stderr)


if __name__ == "__main__":
    main()
