"""The numeric RL surface's layout: its remedies, features and the feature queries.

``wrappers/remedies.py:DiscreteRemedies`` and ``wrappers/numeric.py:NumericObservation`` build the
action and observation of the full simulator from these tables, and ``sre_gym.twin`` builds the
same ones from its arrays, so both engines speak one layout. Light: no simulator, no gymnasium.

Action ``0`` does nothing; ``1 + r * n_services + s`` applies ``REMEDIES[r]`` to serving service
``s`` (catalog order); ``1 + len(REMEDIES) * n_services + j`` evacuates node ``j``.
"""

from __future__ import annotations

REMEDIES = (
    "rollback",
    "restart",
    "scale_up",
    "delete_pods",
    "raise_cpu",
    "delete_netpol",
    "flag_off",
    "restore_env",
)
# raise_cpu's bound, so that repeated raises stop: 4 cores, more than any pod of the catalogs asks for
MAX_CPU_CORES = 4.0

WINDOW = "2m"
SERVICE_FEATURES = (
    "rps",
    "error_ratio",
    "p95",
    "ready",
    "desired",
    "restarts",
    "waiting",
    "revision_age",
    "firing_alerts",
    "firing_callees",
    "cpu_throttle",
    "egress_policies",
    "flags_changed",
    "open_incident",
    "since_action",
    "env_drift",
)
GLOBAL_FEATURES = ("progress", "firing_total", "open_incidents")
_SPAN = 'span_kind="SPAN_KIND_SERVER"'
QUERIES = {
    "rps": f"sum by (service_name) (rate(traces_span_metrics_calls_total{{{_SPAN}}}[{WINDOW}]))",
    "errors": (
        "sum by (service_name) (rate(traces_span_metrics_calls_total"
        f'{{{_SPAN},status_code="STATUS_CODE_ERROR"}}[{WINDOW}]))'
    ),
    "p95": (
        "histogram_quantile(0.95, sum by (service_name, le) "
        f"(rate(traces_span_metrics_duration_milliseconds_bucket{{{_SPAN}}}[{WINDOW}])))"
    ),
    "ready": "kube_deployment_status_replicas_available",
    "desired": "kube_deployment_spec_replicas",
    "restarts": "sum by (pod) (increase(kube_pod_container_status_restarts_total[5m]))",
    "waiting": "sum by (pod) (kube_pod_container_status_waiting_reason)",
    "throttle": (
        f"sum by (pod) (rate(container_cpu_cfs_throttled_periods_total[{WINDOW}])) "
        f"/ sum by (pod) (rate(container_cpu_cfs_periods_total[{WINDOW}]))"
    ),
}


def n_actions(n_services: int, n_nodes: int) -> int:
    """Size of the discrete action space."""
    return 1 + len(REMEDIES) * n_services + n_nodes
