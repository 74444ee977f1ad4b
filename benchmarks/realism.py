"""How open, slow and honest the simulated world is, measured from runs of the baselines.

For each app over seeds 0-4 (``--seeds``) it prints:

1. change stream: the share of the orchestrator's deploys in the injection window that deliver a
   fault (target 10-20 %; reverts and agent patches are not deploys of the stream);
2. deploy classifiers on what ``list_changes`` shows, with the majority-class rate beside them (each
   must stay within 15 points of it):
   - ``unseen-title``: a title not seen earlier in this episode is faulty;
   - ``memorised-titles``: titles of benign deploys in the other seeds are benign, the rest faulty;
   and two more that probe the known limits (docs/scoring.md): the same memoriser on titles with
   ticket ids, brackets and punctuation stripped (``memorised-normalised``), and on diffs
   (``memorised-diffs``: a fixed catalog repeats its diffs);
3. timing: the median seconds from the oracle's repairing intervention (the last one citing the
   fault's incident before the recovery the scorer credits) to that recovery (target >= 45 s; Train
   Ticket >= 90 s);
4. open world, in a run with no agent: the share of alerts attributable to no fault (the scorer's
   rule: fired inside a fault's window plus the grace, on its scope; target >= 20 %), and the share
   of abnormal objects with no fault behind them. An abnormal object, sampled at every invocation,
   is a NetworkPolicy, a node that is not Ready, a deployment with fewer available replicas than it
   wants (or none wanted), a pod that is not Running and ready or whose restart count grew since the
   last sample, or a deployment whose current revision has no change cause; NetworkPolicies and
   revisions count while they are new (created in the last 10 minutes: the namespace's own
   policies are there from the start). It has a fault behind it if its workload or node is in the
   scope of a fault active then (or ended in the last 2 minutes), or it is one of the fault's
   artifacts;
5. the held-out fault split (``orchestrator/split.py``): diff memorisers trained on the deploys
   of no-action runs drawn from the ``train`` part and tested on runs drawn from the ``heldout``
   part, against the same memorisers tested on other ``train`` runs:
   ``faulty-diffs`` (a deploy is faulty when its diff was a faulty deploy's in training: what
   memorising the catalog buys) and ``benign-diffs`` (faulty when its diff was never a benign
   deploy's in training: the change corpus is shared, so this one the split cannot stop);
6. net_score and the Marathon-Score of keep, runbook, random and noop (mean, min-max over the
   seeds).

Run: python benchmarks/realism.py [--apps A ...] [--seeds 0-4] [--agents keep,runbook,random,noop]
     [--no-split]
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.agents import make_agent

APPS = ("online-boutique", "train-ticket", "astronomy-shop")
TARGETS = {"online-boutique": 45.0, "train-ticket": 90.0, "astronomy-shop": 45.0}
TAIL_S = 120  # an object still counts as a fault's this long after its revert
NEW_S = 600  # policies and revisions count as abnormal while this new


def _ts(iso: str | None) -> float:
    import datetime as dt

    if not iso:
        return 0.0
    return dt.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()


def seeds_of(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def _play(
    app: str,
    seed: int,
    agent: str,
    probe: Callable[[Any], None] | None = None,
    split: str | None = None,
):
    """One episode of a baseline; ``probe(env)`` runs before every step; ``split`` draws the faults
    from one part of the held-out split. Returns the env."""
    sched = None if split is None else {"profile": "marathon", "split": split}
    env = gym.make("SREMarathon-v0", app=app, schedule=sched)
    policy = make_agent(agent, env=env, seed=seed)
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        if probe is not None:
            probe(env.unwrapped)
        obs, _, done, _, info = env.step(policy(obs, info))
    return env.unwrapped


def _scope(f: dict) -> set[str]:
    return {s.lower() for s in (*f["affected"], *f["culprits"], f["target"])}


# ------------------------------------------------------------------------------ change stream
def deploys(env) -> list[dict]:
    """The orchestrator's deploys in the injection window, each with ``faulty`` and what
    ``list_changes`` shows of it (title, diff)."""
    ev = env.evidence
    man = ev.manifest
    lo, hi = float(man["episode_start"]), float(man["inject_end"])
    faulty = {e["commit"] for e in ev.events if e["type"] == "injection" and e.get("commit")}
    benign = {e["sha"] for e in ev.events if e["type"] == "deploy"}
    out = []
    for c in env.backend.changes():
        if not lo <= float(c["t"]) < hi or (c["sha"] not in faulty and c["sha"] not in benign):
            continue
        out.append(
            {
                "t": float(c["t"]),
                "title": c["title"],
                "diff": c["diff"],
                "faulty": c["sha"] in faulty,
            }
        )
    return sorted(out, key=lambda d: (d["t"], d["title"]))


_TICKET = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b|#\d+|\[[^\]]*\]|\([^)]*\)")


def normalise(title: str) -> str:
    t = _TICKET.sub(" ", title).lower()
    t = re.sub(r"^[a-z]+(\([^)]*\))?!?:\s*", "", t.strip())
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", t).split())


def classify(runs: dict[int, list[dict]]) -> dict[str, float]:
    """Accuracy of each classifier over every deploy of every seed (leave-one-seed-out)."""
    hits = {
        k: 0
        for k in ("unseen-title", "memorised-titles", "memorised-normalised", "memorised-diffs")
    }
    n = faulty = 0
    for s, ds in runs.items():
        others = [d for t, dd in runs.items() if t != s for d in dd if not d["faulty"]]
        titles = {d["title"] for d in others}
        norms = {normalise(d["title"]) for d in others}
        diffs = {d["diff"] for d in others}
        seen: set[str] = set()
        for d in ds:  # in time order
            title = d["title"]
            n += 1
            faulty += d["faulty"]
            hits["unseen-title"] += (title not in seen) == d["faulty"]
            seen.add(title)
            hits["memorised-titles"] += (title not in titles) == d["faulty"]
            hits["memorised-normalised"] += (normalise(title) not in norms) == d["faulty"]
            hits["memorised-diffs"] += (d["diff"] not in diffs) == d["faulty"]
    out = {k: v / max(n, 1) for k, v in hits.items()}
    out["size"] = _best_threshold(
        [(_lines(d["diff"]), d["faulty"]) for ds in runs.values() for d in ds]
    )
    out["majority"] = max(faulty, n - faulty) / max(n, 1)
    out["n"] = n
    out["faulty_share"] = faulty / max(n, 1)
    return out


def _lines(diff: str) -> int:
    return sum(
        1 for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


def _best_threshold(xs: list[tuple[int, bool]]) -> float:
    """Accuracy of the best single size threshold (either direction): an upper bound."""
    if not xs:
        return 0.0
    best = 0
    for cut in sorted({x for x, _ in xs}):
        big = sum((x >= cut) == f for x, f in xs)
        best = max(best, big, len(xs) - big)
    return best / len(xs)


# ------------------------------------------------------------------------------ open world
class Objects:
    """Samples abnormal objects at every invocation of a run with no agent."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, str, str]] = []  # (t, kind/name, workload or node)
        self.restarts: dict[str, int] = {}

    def __call__(self, env) -> None:
        b = env.backend
        t = env.clock
        for p in b.k8s_get("networkpolicies", None):
            if t - _ts(p.get("created")) > NEW_S:
                continue
            sel = (p.get("pod_selector") or {}).get("app") or ""
            self.samples.append((t, f"networkpolicies/{p['name']}", sel))
        for nd in b.k8s_get("nodes", None):
            if nd.get("status") != "Ready":
                self.samples.append((t, f"nodes/{nd['name']}", nd["name"]))
        for d in b.k8s_get("deployments", None):
            have, _, want = str(d.get("ready", "0/0")).partition("/")
            if want == "0" or int(have) < int(want):
                self.samples.append((t, f"deployments/{d['name']}", d["name"]))
            desc = b.k8s_describe("deployments", d["name"])
            hist = desc.get("revision_history") or []
            fresh = hist and t - _ts(hist[-1].get("created")) <= NEW_S
            if fresh and not hist[-1].get("change_cause"):
                self.samples.append((t, f"revisions/{d['name']}@{hist[-1]['revision']}", d["name"]))
        for p in b.k8s_get("pods", None):
            grew = p["restarts"] > self.restarts.get(p["name"], 0)
            self.restarts[p["name"]] = p["restarts"]
            if p["status"] == "Terminating":
                continue
            if grew or p["status"] != "Running" or not str(p["ready"]).startswith("1"):
                self.samples.append((t, f"pods/{p['name']}", p.get("deployment") or ""))

    def unexplained(self, injections: list[dict]) -> tuple[int, int]:
        bad = 0
        for t, obj, who in self.samples:
            behind = any(
                f["start"] <= t < f["end"] + TAIL_S
                and (
                    who.lower() in _scope(f)
                    or obj.split("/", 1)[1].lower() in f["artifacts"]
                    or obj.lower() in f["artifacts"]
                )
                for f in injections
            )
            bad += not behind
        return bad, len(self.samples)


def alert_shares(env, grace: float) -> tuple[int, int]:
    ev = env.evidence
    man = ev.manifest
    inj = [e for e in ev.events if e["type"] == "injection"]
    alerts = [
        e
        for e in ev.events
        if e["type"] == "alert"
        and float(man["episode_start"]) <= e["t"] <= float(man["episode_end"])
    ]
    none = sum(
        1
        for a in alerts
        if not any(
            f["start"] <= a["t"] <= f["end"] + grace
            and _scope(f) & {x.lower() for x in a["entities"]}
            for f in inj
        )
    )
    return none, len(alerts)


# ------------------------------------------------------------------------------ timing
def recovery_delays(env) -> list[float]:
    from sre_gym.scoring.scorer import score

    card = score(env.evidence, per_fault=True, config=env.scoring)
    out = []
    for f in card["faults"]:
        if f["outcome"] != "handled" or f["recovered_at"] is None:
            continue
        # the repairing intervention cites the fault's own incident; others in its scope that
        # happen to land in between (for neighbouring faults) did not repair it
        before = [
            x["t"]
            for x in f["interventions"]
            if x["t"] < f["recovered_at"] and x["incident_id"] == f["incident"]
        ]
        if before:
            out.append(f["recovered_at"] - max(before))
    return out


def rollout_times(env) -> dict[str, list[float]]:
    """Seconds from each benign code deploy to its revision's pods being ready, by runtime (JVM or
    not), read off the simulator's pods (ground truth, for this benchmark only)."""
    from sre_gym.sim.pods import ready_at

    cl = env.backend.cluster
    p = cl.pods
    benign = {e["sha"] for e in env.evidence.events if e["type"] == "deploy"}
    out: dict[str, list[float]] = {"jvm": [], "other": []}
    for rec in cl.changes:
        if rec.sha not in benign or rec.kind != "code":
            continue
        d = cl.world.deployment(rec.service)
        rows = [r for r in range(p.n) if p.dep[r] == d.index and p.rev[r] == rec.revision]
        rows = [r for r in rows if p.created[r] >= rec.time and np.isfinite(p.started[r])]
        if not rows:
            continue
        i = d.index
        at = ready_at(
            p.started[rows],
            cl.dep_boot[[i] * len(rows)],
            cl.dep_probed[[i] * len(rows)],
            cl.dep_probe_delay[[i] * len(rows)],
            cl.dep_probe_period[[i] * len(rows)],
        )
        lang = cl.topo.app.service(rec.service).language
        out["jvm" if lang in ("Java", "Kotlin") else "other"].append(float(at.max() - rec.time))
    return out


def split_memorisers(app: str, seeds: list[int]) -> dict[str, float]:
    """Diff memorisers across the held-out split (item 5 of the module docstring). Training:
    the deploys of no-action runs of ``seeds`` on the train part; tests: the same seeds + 1000 on
    the train part (the same part, other worlds) and on the held-out part."""
    train = [d for s in seeds for d in deploys(_play(app, s, "noop", split="train"))]
    faulty = {d["diff"] for d in train if d["faulty"]}
    benign = {d["diff"] for d in train if not d["faulty"]}
    out: dict[str, float] = {}
    for part in ("train", "heldout"):
        test = [d for s in seeds for d in deploys(_play(app, 1000 + s, "noop", split=part))]
        n = max(len(test), 1)
        out[f"faulty-diffs/{part}"] = sum((d["diff"] in faulty) == d["faulty"] for d in test) / n
        out[f"benign-diffs/{part}"] = (
            sum((d["diff"] not in benign) == d["faulty"] for d in test) / n
        )
        n_faulty = sum(d["faulty"] for d in test)
        out[f"majority/{part}"] = max(n_faulty, len(test) - n_faulty) / n
        out[f"seen-faulty/{part}"] = sum(d["faulty"] and d["diff"] in faulty for d in test) / max(
            n_faulty, 1
        )
    return out


def _fmt_scores(xs: list[float]) -> str:
    return f"{statistics.mean(xs):6.1f} [{min(xs):.1f}-{max(xs):.1f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--apps", nargs="*", default=list(APPS))
    ap.add_argument("--seeds", default="0-4")
    ap.add_argument("--agents", default="keep,runbook,random,noop")
    ap.add_argument("--no-split", action="store_true", help="skip the held-out split memorisers")
    a = ap.parse_args()
    seeds = seeds_of(a.seeds)
    agents = [x for x in a.agents.split(",") if x]
    for app in a.apps:
        t0 = time.perf_counter()
        runs: dict[int, list[dict]] = {}
        objs_bad = objs_all = al_none = al_all = 0
        delays: list[float] = []
        rollouts: dict[str, list[float]] = {"jvm": [], "other": []}
        scores: dict[str, list[float]] = {x: [] for x in agents}
        nets: dict[str, list[float]] = {x: [] for x in agents}
        for s in seeds:
            objects = Objects()
            env = _play(app, s, "noop", objects)
            if "noop" in scores:
                scores["noop"].append(env.scorecard["marathon_score"])
                nets["noop"].append(env.scorecard["net_score"])
            runs[s] = deploys(env)
            for k, v in rollout_times(env).items():
                rollouts[k] += v
            ev_inj = [e for e in env.evidence.events if e["type"] == "injection"]
            b, n = objects.unexplained(ev_inj)
            objs_bad, objs_all = objs_bad + b, objs_all + n
            b, n = alert_shares(env, env.scoring.attribution_grace_s)
            al_none, al_all = al_none + b, al_all + n
            delays += recovery_delays(_play(app, s, "oracle"))
            for ag in agents:
                if ag != "noop":
                    card = _play(app, s, ag).scorecard
                    scores[ag].append(card["marathon_score"])
                    nets[ag].append(card["net_score"])
        c = classify(runs)
        print(f"== {app}  seeds {a.seeds}  ({time.perf_counter() - t0:.0f} s)")
        print(
            f"  change stream   faulty share of injection-window deploys {c['faulty_share']:.3f}"
            f" ({c['n']} deploys; target 0.10-0.20)"
        )
        print(
            f"  classifiers     majority-class {c['majority']:.3f}   unseen-title {c['unseen-title']:.3f}"
            f"   memorised-titles {c['memorised-titles']:.3f}   (limits: memorised-normalised"
            f" {c['memorised-normalised']:.3f}, memorised-diffs {c['memorised-diffs']:.3f},"
            f" best size threshold {c['size']:.3f})"
        )
        med = statistics.median(delays) if delays else float("nan")
        print(
            f"  timing          oracle intervention -> probe recovery: median {med:.0f} s over"
            f" {len(delays)} repairs (target >= {TARGETS.get(app, 45):.0f} s)"
        )
        ro = "   ".join(
            f"{k} {statistics.median(v):.0f} s (n={len(v)})" for k, v in rollouts.items() if v
        )
        print(f"  rollouts        benign code deploy -> new pods ready, median: {ro}")
        print(
            f"  open world      alerts with no fault behind them {al_none / max(al_all, 1):.3f}"
            f" ({al_none}/{al_all}; target >= 0.20); abnormal objects {objs_bad / max(objs_all, 1):.3f}"
            f" ({objs_bad}/{objs_all})"
        )
        if not a.no_split:
            m = split_memorisers(app, seeds)
            print(
                "  held-out split  train -> train / train -> heldout: faulty-diffs"
                f" {m['faulty-diffs/train']:.3f} / {m['faulty-diffs/heldout']:.3f}"
                f" (faulty deploys whose diff was seen in training {m['seen-faulty/train']:.3f} /"
                f" {m['seen-faulty/heldout']:.3f}), benign-diffs {m['benign-diffs/train']:.3f} /"
                f" {m['benign-diffs/heldout']:.3f}, majority-class {m['majority/train']:.3f} /"
                f" {m['majority/heldout']:.3f}"
            )
        print("  net_score       " + "   ".join(f"{ag} {_fmt_scores(v)}" for ag, v in nets.items()))
        print(
            "  Marathon-Score  " + "   ".join(f"{ag} {_fmt_scores(v)}" for ag, v in scores.items())
        )


if __name__ == "__main__":
    main()
