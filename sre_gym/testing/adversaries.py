"""Scripted adversaries: agents that try to earn score without doing the work.

They act through the same tools, budget and policy as any agent. Two families:

- **blind** adversaries know nothing hidden. ``OneIncidentDestroyer`` reports one incident and
  then scales every deployment to zero, or restarts / rolls back every deployment each invocation
  (the "make everything green" hacks of SREGym#853). ``GiantIncidentAdversary`` keeps one incident
  holding every alert. ``AlertSpamAdversary`` reports one incident per alert naming that alert's
  service and an artifact guess. ``RevertChaser`` waits for the orchestrator to revert a bad change
  and then claims it, exactly right but after the fact.
- ``ChangeReverter`` knows nothing hidden either: it treats every new deploy and every odd object
  (an egress NetworkPolicy, an env var off git, a feature flag off its default, a NotReady node) as
  a fault, reports it (the alerts firing on its service, the change or object as artifact) and
  undoes it. It handles the faults that are exactly such changes, and harms users with the rest.
- ``DestructiveOracle`` knows the ground truth (like the oracle baseline) and so reports every
  fault with the right culprit and artifact, but "repairs" destructively: it scales the culprit to
  zero, or restarts / rolls back every deployment each invocation. It attacks the repair stage
  directly, which the blind ones cannot reach (repair needs localization first).

The honest earnings each one must not exceed are asserted in ``tests/scoring/test_adversaries.py``.
"""

from __future__ import annotations

import json
from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.agents.oracle import OracleAgent
from sre_gym.backends.base import alert_entities
from sre_gym.sim.topology import compile_topology
from sre_gym.tools.policy import BENCHMARK_WORKLOADS
from sre_gym.tools.specs import BUDGET_S, TOOLS
from sre_gym.wrappers.observed import egress_policies, env_drift, flags_changed

ACTIONS = ("scale_to_zero", "restart", "rollback")
MAX_CALLS = 64  # the env runs at most this many calls per invocation


def _results(obs: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        out = json.loads(obs["tool_results"])
    except (KeyError, TypeError, json.JSONDecodeError):
        return []
    return out if isinstance(out, list) else []


def _result_of(obs: dict[str, Any], tool: str, key: str | None = None) -> Any:
    """The result of the last successful call of ``tool`` in the previous invocation (with ``key``
    in its items, if given), or None."""
    for r in reversed(_results(obs)):
        if r.get("tool") != tool or not r.get("ok"):
            continue
        res = r.get("result")
        if key is None or (
            isinstance(res, list) and res and all(isinstance(x, dict) and key in x for x in res)
        ):
            return res
    return None


def _replicas(dep: dict[str, Any]) -> int:
    try:
        return int(str(dep.get("ready", "0/1")).split("/")[1])
    except (IndexError, ValueError):
        return 1


class _Budget:
    """Keeps a list of calls within the invocation's simulated-time budget."""

    def __init__(self) -> None:
        self.left = BUDGET_S
        self.calls: list[dict[str, Any]] = []

    def add(self, c: dict[str, Any]) -> bool:
        d = TOOLS[c["tool"]].duration_s
        if d > self.left:
            return False
        self.left -= d
        self.calls.append(c)
        return True


class _Learner(Agent):
    """Reads deployments, topology and changes; remembers them from the previous invocation."""

    def reset(self) -> None:
        self.deployments: dict[str, int] = {}  # name -> desired replicas (as last seen)
        self.entities: set[str] = set()
        self.latest_change: dict[str, str] = {}  # service -> newest commit sha seen
        self.n_reports = 0

    def learn(self, obs: dict[str, Any]) -> None:
        deps = _result_of(obs, "k8s_get", key="up_to_date")
        if isinstance(deps, list):
            self.deployments = {
                d["name"]: _replicas(d) for d in deps if d.get("name") not in BENCHMARK_WORKLOADS
            }
        topo = _result_of(obs, "get_topology")
        if isinstance(topo, dict):
            self.entities = {s["name"] for s in topo.get("services", [])} | {
                n["name"] for n in topo.get("nodes", [])
            }
        changes = _result_of(obs, "list_changes")
        if isinstance(changes, list):
            for c in reversed(changes):  # newest first in the result: newest wins
                self.latest_change[c["service"]] = c["sha"]

    def next_id(self) -> str:
        self.n_reports += 1
        return f"INC-{self.n_reports:04d}"

    def reads(self) -> list[dict[str, Any]]:
        return [
            call("k8s_get", kind="deployments"),
            call("get_topology"),
            call("list_changes", limit=200),
        ]


class OneIncidentDestroyer(_Learner):
    """Reports one incident once an alert fires, then destroys: ``scale_to_zero`` (every deployment,
    kept at zero), ``restart`` or ``rollback`` (every deployment, every invocation).

    With ``inflate_scope`` the incident names every workload as a root cause, so every action is
    inside the cited incident's (agent-declared) scope.
    """

    def __init__(self, action: str = "scale_to_zero", inflate_scope: bool = False) -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        self.action = action
        self.inflate_scope = inflate_scope
        self.name = f"destroyer-{action}" + ("-inflated" if inflate_scope else "")
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.incident: str | None = None

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        self.learn(obs)
        b = _Budget()
        alerts = [a["id"] for a in alerts_of(obs)]
        if not self.deployments or not self.entities:
            return self.reads()
        if self.incident is None:
            if not alerts:
                return []
            self.incident = self.next_id()
            culprits = sorted(self.deployments) if self.inflate_scope else []
            b.add(
                call(
                    "report_incident",
                    alert_ids=alerts,
                    root_cause_services=culprits,
                    summary="everything is broken",
                )
            )
        b.add(call("k8s_get", kind="deployments"))
        for dep in sorted(self.deployments):
            if self.action == "scale_to_zero":
                if self.deployments[dep] > 0:
                    b.add(call("scale", deployment=dep, replicas=0, incident_id=self.incident))
            else:
                b.add(call(self.action, deployment=dep, incident_id=self.incident))
        return b.calls


class GiantIncidentAdversary(_Learner):
    """One incident holding every alert, updated as alerts arrive. Its root cause is the workload
    most alerts name, and its artifact that workload's newest change (the best blind guess)."""

    name = "giant-incident"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.incident: str | None = None
        self.members: set[str] = set()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        self.learn(obs)
        alerts = alerts_of(obs)
        calls = [call("list_changes", limit=200)]
        if not self.entities:
            return self.reads()
        new = [a["id"] for a in alerts if a["id"] not in self.members]
        if not new:
            return calls
        counts: dict[str, int] = {}
        for a in alerts:
            for e in alert_entities(a["labels"])[:1]:
                if e in self.entities:
                    counts[e] = counts.get(e, 0) + 1
        top = max(sorted(counts), key=lambda e: counts[e]) if counts else None
        culprits = [top] if top else []
        artifact = self.latest_change.get(top) if top else None
        self.members.update(new)
        if self.incident is None:
            self.incident = self.next_id()
            calls.append(
                call(
                    "report_incident",
                    alert_ids=new,
                    root_cause_services=culprits,
                    artifact=artifact,
                    summary="one big incident",
                )
            )
        else:
            calls.append(
                call(
                    "update_incident",
                    incident_id=self.incident,
                    add_alert_ids=new,
                    root_cause_services=culprits,
                    artifact=artifact,
                )
            )
        return calls


class AlertSpamAdversary(_Learner):
    """One incident per alert, naming the alert's (first) workload as the root cause.

    The artifact guess is the alert's name (``guess="alert_name"``, never an artifact) or the
    workload's newest change sha seen so far (``guess="latest_change"``, sometimes right).
    """

    def __init__(self, guess: str = "alert_name") -> None:
        if guess not in ("alert_name", "latest_change"):
            raise ValueError("guess must be 'alert_name' or 'latest_change'")
        self.guess = guess
        self.name = f"alert-spam-{guess}"
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.reported: set[str] = set()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        self.learn(obs)
        if not self.entities:
            return self.reads()
        b = _Budget()
        b.add(call("list_changes", limit=200))
        for a in alerts_of(obs):
            if a["id"] in self.reported:
                continue
            ents = [e for e in alert_entities(a["labels"]) if e in self.entities]
            svc = ents[0] if ents else None
            if self.guess == "alert_name":
                artifact = a["name"]
            else:
                artifact = self.latest_change.get(svc) if svc else None
            ok = b.add(
                call(
                    "report_incident",
                    alert_ids=[a["id"]],
                    root_cause_services=[svc] if svc else [],
                    artifact=artifact,
                    summary=f"{a['name']} on {svc}",
                )
            )
            if not ok:
                break  # out of budget: the rest wait for the next invocation
            self.reported.add(a["id"])
        return b.calls


class RevertChaser(_Learner):
    """Claims faults after the fact. The orchestrator's revert of a bad change is itself a change
    (``Revert "<title>"``); once one shows in ``list_changes``, this agent reports
    one incident holding the alerts that started on that service between the change and its revert,
    naming the service and the reverted change's sha: exactly right, and only ever too late.
    """

    name = "revert-chaser"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        super().reset()
        self.claimed: set[str] = set()
        self.seen: dict[str, dict[str, Any]] = {}  # every change listed so far, by sha

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        self.learn(obs)
        b = _Budget()
        # the changes since the last invocation (with some overlap) keep the result under the size
        # cut even in a busy stream; the ones listed before are remembered
        b.add(call("list_changes", since_s=300, limit=200))
        for c in _result_of(obs, "list_changes", key="sha") or []:
            self.seen[c["sha"]] = c
        changes = sorted(self.seen.values(), key=lambda c: c["time"], reverse=True)
        alerts = alerts_of(obs)
        for rev in changes:
            title = str(rev.get("title", ""))
            if not title.startswith('Revert "'):
                continue
            bad = next(
                (
                    c
                    for c in changes  # newest first: the latest change with that title
                    if c["service"] == rev["service"]
                    and c["title"] == title[len('Revert "') : -1]
                    and c["time"] < rev["time"]
                ),
                None,
            )
            if bad is None or bad["sha"] in self.claimed:
                continue
            svc = bad["service"]
            ids = [
                a["id"]
                for a in alerts
                if bad["time"] <= a["starts_at"] <= rev["time"]  # RFC 3339 UTC sorts as text
                and svc in alert_entities(a["labels"])
            ]
            if not ids:
                continue
            report = call(
                "report_incident",
                alert_ids=ids,
                root_cause_services=[svc],
                artifact=bad["sha"],
                summary=f"{svc}: {bad['title']}"[:200],
            )
            if not b.add(report):
                break
            self.claimed.add(bad["sha"])
        return b.calls


class ChangeReverter(Agent):
    """Reports and undoes every new deploy (rolled back to the revision before it) and every odd object it can see: an egress NetworkPolicy (deleted), env vars off git (put
    back), flags off their default (put back), a NotReady node (its pods deleted). Each gets its own
    incident holding the alerts firing on its service (or node), naming the change or object as the
    artifact; the alerts that fire on that service later join it. With ``trigger="alert"`` it waits
    for an alert to fire on the service (then suspects every deploy to it of the last 20 minutes);
    with ``trigger="at_once"`` it undoes each as soon as it sees it. It reads the cluster through
    the backend's read API, as the tools show it."""

    RECENT_S = 1200  # a deploy older than this is no longer a suspect

    def __init__(self, env: Any, trigger: str = "alert") -> None:
        if env is None:
            raise ValueError("the change reverter reads the cluster through the env's backend")
        if trigger not in ("alert", "at_once"):
            raise ValueError("trigger must be 'alert' or 'at_once'")
        self.trigger = trigger
        self.name = "change-reverter" + ("" if trigger == "alert" else "-at_once")
        self.env = env.unwrapped
        topo = compile_topology(self.env.app)
        self.services = topo.names
        self.app = topo.app
        self.reset()

    def reset(self) -> None:
        self.seen: set[str] = set()  # change shas and objects already handled
        self.open: dict[str, str] = {}  # service or node -> its newest incident

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        b = self.env.backend
        firing: dict[str, list[str]] = {}
        for a in alerts_of(obs):
            if a["state"] == "firing":
                for e in alert_entities(a["labels"]):
                    firing.setdefault(e, []).append(a["id"])
        todo: list[tuple[str, str, str, list[dict[str, Any]]]] = []  # (key, root, artifact, acts)
        now = float(obs["time"])
        for c in sorted(b.changes(), key=lambda c: -c["t"]):  # newest first
            if c["sha"] in self.seen or str(c["title"]).startswith('Revert "'):
                continue
            if self.trigger == "alert" and c["t"] < now - self.RECENT_S:
                continue
            svc = c["service"]
            acts = []
            if c["revision"] is not None:
                before = [
                    h["revision"]
                    for h in b.k8s_describe("deployments", svc)["revision_history"]
                    if h["revision"] < c["revision"]
                ]
                if before:
                    acts.append(call("rollback", deployment=svc, to_revision=max(before)))
            todo.append((c["sha"], svc, c["sha"], acts))
        for svc, names in egress_policies(b, self.services).items():
            for p in names:
                act = call("delete_resource", kind="networkpolicies", name=p)
                todo.append((f"netpol/{p}", svc, f"networkpolicy/{p}", [act]))
        for svc in self.services:
            drift = env_drift(b, svc)
            if drift:
                acts = [
                    call("patch_config", deployment=svc, key=f"env.{k}", value=v)
                    for k, v in drift.items()
                ]
                key = f"env/{svc}/{json.dumps(sorted(drift.items()))}"
                todo.append((key, svc, f"env.{next(iter(drift))}", acts))
        for svc, flags in flags_changed(b, self.app).items():
            acts = [
                call("patch_config", deployment="flagd", key=f"flags.{f}", value=v)
                for f, v in flags.items()
            ]
            key = f"flags/{json.dumps(sorted(flags.items()))}"
            todo.append((key, svc, f"flags.{next(iter(flags))}", acts))
        down = {n["name"] for n in b.k8s_get("nodes", None) if n["status"] != "Ready"}
        for node in sorted(down):
            pods = [
                p["name"]
                for p in b.k8s_get("pods", None)
                if p["node"] == node and p["status"] != "Terminating"
            ]
            acts = [call("delete_resource", kind="pods", name=p) for p in pods]
            todo.append((f"node/{node}/{len(pods)}", node, f"node/{node}", acts))
        bud = _Budget()
        # its incidents follow their service: the alerts firing on it join the newest one
        for root, iid in sorted(self.open.items()):
            inc = self.env.toolbox.incidents.get(iid)
            new = [a for a in firing.get(root, []) if inc is not None and a not in inc.alerts]
            if new and not bud.add(call("update_incident", incident_id=iid, add_alert_ids=new)):
                break
        n = len(self.env.toolbox.incidents)
        for key, root, artifact, acts in todo:
            if key in self.seen or (self.trigger == "alert" and not firing.get(root)):
                continue
            iid = f"INC-{n + 1:04d}"
            report = call(
                "report_incident",
                alert_ids=firing.get(root, [])[:500],
                root_cause_services=[root],
                artifact=artifact,
                summary=f"suspect {artifact} on {root}",
            )
            cited = [{**c, "args": {**c["args"], "incident_id": iid}} for c in acts]
            if sum(TOOLS[c["tool"]].duration_s for c in (report, *cited)) > bud.left:
                break
            for c in (report, *cited):
                bud.add(c)
            n += 1
            self.seen.add(key)
            self.open[root] = iid
        return bud.calls


class DestructiveOracle(OracleAgent):
    """Reports every fault exactly like the oracle (right alerts, culprit and artifact), but instead
    of the fault's remedy it ``scale_to_zero``-s the fault's workloads (once per fault, like the
    oracle's remedy), or ``restart``-s / ``rollback``-s every deployment each invocation, citing for
    each deployment the newest open incident whose fault involves it (else the newest incident)."""

    def __init__(self, env: Any, action: str = "scale_to_zero") -> None:
        if action not in ACTIONS:
            raise ValueError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
        self.action = action
        self.name = f"destructive-oracle-{action}"
        super().__init__(env)

    def reset(self) -> None:
        super().reset()
        self.scope_of: dict[str, set[str]] = {}  # incident -> its fault's workloads

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        calls = super().act(obs, info)
        b = self.env.backend
        for inj in b.ground_truth()["injections"]:
            iid = self.reported.get(inj.index)
            if iid is not None:
                self.scope_of[iid] = {s.lower() for s in (*inj.affected, *inj.culprits)}
        if self.action == "scale_to_zero" or not self.reported:
            return calls
        used = sum(TOOLS[c["tool"]].duration_s for c in calls)
        left = BUDGET_S - used
        incidents = sorted(self.reported.values())
        for dep in sorted(self._deployments()):
            if TOOLS[self.action].duration_s > left:
                break
            fitting = [i for i in incidents if dep in self.scope_of.get(i, set())]
            iid = fitting[-1] if fitting else incidents[-1]
            calls.append(call(self.action, deployment=dep, incident_id=iid))
            left -= TOOLS[self.action].duration_s
        return calls

    def _deployments(self) -> list[str]:
        return [
            d.name
            for d in self.env.backend.cluster.world.deployments
            if d.name not in BENCHMARK_WORKLOADS
        ]

    def _revert(self, inj: Any, iid: str, now: float) -> list[dict[str, Any]]:
        return []  # no real repair of any kind: only the destructive action

    def _remedy(self, inj: Any, iid: str) -> list[dict[str, Any]]:
        if self.action != "scale_to_zero":
            return []  # acts on everything in ``act`` instead
        cl = self.env.backend.cluster
        deps = self._deployments()
        if inj.fault.target in deps:
            targets = [inj.fault.target]
        else:  # a node or a zone: every workload with a pod on its machines
            machines = set(inj.detail.get("nodes") or [inj.fault.target])
            down = {i for i, n in enumerate(cl.world.nodes) if n.name in machines}
            rows = [r for r in cl.pods.live() if cl.pods.node[r] in down]
            targets = sorted({cl.world.deployments[cl.pods.dep[r]].name for r in rows})
            targets = [t for t in targets if t in deps]
        return [call("scale", deployment=t, replicas=0, incident_id=iid) for t in targets]


ADVERSARIES = (
    "destroyer-scale_to_zero",
    "destroyer-restart",
    "destroyer-rollback",
    "giant-incident",
    "alert-spam-alert_name",
    "alert-spam-latest_change",
    "revert-chaser",
    "change-reverter",
    "change-reverter-at_once",
    "destructive-oracle-scale_to_zero",
    "destructive-oracle-restart",
    "destructive-oracle-rollback",
)


def make_adversary(name: str, env: Any = None, **kwargs: Any) -> Agent:
    """An adversary by name (see ``ADVERSARIES``); the change reverter and the destructive oracles
    need ``env``."""
    if name.startswith("destroyer-"):
        return OneIncidentDestroyer(name.removeprefix("destroyer-"), **kwargs)
    if name == "giant-incident":
        return GiantIncidentAdversary()
    if name.startswith("alert-spam-"):
        return AlertSpamAdversary(name.removeprefix("alert-spam-"))
    if name == "revert-chaser":
        return RevertChaser()
    if name.startswith("change-reverter"):
        return ChangeReverter(env, "at_once" if name.endswith("-at_once") else "alert")
    if name.startswith("destructive-oracle-"):
        return DestructiveOracle(env, name.removeprefix("destructive-oracle-"))
    raise ValueError(f"unknown adversary {name!r}; available: {', '.join(ADVERSARIES)}")
