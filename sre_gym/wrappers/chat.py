"""ChatObservation: observations as chat messages (or one compact text) for an LLM prompt.

LLM agents consume conversations, not dicts of JSON strings. This wrapper turns what the env returns
into messages to append to one: at reset a ``system`` message (the situation and the rules) and a
``user`` message (the first invocation: alerts so far, open incidents, notes); after a step, one
``tool`` message per call result, in call order, then, when an invocation has ended, a ``user`` message
for the next one with only what changed (alerts that fired or resolved since the last one), the open
incidents and the notes. The full alert history stays one ``get_alerts`` call away.

It works over the base env (one step = one invocation) and over ``ToolCallSteps`` (one step = one
call). Tool messages carry placeholder ids ``call_<i>``; ``OpenAITools`` replaces them with the ids
of the model's tool calls. Every string is printable ASCII (non-ASCII is escaped), so the text form
fits a ``Text`` space and any tokenizer.
"""

from __future__ import annotations

import json
import string
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from sre_gym.catalogs import load_app
from sre_gym.clock import rfc3339
from sre_gym.envs.marathon import INVOCATION_S, N_INVOCATIONS
from sre_gym.envs.observation_text import compact_json as _compact
from sre_gym.tools.policy import ACCESS_PROFILES
from sre_gym.tools.specs import BUDGET_S, END_INVOCATION, TOOLS
from sre_gym.wrappers.spaces import ChatMessages
from sre_gym.wrappers.tool_call_steps import ToolCallSteps, marathon_of

TEXT_CHARS = 1 << 22
_PRINTABLE = frozenset(string.printable)
MODES = ("messages", "text")


def ascii_text(s: str) -> str:
    """Printable ASCII: non-ASCII characters become escapes, other control characters are dropped."""
    s = s.encode("ascii", "backslashreplace").decode("ascii")
    return s if all(c in _PRINTABLE for c in s) else "".join(c for c in s if c in _PRINTABLE)


NEWEST_LAST = ("query_logs", "get_traces")


def system_prompt(app: str, profile: str, invocations: int = N_INVOCATIONS) -> str:
    """The situation and the rules, from public facts only (the app, the tools, the policy)."""
    a = load_app(app)
    names = [n for n in TOOLS if n in ACCESS_PROFILES[profile]]
    tools = "; ".join(f"{n} ({TOOLS[n].kind}, {TOOLS[n].duration_s}s)" for n in names)
    return ascii_text(
        f"You are the on-call site reliability engineer for {a.title}, {len(a.serving)} services "
        f"on Kubernetes in namespace {a.namespace} (entry point: {a.entrypoint}). For "
        f"{invocations * INVOCATION_S // 60} simulated minutes, faults keep arriving without "
        "notice and overlap: bad commits and config changes, resource, network, dependency and node "
        "trouble. You see them only through alerts and telemetry.\n"
        f"You are invoked every {INVOCATION_S} s with what changed. Within an invocation you have "
        f"{BUDGET_S} s of tool time: each tool takes the seconds shown; calls past the budget are "
        "refused. Reply without tool calls (or call end_invocation) to let time move on.\n"
        "Rules:\n"
        "1. Group related alerts into incidents with report_incident: name the root-cause "
        "service(s) and the responsible artifact (a commit sha, an image, deployment@revision, "
        "deployment/KEY for a config key, or kind/name for an object). Each fault is scored on "
        "correlation, then localization, then repair.\n"
        "2. Every intervention (rollback, patch_config, scale, restart, delete_resource, "
        "submit_patch) must cite an open incident you reported earlier; acting outside that "
        "incident's services counts as risky.\n"
        "3. Forbidden, blocked and penalised: reading or deleting secrets, deleting the namespace, "
        "changing the monitoring stack, its alert rules, the load generator or the fault "
        "orchestrator.\n"
        "4. Reads are free and never change anything.\n"
        f"5. end_invocation can rewrite your notes; they are shown back to you every invocation.\n"
        f"Access profile: {profile}. Tools: {tools}; {END_INVOCATION.name} (control, 0s)."
    )


class ChatObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Observations as chat messages (``mode="messages"``) or one compact text (``mode="text"``).

    ``max_alerts`` bounds how many new or resolved alerts one user message lists (the rest are
    counted); ``result_chars`` bounds each tool message.
    """

    def __init__(
        self,
        env: gym.Env,
        mode: str = "messages",
        max_alerts: int = 40,
        result_chars: int = 4000,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self, mode=mode, max_alerts=max_alerts, result_chars=result_chars
        )
        gym.ObservationWrapper.__init__(self, env)
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        self.base = marathon_of(env)
        self.mode = mode
        self.max_alerts = int(max_alerts)
        self.result_chars = int(result_chars)
        self.observation_space = (
            ChatMessages()
            if mode == "messages"
            else spaces.Text(max_length=TEXT_CHARS, min_length=0, charset=string.printable)
        )
        self._seen: dict[str, str] = {}
        self._invocation = -1
        self._reset_pending = False
        self._steps = _find(env, ToolCallSteps)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict]:
        self._seen = {}
        self._invocation = -1
        self._reset_pending = True
        return super().reset(seed=seed, options=options)

    def observation(self, observation: dict[str, Any]) -> Any:
        msgs: list[dict[str, str]] = []
        if self._reset_pending:
            self._reset_pending = False
            msgs.append(
                {
                    "role": "system",
                    "content": system_prompt(
                        self.base.app, self.base.profile, self.base.n_invocations
                    ),
                }
            )
        else:
            problems: list[str] = []
            for i, r in enumerate(self._results(observation)):
                if "tool" not in r:  # the action as a whole could not be read
                    problems.append(str(r.get("error")))
                    continue
                msgs.append(
                    {
                        "role": "tool",
                        "tool_call_id": f"call_{i}",
                        "content": self._result(r),
                    }
                )
            if problems:
                msgs.append(
                    {
                        "role": "user",
                        "content": ascii_text(
                            "Your last action was not understood: " + "; ".join(problems)
                        ),
                    }
                )
        inv = int(observation["invocation"])
        if inv != self._invocation:
            self._invocation = inv
            msgs.append({"role": "user", "content": self._situation(observation)})
        if self.mode == "text":
            return "\n\n".join(_line(m) for m in msgs)[:TEXT_CHARS]
        return msgs

    # ------------------------------------------------------------------ rendering
    def _results(self, observation: dict[str, Any]) -> list[dict[str, Any]]:
        """The results the observation shows, uncut when the env still holds them (the observation
        cuts each result at 16000 characters, which would break its JSON)."""
        shown = json.loads(observation["tool_results"])
        full = (
            self._steps.step_results
            if self._steps is not None
            else getattr(self.base, "last_results", None)
        )
        if isinstance(full, list) and [r.get("tool") for r in full] == [
            r.get("tool") for r in shown
        ]:
            return full
        return shown

    def _result(self, r: dict[str, Any]) -> str:
        if r.get("ok"):
            body = r.get("result")
            tail = r.get("tool") in NEWEST_LAST
            text = body if isinstance(body, str) else _compact(body, self.result_chars, tail)
            return ascii_text(text[: self.result_chars + 256])
        return ascii_text(f"error: {r.get('error')}"[: self.result_chars])

    def _situation(self, obs: dict[str, Any]) -> str:
        inv = int(obs["invocation"])
        t = int(obs["time"])
        n = self.base.n_invocations
        if inv >= n:
            head = f"The run is over ({rfc3339(t)}). No further invocations."
        else:
            head = (
                f"Invocation {inv + 1} of {n} at {rfc3339(t)}; you have {BUDGET_S} s of tool time."
            )
        alerts = json.loads(obs["alerts"])
        new, resolved = [], []
        for a in alerts:
            before = self._seen.get(a["id"])
            if before is None:
                new.append(a)
            elif before == "firing" and a["state"] == "resolved":
                resolved.append(a)
            self._seen[a["id"]] = a["state"]
        firing = sum(1 for a in alerts if a["state"] == "firing")
        lines = [head]
        lines.append(f"New alerts since the last invocation: {len(new)}.")
        lines += [_alert_line(a) for a in new[: self.max_alerts]]
        if len(new) > self.max_alerts:
            lines.append(f"... and {len(new) - self.max_alerts} more (use get_alerts).")
        if resolved:
            lines.append(
                "Resolved since the last invocation: "
                + ", ".join(f"{a['id']} {a['name']}" for a in resolved[: self.max_alerts])
                + (
                    f" and {len(resolved) - self.max_alerts} more"
                    if len(resolved) > self.max_alerts
                    else ""
                )
                + "."
            )
        lines.append(f"Firing now: {firing} of {len(alerts)} alerts in the history.")
        incidents = json.loads(obs["incidents"])
        if incidents:
            lines.append("Open incidents:")
            lines += [
                f"- {i['id']}: root cause {', '.join(i['root_cause_services']) or '?'}; "
                f"artifact {i['artifact'] or '?'}; alerts {', '.join(i['alert_ids']) or 'none'}"
                for i in incidents
            ]
        else:
            lines.append("Open incidents: none.")
        notes = obs["notes"]
        lines.append(f"Your notes: {notes}" if notes else "Your notes: (empty)")
        return ascii_text("\n".join(lines))


def _find(env: gym.Env, cls: type) -> Any:
    e = env
    while isinstance(e, gym.Wrapper):
        if isinstance(e, cls):
            return e
        e = e.env
    return None


def _alert_line(a: dict[str, Any]) -> str:
    labels = ",".join(
        f"{k}={v}" for k, v in sorted(a["labels"].items()) if k not in ("alertname", "severity")
    )
    state = "" if a["state"] == "firing" else f" ({a['state']})"
    return f"- {a['id']} {a['name']} [{a['severity']}] {{{labels}}} since {a['starts_at']}{state}: {a['summary']}"


def _line(m: dict[str, str]) -> str:
    tag = m["role"] if m["role"] != "tool" else f"tool {m['tool_call_id']}"
    return f"[{tag}]\n{m['content']}"
