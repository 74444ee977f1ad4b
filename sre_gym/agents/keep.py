"""The Keep baseline: an incident store with rule-based grouping and a non-LLM diagnosis, run the
way a careful on-call engineer would run it.

Modelled on AIOps platforms such as Keep: alerts are correlated into incidents by rules, each
incident is diagnosed from telemetry, topology and recent changes, then remediated. It uses only what
any agent sees (observations and its own tool results), never ground truth. A page that is no
incident, a change that was not needed and a service left worse than before all cost, so it opens
an incident only for a cause it can name on evidence that persisted, acts once and safely, and
checks that its action helped.

Every invocation it
1. reads the results of the reads it issued in the previous invocation (the env returns tool results
   one step later): the call graph and which workloads serve requests (``get_topology``, once;
   batch jobs, exporters and the load generator never page it), recent deploys (``list_changes``),
   pods, deployments, network policies and nodes (``k8s_get``), the revision history of every
   deployment whose revision changed (``k8s_describe``), the error logs of the services with
   error or latency symptoms (``query_logs``); and the revisions its own rollbacks and restarts made;
2. forms *suspects*, causes it can name with their artifact and remedy (``sre_gym.agents.
   keep_suspects``): a node down for good (its NotReady alert fires, which no short flap reaches;
   remedy: delete the serving pods on it, again for pods it has not reached), a NetworkPolicy that
   drops calls of the call graph (remedy: delete it), the latest change of a service that was
   healthy before it and turned abnormal soon after (the commit, or ``service@revision`` for a
   revision no pipeline deploy or keep made; remedy: roll back), a deployment scaled to zero
   (remedy: scale back), a service whose pods misbehave without a change (the pod; remedy: a rolling
   restart). Evidence is a service's own signals that persisted, are corroborated or lasted; not
   CPU throttling during a load surge, not errors its logs blame on a third party, not symptoms of a
   failing dependency, not the transients of keep's own action or of a rollout;
3. groups each new alert into at most one incident: the incident of the suspect that explains it
   best (its node, its workload, a call-graph edge to it, a caller of it), or the open incident of
   the same root cause (one incident per fault, kept growing: its coverage counts), or by
   correlation rules an open incident whose culprit it names or calls, within ``GROUP_WINDOW_S``.
   An alert that no suspect explains opens nothing: it waits (up to ``FRESH_S``);
4. acts on each incident once (a refused remedy is tried again, ``MAX_FAILURES`` times), on a
   service at most once per ``COOLDOWN_S``, and rolls back only with the revision history at hand:
   to the newest revision before the change that is not known to be bad and not older than a fix
   or revert, while the change is what runs (``sre_gym.agents.keep_revisions``). It undoes its own
   rollback when a fix landed just before it, or when the service's pods, fine before, crash-loop
   or stay unready after it. Incidents whose alerts have all resolved are resolved; then it issues
   the next reads.

What it cannot do: tell a harmless deploy from a harmful one except by the timing and the signals
that follow it (a benign deploy landing just after a bad one takes the blame); see a fault whose
symptoms never reach an alert rule, or that strikes a service already sick; separate two faults on
one service at once (their alerts share an incident); name a config key rather than the commit that
changed it; see feature-flag changes or zone-wide outages as such; repair with a source patch or a
config patch. Its evidence is up to one invocation (120 s) old and it waits for evidence to
persist, so it typically reports and repairs one or two invocations after the oracle would.

The pure readers of its cues (alert parsing, alert families, network-policy semantics, pod and
deploy look-ups) and the ``Alert`` and ``Suspect`` records live in ``sre_gym.agents.keep_cues``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.agents.keep_cues import (
    ENTRY_ALERTS,
    NOT_SERVING,
    SERVICE_ALERTS,
    Alert,
    Suspect,
    abnormal_services,
    reverted,
)
from sre_gym.agents.keep_revisions import Action, Rollbacks, own_revision
from sre_gym.agents.keep_suspects import LAG_S, NEVER, Diagnosis
from sre_gym.clock import rfc3339
from sre_gym.tools.policy import BENCHMARK_WORKLOADS
from sre_gym.tools.specs import BUDGET_S, TOOLS

CHANGES_SINCE_S = 420  # each list_changes read covers this much history (reads are 120 s apart)
FRESH_S = 300  # alerts that started this recently and are in no incident get grouped
STRONG = 6  # an explanation at least this good groups an alert at once
GROUP_WINDOW_S = 300  # a related alert joins an incident this soon after its last alert
COOLDOWN_S = 600  # no second disruptive action on a service this soon (an undo excepted)
OUTSIDE_LOG = re.compile(r"upstream .+ timed out")  # how a flaky third party shows in the logs
LOG_SINCE_S = 120  # error logs read per service with symptoms, this far back
MAX_LOG_READS = 4
MAX_FAILURES = 2  # refused remedies of an incident tried again
# suspects of one root cause, the better diagnosis higher
RANK = {"pod": 0, "scaled": 1, "deploy": 2, "netpol": 3, "node": 4}


def _duration(tool: str) -> int:
    return TOOLS[tool].duration_s


@dataclass
class Incident:
    id: str
    culprit: str
    members: set[str] = field(default_factory=set)
    suspect: Suspect | None = None
    last_alert_t: float = 0.0
    fixed_at: float | None = None  # when its first remedy ran
    remedies: int = 0
    failures: int = 0  # remedies the cluster refused
    quiet: int = 0  # invocations in a row without a firing member
    open: bool = True
    reported: bool = False
    rediagnosed: bool = False  # its diagnosis changed since it was reported

    @property
    def artifact(self) -> str | None:
        return self.suspect.artifact if self.suspect else None


class KeepAgent(Diagnosis, Rollbacks, Agent):
    name = "keep"

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.now = 0.0
        self.sent: list[dict[str, Any]] = []
        self.predicted: list[str] = []  # ids expected for the reports sent last invocation
        self.callers: dict[str, set[str]] = {}
        self.callees: dict[str, set[str]] = {}
        self.hard_callees: dict[str, set[str]] = {}
        self.services: set[str] = set()  # the workloads that serve requests
        self.nodes: set[str] = set()
        self.entry: str | None = None  # the entry point (its user-facing alerts are its symptoms)
        self.changes: dict[str, dict[str, Any]] = {}  # sha -> deploy seen in list_changes
        self.pods: list[dict[str, Any]] = []
        self.deployments: dict[str, dict[str, Any]] = {}
        self.netpols: list[dict[str, Any]] = []
        self.ports: dict[str, int] = {}  # service -> the port its pods listen on
        self.node_status: dict[str, str] = {}
        self.down_since: dict[str, float] = {}  # node -> since when our reads show it NotReady
        self.history: dict[str, list[dict[str, Any]]] = {}  # deployment -> revision history
        self.described_at: dict[str, float] = {}  # deployment -> when its history was read
        self.want_describe: set[str] = set()
        self.incidents: dict[str, Incident] = {}
        self.owner: dict[str, str] = {}  # alert id -> incident id
        self.by_suspect: dict[tuple, str] = {}  # suspect key -> incident id
        self.closed: dict[tuple, float] = {}  # suspect key -> when its incident was resolved
        self.touched: dict[str, float] = {}  # service -> when keep last acted on it
        self.own_revs: dict[str, set[int]] = {}  # deployment -> revisions keep's actions made
        self.undone: set[str] = set()  # deploys keep rolled back
        self.bad: set[str] = set()  # short shas of changes known to be bad
        self.actions: list[Action] = []
        self.deleted: set[str] = set()  # objects keep deleted
        self.pending: dict[int, Action] = {}  # id of a call sent -> its action record
        self.remedy_of: dict[int, str] = {}  # id of a remedy call sent -> its incident
        self.undoing: dict[int, str] = {}  # id of a rollback call sent -> the deploy it undoes
        self.read_at = 0.0  # when the reads sent last invocation ran
        self.seen_until = 0.0  # when the reads we hold ran
        self.prev_seen = 0.0  # when the reads before those ran
        self.replicas: dict[str, int] = {}  # deployment -> replicas it last had (when > 0)
        self.zero_since: dict[str, float] = {}  # deployment -> since when it has 0 replicas
        self.live: set[tuple] = set()  # keys of this invocation's suspects
        self.outside: dict[str, float] = {}  # service -> when its errors named a third party
        self.log_targets: list[str] = []  # services whose error logs to read next
        self.logs_at: dict[str, float] = {}  # service -> when its error logs were last read
        self.n_reports = 0
        self.n_new = 0

    # ------------------------------------------------------------------ reading results
    def _ingest(self, obs: dict[str, Any]) -> None:
        try:
            results = json.loads(obs.get("tool_results") or "[]")
        except json.JSONDecodeError:
            results = []
        sent, self.sent = self.sent, []
        undoing, self.undoing = self.undoing, {}
        remedy_of, self.remedy_of = self.remedy_of, {}
        pending, self.pending = self.pending, {}
        self.prev_seen, self.seen_until = self.seen_until, self.read_at
        predicted, self.predicted = self.predicted, []
        n = 0
        for c, r in zip(sent, results if isinstance(results, list) else [], strict=False):
            if not isinstance(r, dict) or r.get("tool") != c["tool"]:
                continue
            res = r.get("result") if r.get("ok") else None
            tool, args = c["tool"], c["args"]
            if tool == "report_incident":
                want = predicted[n] if n < len(predicted) else None
                n += 1
                got = res.get("id") if isinstance(res, dict) else None
                if r.get("ok") and got is None:
                    got = want  # accepted, without an id to check against
                if want is not None and got != want:
                    self._rename(want, got)
                continue
            if tool in ("rollback", "restart") and r.get("ok"):
                rev = own_revision(res)
                if rev is not None:
                    self.own_revs.setdefault(args["deployment"], set()).add(rev)
                if id(c) in pending:
                    pending[id(c)].after = rev
                    self.actions.append(pending[id(c)])
                if id(c) in undoing:
                    self.undone.add(undoing[id(c)])
                    self.bad.add(undoing[id(c)][:7])
            if not r.get("ok") and id(c) in remedy_of:
                inc = self.incidents.get(remedy_of[id(c)])
                if inc is not None and inc.remedies > 0 and inc.failures < MAX_FAILURES:
                    inc.remedies -= 1  # it failed: try again (as told), a few times
                    inc.failures += 1
                if tool == "rollback":
                    self.want_describe.add(args["deployment"])
            if res is None or isinstance(res, str):
                continue
            kind = args.get("kind")
            if tool == "get_topology":
                self._topology(res)
            elif tool == "list_changes":
                self.changes.update({ch["sha"]: ch for ch in res})
            elif tool == "k8s_get" and kind == "pods":
                self.pods = list(res)
            elif tool == "k8s_get" and kind == "deployments":
                self._deployments(res)
            elif tool == "k8s_get" and kind == "networkpolicies":
                self.netpols = list(res)
            elif tool == "k8s_get" and kind == "nodes":
                self._nodes(res)
            elif tool == "query_logs" and isinstance(res, list):
                self._logs(args["service"], res)
            elif tool == "k8s_describe" and kind == "deployments":
                self.history[args["name"]] = list(res.get("revision_history", []))
                self.described_at[args["name"]] = self.seen_until
        for ch in self.changes.values():  # a change a later revert undid is bad
            if ch["sha"][:7] not in self.bad and reverted(ch, self.changes):
                self.bad.add(ch["sha"][:7])

    def _logs(self, svc: str, lines: list[Any]) -> None:
        """Do most of svc's recent error lines blame an outside dependency timing out?"""
        self.logs_at[svc] = self.seen_until
        lines = [str(x) for x in lines]
        ext = [x for x in lines if OUTSIDE_LOG.search(x) and "rpc error" not in x]
        if lines and 2 * len(ext) >= len(lines):
            self.outside[svc] = self.seen_until
        else:
            self.outside.pop(svc, None)

    def _nodes(self, res: list[dict[str, Any]]) -> None:
        self.node_status = {nd["name"]: nd.get("status", "") for nd in res}
        for name, st in self.node_status.items():
            if st and st != "Ready":
                self.down_since.setdefault(name, self.seen_until)
            else:
                self.down_since.pop(name, None)

    def _deployments(self, res: list[dict[str, Any]]) -> None:
        """New deployment states: replica counts, and revisions that no deploy explains."""
        for d in res:
            svc, rev = d["name"], d.get("revision")
            want = str(d.get("ready", "1/1")).partition("/")[2]
            if want.isdigit() and int(want) > 0:
                self.replicas[svc] = int(want)
                self.zero_since.pop(svc, None)
            elif want == "0":
                self.zero_since.setdefault(svc, self.prev_seen)
            last = self.deployments.get(svc, {}).get("revision")
            if not isinstance(rev, int) or not isinstance(last, int) or rev <= last:
                continue
            if svc in self.services:
                self.want_describe.add(svc)  # keep its history at hand for a rollback
            deployed = any(
                c["service"] == svc and int(c.get("revision") or 0) == rev
                for c in self.changes.values()
            )
            if not deployed and rev not in self.own_revs.get(svc, ()) and svc in self.services:
                key = f"{svc}@{rev}"  # a new revision no deploy of the pipeline or keep made
                self.changes[key] = {
                    "sha": key,
                    "service": svc,
                    "time": rfc3339(self.prev_seen),
                    "revision": rev,
                    "title": "configuration edited outside the pipeline",
                    "drift": True,
                }
        self.deployments = {d["name"]: d for d in res}

    def _rename(self, old: str, new: str | None) -> None:
        """Give an incident its real id (or forget it if its report failed)."""
        inc = self.incidents.pop(old, None)
        if inc is None:
            return
        if new is None:
            for aid in inc.members:
                self.owner.pop(aid, None)
            if inc.suspect is not None and self.by_suspect.get(inc.suspect.key) == old:
                del self.by_suspect[inc.suspect.key]
            return
        inc.id = new
        self.incidents[new] = inc
        for aid in inc.members:
            self.owner[aid] = new
        if inc.suspect is not None:
            self.by_suspect[inc.suspect.key] = new

    def _topology(self, topo: dict[str, Any]) -> None:
        for s in topo.get("services", []):
            if s.get("kind") in NOT_SERVING:
                continue  # batch jobs, exporters, the load generator: no request depends on them
            self.services.add(s["name"])
            if s.get("port"):
                self.ports[s["name"]] = int(s["port"])
            for c in s.get("calls", []):
                self.callees.setdefault(s["name"], set()).add(c["service"])
                self.callers.setdefault(c["service"], set()).add(s["name"])
                if c.get("dependency") == "hard":
                    self.hard_callees.setdefault(s["name"], set()).add(c["service"])
        self.nodes = {n["name"] for n in topo.get("nodes", [])}
        self.entry = topo.get("entrypoint")

    # ------------------------------------------------------------------ grouping
    def _new(self, s: Suspect) -> Incident:
        self.n_new += 1
        inc = Incident(f"new-{self.n_new}", s.culprit, suspect=s)
        self.incidents[inc.id] = inc
        self.by_suspect[s.key] = inc.id
        return inc

    def _incident_of(self, s: Suspect, t: float) -> Incident | None:
        """The incident of suspect s: its own, the open one of its root cause (one incident per
        fault), or a new one."""
        iid = self.by_suspect.get(s.key)
        if iid is not None and self.incidents.get(iid) and self.incidents[iid].open:
            return self.incidents[iid]
        if s.since <= self.closed.get(s.key, NEVER):
            return None
        same = [
            i
            for i in self.incidents.values()
            if i.open and i.culprit == s.culprit and t - i.last_alert_t <= GROUP_WINDOW_S
        ]
        if same:
            inc = max(same, key=lambda i: i.last_alert_t)
            old = inc.suspect
            if inc.remedies == 0 and (old is None or RANK[s.kind] > RANK[old.kind]):
                if old is not None and self.by_suspect.get(old.key) == inc.id:
                    del self.by_suspect[old.key]
                inc.suspect, inc.rediagnosed = s, True  # a better diagnosis of the same fault
                self.by_suspect[s.key] = inc.id
            return inc
        return self._new(s)

    def _group(self, a: Alert) -> Incident | None:
        """Correlation rules: the incident's culprit, a call to or from it, a caller's service
        symptom or the entry point's, within the window."""
        best = None
        for inc in self.incidents.values():
            if not inc.open or a.t - inc.last_alert_t > GROUP_WINDOW_S:
                continue
            gone = inc.suspect is not None and inc.suspect.key not in self.live
            if gone and (inc.fixed_at is None or a.t > inc.fixed_at):
                continue  # its root cause is gone: alerts that start later are not its
            if a.workload is not None and a.workload == inc.culprit:
                return inc
            linked = (
                a.client == inc.culprit
                or a.server == inc.culprit
                or (a.name in SERVICE_ALERTS and a.service in self.callers.get(inc.culprit, ()))
            )
            if (linked or a.name in ENTRY_ALERTS) and (
                best is None or inc.last_alert_t > best.last_alert_t
            ):
                best = inc
        return best

    def _assign(self, alerts: list[Alert], suspects: list[Suspect]) -> dict:
        """Put every recent alert that is in no incident into one; returns incident -> added ids."""
        added: dict[str, list[str]] = {}
        fresh = [
            a
            for a in alerts
            if a.id not in self.owner
            and self.now - a.t <= FRESH_S
            and (a.workload is None or a.workload in self.services or a.workload in self.nodes)
        ]
        for a in sorted(fresh, key=lambda a: (a.t, a.id)):
            best, score = None, 0
            for s in suspects:
                sc = self._explains(s, a)
                if sc > score or (sc == score and sc > 0 and best and s.since > best.since):
                    best, score = s, sc
            if score < STRONG and a.t > self.seen_until - LAG_S:
                continue  # our reads may predate its cause: wait one invocation for evidence
            inc = self._incident_of(best, a.t) if best is not None and score >= 2 else None
            if inc is None:
                inc = self._group(a)
            if inc is None:
                continue  # nothing confirmed explains it: it waits
            self.owner[a.id] = inc.id
            inc.members.add(a.id)
            inc.last_alert_t = max(inc.last_alert_t, a.t)
            added.setdefault(inc.id, []).append(a.id)
        return added

    # ------------------------------------------------------------------ acting
    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        inv = int(obs["invocation"])
        self.now = now = float(obs["time"])
        self._ingest(obs)
        alerts = [Alert.parse(a) for a in alerts_of(obs)]
        by_id = {a.id: a for a in alerts}
        abnormal = abnormal_services(alerts) & self.services
        suspects = self._suspects(alerts, abnormal, now)
        self.live = {s.key for s in suspects}
        self.log_targets = sorted(
            {
                a.service
                for a in alerts
                if a.firing
                and a.service in self.services
                and (
                    a.name in SERVICE_ALERTS or (a.service == self.entry and a.name in ENTRY_ALERTS)
                )
                and not self._inherited(a.service, abnormal)
            }
        )[:MAX_LOG_READS]
        added = self._assign(alerts, suspects)
        reserve = sum(_duration(c["tool"]) for c in self._reads(inv, dry=True))
        budget = BUDGET_S - reserve - 3 * _duration("k8s_describe")
        calls: list[dict[str, Any]] = []

        def spend(*cs: dict[str, Any]) -> bool:
            nonlocal budget
            cost = sum(_duration(c["tool"]) for c in cs)
            if cost > budget:
                return False
            budget -= cost
            calls.extend(cs)
            return True

        # reports of new incidents first (their ids are assigned in order), then diagnoses
        for inc in [i for i in self.incidents.values() if not i.reported]:  # in creation order
            c = call(
                "report_incident",
                alert_ids=sorted(inc.members),
                root_cause_services=[inc.culprit],
                artifact=inc.artifact,
                summary=self._summary(inc),
            )
            if not inc.members or not spend(c):
                self._rename(inc.id, None)
                continue
            self.n_reports += 1
            self._rename(inc.id, f"INC-{self.n_reports:04d}")
            inc.reported, inc.rediagnosed = True, False
            self.predicted.append(inc.id)
            added.pop(inc.id, None)
        for inc in self.incidents.values():
            if inc.rediagnosed and inc.open and inc.reported and inc.id not in self.predicted:
                inc.rediagnosed = not spend(
                    call(
                        "update_incident",
                        incident_id=inc.id,
                        root_cause_services=[inc.culprit],
                        artifact=inc.artifact,
                        summary=self._summary(inc),
                    )
                )
        for undo in self._undos(alerts):
            spend(undo)
        for inc in self._to_remedy():
            remedy = self._remedy(inc)
            if remedy and spend(*remedy):
                self._acted(inc, remedy, alerts)
        for iid, ids in sorted(added.items()):
            if iid in self.incidents and self.incidents[iid].open and iid.startswith("INC-"):
                spend(call("update_incident", incident_id=iid, add_alert_ids=sorted(ids)))
        for inc in list(self.incidents.values()):
            if not inc.open or not inc.reported:
                continue
            firing = any(by_id[m].firing for m in inc.members if m in by_id)
            inc.quiet = 0 if firing else inc.quiet + 1
            if inc.quiet >= 2 and spend(
                call("resolve_incident", incident_id=inc.id, summary="keep: all alerts resolved")
            ):
                inc.open = False
                if inc.suspect is not None:
                    self.by_suspect.pop(inc.suspect.key, None)
                    self.closed[inc.suspect.key] = now
        reads = self._reads(inv)
        self.read_at = now + sum(_duration(c["tool"]) for c in calls)
        self.sent = calls + reads
        return list(self.sent)

    def _acted(self, inc: Incident, remedy: list[dict[str, Any]], alerts: list[Alert]) -> None:
        """Book-keeping of a remedy sent for incident inc."""
        now = self.now
        inc.remedies += 1
        if inc.fixed_at is None:
            inc.fixed_at = now
        self.remedy_of.update({id(c): inc.id for c in remedy})
        self.deleted.update(c["args"]["name"] for c in remedy if c["tool"] == "delete_resource")
        s = inc.suspect
        for c in remedy:
            svc = c["args"].get("deployment")
            if c["tool"] in ("rollback", "restart") and svc:
                self.touched[svc] = now
                self.pending[id(c)] = Action(
                    svc,
                    c["tool"],
                    now,
                    inc.id,
                    self.deployments.get(svc, {}).get("revision"),
                    self._sick(svc, alerts),
                    self.seen_until,
                )
        if s is not None and s.kind == "deploy":
            self.undoing[id(remedy[0])] = s.artifact

    def _to_remedy(self) -> list[Incident]:
        out = []
        for inc in sorted(self.incidents.values(), key=lambda i: i.id):
            if not inc.open or not inc.reported or inc.suspect is None:
                continue
            if inc.remedies > 0 and not (inc.suspect.kind == "node" and self._remedy(inc)):
                continue  # (a node is evacuated again while pods keep has not deleted sit on it)
            if inc.suspect.key not in self.live:
                continue  # its cause is gone
            svc = inc.suspect.service
            busy = self.now - self.touched.get(svc or "", NEVER) < COOLDOWN_S
            if busy and inc.suspect.kind in ("deploy", "pod"):
                continue  # (a rollout or restart so soon after another would churn the service)
            out.append(inc)
        return out

    def _summary(self, inc: Incident) -> str:
        s = inc.suspect
        if s is None:
            return f"keep: alerts around {inc.culprit}; diagnosis pending"
        what = {
            "node": f"node {s.culprit} is NotReady",
            "netpol": f"network policy {s.artifact} denies {s.service} -> {s.peer}",
            "deploy": (
                f"{s.service} configuration edited outside the pipeline ({s.artifact})"
                if (s.change or {}).get("drift")
                else f"deploy {s.artifact[:7]} of {s.service}: {(s.change or {}).get('title', '')}"
            ),
            "pod": f"pod {s.pod} of {s.service} misbehaves without a deploy",
            "scaled": f"deployment {s.service} was scaled to zero replicas",
        }[s.kind]
        return f"keep: {what}"

    def _remedy(self, inc: Incident) -> list[dict[str, Any]]:
        s = inc.suspect
        if s is None:
            return []
        if s.kind == "node":
            return [
                call("delete_resource", kind="pods", name=p["name"], incident_id=inc.id)
                for p in self.pods
                if p.get("node") == s.culprit
                and p.get("status") != "Terminating"
                and p["name"] not in self.deleted
                and p.get("deployment") in self.services  # serving workloads only
                and p.get("deployment") not in BENCHMARK_WORKLOADS
            ]
        if s.kind == "netpol":
            name = s.artifact.split("/", 1)[1]
            if not any(p["name"] == name for p in self.netpols):
                return []
            return [call("delete_resource", kind="networkpolicies", name=name, incident_id=inc.id)]
        if s.kind == "pod":
            return [call("restart", deployment=s.service, incident_id=inc.id)]
        if s.kind == "scaled":
            n = self.replicas.get(s.service or "", 1)
            return [call("scale", deployment=s.service, replicas=n, incident_id=inc.id)]
        return self._rollback(inc.id, s.service or "", s.change or {})

    def _reads(self, inv: int, dry: bool = False) -> list[dict[str, Any]]:
        out = [call("get_topology")] if inv == 0 or not self.services else []
        out += [
            call("list_changes", since_s=CHANGES_SINCE_S, limit=50),
            call("k8s_get", kind="pods"),
            call("k8s_get", kind="deployments"),
            call("k8s_get", kind="networkpolicies"),
            call("k8s_get", kind="nodes"),
        ]
        out += [
            call("k8s_describe", kind="deployments", name=svc)
            for svc in sorted(self.want_describe)[:6]
        ]
        out += [
            call("query_logs", service=svc, since_s=LOG_SINCE_S, level="error", limit=40)
            for svc in self.log_targets
        ]
        if not dry:
            self.want_describe.difference_update(sorted(self.want_describe)[:6])
        return out
