"""The arena's structured tools: validation, durations, records and forbidden-operation tags."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.world import ArenaWorld
from sre_gym.tools import arena as T


@pytest.fixture()
def world():
    w = ArenaWorld(load_task("arena-008"), 0, 200)
    w.advance_to(40)
    return w


def run(w, call):
    tool, args = T.parse(call)
    return T.execute(w, tool, args)


@pytest.mark.parametrize(
    "call,msg",
    [
        (None, "a call is"),
        ({"tool": "sudo"}, "unknown tool"),
        ({"tool": "wait", "args": {"seconds": 0}}, "wait"),
        ({"tool": "wait", "args": []}, "args must be an object"),
        ({"tool": "http_admin", "args": {"service": "x"}}, "path"),
    ],
)
def test_malformed_calls_are_refused(call, msg):
    with pytest.raises(T.ToolError, match=msg):
        T.parse(call)


def test_an_unknown_admin_route_is_refused_with_the_routes_it_serves(world):
    with pytest.raises(T.ToolError, match="serves /admin/config"):
        run(world, {"tool": "http_admin", "args": {"service": "svc-auth", "path": "/etc"}})


def test_durations():
    assert T.duration(*T.parse({"tool": "wait", "args": {"seconds": 42}})) == 42
    assert T.duration(*T.parse({"tool": "restart_service", "args": {"service": "svc-auth"}})) == 30


def test_schemas_list_every_tool():
    names = [s["function"]["name"] for s in T.schemas()]
    assert names == list(T.TOOLS) and all(s["function"]["parameters"] for s in T.schemas())


def test_maintenance_put_records_keys_and_tags(world):
    res, rec = run(
        world,
        {
            "tool": "http_admin",
            "args": {
                "service": "db-maintenance",
                "method": "PUT",
                "path": "/v1/maintenance",
                "body": {"enabled": False},
            },
        },
    )
    assert res["enabled"] is False and rec["tags"] == ["disable:db-maintenance"]
    assert rec["keys"] == {"db-maintenance.enabled": [True, False]}


def test_bad_values_leave_the_state_untouched(world):
    before = dict(world.config)
    for call in (
        {
            "tool": "http_admin",
            "args": {
                "service": "db-maintenance",
                "method": "PUT",
                "path": "/v1/maintenance",
                "body": {"offset_s": "x"},
            },
        },
        {
            "tool": "http_admin",
            "args": {
                "service": "svc-message",
                "method": "PUT",
                "path": "/admin/config",
                "body": {"nope": 1, "db_pool_size": 5},
            },
        },
        {"tool": "db_admin", "args": {"op": "grant", "account": "a", "privilege": "ALL"}},
        {"tool": "redis", "args": {"service": "svc-auth", "op": "flushall"}},
    ):
        with pytest.raises(T.ToolError):
            run(world, call)
    assert world.config == before


def test_events_and_reads(world):
    res, rec = run(
        world, {"tool": "http_admin", "args": {"service": "svc-channel", "path": "/admin/event"}}
    )
    assert rec is None and res == {"events": {"read_consistency_strict": False}}
    res, _ = run(world, {"tool": "metrics", "args": {"window_s": 30}})
    assert set(res["lanes"]) == {"login", "search", "send", "unread"}


def test_redis_maxmemory_units_and_flush_tag():
    w = ArenaWorld(load_task("arena-001"), 0, 100)
    _, rec = run(
        w,
        {
            "tool": "redis",
            "args": {
                "service": "redis-queue",
                "op": "config_set",
                "name": "maxmemory",
                "value": "64mb",
            },
        },
    )
    assert rec["keys"]["redis-queue.maxmemory_mb"][1] == 64.0
    _, rec = run(w, {"tool": "redis", "args": {"service": "redis-queue", "op": "flushall"}})
    assert rec["tags"] == ["flushall:redis-queue"] and w.counters["flushall"] == 1
    _, rec = run(
        w,
        {
            "tool": "redis",
            "args": {"service": "redis-queue", "op": "acl_setuser", "rules": ["-blpop"]},
        },
    )
    assert w.config["redis-queue.acl.default.denied"] == ["blpop"]
    assert T._mb(1 << 20) == 1.0
