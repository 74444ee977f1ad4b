"""Symptom probes as PromQL (sre_gym/backends/live_probes.py, catalogs/live/probes.yaml)."""

from __future__ import annotations

import math

import promql_parser as pp
import pytest

from sre_gym.backends.live_probes import LiveProbes, entry_queries, probe_query, templates
from sre_gym.backends.live_time import TimeScale
from sre_gym.catalogs import APPS, load_catalog
from sre_gym.catalogs.schema import ProbeSpec
from sre_gym.orchestrator.faults import Injection


def test_every_probe_kind_of_the_catalog_has_a_query():
    kinds = set(ProbeSpec.model_fields["kind"].annotation.__args__)
    assert kinds == set(templates()["probes"])


@pytest.mark.parametrize("app", APPS)
def test_every_catalog_faults_probe_fills_in_to_a_valid_query(app):
    zones = {"zone-a": ["kind-worker", "kind-worker2"], "zone-b": ["kind-worker3"]}
    for f in load_catalog(app).faults:
        inj = Injection(0, f, 0.0, 60.0, [], [], [], detail={"probe_deps": ["a.b", "c"]})
        q = probe_query(inj, "ns", zones)
        assert "$" not in q, q
        pp.parse(q)
        assert f'"{f.probe.service}"' in q or f.probe.kind == "zone_available"
    for q in entry_queries("ns", "frontend"):
        pp.parse(q)


def test_a_batch_reads_one_value_per_tick_at_exact_times():
    asked = []

    def query_range(q, start, end, step):
        asked.append((q, start, end, step))
        # Prometheus answers at start + i * step; a missing point has no value
        return [{"metric": {}, "values": [[start, "1"], [start + 2 * step, "0"]]}]

    probes = LiveProbes(query_range, TimeScale(100, 1000.0, 10.0), "ns", "frontend", {}, 15.0)
    f = load_catalog("online-boutique").faults[0]
    inj = Injection(3, f, 1000.0, 1600.0, [], [], [])
    probes.read([inj], [0, 1, 2], [1000.0, 1015.0, 1030.0])
    assert [probes.values[(3, k)] for k in range(3)] == [1, 0, 0]  # no data counts as failing
    q, start, end, step = asked[0]
    assert (start, end, step) == (10.0, 10.3, 0.15)  # Prometheus time, compressed step
    assert "[600ms]" in q or "[3s]" in q  # the query's windows are compressed too
    assert probes.reader(9, 0.0)(inj) == 0
    rows = probes.entry_rows([1000.0, 1015.0, 1030.0])
    assert rows.shape == (3, 3) and rows[0, 0] == 1.0 and not math.isnan(rows[1, 0])
