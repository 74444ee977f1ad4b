"""What the live backend reads off Kubernetes API objects and log lines: pure functions, no client.

The objects are plain JSON dicts in the API's own wire shape (camelCase keys), as
``ApiClient.sanitize_for_serialization`` returns them: their metadata, revisions and pod templates,
the owner of a pod or ReplicaSet, the STATUS column of ``kubectl get pods`` (``pod_status``), and the
level of a log line (``log_level``; Kubernetes keeps none). Nothing here imports the ``live`` extra.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sre_gym.clock import rfc3339
from sre_gym.sim.k8s_view import age

REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"
PROBE_HANDLERS = ("httpGet", "grpc", "tcpSocket")
_ERROR_WORD = re.compile(r"\b(ERROR|ERR|FATAL|PANIC|CRITICAL|SEVERE|EMERG|ALERT)\b|^fail:|^panic:")
_WARN_WORD = re.compile(r"\b(WARN|WARNING)\b|^warn:")
_LOGFMT_LEVEL = re.compile(r"\blevel=\"?(\w+)")


def _age(now: float, t: float | None) -> str:
    return "<unknown>" if t is None else age(now, t)


def _iso(t: float | None) -> str | None:
    return rfc3339(t) if t is not None else None


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _annotations(obj: dict) -> dict[str, str]:
    return _meta(obj).get("annotations") or {}


def _labels(obj: dict) -> dict[str, str]:
    return _meta(obj).get("labels") or {}


def _revision(obj: dict) -> int | None:
    v = _annotations(obj).get(REVISION)
    return int(v) if isinstance(v, str) and v.isdigit() else None


def _containers(template: dict) -> list[dict]:
    return (template.get("spec") or {}).get("containers") or []


def _image(template: dict) -> str | None:
    cs = _containers(template)
    return cs[0].get("image") if cs else None


def _probe_port(probe: dict | None) -> Any:
    if not probe:
        return None
    for h in PROBE_HANDLERS:
        if isinstance(probe.get(h), dict) and "port" in probe[h]:
            return probe[h]["port"]
    return None


def _template_view(container: dict, annotations: dict[str, str]) -> dict:
    """A container the way the simulator's ``describe`` shows a pod template."""
    env = []
    for e in container.get("env") or []:
        if "valueFrom" in e:
            env.append({"name": e.get("name"), "value_from": e["valueFrom"]})
        else:
            env.append({"name": e.get("name"), "value": e.get("value", "")})
    limits = (container.get("resources") or {}).get("limits") or {}
    port = _probe_port(container.get("readinessProbe"))
    return {
        "image": container.get("image"),
        "env": env,
        "resources": {"limits": {"cpu": limits.get("cpu"), "memory": limits.get("memory")}},
        "readinessProbe": {"port": port} if port is not None else None,
        "annotations": dict(annotations),
    }


def _template_key(template: dict) -> str:
    """A pod template's identity without the pod-template-hash label (as ``rollout undo`` compares)."""
    t = json.loads(json.dumps(template))
    ((t.get("metadata") or {}).get("labels") or {}).pop(HASH_LABEL, None)
    return json.dumps(t, sort_keys=True)


def _owner_deployment(pod: dict) -> str | None:
    """The deployment of a pod: its ReplicaSet's name minus the pod-template-hash (or its app label)."""
    h = _labels(pod).get(HASH_LABEL)
    for ref in _meta(pod).get("ownerReferences") or []:
        name = ref.get("name") or ""
        if ref.get("kind") == "ReplicaSet" and h and name.endswith(f"-{h}"):
            return name[: -len(h) - 1]
    return _labels(pod).get("app")


def _rs_deployment(rs: dict) -> str | None:
    for ref in _meta(rs).get("ownerReferences") or []:
        if ref.get("kind") == "Deployment":
            return ref.get("name")
    return None


def pod_status(pod: dict) -> str:
    """The STATUS column of ``kubectl get pods`` (waiting/terminated reasons win over the phase)."""
    st = pod.get("status") or {}
    if _meta(pod).get("deletionTimestamp"):
        return "Unknown" if st.get("reason") == "NodeLost" else "Terminating"
    reason = st.get("reason") or st.get("phase") or "Unknown"
    running = False
    for cs in reversed(st.get("containerStatuses") or []):
        state = cs.get("state") or {}
        waiting, term = state.get("waiting") or {}, state.get("terminated") or {}
        if waiting.get("reason"):
            reason = waiting["reason"]
        elif term.get("reason"):
            reason = term["reason"]
        elif term:
            reason = (
                f"Signal:{term['signal']}"
                if term.get("signal")
                else f"ExitCode:{term.get('exitCode')}"
            )
        elif cs.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        reason = "Running"
    return reason


def log_level(line: str) -> str:
    """``error``, ``warning`` or ``info``, inferred from a log line (Kubernetes keeps no level)."""
    s = line.strip()
    if s.startswith("{"):
        try:
            obj = json.loads(s)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            for key in ("severity", "level", "lvl", "levelname", "log.level", "loglevel"):
                v = obj.get(key)
                if isinstance(v, int | float) and not isinstance(v, bool):  # pino / bunyan numbers
                    return "error" if v >= 50 else "warning" if v >= 40 else "info"
                if isinstance(v, str) and v:
                    v = v.lower()
                    if v.startswith(("err", "fatal", "crit", "panic", "alert", "emerg", "severe")):
                        return "error"
                    return "warning" if v.startswith("warn") else "info"
    m = _LOGFMT_LEVEL.search(s)
    if m:
        v = m.group(1).lower()
        if v.startswith(("err", "fatal", "crit", "panic")):
            return "error"
        return "warning" if v.startswith("warn") else "info"
    if _ERROR_WORD.search(s):
        return "error"
    if _WARN_WORD.search(s):
        return "warning"
    return "info"
