"""Alert rate of a marathon without faults: only the seeded benign noise fires.

For each app, runs the full 90-minute episode of seeds 0..N-1 with no fault (and, unless
``--with-deploys``, none of the schedule's ordinary deploys) and prints the alerts per hour, by rule,
and the noise events behind them; with the noise switched off the same runs must fire nothing.

Run: python benchmarks/alert_noise.py [--apps A ...] [--seeds 5] [--with-deploys]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from sre_gym.backends.sim import SimBackend
from sre_gym.clock import EPISODE_S
from sre_gym.orchestrator.schedule import Schedule, schedule
from sre_gym.sim.faults.noise import noise_off

APPS = ("online-boutique", "train-ticket", "astronomy-shop")


def no_fault_schedule(app: str, seed: int, deploys: bool = False) -> Schedule:
    s = schedule(app, seed)
    return Schedule(s.release, app, seed, (), s.deploys if deploys else ())


def run(
    app: str, seed: int, quiet: bool = False, deploys: bool = False
) -> tuple[list[dict], SimBackend]:
    sched = no_fault_schedule(app, seed, deploys)
    if quiet:
        with noise_off():
            b = SimBackend(app, seed, sched=sched)
    else:
        b = SimBackend(app, seed, sched=sched)
    b.advance_to(b.episode_end)
    alerts = [e for e in b.drain_evidence() if e["type"] == "alert" and e["t"] >= b.episode_start]
    return alerts, b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--apps", nargs="*", default=list(APPS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--with-deploys", action="store_true", help="keep the ordinary deploys")
    a = ap.parse_args()
    hours = EPISODE_S / 3600
    for app in a.apps:
        t = time.perf_counter()
        n = events = quiet_n = 0
        by_rule: Counter = Counter()
        kinds: Counter = Counter()
        for s in range(a.seeds):
            alerts, b = run(app, s, deploys=a.with_deploys)
            n += len(alerts)
            events += len(b.noise.events)
            kinds.update(e.kind for e in b.noise.events)
            by_rule.update(f"{x['name']}/{x['severity']}" for x in alerts)
            quiet_n += len(run(app, s, quiet=True, deploys=a.with_deploys)[0])
        runs = a.seeds
        print(
            f"{app}: no-fault alert rate {n / runs / hours:.1f} alerts/hour "
            f"({n / runs:.1f} per 90-minute run, seeds 0-{runs - 1}); noise events "
            f"{events / runs / hours:.1f}/hour {dict(kinds)}; without noise: {quiet_n} alerts "
            f"[{time.perf_counter() - t:.0f} s]"
        )
        for rule, c in by_rule.most_common():
            print(f"    {rule:40s} {c / runs / hours:6.1f}/hour")


if __name__ == "__main__":
    main()
