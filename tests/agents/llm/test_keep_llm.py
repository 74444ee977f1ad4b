from __future__ import annotations

import json

import gymnasium as gym
import pytest

pytest.importorskip("openai")

import sre_gym  # noqa: E402,F401
from sre_gym.agents import make_agent  # noqa: E402
from sre_gym.agents.keep import Alert  # noqa: E402
from sre_gym.agents.llm.keep_llm import Case, Graph, rule_anchor, rule_place  # noqa: E402
from sre_gym.bundle import read_bundle, verify  # noqa: E402
from sre_gym.cli import main as cli_main  # noqa: E402
from sre_gym.testing.scripted_model import (  # noqa: E402
    COMPLETION_TOKENS,
    Fault,
    ScriptedChatServer,
)


def between(text: str, start: str, end: str = "\n") -> str:
    return text.split(start, 1)[1].split(end, 1)[0]


class Planner:
    """A stand-in model for keep-llm: the ungrouped alerts go into one new incident; it tries to
    move an alert the rules grouped into another incident; it diagnoses each incident with its
    current root cause plus a name that does not exist; it asks every time for a restart of each
    incident's root cause (so consecutive repeats must be skipped), a tool that does not exist and
    an ill-typed scale; every sixth plan is not JSON."""

    def __init__(self) -> None:
        self.n = 0
        self.moves: list[tuple[str, str]] = []  # (alert id, the incident holding it)

    def __call__(self, req):
        self.n += 1
        assert "tools" not in req and req["response_format"] == {"type": "json_object"}
        if self.n % 6 == 0:
            return {"content": "The checkout service looks unhappy."}
        user = req["messages"][-1]["content"]
        incidents = json.loads(between(user, "Incidents (JSON): "))
        ungrouped = json.loads(between(user, "Ungrouped alerts (JSON): "))
        plan: dict = {"placements": [], "diagnoses": [], "repairs": []}
        if ungrouped:
            plan["placements"].append(
                {"alert_ids": [a["id"] for a in ungrouped], "incident": "NEW-1"}
            )
            plan["diagnoses"].append({"incident": "NEW-1", "root_cause_services": ["frontend"]})
        if incidents and incidents[0]["alerts"]:
            aid, holder = incidents[0]["alerts"][0]["id"], incidents[0]["id"]
            self.moves.append((aid, holder))
            other = incidents[1]["id"] if len(incidents) > 1 else "NEW-2"
            plan["placements"].append({"alert_ids": [aid], "incident": other})
        for inc in incidents:
            rcs = inc["root_cause_services"]
            plan["diagnoses"].append(
                {"incident": inc["id"], "root_cause_services": [*rcs, "no-such-service"]}
            )
            if rcs:
                plan["repairs"].append(
                    {"incident": inc["id"], "tool": "restart", "args": {"deployment": rcs[0]}}
                )
        plan["repairs"].append({"incident": "INC-0001", "tool": "reboot_cluster", "args": {}})
        plan["repairs"].append(
            {"incident": "INC-0001", "tool": "scale", "args": {"deployment": "x", "replicas": "3"}}
        )
        return {"content": json.dumps(plan)}


def play(respond, bundle_dir=None, steps=None, **agent_kw):
    with ScriptedChatServer(respond) as srv:
        env = gym.make("SREMarathon-v0", schedule="short", bundle_dir=bundle_dir)
        agent = make_agent(
            "keep-llm", env=env, model="scripted", base_url=srv.base_url, backoff_s=0.0, **agent_kw
        )
        obs, info = env.reset(seed=0)
        n = 0
        while True:
            obs, _, terminated, truncated, info = env.step(agent(obs, info))
            n += 1
            if terminated or truncated or n == steps:
                return info, list(srv.requests), agent, obs


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    planner = Planner()
    info, requests, agent, _ = play(planner, str(tmp_path_factory.mktemp("keep_llm")))
    return {
        "info": info,
        "requests": requests,
        "agent": agent,
        "planner": planner,
        "events": read_bundle(info["bundle"]).events,
    }


def final_incidents(events) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for e in events:
        if e["type"] == "incident":
            out[e["id"]] = list(e["alerts"])
    return out


def notes(events) -> list[str]:
    return [e["error"] for e in events if e["type"] == "model" and e.get("kind") == "agent"]


# ---------------------------------------------------------------------- the rules, alone
def alert(aid, name, t, labels, state="firing"):
    return Alert.parse({"id": aid, "name": name, "state": state, "labels": labels, "starts_at": t})


GRAPH = Graph.parse(
    {
        "services": [
            {"name": "frontend", "calls": [{"service": "cart"}, {"service": "ads"}]},
            {"name": "cart", "calls": [{"service": "redis"}]},
            {"name": "ads", "calls": []},
            {"name": "redis", "calls": []},
            {"name": "loadgenerator", "kind": "loadgen", "calls": [{"service": "frontend"}]},
        ],
        "nodes": [{"name": "node-1", "zone": "zone-a"}],
    }
)


def test_rules_group_by_workload_edge_and_same_family_neighbour_within_the_window():
    cart = Case("INC-0001", "cart", ["cart"], families={"error-ratio"})
    cart.last_t = alert("x", "ServiceHighErrorRate", "2026-01-01T00:10:00Z", {}).t
    same = alert("A1", "KubePodCrashLooping", "2026-01-01T00:12:00Z", {"pod": "cart-abc12-xyz"})
    assert rule_place(same, "pod-crashlooping", [cart], GRAPH) is cart
    edge = alert(
        "A2", "DependencyCallErrors", "2026-01-01T00:12:00Z", {"client": "cart", "server": "redis"}
    )
    assert rule_place(edge, "edge-errors", [cart], GRAPH) is cart
    nb = alert("A3", "ServiceHighErrorRate", "2026-01-01T00:12:00Z", {"service_name": "frontend"})
    assert rule_place(nb, "error-ratio", [cart], GRAPH) is cart
    assert rule_place(nb, "latency-slo", [cart], GRAPH) is None  # another family
    late = alert("A4", "ServiceHighErrorRate", "2026-01-01T00:16:00Z", {"service_name": "cart"})
    assert rule_place(late, "error-ratio", [cart], GRAPH) is None  # past the window
    entry = alert("A5", "EntrypointHighErrorRate", "2026-01-01T00:12:00Z", {"service_name": "cart"})
    assert rule_place(entry, "error-ratio", [cart], GRAPH) is None  # the model's call
    cart.open = False
    assert rule_place(same, "pod-crashlooping", [cart], GRAPH) is None


def test_rules_open_incidents_only_for_firing_application_workloads():
    def anchor(name, labels, severity="warning", state="firing"):
        return rule_anchor(alert("A", name, "2026-01-01T00:12:00Z", labels, state), severity, GRAPH)

    assert anchor("ServiceHighLatency", {"service_name": "cart"}) == "cart"
    assert anchor("KubeNodeNotReady", {"node": "node-1"}) == "node-1"
    assert anchor("ServiceHighLatency", {"service_name": "cart"}, state="resolved") is None
    assert anchor("CPUThrottlingHigh", {"pod": "cart-abc12-xyz"}, severity="info") is None
    assert anchor("EntrypointHighLatency", {"service_name": "frontend"}) is None
    assert anchor("ServiceHighLatency", {"service_name": "loadgenerator"}) is None
    assert anchor("ServiceHighLatency", {"service_name": "elsewhere"}) is None
    assert "zone-a" in GRAPH.entities and "loadgenerator" not in GRAPH.entities


# ---------------------------------------------------------------------- a whole episode
def test_a_whole_episode_with_its_cost_from_the_providers_usage(episode):
    card, requests = episode["info"]["scorecard"], episode["requests"]
    assert card["n_faults"] > 0 and card["incidents"] >= 1
    assert card["cost"]["model_calls"] == len(requests) > 0
    assert card["cost"]["input_tokens"] == sum(
        len(json.dumps(r["messages"])) // 4 for r in requests
    )
    assert card["cost"]["output_tokens"] == COMPLETION_TOKENS * len(requests)
    verify(episode["info"]["bundle"])
    models = [e for e in episode["events"] if e["type"] == "model" and e.get("kind") != "agent"]
    assert len(models) == len(requests) and all(e["error"] is None for e in models)
    per_invocation = [e["invocation"] for e in models]
    assert max(per_invocation.count(i) for i in set(per_invocation)) == 1  # one call each


def test_the_rules_and_the_model_both_open_incidents_and_repairs_cite_them(episode):
    ev = episode["events"]
    summaries = {
        e["id"]: e["summary"] for e in ev if e["type"] == "incident" and e["action"] == "reported"
    }
    assert any(s.startswith("keep-llm rules") for s in summaries.values())
    assert any(s.startswith("keep-llm model") for s in summaries.values())
    cited = [e for e in ev if e["type"] == "intervention"]
    assert cited and all(e["incident_id"] in summaries for e in cited)
    start = {e["invocation"]: e["t"] for e in ev if e["type"] == "model"}

    def invocation(t):
        return max(i for i, s in start.items() if s <= t)

    made = {(invocation(e["t"]), e["incident_id"], e["tool"], e["target"]) for e in cited}
    assert not any((i + 1, *rest) in made for i, *rest in made)  # never in consecutive turns


def test_an_alert_the_rules_grouped_cannot_be_moved_by_the_model(episode):
    ev, agent, moves = episode["events"], episode["agent"], episode["planner"].moves
    assert moves
    final = final_incidents(ev)
    for aid, holder in moves:
        assert aid in final[holder] and agent.owner[aid] == holder
        assert [iid for iid, alerts in final.items() if aid in alerts] == [holder]
    held = [a for alerts in final.values() for a in alerts]
    assert len(held) == len(set(held))  # each alert in at most one incident
    assert any("the model may not move it" in n for n in notes(ev))


def test_the_plan_is_vetted_and_its_problems_recorded(episode):
    text = "\n".join(notes(episode["events"]))
    assert "unknown root-cause names dropped: no-such-service" in text
    assert "'reboot_cluster' is not an allowed intervention" in text
    assert "scale: ill-typed args dropped" in text
    assert "was made last invocation; not repeated" in text
    assert "the plan is not JSON" in text
    incidents = [e for e in episode["events"] if e["type"] == "incident"]
    assert not any("no-such-service" in e["culprits"] for e in incidents)


def test_the_same_script_gives_the_same_run(episode):
    info, requests, _, _ = play(Planner())
    assert info["scorecard"] == episode["info"]["scorecard"]
    assert [r["messages"] for r in requests] == [r["messages"] for r in episode["requests"]]


def test_max_steps_zero_leaves_the_rules_alone():
    info, requests, agent, obs = play(Planner(), steps=6, max_steps=0)
    assert requests == []
    assert agent.cases and json.loads(obs["incidents"])  # the rules reported on their own


def test_provider_trouble_ends_the_model_part_never_the_episode(tmp_path):
    planner = Planner()
    seen = {"n": 0, "cut": 0}
    billed = []  # requests answered with a completion that reports usage

    def respond(req):
        seen["n"] += 1
        n = seen["n"]
        if "(cut: overflow)" in req["messages"][-1]["content"]:
            seen["cut"] += 1
        if n == 2:
            return Fault(400, "This model's maximum context length is 4096 tokens")
        if n in (4, 5):
            return Fault(500, "upstream down")
        if n == 7:
            return Fault(429, "slow down")
        if n == 9:
            return Fault(
                200, body=json.dumps({"id": "x", "object": "chat.completion", "choices": []})
            )
        billed.append(req)
        if n == 11:
            return {"content": ""}
        return planner(req)

    info, requests, _, _ = play(respond, str(tmp_path), max_retries=1)
    assert info["scorecard"]["n_faults"] > 0
    assert seen["cut"] == 1  # the overflow was followed by one cut prompt
    verify(info["bundle"])
    ev = read_bundle(info["bundle"]).events
    kinds = {e["kind"] for e in ev if e["type"] == "model" and e["error"]}
    assert {"context_overflow", "server_error", "rate_limited", "empty", "agent"} <= kinds
    assert any("the plan is not JSON" in n for n in notes(ev))
    cost = info["scorecard"]["cost"]
    assert cost["model_calls"] == len(requests) - 4  # HTTP errors are no model calls
    assert cost["input_tokens"] == sum(len(json.dumps(r["messages"])) // 4 for r in billed)
    assert cost["output_tokens"] == COMPLETION_TOKENS * len(billed)


def test_run_command_with_keep_llm_prints_its_cost(capsys):
    with ScriptedChatServer(Planner()) as srv:
        argv = ["run", "--agent", "keep-llm", "--model", "scripted", "--base-url", srv.base_url]
        assert cli_main([*argv, "--schedule", "short", "--json"]) == 0
        n = len(srv.requests)
    card = json.loads(capsys.readouterr().out)["scorecard"]
    assert card["cost"]["model_calls"] == n > 0 and card["incidents"] >= 1
