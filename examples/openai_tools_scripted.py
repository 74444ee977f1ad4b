"""Drive SREMarathon-v0 like an OpenAI chat model would, with a scripted stand-in for the model.

The env stack is the usual chat-agent loop: ``ToolCallSteps`` (calls run at once; a turn without tool
calls hands time back), ``ChatObservation`` (observations are chat messages) and ``OpenAITools``
(actions are the model's assistant message with OpenAI ``tool_calls``; ``env.tools`` is the function
list). To use a real model, replace ``ScriptedModel.respond`` with a call such as
``client.chat.completions.create(model=..., messages=messages, tools=env.tools)`` and pass
``response.choices[0].message`` to ``env.step`` as it is.

The stand-in reads only the conversation: when an invocation reports new alerts it lists the firing
ones, reports one incident per workload the alerts name, restarts workloads whose pods crash-loop, and
then ends its turn (with a note for itself).

    python examples/openai_tools_scripted.py --seed 0 --invocations 45
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import gymnasium as gym

import sre_gym  # noqa: F401  (registers SREMarathon-v0)
from sre_gym.wrappers import ChatObservation, OpenAITools, ToolCallSteps

RESTART_ON = {"KubePodCrashLooping", "KubeContainerOOMKilled"}


def workload_of(labels: dict[str, str]) -> str | None:
    """The workload an alert is about, from its labels (what a person would read off it)."""
    for key in ("service_name", "deployment", "server", "service"):
        if labels.get(key):
            return labels[key]
    pod = labels.get("pod", "")
    return pod.rsplit("-", 2)[0] if pod.count("-") >= 2 else None


class ScriptedModel:
    """A deterministic stand-in for an LLM: messages and tools in, an assistant message out."""

    def __init__(self) -> None:
        self.reported: dict[str, str] = {}  # workload -> incident id
        self.grouped: set[str] = set()
        self.n = 0

    def _call(self, name: str, **args: Any) -> dict[str, Any]:
        self.n += 1
        return {
            "id": f"call_{self.n:05d}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }

    def respond(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict:
        last = messages[-1]
        names = {t["function"]["name"] for t in tools}
        if last["role"] == "user":
            if "New alerts since the last invocation: 0." in last["content"]:
                return {"role": "assistant", "content": "Nothing new.", "tool_calls": []}
            return self._reply([self._call("get_alerts", state="firing")])
        # tool results of our previous turn: find what they were for
        calls = {
            c["id"]: c["function"]
            for m in messages
            if m["role"] == "assistant"
            for c in m.get("tool_calls") or []
        }
        results = []
        for m in reversed(messages):
            if m["role"] != "tool":
                break
            results.append((calls.get(m["tool_call_id"], {}).get("name"), m["content"]))
        results.reverse()
        todo: list[dict[str, Any]] = []
        for name, content in results:
            if name == "get_alerts" and not content.startswith("error"):
                todo += self._report(json.loads(content))
            elif name == "report_incident" and not content.startswith("error"):
                inc = json.loads(content)
                wl = inc["root_cause_services"][0]
                self.reported[wl] = inc["id"]
                if inc["summary"].startswith("crash") and "restart" in names:
                    todo.append(self._call("restart", deployment=wl, incident_id=inc["id"]))
        if todo:
            return self._reply(todo)
        note = f"open incidents: {', '.join(f'{w}={i}' for w, i in sorted(self.reported.items()))}"
        return self._reply([self._call("end_invocation", notes=note)])

    def _report(self, alerts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        groups: dict[str, list[dict[str, Any]]] = {}
        for a in alerts:
            if "labels" not in a:  # {"truncated": ...}: the rest did not fit the message
                continue
            wl = workload_of(a["labels"])
            if wl and a["id"] not in self.grouped:
                groups.setdefault(wl, []).append(a)
        out = []
        for wl, group in sorted(groups.items()):
            self.grouped.update(a["id"] for a in group)
            ids = [a["id"] for a in group]
            if wl in self.reported:
                out.append(
                    self._call("update_incident", incident_id=self.reported[wl], add_alert_ids=ids)
                )
                continue
            crash = any(a["name"] in RESTART_ON for a in group)
            out.append(
                self._call(
                    "report_incident",
                    alert_ids=ids,
                    root_cause_services=[wl],
                    summary=("crash loop on " if crash else "symptoms on ") + wl,
                )
            )
        return out

    @staticmethod
    def _reply(calls: list[dict[str, Any]]) -> dict[str, Any]:
        return {"role": "assistant", "content": None, "tool_calls": calls}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--app", default="online-boutique")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--invocations", type=int, default=45, help="stop after this many (max 45)")
    a = p.parse_args(argv)
    env = OpenAITools(ChatObservation(ToolCallSteps(gym.make("SREMarathon-v0", app=a.app))))
    model = ScriptedModel()
    obs, info = env.reset(seed=a.seed)
    messages: list[dict[str, Any]] = list(obs)
    total, turns, invocations = 0.0, 0, 0
    while invocations < a.invocations:
        reply = model.respond(messages, env.tools)
        messages.append(reply)
        obs, reward, terminated, truncated, info = env.step(reply)
        messages += obs
        total += reward
        turns += 1
        if any(
            m["role"] == "user" and m["content"].startswith(("Invocation", "The marathon"))
            for m in obs
        ):
            invocations += 1
            print(f"invocation {info['invocation']:2d}  score {info['score']:7.2f}  turns {turns}")
        if terminated or truncated:
            break
    print(f"score {info['score']:.2f} after {invocations} invocations, {turns} model turns")
    return {
        "score": info["score"],
        "invocations": invocations,
        "turns": turns,
        "messages": messages,
    }


if __name__ == "__main__":
    main()
