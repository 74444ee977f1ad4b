"""A chatty reader: fills every invocation's budget with read calls (the worst case for bundle size
and for the cost metrics), and never reports or acts."""

from __future__ import annotations

from typing import Any

from sre_gym.agents.base import call
from sre_gym.testing.adversaries import MAX_CALLS, _Budget, _Learner

QUERIES = (
    'sum by (status_code) (rate(traces_span_metrics_calls_total{{service_name="{s}"}}[1m]))',
    "histogram_quantile(0.95, sum by (le) (rate("
    'traces_span_metrics_duration_milliseconds_bucket{{service_name="{s}"}}[5m])))',
    'sum by (server) (rate(traces_service_graph_request_failed_total{{client="{s}"}}[1m]))',
)


class ChattyReader(_Learner):
    """Every invocation: alerts, pods, deployments, events and changes, then per service (in turn)
    range queries, logs, traces, a describe, a diff and source reads, until the 110 s budget or the
    call limit runs out."""

    name = "chatty"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.turn = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        self.learn(obs)
        b = _Budget()
        for c in (
            call("get_alerts"),
            call("get_topology"),
            call("k8s_get", kind="pods"),
            call("k8s_get", kind="deployments"),
            call("k8s_get", kind="events"),
            call("list_changes", limit=200),
        ):
            b.add(c)
        services = sorted(self.entities & set(self.deployments)) or sorted(self.deployments)
        shas = sorted(self.latest_change.values())
        while services and len(b.calls) < MAX_CALLS:
            s = services[self.turn % len(services)]
            self.turn += 1
            batch = [
                *(
                    call("query_metrics", query=q.format(s=s), range_s=600, step_s=30)
                    for q in QUERIES
                ),
                call("query_logs", service=s, since_s=300, limit=100),
                call("get_traces", service=s, since_s=120, limit=10),
                call("k8s_describe", kind="deployments", name=s),
                call("read_source", service=s),
            ]
            if shas:
                batch.append(call("show_change", sha=shas[self.turn % len(shas)]))
            added = [b.add(c) for c in batch if len(b.calls) < MAX_CALLS]
            if not any(added):
                break
        return b.calls
