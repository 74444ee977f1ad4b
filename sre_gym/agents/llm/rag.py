"""RAG: retrieve telemetry for what the alerts name, ask the model once, execute its plan.

Each invocation, the agent ranks the services named by the new and still-firing alerts (by how many
alerts name them), retrieves for the top ``k`` their deployment state and recent changes (real tool
calls, on the invocation's budget; the topology once per episode), and makes one model call with the
alerts, the open incidents and the retrieved context. The model answers with a JSON plan:

    {"incidents": [{"alert_ids": [...], "root_cause_services": [...], "artifact": "..."}],
     "updates": [{"incident_id": "INC-0001", "alert_ids": [...]}],
     "repairs": [{"tool": "rollback", "args": {...}, "incident": 0 | "INC-0001"}]}

which is then executed: incidents reported (a repair may cite a new one by its index in
``incidents``), updates applied, repairs run citing their incident. A plan that is not JSON, or not
of this shape, is recorded and skipped; provider trouble ends the invocation as for ReAct.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from sre_gym.agents.base import Agent
from sre_gym.agents.llm.client import ModelClient
from sre_gym.backends.base import alert_entities
from sre_gym.tools.policy import INTERVENTIONS

SYSTEM = (
    "You are the on-call SRE of a microservice application on Kubernetes. Faults keep arriving "
    "from code changes, configuration changes and infrastructure trouble; not every alert has a "
    "fault behind it. From the alerts, your open incidents and the retrieved context, answer with "
    "one JSON object and nothing else: "
    '{"incidents": [{"alert_ids": [...], "root_cause_services": [...], "artifact": "..."}], '
    '"updates": [{"incident_id": "...", "alert_ids": [...]}], '
    '"repairs": [{"tool": "rollback|restart|scale|patch_config|delete_resource", "args": {...}, '
    '"incident": <index into incidents, or an open incident id>}]}. '
    "Report only alerts not yet in an incident. Repair only what the context supports; a wrong "
    "intervention costs capacity."
)
CONTEXT_CHARS = 4000  # per retrieved result


class RagAgent(Agent):
    """The RAG method over any chat-completions endpoint (``make_agent("rag", env, ...)``)."""

    name = "rag"

    def __init__(self, env: Any, client: ModelClient, *, top_k: int = 3) -> None:
        from sre_gym.wrappers.tool_call_steps import marathon_of

        self.base = marathon_of(env)
        self.client = client
        self.top_k = int(top_k)
        self.topology: str | None = None
        self.seen: set[str] = set()

    def reset(self) -> None:
        self.client.transcript.clear()
        self.topology = None
        self.seen = set()

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        client = self.client
        mark = client.mark()
        alerts = json.loads(obs["alerts"])
        new = [a for a in alerts if a["id"] not in self.seen]
        self.seen.update(a["id"] for a in alerts)
        live = [a for a in alerts if a["state"] == "firing" or a in new]
        if live:
            plan = self._plan(live, obs)
            if plan is not None:
                self._execute(plan)
        self.base.record_model(client.transcript_since(mark))
        return {"calls": [], "usage": client.usage_since(mark)}

    def _retrieve(self, live: list[dict[str, Any]]) -> list[str]:
        if self.topology is None:
            self.topology = read(self.base, "get_topology", {})
        return retrieve(self.base, live, self.topology, self.top_k)

    # ------------------------------------------------------------------ the model's plan
    def _plan(self, live: list[dict[str, Any]], obs: dict[str, Any]) -> dict[str, Any] | None:
        context = "\n".join(self._retrieve(live))
        shown = [{k: a[k] for k in ("id", "name", "state", "labels", "starts_at")} for a in live]
        user = (
            f"Alerts (new or firing): {json.dumps(shown, sort_keys=True)}\n"
            f"Open incidents: {obs['incidents']}\n"
            f"Context:\n{context}"
        )
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        reply = self.client.chat(messages, [], response_format={"type": "json_object"})
        if reply.error is not None:
            return None
        try:
            plan = json.loads(reply.content or "")
        except json.JSONDecodeError as e:
            self.client.note(f"the plan is not JSON: {e}")
            return None
        if not isinstance(plan, dict):
            self.client.note("the plan is not a JSON object")
            return None
        return plan

    def _execute(self, plan: dict[str, Any]) -> None:
        opened: list[str | None] = []
        for inc in items(plan.get("incidents")):
            args = {k: inc[k] for k in ("alert_ids", "root_cause_services", "artifact") if k in inc}
            res = self.base.call({"tool": "report_incident", "args": args})
            opened.append((res.get("result") or {}).get("id") if res.get("ok") else None)
        for up in items(plan.get("updates")):
            self.base.call({"tool": "update_incident", "args": up})
        for rep in items(plan.get("repairs")):
            tool, args, ref = rep.get("tool"), rep.get("args"), rep.get("incident")
            if tool not in INTERVENTIONS or not isinstance(args, dict):
                continue
            if isinstance(ref, int) and not isinstance(ref, bool) and 0 <= ref < len(opened):
                ref = opened[ref]
            if isinstance(ref, str):
                args = {**args, "incident_id": ref}
            self.base.call({"tool": tool, "args": args})


def retrieve(base: Any, live: list[dict[str, Any]], topology: str, top_k: int) -> list[str]:
    """RAG's retrieval: the topology, then the deployment state and recent changes of the
    ``top_k`` services the alerts name most (ties in first-named order)."""
    ranked = Counter(s for a in live for s in alert_entities(a.get("labels", {})))
    out = [f"topology: {topology}"]
    for svc, _ in ranked.most_common(top_k):
        described = read(base, "k8s_describe", {"kind": "deployments", "name": svc})
        out.append(f"deployment {svc}: {described}")
        changes = read(base, "list_changes", {"service": svc, "limit": 5})
        out.append(f"changes of {svc}: {changes}")
    return out


def read(base: Any, tool: str, args: dict[str, Any]) -> str:
    """One read tool's result (or its error) as JSON text, cut to ``CONTEXT_CHARS``."""
    res = base.call({"tool": tool, "args": args})
    text = json.dumps(res.get("result") if res.get("ok") else res, sort_keys=True, default=str)
    return text[:CONTEXT_CHARS]


def items(x: Any) -> list[dict[str, Any]]:
    """The objects of a plan's list field (anything else is ignored)."""
    return [i for i in x if isinstance(i, dict)] if isinstance(x, list) else []
