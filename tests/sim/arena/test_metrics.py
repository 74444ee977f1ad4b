"""PromQL over the arena's recorded seconds: counters, latency summaries, up; reads are harmless."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.world import ArenaWorld, WorldError


@pytest.fixture(scope="module")
def world():
    w = ArenaWorld(load_task("arena-013"), 0, 400)
    w.advance_to(200)
    return w


def test_error_rate_of_the_collapsing_lane_and_latency_summaries(world):
    res = world.promql('sum by (lane) (increase(arena_requests_total{code="error"}[2m]))', None, 15)
    by = {r["metric"]["lane"]: float(r["value"][1]) for r in res["result"]}
    assert by["send"] > 50 and by["login"] == 0
    res = world.promql('arena_request_duration_seconds{lane="send",quantile="0.99"}', 120, 15)
    assert res["resultType"] == "matrix" and len(res["result"][0]["values"]) == 9


def test_the_store_only_holds_what_has_happened_and_grows(world):
    res = world.promql("up", 60, 15)
    assert max(v[0] for r in res["result"] for v in r["values"]) <= world.now
    w2 = ArenaWorld(load_task("arena-013"), 0, 400)
    w2.advance_to(60)
    w2.promql("up", None, 15)
    w2.advance_to(200)
    a = world.promql("sum(arena_requests_total)", None, 15)["result"][0]["value"]
    b = w2.promql("sum(arena_requests_total)", None, 15)["result"][0]["value"]
    assert a == b  # querying early does not change what is stored later


def test_a_bad_query_is_a_clear_error(world):
    with pytest.raises(WorldError, match="parse"):
        world.promql("sum(", None, 15)


def test_per_pod_series_show_a_rolling_restart():
    w = ArenaWorld(load_task("arena-014"), 0, 400)
    w.advance_to(60)
    w.set_config("svc-channel.db_pool_size", 20)
    w.set_config("svc-channel.db_max_overflow", 10)
    w.advance_to(300)
    res = w.promql('arena_db_pool_max{service="svc-channel"}', 270, 15)
    series = {r["metric"]["pod"]: [float(v) for _, v in r["values"]] for r in res["result"]}
    assert set(series) == {"svc-channel-0", "svc-channel-1"}
    assert all(v[0] == 5 and v[-1] == 30 for v in series.values())  # 3/2, then 20/10, pod by pod
    first = [next(i for i, x in enumerate(v) if x == 30) for v in series.values()]
    assert first[0] != first[1]
    res = w.promql("arena_pod_starts_total{service='svc-channel'}", None, 15)
    assert {float(r["value"][1]) for r in res["result"]} == {1.0}


def test_an_instant_query_at_an_earlier_time(world):
    now = world.promql("sum(arena_requests_total)", None, 15)["result"][0]["value"]
    then = world.promql("sum(arena_requests_total)", None, 15, 60)["result"][0]["value"]
    assert then[0] == 60 and float(then[1]) < float(now[1])
