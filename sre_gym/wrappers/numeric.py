"""NumericObservation: a fixed-size float vector for classic RL (RLlib PPO, SB3).

Neural policies need flat numeric inputs, not JSON text. Each invocation's observation becomes a
``Box`` of float32 in [0, 1], built only from what an agent could observe with its own tools at the
invocation's start: PromQL over the same TSDB that ``query_metrics`` reads, Kubernetes state as
``k8s_get``/``k8s_describe`` show it, and the alert history. Never from probes or ground truth.

Layout (``feature_names()`` spells it out): for each serving service, in catalog order,
``rps`` (log1p requests/s / 10), ``error_ratio``, ``p95`` (log1p ms / 12), ``ready`` and ``desired``
replicas (/ 20), ``restarts`` in the last 5 min (/ 20), ``waiting`` containers (/ 10),
``revision_age`` (log1p s / 10), ``firing_alerts`` naming it (/ 10), ``firing_callees`` (how many
of the services it calls, as ``get_topology`` lists them, have firing alerts, / 5: a service that
alerts while its dependencies do not is where an SRE looks first), ``cpu_throttle`` (the largest
share of CFS periods throttled among its pods), ``egress_policies`` restricting it (/ 5),
``flags_changed`` (its feature flags off their default, / 5), ``open_incident`` (1 if an open
incident names it a root cause) and ``since_action`` (invocations since the agent's last
intervening call on it, / 10, 1 if none: the policy's memory of its own actions, from the calls
this wrapper passed on) and ``env_drift`` (env vars of its running template that differ from its
manifest in git, / 5: a hand edit); then each node's readiness;
then the invocation's progress, all firing alerts (/ 100) and open incidents (/ 50). Values are
clipped, NaN (no traffic) is 0, so every observation is inside the bounds.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym import fmath
from sre_gym.backends.base import OperationError, alert_entities
from sre_gym.envs.numeric_layout import GLOBAL_FEATURES, QUERIES, SERVICE_FEATURES, WINDOW
from sre_gym.sim.topology import compile_topology
from sre_gym.wrappers.observed import (
    call_workload,
    egress_policies,
    env_drift,
    flags_changed,
    pod_owner,
)
from sre_gym.wrappers.tool_call_steps import marathon_of

__all__ = [
    "GLOBAL_FEATURES",
    "QUERIES",
    "SERVICE_FEATURES",
    "WINDOW",
    "NumericObservation",
]


def _ts(iso: str) -> float:
    return dt.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()


def _num(v: Any) -> float:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return 0.0
    return x if math.isfinite(x) else 0.0


class NumericObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Flat float32 ``Box`` of per-service golden signals, Kubernetes state, alert counts and the
    agent's own incidents and recent interventions."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.ObservationWrapper.__init__(self, env)
        self.base = marathon_of(env)
        topo = compile_topology(self.base.app)
        self.services: tuple[str, ...] = topo.names
        self._app = topo.app
        self.nodes: tuple[str, ...] = tuple(n.name for n in topo.app.nodes)
        n = len(self.services) * len(SERVICE_FEATURES) + len(self.nodes) + len(GLOBAL_FEATURES)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(n,), dtype=np.float32)
        self._acted: dict[str, int] = {}  # service -> invocation of the last intervention on it
        self._callees: dict[str, list[str]] | None = None  # from get_topology, read once

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict]:
        self._acted = {}
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        # noted before the calls run: a deleted NetworkPolicy's selector is read while it exists
        calls = action.get("calls") if isinstance(action, dict) else action
        if isinstance(calls, list) and self.base.backend is not None:
            for c in calls:
                w = call_workload(c, self.base.backend, self._app) if isinstance(c, dict) else None
                if w in self.services:
                    self._acted[w] = self.base.invocation
        return super().step(action)

    def feature_names(self) -> list[str]:
        """Name of every component, in order (``service.feature``, ``node.ready``, globals)."""
        out = [f"{s}.{f}" for s in self.services for f in SERVICE_FEATURES]
        out += [f"{nd}.ready" for nd in self.nodes]
        return out + list(GLOBAL_FEATURES)

    def callees(self) -> dict[str, list[str]]:
        """Each serving service's callees, as ``get_topology`` shows them (read once)."""
        if self._callees is None:
            topo = self.base.backend.topology()
            self._callees = {
                s["name"]: [c["service"] for c in s.get("calls", [])]
                for s in topo["services"]
                if s["name"] in self.services
            }
        return self._callees

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        return self.features(float(observation["time"]))

    def features(self, t: float) -> np.ndarray:
        """The feature vector as of simulated time ``t`` (the current invocation's start)."""
        base = self.base
        b = base.backend
        svc_i = {s: i for i, s in enumerate(self.services)}
        f = np.zeros((len(self.services), len(SERVICE_FEATURES)), dtype=np.float64)
        col = {k: j for j, k in enumerate(SERVICE_FEATURES)}

        def per(query: str, label: str) -> dict[str, float]:
            res = b.promql_instant(query, t)["result"]
            return {r["metric"].get(label, ""): _num(r["value"][1]) for r in res}

        rps = per(QUERIES["rps"], "service_name")
        errs = per(QUERIES["errors"], "service_name")
        p95 = per(QUERIES["p95"], "service_name")
        ready = per(QUERIES["ready"], "deployment")
        desired = per(QUERIES["desired"], "deployment")
        restarts: dict[str, float] = {}
        for pod, v in per(QUERIES["restarts"], "pod").items():
            restarts[pod_owner(pod)] = restarts.get(pod_owner(pod), 0.0) + v
        waiting: dict[str, float] = {}
        for pod, v in per(QUERIES["waiting"], "pod").items():
            waiting[pod_owner(pod)] = waiting.get(pod_owner(pod), 0.0) + v
        throttle: dict[str, float] = {}
        for pod, v in per(QUERIES["throttle"], "pod").items():
            throttle[pod_owner(pod)] = max(throttle.get(pod_owner(pod), 0.0), v)
        fenced = egress_policies(b, self.services)
        flagged = flags_changed(b, self._app)
        filed = {c for inc in base.toolbox.open_incidents() for c in inc["root_cause_services"]}
        for s, i in svc_i.items():
            r = rps.get(s, 0.0)
            f[i, col["rps"]] = max(r, 0.0)  # (log-scaled below, as p95 and revision_age)
            f[i, col["error_ratio"]] = errs.get(s, 0.0) / r if r > 0 else 0.0
            f[i, col["p95"]] = max(p95.get(s, 0.0), 0.0)
            f[i, col["ready"]] = ready.get(s, 0.0) / 20
            f[i, col["desired"]] = desired.get(s, 0.0) / 20
            f[i, col["restarts"]] = restarts.get(s, 0.0) / 20
            f[i, col["waiting"]] = waiting.get(s, 0.0) / 10
            f[i, col["cpu_throttle"]] = throttle.get(s, 0.0)
            f[i, col["egress_policies"]] = len(fenced.get(s, ())) / 5
            f[i, col["flags_changed"]] = len(flagged.get(s, {})) / 5
            f[i, col["open_incident"]] = 1.0 if s in filed else 0.0
            last = self._acted.get(s)
            f[i, col["since_action"]] = (
                1.0 if last is None else min(base.invocation - last, 10) / 10
            )
            try:
                dep = b.k8s_describe("deployments", s)
                hist = dep["revision_history"]
                age = max(0.0, t - _ts(hist[-1]["created"])) if hist else 0.0
            except (OperationError, KeyError, ValueError):
                dep, age = None, 0.0
            f[i, col["revision_age"]] = age
            f[i, col["env_drift"]] = len(env_drift(b, s, dep)) / 5 if dep is not None else 0.0
        for name, scale in (("rps", 10), ("p95", 12), ("revision_age", 10)):
            f[:, col[name]] = fmath.log1p(f[:, col[name]]) / scale
        alerts = base.alerts_view(copy=False)
        firing = [a for a in alerts if a["state"] == "firing"]
        for a in firing:
            for e in alert_entities(a["labels"]):
                if e in svc_i:
                    f[svc_i[e], col["firing_alerts"]] += 0.1
        alerting = f[:, col["firing_alerts"]] > 0
        for s, callees in self.callees().items():
            n = sum(1 for c in callees if c in svc_i and alerting[svc_i[c]])
            f[svc_i[s], col["firing_callees"]] = n / 5
        try:
            nodes = {n["name"]: n["status"] == "Ready" for n in b.k8s_get("nodes", None)}
        except OperationError:
            nodes = {}
        node_f = [1.0 if nodes.get(nd, False) else 0.0 for nd in self.nodes]
        glob = [
            base.invocation / base.n_invocations,
            len(firing) / 100,
            len(base.toolbox.open_incidents()) / 50,
        ]
        out = np.concatenate([f.ravel(), node_f, glob])
        return np.clip(np.nan_to_num(out, nan=0.0), 0.0, 1.0).astype(np.float32)
