"""What the numeric RL stack's discrete action design can earn, and what its observation supports,
under both scores (net_score, the default reward, and the paper's Marathon-Score).

``DiscreteRemedies`` gives a policy one action per invocation: no-op, or one of its remedies on one
service, with an automatic incident. This plays, on the same seeds:

- ``ceiling``: a privileged chooser (it reads the run's hidden ground truth, as the oracle does)
  that picks, each invocation, the discrete action that fits the most urgent active fault once an
  alert fires on its target (among those with time left for a repair to be credited): about what
  a perfect policy over this action space could score;
- ``numeric-rule``: a short hand-written rule over ``NumericObservation``'s features only (first
  evacuate a NotReady node that has pods of the services on it, then put back the env vars that
  differ from git of an alerting service; then act on the alerting service whose callees do not
  alert, else on the one with the most firing alerts, as an SRE follows the dependencies down:
  scale it up if it is scaled to zero, turn its changed flags off, delete its egress lockdown,
  roll it back if it changed in the last 20 minutes, raise its CPU limit if it is throttled, else
  restart it, or scale it up if no replica is ready), what the observation alone supports without
  learning;
- ``random``: a random masked policy, and ``noop``.

It also prints, per fault mechanism, how many of the ceiling run's faults were fully credited.

Run: python benchmarks/discrete_ceiling.py [--app APP] [--seeds 1000-1004] [--schedule marathon]
     [--auto-report] [--split heldout]
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.backends.base import alert_entities
from sre_gym.envs.marathon import INVOCATION_S
from sre_gym.scoring.scorer import score
from sre_gym.wrappers import REMEDIES, DiscreteRemedies, NumericObservation

# the fault's own remedy -> the discrete remedy that does the same (absent: no discrete action does)
REMEDY_OF = {
    "rollback": "rollback",
    "patch_config": "rollback",
    "restart": "restart",
    "delete_pod": "restart",
    "scale_up": "scale_up",
    "delete_pods_on_node": "evacuate",
    "delete_pods_in_zone": "delete_pods",
    "raise_cpu_limit": "raise_cpu",
    "delete_networkpolicy": "delete_netpol",
}
RETRY_S = 480  # act on a fault again if it is still unhealthy this long after the last action
# a repair is credited only once its probe held for the repair hold (60 s) before the fault's own
# revert: a fault ending sooner than this after the action cannot be earned, so the chooser spends
# the invocation on another
MIN_LEFT_S = 90


def _action(env: DiscreteRemedies, remedy: str, target: str) -> int | None:
    """The action of ``remedy`` on a service (or of ``evacuate`` on a node); None if none."""
    n = len(REMEDIES) * len(env.services)
    if remedy == "evacuate":
        return 1 + n + env.nodes.index(target) if target in env.nodes else None
    if remedy not in REMEDIES or target not in env.services:
        return None
    return 1 + REMEDIES.index(remedy) * len(env.services) + env.services.index(target)


class Ceiling:
    """Privileged: the discrete action for the most urgent fault whose target has a firing alert
    and that has time left for a credited repair."""

    def __init__(self, env: DiscreteRemedies) -> None:
        self.env, self.acted = env, {}

    def __call__(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        env, base = self.env, self.env.base
        b = base.backend
        now = b.episode_start + INVOCATION_S * base.invocation
        firing = {
            e.lower()
            for a in base.alerts_view()
            if a["state"] == "firing"
            for e in alert_entities(a["labels"])
        }
        k = b.cluster.tick - 1
        for inj in sorted(b.ground_truth()["injections"], key=lambda i: i.end):
            f = inj.fault
            if not (inj.start <= now <= inj.end - MIN_LEFT_S) or f.target.lower() not in firing:
                continue
            last = self.acted.get(inj.index)
            healthy = k >= 0 and b.injector.probe[inj.index, k] == 1
            if last is not None and (healthy or now - last < RETRY_S):
                continue
            flag = inj.detail.get("change") is not None and inj.detail["change"].flags
            remedy = "flag_off" if flag else REMEDY_OF.get(f.remedies[0], "")
            # a setting edited by hand is put back as git has it (the fault's own patch_config)
            drift = "patch_config" in f.remedies and inj.commit is None
            a = _action(env, "restore_env" if drift else remedy, f.target)
            if a is not None and info["action_mask"][a]:
                self.acted[inj.index] = now
                return a
        return 0


class NumericRule:
    """A rule over the numeric features only (no ground truth, no text)."""

    def __init__(self, env: DiscreteRemedies, numeric: NumericObservation) -> None:
        self.env = env
        names = numeric.feature_names()
        self.col = {n: i for i, n in enumerate(names)}
        self.acted: dict[str, int] = {}

    def __call__(self, obs: np.ndarray, info: dict[str, Any]) -> int:
        env, col = self.env, self.col
        inv = env.base.invocation

        def f(svc: str, name: str) -> float:
            return float(obs[col[f"{svc}.{name}"]])

        # a lost node first: its pods are stranded until they are moved, whatever alerts say
        for node in env.nodes:
            a = _action(env, "evacuate", node)
            if f(node, "ready") == 0 and a is not None and info["action_mask"][a]:
                return a

        # an alerting service whose env differs from git was edited by hand: put it back first
        for svc in env.services:
            a = _action(env, "restore_env", svc)
            if f(svc, "firing_alerts") > 0 and f(svc, "env_drift") > 0 and info["action_mask"][a]:
                self.acted[svc] = inv
                return a
        # the deepest alerting services first: alerts on a service whose callees alert too are
        # often its callees' trouble
        ranked = sorted(
            env.services,
            key=lambda s: (f(s, "firing_callees") > 0, -f(s, "firing_alerts")),
        )
        for svc in ranked[:3]:
            if f(svc, "firing_alerts") <= 0 or inv - self.acted.get(svc, -99) < 4:
                continue
            if f(svc, "ready") == 0 and f(svc, "desired") == 0:
                remedy = "scale_up"
            elif f(svc, "flags_changed") > 0:
                remedy = "flag_off"
            elif f(svc, "egress_policies") > 0:
                remedy = "delete_netpol"
            elif f(svc, "revision_age") < np.log1p(1200) / 10:
                remedy = "rollback"  # (a CPU regression throttles too: the change comes first)
            elif f(svc, "cpu_throttle") > 0.5:
                remedy = "raise_cpu"
            elif f(svc, "ready") == 0 and f(svc, "restarts") == 0 and f(svc, "waiting") == 0:
                remedy = "scale_up"
            else:
                remedy = "restart"
            a = _action(env, remedy, svc)
            if a is not None and info["action_mask"][a]:
                self.acted[svc] = inv
                return a
        return 0


def play(
    app: str,
    seed: int,
    policy: str,
    schedule: str,
    auto_report: bool = False,
    split: str | None = None,
) -> tuple[float, float, Counter, Counter]:
    """(Marathon-Score, net_score, faults and handled faults per mechanism) of one episode."""
    sched = schedule if split is None else {"profile": schedule, "split": split}
    numeric = NumericObservation(gym.make("SREMarathon-v0", app=app, schedule=sched))
    env = DiscreteRemedies(numeric, auto_report=auto_report)
    rng = np.random.default_rng(seed)
    chooser = {"ceiling": lambda: Ceiling(env), "numeric-rule": lambda: NumericRule(env, numeric)}
    act = chooser[policy]() if policy in chooser else None
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        if policy == "noop":
            a = 0
        elif policy == "random":
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        else:
            a = act(obs, info)
        obs, _, term, trunc, info = env.step(a)
        done = term or trunc
    card = score(env.unwrapped.evidence, per_fault=True)
    faults, handled = Counter(), Counter()
    for fc in card["faults"]:
        faults[fc["mechanism"]] += 1
        handled[fc["mechanism"]] += fc["outcome"] == "handled"
    env.close()
    return card["marathon_score"], card["net_score"], faults, handled


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--app", default="online-boutique")
    ap.add_argument("--seeds", default="1000-1004", help="a range A-B (inclusive)")
    ap.add_argument("--schedule", default="marathon")
    ap.add_argument(
        "--split", default=None, help="train, heldout or all: the fault split part to draw from"
    )
    ap.add_argument(
        "--auto-report",
        action="store_true",
        help="DiscreteRemedies(auto_report=True): every service with firing alerts gets its incident",
    )
    ap.add_argument(
        "--policies",
        default="ceiling,numeric-rule,random,noop",
        help="comma-separated, of: ceiling, numeric-rule, random, noop",
    )
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split("-"))
    seeds = list(range(lo, hi + 1))
    print(
        f"app={a.app} schedule={a.schedule} split={a.split or 'all'} seeds={a.seeds} "
        f"auto_report={a.auto_report} "
        "(mean net_score and Marathon-Score; net per seed)"
    )
    by_mech = None
    for policy in a.policies.split(","):
        runs = [play(a.app, s, policy, a.schedule, a.auto_report, a.split) for s in seeds]
        paper, net = [r[0] for r in runs], [r[1] for r in runs]
        per = ", ".join(f"{x:.1f}" for x in net)
        print(
            f"{policy:14s} net {statistics.mean(net):7.2f}  paper {statistics.mean(paper):6.2f}"
            f"  (net {per})",
            flush=True,
        )
        if policy == "ceiling":
            by_mech = (sum((r[2] for r in runs), Counter()), sum((r[3] for r in runs), Counter()))
    if by_mech is not None:
        faults, handled = by_mech
        print("ceiling run, faults handled / injected per mechanism:")
        for m in sorted(faults, key=lambda m: (-faults[m], m)):
            print(f"  {m:22s} {handled[m]:3d} / {faults[m]:3d}")


if __name__ == "__main__":
    main()
