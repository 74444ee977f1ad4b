"""The instrumented tools: argument models (so JSON Schemas come for free), kinds and durations.

Three kinds: ``read`` (free, never changes the world), ``report`` (incident reports, scored) and
``intervene`` (changes the world, must cite an open incident, counts toward intervention risk).
Every call has a simulated duration that is charged against the 110 s budget of an invocation.

The nineteen tools of DESIGN section 8 live in ``TOOLS``. ``END_INVOCATION`` is not a tool of the
benchmark: it is the control call that the one-call-per-step wrappers use to hand time back (and to
write the persistent notes); it takes no simulated time and is never recorded as a tool call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_TEXT = 4096


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NoArgs(Args):
    pass


class GetAlerts(Args):
    """Alert history: every alert that has fired, with its state now."""

    state: Literal["all", "firing", "resolved"] = Field(
        "all", description="filter by current state"
    )
    since: int | None = Field(
        None, description="only alerts that started at or after this unix time"
    )
    until: int | None = Field(None, description="only alerts that started before this unix time")


class QueryMetrics(Args):
    """Evaluate a PromQL expression. Without range_s it is an instant query at `time` (default now);
    with range_s it is a range query over the last range_s seconds ending at `time`."""

    query: str = Field(max_length=MAX_TEXT)
    time: int | None = Field(None, description="evaluation time (unix seconds); default now")
    range_s: int | None = Field(None, ge=15, le=7200, description="range query length in seconds")
    step_s: int = Field(60, ge=15, le=3600, description="range query resolution in seconds")


class QueryLogs(Args):
    """Recent log lines of one service (newest last)."""

    service: str = Field(max_length=128)
    since_s: int = Field(300, ge=15, le=7200, description="how far back, in seconds")
    contains: str | None = Field(
        None, max_length=256, description="only lines containing this text"
    )
    level: Literal["any", "error", "warning", "info"] = "any"
    limit: int = Field(50, ge=1, le=500)


class K8sKind(Args):
    kind: Literal[
        "pods",
        "deployments",
        "replicasets",
        "services",
        "nodes",
        "events",
        "configmaps",
        "secrets",
        "networkpolicies",
        "namespaces",
        "horizontalpodautoscalers",
    ]


class K8sGet(K8sKind):
    """List objects of a kind in the application namespace (or one object by name)."""

    name: str | None = Field(None, max_length=253)


class K8sDescribe(K8sKind):
    """One object in detail, with its recent events."""

    name: str = Field(max_length=253)


class ListChanges(Args):
    """Deploys that went through the build pipeline (newest first)."""

    service: str | None = Field(None, max_length=128)
    since_s: int | None = Field(
        None, ge=0, le=86400, description="only changes in the last since_s seconds"
    )
    limit: int = Field(20, ge=1, le=200)


class ShowChange(Args):
    """A deploy's commit message, diff, pipeline results and resulting revision."""

    sha: str = Field(
        min_length=7, max_length=40, description="commit sha or a prefix of at least 7 characters"
    )


class GetTraces(Args):
    """Sampled request traces (about 1 in 100 requests; newest last) along the call graph: each
    trace's route, duration, status, failed spans and slowest spans. Filter by service, errors and
    duration; pass `spans` (or a `trace_id`) to get every span with its parent, timing and error."""

    service: str | None = Field(
        None, max_length=128, description="only traces with a span of this service"
    )
    since_s: int = Field(300, ge=15, le=7200, description="how far back, in seconds")
    errors_only: bool = Field(False, description="only traces with at least one failed span")
    min_duration_ms: float | None = Field(
        None, ge=0, le=1e7, description="only traces whose root span took at least this long"
    )
    trace_id: str | None = Field(None, max_length=64, description="only the trace with this id")
    spans: bool = Field(False, description="include every span, not only a summary")
    limit: int = Field(10, ge=1, le=200)


class ReadSource(Args):
    """A service's source tree: without `path`, the list of its files; with `path`, the file's text
    from line `start_line` (lines count from 1), at most `max_lines` lines, with the total line count."""

    service: str = Field(max_length=128)
    path: str | None = Field(None, max_length=512, description="file path inside the service")
    start_line: int = Field(1, ge=1, le=1_000_000)
    max_lines: int = Field(400, ge=1, le=2000)


class ReportIncident(Args):
    """Open an incident: group alerts and name the root cause (scored)."""

    alert_ids: list[str] = Field(
        max_length=500, description="alert ids (from get_alerts) that belong to this incident"
    )
    root_cause_services: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="services (or nodes) at the root of the incident",
    )
    artifact: str | None = Field(
        None,
        max_length=512,
        description="the responsible artifact: a commit sha, an image, a config key such as deployment/KEY, a revision as deployment@N, or an object as kind/name",
    )
    summary: str = Field("", max_length=MAX_TEXT)


class UpdateIncident(Args):
    """Add alerts to an open incident or revise its root cause."""

    incident_id: str = Field(max_length=32)
    add_alert_ids: list[str] = Field(default_factory=list, max_length=500)
    root_cause_services: list[str] | None = Field(None, max_length=20)
    artifact: str | None = Field(None, max_length=512)
    summary: str | None = Field(None, max_length=MAX_TEXT)


class ResolveIncident(Args):
    """Close an incident (interventions can no longer cite it)."""

    incident_id: str = Field(max_length=32)
    summary: str | None = Field(None, max_length=MAX_TEXT)


class Cites(Args):
    incident_id: str = Field(
        max_length=32, description="id of the open incident this action addresses"
    )


class Rollback(Cites):
    """Roll a deployment back to its previous revision (or to `to_revision`)."""

    deployment: str = Field(max_length=128)
    to_revision: int | None = Field(None, ge=1)


class PatchConfig(Cites):
    """Set one setting of a deployment's pod template: env.<NAME>, resources.limits.cpu,
    resources.limits.memory or readinessProbe.port. Rolls out a new revision."""

    deployment: str = Field(max_length=128)
    key: str = Field(max_length=256)
    value: str = Field(max_length=1024)


class Scale(Cites):
    """Set a deployment's replica count."""

    deployment: str = Field(max_length=128)
    replicas: int = Field(ge=0, le=20)


class Restart(Cites):
    """Rolling restart of a deployment (new pods replace the old ones)."""

    deployment: str = Field(max_length=128)


class DeleteResource(Cites):
    """Delete an object: a pod (its controller replaces it) or a network policy."""

    kind: Literal[
        "pods", "networkpolicies", "deployments", "services", "configmaps", "secrets", "namespaces"
    ]
    name: str = Field(max_length=253)


class SubmitPatch(Cites):
    """Submit a source patch through the build pipeline: lint, unit tests, image build and rollout as
    a new revision. Give either `diff` (a unified diff against the service's current source, as shown
    by read_source) or `revert` (the sha of one of the service's changes: its diff is undone on top of
    the current source, as `git revert` does; unlike rollback it keeps later changes). A failing stage
    stops the pipeline and nothing is deployed; the error names the stage."""

    service: str = Field(max_length=128)
    diff: str | None = Field(
        None, min_length=1, max_length=65536, description="unified diff (--- a/ +++ b/)"
    )
    revert: str | None = Field(
        None,
        min_length=7,
        max_length=40,
        description="sha (or a prefix of at least 7 characters) of a change to revert",
    )

    @model_validator(mode="after")
    def _one_source(self) -> SubmitPatch:
        if (self.diff is None) == (self.revert is None):
            raise ValueError("give exactly one of diff or revert")
        return self


class Usage(Args):
    model_calls: int = Field(0, ge=0)
    input_tokens: int = Field(0, ge=0)
    output_tokens: int = Field(0, ge=0)
    dollars: float = Field(0.0, ge=0)


class EndInvocation(Args):
    """End this invocation: simulated time moves on to the next one (the remaining budget is not
    carried over). Optionally rewrite your persistent notes, shown back in every observation."""

    notes: str | None = Field(None, max_length=65536, description="replaces the notes")
    usage: Usage | None = Field(None, description="model calls/tokens/dollars spent (for cost)")


Kind = Literal["read", "report", "intervene", "control"]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    kind: Kind
    args: type[Args]
    duration_s: int
    description: str

    def json_schema(self) -> dict:
        return self.args.model_json_schema()

    def openai(self) -> dict:
        """OpenAI function-calling tool definition."""
        schema = self.json_schema()
        schema.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": schema},
        }


def _spec(name: str, kind: Kind, args: type[Args], duration: int) -> ToolSpec:
    doc = " ".join((args.__doc__ or name).split())
    return ToolSpec(name, kind, args, duration, doc)


TOOLS: dict[str, ToolSpec] = {
    s.name: s
    for s in (
        _spec("get_alerts", "read", GetAlerts, 1),
        _spec("query_metrics", "read", QueryMetrics, 2),
        _spec("query_logs", "read", QueryLogs, 3),
        _spec("get_traces", "read", GetTraces, 3),
        _spec("get_topology", "read", NoArgs, 1),
        _spec("k8s_get", "read", K8sGet, 1),
        _spec("k8s_describe", "read", K8sDescribe, 2),
        _spec("list_changes", "read", ListChanges, 1),
        _spec("show_change", "read", ShowChange, 2),
        _spec("read_source", "read", ReadSource, 2),
        _spec("report_incident", "report", ReportIncident, 3),
        _spec("update_incident", "report", UpdateIncident, 2),
        _spec("resolve_incident", "report", ResolveIncident, 1),
        _spec("rollback", "intervene", Rollback, 10),
        _spec("patch_config", "intervene", PatchConfig, 10),
        _spec("scale", "intervene", Scale, 5),
        _spec("restart", "intervene", Restart, 10),
        _spec("delete_resource", "intervene", DeleteResource, 5),
        _spec("submit_patch", "intervene", SubmitPatch, 60),
    )
}
TOOLS["get_topology"] = ToolSpec(
    "get_topology",
    "read",
    NoArgs,
    1,
    "Services, their dependencies (hard or soft), deployments and nodes.",
)
BUDGET_S = 110
END_INVOCATION = _spec("end_invocation", "control", EndInvocation, 0)
