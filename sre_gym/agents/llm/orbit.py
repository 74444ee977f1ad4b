"""ORBIT: a durable workspace, deterministic alert merging and a bounded model loop.

Each invocation the agent

1. reloads its workspace from the observation's ``notes`` (compact JSON it wrote there the
   invocation before; the env keeps it, so nothing depends on this Python object surviving) and
   reconciles it with the open incidents the observation shows (adopting incidents it does not know,
   closing those resolved elsewhere). Unreadable notes are recorded and the workspace starts afresh;
2. merges the alerts that arrived since by rule, in alert-id order, before any model call: an alert
   joins the open incident of the first entity it names (``alert_entities``, the callee of an edge
   first), else a new incident of that entity if it is firing; resolved strays are left out;
3. publishes that mapping (``update_incident`` for additions, ``report_incident`` with the entity as
   root cause when the topology knows it, read once per episode);
4. validates earlier repairs: an incident whose alerts have all stopped firing for ``HOLD``
   consecutive invocations after a repair promotes that repair's kind (tool, and the config key or
   object kind) to the recipe memory under each of the incident's alert names, and is resolved; a
   repair whose recovery is not validated within ``EXPIRE`` invocations is dropped unpromoted;
5. if an open incident still fires, runs a bounded model loop (ReAct's tool running and context
   overflow policy) that sees the workspace: incidents, their firing alerts, pending validations
   and the recipes for their alert names, to localize (``update_incident``) and repair;
6. writes the workspace back as the action's ``notes``.

Budget per invocation: at most ``max_steps`` model calls and ``max_tokens`` tokens (a context
overflow is retried once on a cut conversation), and the invocation's 110 s of tool time shared by
the published reports and the model's calls. Provider trouble ends the model loop, never the
episode; it is in the transcript.
"""

from __future__ import annotations

import json
from typing import Any

from sre_gym.agents.llm.client import ModelClient
from sre_gym.agents.llm.react import ReactAgent
from sre_gym.backends.base import alert_entities
from sre_gym.envs.marathon import NOTES_CHARS
from sre_gym.tools.policy import INTERVENTIONS

SYSTEM = (
    "You are the on-call SRE of a microservice application on Kubernetes. Faults keep arriving from "
    "code changes, configuration changes and infrastructure trouble, and not every alert has a "
    "fault behind it. Your workspace has already grouped the alerts into incidents by rule and "
    "published them (ids below); do not report them again. For each open incident: find the root "
    "cause with the read tools, record it with update_incident (root_cause_services and the "
    "responsible artifact: a commit sha, deployment@revision, a config key or kind/name), and "
    "repair it with the least risky intervention, citing the incident's id. Recipes are repairs "
    "that were followed by a validated recovery of the same alerts before; prefer them when they "
    "fit. A pending validation is a repair already made: give it time unless it clearly failed. "
    "Interventions on the wrong service cost capacity. Every call spends simulated seconds of a "
    "110 s budget. Answer without a tool call when you are done for this turn."
)
FORMAT = 1  # the workspace's version, so that foreign or older notes are not misread
HOLD = 2  # consecutive quiet invocations that count as a recovery that stays recovered
EXPIRE = 5  # invocations a repair may wait for its recovery before it is dropped unpromoted
SHOWN_FIRING = 10  # firing alerts shown to the model per incident
DROP_LABELS = ("alertname", "namespace", "template", "job")  # same for every alert: noise


# ---------------------------------------------------------------------- the workspace
def fresh() -> dict[str, Any]:
    """An empty workspace: the last merged alert id, the known root-cause entities (None until
    read), incidents by id (subject, alert ids, open, quiet count, who made it), repairs pending
    validation, and the recipe memory (alert name -> repair kind -> validated recoveries)."""
    return {"v": FORMAT, "hi": "", "ents": None, "inc": {}, "pend": [], "mem": {}}


def load_workspace(notes: str) -> tuple[dict[str, Any], str | None]:
    """The workspace in an observation's ``notes`` (JSON-escaped by the env) and the problem that
    made it start afresh, if any. Every field is type-checked: a bad one is dropped, never trusted."""
    if not notes:
        return fresh(), None
    try:
        raw = json.loads(json.loads(f'"{notes}"'))
    except (json.JSONDecodeError, RecursionError) as e:
        return fresh(), f"the ORBIT workspace in the notes is not readable ({e}); starting afresh"
    if not isinstance(raw, dict) or raw.get("v") != FORMAT:
        return fresh(), "the notes hold no ORBIT workspace of this format; starting afresh"
    ws = fresh()
    ws["hi"] = raw["hi"] if isinstance(raw.get("hi"), str) else ""
    if _strs(raw.get("ents")):
        ws["ents"] = raw["ents"]
    for iid, inc in (raw.get("inc") or {}).items() if isinstance(raw.get("inc"), dict) else ():
        if isinstance(inc, dict) and isinstance(inc.get("s"), str) and _strs(inc.get("a")):
            q = inc.get("q")
            ws["inc"][iid] = {
                "s": inc["s"],
                "a": list(inc["a"]),
                "open": inc.get("open") is True,
                "q": q if isinstance(q, int) and not isinstance(q, bool) else 0,
                "by": str(inc.get("by", "")),
            }
    for p in raw.get("pend") if isinstance(raw.get("pend"), list) else ():
        if isinstance(p, dict) and p.get("inc") in ws["inc"] and isinstance(p.get("at"), int):
            ws["pend"].append({k: p.get(k) for k in ("inc", "kind", "target", "at")})
            ws["pend"][-1]["kind"] = str(p.get("kind"))
    for name, kinds in (raw.get("mem") or {}).items() if isinstance(raw.get("mem"), dict) else ():
        if isinstance(kinds, dict):
            good = {k: n for k, n in kinds.items() if isinstance(n, int) and n > 0}
            if good:
                ws["mem"][name] = good
    return ws, None


def dump_workspace(ws: dict[str, Any], limit: int = NOTES_CHARS) -> str:
    """The workspace as compact JSON whose escaped form fits the env's notes. When it does not fit,
    the oldest closed incidents go first (their alerts are behind the merge mark, so nothing is
    merged twice), then the oldest alert ids of open incidents; pending repairs and the recipe
    memory are kept."""

    def text() -> str:
        return json.dumps(ws, sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    def escaped(s: str) -> int:  # what notes_text() makes of it: quotes and backslashes doubled
        return len(s) + s.count('"') + s.count("\\")

    s = text()
    closed = sorted((i for i, inc in ws["inc"].items() if not inc["open"]), key=_order)
    while escaped(s) > limit and closed:
        for iid in closed[: max(1, len(closed) // 4)]:  # in batches: a big workspace shrinks fast
            del ws["inc"][iid]
        closed = closed[max(1, len(closed) // 4) :]
        s = text()
    while escaped(s) > limit and any(len(inc["a"]) > 1 for inc in ws["inc"].values()):
        for inc in ws["inc"].values():
            inc["a"] = inc["a"][len(inc["a"]) // 2 :]
        s = text()
    return s


def subjects(labels: dict[str, str]) -> list[str]:
    """The entities an alert is about, the callee of a dependency edge first (an edge's errors
    usually start at the server), then ``alert_entities`` order."""
    ents = alert_entities(labels)
    server = labels.get("server")
    return [server, *(e for e in ents if e != server)] if server in ents else ents


def merge_alerts(
    ws: dict[str, Any], alerts: list[dict[str, Any]]
) -> tuple[dict[str, list[str]], list[tuple[str, list[str]]], list[str]]:
    """The rule-made mapping of the alerts after the merge mark, in id order: alert ids to add to
    open incidents, new incidents as (subject, alert ids), and resolved strays left out."""
    mapped = mapped_alerts(ws)
    by_subject: dict[str, str] = {}
    for iid in sorted(ws["inc"], key=_order):
        if ws["inc"][iid]["open"]:
            by_subject.setdefault(ws["inc"][iid]["s"], iid)
    adds: dict[str, list[str]] = {}
    groups: dict[str, list[str]] = {}
    strays: list[str] = []
    for a in sorted(alerts, key=lambda a: _order(a["id"])):
        aid = a["id"]
        if _order(aid) <= _order(ws["hi"]) or aid in mapped:
            continue
        ents = subjects(a.get("labels") or {}) or [""]
        iid = next((by_subject[e] for e in ents if e in by_subject), None)
        group = next((e for e in ents if e in groups), None)
        if iid is not None:
            adds.setdefault(iid, []).append(aid)
        elif group is not None:
            groups[group].append(aid)
        elif a.get("state") == "firing":  # a new incident needs a live symptom
            groups[ents[0]] = [aid]
        else:
            strays.append(aid)
    return adds, list(groups.items()), strays


def observe_recovery(
    ws: dict[str, Any], state: dict[str, str], invocation: int
) -> tuple[list[str], list[dict[str, Any]]]:
    """Count each open incident's quiet invocations (all its alerts not firing; ``state`` maps
    alert id -> state, a missing alert counts as resolved) and settle the pending repairs: the
    latest repair of an incident quiet for ``HOLD`` invocations since it is promoted to a recipe,
    one that waited past ``EXPIRE`` is dropped. Returns (incidents to resolve, promotions); the
    promotion's recipe keys are filled in by ``promote``."""
    recovered = []
    for iid in sorted(ws["inc"], key=_order):
        inc = ws["inc"][iid]
        if not inc["open"]:
            continue
        quiet = bool(inc["a"]) and all(state.get(a, "resolved") != "firing" for a in inc["a"])
        inc["q"] = inc["q"] + 1 if quiet else 0
        if inc["q"] >= HOLD:
            recovered.append(iid)
    promoted: list[dict[str, Any]] = []
    keep = []
    latest = {p["inc"]: i for i, p in enumerate(ws["pend"])}
    for i, p in enumerate(ws["pend"]):
        inc = ws["inc"].get(p["inc"])
        if inc is None or not inc["open"] or invocation - p["at"] > EXPIRE:
            continue  # closed, or waited too long, without a validated recovery: nothing learnt
        if p["inc"] not in recovered or p["at"] >= invocation:
            keep.append(p)
        elif latest[p["inc"]] == i:
            promoted.append(p)  # only the repair that preceded the recovery
    ws["pend"] = keep
    return recovered, promoted


def promote(ws: dict[str, Any], repair: dict[str, Any], names: dict[str, str]) -> list[str]:
    """Record a validated repair as a recipe under each alert name of its incident (``names``:
    alert id -> alert name); returns the names."""
    keys = sorted({names[a] for a in ws["inc"][repair["inc"]]["a"] if a in names})
    for name in keys:
        kinds = ws["mem"].setdefault(name, {})
        kinds[repair["kind"]] = kinds.get(repair["kind"], 0) + 1
    return keys


def repair_kind(tool: str, args: dict[str, Any]) -> str:
    """A repair's reusable kind: the tool, with the config key or the object kind it touched."""
    detail = {"patch_config": "key", "delete_resource": "kind"}.get(tool)
    if detail and isinstance(args.get(detail), str):
        return f"{tool}:{args[detail]}"
    if tool == "submit_patch":
        return "submit_patch:revert" if args.get("revert") else "submit_patch:diff"
    return tool


def mapped_alerts(ws: dict[str, Any]) -> set[str]:
    return {a for inc in ws["inc"].values() for a in inc["a"]}


def _order(key: str) -> tuple[int, str]:
    """Ids (ALR-0009 < ALR-0010 < ALR-10000, INC-...) in the order they were issued."""
    return len(key), key


def _strs(x: Any) -> bool:
    return isinstance(x, list) and x == _list_of_str(x)


# ---------------------------------------------------------------------- the agent
class OrbitAgent(ReactAgent):
    """The ORBIT method over any chat-completions endpoint (``make_agent("orbit", env, ...)``)."""

    name = "orbit"

    def __init__(
        self, env: Any, client: ModelClient, *, max_steps: int = 10, max_tokens: int = 150_000
    ) -> None:
        super().__init__(env, client, max_steps=max_steps, max_tokens=max_tokens)
        self._ws: dict[str, Any] = fresh()  # the workspace of the invocation in progress only
        self._views: dict[str, dict[str, Any]] = {}  # incident views as the env last returned them
        self._by_id: dict[str, dict[str, Any]] = {}  # this invocation's alerts by id
        self._inv = 0

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        base, client = self.base, self.client
        if not base.invocation_open:
            base.begin_invocation()  # so that each call's result can be read back at once
        mark = client.mark()
        self._inv = int(obs["invocation"])
        self._ws, problem = load_workspace(obs["notes"])
        if problem:
            client.note(problem)
        alerts = _json_list(obs["alerts"]) or []
        self._by_id = {a["id"]: a for a in alerts}
        env_open = _json_list(obs["incidents"])
        self._views = {i["id"]: i for i in env_open or []}
        if env_open is not None:  # a cut or unreadable list proves nothing about what is open
            self._reconcile()
        if self._ws["ents"] is None:
            self._read_entities()
        self._publish(alerts)
        state = {a["id"]: a.get("state", "") for a in alerts}
        recovered, repairs = observe_recovery(self._ws, state, self._inv)
        names = {a["id"]: a.get("name", "") for a in alerts}
        validated = [{**p, "alerts": promote(self._ws, p, names)} for p in repairs]
        for iid in recovered:
            self._tool("resolve_incident", {"incident_id": iid, "summary": "ORBIT: recovered"})
            self._ws["inc"][iid]["open"] = False
        if any(state.get(a) == "firing" for i in self._open() for a in self._ws["inc"][i]["a"]):
            self._loop(SYSTEM, self._brief(obs, validated))
        notes = dump_workspace(self._ws)
        base.record_model(client.transcript_since(mark))
        return {"calls": [], "notes": notes, "usage": client.usage_since(mark)}

    # ------------------------------------------------------------------ before the model
    def _reconcile(self) -> None:
        """The env's open incidents are the truth: close or reopen to match, adopt the unknown."""
        ws = self._ws
        for iid, inc in ws["inc"].items():
            inc["open"] = iid in self._views
        for view in sorted(self._views.values(), key=lambda v: _order(v["id"])):
            if view["id"] not in ws["inc"]:
                self._adopt(view, "adopted")

    def _adopt(self, view: dict[str, Any], by: str) -> None:
        ids = _list_of_str(view.get("alert_ids"))
        roots = _list_of_str(view.get("root_cause_services"))
        by_id = self._by_id
        first = subjects(by_id[ids[0]].get("labels") or {}) if ids and ids[0] in by_id else []
        subject = str(roots[0]) if roots else (first[0] if first else "")
        self._ws["inc"][view["id"]] = {"s": subject, "a": ids, "open": True, "q": 0, "by": by}
        self._views[view["id"]] = view

    def _read_entities(self) -> None:
        """Root-cause names the tools accept (services, nodes, zones), read once per episode."""
        topo = self._tool("get_topology", {})
        if isinstance(topo, dict):
            nodes = topo.get("nodes") or []
            names = [s.get("name") for s in topo.get("services") or []]
            names += [n.get("name") for n in nodes] + [n.get("zone") for n in nodes]
            self._ws["ents"] = sorted({n for n in names if isinstance(n, str) and n})

    def _publish(self, alerts: list[dict[str, Any]]) -> None:
        """Run the rule-made mapping as incident calls, then move the merge mark past every alert
        handled (a report refused for lack of budget is tried again next invocation)."""
        ws = self._ws
        adds, groups, strays = merge_alerts(ws, alerts)
        handled = set(strays) | mapped_alerts(ws)
        for iid in sorted(adds, key=_order):
            if self._tool("update_incident", {"incident_id": iid, "add_alert_ids": adds[iid]}):
                ws["inc"][iid]["a"] += adds[iid]
                handled.update(adds[iid])
        known = set(ws["ents"] or ())
        for subject, ids in groups:
            args = {
                "alert_ids": ids,
                "root_cause_services": [subject] if subject in known else [],
                "summary": f"ORBIT rule: alerts on {subject or 'no workload'}",
            }
            res = self._tool("report_incident", args)
            if isinstance(res, dict) and isinstance(res.get("id"), str):
                ws["inc"][res["id"]] = {"s": subject, "a": ids, "open": True, "q": 0, "by": "rule"}
                handled.update(ids)
        for a in sorted(alerts, key=lambda a: _order(a["id"])):
            if _order(a["id"]) > _order(ws["hi"]):
                if a["id"] not in handled:
                    break
                ws["hi"] = a["id"]

    def _tool(self, tool: str, args: dict[str, Any]) -> Any:
        """One call of the agent's own; its result, or None (the failure goes in the transcript)."""
        res = self.base.call({"tool": tool, "args": args})
        if not res.get("ok"):
            self.client.note(f"ORBIT {tool} failed: {str(res.get('error'))[:300]}")
            return None
        out = res.get("result")
        if isinstance(out, dict) and isinstance(out.get("id"), str):
            self._views[out["id"]] = out
        return out

    def _open(self) -> list[str]:
        return sorted((i for i, inc in self._ws["inc"].items() if inc["open"]), key=_order)

    # ------------------------------------------------------------------ the model loop
    def _brief(self, obs: dict[str, Any], validated: list[dict[str, Any]]) -> str:
        """The model's view of the workspace after this invocation's merge and publication."""
        ws, by_id = self._ws, self._by_id
        incidents = []
        for iid in self._open():
            inc, view = ws["inc"][iid], self._views.get(iid, {})
            mine = [by_id[a] for a in inc["a"] if a in by_id]
            firing = [_shown(a) for a in mine if a.get("state") == "firing"]
            names = sorted({a.get("name", "") for a in mine})
            incidents.append(
                {
                    "id": iid,
                    "subject": inc["s"],
                    "root_cause_services": view.get("root_cause_services", []),
                    "artifact": view.get("artifact"),
                    "firing": firing[:SHOWN_FIRING],
                    "n_firing": len(firing),
                    "n_resolved": len(mine) - len(firing),
                    "recipes": {n: ws["mem"][n] for n in names if n in ws["mem"]},
                    "pending_validation": [
                        {"repair": p["kind"], "target": p["target"], "since_invocation": p["at"]}
                        for p in ws["pend"]
                        if p["inc"] == iid
                    ],
                }
            )
        return (
            f"Invocation {self._inv}, simulated time {int(obs['time'])}; "
            f"{self.base.budget_left:.0f} s of tool time left.\n"
            f"Open incidents (JSON): {_compact(incidents)}\n"
            f"Recoveries validated this turn (JSON): {_compact(validated)}\n"
            f"Recipe memory, alert name -> repair kind -> validated recoveries (JSON): "
            f"{_compact(ws['mem'])}"
        )

    def _run(self, call: dict[str, Any]) -> dict[str, Any]:
        """ReAct's tool running, plus what the workspace learns from the model's calls."""
        before = len(self.base.invocation_results)
        message = super()._run(call)
        ran = self.base.invocation_results[before:]
        try:
            args = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError:
            args = None
        if ran and ran[-1].get("ok") and isinstance(args, dict):
            self._learn(call["name"], args, ran[-1].get("result"))
        return message

    def _learn(self, tool: str, args: dict[str, Any], result: Any) -> None:
        ws = self._ws
        if isinstance(result, dict) and isinstance(result.get("id"), str):
            self._views[result["id"]] = result
        iid = args.get("incident_id")
        inc = ws["inc"].get(iid) if isinstance(iid, str) else None
        if tool == "report_incident" and isinstance(result, dict) and "id" in result:
            self._adopt(result, "model")
        elif tool == "update_incident" and inc is not None and isinstance(result, dict):
            inc["a"] = list(dict.fromkeys([*inc["a"], *_list_of_str(result.get("alert_ids"))]))
        elif tool == "resolve_incident" and inc is not None:
            inc["open"] = False
        elif tool in INTERVENTIONS and inc is not None:
            target = next((args[k] for k in ("deployment", "name", "service") if k in args), None)
            kind = repair_kind(tool, args)
            ws["pend"].append({"inc": iid, "kind": kind, "target": target, "at": self._inv})
            inc["q"] = 0  # a recovery counts only from the repair on


def _shown(a: dict[str, Any]) -> dict[str, Any]:
    labels = {k: v for k, v in (a.get("labels") or {}).items() if k not in DROP_LABELS}
    return {"id": a["id"], "name": a.get("name"), "severity": a.get("severity"), "labels": labels}


def _compact(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"), default=str)


def _json_list(text: str) -> list[dict[str, Any]] | None:
    """The objects with an id in an observation's JSON list (None if it is cut or malformed)."""
    try:
        x = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(x, list):
        return None
    return [i for i in x if isinstance(i, dict) and isinstance(i.get("id"), str)]


def _list_of_str(x: Any) -> list[str]:
    return [i for i in x if isinstance(i, str)] if isinstance(x, list) else []


__all__ = ["OrbitAgent", "dump_workspace", "load_workspace", "merge_alerts", "observe_recovery"]
