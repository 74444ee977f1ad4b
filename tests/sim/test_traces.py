"""Traces: generated lazily from the per-tick records, deterministic, free to read, consistent."""

from __future__ import annotations

import numpy as np
import pytest

from sre_gym.backends.sim import SimBackend
from sre_gym.sim import traces


@pytest.fixture(scope="module")
def ran():
    """A marathon simulated to its end (read-only in these tests)."""
    b = SimBackend("online-boutique", 0)
    b.advance_to(b.episode_end)
    return b


def test_same_question_same_answer(ran):
    cl = ran.cluster
    a = traces.query(cl, None, ran.now - 900, ran.now, limit=50, spans=True)
    b = traces.query(cl, None, ran.now - 900, ran.now, limit=50, spans=True)
    assert a == b and len(a) == 50
    assert traces.tick_traces(cl, cl.tick - 1) == traces.tick_traces(cl, cl.tick - 1)


def test_reading_never_changes_the_run():
    quiet, busy = SimBackend("online-boutique", 3), SimBackend("online-boutique", 3)
    for k in range(1, 13):
        t = quiet.episode_start + 300 * k
        quiet.advance_to(t)
        busy.advance_to(t)
        busy.traces(None, t - 3600, t, limit=200, spans=True)
        busy.traces("cartservice", t - 600, t, errors_only=True)
    cq, cb = quiet.cluster, busy.cluster
    assert np.array_equal(cq.rec_entry, cb.rec_entry)
    assert np.array_equal(cq.rec_lat, cb.rec_lat)
    assert np.array_equal(quiet.injector.probe, busy.injector.probe)


def test_span_trees_are_well_formed(ran):
    cl = ran.cluster
    names = set(cl.topo.names)
    for tr in traces.query(cl, None, ran.now - 1800, ran.now, limit=200, spans=True):
        spans = tr["spans"]
        ids = {s["span_id"] for s in spans}
        root = spans[0]
        assert root["parent_span_id"] is None and root["service"] == cl.topo.app.entrypoint
        assert root["name"] == tr["route"] and root["duration_ms"] == tr["duration_ms"]
        assert len(spans) <= traces.MAX_SPANS and len(ids) == len(spans)
        by_id = {s["span_id"]: s for s in spans}
        for s in spans[1:]:
            parent = by_id[s["parent_span_id"]]
            assert s["service"] in names
            assert s["start_offset_ms"] >= parent["start_offset_ms"]
            end = s["start_offset_ms"] + s["duration_ms"]
            assert end <= parent["start_offset_ms"] + parent["duration_ms"] + 1e-6
            assert (s["status"] == "error") == ("error" in s)
        assert tr["status"] == root["status"]
        assert tr["services"] == sorted({s["service"] for s in spans})


def test_error_share_and_healthy_latency_agree_with_the_records(ran):
    cl = ran.cluster
    e = cl.topo.entry
    rows = []
    for k in range(40, cl.tick):
        for tr in traces.tick_traces(cl, k):
            rows.append((k, tr["status"] == "error", tr["duration_ms"]))
    ks = np.array([r[0] for r in rows])
    err = np.array([r[1] for r in rows])
    dur = np.array([r[2] for r in rows])
    assert len(rows) > 500  # about 1 % of requests are sampled
    expected = cl.rec_entry[ks, 1].mean()
    assert abs(err.mean() - expected) < 0.05 + 0.1 * expected
    healthy = cl.rec_entry[ks, 1] < 0.02
    assert healthy.sum() >= 20
    ratio = np.median(dur[healthy]) / np.median(cl.rec_lat[ks[healthy], e])
    assert 0.7 < ratio < 1.6


def test_sampling_follows_traffic(ran):
    cl = ran.cluster
    k = cl.tick - 1
    n = [len(traces.tick_traces(cl, j)) for j in range(k - 100, k)]
    mean_rps = cl.rec_entry[k - 100 : k, 0].mean()
    assert abs(np.mean(n) - mean_rps * 15 * traces.SAMPLE_RATE) < 1.0


def test_filters(ran):
    cl = ran.cluster
    t1, t0 = ran.now, ran.now - 1800
    everything = traces.query(cl, None, t0, t1, limit=10_000)
    assert [x["start"] for x in everything] == sorted(x["start"] for x in everything)  # newest last
    newest = traces.query(cl, None, t0, t1, limit=5)
    assert newest == everything[-5:]
    cart = traces.query(cl, "cartservice", t0, t1, limit=10_000)
    assert cart and all("cartservice" in x["services"] for x in cart)
    assert cart == [x for x in everything if "cartservice" in x["services"]]
    errs = traces.query(cl, None, t0, t1, errors_only=True, limit=10_000)
    assert errs == [x for x in everything if x["errors"]]
    slow = traces.query(cl, None, t0, t1, min_duration_ms=1000, limit=10_000)
    assert slow == [x for x in everything if x["duration_ms"] >= 1000]
    recent = traces.query(cl, None, t1 - 60, t1, limit=10_000)
    assert 0 < len(recent) < len(everything)
    one = traces.query(cl, None, t0, t1, trace_id=everything[0]["trace_id"])
    assert len(one) == 1 and "spans" in one[0] and one[0]["trace_id"] == everything[0]["trace_id"]
    assert "spans" not in everything[0] and everything[0]["n_spans"] >= 1
    with pytest.raises(KeyError, match="mainframe"):
        traces.query(cl, "mainframe", t0, t1)


def test_nothing_before_the_first_tick_or_after_now():
    b = SimBackend("online-boutique", 0)
    assert b.traces(None, b.t0 - 600, b.t0 - 1) == []
    b.advance_to(b.t0 + 300)
    assert b.traces(None, b.now + 15, b.now + 600) == []
    assert b.traces(None, b.now - 300, b.now)
