"""The arena's structured tools: argument schemas (pydantic), durations, and their execution on a
world that offers the small ``ArenaWorld`` interface (duck-typed: this module imports no simulator).

No free SQL or RESP text in v0: every operation is a structured call (Incident-Arena's agents used
``psql``, ``mysql`` and ``redis-cli`` for the same operations). Every intervention returns a record of
the settings it changed and tags for the operations a task may forbid (``flushall:<svc>``,
``restart:<svc>``, ``scale_to_zero:<svc>``, ``disable:db-maintenance``, ``event_off:<event>``).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_WAIT_S = 600


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HttpAdmin(Args):
    service: str
    method: Literal["GET", "PUT"] = "GET"
    path: Literal["/admin/config", "/admin/event", "/admin/stats", "/v1/maintenance"]
    body: dict[str, Any] = {}


class DbQuery(Args):
    kind: Literal["settings", "grants", "sessions", "checkpoints"]


class DbAdmin(Args):
    op: Literal[
        "set_global",
        "alter_system",
        "alter_role_set",
        "alter_role_reset",
        "grant",
        "revoke",
        "terminate_backend",
    ]
    name: str | None = None
    value: Any = None
    role: str | None = None
    database: str | None = None
    account: str | None = None
    privilege: str | None = None
    pid: int | None = None


class Redis(Args):
    service: str
    op: Literal["config_get", "config_set", "acl_getuser", "acl_setuser", "flushall", "info"]
    name: str | None = None
    value: Any = None
    user: str = "default"
    rules: list[str] = []


class Service(Args):
    service: str


class Scale(Args):
    service: str
    replicas: int = Field(ge=0, le=20)


class Window(Args):
    window_s: int = Field(default=60, ge=1, le=3600)


class Logs(Args):
    service: str
    window_s: int = Field(default=60, ge=1, le=3600)


class Wait(Args):
    seconds: int = Field(ge=1, le=MAX_WAIT_S)


class Report(Args):
    summary: str = Field(max_length=4000)
    components: list[str] = []


class NoArgs(Args):
    pass


# tool -> (argument model, duration in simulated seconds, description)
TOOLS: dict[str, tuple[type[Args], int, str]] = {
    "http_admin": (
        HttpAdmin,
        3,
        "Call a service's admin API: GET or PUT /admin/config, /admin/event, /admin/stats; /v1/maintenance on db-maintenance.",
    ),
    "db_query": (
        DbQuery,
        2,
        "Read the database: settings with their scope, grants, sessions, checkpoint statistics.",
    ),
    "db_admin": (
        DbAdmin,
        5,
        "Change the database: set_global, alter_system, alter_role_set, alter_role_reset, grant, revoke, terminate_backend.",
    ),
    "redis": (
        Redis,
        2,
        "Redis CONFIG GET/SET, ACL GETUSER/SETUSER, INFO or FLUSHALL on a Redis service.",
    ),
    "restart_service": (
        Service,
        30,
        "Restart a service (a rolling restart; databases and caches go down for a moment).",
    ),
    "scale_service": (Scale, 10, "Set a service's replica count."),
    "metrics": (
        Window,
        3,
        "Per-lane request rate, error rate and p50/p99 latency over the last window.",
    ),
    "logs": (Logs, 3, "Recent error log lines of a service."),
    "wait": (Wait, 0, "Let time pass (1-600 s) while the load continues."),
    "submit_incident_report": (
        Report,
        5,
        "Record an incident report (advisory; it does not end the session).",
    ),
    "declare_repair_complete": (NoArgs, 0, "Declare the repair complete. This ends your session."),
}
READS = ("db_query", "metrics", "logs")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$", re.I)


class ToolError(ValueError):
    """A call the tool refuses; the state is untouched."""


def schemas() -> list[dict[str, Any]]:
    """OpenAI-style function schemas of every arena tool."""
    return [
        {
            "type": "function",
            "function": {"name": n, "description": d, "parameters": m.model_json_schema()},
        }
        for n, (m, _, d) in TOOLS.items()
    ]


def parse(call: Any) -> tuple[str, Args]:
    """(tool, validated args) or ``ToolError`` with a clear message."""
    if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
        raise ToolError('a call is {"tool": name, "args": {...}}')
    tool = call["tool"]
    if tool not in TOOLS:
        raise ToolError(f"unknown tool {tool!r}; tools: {', '.join(TOOLS)}")
    args = call.get("args", {})
    if not isinstance(args, dict):
        raise ToolError("args must be an object")
    try:
        return tool, TOOLS[tool][0].model_validate(args)
    except ValidationError as e:
        msgs = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
        raise ToolError(f"{tool}: {msgs}") from None


def duration(tool: str, args: Args) -> int:
    if isinstance(args, Wait):
        return int(args.seconds)
    return TOOLS[tool][1]


def _mb(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / (1 << 20)  # Redis takes bytes
    m = _SIZE.match(str(value))
    if not m:
        raise ToolError(f"maxmemory: cannot read {value!r} (bytes, or e.g. 64mb)")
    unit = (m.group(2) or "b").lower()
    return float(m.group(1)) * {"b": 1 / (1 << 20), "kb": 1 / 1024, "mb": 1, "gb": 1024}[unit]


def execute(world: Any, tool: str, a: Args) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(result, intervention record or None). ``world`` offers ArenaWorld's interface."""
    try:
        return _execute(world, tool, a)
    except (KeyError, ValueError) as e:
        if isinstance(e, ToolError):
            raise
        raise ToolError(str(e).strip("'\"")) from None


def _rec(op: str, keys: dict[str, Any] | None = None, tags: list[str] | None = None, **kw):
    return {"op": op, "keys": keys or {}, "tags": tags or [], **kw}


def _service(world, svc: str) -> None:
    if svc not in world.sub.services:
        raise ToolError(f"unknown service {svc!r}; services: {', '.join(world.sub.services)}")


def _execute(world: Any, tool: str, a: Args):  # noqa: C901 - one branch per tool
    cfg = world.config
    engine = "mariadb" if world.sub.id == "frappe" else "postgres"
    if isinstance(a, HttpAdmin):
        _service(world, a.service)
        pre = f"{a.service}."
        if a.path == "/admin/config":
            if a.method == "GET":
                return {k[len(pre) :]: v for k, v in sorted(cfg.items()) if k.startswith(pre)}, None
            keys = {}
            for k in a.body:
                full = pre + k
                if full not in cfg or full.startswith("db-maintenance."):
                    raise ToolError(f"{a.service} has no setting {k!r}")
            for k, v in a.body.items():
                keys[pre + k] = list(world.set_config(pre + k, v))
            tags = [
                f"scale_to_zero:{a.service}"
                for k, v in a.body.items()
                if k == "replicas" and v == 0
            ]
            return {"updated": sorted(a.body)}, _rec("config", keys, tags)
        if a.path == "/admin/event":
            evs = {k[len(pre) :]: v for k, v in world.events.items() if k.startswith(pre)}
            if a.method == "GET":
                return {"events": evs}, None
            name, active = a.body.get("name"), a.body.get("active")
            if name not in evs or not isinstance(active, bool):
                raise ToolError(
                    f'PUT /admin/event takes {{"name": one of {sorted(evs)}, "active": bool}}'
                )
            old, new = world.set_event(pre + name, active)
            tag = f"event_{'on' if active else 'off'}:{pre}{name}"
            return {"name": name, "active": new}, _rec(
                "event", {}, [tag], event=pre + name, old=old, new=new
            )
        if a.path == "/admin/stats":
            if a.method != "GET":
                raise ToolError("/admin/stats is read-only")
            return world.pool_stats(a.service), None
        # /v1/maintenance
        if a.service != "db-maintenance":
            raise ToolError("/v1/maintenance is served by db-maintenance")
        fields = ("enabled", "period_s", "offset_s", "duration_s")
        if a.method == "GET":
            return {f: cfg[f"db-maintenance.{f}"] for f in fields}, None
        bad = set(a.body) - set(fields)
        if bad:
            raise ToolError(f"unknown maintenance fields {sorted(bad)}; fields: {list(fields)}")
        for f, v in a.body.items():
            ok = (
                isinstance(v, bool)
                if f == "enabled"
                else isinstance(v, int) and not isinstance(v, bool) and v >= 0
            )
            if not ok or (f == "period_s" and v < 1):
                raise ToolError(f"maintenance {f}: bad value {v!r}")
        keys = {
            f"db-maintenance.{f}": list(world.set_config(f"db-maintenance.{f}", v))
            for f, v in a.body.items()
        }
        tags = ["disable:db-maintenance"] if a.body.get("enabled") is False else []
        return {f: cfg[f"db-maintenance.{f}"] for f in fields}, _rec("maintenance", keys, tags)

    if isinstance(a, DbQuery):
        return world.db_view(a.kind), None

    if isinstance(a, DbAdmin):
        if a.op in ("set_global", "alter_system"):
            if not a.name:
                raise ToolError(f"{a.op} needs name and value")
            if engine == "mariadb" and a.op == "alter_system":
                raise ToolError("alter_system is PostgreSQL; use set_global on MariaDB")
            key = f"{engine}.{a.name}"
            if key not in cfg:
                raise ToolError(f"unknown {engine} setting {a.name!r}")
            old, new = world.set_config(key, a.value, persist=a.op == "alter_system")
            return {"ok": True, "name": a.name, "value": new}, _rec(a.op, {key: [old, new]})
        if a.op in ("alter_role_set", "alter_role_reset"):
            if engine != "postgres" or not a.role or not a.name:
                raise ToolError(f"{a.op} needs role and name (PostgreSQL)")
            if a.name != "statement_timeout":
                raise ToolError("only statement_timeout may be set per role in this substrate")
            scope = f"role={a.role}" + (f",db={a.database}" if a.database else "")
            key = f"postgres.{a.name}@{scope}"
            val = None if a.op == "alter_role_reset" else a.value
            if val is not None and (
                not isinstance(val, int | float) or isinstance(val, bool) or val < 0
            ):
                raise ToolError("statement_timeout is a number of milliseconds (0 = none)")
            old, new = world.add_scoped(key, val)
            return {"ok": True, "scope": scope, "value": new}, _rec(a.op, {key: [old, new]})
        if a.op in ("grant", "revoke"):
            if engine != "mariadb" or not a.account or not a.privilege:
                raise ToolError(f"{a.op} needs account and privilege (MariaDB)")
            key = f"mariadb.grants.{a.account}"
            if key not in cfg:
                raise ToolError(f"unknown account {a.account!r}")
            cur = set(cfg[key])
            p = a.privilege.upper()
            cur = cur | {p} if a.op == "grant" else cur - {p}
            old, new = world.set_config(key, sorted(cur))
            tags = ["grant_all"] if p in ("ALL", "ALL PRIVILEGES") else []
            return {"ok": True, "grants": new}, _rec(a.op, {key: [old, new]}, tags)
        # terminate_backend
        n = world.terminate_sessions(role=a.role, pid=a.pid)
        return {"terminated": n}, _rec("terminate_backend", {}, [], count=n)

    if isinstance(a, Redis):
        _service(world, a.service)
        if not a.service.startswith("redis"):
            raise ToolError(f"{a.service} is not a Redis service")
        pre = f"{a.service}."
        if a.op == "info":
            return world.redis_info(a.service), None
        if a.op == "flushall":
            world.flushall(a.service)
            return {"ok": True}, _rec("flushall", {}, [f"flushall:{a.service}"])
        if a.op in ("acl_getuser", "acl_setuser"):
            key = f"{pre}acl.{a.user}.denied"
            if key not in cfg:
                raise ToolError(f"no ACL user {a.user!r} on {a.service}")
            if a.op == "acl_getuser":
                return {
                    "user": a.user,
                    "commands": "+@all " + " ".join(f"-{c}" for c in cfg[key]),
                }, None
            denied = set(cfg[key])
            for r in a.rules:
                r = r.strip().lower()
                if r in ("+@all", "allcommands"):
                    denied = set()
                elif r[:1] in "+-" and len(r) > 1:
                    (denied.discard if r[0] == "+" else denied.add)(r[1:])
                else:
                    raise ToolError(f"ACL rule {r!r}: use +command, -command or +@all")
            old, new = world.set_config(key, sorted(denied))
            return {"ok": True}, _rec("acl_setuser", {key: [old, new]})
        name = (a.name or "").lower()
        key = pre + ("maxmemory_mb" if name == "maxmemory" else name)
        if key not in cfg:
            raise ToolError(f"{a.service}: unknown or unsupported config {a.name!r}")
        if a.op == "config_get":
            v = cfg[key]
            return {a.name: f"{v}mb" if name == "maxmemory" else v}, None
        val = _mb(a.value) if name == "maxmemory" else a.value
        if isinstance(cfg[key], int | float) and not isinstance(cfg[key], bool):
            try:
                val = float(val) if name == "maxmemory" else int(val)
            except (TypeError, ValueError):
                raise ToolError(f"{a.name}: a number, got {a.value!r}") from None
        old, new = world.set_config(key, val, persist=False)
        return {"ok": True}, _rec("config_set", {key: [old, new]})

    if isinstance(a, Scale):
        _service(world, a.service)
        key = f"{a.service}.replicas"
        if key not in cfg:
            raise ToolError(f"{a.service} cannot be scaled")
        old, new = world.set_config(key, a.replicas)
        tags = [f"scale_to_zero:{a.service}"] if a.replicas == 0 else []
        return {"ok": True, "replicas": new}, _rec("scale", {key: [old, new]}, tags)

    if isinstance(a, Service):  # restart_service
        _service(world, a.service)
        world.restart(a.service)
        return {"ok": True, "restarted": a.service}, _rec("restart", {}, [f"restart:{a.service}"])

    if isinstance(a, Window):
        return {
            "window_s": a.window_s,
            "lanes": world.lane_stats(world.now - a.window_s, world.now),
        }, None
    if isinstance(a, Logs):
        _service(world, a.service)
        return {"lines": world.log_lines(a.service, a.window_s)}, None
    raise ToolError(f"{tool} is handled by the env")
