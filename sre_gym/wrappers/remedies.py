"""DiscreteRemedies: a ``Discrete`` action space of remedies for classic RL.

Action 0 does nothing; action ``1 + r * n_services + s`` applies remedy ``REMEDIES[r]`` to serving
service ``s`` (catalog order; ``describe(a)`` names it). Because the benchmark only credits a repair
that cites a reported incident, each remedy first reports one automatically: the alerts firing now on
that service (root cause: the service; artifact: the deployment's current revision ``svc@N`` for
rollback and scale_up, the first pod for restart, the NotReady node for delete_pods), or, if an
incident this wrapper opened for the service is still open and one of its alerts still fires, adds
the new firing alerts to it, and then applies the remedy citing it. Once every alert of that
incident has resolved, firing alerts on the service are a new episode of trouble: the old incident
is resolved and a new one reported, so one service can be credited for each of its faults.
Everything it decides from is what an agent sees (alerts, k8s state).

Remedies: ``rollback`` (to the previous revision), ``restart`` (rolling restart), ``scale_up`` (one
more replica, at most 20) and ``delete_pods`` (the service's pods on NotReady nodes, so that they are
rescheduled; with none, the action does nothing). ``info["remedy"]`` says what was done and
``info["action_mask"]`` marks the actions that can do something now (for masked policies).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym.backends.base import OperationError, alert_entities
from sre_gym.clock import MAX_REPLICAS
from sre_gym.sim.topology import compile_topology
from sre_gym.wrappers.tool_call_steps import marathon_of

REMEDIES = ("rollback", "restart", "scale_up", "delete_pods")


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


class DiscreteRemedies(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """``Discrete(1 + 4 * n_services)``: no-op, or (remedy x service) with an automatic incident."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self.base = marathon_of(env)
        self.services: tuple[str, ...] = compile_topology(self.base.app).names
        self.action_space = spaces.Discrete(1 + len(REMEDIES) * len(self.services))
        self._incident_of: dict[str, str] = {}

    def describe(self, action: int) -> str:
        """Human-readable name of an action ("noop" or "<remedy> <service>")."""
        a = int(action)
        if a == 0:
            return "noop"
        r, s = divmod(a - 1, len(self.services))
        return f"{REMEDIES[r]} {self.services[s]}"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict]:
        self._incident_of = {}
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._info(info, "noop")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if not self.action_space.contains(action):
            raise gym.error.InvalidAction(
                f"action must be an int in [0, {self.action_space.n}), got {action!r}"
            )
        calls = self.calls(int(action))
        obs, reward, terminated, truncated, info = self.env.step(calls)
        if calls:  # the remedy (last) cites the service's incident from now on
            svc = self.services[(int(action) - 1) % len(self.services)]
            self._incident_of[svc] = calls[-1]["args"]["incident_id"]
        done = self.describe(int(action)) if calls else "noop"
        return obs, reward, terminated, truncated, self._info(info, done)

    # ------------------------------------------------------------------ decisions
    def calls(self, action: int) -> list[dict[str, Any]]:
        """The tool calls that carry out ``action`` now (empty for a no-op or nothing to do); reading
        them changes nothing."""
        if action == 0:
            return []
        r, s = divmod(action - 1, len(self.services))
        remedy, svc = REMEDIES[r], self.services[s]
        b = self.base.backend
        dep = b.k8s_get("deployments", svc)
        if remedy == "rollback":
            act = [call("rollback", deployment=svc)]
            artifact = f"{svc}@{dep['revision']}"
        elif remedy == "restart":
            act = [call("restart", deployment=svc)]
            pods = [p["name"] for p in b.k8s_get("pods", None) if p["deployment"] == svc]
            artifact = f"pod/{pods[0]}" if pods else f"{svc}@{dep['revision']}"
        elif remedy == "scale_up":
            want = min(int(dep["ready"].split("/")[1]) + 1, MAX_REPLICAS)
            act = [call("scale", deployment=svc, replicas=want)]
            artifact = f"{svc}@{dep['revision']}"
        else:
            stranded = self._stranded().get(svc, [])
            if not stranded:
                return []
            act = [call("delete_resource", kind="pods", name=p) for p, _ in stranded]
            artifact = stranded[0][1]
        iid, report = self._incident(svc, artifact, remedy)
        return [*report, *({**c, "args": {**c["args"], "incident_id": iid}} for c in act)]

    def _stranded(self) -> dict[str, list[tuple[str, str]]]:
        """Per service, (pod, node) of its pods on NotReady nodes (as ``k8s_get`` shows them)."""
        b = self.base.backend
        down = {n["name"] for n in b.k8s_get("nodes", None) if n["status"] != "Ready"}
        out: dict[str, list[tuple[str, str]]] = {}
        if not down:
            return out
        for p in b.k8s_get("pods", None):
            if p["node"] in down and p["status"] != "Terminating":
                out.setdefault(p["deployment"], []).append((p["name"], p["node"]))
        return out

    def _incident(self, svc: str, artifact: str, remedy: str) -> tuple[str, list[dict]]:
        """The incident to cite for ``svc`` and the report calls that open or extend it."""
        base = self.base
        incidents = base.toolbox.incidents
        firing = [
            a["id"]
            for a in base.alerts_view()
            if a["state"] == "firing" and svc in alert_entities(a["labels"])
        ]
        iid = self._incident_of.get(svc)
        close: list[dict] = []
        if iid is not None and iid in incidents and incidents[iid].status == "open":
            known = set(incidents[iid].alerts)
            if known & set(firing) or not firing:
                new = [a for a in firing if a not in known]
                return iid, (
                    [call("update_incident", incident_id=iid, add_alert_ids=new)] if new else []
                )
            # every alert of the service's incident has resolved and new ones fire: a new episode
            # of trouble, so the old incident is closed and a new one reported
            close = [
                call("resolve_incident", incident_id=iid, summary="automatic: alerts resolved")
            ]
        iid = f"INC-{len(incidents) + 1:04d}"  # the toolbox numbers incidents in order
        report = call(
            "report_incident",
            alert_ids=firing,
            root_cause_services=[svc],
            artifact=artifact,
            summary=f"automatic: {remedy} {svc} for {len(firing)} firing alert(s)",
        )
        return iid, [*close, report]

    def action_mask(self) -> np.ndarray:
        """int8 mask of the actions that can do something now (no-op always can)."""
        mask = np.ones(self.action_space.n, dtype=np.int8)
        b = self.base.backend
        if b is None or self.base.invocation >= self.base.n_invocations:
            return mask
        n = len(self.services)
        stranded = self._stranded()
        for s, svc in enumerate(self.services):
            try:
                dep = b.k8s_describe("deployments", svc)
            except OperationError:
                continue
            if len(dep["revision_history"]) < 2:
                mask[1 + 0 * n + s] = 0
            if dep["replicas"] >= MAX_REPLICAS:
                mask[1 + 2 * n + s] = 0
            if svc not in stranded:
                mask[1 + 3 * n + s] = 0
        return mask

    def _info(self, info: dict, done: str) -> dict:
        out = dict(info)
        out["remedy"] = done
        out["action_mask"] = self.action_mask()
        return out
