"""The arena's structured tools: argument schemas (pydantic), durations, access surfaces, and their
execution on a world that offers the small ``ArenaWorld`` interface (duck-typed: this module imports
no simulator).

No free SQL or RESP text: every operation is a structured call (Incident-Arena's agents used
``psql``, ``mysql`` and ``redis-cli`` for the same operations). Operations keep the real systems'
split between what runs and what is stored: Redis ``CONFIG SET`` and ``ACL SETUSER`` and MariaDB
``SET GLOBAL`` change only the running server (``CONFIG REWRITE`` and ``ACL SAVE`` store them);
PostgreSQL ``ALTER SYSTEM`` only stores (a ``reload`` applies it); role settings and grants are
stored in the catalog; a service's ``PUT /admin/config`` writes its Deployment's configuration and
applies it (settings read at start roll the pods); the maintenance controller's schedule is stored
only with ``persist``.

Every intervention returns a record of exactly what it changed (running settings, stored settings,
switches: a diff of the world's state around the call) and tags for the operations a task may
forbid (``flushall:<svc>``, ``restart:<svc>``, ``scale_to_zero:<svc>``, ``disable:db-maintenance``,
``event_on:<event>`` / ``event_off:<event>``).
"""

from __future__ import annotations

import copy
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

MAX_WAIT_S = 600


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HttpAdmin(Args):
    service: str
    method: Literal["GET", "PUT"] = "GET"
    path: str = Field(description="/admin/config, /admin/event, /admin/stats; /v1/maintenance")
    body: dict[str, Any] = {}


class DbQuery(Args):
    kind: Literal["settings", "grants", "sessions", "checkpoints", "locks", "sequences"]


class DbAdmin(Args):
    op: Literal[
        "set_global",
        "alter_system",
        "reload",
        "alter_role_set",
        "alter_role_reset",
        "grant",
        "revoke",
        "terminate_backend",
        "resequence",
        "delete_duplicates",
    ]
    name: str | None = None
    value: Any = None
    role: str | None = None
    database: str | None = None
    account: str | None = None
    privilege: str | None = None
    pid: int | None = None
    state: str | None = Field(
        None, description='with terminate_backend: e.g. "idle in transaction"'
    )
    channel: str | None = None


class Redis(Args):
    service: str
    op: Literal[
        "config_get",
        "config_set",
        "config_rewrite",
        "acl_getuser",
        "acl_setuser",
        "acl_save",
        "flushall",
        "info",
    ]
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
    contains: str | None = Field(None, max_length=256)
    level: Literal["any", "error", "warn", "info"] = "any"


class Wait(Args):
    seconds: int = Field(ge=1, le=MAX_WAIT_S)


class Report(Args):
    summary: str = Field(max_length=4000)
    components: list[str] = []


class NoArgs(Args):
    pass


class QueryMetrics(Args):
    """A PromQL query over the substrate's metrics (Prometheus scrapes every 15 s): an instant
    query now, or a range query over the last ``range_s`` seconds."""

    query: str = Field(max_length=2000)
    time: int | None = Field(
        None, ge=0, description="evaluation time (s into the run); default now"
    )
    range_s: int | None = Field(None, ge=15, le=3600)
    step_s: int = Field(15, ge=15, le=600)


class Shell(Args):
    """A read-only command in a pod the task opens to a shell: ls, cat, head, tail, grep, ps."""

    pod: str = Field(max_length=128)
    command: str = Field(max_length=512)


class ReadSource(Args):
    service: str
    path: str | None = None  # None: list the service's source files


class EditSource(Args):
    service: str
    path: str
    find: str = Field(max_length=4000)
    replace: str = Field(max_length=4000)


# tool -> (argument model, duration in simulated seconds, description)
TOOLS: dict[str, tuple[type[Args], int, str]] = {
    "http_admin": (
        HttpAdmin,
        3,
        "Call a service's admin API: GET or PUT /admin/config (a PUT writes the service's "
        "configuration and applies it; settings read at start roll the pods one by one), "
        "/admin/event, GET /admin/stats; /v1/maintenance on db-maintenance (a PUT changes the "
        'running schedule; add "persist": true to store it, which a controller restart re-reads).',
    ),
    "db_query": (
        DbQuery,
        2,
        "Read the database: settings with their scope, grants, sessions, checkpoint statistics, "
        "locks, sequences.",
    ),
    "db_admin": (
        DbAdmin,
        5,
        "Change the database: set_global (MariaDB, running server only), alter_system "
        "(PostgreSQL, stored; applied by reload), reload, alter_role_set, alter_role_reset, grant, "
        "revoke, terminate_backend (by pid, role or state), resequence (renumber a channel's "
        "messages under its lock), delete_duplicates.",
    ),
    "redis": (
        Redis,
        2,
        "Redis CONFIG GET/SET (running server), CONFIG REWRITE (store the running config in "
        "redis.conf), ACL GETUSER/SETUSER (running), ACL SAVE (store the ACL file), INFO or "
        "FLUSHALL on a Redis service.",
    ),
    "restart_service": (
        Service,
        30,
        "Restart a service: a rolling restart of an application (pods come up one by one from the "
        "stored configuration); a database or cache goes down for a moment and comes back with "
        "its stored settings.",
    ),
    "scale_service": (Scale, 10, "Set a service's replica count."),
    "metrics": (
        Window,
        3,
        "Per-lane request rate, error rate and p50/p99 latency over the last window.",
    ),
    "logs": (
        Logs,
        3,
        "A service's recent log lines (newest last, at most 100): access summaries, errors and "
        "background noise; filter by level or text.",
    ),
    "wait": (Wait, 0, "Let time pass (1-600 s) while the load continues."),
    "submit_incident_report": (
        Report,
        5,
        "Record an incident report (advisory; it does not end the session).",
    ),
    "declare_repair_complete": (NoArgs, 0, "Declare the repair complete. This ends your session."),
    "query_metrics": (
        QueryMetrics,
        2,
        "PromQL over the substrate's metrics (per-lane request counters and latency, per-pod "
        'pool, queue and restart series; list them with the query {__name__=~".+"}).',
    ),
    "shell": (
        Shell,
        2,
        "Run a read-only command (ls, cat, head, tail, grep, ps) in a pod this task opens to a "
        "shell; files include the service's configuration and logs.",
    ),
    "read_source": (ReadSource, 2, "List a service's source files, or read one."),
    "edit_source": (
        EditSource,
        5,
        "Edit a service's source: replace one exact occurrence of `find` with `replace`.",
    ),
    "rebuild": (
        Service,
        60,
        "Build the service's image from its current source and roll it out (pods come up one "
        "by one on the new image).",
    ),
}
READS = ("db_query", "metrics", "logs", "query_metrics", "shell", "read_source")
SHELL_TOOLS = ("shell",)
BUILD_TOOLS = ("read_source", "edit_source", "rebuild")
CONFINED = tuple(n for n in TOOLS if n not in (*SHELL_TOOLS, *BUILD_TOOLS))
# the tools of each access surface (Incident-Arena's agent access profiles); each adds to the last
ACCESS_TOOLS: dict[str, tuple[str, ...]] = {
    "confined": CONFINED,
    "shell-visible": (*CONFINED, *SHELL_TOOLS),
    "build-capable": (*CONFINED, *SHELL_TOOLS, *BUILD_TOOLS),
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$", re.I)
MAINTENANCE_FIELDS = ("enabled", "period_s", "offset_s", "duration_s")


class ToolError(ValueError):
    """A call the tool refuses; the state is untouched."""


def schemas(access: str = "build-capable") -> list[dict[str, Any]]:
    """OpenAI-style function schemas of the arena tools an access surface offers."""
    return [
        {
            "type": "function",
            "function": {"name": n, "description": d, "parameters": m.model_json_schema()},
        }
        for n, (m, _, d) in TOOLS.items()
        if n in ACCESS_TOOLS[access]
    ]


def refusal(access: str, tool: str) -> str | None:
    """Why the access surface refuses the tool, or None."""
    if tool in ACCESS_TOOLS[access]:
        return None
    need = next(p for p, names in ACCESS_TOOLS.items() if tool in names)
    return f"{tool} is not available on the {access!r} access surface (it needs {need!r})"


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


_ON = {"on": True, "true": True, "yes": True, "1": True}
_OFF = {"off": False, "false": False, "no": False, "0": False}


def coerce(name: str, current: Any, value: Any) -> Any:
    """``value`` in the type of the setting's ``current`` value: a number sent as text ("20") is
    that number, "ON"/"OFF" is a switch; anything else is a clear error, never a silently wrong
    setting."""
    if isinstance(current, bool):
        if isinstance(value, bool):
            return value
        low = str(value).strip().lower()
        if low in _ON or low in _OFF:
            return _ON.get(low, False)
        raise ToolError(f"{name} is a switch (true/false or ON/OFF), got {value!r}")
    if isinstance(current, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ToolError(f"{name} is a number, got {value!r}")
        try:
            num = float(value)
        except ValueError:
            raise ToolError(f"{name} is a number, got {value!r}") from None
        if num != num or num < 0 or num in (float("inf"), float("-inf")):
            raise ToolError(f"{name} must be a finite number >= 0, got {value!r}")
        if isinstance(current, int):
            if not num.is_integer():
                raise ToolError(f"{name} is a whole number, got {value!r}")
            return int(num)
        return num
    if isinstance(current, list):
        if not isinstance(value, list):
            raise ToolError(f"{name} is a list, got {value!r}")
        return value
    if current is not None and not isinstance(value, str):
        raise ToolError(f"{name} is text, got {value!r}")
    return value


def _state(world: Any) -> tuple[dict, dict, dict]:
    return (copy.deepcopy(world.config), copy.deepcopy(world.persisted), dict(world.events))


def _diff(a: dict, b: dict) -> dict[str, list[Any]]:
    return {k: [a.get(k), b.get(k)] for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def execute(world: Any, tool: str, a: Args) -> tuple[Any, dict[str, Any] | None]:
    """(result, intervention record or None). ``world`` offers ArenaWorld's interface. The record
    says what changed: ``keys`` (running settings), ``stored`` (what a restart reads back) and
    ``events`` (switches), each ``{name: [old, new]}``."""
    before = _state(world)
    try:
        result, rec = _execute(world, tool, a)
    except ToolError:
        raise
    except (KeyError, ValueError) as e:
        raise ToolError(str(e).strip("'\"")) from None
    if rec is not None:
        after = _state(world)
        rec["keys"] = _diff(before[0], after[0])
        rec["stored"] = _diff(before[1], after[1])
        rec["events"] = _diff(before[2], after[2])
    return result, rec


def _rec(op: str, tags: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"op": op, "tags": tags or [], **kw}


def _service(world: Any, svc: str) -> None:
    if svc not in world.sub.services:
        raise ToolError(f"unknown service {svc!r}; services: {', '.join(world.sub.services)}")


def _execute(world: Any, tool: str, a: Args):
    if isinstance(a, HttpAdmin):
        return _http(world, a)
    if isinstance(a, DbQuery):
        return world.db_view(a.kind), None
    if isinstance(a, DbAdmin):
        return _db_admin(world, a)
    if isinstance(a, Redis):
        return _redis(world, a)
    if isinstance(a, Scale):
        _service(world, a.service)
        key = f"{a.service}.replicas"
        if key not in world.config:
            raise ToolError(f"{a.service} cannot be scaled")
        world.set_config(key, a.replicas)
        tags = [f"scale_to_zero:{a.service}"] if a.replicas == 0 else []
        return {"ok": True, "replicas": a.replicas}, _rec("scale", tags)
    if tool == "rebuild":
        _service(world, a.service)
        return world.rebuild(a.service), _rec("rebuild", [f"rebuild:{a.service}"])
    if isinstance(a, Service):  # restart_service
        _service(world, a.service)
        res = world.restart(a.service)
        return {"ok": True, "restarted": a.service, **res}, _rec(
            "restart", [f"restart:{a.service}"]
        )
    if isinstance(a, Window):
        return {
            "window_s": a.window_s,
            "lanes": world.lane_stats(world.now - a.window_s, world.now),
        }, None
    if isinstance(a, Logs):
        _service(world, a.service)
        return {"lines": world.log_lines(a.service, a.window_s, a.contains, a.level)}, None
    if isinstance(a, QueryMetrics):
        if a.time is not None and a.time > world.now:
            raise ToolError(f"time {a.time} is in the future (now is {int(world.now)})")
        return world.promql(a.query, a.range_s, a.step_s, a.time), None
    if isinstance(a, Shell):
        return world.shell(a.pod, a.command), None
    if isinstance(a, ReadSource):
        _service(world, a.service)
        return world.read_source(a.service, a.path), None
    if isinstance(a, EditSource):
        _service(world, a.service)
        return world.edit_source(a.service, a.path, a.find, a.replace), _rec(
            "edit_source", [f"edit_source:{a.service}"]
        )
    raise ToolError(f"{tool} is handled by the env")


def _http(world: Any, a: HttpAdmin):
    _service(world, a.service)
    cfg = world.config
    pre = f"{a.service}."
    if a.path == "/admin/config":
        hidden = set(world.sub.hidden_keys)
        if a.method == "GET":
            return {
                k[len(pre) :]: v
                for k, v in sorted(cfg.items())
                if k.startswith(pre) and k not in hidden
            }, None
        vals = {}
        for k, v in a.body.items():
            full = pre + k
            if full not in cfg or full.startswith("db-maintenance.") or full in hidden:
                raise ToolError(f"{a.service} has no setting {k!r}")
            if full in world.sub.managed_keys:
                raise ToolError(f"{k} is not set here: {world.sub.managed_keys[full]}")
            vals[full] = coerce(k, cfg[full], v)
        for full, v in vals.items():
            world.set_config(full, v)
        tags = [
            f"scale_to_zero:{a.service}"
            for k, v in vals.items()
            if k == pre + "replicas" and v == 0
        ]
        return {"updated": sorted(a.body), "rollout": world.pods.snapshot().get(a.service)}, _rec(
            "config", tags
        )
    if a.path == "/admin/event":
        evs = {k[len(pre) :]: v for k, v in world.events.items() if k.startswith(pre)}
        if a.method == "GET":
            return {"events": evs}, None
        name, active = a.body.get("name"), a.body.get("active")
        if name not in evs or not isinstance(active, bool):
            raise ToolError(
                f'PUT /admin/event takes {{"name": one of {sorted(evs)}, "active": bool}}'
            )
        world.set_event(pre + name, active)
        tag = f"event_{'on' if active else 'off'}:{pre}{name}"
        return {"name": name, "active": active}, _rec("event", [tag])
    if a.path == "/admin/stats":
        if a.method != "GET":
            raise ToolError("/admin/stats is read-only")
        return world.pool_stats(a.service), None
    if a.path == "/v1/maintenance":
        return _maintenance(world, a)
    route = world.admin_routes(a.service).get(a.path)
    if route is None:
        listed = [p for p, r in world.admin_routes(a.service).items() if not r.hidden]
        routes = ["/admin/config", "/admin/event", "/admin/stats", *listed]
        if a.service == "db-maintenance":
            routes = ["/v1/maintenance"]
        raise ToolError(f"{a.service} serves {', '.join(routes)}; not {a.path!r}")
    if a.method == "GET":
        return route.get(), None
    body = dict(a.body)
    persist = body.pop("persist", False)
    if not isinstance(persist, bool):
        raise ToolError("persist is true or false")
    res, tags = route.put(body, persist)
    return res, _rec(route.op, tags)


def _maintenance(world: Any, a: HttpAdmin):
    cfg = world.config
    if a.service != "db-maintenance":
        raise ToolError("/v1/maintenance is served by db-maintenance")
    if a.method == "GET":
        out = {f: cfg[f"db-maintenance.{f}"] for f in MAINTENANCE_FIELDS}
        stored = {f: world.persisted[f"db-maintenance.{f}"] for f in MAINTENANCE_FIELDS}
        return {**out, "stored": stored}, None
    body = dict(a.body)
    persist = body.pop("persist", False)
    if not isinstance(persist, bool):
        raise ToolError("persist is true or false")
    bad = set(body) - set(MAINTENANCE_FIELDS)
    if bad:
        raise ToolError(
            f"unknown maintenance fields {sorted(bad)}; fields: {list(MAINTENANCE_FIELDS)}, persist"
        )
    vals = {f: coerce(f, cfg[f"db-maintenance.{f}"], v) for f, v in body.items()}
    if vals.get("period_s", 1) < 1:
        raise ToolError("maintenance period_s must be at least 1")
    for f, v in vals.items():
        world.set_config(f"db-maintenance.{f}", v, persist=persist)
    if persist:  # the stored schedule is the running one, fields not sent included
        world.persist("db-maintenance.")
    tags = ["disable:db-maintenance"] if vals.get("enabled") is False else []
    out = {f: cfg[f"db-maintenance.{f}"] for f in MAINTENANCE_FIELDS}
    return {**out, "persisted": persist}, _rec("maintenance", tags)


def _db_admin(world: Any, a: DbAdmin):
    cfg = world.config
    engine = "mariadb" if world.sub.id == "frappe" else "postgres"
    if a.op in ("set_global", "alter_system"):
        if not a.name:
            raise ToolError(f"{a.op} needs name and value")
        if engine == "mariadb" and a.op == "alter_system":
            raise ToolError("alter_system is PostgreSQL; use set_global on MariaDB")
        if engine == "postgres" and a.op == "set_global":
            raise ToolError("PostgreSQL has no SET GLOBAL; use alter_system, then reload")
        key = f"{engine}.{a.name}"
        if key not in cfg:
            raise ToolError(f"unknown {engine} setting {a.name!r}")
        val = coerce(a.name, cfg[key], a.value)
        if a.op == "set_global":
            world.set_config(key, val, persist=False)
            return {"ok": True, "name": a.name, "value": val}, _rec("set_global")
        world.set_config(key, val, persist=True, running=False)
        return {"ok": True, "name": a.name, "stored": val, "note": "applied on reload"}, _rec(
            "alter_system"
        )
    if a.op == "reload":
        if engine != "postgres":
            raise ToolError("reload is PostgreSQL's pg_reload_conf()")
        changed = world.reload("postgres.")
        return {"ok": True, "applied": changed}, _rec("reload")
    if a.op in ("alter_role_set", "alter_role_reset"):
        if engine != "postgres" or not a.role or not a.name:
            raise ToolError(f"{a.op} needs role and name (PostgreSQL)")
        if a.name not in world.sub.scoped_settings:
            raise ToolError(
                f"{a.name} cannot be set per role here; settings: {world.sub.scoped_settings}"
            )
        scope = f"role={a.role}" + (f",db={a.database}" if a.database else "")
        key = f"postgres.{a.name}@{scope}"
        val = None
        if a.op == "alter_role_set":
            val = coerce(a.name, 0, a.value)
        world.add_scoped(key, val)
        return {"ok": True, "scope": scope, "value": val}, _rec(a.op)
    if a.op in ("grant", "revoke"):
        if engine != "mariadb" or not a.account or not a.privilege:
            raise ToolError(f"{a.op} needs account and privilege (MariaDB)")
        key = f"mariadb.grants.{a.account}"
        if key not in cfg:
            raise ToolError(f"unknown account {a.account!r}")
        cur = set(cfg[key])
        p = a.privilege.upper()
        cur = cur | {p} if a.op == "grant" else cur - {p}
        world.set_config(key, sorted(cur))
        tags = ["grant_all"] if p in ("ALL", "ALL PRIVILEGES") else []
        return {"ok": True, "grants": sorted(cur)}, _rec(a.op, tags)
    if a.op in ("resequence", "delete_duplicates"):
        if engine != "postgres":
            raise ToolError(f"{a.op} works on the message store (PostgreSQL)")
        if a.op == "resequence":
            return world.resequence(a.channel), _rec("resequence")
        return world.delete_duplicates(), _rec("delete_duplicates", ["delete:messages"])
    # terminate_backend
    n = world.terminate_sessions(role=a.role, pid=a.pid, state=a.state)
    return {"terminated": n}, _rec("terminate_backend", count=n)


def _redis(world: Any, a: Redis):
    _service(world, a.service)
    if not a.service.startswith("redis"):
        raise ToolError(f"{a.service} is not a Redis service")
    cfg = world.config
    pre = f"{a.service}."
    if a.op == "info":
        return world.redis_info(a.service), None
    if a.op == "flushall":
        if "flushall" in cfg.get(f"{pre}acl.{a.user}.denied", []):
            raise ToolError(
                f"NOPERM User {a.user} has no permissions to run the 'flushall' command"
            )
        world.flushall(a.service)
        return {"ok": True}, _rec("flushall", [f"flushall:{a.service}"])
    if a.op == "config_rewrite":
        keys = [k for k in world.persist(pre) if ".acl." not in k]
        return {"ok": True, "rewritten": keys}, _rec("config_rewrite")
    acl_pre = f"{pre}acl."
    if a.op == "acl_save":
        if not any(k.startswith(acl_pre) for k in cfg):
            raise ToolError(f"{a.service} has no ACL file")
        world.persist(acl_pre)
        return {"ok": True}, _rec("acl_save")
    if a.op in ("acl_getuser", "acl_setuser"):
        key = f"{acl_pre}{a.user}.denied"
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
        world.set_config(key, sorted(denied), persist=False)
        return {"ok": True}, _rec("acl_setuser")
    name = (a.name or "").lower()
    key = pre + ("maxmemory_mb" if name == "maxmemory" else name)
    if key not in cfg or ".acl." in key:
        raise ToolError(f"{a.service}: unknown or unsupported config {a.name!r}")
    if a.op == "config_get":
        v = cfg[key]
        return {a.name: f"{v}mb" if name == "maxmemory" else v}, None
    val = _mb(a.value) if name == "maxmemory" else coerce(name, cfg[key], a.value)
    if name == "maxmemory":
        val = float(val)
    world.set_config(key, val, persist=False)
    return {"ok": True}, _rec("config_set")
