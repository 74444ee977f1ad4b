"""DiscreteRemedies: a ``Discrete`` action space of remedies for classic RL.

Action 0 does nothing; action ``1 + r * n_services + s`` applies remedy ``REMEDIES[r]`` to serving
service ``s`` (catalog order), and action ``1 + len(REMEDIES) * n_services + j`` evacuates node
``j`` (the app's nodes in catalog order); ``describe(a)`` names each action. Because the benchmark
only credits a repair that cites a reported incident, each remedy first reports one automatically:
the alerts firing now on that service, root cause the service, and as artifact what the remedy acts
on (see below); or, if an incident this wrapper opened for the service is still open and one of its
alerts still fires, adds the new firing alerts to it (naming this remedy's artifact instead, unless
the same kind of remedy named it), and then applies the remedy citing it. Once every alert of that
incident has resolved, firing alerts on the service are a new episode of trouble: the old incident
is resolved and a new one reported, so one service can be credited for each of its faults.
Everything it decides from is what an agent sees (alerts, ``list_changes``, k8s state, git).

Remedies:
- ``rollback`` undoes the service's *suspect change*: the last deploy to it at or before the first
  of its alerts firing now (artifact: its commit). It rolls the deployment back to the revision
  before it (relief within a rollout), and a change with a source diff is also reverted through
  the build pipeline (``submit_patch`` with ``revert``), so that the next deploy from the head does
  not bring it back. With no suspect it rolls back to the previous revision (artifact ``svc@N``).
- ``restart``: a rolling restart (artifact: the first pod).
- ``scale_up``: one more replica, at most 20 (artifact ``deployment/svc``: the replica count).
- ``delete_pods``: the service's pods on NotReady nodes, so that they are rescheduled (artifact: the
  node); with none, the action does nothing.
- ``raise_cpu``: doubles the CPU limit of the pod template, at most ``MAX_CPU_CORES`` (artifact
  ``deployment/svc``): headroom for a runaway process.
- ``delete_netpol``: deletes the newest NetworkPolicy that restricts the service's egress (artifact:
  the policy); with none, the action does nothing.
- ``flag_off``: sets the feature flags of the service (the app catalog's ``service`` of each flag)
  whose variant is not their default back to it, on the flag ConfigMap (artifact: the first flag,
  ``flags.<name>``); with none, or on an app without flags, the action does nothing.
- ``restore_env``: sets the env vars of the service's running template whose value differs from
  its manifest in git (a hand edit, which ``list_changes`` does not show) back to the manifest's
  value (artifact: the first, ``env.<NAME>``); with none, the action does nothing.

Evacuating a node (``evacuate``) deletes the services' pods on it while it is NotReady, so that
their deployments reschedule them on the nodes that work, as ``delete_pods`` does for one service;
its incident names the node as root cause (artifact ``node/<name>``) and holds the alerts firing on
the node. A lost node is a fault of the node, not of any service on it, so only this action can
name it. With the node Ready, or nothing of the services on it, the action does nothing.

``auto_report=True`` also files, every invocation, each other node and service with firing alerts:
it opens or extends its incident as above (artifact: ``node/<name>`` for a node; for a service its
first env var off git, else its suspect change's commit, else ``deployment/svc``) without acting.
A policy then earns correlation without spending its one action on it, and its actions decide
repairs; a no-op policy no longer scores 0 (the automatic reports are scored like any others).
Under net_score (the default reward) they are worth about what they cost: a report whose alerts
belong to no fault is a false alarm, and a service's incident holds only its own service's alerts
(playing no-op with them earns 6.3 on Online Boutique seed 0, where the paper's score gives 33.3;
``benchmarks/discrete_ceiling.py --auto-report`` compares the policies with and without them).
``info["remedy"]`` says what was done and ``info["action_mask"]`` marks the actions that can do
something now (for masked policies).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym.backends.base import OperationError, alert_entities
from sre_gym.catalogs.schema import parse_cpu
from sre_gym.clock import MAX_REPLICAS, parse_time
from sre_gym.envs.numeric_layout import MAX_CPU_CORES, REMEDIES
from sre_gym.sim.topology import compile_topology
from sre_gym.wrappers.observed import egress_policies, env_drift, flags_changed, stranded_pods
from sre_gym.wrappers.tool_call_steps import marathon_of

__all__ = ["MAX_CPU_CORES", "REMEDIES", "DiscreteRemedies", "call"]


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "args": args}


class DiscreteRemedies(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """``Discrete(1 + len(REMEDIES) * n_services)``: no-op, or (remedy x service) with an automatic
    incident."""

    def __init__(self, env: gym.Env, auto_report: bool = False) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, auto_report=auto_report)
        gym.Wrapper.__init__(self, env)
        self.auto_report = bool(auto_report)
        self.base = marathon_of(env)
        topo = compile_topology(self.base.app)
        self.services: tuple[str, ...] = topo.names
        self.nodes: tuple[str, ...] = tuple(nd.name for nd in topo.app.nodes)
        self._app = topo.app  # the public catalog: each flag's service and default variant
        self.action_space = spaces.Discrete(
            1 + len(REMEDIES) * len(self.services) + len(self.nodes)
        )
        self._incident_of: dict[str, str] = {}
        self._named_by: dict[
            str, str
        ] = {}  # incident -> what set its artifact (a remedy, "report")

    def describe(self, action: int) -> str:
        """Human-readable name of an action ("noop" or "<remedy> <service>")."""
        a = int(action)
        if a == 0:
            return "noop"
        return " ".join(self.target(a))

    def target(self, action: int) -> tuple[str, str]:
        """(remedy, service) of a remedy action, or ("evacuate", node) of a node's action."""
        a = int(action) - 1
        n = len(REMEDIES) * len(self.services)
        if a >= n:
            return "evacuate", self.nodes[a - n]
        r, s = divmod(a, len(self.services))
        return REMEDIES[r], self.services[s]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict]:
        self._incident_of, self._named_by = {}, {}
        obs, info = self.env.reset(seed=seed, options=options)
        return obs, self._info(info, "noop")

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if not self.action_space.contains(action):
            raise gym.error.InvalidAction(
                f"action must be an int in [0, {self.action_space.n}), got {action!r}"
            )
        calls = self.calls(int(action))
        remedy, svc = self.target(int(action)) if calls else ("", None)
        reports = self._reports(skip=svc, offset=_n_reports(calls)) if self.auto_report else {}
        obs, reward, terminated, truncated, info = self.env.step(
            calls + [c for cs in reports.values() for c in cs[1]]
        )
        if svc is not None:  # the remedy (last) cites the service's incident from now on
            iid = self._incident_of[svc] = calls[-1]["args"]["incident_id"]
            if any(_names_artifact(c) for c in calls):
                self._named_by[iid] = remedy
        for other, (iid, cs) in reports.items():
            self._incident_of[other] = iid
            if any(_names_artifact(c) for c in cs):
                self._named_by[iid] = "report"
        done = self.describe(int(action)) if calls else "noop"
        return obs, reward, terminated, truncated, self._info(info, done)

    # ------------------------------------------------------------------ decisions
    def calls(self, action: int) -> list[dict[str, Any]]:
        """The tool calls that carry out ``action`` now (empty for a no-op or nothing to do); reading
        them changes nothing."""
        if action == 0:
            return []
        remedy, name = self.target(action)
        # read once: the suspect and the incident both use it
        alerts = self.base.alerts_view(copy=False)
        if remedy == "evacuate":
            pods = self._stranded_on().get(name, [])
            planned = (
                ([call("delete_resource", kind="pods", name=p) for p in pods], f"node/{name}")
                if pods
                else None
            )
        else:
            planned = self._remedy(remedy, name, alerts)
        if planned is None:
            return []
        act, artifact = planned
        iid, report = self._incident(name, artifact, remedy, alerts=alerts)
        return [*report, *({**c, "args": {**c["args"], "incident_id": iid}} for c in act)]

    def _remedy(
        self, remedy: str, svc: str, alerts: list[dict]
    ) -> tuple[list[dict[str, Any]], str] | None:
        """The calls of ``remedy`` on ``svc`` and the artifact they act on (None: nothing to do)."""
        b = self.base.backend
        dep = b.k8s_get("deployments", svc)
        if remedy == "rollback":
            act, artifact = self._undo(svc, dep, alerts)
        elif remedy == "restart":
            act = [call("restart", deployment=svc)]
            pods = [p["name"] for p in b.k8s_get("pods", None) if p["deployment"] == svc]
            artifact = f"pod/{pods[0]}" if pods else f"{svc}@{dep['revision']}"
        elif remedy == "scale_up":
            want = min(int(dep["ready"].split("/")[1]) + 1, MAX_REPLICAS)
            act = [call("scale", deployment=svc, replicas=want)]
            # the replica count is the deployment's, not a revision's
            artifact = f"deployment/{svc}"
        elif remedy == "delete_pods":
            stranded = stranded_pods(b).get(svc, [])
            if not stranded:
                return None
            act = [call("delete_resource", kind="pods", name=p) for p, _ in stranded]
            artifact = stranded[0][1]
        elif remedy == "raise_cpu":
            cores = self._raised_cpu(svc)
            if cores is None:
                return None
            act = [call("patch_config", deployment=svc, key="resources.limits.cpu", value=cores)]
            artifact = f"deployment/{svc}"
        elif remedy == "delete_netpol":
            policies = egress_policies(b, self.services).get(svc, [])
            if not policies:
                return None
            act = [call("delete_resource", kind="networkpolicies", name=policies[-1])]
            artifact = f"networkpolicy/{policies[-1]}"
        elif remedy == "restore_env":
            drift = env_drift(b, svc)
            if not drift:
                return None
            act = [
                call("patch_config", deployment=svc, key=f"env.{k}", value=v)
                for k, v in drift.items()
            ]
            artifact = f"env.{next(iter(drift))}"
        else:
            flags = flags_changed(b, self._app).get(svc, {})
            if not flags:
                return None
            # flagd reads the flag file from its ConfigMap: patched through the flagd deployment
            act = [
                call("patch_config", deployment="flagd", key=f"flags.{f}", value=v)
                for f, v in flags.items()
            ]
            artifact = f"flags.{next(iter(flags))}"
        return act, artifact

    def _stranded_on(self, stranded: dict[str, list[tuple[str, str]]] | None = None) -> dict:
        """Per NotReady node, the services' pods on it that are not terminating (``stranded``:
        ``stranded_pods`` as read this step, when the caller has it)."""
        out: dict[str, list[str]] = {}
        for dep, pods in (
            stranded_pods(self.base.backend) if stranded is None else stranded
        ).items():
            if dep in self.services:
                for pod, node in pods:
                    out.setdefault(node, []).append(pod)
        return out

    def _suspect(
        self, svc: str, alerts: list[dict] | None = None, changes: list[dict] | None = None
    ) -> dict[str, Any] | None:
        """The service's suspect change: the last deploy to it at or before the first of its alerts
        firing now (None without one). ``alerts`` and ``changes``: the alert history and change
        list as read this step, when the caller has them."""
        starts = [
            parse_time(a["starts_at"])
            for a in (self.base.alerts_view(copy=False) if alerts is None else alerts)
            if a["state"] == "firing" and svc in alert_entities(a["labels"])
        ]
        first = min((x for x in starts if x is not None), default=None)
        if first is None:
            return None
        if changes is None:
            try:
                changes = self.base.backend.changes()
            except (OperationError, NotImplementedError):
                return None
        mine = [c for c in changes if c["service"] == svc and c["t"] <= first]
        return max(mine, key=lambda c: c["t"]) if mine else None

    def _undo(
        self, svc: str, dep: dict[str, Any], alerts: list[dict]
    ) -> tuple[list[dict[str, Any]], str]:
        """Undo the service's suspect change (``_suspect``): a rollback to the revision before it,
        and for a change with a source diff also a revert through the pipeline (so that the next
        deploy from the head does not bring it back). With no suspect, roll back to the previous
        revision."""
        b = self.base.backend
        c = self._suspect(svc, alerts)
        if c is None:
            return [call("rollback", deployment=svc)], f"{svc}@{dep['revision']}"
        before = [
            h["revision"]
            for h in b.k8s_describe("deployments", svc)["revision_history"]
            if c["revision"] is not None and h["revision"] < c["revision"]
        ]
        to = {"to_revision": max(before)} if before else {}
        if not c["diff"]:
            return [call("rollback", deployment=svc, **to)], c["sha"]
        # mitigate now (a rollback takes effect within a rollout), and revert the change in the
        # head so that the next deploy does not bring it back (the pipeline takes minutes)
        act = [call("rollback", deployment=svc, **to)] if before else []
        return [*act, call("submit_patch", service=svc, revert=c["sha"])], c["sha"]

    def _raised_cpu(self, svc: str, dep: dict[str, Any] | None = None) -> str | None:
        """Twice the service's CPU limit (at most ``MAX_CPU_CORES``) as a quantity; None when the
        limit is already at the bound or unreadable. ``dep``: its ``k8s_describe``, if read."""
        try:
            if dep is None:
                dep = self.base.backend.k8s_describe("deployments", svc)
            cur = parse_cpu(dep["template"]["resources"]["limits"]["cpu"])
        except (OperationError, KeyError, TypeError, ValueError):
            return None
        if cur >= MAX_CPU_CORES:
            return None
        return f"{int(round(min(2.0 * cur, MAX_CPU_CORES) * 1000))}m"

    def _reports(self, skip: str | None, offset: int) -> dict[str, tuple[str, list[dict]]]:
        """``auto_report``: per other service or node with alerts firing on it and not yet in its
        open incident, that incident and the calls that open or extend it (``offset``: incidents
        the step's remedy opens first)."""
        out: dict[str, tuple[str, list[dict]]] = {}
        # read once: nothing runs between these decisions
        alerts = self.base.alerts_view(copy=False)
        firing = {e for a in alerts if a["state"] == "firing" for e in alert_entities(a["labels"])}
        try:
            changes = self.base.backend.changes()
        except (OperationError, NotImplementedError):
            changes = []
        for node in self.nodes:  # a lost node's alerts are about the node, not its services
            if node != skip and node in firing:
                iid, cs = self._incident(
                    node, f"node/{node}", "report", offset=offset, alerts=alerts
                )
                if cs:
                    out[node] = (iid, cs)
                    offset += _n_reports(cs)
        for svc in self.services:
            if svc == skip or svc not in firing:
                continue
            drift = env_drift(self.base.backend, svc)
            sus = None if drift else self._suspect(svc, alerts, changes)
            artifact = (
                f"env.{next(iter(drift))}"  # a hand edit off git is the likelier culprit
                if drift
                else sus["sha"]
                if sus is not None
                else f"deployment/{svc}"
            )
            iid, cs = self._incident(svc, artifact, "report", offset=offset, alerts=alerts)
            if cs:
                out[svc] = (iid, cs)
                offset += _n_reports(cs)
        return out

    def _incident(
        self,
        svc: str,
        artifact: str,
        remedy: str,
        *,
        offset: int = 0,
        alerts: list[dict] | None = None,
    ) -> tuple[str, list[dict]]:
        """The incident to cite for ``svc`` and the report calls that open or extend it. A remedy
        revises the artifact of an open incident that an automatic report or another kind of remedy
        named (a repeated remedy keeps it: a restart's new pods are not what was wrong)."""
        base = self.base
        incidents = base.toolbox.incidents
        firing = [
            a["id"]
            for a in (base.alerts_view(copy=False) if alerts is None else alerts)
            if a["state"] == "firing" and svc in alert_entities(a["labels"])
        ]
        iid = self._incident_of.get(svc)
        close: list[dict] = []
        if iid is not None and iid in incidents and incidents[iid].status == "open":
            known = set(incidents[iid].alerts)
            if known & set(firing) or not firing:
                new = [a for a in firing if a not in known]
                revise = remedy != "report" and self._named_by.get(iid) != remedy
                change = (
                    {"artifact": artifact} if revise and incidents[iid].artifact != artifact else {}
                )
                if not new and not change:
                    return iid, []
                return iid, [call("update_incident", incident_id=iid, add_alert_ids=new, **change)]
            # every alert of the service's incident has resolved and new ones fire: a new episode
            # of trouble, so the old incident is closed and a new one reported
            close = [
                call("resolve_incident", incident_id=iid, summary="automatic: alerts resolved")
            ]
        iid = f"INC-{len(incidents) + 1 + offset:04d}"  # the toolbox numbers incidents in order
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
        stranded, fenced = stranded_pods(b), egress_policies(b, self.services)
        flagged = flags_changed(b, self._app)

        def off(remedy: str, s: int) -> None:
            mask[1 + REMEDIES.index(remedy) * n + s] = 0

        on_node = self._stranded_on(stranded)
        for j, node in enumerate(self.nodes):
            mask[1 + len(REMEDIES) * n + j] = int(node in on_node)
        for s, svc in enumerate(self.services):
            if svc not in stranded:
                off("delete_pods", s)
            if svc not in fenced:
                off("delete_netpol", s)
            if svc not in flagged:
                off("flag_off", s)
            try:
                dep = b.k8s_describe("deployments", svc)
            except OperationError:
                off("raise_cpu", s)
                off("restore_env", s)
                continue
            if len(dep["revision_history"]) < 2:
                off("rollback", s)
            if dep["replicas"] >= MAX_REPLICAS:
                off("scale_up", s)
            if self._raised_cpu(svc, dep) is None:
                off("raise_cpu", s)
            if not env_drift(b, svc, dep):
                off("restore_env", s)
        return mask

    def _info(self, info: dict, done: str) -> dict:
        out = dict(info)
        out["remedy"] = done
        out["action_mask"] = self.action_mask()
        return out


def _n_reports(calls: list[dict[str, Any]]) -> int:
    return sum(1 for c in calls if c["tool"] == "report_incident")


def _names_artifact(c: dict[str, Any]) -> bool:
    return c["tool"] == "report_incident" or (
        c["tool"] == "update_incident" and "artifact" in c["args"]
    )
