"""Paired distributional fidelity of SREMarathonTwin-v0 against the full simulator.

The same policies play the same seeds on both engines (the full env through
``NumericObservation`` + ``DiscreteRemedies``, the twin batched over the seeds), both with the
no-action counterfactual (net_score's degradation cost), and this compares, per app and policy:

- each policy's mean net_score and Marathon-Score, in the same policy order;
- alerts per rule and episode;
- the shares of alerts attributable to no fault and to several (the scorer's rule: fired inside a
  fault's window plus the grace, on an entity of its scope);
- per mechanism: detectability (share of faults with an attributable alert), time to the first
  such alert, and recovery time (from the fault's revert to its probe's first healthy tick);
- feature and mask marginals (each feature's mean, each action's availability, over all steps).

Policies: ``noop``, ``random`` (uniform over the masked actions, one generator per seed),
``numeric-rule`` and ``ceiling`` (``benchmarks/discrete_ceiling.py``'s, the ceiling ported to the
twin's records: it reads the hidden fault records on both engines).

Equivalence margins, stated before any run (``MARGINS``; a figure is inside when
|twin - full| <= max(absolute, relative x |full|)):

| figure | absolute | relative |
|---|---|---|
| mean score (the headline) | 1.5 points | 10 % |
| alerts per rule and episode (rules with >= 0.5 a full episode) | 0.5 | 15 % |
| share of alerts attributable to no fault, to several | 0.03 | - |
| detectability per mechanism (>= 5 faults) | 0.10 | - |
| time to first alert, recovery time, per mechanism (>= 5 faults) | 30 s | 15 % |
| feature mean, action availability (worst of all) | 0.02 | - |

Seeds 2000-2049 on Online Boutique and 2000-2019 on the others (validation seeds: calibration used
0-999). No-action runs keep every counter equal on all three apps (``benchmarks/twin_lockstep.py``);
acting policies can part where the engines' glue differs (``docs/twin.md``).

Run: python benchmarks/twin_fidelity.py [--apps A,B] [--seeds 2000-2049] [--policies noop,random]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.clock import EPOCH, TICK_S
from sre_gym.envs.marathon import INVOCATION_S
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.rules import norm
from sre_gym.scoring.scorer import score
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from discrete_ceiling import MIN_LEFT_S, REMEDY_OF, RETRY_S, Ceiling, NumericRule  # noqa: E402

POLICIES = ("noop", "random", "numeric-rule", "ceiling")
SEEDS = {"online-boutique": "2000-2049", "train-ticket": "2000-2019", "astronomy-shop": "2000-2019"}
# (absolute, relative) per figure kind: see the module docstring
MARGINS = {
    "score": (1.5, 0.10),
    "alerts": (0.5, 0.15),
    "share": (0.03, 0.0),
    "detect": (0.10, 0.0),
    "time": (30.0, 0.15),
    "marginal": (0.02, 0.0),
}
MIN_RULE_RATE = 0.5  # alerts per episode for a rule's own line
MIN_FAULTS = 5  # faults of a mechanism for its own lines
GRACE = ScoringConfig().attribution_grace_s


@dataclass
class Trace:
    """What one episode shows, the same on both engines."""

    alerts: list[tuple[str, float, frozenset]] = field(default_factory=list)  # rule, t, entities
    faults: list[dict] = field(default_factory=list)  # mechanism, start, end, scope, probe
    obs: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    paper: float = 0.0
    net: float = 0.0


# ---------------------------------------------------------------------------------- full side
def full_trace(app: str, seed: int, policy: str) -> Trace:
    numeric = NumericObservation(gym.make("SREMarathon-v0", app=app))
    env = DiscreteRemedies(numeric)
    rng = np.random.default_rng(seed)
    act = {"ceiling": lambda: Ceiling(env), "numeric-rule": lambda: NumericRule(env, numeric)}
    chooser = act[policy]() if policy in act else None
    obs, info = env.reset(seed=seed)
    tr = Trace()
    done = False
    while not done:
        tr.obs.append(obs)
        tr.masks.append(np.asarray(info["action_mask"], dtype=bool))
        if policy == "noop":
            a = 0
        elif policy == "random":
            a = int(rng.choice(np.flatnonzero(info["action_mask"])))
        else:
            a = chooser(obs, info)
        obs, _, term, trunc, info = env.step(a)
        done = term or trunc
    ev = env.unwrapped.evidence
    card = score(ev)
    tr.paper, tr.net = card["marathon_score"], card["net_score"]
    for e in ev.events:
        if e["type"] == "alert":
            tr.alerts.append((e["name"], float(e["t"]), frozenset(norm(x) for x in e["entities"])))
    t0 = float(ev.manifest["t0"])
    for e in ev.events:
        if e["type"] == "injection":
            scope = frozenset(norm(x) for x in [*e["affected"], *e["culprits"]])
            tr.faults.append(
                {
                    "mechanism": e["mechanism"],
                    "start": float(e["start"]),
                    "end": float(e["end"]),
                    "scope": scope,
                    "probe": ev.arrays["probe"][e["index"]],
                    "t0": t0,
                }
            )
    env.close()
    return tr


# ---------------------------------------------------------------------------------- twin side
class TwinCeiling:
    """``discrete_ceiling.Ceiling`` on one row of the twin: the same choice from the twin's
    records of the hidden faults (catalog fault, window, probe, commit) and its alert log."""

    def __init__(self, vec: Any, row: int, shim: Any) -> None:
        from sre_gym.twin.episode import catalog_faults
        from sre_gym.twin.tables import tables

        self.vec, self.row, self.env, self.acted = vec, row, shim, {}
        lay = vec.params.layout
        self.cat = catalog_faults(lay)
        self.tab = tables(lay)
        self.ents = [norm(x) for x in lay.entities]

    def __call__(self, obs: np.ndarray, mask: np.ndarray) -> int:
        from discrete_ceiling import _action

        s, e = self.vec.state, self.row
        now = float(s.ep.t_ep[e] + INVOCATION_S * s.agent.inv[e])
        al = s.alerts
        n = int(al.n[e])
        live = (al.fired[e, :n] <= now) & (al.resolved[e, :n] > now)
        firing = {self.ents[x] for x in al.ent[e, :n][live].ravel() if x >= 0}
        fs = s.faults
        k = int(s.ep.tick[e]) - 1
        order = sorted(
            (f for f in range(int(fs.n[e])) if fs.injected[e, f]), key=lambda f: fs.end[e, f]
        )
        for f in order:
            fault = self.cat[int(fs.cat[e, f])]
            start, end = float(fs.start[e, f]), float(fs.end[e, f])
            if not (start <= now <= end - MIN_LEFT_S) or fault.target.lower() not in firing:
                continue
            last = self.acted.get(f)
            healthy = k >= 0 and fs.probe[e, f, k] == 1
            if last is not None and (healthy or now - last < RETRY_S):
                continue
            ch = int(self.tab.faults.change[fs.cat[e, f]])
            flag = ch >= 0 and bool((self.tab.changes.flag[ch] >= 0).any())
            remedy = "flag_off" if flag else REMEDY_OF.get(fault.remedies[0], "")
            drift = "patch_config" in fault.remedies and fs.commit[e, f] < 0
            a = _action(self.env, "restore_env" if drift else remedy, fault.target)
            if a is not None and mask[a]:
                self.acted[f] = now
                return a
        return 0


def twin_traces(app: str, seeds: list[int], policy: str) -> list[Trace]:
    from sre_gym.twin.episode import catalog_faults

    n = len(seeds)
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=n, app=app)
    lay = vec.params.layout
    full_names = NumericObservation(gym.make("SREMarathon-v0", app=app))
    names = full_names.feature_names()
    full_names.close()
    services = lay.topo.names
    nodes = tuple(lay.nodes)
    shims = [
        SimpleNamespace(services=services, nodes=nodes, base=SimpleNamespace(invocation=0))
        for _ in range(n)
    ]
    numeric = SimpleNamespace(feature_names=lambda: names)
    if policy == "numeric-rule":
        choosers = [NumericRule(shims[i], numeric) for i in range(n)]
    elif policy == "ceiling":
        choosers = [TwinCeiling(vec, i, shims[i]) for i in range(n)]
    rngs = [np.random.default_rng(x) for x in seeds]
    obs, info = vec.reset(seed=list(seeds))
    trs = [Trace() for _ in range(n)]
    done = np.zeros(n, dtype=bool)
    while not done.all():
        acts = np.zeros(n, dtype=np.int64)
        for i in np.flatnonzero(~done):
            m = info["action_mask"][i].astype(bool)
            trs[i].obs.append(obs[i])
            trs[i].masks.append(m)
            shims[i].base.invocation = int(vec.state.agent.inv[i])
            if policy == "random":
                acts[i] = int(rngs[i].choice(np.flatnonzero(m)))
            elif policy == "numeric-rule":
                acts[i] = choosers[i](obs[i], {"action_mask": m})
            elif policy == "ceiling":
                acts[i] = choosers[i](obs[i], m)
        obs, _, term, trunc, info = vec.step(acts)
        ended = (term | trunc) & ~done
        for i in np.flatnonzero(ended):  # the episode's last state, before its autoreset
            _harvest(vec, i, trs[i], lay, catalog_faults(lay))
        done |= term | trunc
    return trs


def _harvest(vec: Any, i: int, tr: Trace, lay: Any, cat: list) -> None:
    from sre_gym.twin.rules import compile_pack

    s = vec.state
    cp = compile_pack(lay)
    ents = [norm(x) for x in lay.entities]
    tr.paper, tr.net = (float(x) for x in s.agent.score[i])
    al = s.alerts
    for j in range(int(al.n[i])):
        col = int(al.col[i, j])
        es = frozenset(ents[x] for x in al.ent[i, j] if x >= 0)
        tr.alerts.append((cp.rules[cp.col_rule[col]].name, float(al.fired[i, j]), es))
    from sre_gym.twin.incidents import scope_of

    fs = s.faults
    scope = scope_of(vec.params, s, np.array([i]))[0]
    for f in range(int(fs.n[i])):
        if not fs.injected[i, f]:
            continue
        tr.faults.append(
            {
                "mechanism": cat[int(fs.cat[i, f])].mechanism,
                "start": float(fs.start[i, f]),
                "end": float(fs.end[i, f]),
                "scope": frozenset(ents[u] for u in np.flatnonzero(scope[f])),
                "probe": fs.probe[i, f].copy(),
                "t0": float(EPOCH),
            }
        )


# ---------------------------------------------------------------------------------- figures
def figures(traces: list[Trace]) -> dict[tuple[str, str], tuple[str, float]]:
    """(section, name) -> (margin kind, value) over the episodes."""
    out: dict[tuple[str, str], tuple[str, float]] = {}
    n = len(traces)
    out[("score", "net_score")] = ("score", statistics.mean(t.net for t in traces))
    out[("score", "marathon_score")] = ("score", statistics.mean(t.paper for t in traces))
    per_rule = Counter(name for t in traces for name, _, _ in t.alerts)
    for rule, c in per_rule.items():
        out[("alerts per episode", rule)] = ("alerts", c / n)
    none = several = total = 0
    first: dict[str, list[float]] = {}
    found: dict[str, list[bool]] = {}
    recover: dict[str, list[float]] = {}
    for t in traces:
        for _, at, es in t.alerts:
            k = sum(
                f["start"] <= at <= f["end"] + GRACE and not f["scope"].isdisjoint(es)
                for f in t.faults
            )
            total += 1
            none += k == 0
            several += k > 1
        for f in t.faults:
            m = f["mechanism"]
            hits = [
                at
                for _, at, es in t.alerts
                if f["start"] <= at <= f["end"] + GRACE and not f["scope"].isdisjoint(es)
            ]
            found.setdefault(m, []).append(bool(hits))
            if hits:
                first.setdefault(m, []).append(min(hits) - f["start"])
            k_end = int(round((f["end"] - f["t0"]) / TICK_S))
            ok = np.flatnonzero(f["probe"][k_end:] == 1)
            if len(ok):
                recover.setdefault(m, []).append(float(ok[0] * TICK_S))
    out[("alert shares", "attributable to no fault")] = ("share", none / max(total, 1))
    out[("alert shares", "attributable to several")] = ("share", several / max(total, 1))
    for m, xs in found.items():
        out[("detectability", m)] = ("detect", float(np.mean(xs)))
        out[("faults", m)] = ("count", float(len(xs)))
    for m, xs in first.items():
        out[("time to first alert (s)", m)] = ("time", float(np.mean(xs)))
    for m, xs in recover.items():
        out[("recovery time (s)", m)] = ("time", float(np.mean(xs)))
    obs = np.array([o for t in traces for o in t.obs])
    masks = np.array([m for t in traces for m in t.masks])
    out[("marginals", "features")] = ("marginal-vec", obs.mean(axis=0))  # type: ignore[assignment]
    out[("marginals", "mask")] = ("marginal-vec", masks.mean(axis=0))  # type: ignore[assignment]
    return out


def compare(full: dict, twin: dict, n_faults: Counter) -> list[tuple[str, str, Any, Any, bool]]:
    rows = []
    for key, (kind, fv) in full.items():
        section, name = key
        tv = twin.get(key, (kind, 0.0 if kind != "marginal-vec" else None))[1]
        if kind == "count":
            continue
        if kind == "marginal-vec":
            d = float(np.abs(np.asarray(tv) - np.asarray(fv)).max())
            rows.append((section, f"{name}: worst |difference| of means", d, None, d <= 0.02))
            continue
        if kind == "alerts" and fv < MIN_RULE_RATE:
            continue
        mech = name if section in ("detectability", "time to first alert (s)") else None
        if section == "recovery time (s)":
            mech = name
        if mech is not None and n_faults[mech] < MIN_FAULTS:
            continue
        a, r = MARGINS[kind]
        ok = abs(tv - fv) <= max(a, r * abs(fv))
        rows.append((section, name, fv, tv, ok))
    for key, (kind, tv) in twin.items():  # a rule the full simulator never fired
        if kind == "alerts" and key not in full and tv >= MIN_RULE_RATE:
            rows.append((key[0], key[1], 0.0, tv, False))
    return rows


def seeds_of(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def run(app: str, seeds: list[int], policies: list[str], out=print) -> list[tuple]:
    """Both engines over ``seeds`` for each policy; prints and returns the comparison rows."""
    all_rows = []
    for policy in policies:
        t = time.perf_counter()
        full = [full_trace(app, s, policy) for s in seeds]
        t_full = time.perf_counter() - t
        t = time.perf_counter()
        twin = twin_traces(app, seeds, policy)
        t_twin = time.perf_counter() - t
        ff, tf = figures(full), figures(twin)
        n_faults = Counter(f["mechanism"] for tr in full for f in tr.faults)
        rows = compare(ff, tf, n_faults)
        bad = [r for r in rows if not r[4]]
        out(
            f"\n{app} / {policy}: {len(seeds)} seeds; full {t_full:.0f} s, twin {t_twin:.0f} s;"
            f" {len(rows) - len(bad)} of {len(rows)} figures inside their margins"
        )
        for section, name, fv, tv, ok in rows:
            if section in ("score", "alert shares", "marginals") or not ok:
                tv_s = "" if tv is None else f"{tv:10.3f}"
                out(f"  {'ok ' if ok else 'OUT'} {section:24s} {name:44s} {fv:10.3f} {tv_s}")
        all_rows += [(app, policy, *r) for r in rows]
    return all_rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--apps", default=",".join(SEEDS))
    ap.add_argument("--seeds", default=None, help="A-B (default: 2000-2049 OB, 2000-2019 others)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    a = ap.parse_args()
    print("figure: full simulator, then twin (same seeds and policies); OUT marks a figure")
    print("outside its margin (module docstring); only scores, shares, marginals and OUT shown")
    total = []
    for app in a.apps.split(","):
        total += run(app, seeds_of(a.seeds or SEEDS[app]), a.policies.split(","), print)
    inside = sum(r[6] for r in total)
    print(f"\nall: {inside} of {len(total)} figures inside their margins")


if __name__ == "__main__":
    main()
