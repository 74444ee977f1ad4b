"""Keep-agent (``keep-llm``): rule-based alert grouping in a persistent incident store, then RAG's
telemetry retrieval and one model call for diagnoses, repair plans and the alerts the rules left.

Each invocation: (1) **rules**: each alert in no incident that is new or firing, in start order,
joins the open incident ``rule_place`` picks (same workload; a call failure whose caller is the
incident's workload; the same alert family on a call-graph neighbour; within ``GROUP_WINDOW_S`` of
its last alert), else opens one rooted at the workload ``rule_anchor`` names (firing, not an entry
point or info alert); reports and joins run at once. The rest stay *ungrouped*. The store (alert id
-> incident id) lasts the episode, so an alert is in at most one incident; incidents with no firing
alert for ``QUIET`` invocations are resolved. (2) **Retrieval**, RAG's own (``rag.retrieve``):
the topology once per episode, then deployment state and recent changes of the ``TOP_K`` services
most named by the alerts of incidents awaiting a diagnosis and by the ungrouped alerts.
(3) **One model call** (JSON object) with the open incidents, the ungrouped alerts and that context,
answered with ``{"placements": [...], "diagnoses": [...], "repairs": [...]}`` and vetted: the model
may place only ungrouped alerts (a move of a grouped one is ignored), and unknown alerts, incidents,
root-cause names, tools outside the access profile and ill-typed arguments are dropped, each problem
recorded (``client.note``); a reply that is not a JSON object is noted and only the rules' work
stands. (4) **Execution**: updates, the model's new incidents, then at most ``MAX_REPAIRS`` repairs,
each citing its incident; a repair made in the previous invocation for the same incident is not
repeated.

Budget per invocation: one model call, plus one resend of a cut prompt after a context overflow (at
most ``max_steps`` calls, so ``max_steps=0`` leaves the rules alone; no resend past ``max_tokens``
tokens). The prompt is bounded: ``SHOWN_INCIDENTS`` incidents of ``SHOWN_MEMBERS`` alerts,
``SHOWN_ALERTS`` ungrouped alerts, 7 retrieved results of ``CONTEXT_CHARS`` characters. Tool
calls spend the invocation's 110 s. Provider trouble ends the invocation's model part, never the
episode; it is in the transcript.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sre_gym.agents.base import Agent
from sre_gym.agents.keep import GROUP_WINDOW_S, Alert
from sre_gym.agents.llm.client import ModelClient
from sre_gym.agents.llm.rag import CONTEXT_CHARS, items, retrieve
from sre_gym.backends.base import alert_entities
from sre_gym.tools.policy import ACCESS_PROFILES, BENCHMARK_WORKLOADS, INTERVENTIONS
from sre_gym.tools.specs import TOOLS

SYSTEM = (
    "You are the on-call SRE of a microservice application on Kubernetes. Faults keep arriving "
    "from code changes, configuration changes and infrastructure trouble; not every alert has a "
    "fault behind it. Correlation rules have grouped alerts into the incidents shown; you may not "
    "move their alerts. Answer with one JSON object and nothing else: "
    '{"placements": [{"alert_ids": [...], "incident": "<open incident id, or NEW-1, NEW-2, ... '
    'for a new one>"}], "diagnoses": [{"incident": "...", "root_cause_services": [...], '
    '"artifact": "..."}], "repairs": [{"incident": "...", "tool": "rollback|restart|scale|'
    'patch_config|delete_resource|submit_patch", "args": {...}}]}. Place only ungrouped alerts. '
    "Name root causes only from the listed names; an artifact is a commit sha, "
    "deployment@revision, a config key or kind/name. Repair only what the context supports; a "
    "wrong intervention costs capacity."
)
NEW = "NEW-"  # the model's labels for the incidents it opens
SHOWN_INCIDENTS = 12  # open incidents with a firing alert, the most recently active
SHOWN_MEMBERS = 8  # latest alerts shown per incident (2 after a context overflow)
SHOWN_ALERTS = 40  # latest ungrouped alerts (10 after a context overflow)
MAX_REPAIRS = 3  # per invocation: each one is a risk
TOP_K = 3  # services retrieved per invocation, as RAG does
QUIET = 2  # invocations with no firing alert before the rules resolve an incident
MAX_NOTE = 20  # problems listed in one note
Repair = tuple[str, str, str]  # (incident id, tool, args as sorted JSON)


@dataclass(frozen=True)
class Graph:
    """What the rules need of ``get_topology``: call-graph neighbours and root-cause names."""

    neighbours: dict[str, frozenset[str]]
    entities: frozenset[str]  # services, nodes and zones: what report_incident accepts

    @classmethod
    def parse(cls, topo: dict[str, Any]) -> Graph:
        nb: dict[str, set[str]] = {}
        names: set[str] = set()
        for s in topo.get("services", []):
            if s.get("kind") != "loadgen":
                names.add(s["name"])
                for c in s.get("calls", []):
                    nb.setdefault(s["name"], set()).add(c["service"])
                    nb.setdefault(c["service"], set()).add(s["name"])
        for n in topo.get("nodes", []):
            names.update(x for x in (n.get("name"), n.get("zone")) if x)
        return cls({k: frozenset(v) for k, v in nb.items()}, frozenset(names))


@dataclass
class Case:
    """One incident of the store."""

    id: str  # "INC-…" once reported
    anchor: str | None  # the workload the rules group around (None: none yet)
    culprits: list[str]
    artifact: str | None = None
    members: list[str] = field(default_factory=list)
    families: set[str] = field(default_factory=set)
    last_t: float = 0.0  # start of its latest alert
    diagnosed: bool = False  # the model has named its root cause
    fresh: bool = True  # it got alerts since that diagnosis
    quiet: int = 0
    open: bool = True


def family(alert: dict[str, Any]) -> str:
    """An alert's family: its rule template (error-ratio, latency-slo, ...), else its name."""
    return str(alert.get("labels", {}).get("template") or alert.get("name", ""))


def rule_place(al: Alert, fam: str, cases: Iterable[Case], graph: Graph) -> Case | None:
    """The open incident the rules put ``al`` into, or None. Strongest rule first: the same
    workload; a call failure whose caller is the incident's workload; the same family on a
    call-graph neighbour; only incidents whose last alert is at most ``GROUP_WINDOW_S`` older."""
    if al.name.startswith("Entrypoint") or al.workload is None:
        return None  # the entry point shows every fault: which one is the model's call
    best: tuple[int, float, str] | None = None
    out = None
    for c in cases:
        if not c.open or c.anchor is None or al.t - c.last_t > GROUP_WINDOW_S:
            continue
        if al.workload == c.anchor or al.workload in c.culprits:
            rank = 0
        elif al.client is not None and al.client == c.anchor:
            rank = 1
        elif al.service in graph.neighbours.get(c.anchor, ()) and fam in c.families:
            rank = 2
        else:
            continue
        if best is None or (rank, -c.last_t, c.id) < best:
            best, out = (rank, -c.last_t, c.id), c
    return out


def rule_anchor(al: Alert, severity: str, graph: Graph) -> str | None:
    """The workload a new rule-made incident is rooted at, or None (the alert stays ungrouped)."""
    if al.name.startswith("Entrypoint") or severity == "info" or not al.firing:
        return None
    w = al.workload
    return w if w in graph.entities and w not in BENCHMARK_WORKLOADS else None


class KeepLlmAgent(Agent):
    """Keep-agent over any chat-completions endpoint (``make_agent("keep-llm", env, ...)``)."""

    name = "keep-llm"

    def __init__(
        self, env: Any, client: ModelClient, *, max_steps: int = 10, max_tokens: int = 150_000
    ) -> None:
        from sre_gym.wrappers.tool_call_steps import marathon_of

        self.base, self.client = marathon_of(env), client
        self.max_steps, self.max_tokens = int(max_steps), int(max_tokens)
        self.reset()

    def reset(self) -> None:
        self.client.transcript.clear()
        self.topology = ""  # get_topology's text, for retrieval
        self.graph: Graph | None = None
        self.cases: dict[str, Case] = {}  # incident id -> case, in report order
        self.owner: dict[str, str] = {}  # alert id -> incident id: the store
        self.seen: set[str] = set()
        self.last_repairs: set[Repair] = set()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        mark = self.client.mark()
        alerts = json.loads(obs["alerts"])
        by_id = {a["id"]: a for a in alerts}
        new = {a["id"] for a in alerts if a["id"] not in self.seen}
        self.seen |= new
        if self.graph is None:
            self._topology()
        self._reconcile(obs, by_id)
        todo = [a for a in alerts if a["id"] not in self.owner and (a["id"] in new or _firing(a))]
        self._rules(todo)
        live = [a for a in todo if a["id"] not in self.owner]  # what the rules left ungrouped
        shown = [
            c for c in self.cases.values() if c.open and any(_firing(by_id[m]) for m in c.members)
        ]
        shown = sorted(shown, key=lambda c: (-c.last_t, c.id))[:SHOWN_INCIDENTS]
        plan = None
        if (live or shown) and self.max_steps > 0:
            plan = self._consult(obs, shown, live[-SHOWN_ALERTS:], by_id)
        self.last_repairs = self._execute(plan, by_id) if plan is not None else set()
        self.base.record_model(self.client.transcript_since(mark))
        return {"calls": [], "usage": self.client.usage_since(mark)}

    # ------------------------------------------------------------------ the rules
    def _topology(self) -> None:
        res = self.base.call({"tool": "get_topology", "args": {}})
        if res.get("ok") and isinstance(res.get("result"), dict):
            self.graph = Graph.parse(res["result"])
            # the very text RAG's retrieval would read: no second call
            text = json.dumps(res["result"], sort_keys=True, default=str)
            self.topology = text[:CONTEXT_CHARS]

    def _reconcile(self, obs: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> None:
        """Forget incidents no longer open; resolve those with no firing alert for ``QUIET``."""
        try:
            listed = {i.get("id") for i in json.loads(obs.get("incidents") or "[]")}
        except (json.JSONDecodeError, AttributeError):
            listed = None
        for c in self.cases.values():
            if c.open and listed is not None and c.id not in listed:
                c.open = False
            if not c.open:
                continue
            c.quiet = 0 if any(_firing(by_id.get(m, {})) for m in c.members) else c.quiet + 1
            if c.quiet >= QUIET:
                args = {"incident_id": c.id, "summary": "keep-llm: all alerts resolved"}
                c.open = not self.base.call({"tool": "resolve_incident", "args": args}).get("ok")

    def _rules(self, todo: list[dict[str, Any]]) -> None:
        """Place what the rules can; report the incidents they open, update the others."""
        if self.graph is None:
            return
        opened: list[Case] = []
        added: dict[str, list[str]] = {}
        for a in sorted(todo, key=lambda a: (a.get("starts_at") or "", a["id"])):
            al, fam = Alert.parse(a), family(a)
            case = rule_place(al, fam, [*self.cases.values(), *opened], self.graph)
            if case is None:
                anchor = rule_anchor(al, str(a.get("severity", "")), self.graph)
                if anchor is None:
                    continue  # ungrouped: the model may place it
                case = Case(f"rules-{len(opened)}", anchor, [anchor])
                opened.append(case)
            elif case.id in self.cases:
                added.setdefault(case.id, []).append(al.id)
            case.members.append(al.id)
            case.families.add(fam)
            case.last_t, case.fresh = max(case.last_t, al.t), True
            self.owner[al.id] = case.id
        for case in opened:
            self._report(case, f"keep-llm rules: alerts around {case.anchor}")
        for iid, ids in added.items():
            self._update(self.cases[iid], ids)

    def _report(self, case: Case, summary: str) -> bool:
        args = {"alert_ids": case.members, "root_cause_services": case.culprits, "summary": summary}
        if case.artifact is not None:
            args["artifact"] = case.artifact
        res = self.base.call({"tool": "report_incident", "args": args})
        iid = (res.get("result") or {}).get("id") if res.get("ok") else None
        for aid in case.members:  # a failed report leaves its alerts ungrouped
            if iid is None:
                self.owner.pop(aid, None)
            else:
                self.owner[aid] = iid
        if iid is not None:
            case.id = iid
            self.cases[iid] = case
        return iid is not None

    def _update(self, case: Case, ids: list[str], **diagnosis: Any) -> bool:
        args = {"incident_id": case.id, "add_alert_ids": ids, **diagnosis}
        if self.base.call({"tool": "update_incident", "args": args}).get("ok"):
            return True
        for aid in ids:  # not added after all
            self.owner.pop(aid, None)
            case.members.remove(aid)
        return False

    # ------------------------------------------------------------------ the model
    def _consult(
        self,
        obs: dict[str, Any],
        shown: list[Case],
        live: list[dict[str, Any]],
        by_id: dict[str, dict[str, Any]],
    ) -> dict[str, Any] | None:
        """The model's plan (None after provider trouble or a reply that is not a JSON object)."""
        lead = [by_id[m] for c in shown if c.fresh or not c.diagnosed for m in c.members]
        lead += [a for a in live if not a["name"].startswith("Entrypoint")]
        context = "\n".join(
            retrieve(self.base, [a for a in lead if _firing(a)] or live, self.topology, TOP_K)
        )
        names = json.dumps(sorted(self.graph.entities) if self.graph else [])

        def prompt(members: int, n_alerts: int, ctx: str) -> str:
            return (
                f"Invocation {int(obs['invocation'])}, simulated time {int(obs['time'])}.\n"
                f"Incidents (JSON): {_incidents(shown, by_id, members)}\n"
                f"Ungrouped alerts (JSON): {_alerts(live[-n_alerts:] if live else [])}\n"
                f"Root-cause names (JSON): {names}\nContext:\n{ctx}"
            )

        tries = (prompt(SHOWN_MEMBERS, SHOWN_ALERTS, context), prompt(2, 10, "(cut: overflow)"))
        tokens, reply = 0, None
        for user in tries[: self.max_steps]:
            messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
            reply = self.client.chat(messages, [], response_format={"type": "json_object"})
            tokens += reply.input_tokens + reply.output_tokens
            if reply.kind != "context_overflow" or tokens >= self.max_tokens:
                break
        if reply is None or reply.error is not None:
            return None
        try:
            plan = json.loads(reply.content or "")
        except json.JSONDecodeError as e:
            self.client.note(f"the plan is not JSON: {e}; only the rules acted")
            return None
        if not isinstance(plan, dict):
            self.client.note("the plan is not a JSON object; only the rules acted")
            return None
        return plan

    def _execute(self, plan: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> set[Repair]:
        """Vet the plan, then run it; returns the repairs made."""
        problems: list[str] = []
        refs = {c.id: c for c in self.cases.values() if c.open}  # what a reply may cite
        fresh: dict[str, Case] = {}  # NEW-… label -> the incident the model opens
        adds: dict[str, list[str]] = {}
        for p in items(plan.get("placements")):
            ids, ref = p.get("alert_ids"), p.get("incident")
            if not isinstance(ids, list) or not isinstance(ref, str):
                problems.append(f"placement {json.dumps(p)[:80]} is not alert_ids + incident")
            elif ref not in refs and not ref.startswith(NEW):
                problems.append(f"placement into unknown incident {ref[:32]!r} ignored")
            else:
                for aid in ids:  # only an alert no incident holds may be placed
                    if not isinstance(aid, str) or aid not in by_id:
                        problems.append(f"unknown alert {str(aid)[:32]!r} ignored")
                    elif self.owner.get(aid, ref) != ref:
                        problems.append(
                            f"{aid} is in {self.owner[aid]}: the model may not move it "
                            "(it may place only ungrouped alerts)"
                        )
                    elif aid not in self.owner:
                        self.owner[aid] = ref  # claimed; confirmed when reported or added
                        if ref in refs:
                            adds.setdefault(ref, []).append(aid)
                        else:
                            fresh.setdefault(ref, Case(ref, None, [])).members.append(aid)
        diag: dict[str, dict[str, Any]] = {}
        for d in items(plan.get("diagnoses")):
            ref = d.get("incident")
            if not isinstance(ref, str) or (ref not in refs and ref not in fresh):
                problems.append(f"diagnosis of unknown incident {str(ref)[:32]!r} ignored")
            elif got := self._vet_diagnosis(d, problems):
                diag[ref] = got
        for iid in sorted(set(adds) | {r for r in diag if r in refs}):
            case, ids, change = refs[iid], adds.get(iid, []), diag.get(iid, {})
            change = {k: v for k, v in change.items() if v != getattr(case, _FIELD[k])}
            if iid in diag:
                case.diagnosed, case.fresh = True, False
            if ids or change:  # else the model agrees with the store
                case.members.extend(ids)
                if self._update(case, ids, **change):
                    case.culprits = change.get("root_cause_services", case.culprits)
                    case.artifact = change.get("artifact", case.artifact)
        for label, case in fresh.items():
            case.culprits = diag.get(label, {}).get("root_cause_services", [])
            case.artifact = diag.get(label, {}).get("artifact")
            case.anchor = case.culprits[0] if case.culprits else None  # the rules' from now on
            case.diagnosed = label in diag
            case.fresh = not case.diagnosed
            case.last_t = max(Alert.parse(by_id[m]).t for m in case.members)
            if self._report(case, "keep-llm model: alerts the rules left ungrouped"):
                refs[label] = case
        done = self._repairs(plan, refs, problems)
        if problems:
            self.client.note("plan problems: " + "; ".join(problems[:MAX_NOTE]))
        return done

    def _vet_diagnosis(self, d: dict[str, Any], problems: list[str]) -> dict[str, Any]:
        """The root cause and artifact of a diagnosis, as ``update_incident`` takes them."""
        out: dict[str, Any] = {}
        names, art = d.get("root_cause_services"), d.get("artifact")
        if names is not None and not isinstance(names, list):
            problems.append("root_cause_services must be a list of names")
        elif names:
            known = self.graph.entities if self.graph else frozenset()
            good = list(dict.fromkeys(n for n in names if isinstance(n, str) and n in known))
            bad = [str(n)[:64] for n in names if n not in good]
            if bad:
                problems.append(f"unknown root-cause names dropped: {', '.join(bad[:5])}")
            if good:
                out["root_cause_services"] = good
        if isinstance(art, str) and 0 < len(art) <= 512:
            out["artifact"] = art
        elif art is not None:
            problems.append("artifact must be a string of at most 512 characters")
        return out

    def _repairs(
        self, plan: dict[str, Any], refs: dict[str, Case], problems: list[str]
    ) -> set[Repair]:
        """Run the plan's repairs that pass vetting, each citing its incident."""
        done: set[Repair] = set()
        for r in items(plan.get("repairs")):
            tool, args, why = r.get("tool"), r.get("args"), None
            ref = r.get("incident", args.get("incident_id") if isinstance(args, dict) else None)
            if tool not in INTERVENTIONS or tool not in ACCESS_PROFILES[self.base.profile]:
                why = f"repair tool {str(tool)[:32]!r} is not an allowed intervention"
            elif not isinstance(ref, str) or ref not in refs:
                why = f"repair cites unknown incident {str(ref)[:32]!r}"
            elif not isinstance(args, dict):
                why = f"{tool}: args must be an object"
            else:
                args = {**args, "incident_id": refs[ref].id}
                try:
                    TOOLS[tool].args.model_validate(args)
                except ValidationError as e:
                    why = f"{tool}: ill-typed args dropped ({e.error_count()} errors)"
                key = (refs[ref].id, tool, json.dumps(args, sort_keys=True))
                if why is None and key in self.last_repairs:
                    why = f"{tool} for {refs[ref].id} was made last invocation; not repeated"
                elif why is None and key not in done and len(done) >= MAX_REPAIRS:
                    why = f"repairs past the first {MAX_REPAIRS} skipped"
            if why is not None:
                problems.append(why)
            elif key not in done:
                done.add(key)
                self.base.call({"tool": tool, "args": args})
        return done


_FIELD = {"root_cause_services": "culprits", "artifact": "artifact"}


def _firing(a: dict[str, Any]) -> bool:
    return a.get("state") == "firing"


def _alerts(alerts: list[dict[str, Any]]) -> str:
    keys = ("id", "name", "state", "severity", "labels", "starts_at")
    return json.dumps([{k: a.get(k) for k in keys} for a in alerts], sort_keys=True)


def _incidents(cases: list[Case], by_id: dict[str, dict[str, Any]], members: int) -> str:
    def brief(a: dict[str, Any]) -> dict[str, Any]:
        ents = alert_entities(a.get("labels", {}))
        return {"id": a["id"], "name": a.get("name"), "state": a.get("state"), "entities": ents}

    out = [
        {
            "id": c.id,
            "root_cause_services": c.culprits,
            "artifact": c.artifact,
            "needs_diagnosis": c.fresh or not c.diagnosed,
            "n_alerts": len(c.members),
            "alerts": [brief(by_id[m]) for m in c.members[-members:]],
        }
        for c in cases
    ]
    return json.dumps(out, sort_keys=True)
