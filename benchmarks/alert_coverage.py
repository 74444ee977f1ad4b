"""Ambiguity and coverage of the alert rule pack on the simulator, measured from evidence.

1. Multi-fault share: over seeds 0..N-1 of each app's real schedule (noise on), the share of the
   alerts fired during the scored episode that are *compatible with more than one fault*: attributable
   to at least two injected faults under the scorer's rule (the alert starts firing inside the
   fault's window plus the attribution grace, on an entity in the fault's affected scope). The paper
   reports 39 % / 76 % / 47 % (Online Boutique / Train Ticket / Astronomy Shop).
2. Coverage: every catalog fault injected alone (noise off) for the shortest scheduled duration
   (4 minutes); the share that fires at least one attributable alert, and the list of the rest
   (below every threshold of the pack: the paper's limitation K).

Run: python benchmarks/alert_coverage.py [--apps A ...] [--seeds 20] [--share-only | --coverage-only]
     [--sample N]   (coverage on every N-th catalog fault only)
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from sre_gym.backends.sim import SimBackend
from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.orchestrator.schedule import Schedule, ScheduledFault
from sre_gym.scoring.config import ScoringConfig
from sre_gym.sim.faults.noise import noise_off

APPS = ("online-boutique", "train-ticket", "astronomy-shop")
PAPER = {"online-boutique": 0.39, "train-ticket": 0.76, "astronomy-shop": 0.47}
GRACE_S = ScoringConfig().attribution_grace_s
COVER_START_S, COVER_DUR_S = 120, 240


def compatible(alert: dict, injections: list[dict], grace: float = GRACE_S) -> int:
    """How many injected faults an alert event is attributable to (the scorer's rule)."""
    ents = {x.lower() for x in alert["entities"]}
    return sum(
        1
        for f in injections
        if f["start"] <= alert["t"] <= f["end"] + grace
        and ents & {s.lower() for s in (*f["affected"], *f["culprits"])}
    )


def episode_alerts(app: str, seed: int) -> tuple[list[dict], list[dict], SimBackend]:
    """(alerts fired during the scored episode, injections) of one full marathon (noise on)."""
    b = SimBackend(app, seed)
    b.advance_to(b.episode_end)
    ev = b.drain_evidence()
    inj = [e for e in ev if e["type"] == "injection"]
    alerts = [e for e in ev if e["type"] == "alert" and b.episode_start <= e["t"] <= b.episode_end]
    return alerts, inj, b


def multi_share(app: str, seeds: range) -> dict:
    n = multi = zero = 0
    by_rule: Counter = Counter()
    by_rule_multi: Counter = Counter()
    for s in seeds:
        alerts, inj, _ = episode_alerts(app, s)
        for a in alerts:
            k = compatible(a, inj)
            n += 1
            multi += k >= 2
            zero += k == 0
            by_rule[a["name"]] += 1
            by_rule_multi[a["name"]] += k >= 2
    return {
        "alerts": n,
        "per_run": n / max(len(seeds), 1),
        "multi": multi / max(n, 1),
        "zero": zero / max(n, 1),
        "by_rule": {r: (c, by_rule_multi[r] / c) for r, c in by_rule.most_common()},
    }


def single_fault(app: str, fault_id: str, seed: int = 0) -> list[str]:
    """Names of the alerts attributable to ``fault_id`` injected alone (noise off)."""
    sf = ScheduledFault(0, fault_id, COVER_START_S, COVER_START_S + COVER_DUR_S)
    with noise_off():
        b = SimBackend(app, seed, sched=Schedule(RELEASE, app, seed, (sf,), ()))
    b.advance_to(b.episode_start + COVER_START_S + COVER_DUR_S + GRACE_S)
    ev = b.drain_evidence()
    b.close()  # its telemetry goes now, not when a garbage collection finds the backend's cycles
    inj = [e for e in ev if e["type"] == "injection"]
    return [a["name"] for a in ev if a["type"] == "alert" and compatible(a, inj)]


def coverage(app: str, sample: int = 1) -> dict:
    faults = load_catalog(app).faults[::sample]
    missed, fired_by = [], Counter()
    for f in faults:
        names = single_fault(app, f.id)
        if not names:
            missed.append((f.id, f.mechanism))
        fired_by.update(set(names))
    return {
        "faults": len(faults),
        "covered": 1 - len(missed) / max(len(faults), 1),
        "missed": missed,
        "rules": fired_by,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--apps", nargs="*", default=list(APPS))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--share-only", action="store_true")
    ap.add_argument("--coverage-only", action="store_true")
    ap.add_argument("--sample", type=int, default=1)
    ap.add_argument("--rules", action="store_true", help="print per-rule counts and shares")
    a = ap.parse_args()
    for app in a.apps:
        if not a.coverage_only:
            t = time.perf_counter()
            r = multi_share(app, range(a.seeds))
            print(
                f"{app}: seeds 0-{a.seeds - 1}: {r['alerts']} alerts ({r['per_run']:.0f}/run), "
                f"compatible with >1 fault: {100 * r['multi']:.1f} % (paper {100 * PAPER[app]:.0f} %"
                f", target +-15), with none: {100 * r['zero']:.1f} %  [{time.perf_counter() - t:.0f} s]"
            )
            if a.rules:
                for name, (c, m) in r["by_rule"].items():
                    print(f"    {name:32s} {c / a.seeds:7.1f}/run  multi {100 * m:5.1f} %")
        if not a.share_only:
            t = time.perf_counter()
            c = coverage(app, a.sample)
            print(
                f"{app}: coverage: {100 * c['covered']:.1f} % of {c['faults']} catalog faults fire "
                f"an attributable alert when injected alone for {COVER_DUR_S} s "
                f"[{time.perf_counter() - t:.0f} s]"
            )
            for fid, mech in c["missed"]:
                print(f"    below threshold: {fid} ({mech})")


if __name__ == "__main__":
    main()
