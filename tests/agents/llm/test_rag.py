from __future__ import annotations

import json

import gymnasium as gym
import pytest

pytest.importorskip("openai")

import sre_gym  # noqa: E402,F401
from sre_gym.agents import make_agent  # noqa: E402
from sre_gym.backends.base import alert_entities  # noqa: E402
from sre_gym.testing.scripted_model import ScriptedChatServer  # noqa: E402


class Planner:
    """A stand-in model for RAG: one incident per workload the alerts name, and a restart of it,
    citing the new incident by its index; every fifth plan is not JSON."""

    def __init__(self) -> None:
        self.n = 0
        self.reported: set[str] = set()

    def __call__(self, req):
        self.n += 1
        assert "tools" not in req and req["response_format"] == {"type": "json_object"}
        if self.n % 5 == 0:
            return {"content": "I think the cart is broken."}
        user = req["messages"][-1]["content"]
        alerts = json.loads(user.split("Alerts (new or firing): ", 1)[1].split("\n", 1)[0])
        incidents, repairs = [], []
        for a in alerts:
            ws = [w for w in alert_entities(a["labels"]) if w not in self.reported]
            if not ws:
                continue
            self.reported.add(ws[0])
            repairs.append(
                {"tool": "restart", "args": {"deployment": ws[0]}, "incident": len(incidents)}
            )
            incidents.append({"alert_ids": [a["id"]], "root_cause_services": [ws[0]]})
        repairs.append({"tool": "restart", "args": {"deployment": "x"}, "incident": 99})  # no such
        return {"content": json.dumps({"incidents": incidents, "repairs": repairs})}


def test_rag_plans_once_per_invocation_and_executes_the_plan(tmp_path):
    from sre_gym.bundle import read_bundle

    planner = Planner()
    with ScriptedChatServer(planner) as srv:
        env = gym.make("SREMarathon-v0", schedule="short", bundle_dir=str(tmp_path))
        agent = make_agent("rag", env=env, model="scripted", base_url=srv.base_url, backoff_s=0.0)
        obs, info = env.reset(seed=0)
        while True:
            obs, _, terminated, truncated, info = env.step(agent(obs, info))
            if terminated or truncated:
                break
        n = len(srv.requests)
    card = info["scorecard"]
    assert card["cost"]["model_calls"] == n > 0
    assert n <= 1800 // 120  # at most one model call per invocation
    assert card["incidents"] == len(planner.reported) > 0
    ev = read_bundle(info["bundle"]).events
    cited = [e for e in ev if e["type"] == "intervention"]
    assert cited and all(e["incident_id"].startswith("INC-") for e in cited)
    notes = [e for e in ev if e["type"] == "model" and e.get("kind") == "agent"]
    assert notes and all("not JSON" in e["error"] for e in notes)
