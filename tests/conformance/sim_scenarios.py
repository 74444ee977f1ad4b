"""Simulator scenarios for the conformance tests of the alert rule pack.

A scenario is a marathon on the simulator with a hand-made schedule: no fault, one fault per
mechanism family in turn (each alone: the next starts after the previous one's revert and grace),
or a stretch of a real schedule with overlapping faults. :func:`window` copies a range of the run's
TSDB into a new TSDB whose first tick is at ``t0`` (0 for ``promtool test rules``, a recent time for a
backfilled Prometheus server), so real Prometheus sees exactly the series the in-process engine sees.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sre_gym.backends.sim import SimBackend, rule_pack
from sre_gym.catalogs import RELEASE, catalog_dir, load_catalog
from sre_gym.orchestrator.schedule import Schedule, ScheduledFault, schedule
from sre_gym.scoring.config import ScoringConfig
from sre_gym.sim.cluster import WARMUP_S
from sre_gym.telemetry import promtool_export as pe
from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.rules import AlertEngine
from sre_gym.telemetry.tsdb import TSDB

TICK_S = 15
EVAL_S = 30
PACK_DIR = catalog_dir() / "alerts"
PACK_FILES = sorted(PACK_DIR.glob("*.yaml"))
GRACE_S = ScoringConfig().attribution_grace_s


@dataclass(frozen=True)
class Scenario:
    name: str
    app: str
    faults: tuple[tuple[str, int, int], ...]  # (fault id, start, end) in episode seconds
    window: tuple[int, int]  # [from, to) in episode seconds (negative: warm-up)
    seed: int = 0


def window(tsdb: TSDB, k0: int, k1: int, t0: int = 0) -> TSDB:
    """Ticks ``k0 .. k1-1`` of ``tsdb`` as a new TSDB starting at ``t0`` (series without any sample
    in the range are left out)."""
    k1 = min(k1, tsdb.n_ticks)
    out = TSDB(t0=t0, tick_s=tsdb.tick_s, capacity=k1 - k0)
    for name, fam in tsdb.families.items():
        data = fam.data[: fam.n_series, k0:k1]
        keep = np.flatnonzero(~np.isnan(data).all(axis=1))
        if not len(keep):
            continue
        new = out.family(name, fam.label_names)
        for r in keep.tolist():
            labels = dict(fam.rows[r])
            row = new.row(tuple(labels[n] for n in fam.label_names))  # may grow new.data
            new.data[row, :] = data[r]
    out.commit(k1 - k0 - 1)
    return out


def run(sc: Scenario) -> SimBackend:
    """Simulate the scenario (noise included) up to the end of its window."""
    faults = tuple(ScheduledFault(i, fid, s, e) for i, (fid, s, e) in enumerate(sc.faults))
    b = SimBackend(sc.app, sc.seed, sched=Schedule(RELEASE, sc.app, sc.seed, faults, ()))
    b.advance_to(b.episode_start + sc.window[1])
    return b


def scenario_tsdb(sc: Scenario, t0: int = 0) -> tuple[TSDB, SimBackend]:
    b = run(sc)
    k0 = (WARMUP_S + sc.window[0]) // TICK_S
    k1 = (WARMUP_S + sc.window[1]) // TICK_S
    return window(b.cluster.tsdb, k0, k1, t0), b


def one_per_family(app: str, mechanisms: list[str] | None = None, skip: int = 0) -> list[str]:
    """A catalog fault of each mechanism (the ``skip``-th of its kind, cycling), catalog order."""
    by: dict[str, list[str]] = {}
    for f in load_catalog(app).faults:
        by.setdefault(f.mechanism, []).append(f.id)
    mechs = mechanisms if mechanisms is not None else list(by)
    return [by[m][skip % len(by[m])] for m in mechs]


def sequential(
    name: str, app: str, fault_ids: list[str], dur: int = 300, gap: int = 300, seed: int = 0
) -> Scenario:
    """Faults one after the other, each alone: ``gap`` (more than the attribution grace) separates a
    revert from the next injection. The window starts 11 minutes into the warm-up."""
    t, faults = 60, []
    for fid in fault_ids:
        faults.append((fid, t, t + dur))
        t += dur + gap
    return Scenario(name, app, tuple(faults), (-540, t), seed)


def overlapping(app: str, seed: int, lo: int, hi: int) -> Scenario:
    """A stretch [lo, hi) of the real schedule of (app, seed): overlapping faults, no deploys."""
    sched = schedule(app, seed)
    faults = tuple((f.fault_id, f.start, f.end) for f in sched.faults if f.start < hi)
    return Scenario(f"{app}:seed{seed}:{lo}-{hi}", app, faults, (lo, hi), seed)


def healthy(app: str, seed: int = 0, minutes: int = 30) -> Scenario:
    return Scenario(f"{app}:healthy", app, (), (-300, 60 * minutes - 300), seed)


# -- promtool unit tests -------------------------------------------------------------------------
def evaluate(db: TSDB, rules: list | None = None) -> AlertEngine:
    """The in-process alert engine over the whole window, with snapshots for promtool."""
    eng = AlertEngine(rules if rules is not None else list(rule_pack()), Engine(db), EVAL_S)
    eng.keep_snapshots = True
    eng.evaluate_until(db.time_of(db.n_ticks - 1))
    return eng


def write_unit_test(
    dirpath: Path, groups: list[tuple[TSDB, AlertEngine]], exprs: list[list[dict]] | None = None
) -> Path:
    """One promtool unit-test file (a test group per scenario) next to copies of the pack files."""
    for p in PACK_FILES:
        shutil.copy(p, dirpath / p.name)
    tests = []
    for i, (db, eng) in enumerate(groups):
        last = db.time_of(db.n_ticks - 1)
        test = {
            "interval": f"{db.tick_s}s",
            "input_series": pe.input_series(db),
            "alert_rule_test": pe.alert_tests(eng, list(range(0, last + 1, EVAL_S))),
        }
        if exprs and exprs[i]:
            test["promql_expr_test"] = exprs[i]
        tests.append(test)
    doc = {
        "rule_files": [p.name for p in PACK_FILES],
        "evaluation_interval": f"{EVAL_S}s",
        "tests": tests,
    }
    path = dirpath / "pack_unit_test.yml"
    path.write_text(json.dumps(doc))  # JSON is YAML, and much faster to write than PyYAML's dump
    return path


def firing_count(eng: AlertEngine) -> int:
    return sum(len(v) for v in eng._snapshots.values())


def attributable(b: SimBackend) -> dict[int, list[str]]:
    """Per injected fault of a run: the alerts (names) attributable to it under the scorer's rule."""
    ev = b.drain_evidence()
    out: dict[int, list[str]] = {}
    alerts = [e for e in ev if e["type"] == "alert"]
    for inj in (e for e in ev if e["type"] == "injection"):
        scope = {s.lower() for s in (*inj["affected"], *inj["culprits"])}
        out[inj["index"]] = [
            a["name"]
            for a in alerts
            if inj["start"] <= a["t"] <= inj["end"] + GRACE_S
            and scope & {x.lower() for x in a["entities"]}
        ]
    return out
