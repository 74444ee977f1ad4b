from __future__ import annotations

import json
import random
import re

import gymnasium as gym
import pytest

pytest.importorskip("openai")

import sre_gym  # noqa: E402,F401
from sre_gym.agents import make_agent  # noqa: E402
from sre_gym.agents.llm import orbit  # noqa: E402
from sre_gym.agents.llm.orbit import (  # noqa: E402
    EXPIRE,
    HOLD,
    dump_workspace,
    fresh,
    load_workspace,
    merge_alerts,
    observe_recovery,
    promote,
)
from sre_gym.bundle import read_bundle, verify  # noqa: E402
from sre_gym.cli import main as cli_main  # noqa: E402
from sre_gym.testing.scripted_model import (  # noqa: E402
    COMPLETION_TOKENS,
    Fault,
    ScriptedChatServer,
    tool_call,
)


def incidents_shown(req) -> list[dict] | None:
    """The open incidents in the first user message of a request (None if it is not there)."""
    user = req["messages"][1]["content"]
    try:
        return json.loads(user.split("Open incidents (JSON): ", 1)[1].split("\n", 1)[0])
    except (IndexError, json.JSONDecodeError):
        return None


def operator(req):
    """A stand-in model that reads only the conversation: for the first firing incident with no
    repair pending, look at its service's changes, then restart it citing the incident."""
    msgs = req["messages"]
    incs = incidents_shown(req) or []
    if msgs[-1]["role"] == "user":
        for inc in incs:
            if inc["n_firing"] and not inc["pending_validation"] and inc["subject"]:
                args = {"service": inc["subject"], "limit": 3}
                return {"content": None, "tool_calls": [tool_call(len(msgs), "list_changes", args)]}
        return {"content": "Nothing to repair."}
    prev = msgs[-2].get("tool_calls") or [{}]
    if msgs[-1]["role"] == "tool" and prev[0].get("function", {}).get("name") == "list_changes":
        svc = json.loads(prev[0]["function"]["arguments"])["service"]
        iid = next((i["id"] for i in incs if i["subject"] == svc), None)
        if iid is not None:
            args = {"deployment": svc, "incident_id": iid}
            return {"content": None, "tool_calls": [tool_call(len(msgs), "restart", args)]}
    return {"content": "Done for this turn."}


def play(respond, bundle_dir, *, fresh_agents=False, corrupt_at=None, **client_kw):
    """One short-profile episode; returns (info, server requests, [(obs, action)] per step)."""
    client_kw.setdefault("backoff_s", 0.0)
    with ScriptedChatServer(respond) as srv:
        env = gym.make("SREMarathon-v0", schedule="short", bundle_dir=str(bundle_dir))

        def new_agent():
            return make_agent(
                "orbit", env=env, model="scripted", base_url=srv.base_url, **client_kw
            )

        agent = new_agent()
        obs, info = env.reset(seed=0)
        steps = []
        while True:
            if fresh_agents:  # nothing carries over but what the env shows
                agent = new_agent()
            action = agent(obs, info)
            if obs["invocation"] == corrupt_at:
                action = {**action, "notes": action["notes"][: len(action["notes"]) // 2]}
            steps.append((obs, action))
            obs, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                steps.append((obs, None))
                return info, srv.requests, steps


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    return play(operator, tmp_path_factory.mktemp("orbit"))


@pytest.fixture(scope="module")
def again(tmp_path_factory):
    return play(operator, tmp_path_factory.mktemp("orbit-again"), fresh_agents=True)


def bundle_events(info):
    verify(info["bundle"])
    return read_bundle(info["bundle"]).events


def test_a_whole_episode_with_its_cost_from_the_providers_usage(episode):
    info, requests, _ = episode
    card = info["scorecard"]
    assert card["incidents"] >= 1 and card["interventions"] >= 1
    assert card["cost"]["model_calls"] == len(requests) > 0
    assert card["cost"]["input_tokens"] == sum(
        len(json.dumps(r["messages"])) // 4 for r in requests
    )
    assert card["cost"]["output_tokens"] == COMPLETION_TOKENS * len(requests)
    events = bundle_events(info)
    models = [e for e in events if e["type"] == "model" and "request" in e]
    assert len(models) == len(requests) and all(e["error"] is None for e in models)
    # each recorded request is the conversation as it was sent, not as the loop later grew it
    assert [e["request"]["messages"] for e in models] == [r["messages"] for r in requests]
    cited = [e for e in events if e["type"] == "intervention"]
    assert cited and all(e["incident_id"].startswith("INC-") for e in cited)


def test_the_workspace_round_trips_through_the_observations_notes(episode):
    _, _, steps = episode
    mapped = 0
    for (_, action), (next_obs, _) in zip(steps, steps[1:], strict=False):
        ws, problem = load_workspace(next_obs["notes"])
        assert problem is None and ws == json.loads(action["notes"])
        mapped = max(mapped, sum(len(i["a"]) for i in ws["inc"].values()))
    assert mapped > 0 and ws["ents"]  # alerts were mapped; the topology was read


def test_the_same_script_gives_the_same_run_even_with_a_fresh_agent_every_invocation(
    episode, again
):
    # the second run builds a new OrbitAgent (and client) for every invocation: the same requests
    # and score show that the state lives in the env's notes, not in the Python object
    a, ra, sa = episode
    b, rb, sb = again
    assert a["scorecard"] == b["scorecard"]
    assert [r["messages"] for r in ra] == [r["messages"] for r in rb]
    assert [x["notes"] for _, x in sa[:-1]] == [x["notes"] for _, x in sb[:-1]]


def test_mappings_are_published_before_the_model_is_consulted(episode):
    info, requests, _ = episode
    events = bundle_events(info)
    starts = sorted((e["t"], e["n"]) for e in events if e["type"] == "invocation")
    reported: dict[int, set[str]] = {}
    for e in events:
        if e["type"] == "incident" and e["action"] == "reported":
            n = max(n for t, n in starts if t <= e["t"])
            assert e["summary"].startswith("ORBIT rule")  # the stand-in never reports
            reported.setdefault(n, set()).add(e["id"])
    checked = 0
    for req in requests:
        if len(req["messages"]) != 2:
            continue  # not the first request of an invocation
        n = int(re.match(r"Invocation (\d+),", req["messages"][1]["content"]).group(1))
        shown = {i["id"] for i in incidents_shown(req)}
        assert reported.get(n, set()) <= shown
        checked += bool(reported.get(n))
    assert checked >= 2


def test_recipes_are_promoted_only_after_a_validated_recovery():
    ws = fresh()
    names = {"A1": "ServiceHighErrorRate", "A2": "ServiceHighLatency", "B1": "KubePodNotReady"}
    names |= {"C1": "CPUThrottlingHigh"}
    for iid, alerts in (("INC-0001", ["A1", "A2"]), ("INC-0002", ["B1"]), ("INC-0003", ["C1"])):
        ws["inc"][iid] = {"s": "svc", "a": alerts, "open": True, "q": 0, "by": "rule"}
    ws["pend"] = [
        {"inc": "INC-0001", "kind": "rollback", "target": "svc", "at": 3},
        {"inc": "INC-0001", "kind": "restart", "target": "svc", "at": 3},  # the latest one
        {"inc": "INC-0003", "kind": "scale", "target": "svc", "at": 3},
    ]
    firing = {"A1": "firing", "A2": "resolved", "B1": "firing", "C1": "firing"}

    def observe(inv, **state):
        recovered, repairs = observe_recovery(ws, {**firing, **state}, inv)
        for p in repairs:
            promote(ws, p, names)
        for iid in recovered:
            ws["inc"][iid]["open"] = False
        return recovered, [p["kind"] for p in repairs]

    assert (HOLD, EXPIRE) == (2, 5)  # the scenario below is written for these
    assert observe(4) == ([], [])  # still firing
    assert observe(5, A1="resolved", B1="resolved") == ([], [])  # quiet once: not yet validated
    assert observe(6, A2="firing", B1="resolved") == (["INC-0002"], [])  # A relapses; B recovers
    assert ws["mem"] == {}  # INC-0002 recovered without any repair: nothing to learn
    quiet = {"A1": "resolved", "A2": "resolved"}
    assert observe(7, **quiet) == ([], [])
    assert observe(8, **quiet) == (["INC-0001"], ["restart"])  # quiet twice since the repair
    assert ws["mem"] == {
        "ServiceHighErrorRate": {"restart": 1},
        "ServiceHighLatency": {"restart": 1},
    }
    # INC-0003's repair has not recovered within EXPIRE invocations: dropped, never promoted
    assert observe(9) == ([], []) and ws["pend"] == []
    assert observe(20, C1="resolved") == ([], []) and observe(21, C1="resolved") == (
        ["INC-0003"],
        [],
    )
    assert "CPUThrottlingHigh" not in ws["mem"]


def test_recipes_in_the_episode_follow_recoveries_and_reach_the_model(episode):
    _, requests, steps = episode
    promotions = 0
    for k in range(1, len(steps) - 1):
        before = load_workspace(steps[k][0]["notes"])[0]
        after = json.loads(steps[k][1]["notes"])
        if after["mem"] == before["mem"]:
            continue
        promotions += 1
        states = [
            {a["id"]: a["state"] for a in json.loads(steps[j][0]["alerts"])} for j in (k - 1, k)
        ]
        validated = [
            p
            for p in before["pend"]
            if p["at"] <= k - HOLD
            and all(s.get(a) != "firing" for s in states for a in before["inc"][p["inc"]]["a"])
        ]
        assert validated, f"a recipe was promoted at invocation {k} without a quiet incident"
    assert promotions >= 1
    assert any('"recipes":{"' in r["messages"][1]["content"] for r in requests)


def test_alerts_merge_by_rule_in_a_stable_order():
    def alert(i, state="firing", **labels):
        return {"id": f"ALR-{i:04d}", "name": "X", "state": state, "labels": labels}

    alerts = [
        alert(1, service_name="cartservice"),
        alert(2, service_name="checkoutservice"),
        alert(3, client="checkoutservice", server="cartservice"),  # the callee's incident
        alert(4, state="resolved", service_name="adservice"),  # a resolved stray
        alert(5, pod="emailservice-abc12-xyz99"),
        alert(6, state="resolved", deployment="emailservice"),  # joins this turn's new group
        alert(10000, service_name="frontend"),
    ]
    ws = fresh()
    ws["inc"]["INC-0001"] = {"s": "frontend", "a": ["ALR-0009"], "open": True, "q": 0, "by": "r"}
    want = (
        {"INC-0001": ["ALR-10000"]},
        [
            ("cartservice", ["ALR-0001", "ALR-0003"]),
            ("checkoutservice", ["ALR-0002"]),
            ("emailservice", ["ALR-0005", "ALR-0006"]),
        ],
        ["ALR-0004"],
    )
    assert merge_alerts(ws, alerts) == want
    random.Random(0).shuffle(alerts)
    assert merge_alerts(ws, alerts) == want
    ws["hi"] = "ALR-0005"  # behind the merge mark: never merged again
    assert merge_alerts(ws, alerts) == ({"INC-0001": ["ALR-10000"]}, [], ["ALR-0006"])


def test_the_workspace_stays_within_the_notes_dropping_the_oldest_closed_first():
    ws = fresh()
    for i in range(1, 301):
        alerts = [f"ALR-{i * 10 + j:05d}" for j in range(10)]
        ws["inc"][f"INC-{i:04d}"] = {"s": "svc", "a": alerts, "open": i > 290, "q": 0, "by": "rule"}
    text = dump_workspace(ws, limit=8000)
    shown = json.dumps(text, ensure_ascii=True)[1:-1]
    assert len(shown) <= 8000
    back, problem = load_workspace(shown)
    assert problem is None
    kept = sorted(back["inc"])
    assert all(f"INC-{i:04d}" in kept for i in range(291, 301))  # every open one survives
    closed = [i for i in kept if not back["inc"][i]["open"]]
    assert closed and closed == [f"INC-{i:04d}" for i in range(291 - len(closed), 291)]


def test_corrupt_or_foreign_notes_start_afresh_without_crashing():
    assert load_workspace("")[1] is None
    for notes in ('{\\"v\\":1,\\"inc\\":{', "plain words", "trailing \\", '{\\"v\\":99}'):
        ws, problem = load_workspace(notes)
        assert ws == fresh() and problem
    mangled = json.dumps({"v": 1, "hi": 3, "inc": {"INC-1": {"s": 3}}, "pend": "x", "mem": [1]})
    ws, problem = load_workspace(json.dumps(mangled)[1:-1])
    assert problem is None and ws == fresh()
    with ScriptedChatServer(lambda req: {"content": "done"}) as srv:
        env = gym.make("SREMarathon-v0", schedule="short")
        agent = make_agent("orbit", env=env, model="m", base_url=srv.base_url, backoff_s=0.0)
        obs, info = env.reset(seed=0)
        agent.reset()
        action = agent.act({**obs, "notes": '{\\"v\\":1,\\"inc\\":{\\"INC-0'}, info)
    assert load_workspace(json.dumps(action["notes"])[1:-1])[1] is None  # a good one again
    notes = [e for e in agent.client.transcript if e.get("kind") == "agent"]
    assert notes and "not readable" in notes[0]["note"]


def test_provider_trouble_and_corrupt_notes_never_end_the_episode(tmp_path):
    seen = {"n": 0}

    def respond(req):
        seen["n"] += 1
        n = seen["n"]
        for every, fault in (
            (7, Fault(500, "upstream down")),
            (11, Fault(429, "slow down")),
            (13, Fault(200, body="garbage")),
            (17, Fault(200, body=json.dumps({"id": "x", "object": "chat.completion"}))),
        ):
            if n % every == 0:
                return fault
        if n % 5 == 0 and req["messages"][-1]["role"] == "user":
            return {"content": None, "tool_calls": [tool_call(n, "get_alerts", "{not json")]}
        return operator(req)

    info, requests, steps = play(respond, tmp_path, corrupt_at=6, max_retries=1)
    assert info["scorecard"]["n_faults"] > 0 and len(steps) == 16  # scored to the end
    kinds = {e["kind"] for e in bundle_events(info) if e["type"] == "model" and e["error"]}
    assert {"server_error", "rate_limited", "malformed", "empty", "agent"} <= kinds
    answers = [
        m["content"]
        for r in requests
        for m in r["messages"]
        if m["role"] == "tool" and "not valid JSON" in m["content"]
    ]
    assert answers  # the malformed arguments got an error result
    # after the cut notes the agent started afresh, adopting the env's open incidents
    after = json.loads(steps[7][1]["notes"])
    assert any(i["by"] == "adopted" for i in after["inc"].values())


def test_run_command_with_orbit_prints_its_cost(capsys):
    with ScriptedChatServer(operator) as srv:
        argv = ["run", "--agent", "orbit", "--model", "scripted", "--base-url", srv.base_url]
        assert cli_main([*argv, "--schedule", "short", "--json"]) == 0
        n = len(srv.requests)
    card = json.loads(capsys.readouterr().out)["scorecard"]
    assert card["cost"]["model_calls"] == n > 0 and card["incidents"] > 0


def test_orbit_is_registered_with_its_budget():
    env = gym.make("SREMarathon-v0", schedule="short")
    agent = make_agent("orbit", env=env, model="m", base_url="http://127.0.0.1:9/v1", max_steps=3)
    assert isinstance(agent, orbit.OrbitAgent) and agent.name == "orbit"
    assert (agent.max_steps, agent.max_tokens) == (3, 150_000)
    assert {t["function"]["name"] for t in agent.tools} >= {"report_incident", "rollback"}
