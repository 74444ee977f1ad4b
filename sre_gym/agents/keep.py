"""The Keep baseline: a persistent incident store, rule-based alert grouping and a non-LLM diagnosis.

Modelled on AIOps platforms such as Keep: alerts are correlated into incidents by rules, and each
incident is diagnosed from telemetry, topology and recent changes, then remediated. It uses only what
any agent sees (observations and its own tool results), never ground truth.

Every invocation it
1. reads the results of the reads it issued in the previous invocation (the env returns tool results
   one step later, so it reads after acting and uses the results on the next invocation): the call
   graph (``get_topology``, once), recent deploys (``list_changes``), pods, deployments, network
   policies and nodes (``k8s_get``), and the revision history of a deployment whose rollback was
   refused (``k8s_describe``);
2. forms *suspects*, candidate root causes with their responsible artifact and remedy: a NotReady node
   (artifact: the node; remedy: delete the application pods on it), a NetworkPolicy that denies
   egress (artifact: the policy; remedy: delete it), a recent deploy of a service whose own signals
   turned abnormal after it (artifact: the commit sha; remedy: roll back to the revision before it),
   a new deployment revision that neither the pipeline nor keep made (a configuration edited by
   hand, named as ``service@revision``; remedy: roll back to the revision before it), a deployment
   scaled to zero (artifact: the deployment; remedy: scale back to its last replica count), and a pod
   whose own signals are abnormal without a deploy (CPU throttling, OOM kills, crash loops, latency
   not explained by a dependency; artifact: the pod; remedy: a rolling restart);
3. puts each new alert into at most one incident: the incident of the suspect that explains it best
   (its node, its workload, a call-graph edge to it, a caller of it); failing that, by correlation
   rules: an open incident of the same workload, or of a service adjacent in the call graph
   (``get_topology``), whose last alert is at most ``GROUP_WINDOW_S`` old; failing that, a new
   incident whose root cause is the most downstream abnormal service, diagnosed (``update_incident``
   with culprit and artifact) once a suspect explains it;
4. applies each diagnosed incident's remedy once (again if its alerts still fire ``RETRY_AFTER``
   invocations later), resolves incidents whose alerts have all resolved, then issues the next reads.

What it cannot do: tell a harmless deploy from a harmful one except by the timing and the signals
that follow it; see a fault whose symptoms never reach an alert rule, or whose alerts were already
firing for an earlier fault; separate two faults on one service at once (their alerts share an
incident); name a config key rather than the commit that changed it; see feature-flag changes or
zone-wide outages as such; repair with a source patch or a config patch. Its evidence is up to one
invocation (120 s) old, so it typically reports and repairs one invocation after the oracle would.

The pure readers of its cues (alert parsing, alert families, network-policy semantics, pod and
deploy look-ups) and the ``Alert`` and ``Suspect`` records live in ``sre_gym.agents.keep_cues``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.agents.keep_cues import (
    ENTRY_ALERTS,
    OWN_ALERTS,
    POD_FAULT_ALERTS,
    SERVICE_ALERTS,
    Alert,
    Suspect,
    abnormal_services,
    denying_policies,
    node_of,
    parse_time,
    pod_of,
    reverted,
)
from sre_gym.clock import rfc3339
from sre_gym.tools.policy import BENCHMARK_WORKLOADS
from sre_gym.tools.specs import BUDGET_S, TOOLS

CHANGE_WINDOW_S = 900  # a deploy stays a suspect this long
DEPLOY_EFFECT_S = 480  # a deploy is suspect only if its service's signals turn abnormal this soon
CHANGES_SINCE_S = 420  # each list_changes read covers this much history (reads are 120 s apart)
FRESH_S = 300  # alerts that started this recently and are in no incident get grouped
LAG_S = 30  # a deploy's effects reach an alert at least this late
STRONG = 6  # an explanation at least this good groups an alert at once
GROUP_WINDOW_S = 300  # a related alert joins an incident this soon after its last alert
RESTART_SETTLE_S = 240  # pod alerts this soon after keep's own restart are its transients
OWN_ECHO_S = 300  # revisions this soon after keep's own action may be the orchestrator's checks
RETRY_AFTER = 3  # invocations before a remedy is applied again if the incident still fires
MAX_REMEDIES = 2
NEVER = -1e18


def _duration(tool: str) -> int:
    return TOOLS[tool].duration_s


@dataclass
class Incident:
    id: str
    culprit: str
    members: set[str] = field(default_factory=set)
    suspect: Suspect | None = None
    last_alert_t: float = 0.0
    remedied: int | None = None  # invocation of the last remedy
    fixed_at: float | None = None  # when its first remedy ran
    remedies: int = 0
    quiet: int = 0  # invocations in a row without a firing member
    open: bool = True
    reported: bool = False

    @property
    def artifact(self) -> str | None:
        return self.suspect.artifact if self.suspect else None


class KeepAgent(Agent):
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
        self.services: set[str] = set()
        self.nodes: set[str] = set()
        self.changes: dict[str, dict[str, Any]] = {}  # sha -> deploy seen in list_changes
        self.pods: list[dict[str, Any]] = []
        self.deployments: dict[str, dict[str, Any]] = {}
        self.netpols: list[dict[str, Any]] = []
        self.ports: dict[str, int] = {}  # service -> the port its pods listen on
        self.node_status: dict[str, str] = {}
        self.history: dict[str, list[dict[str, Any]]] = {}  # deployment -> revision history
        self.want_describe: set[str] = set()
        self.incidents: dict[str, Incident] = {}
        self.owner: dict[str, str] = {}  # alert id -> incident id
        self.by_suspect: dict[tuple, str] = {}  # suspect key -> incident id
        self.closed: dict[tuple, float] = {}  # suspect key -> when its incident was resolved
        self.restarted: dict[str, float] = {}  # service -> when keep restarted it
        self.undone: set[str] = set()  # deploys keep rolled back
        self.rolled_back: dict[str, float] = {}  # deployment -> when keep last rolled it back
        self.remedy_of: dict[int, str] = {}  # id of a remedy call sent -> its incident
        self.read_at = 0.0  # when the reads sent last invocation ran
        self.seen_until = 0.0  # when the reads we hold ran
        self.prev_seen = 0.0  # when the reads before those ran
        self.replicas: dict[str, int] = {}  # deployment -> replicas it last had (when > 0)
        self.zero_since: dict[str, float] = {}  # deployment -> since when it has 0 replicas
        self.undoing: dict[int, str] = {}  # id of a rollback call sent -> the deploy it undoes
        self.live: set[tuple] = set()  # keys of this invocation's suspects
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
            if tool == "rollback" and r.get("ok") and id(c) in undoing:
                self.undone.add(undoing[id(c)])
            if not r.get("ok") and id(c) in remedy_of:
                inc = self.incidents.get(remedy_of[id(c)])
                if inc is not None and inc.remedies > 0:  # it failed: try again (as told)
                    inc.remedies -= 1
                    inc.remedied = None
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
                self.node_status = {nd["name"]: nd.get("status", "") for nd in res}
            elif tool == "k8s_describe" and kind == "deployments":
                self.history[args["name"]] = list(res.get("revision_history", []))

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
            ours = max(self.restarted.get(svc, NEVER), self.rolled_back.get(svc, NEVER))
            deployed = any(
                c["service"] == svc and last < int(c.get("revision") or 0) <= rev
                for c in self.changes.values()
            )
            if not deployed and ours < self.prev_seen - OWN_ECHO_S and svc in self.services:
                key = f"{svc}@{rev}"  # a new revision no deploy of ours or the pipeline made
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
            if s.get("kind") == "loadgen":
                continue
            self.services.add(s["name"])
            if s.get("port"):
                self.ports[s["name"]] = int(s["port"])
            for c in s.get("calls", []):
                self.callees.setdefault(s["name"], set()).add(c["service"])
                self.callers.setdefault(c["service"], set()).add(s["name"])
                if c.get("dependency") == "hard":
                    self.hard_callees.setdefault(s["name"], set()).add(c["service"])
        self.nodes = {n["name"] for n in topo.get("nodes", [])}

    # ------------------------------------------------------------------ diagnosis
    def _inherited(self, svc: str, abnormal: set[str]) -> bool:
        """Are svc's service-level symptoms explained by an abnormal hard dependency?"""
        return bool(self.hard_callees.get(svc, set()) & abnormal)

    def _suspects(self, alerts: list[Alert], abnormal: set[str], now: float) -> list[Suspect]:
        out: list[Suspect] = []
        nodes = {a.node for a in alerts if a.node and a.firing}
        nodes |= {n for n, st in self.node_status.items() if st and st != "Ready"}
        for node in sorted(nodes):
            t = max((a.t for a in alerts if a.node == node), default=now)
            out.append(Suspect(("node", node), "node", node, node, t))
        for p, (src, peer) in denying_policies(self.netpols, self.callees, self.ports):
            out.append(
                Suspect(
                    ("netpol", p["name"]),
                    "netpol",
                    src,
                    f"networkpolicy/{p['name']}",
                    parse_time(p.get("created")) or now,
                    service=src,
                    peer=peer,
                )
            )
        out += self._deploy_suspects(alerts, abnormal, now)
        for svc, since in sorted(self.zero_since.items()):
            if svc in self.services:
                out.append(Suspect(("scaled", svc), "scaled", svc, f"deployment/{svc}", since, svc))
        deployed = {s.service for s in out if s.kind == "deploy"}
        bad_nodes = {s.culprit for s in out if s.kind == "node"}
        for a in alerts:
            svc = a.service
            if not a.firing or svc is None or svc in deployed or svc not in self.services:
                continue
            if a.client is not None or a.t < self.restarted.get(svc, NEVER) + RESTART_SETTLE_S:
                continue
            pod = None
            if a.name in POD_FAULT_ALERTS and a.pod:
                pod = a.pod
            elif (
                a.name == "ServiceHighLatency"
                and not self._inherited(svc, abnormal)
                and a.t <= self.seen_until - LAG_S  # else a deploy we have not read may explain it
            ):
                pod = pod_of(self.pods, svc)
            if pod is None or node_of(self.pods, pod) in bad_nodes:
                continue
            out.append(Suspect(("pod", pod), "pod", svc, f"pod/{pod}", a.t, svc, pod=pod))
        uniq: dict[tuple, Suspect] = {}
        for s in out:
            uniq.setdefault(s.key, s)
        return list(uniq.values())

    def _deploy_suspects(self, alerts: list[Alert], abnormal: set[str], now: float) -> list:
        """The latest live deploy of each service whose own signals turned abnormal after it."""
        latest: dict[str, dict[str, Any]] = {}
        for ch in self.changes.values():
            t = parse_time(ch["time"])
            if now - t > CHANGE_WINDOW_S or str(ch.get("title", "")).startswith("Revert"):
                continue
            if ch["sha"] in self.undone or reverted(ch, self.changes):
                continue
            svc = ch["service"]
            if svc not in latest or parse_time(latest[svc]["time"]) < t:
                latest[svc] = ch
        out = []
        for svc, ch in sorted(latest.items()):
            t = parse_time(ch["time"])
            after = [a for a in alerts if t <= a.t <= t + DEPLOY_EFFECT_S]
            own = {a.name for a in after if a.service == svc and a.client is None}
            cannot_reach = any(a.client == svc and a.server not in abnormal for a in after)
            failing_callee = svc in abnormal and any(a.server == svc for a in after)
            if (
                own & OWN_ALERTS
                or cannot_reach
                or failing_callee
                or (own & SERVICE_ALERTS and not self._inherited(svc, abnormal))
            ):
                art = ch["sha"]  # a drift's key is already service@revision
                out.append(Suspect(("deploy", art), "deploy", svc, art, t, svc, change=ch))
        return out

    def _explains(self, s: Suspect, a: Alert) -> int:
        """How well suspect s explains alert a (0: not at all)."""
        if a.t < s.since - 60:
            return 0
        if s.kind == "node":
            if a.node == s.culprit:
                return 10
            if a.pod and node_of(self.pods, a.pod) == s.culprit:
                return 8
            on_node = {p.get("deployment") for p in self.pods if p.get("node") == s.culprit}
            return 5 if a.service in on_node else 0
        svc = s.service or ""
        if s.kind == "netpol":
            if a.client == svc and a.server == s.peer:
                return 10
            if a.service == svc and a.name in SERVICE_ALERTS:
                return 4
        else:
            if a.pod and s.pod and a.pod == s.pod:
                return 9
            if a.service == svc and a.client is None:
                return 8 if a.name in OWN_ALERTS else 7
            if a.server == svc or (a.client == svc and s.kind == "deploy"):
                return 6
        if a.name in ENTRY_ALERTS:
            return 2
        return 3 if a.service in self.callers.get(svc, ()) else 0

    def _likely_culprit(self, a: Alert, abnormal: set[str]) -> str | None:
        """Root cause of an alert no suspect explains: the most downstream abnormal service."""
        svc = a.workload
        if a.client and a.server and a.server not in abnormal:
            svc = a.client  # the callee looks healthy: the caller cannot reach it
        seen: set[str] = set()
        while svc in self.hard_callees and svc not in seen:
            seen.add(svc)
            down = sorted(self.hard_callees[svc] & abnormal)
            if not down:
                break
            svc = down[0]
        return svc if svc in self.services or svc in self.nodes else None

    # ------------------------------------------------------------------ grouping
    def _new(self, culprit: str | None, suspect: Suspect | None = None) -> Incident | None:
        if culprit is None:
            return None
        self.n_new += 1
        inc = Incident(f"new-{self.n_new}", culprit, suspect=suspect)
        self.incidents[inc.id] = inc
        if suspect is not None:
            self.by_suspect[suspect.key] = inc.id
        return inc

    def _incident_of(self, s: Suspect) -> Incident | None:
        iid = self.by_suspect.get(s.key)
        if iid is not None and self.incidents.get(iid) and self.incidents[iid].open:
            return self.incidents[iid]
        if s.since <= self.closed.get(s.key, NEVER):
            return None
        return self._new(s.culprit, s)

    def _group(self, a: Alert) -> Incident | None:
        """Correlation rules: same workload, or adjacent in the call graph, within the window."""
        best = None
        for inc in self.incidents.values():
            if not inc.open or a.t - inc.last_alert_t > GROUP_WINDOW_S:
                continue
            gone = inc.suspect is not None and inc.suspect.key not in self.live
            if gone and (inc.fixed_at is None or a.t > inc.fixed_at):
                continue  # its root cause is gone: alerts that start later are not its
            if a.workload is not None and a.workload == inc.culprit:
                return inc
            linked = a.service is not None and (
                a.service in self.callers.get(inc.culprit, ())
                or a.service in self.callees.get(inc.culprit, ())
                or a.client == inc.culprit
            )
            if (linked or a.name in ENTRY_ALERTS) and (
                best is None or inc.last_alert_t > best.last_alert_t
            ):
                best = inc
        return best

    def _assign(self, alerts: list[Alert], suspects: list[Suspect], abnormal: set[str]) -> dict:
        """Put every recent alert that is in no incident into one; returns incident -> added ids."""
        added: dict[str, list[str]] = {}
        fresh = [a for a in alerts if a.id not in self.owner and self.now - a.t <= FRESH_S]
        for a in sorted(fresh, key=lambda a: (a.t, a.id)):
            best, score = None, 0
            for s in suspects:
                sc = self._explains(s, a)
                if sc > score or (sc == score and sc > 0 and best and s.since > best.since):
                    best, score = s, sc
            if score < STRONG and a.t > self.seen_until - LAG_S:
                continue  # our reads may predate its cause: wait one invocation for evidence
            inc = self._incident_of(best) if best is not None else None
            if inc is None:
                inc = self._group(a)
            if inc is None and a.firing:
                inc = self._new(self._likely_culprit(a, abnormal))
            if inc is None:
                continue
            self.owner[a.id] = inc.id
            inc.members.add(a.id)
            inc.last_alert_t = max(inc.last_alert_t, a.t)
            added.setdefault(inc.id, []).append(a.id)
        return added

    def _diagnose(self, suspects: list[Suspect], by_id: dict[str, Alert]) -> list[Incident]:
        """Attach suspects to incidents opened without one; returns the incidents diagnosed."""
        out = []
        for s in sorted(suspects, key=lambda s: (-s.since, s.key)):
            if s.key in self.by_suspect or s.since <= self.closed.get(s.key, NEVER):
                continue
            pending = [
                inc
                for inc in self.incidents.values()
                if inc.open
                and inc.suspect is None
                and inc.last_alert_t >= s.since - 60
                and (
                    s.culprit == inc.culprit
                    or any(self._explains(s, by_id[m]) >= 6 for m in inc.members if m in by_id)
                )
            ]
            if pending:
                inc = max(pending, key=lambda i: (i.last_alert_t, i.id))
                inc.suspect, inc.culprit = s, s.culprit
                self.by_suspect[s.key] = inc.id
                out.append(inc)
        return out

    # ------------------------------------------------------------------ acting
    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        inv = int(obs["invocation"])
        self.now = now = float(obs["time"])
        self._ingest(obs)
        alerts = [Alert.parse(a) for a in alerts_of(obs)]
        by_id = {a.id: a for a in alerts}
        abnormal = abnormal_services(alerts)
        suspects = self._suspects(alerts, abnormal, now)
        self.live = {s.key for s in suspects}
        added = self._assign(alerts, suspects, abnormal)
        diagnosed = self._diagnose(suspects, by_id)
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
            inc.reported = True
            self.predicted.append(inc.id)
            added.pop(inc.id, None)
        for inc in diagnosed:
            if inc.id not in self.predicted and inc.open and inc.reported:
                spend(
                    call(
                        "update_incident",
                        incident_id=inc.id,
                        root_cause_services=[inc.culprit],
                        artifact=inc.artifact,
                        summary=self._summary(inc),
                    )
                )
        for inc in self._to_remedy(inv, by_id):
            remedy = self._remedy(inc)
            if remedy and spend(*remedy):
                inc.remedied, inc.remedies = inv, inc.remedies + 1
                if inc.fixed_at is None:
                    inc.fixed_at = now
                self.remedy_of.update({id(c): inc.id for c in remedy})
                if remedy[0]["tool"] == "rollback":
                    self.rolled_back[remedy[0]["args"]["deployment"]] = now
                if inc.suspect is not None and inc.suspect.kind == "deploy":
                    self.undoing[id(remedy[0])] = inc.suspect.artifact
                if inc.suspect is not None and inc.suspect.kind == "pod":
                    self.restarted[inc.suspect.service or ""] = now
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

    def _to_remedy(self, inv: int, by_id: dict[str, Alert]) -> list[Incident]:
        out = []
        for inc in sorted(self.incidents.values(), key=lambda i: i.id):
            if not inc.open or not inc.reported or inc.suspect is None:
                continue
            if inc.remedies >= MAX_REMEDIES:
                continue
            if inc.remedied is not None:
                firing = any(by_id[m].firing for m in inc.members if m in by_id)
                if not firing or inv - inc.remedied < RETRY_AFTER:
                    continue
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
                and p.get("deployment") in self.services  # never the load generator's
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
        rev = self._good_revision(s.service or "", s.change or {})
        if rev is False:
            self.want_describe.add(s.service or "")
            return []
        return [call("rollback", deployment=s.service, to_revision=rev, incident_id=inc.id)]

    def _good_revision(self, svc: str, ch: dict[str, Any]) -> int | None | bool:
        """Revision to roll back to (the one before the deploy), or False if not known yet."""
        sha7 = str(ch.get("sha", ""))[:7]
        hist = self.history.get(svc) or []
        for i, h in enumerate(hist):  # a described history beats arithmetic
            hit = int(h.get("revision", 0)) == ch.get("revision") if ch.get("drift") else False
            if hit or (sha7 and not ch.get("drift") and sha7 in str(h.get("change_cause", ""))):
                return int(hist[i - 1]["revision"]) if i > 0 else False
        n = ch.get("revision")
        if (
            isinstance(n, int)
            and n > 1
            and self.rolled_back.get(svc, NEVER) < parse_time(ch["time"])
        ):
            return n - 1  # revisions are numbered in order; only a rollback moves one
        return False

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
            for svc in sorted(self.want_describe)[:3]
        ]
        if not dry:
            self.want_describe.clear()
        return out
