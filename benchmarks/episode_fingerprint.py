"""Bit-for-bit fingerprints of whole episodes, to prove a refactor changes no run.

For each (app, seed, agent, schedule profile) it plays one episode and hashes, in order, every
observation (all keys, the exact text), every reward (its float64 bytes), the final scorecard and
the evidence (events and arrays, with the per-fault scorecard). One line per episode; two trees that
print the same lines ran the same episodes. Agents get the observation and ``agent_info(info)`` as
``sre-gym run`` gives them.

``score`` is the Marathon-Score (exact float), and the episodes pay the paper's rewards
(``reward="paper"``), so these lines compare with trees from before net_score existed;
``net_score`` is printed beside it. The scorecard hash covers both scores.

Run: python benchmarks/episode_fingerprint.py [--out FILE] [--quick]
Compare two trees: run it in each (or with ``PYTHONPATH=<tree>``) and ``diff`` the outputs
(``--paper`` leaves ``net_score`` and the scorecard hash out, to compare with such a tree).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import time

import numpy as np

# (app, seed, agent, schedule profile): three apps, several seeds, every baseline that acts
CASES = [
    ("online-boutique", 0, "oracle", "short"),
    ("online-boutique", 1, "runbook", "short"),
    ("online-boutique", 2, "keep", "short"),
    ("online-boutique", 3, "random", "single"),
    ("train-ticket", 0, "oracle", "short"),
    ("train-ticket", 4, "runbook", "single"),
    ("astronomy-shop", 0, "oracle", "short"),
    ("astronomy-shop", 5, "keep", "short"),
    ("astronomy-shop", 6, "noop", "single"),
    ("online-boutique", 7, "oracle", "marathon"),
    ("astronomy-shop", 8, "runbook", "marathon"),
    ("train-ticket", 9, "keep", "marathon"),
    ("astronomy-shop", 10, "oracle", "marathon"),
    ("astronomy-shop", 11, "random", "marathon"),
    ("online-boutique", 12, "runbook", "marathon"),
]
QUICK = CASES[:3] + [CASES[6]]
# the numeric stack (NumericObservation + DiscreteRemedies) under a seeded random masked policy:
# (app, seed, schedule profile)
NUMERIC_CASES = [
    ("online-boutique", 20, "marathon"),
    ("train-ticket", 21, "short"),
    ("astronomy-shop", 22, "short"),
]


def _h(h: hashlib._Hash, x: object) -> None:
    h.update(json.dumps(x, sort_keys=True, default=str).encode())


def _evidence_hash(ev) -> str:
    """Events and arrays of a run's evidence, in order."""
    h = hashlib.sha256()
    _h(h, ev.events)
    for k in sorted(ev.arrays):
        a = np.ascontiguousarray(ev.arrays[k])
        h.update(k.encode() + str(a.dtype).encode() + str(a.shape).encode() + a.tobytes())
    return h.hexdigest()[:16]


def _json_hash(x: object) -> str:
    return hashlib.sha256(json.dumps(x, sort_keys=True).encode()).hexdigest()[:16]


NET_FAULT_KEYS = ("net_incident", "grouping", "net_credit")


def paper_view(card: dict) -> dict:
    """A scorecard as a tree from before net_score wrote it: no net fields, the paper's version."""
    from sre_gym.scoring.config import ScoringConfig

    out = {k: v for k, v in card.items() if k not in ("net_score", "net")}
    if "scoring_version" in out:
        out["scoring_version"] = ScoringConfig().paper_version
    if "faults" in out:
        out["faults"] = [
            {k: v for k, v in f.items() if k not in NET_FAULT_KEYS} for f in out["faults"]
        ]
    return out


def fingerprint(app: str, seed: int, agent_name: str, sched: str) -> tuple[dict, list]:
    import gymnasium as gym

    import sre_gym  # noqa: F401
    from sre_gym.agents import make_agent
    from sre_gym.envs.marathon import agent_info

    # the paper's rewards, so that the reward hashes compare with trees from before net_score
    env = gym.make("SREMarathon-v0", app=app, schedule=sched, reward="paper")
    agent = make_agent(agent_name, env=env.unwrapped, seed=seed)
    h_obs, h_rew = hashlib.sha256(), hashlib.sha256()
    obs, info = env.reset(seed=seed)
    done = False
    steps = 0
    while not done:
        for k in sorted(obs):
            v = obs[k]
            _h(h_obs, [k, v.tolist() if isinstance(v, np.ndarray) else v])
        obs, reward, done, _, info = env.step(agent(obs, agent_info(info)))
        h_rew.update(struct.pack("<d", reward))
        steps += 1
    for k in sorted(obs):
        v = obs[k]
        _h(h_obs, [k, v.tolist() if isinstance(v, np.ndarray) else v])
    ev = env.unwrapped.evidence
    from sre_gym.scoring.scorer import score

    card = info["scorecard"]
    mechs = sorted({(e["delivery"], e["mechanism"]) for e in ev.events if e["type"] == "injection"})
    per_fault = score(ev, per_fault=True)
    env.close()
    return {
        "case": f"{app}/{seed}/{agent_name}/{sched}",
        "steps": steps,
        "score": card["marathon_score"],
        "net_score": card.get("net_score"),
        "obs": h_obs.hexdigest()[:16],
        "rewards": h_rew.hexdigest()[:16],
        "scorecard": _json_hash(card),
        "per_fault": _json_hash(per_fault),
        "per_fault_paper": _json_hash(paper_view(per_fault)),
        "evidence": _evidence_hash(ev),
        "mechanisms": len(mechs),
    }, mechs


def numeric_fingerprint(app: str, seed: int, sched: str) -> dict:
    """Like :func:`fingerprint`, for the numeric stack: every observation vector, action mask and
    reward, and the evidence (so the no-action counterfactual too)."""
    import gymnasium as gym

    import sre_gym  # noqa: F401
    from sre_gym.wrappers import DiscreteRemedies, NumericObservation

    env = DiscreteRemedies(
        NumericObservation(gym.make("SREMarathon-v0", app=app, schedule=sched, reward="paper"))
    )
    rng = np.random.default_rng(seed)
    h_obs, h_rew = hashlib.sha256(), hashlib.sha256()
    obs, info = env.reset(seed=seed)
    done, steps = False, 0
    while not done:
        h_obs.update(obs.tobytes() + info["action_mask"].tobytes())
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        h_rew.update(struct.pack("<d", reward))
        done, steps = term or trunc, steps + 1
    h_obs.update(obs.tobytes() + info["action_mask"].tobytes())
    ev = env.unwrapped.evidence
    card = info["scorecard"]
    env.close()
    return {
        "case": f"{app}/{seed}/numeric-random/{sched}",
        "steps": steps,
        "score": card["marathon_score"],
        "net_score": card.get("net_score"),
        "obs": h_obs.hexdigest()[:16],
        "rewards": h_rew.hexdigest()[:16],
        "scorecard": _json_hash(card),
        "evidence": _evidence_hash(ev),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="also write the lines to this file")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="four short episodes and one numeric-stack marathon only",
    )
    ap.add_argument(
        "--paper",
        action="store_true",
        help="leave net_score and the scorecard hash out (to diff with a tree from before it)",
    )
    a = ap.parse_args()

    def shown(fp: dict) -> str:
        if a.paper:
            fp = {k: v for k, v in fp.items() if k not in ("net_score", "scorecard", "per_fault")}
            if "per_fault_paper" in fp:
                fp["per_fault"] = fp.pop("per_fault_paper")
        else:
            fp.pop("per_fault_paper", None)
        return json.dumps(fp, sort_keys=True)

    lines = []
    covered: set = set()
    t0 = time.perf_counter()
    for case in QUICK if a.quick else CASES:
        fp, mechs = fingerprint(*case)
        covered.update(mechs)
        line = shown(fp)
        print(line, flush=True)
        lines.append(line)
    for case in NUMERIC_CASES[:1] if a.quick else NUMERIC_CASES:
        line = shown(numeric_fingerprint(*case))
        print(line, flush=True)
        lines.append(line)
    print(f"# {len(lines)} episodes in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(f"# {len(covered)} (delivery, mechanism) pairs injected: {covered}", file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
