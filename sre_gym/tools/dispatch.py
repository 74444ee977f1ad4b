"""Executing tool calls: validation, profile and policy, the incident store, and evidence.

A call that is malformed, unknown, refused or failing comes back as ``{"ok": false, "error": ...}``
and changes nothing; only an executed intervention or report changes state. The checks run in this
order, so each refusal is for the most basic reason: shape and tool name, access profile (refused, not
penalised), budget, argument validation, profile limits on arguments, the forbidden-operation policy
(blocked, recorded and penalised), then the tool itself (an intervention must cite an open incident).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sre_gym.backends.base import (
    Backend,
    FlagBackend,
    OperationError,
    OrchestratedBackend,
    PipelineBackend,
    RevertBackend,
    SourceBackend,
    TraceBackend,
)
from sre_gym.bundle.evidence import Evidence
from sre_gym.clock import rfc3339
from sre_gym.sim.diffs import reverse_diff
from sre_gym.telemetry.promql import PromQLError
from sre_gym.tools.inputs import depth_over, too_deep_error
from sre_gym.tools.policy import DEFAULT_PROFILE, check_profile, forbidden_reason, profile_refusal
from sre_gym.tools.specs import TOOLS

RESULT_CHARS = 16_000  # a single result shown to the agent is cut here
EVIDENCE_RESULT_CHARS = 1_000
REFUSED_S = 1  # time charged for a call that does nothing
# what list_changes shows of a change, and what show_change adds
CHANGE_SUMMARY = ("sha", "service", "kind", "title", "author", "time", "revision", "image")
CHANGE_DETAIL = (*CHANGE_SUMMARY, "files", "diff", "pipeline")


@dataclass
class Incident:
    id: str
    reported_at: float
    invocation: int
    alerts: list[str]
    culprits: list[str]
    artifact: str | None
    summary: str
    status: str = "open"
    history: list[float] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "alert_ids": list(self.alerts),
            "root_cause_services": list(self.culprits),
            "artifact": self.artifact,
            "summary": self.summary,
        }


@dataclass(frozen=True)
class Invalid:
    """A call that could not be read at all (say, an OpenAI tool call whose arguments are not JSON).

    Adapters turn such input into an ``Invalid`` so that the error is reported, in order, as that
    call's result and recorded like any other malformed call, instead of raising.
    """

    error: str
    tool: str | None = None


def short(x: Any, limit: int) -> str:
    s = x if isinstance(x, str) else json.dumps(x, sort_keys=True, ensure_ascii=True, default=str)
    return s if len(s) <= limit else s[:limit] + f"... [{len(s) - limit} more characters]"


def _errors(e: ValidationError) -> str:
    parts = []
    for err in e.errors()[:6]:
        loc = ".".join(str(x) for x in err["loc"]) or "args"
        parts.append(f"{loc}: {err['msg']}")
    more = len(e.errors()) - 6
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


class Toolbox:
    """The tools of one episode over one backend: runs calls, keeps incidents, records evidence."""

    def __init__(
        self, backend: Backend, evidence: Evidence, profile: str = DEFAULT_PROFILE
    ) -> None:
        self.b: Backend = backend
        self.ev = evidence
        self.profile = check_profile(profile)
        self.incidents: dict[str, Incident] = {}
        topo = backend.topology()
        # services, nodes and zones (a zone outage's culprit is the zone)
        self.known_entities = (
            {s["name"] for s in topo["services"]}
            | {n["name"] for n in topo["nodes"]}
            | {n["zone"] for n in topo["nodes"] if n.get("zone")}
        )
        # the app's own benchmark workloads (its load generator), protected by the policy
        self.protected = frozenset(
            s["name"] for s in topo["services"] if s.get("kind") == "loadgen"
        )

    # ------------------------------------------------------------------ entry point
    def execute(
        self, raw: Any, t: float, invocation: int, budget_left: float
    ) -> tuple[dict[str, Any], float]:
        """Run one call at time ``t``. Returns (result, simulated seconds it took)."""
        tool, args, err = self._parse(raw)
        if err is not None:
            return self._done(invocation, t, tool, args, {"ok": False, "error": err}, 0)
        spec = TOOLS[tool]
        refusal = profile_refusal(self.profile, tool)
        if refusal is not None:
            return self._done(invocation, t, tool, args, {"ok": False, "error": refusal}, 0)
        if spec.duration_s > budget_left:
            msg = f"refused: {tool} takes {spec.duration_s}s but only {budget_left:.0f}s of this invocation's budget remain"
            return self._done(invocation, t, tool, args, {"ok": False, "error": msg}, 0)
        try:
            parsed = spec.args.model_validate(args)
        except ValidationError as e:
            return self._done(
                invocation,
                t,
                tool,
                args,
                {"ok": False, "error": f"invalid arguments for {tool}: {_errors(e)}"},
                REFUSED_S,
            )
        a = parsed.model_dump()
        refusal = profile_refusal(self.profile, tool, a)
        if refusal is not None:
            return self._done(invocation, t, tool, a, {"ok": False, "error": refusal}, REFUSED_S)
        reason = forbidden_reason(tool, a, self.protected)
        if reason is not None:
            self.ev.add("forbidden", t, tool=tool, args=a, reason=reason, invocation=invocation)
            return self._done(
                invocation,
                t,
                tool,
                a,
                {"ok": False, "error": f"blocked by policy: {reason}"},
                REFUSED_S,
            )
        try:
            result = getattr(self, f"_{tool}")(a, t, invocation)
            out = {"ok": True, "result": result}
        except (OperationError, PromQLError) as e:
            out = {"ok": False, "error": str(e)}
        except RecursionError:
            out = {"ok": False, "error": f"{tool}: the request is nested too deeply"}
        return self._done(invocation, t, tool, a, out, spec.duration_s)

    def _parse(self, raw: Any) -> tuple[str, dict, str | None]:
        if isinstance(raw, Invalid):
            name = raw.tool[:64] if isinstance(raw.tool, str) else ""
            return name, {}, raw.error
        if not isinstance(raw, dict):
            return (
                "",
                {},
                f'a tool call must be an object like {{"tool": "get_alerts", "args": {{}}}}, got {type(raw).__name__}',
            )
        extra = set(raw) - {"tool", "args"}
        tool = raw.get("tool")
        args = raw.get("args", {})
        if not isinstance(tool, str):
            return "", {}, 'a tool call needs a "tool" name (string)'
        if tool not in TOOLS:
            return tool[:64], {}, f"unknown tool {tool[:64]!r}; available tools: {', '.join(TOOLS)}"
        if extra:
            return (
                tool,
                {},
                f"unexpected keys in tool call: {', '.join(sorted(str(x)[:32] for x in extra))} (use 'tool' and 'args')",
            )
        if not isinstance(args, dict):
            return tool, {}, f'"args" must be an object, got {type(args).__name__}'
        if depth_over(args):
            return tool, {}, too_deep_error()
        return tool, args, None

    def _done(
        self, invocation: int, t: float, tool: str, args: dict, out: dict, duration: float
    ) -> tuple[dict, float]:
        full = (
            json.dumps(out.get("result"), sort_keys=True, ensure_ascii=True, default=str)
            if out["ok"]
            else ""
        )
        self.ev.add(
            "tool_call",
            t,
            invocation=invocation,
            tool=tool,
            kind=TOOLS[tool].kind if tool in TOOLS else "invalid",
            args=_plain(args),
            ok=bool(out["ok"]),
            error=out.get("error"),
            duration=duration,
            result=short(full, EVIDENCE_RESULT_CHARS) if out["ok"] else None,
            result_sha256=hashlib.sha256(full.encode()).hexdigest() if out["ok"] else None,
        )
        return out, duration

    # ------------------------------------------------------------------ reads
    def _get_alerts(self, a: dict, t: float, inv: int) -> list[dict]:
        alerts = self.b.alerts(t)
        if a["state"] != "all":
            alerts = [x for x in alerts if x["state"] == a["state"]]
        if a["since"] is not None:
            alerts = [x for x in alerts if x["starts_at"] >= rfc3339(a["since"])]
        if a["until"] is not None:
            alerts = [x for x in alerts if x["starts_at"] < rfc3339(a["until"])]
        return [x | {"runbook": self.b.runbook(x["id"])} for x in alerts]

    def _query_metrics(self, a: dict, t: float, inv: int) -> dict:
        at = float(a["time"]) if a["time"] is not None else t
        if at > t:
            raise OperationError(f"time {a['time']} is in the future (now is {int(t)})")
        if a["range_s"] is None:
            return self.b.promql_instant(a["query"], at)
        return self.b.promql_range(a["query"], at - a["range_s"], at, a["step_s"])

    def _query_logs(self, a: dict, t: float, inv: int) -> list[str]:
        return self.b.logs(
            a["service"],
            t - a["since_s"],
            t,
            contains=a["contains"],
            level=a["level"],
            limit=a["limit"],
        )

    def _get_traces(self, a: dict, t: float, inv: int) -> list[dict]:
        b = self.b
        if not isinstance(b, TraceBackend):
            raise self._missing("traces", "trace queries")
        with _operation_errors():
            return b.traces(
                a["service"],
                t - a["since_s"],
                t,
                errors_only=a["errors_only"],
                min_duration_ms=a["min_duration_ms"],
                limit=a["limit"],
                trace_id=a["trace_id"],
                spans=a["spans"],
            )

    def _read_source(self, a: dict, t: float, inv: int) -> dict:
        svc = a["service"]
        if a["path"] is None:
            b = self.b
            if not isinstance(b, SourceBackend):
                raise self._missing("list_source", "source access")
            with _operation_errors():
                files = b.list_source(svc)
            return {"service": svc, "files": [str(f) for f in files]}
        b = self.b
        if not isinstance(b, SourceBackend):
            raise self._missing("read_source", "source access")
        with _operation_errors():
            text = str(b.read_source(svc, a["path"]))
        lines = text.splitlines()
        first = a["start_line"]
        if lines and first > len(lines):
            raise OperationError(
                f"{a['path']} has {len(lines)} lines; start_line {first} is past the end"
            )
        chunk = lines[first - 1 : first - 1 + a["max_lines"]]
        return {
            "service": svc,
            "path": a["path"],
            "start_line": first,
            "end_line": first - 1 + len(chunk),
            "total_lines": len(lines),
            "content": "\n".join(chunk),
        }

    def _missing(self, method: str, what: str) -> OperationError:
        """The refusal of a tool whose capability (a protocol of ``sre_gym.backends.base``) this
        backend lacks: a clear error, not a crash."""
        return OperationError(
            f"{what} is not available on this backend ({type(self.b).__name__} has no {method})"
        )

    def _get_topology(self, a: dict, t: float, inv: int) -> dict:
        return self.b.topology()

    def _k8s_get(self, a: dict, t: float, inv: int) -> Any:
        return self.b.k8s_get(a["kind"], a["name"])

    def _k8s_describe(self, a: dict, t: float, inv: int) -> dict:
        return self.b.k8s_describe(a["kind"], a["name"])

    def _list_changes(self, a: dict, t: float, inv: int) -> list[dict]:
        out = []
        for c in reversed(self.b.changes()):
            if c["t"] > t or (a["service"] and c["service"] != a["service"]):
                continue
            if a["since_s"] is not None and c["t"] < t - a["since_s"]:
                continue
            out.append({k: c[k] for k in CHANGE_SUMMARY})
            if len(out) >= a["limit"]:
                break
        return out

    def _change(self, sha: str, t: float) -> dict:
        """The one change deployed by ``t`` whose sha starts with ``sha``."""
        sha = sha.lower()
        hits = [c for c in self.b.changes() if c["sha"].startswith(sha) and c["t"] <= t]
        if not hits:
            raise OperationError(f"no change with sha {sha!r}")
        if len(hits) > 1:
            raise OperationError(f"sha prefix {sha!r} is ambiguous ({len(hits)} changes)")
        return hits[0]

    def _show_change(self, a: dict, t: float, inv: int) -> dict:
        c = self._change(a["sha"], t)
        return {k: c[k] for k in CHANGE_DETAIL}

    # ------------------------------------------------------------------ reports
    def _check_alerts(self, ids: list[str], t: float) -> list[str]:
        seen = {x["id"] for x in self.b.alerts(t)}
        unknown = [i for i in ids if i not in seen]
        if unknown:
            raise OperationError(f"unknown alert ids: {', '.join(u[:32] for u in unknown[:5])}")
        return list(dict.fromkeys(ids))

    def _check_culprits(self, names: list[str]) -> list[str]:
        bad = [n for n in names if n not in self.known_entities]
        if bad:
            raise OperationError(
                f"unknown root-cause entities: {', '.join(b[:64] for b in bad[:5])} (use service, node or zone names from get_topology)"
            )
        return list(dict.fromkeys(names))

    def _record(self, inc: Incident, t: float, action: str) -> dict:
        self.ev.add(
            "incident",
            t,
            id=inc.id,
            action=action,
            status=inc.status,
            alerts=inc.alerts,
            culprits=inc.culprits,
            artifact=inc.artifact,
            summary=short(inc.summary, EVIDENCE_RESULT_CHARS),
        )
        return inc.view()

    def _report_incident(self, a: dict, t: float, inv: int) -> dict:
        alerts = self._check_alerts(a["alert_ids"], t)
        culprits = self._check_culprits(a["root_cause_services"])
        iid = f"INC-{len(self.incidents) + 1:04d}"
        inc = Incident(iid, t, inv, alerts, culprits, a["artifact"], a["summary"])
        self.incidents[iid] = inc
        return self._record(inc, t, "reported")

    def _incident(self, iid: str) -> Incident:
        inc = self.incidents.get(iid)
        if inc is None:
            raise OperationError(f"no incident {iid[:32]!r}; report one first with report_incident")
        return inc

    def _update_incident(self, a: dict, t: float, inv: int) -> dict:
        inc = self._incident(a["incident_id"])
        if inc.status != "open":
            raise OperationError(f"incident {inc.id} is resolved")
        add = self._check_alerts(a["add_alert_ids"], t)
        culprits = (
            self._check_culprits(a["root_cause_services"])
            if a["root_cause_services"] is not None
            else None
        )
        inc.alerts = list(dict.fromkeys([*inc.alerts, *add]))
        if culprits is not None:
            inc.culprits = culprits
        if a["artifact"] is not None:
            inc.artifact = a["artifact"]
        if a["summary"] is not None:
            inc.summary = a["summary"]
        return self._record(inc, t, "updated")

    def _resolve_incident(self, a: dict, t: float, inv: int) -> dict:
        inc = self._incident(a["incident_id"])
        if inc.status != "open":
            raise OperationError(f"incident {inc.id} is already resolved")
        inc.status = "resolved"
        if a["summary"] is not None:
            inc.summary = a["summary"]
        return self._record(inc, t, "resolved")

    # ------------------------------------------------------------------ interventions
    def _scope(self, inc: Incident) -> set[str]:
        out = set(inc.culprits)
        for aid in inc.alerts:
            out.update(self.b.alert_entities(aid))
        return out

    def _intervene(self, a: dict, t: float, tool: str, target: str | None, obj: str, fn) -> str:
        inc = self._incident(a["incident_id"])
        if inc.status != "open":
            raise OperationError(f"incident {inc.id} is resolved; cite an open incident")
        scope = self._scope(inc)
        node = (
            self.b.node_of_pod(a["name"])
            if tool == "delete_resource" and a.get("kind") == "pods"
            else None
        )
        msg = fn()
        in_scope = (target in scope) or (node is not None and node in scope)
        self.ev.add(
            "intervention",
            t,
            tool=tool,
            target=target,
            object=obj,
            incident_id=inc.id,
            in_scope=bool(in_scope),
            node=node,
        )
        if isinstance(self.b, OrchestratedBackend):
            self.b.note_intervention(t, target, obj)
        return msg

    def _rollback(self, a: dict, t: float, inv: int) -> str:
        d = a["deployment"]
        return self._intervene(
            a, t, "rollback", d, f"deployment/{d}", lambda: self.b.rollback(d, a["to_revision"], t)
        )

    def _patch_config(self, a: dict, t: float, inv: int) -> str:
        d = a["deployment"]
        # a feature flag acts on the service that reads it, not on flagd
        target = (
            self.b.flag_owner(a["key"])
            if d == "flagd" and isinstance(self.b, FlagBackend)
            else None
        )
        return self._intervene(
            a,
            t,
            "patch_config",
            target or d,
            f"{d}/{a['key']}",
            lambda: self.b.patch_config(d, a["key"], a["value"], t),
        )

    def _scale(self, a: dict, t: float, inv: int) -> str:
        d = a["deployment"]
        return self._intervene(
            a, t, "scale", d, f"deployment/{d}", lambda: self.b.scale(d, a["replicas"], t)
        )

    def _restart(self, a: dict, t: float, inv: int) -> str:
        d = a["deployment"]
        return self._intervene(a, t, "restart", d, f"deployment/{d}", lambda: self.b.restart(d, t))

    def _delete_resource(self, a: dict, t: float, inv: int) -> str:
        kind, name = a["kind"], a["name"]
        target = self.b.entity_of(kind, name)
        return self._intervene(
            a, t, "delete_resource", target, f"{kind}/{name}", lambda: self.b.delete(kind, name, t)
        )

    def _submit_patch(self, a: dict, t: float, inv: int) -> Any:
        svc = a["service"]
        b = self.b
        if not isinstance(b, PipelineBackend):
            raise self._missing("submit_patch", "the build pipeline")

        def submit() -> Any:
            diff = a["diff"] if a["revert"] is None else self._revert_diff(svc, a["revert"], t)
            with _operation_errors():
                return b.submit_patch(svc, diff, t)

        return self._intervene(a, t, "submit_patch", svc, f"source/{svc}", submit)

    def _revert_diff(self, service: str, sha: str, t: float) -> str:
        """The diff that undoes one of ``service``'s changes (refused before anything runs)."""
        c = self._change(sha, t)
        if c["service"] != service:
            raise OperationError(f"change {c['sha'][:12]} belongs to {c['service']}, not {service}")
        if not c["diff"]:
            raise OperationError(
                f"change {c['sha'][:12]} has no source diff to revert ({c['kind']}); "
                "roll the deployment back instead"
            )
        if isinstance(self.b, RevertBackend):  # a repository that knows its history merges it
            return str(self.b.revert_diff(service, c["sha"]))
        return reverse_diff(c["diff"])

    def open_incidents(self) -> list[dict]:
        return [i.view() for i in self.incidents.values() if i.status == "open"]


@contextmanager
def _operation_errors() -> Iterator[None]:
    """A capability's lookup, file or value errors become refusals (``OperationError``)."""
    try:
        yield
    except OperationError:
        raise
    except (LookupError, OSError, ValueError) as e:
        raise OperationError(str(e.args[0] if e.args else e)) from e


def _plain(args: Any) -> Any:
    """Arguments as plain JSON for the record (whatever the agent sent), cut to a bounded size.
    Arguments nested too deep to walk safely are recorded as a note (nothing recursive reads them)."""
    if depth_over(args):
        return too_deep_error()
    try:
        text = json.dumps(args, sort_keys=True, ensure_ascii=True, default=str)
    except Exception:  # not JSON (keys that are not strings; objects whose str fails)
        try:
            text = json.dumps(repr(args)[:EVIDENCE_RESULT_CHARS])
        except Exception:  # an object whose repr fails: the agent's problem, not the env's
            text = json.dumps(f"<arguments of type {type(args).__name__} that are not JSON>")
    return (
        json.loads(text)
        if len(text) <= EVIDENCE_RESULT_CHARS
        else short(text, EVIDENCE_RESULT_CHARS)
    )
