"""The Random baseline: seeded, every tool kind, its own incidents, never forbidden."""

from __future__ import annotations

import json

import numpy as np

from sre_gym.agents import RandomAgent, make_agent
from sre_gym.tools.specs import TOOLS


def fake_obs(inv: int, alerts=(), incidents=(), results=()) -> dict:
    return {
        "time": np.array(1_767_225_600 + 120 * inv),
        "invocation": inv,
        "alerts": json.dumps(list(alerts)),
        "tool_results": json.dumps(list(results)),
        "incidents": json.dumps(list(incidents)),
        "notes": "",
    }


def test_seeded_and_reset_per_episode():
    a, b, c = make_agent("random", seed=3), RandomAgent(3), RandomAgent(4)
    steps = [fake_obs(i) for i in range(6)]
    run_a = [a(o, {}) for o in steps]
    assert run_a == [b(o, {}) for o in steps]
    assert run_a != [c(o, {}) for o in steps]
    assert [a(o, {}) for o in steps] == run_a  # invocation 0 starts the episode over


def test_interventions_cite_its_own_open_incidents():
    agent = RandomAgent(0)
    topo = {
        "tool": "get_topology",
        "ok": True,
        "result": {
            "services": [
                {"name": "cartservice", "kind": "stateless"},
                {"name": "loadgenerator", "kind": "loadgen"},
            ]
        },
    }
    agent(fake_obs(0), {})
    cited = set()
    for inv in range(1, 40):
        for c in agent(fake_obs(inv, incidents=[{"id": "INC-0007"}], results=[topo]), {}):
            if TOOLS[c["tool"]].kind == "intervene":
                cited.add(c["args"]["incident_id"])
                assert c["args"].get("deployment", "cartservice") == "cartservice"
    assert cited == {"INC-0007"}


def test_an_episode_uses_every_tool_kind_and_nothing_forbidden(episode):
    run = episode("random", 0)
    card = run["info"]["scorecard"]
    calls = [e for e in run["env"].evidence.events if e["type"] == "tool_call"]
    assert {e["kind"] for e in calls} == {"read", "report", "intervene"}
    assert card["forbidden_attempts"] == 0 and card["interventions"] > 0
    reported = {e["id"] for e in run["env"].evidence.events if e["type"] == "incident"}
    cites = {e["incident_id"] for e in run["env"].evidence.events if e["type"] == "intervention"}
    assert cites <= reported
    assert (
        0.0 <= card["marathon_score"] < episode("runbook", 0)["info"]["scorecard"]["marathon_score"]
    )
