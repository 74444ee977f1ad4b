"""The shipped alert rule pack on simulator telemetry, against Prometheus 2.42.

* ``promtool check rules`` accepts the pack files as they ship (44 rules).
* Alert timelines: scenarios run on the simulator (a healthy run with its noise; every mechanism
  family of the Online Boutique catalog injected alone, one after the other; the Astronomy Shop's
  own mechanisms; two Train Ticket mechanisms; a stretch of a real schedule with up to ten
  overlapping faults) are exported as ``promtool test rules`` files whose expectations are the
  in-process engine's firing alerts (labels and annotations) for every alert name at every
  evaluation time. promtool must agree everywhere.
* Queries: one scenario is backfilled into a live Prometheus server and every pack expression is
  queried at several instants (on and between scrapes) and as a range; results must match the
  in-process engine's.

The tests skip when the binaries cannot be fetched, unless ``SRE_GYM_REQUIRE_PROMETHEUS=1``.
"""

from __future__ import annotations

import copy
import datetime as dt
import re
import subprocess
from pathlib import Path

import pytest

from sre_gym.backends.sim import rule_pack
from sre_gym.telemetry.promql import Engine, PromQLError

from . import sim_scenarios as ss
from .conftest import LIVE_BASE, TICK_S, _unavailable, serve_backfilled
from .test_prometheus_live import _compare

OB, TT, AS = "online-boutique", "train-ticket", "astronomy-shop"


def _scenarios() -> list[ss.Scenario]:
    ob = ss.one_per_family(OB)
    half = (len(ob) + 1) // 2
    as_own = ["zone_outage", "feature_flag", "pool_exhaustion", "consumer_slowdown", "node_failure"]
    return [
        ss.healthy(AS),
        ss.sequential("ob-families-1", OB, ob[:half], dur=240, gap=240),
        ss.sequential("ob-families-2", OB, ob[half:], dur=240, gap=240),
        ss.sequential("as-families", AS, ss.one_per_family(AS, as_own), dur=240, gap=240),
        ss.sequential("tt-families", TT, ss.one_per_family(TT, ["config_drift", "code_exception"])),
        ss.overlapping(OB, 0, 1800, 3300),
    ]


SCENARIOS = _scenarios()


@pytest.fixture(scope="module")
def built():
    """Each scenario simulated once: (window TSDB at t0 = 0, in-process alert engine, backend)."""
    out = {}
    for sc in SCENARIOS:
        db, b = ss.scenario_tsdb(sc)
        out[sc.name] = (db, ss.evaluate(db), b)
    return out


def _promtool(bins, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(bins["promtool"]), *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def test_promtool_check_rules_accepts_the_pack_as_shipped(prometheus_bins, tmp_path):
    r = _promtool(prometheus_bins, "check", "rules", *map(str, ss.PACK_FILES), cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    counts = [int(n) for n in re.findall(r"SUCCESS: (\d+) rules found", r.stdout)]
    assert len(counts) == len(ss.PACK_FILES) and sum(counts) == 44


@pytest.mark.parametrize("name", [sc.name for sc in SCENARIOS])
def test_alert_timeline_matches_promtool(prometheus_bins, built, name, tmp_path):
    db, eng, b = built[name]
    assert not eng.errors, eng.errors[:3]
    firing = ss.firing_count(eng)
    path = ss.write_unit_test(tmp_path, [(db, eng)])
    r = _promtool(prometheus_bins, "test", "rules", path.name, cwd=tmp_path)
    n_checks = len(eng._snapshots) * len({x.name for x in eng.rules})
    print(f"{name}: {db.n_ticks} ticks, {n_checks} alert checks, {firing} firing alerts")
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    assert "SUCCESS" in r.stdout
    sc = next(s for s in SCENARIOS if s.name == name)
    if sc.faults:
        assert firing > 50
    if name.startswith(("ob-families", "as-families", "tt-families")):
        # each family, alone, fires at least one alert attributable to it (AS: the flag fault
        # picked first, adFailure, sits below every threshold; see benchmarks/alert_coverage.py)
        att = ss.attributable(b)
        missed = [sc.faults[i][0] for i, names in att.items() if not names]
        assert set(missed) <= {"as-flag-adfailure-on"}, missed


def test_promtool_catches_a_wrong_expectation(prometheus_bins, built, tmp_path):
    """Guards the harness: one dropped firing alert must make promtool fail."""
    db, eng, _ = built["ob-families-1"]
    bad = copy.copy(eng)
    bad._snapshots = dict(eng._snapshots)
    e = next(t for t, snaps in sorted(eng._snapshots.items()) if snaps)
    bad._snapshots[e] = eng._snapshots[e][1:]
    path = ss.write_unit_test(tmp_path, [(db, bad)])
    r = _promtool(prometheus_bins, "test", "rules", path.name, cwd=tmp_path)
    assert r.returncode != 0 and "FAILED" in r.stdout + r.stderr


# -- live server ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sim_prometheus(prometheus_bins):
    """The overlapping-faults scenario served by Prometheus, backfilled at ``LIVE_BASE``."""
    db, _ = ss.scenario_tsdb(SCENARIOS[-1], t0=LIVE_BASE)
    with serve_backfilled(prometheus_bins, db, "sre-gym-pack-prom-") as srv:
        yield {**srv, "tsdb": db}


def test_pack_expressions_match_live_prometheus(sim_prometheus):
    try:
        from prometheus_api_client import PrometheusConnect
        from prometheus_api_client.exceptions import PrometheusApiClientException
    except ImportError:
        _unavailable("prometheus-api-client is not installed")
    client = PrometheusConnect(sim_prometheus["url"], disable_ssl=True)
    db = sim_prometheus["tsdb"]
    eng = Engine(db, lookback_s=TICK_S - 0.001, subquery_step_s=30)
    last = db.time_of(db.n_ticks - 1)
    instants = [LIVE_BASE + o for o in (660, 907, 1200, 1333)] + [last, last + 7]
    exprs = list(dict.fromkeys(r.expr for r in rule_pack()))
    failures, compared, non_empty = [], 0, 0
    for q in exprs:
        for t in instants:
            theirs = client.custom_query(q, params={"time": t})
            try:
                mine = eng.instant(q, t)
            except PromQLError as e:
                failures.append(f"{q[:60]!r} @ {t - LIVE_BASE}: engine error {e}")
                continue
            compared += 1
            non_empty += bool(mine["result"])
            err = _compare(mine, theirs, "vector", False)
            if err:
                failures.append(f"{q[:60]!r} @ {t - LIVE_BASE}: {err}")
        start = dt.datetime.fromtimestamp(LIVE_BASE + 600, tz=dt.UTC)
        end = dt.datetime.fromtimestamp(last, tz=dt.UTC)
        try:
            theirs = client.custom_query_range(q, start, end, "30")
        except PrometheusApiClientException as e:
            failures.append(f"{q[:60]!r} range: prometheus error {e}")
            continue
        mine = eng.range(q, LIVE_BASE + 600, last, 30)
        compared += 1
        err = _compare(mine, theirs, "matrix", False)
        if err:
            failures.append(f"{q[:60]!r} range: {err}")
    print(f"\npack on live Prometheus: {len(exprs)} expressions, {compared} comparisons")
    assert len(exprs) >= 35 and non_empty >= 20
    assert not failures, "\n".join(failures[:20])
