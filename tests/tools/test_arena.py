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


@pytest.mark.parametrize(
    "current,value,want",
    [(20, "20", 20), (20, 20.0, 20), (0.5, "0.25", 0.25), (True, "OFF", False), (False, 1, True)],
)
def test_values_are_coerced_to_the_settings_type(current, value, want):
    got = T.coerce("x", current, value)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "current,value", [(20, "twenty"), (20, "2.5"), (20, -1), (20, True), (True, "maybe"), ([], "a")]
)
def test_bad_values_are_refused_with_a_clear_error(current, value):
    with pytest.raises(T.ToolError, match="x "):
        T.coerce("x", current, value)


def test_pool_sizes_sent_as_text_are_the_numbers():
    w = ArenaWorld(load_task("arena-013"), 0, 200)
    body = {"db_pool_size": "20", "db_max_overflow": "10"}
    _, rec = run(
        w,
        {
            "tool": "http_admin",
            "args": {
                "service": "svc-channel",
                "method": "PUT",
                "path": "/admin/config",
                "body": body,
            },
        },
    )
    assert rec["keys"]["svc-channel.db_pool_size"] == [3, 20]
    assert rec["stored"]["svc-channel.db_max_overflow"] == [2, 10]  # written to the chart


def test_runtime_and_stored_operations_record_what_they_changed():
    w = ArenaWorld(load_task("arena-001"), 0, 200)
    w.advance_to(40)
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
    assert rec["keys"] == {"redis-queue.maxmemory_mb": [1, 64.0]} and rec["stored"] == {}
    _, rec = run(w, {"tool": "redis", "args": {"service": "redis-queue", "op": "config_rewrite"}})
    assert rec["keys"] == {} and rec["stored"] == {"redis-queue.maxmemory_mb": [1, 64.0]}
    _, rec = run(
        w,
        {
            "tool": "db_admin",
            "args": {"op": "set_global", "name": "max_user_connections", "value": 0},
        },
    )
    assert rec["keys"] == {"mariadb.max_user_connections": [8, 0]} and rec["stored"] == {}
    with pytest.raises(T.ToolError, match="alter_system is PostgreSQL"):
        run(
            w, {"tool": "db_admin", "args": {"op": "alter_system", "name": "read_only", "value": 1}}
        )


def test_alter_system_stores_and_reload_applies():
    w = ArenaWorld(load_task("arena-018"), 0, 200)
    call = {"op": "alter_system", "name": "idle_in_transaction_session_timeout", "value": "10000"}
    _, rec = run(w, {"tool": "db_admin", "args": call})
    assert rec["keys"] == {} and list(rec["stored"]) == [
        "postgres.idle_in_transaction_session_timeout"
    ]
    _, rec = run(w, {"tool": "db_admin", "args": {"op": "reload"}})
    assert rec["keys"] == {"postgres.idle_in_transaction_session_timeout": [0, 10000]}
    with pytest.raises(T.ToolError, match="no SET GLOBAL"):
        run(
            w,
            {"tool": "db_admin", "args": {"op": "set_global", "name": "work_mem", "value": "8MB"}},
        )


def test_the_queue_acl_guard_refuses_a_flush():
    w = ArenaWorld(load_task("arena-005"), 0, 100)
    with pytest.raises(T.ToolError, match="NOPERM"):
        run(w, {"tool": "redis", "args": {"service": "redis-queue", "op": "flushall"}})
    assert w.counters["flushall"] == 0


def test_each_access_surface_adds_tools():
    confined, shell, build = (set(T.ACCESS_TOOLS[a]) for a in T.ACCESS_TOOLS)
    assert confined < shell < build and "shell" in shell - confined
    assert {"read_source", "edit_source", "rebuild"} == build - shell
    assert T.refusal("confined", "shell") and T.refusal("build-capable", "shell") is None
    assert "needs 'build-capable'" in T.refusal("shell-visible", "rebuild")
    assert {s["function"]["name"] for s in T.schemas("confined")} == confined
