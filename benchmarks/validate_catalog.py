"""Validate the whole fault catalog (CI validates a sample; this runs every fault).

Each fault is injected alone into a healthy run, once with nobody acting and once with the oracle
(sre_gym.rollouts.validate). Prints each failure, the share that pass per app and the median wall
time per fault, and with --write-quarantine records the failures in quarantine.yaml.
Run: python benchmarks/validate_catalog.py [--app A] [--workers N] [--write-quarantine]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from sre_gym.catalogs import APPS, load_catalog, write_quarantine
from sre_gym.rollouts.validate import validate_fault


def one(job: tuple[str, str]) -> tuple[str, str, bool, str, float]:
    app, fid = job
    t = time.perf_counter()
    v = validate_fault(app, fid)
    return app, fid, v.ok, v.reason, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", default=None, choices=APPS)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--write-quarantine", action="store_true")
    a = ap.parse_args()
    apps = [a.app] if a.app else list(APPS)
    jobs = [(app, f.id) for app in apps for f in load_catalog(app, include_quarantined=True).faults]
    rows = []
    with ProcessPoolExecutor(a.workers) as ex:
        for row in ex.map(one, jobs, chunksize=4):
            rows.append(row)
            if not row[2]:
                print(f"FAIL {row[0]:<16} {row[1]:<52} {row[3]}", flush=True)
    for app in apps:
        mine = [r for r in rows if r[0] == app]
        ok = sum(r[2] for r in mine)
        med = statistics.median(r[4] for r in mine)
        print(
            f"{app}: {ok}/{len(mine)} pass ({100 * ok / len(mine):.1f} %), median {med:.2f} s/fault"
        )
    total_ok = sum(r[2] for r in rows)
    print(f"all: {total_ok}/{len(rows)} pass ({100 * total_ok / len(rows):.1f} %)")
    if a.write_quarantine:
        write_quarantine({(r[0], r[1]): r[3] for r in rows if not r[2]}, apps, replace_all=True)


if __name__ == "__main__":
    main()
