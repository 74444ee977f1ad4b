"""The OpenEnv adapter: the env's tools, the env's rewards step for step, sealed evaluation kept."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("openenv")

from openenv.core.env_server.mcp_types import (  # noqa: E402
    CallToolAction,
    ListToolsAction,
    ListToolsObservation,
)
from openenv.core.env_server.types import Action  # noqa: E402

from sre_gym.envs.marathon import HIDDEN_INFO  # noqa: E402
from sre_gym.envs.observation_text import compact_alert  # noqa: E402
from sre_gym.serve.openenv_env import (  # noqa: E402
    IncidentArenaEnvironment,
    SREMarathonClient,
    SREMarathonEnvironment,
    build_app,
    tool_list,
)
from sre_gym.serve.openenv_types import SREAction, SREObservation  # noqa: E402
from sre_gym.serve.sessions import ResetError  # noqa: E402
from sre_gym.testing.scripted_model import ScriptedChatServer, SreScript, _workload  # noqa: E402
from sre_gym.tools.cli import tool_table  # noqa: E402
from sre_gym.tools.specs import END_INVOCATION, TOOLS  # noqa: E402
from sre_gym.wrappers.tool_call_steps import ToolCallSteps  # noqa: E402

SHORT = "short"
SEED = 3
END = END_INVOCATION.name


def _expected_tools(profile: str = "full") -> dict[str, dict]:
    rows = {r["name"]: r["schema"] for r in tool_table(profile)}
    rows[END] = END_INVOCATION.json_schema()
    return rows


def _plain(schedule: str = SHORT, **kw: Any) -> ToolCallSteps:
    return ToolCallSteps(gym.make("SREMarathon-v0", schedule=schedule, **kw))


def _step(env: SREMarathonEnvironment, log: list, tool: str, args: dict) -> SREObservation:
    """Step the adapter and keep the call and what came back, to replay on the plain env."""
    obs = env.step(CallToolAction(tool_name=tool, arguments=args))
    assert isinstance(obs, SREObservation)
    log.append(({"tool": tool, "args": args}, obs))
    return obs


def _play_reporter(env: SREMarathonEnvironment, seed: int, **reset: Any) -> list:
    """A scripted policy read off the observations: list the firing alerts, report one incident per
    workload they name that is new, end the invocation; until the episode is over."""
    log: list = []
    obs = env.reset(seed=seed, **reset)
    reported: set[str] = set()
    while not obs.done:
        obs = _step(env, log, "get_alerts", {"state": "firing"})
        for a in obs.result["result"]:
            w = _workload(a.get("labels", {}))
            if w is not None and w not in reported:
                reported.add(w)
                args = {"alert_ids": [a["id"]], "root_cause_services": [w]}
                obs = _step(env, log, "report_incident", args)
        obs = _step(env, log, END, {})
    return log


def _replay(log: list, seed: int, **kw: Any) -> list[tuple[float, dict, bool, dict]]:
    """The same calls on ``gym.make`` + ``ToolCallSteps``: (reward, obs, done, info) per step."""
    env = _plain(**kw)
    env.reset(seed=seed)
    out = []
    for call, _ in log:
        obs, r, terminated, truncated, info = env.step(call)
        out.append((r, obs, terminated or truncated, info))
    return out


def test_the_tools_are_the_envs_with_the_clock_and_need_no_reset():
    env = SREMarathonEnvironment(schedule=SHORT)
    listed = env.step(ListToolsAction())
    assert isinstance(listed, ListToolsObservation)
    assert {t.name: t.input_schema for t in listed.tools} == _expected_tools()
    assert [t.name for t in listed.tools] == [*TOOLS, END]  # the nineteen tools and the clock
    assert {t.name: t.input_schema for t in tool_list("confined")} == _expected_tools("confined")
    assert listed.reward == 0.0 and env.state.step_count == 0


def test_direct_use_gives_the_envs_rewards_step_for_step():
    env = SREMarathonEnvironment(schedule=SHORT)
    log = _play_reporter(env, SEED, episode_id="ep-a")
    plain = _replay(log, SEED)
    rewards = [o.reward for _, o in log]
    assert rewards == [r for r, _, _, _ in plain]  # exactly, step for step
    seen: dict[str, str] = {}
    for (_, o), (_, p_obs, p_done, _) in zip(log, plain, strict=True):
        # the context budget: each step shows the alerts new or changed since the last one
        history = json.loads(p_obs["alerts"])
        new = [a for a in history if seen.get(a["id"]) != a["state"]]
        seen.update({a["id"]: a["state"] for a in history})
        assert o.alerts == [compact_alert(a) for a in new]
        assert o.alerts_in_history == len(history)
        assert set(o.truncated) <= {"result"} and len(o.model_dump_json()) <= 16_384
        assert o.incidents == json.loads(p_obs["incidents"])
        assert (o.time, o.invocation, o.done) == (int(p_obs["time"]), p_obs["invocation"], p_done)
    last = log[-1][1]
    card = last.metadata["info"]["scorecard"]
    assert last.done and card == plain[-1][3]["scorecard"]
    # the rewards pay net_score (the default); the reporter's reports move both scores
    assert sum(rewards) == pytest.approx(card["net_score"], abs=1e-9)
    assert card["net_score"] != 0 and card["marathon_score"] > 0
    assert sum(1 for o in log if o[1].invocation_ended) == env.base.n_invocations
    st = env.state
    assert (st.episode_id, st.step_count, st.done) == ("ep-a", len(log), True)
    # past the end: an error observation, not an exception
    after = env.step(CallToolAction(tool_name="get_alerts", arguments={}))
    assert after.error is not None and "over" in after.error.message and after.reward == 0.0
    assert env.state.step_count == len(log)


def _situation(obs: SREObservation) -> str:
    return (
        f"Invocation {obs.invocation}, simulated time {obs.time}.\n"
        f"New alerts (JSON): {json.dumps(obs.alerts)}\n"
        f"Open incidents (JSON): {json.dumps(obs.incidents)}\n"
        f"Your notes: {obs.notes or '(none)'}"
    )


def test_a_scripted_model_rollout_returns_the_envs_rewards():
    pytest.importorskip("openai")
    from sre_gym.agents.llm.client import ModelClient

    env = SREMarathonEnvironment(schedule=SHORT, reward="paper")
    functions = [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in env.step(ListToolsAction()).tools
    ]
    log: list = []
    with ScriptedChatServer(SreScript()) as srv:
        client = ModelClient("scripted", srv.base_url, max_retries=0)
        obs = env.reset(seed=SEED)
        while not obs.done:
            mark = client.mark()
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": "You are the on-call SRE."},
                {"role": "user", "content": _situation(obs)},
            ]
            ended = False
            for _ in range(5):  # model turns per invocation
                reply = client.chat(messages, functions)
                assert reply.error is None
                messages.append(reply.message())
                if not reply.tool_calls:
                    break
                for call in reply.tool_calls:
                    obs = _step(env, log, call["name"], json.loads(call["arguments"] or "{}"))
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": call["id"],
                            "content": json.dumps(obs.result, sort_keys=True),
                        }
                    )
                    ended = obs.invocation_ended
                    if ended:
                        break
                if ended:
                    break
            if not ended:
                obs = _step(env, log, END, {"usage": client.usage_since(mark)})
        assert len(srv.requests) >= 2 * env.base.n_invocations
    rewards = [o.reward for _, o in log]
    assert rewards == [r for r, _, _, _ in _replay(log, SEED, reward="paper")]
    card = log[-1][1].metadata["info"]["scorecard"]
    # reward="paper": the rewards pay the paper's Marathon-Score
    assert sum(rewards) == pytest.approx(card["marathon_score"], abs=1e-9)
    assert card["marathon_score"] != card["net_score"]
    assert card["marathon_score"] > 0 and card["incidents"] > 0


def test_evaluation_mode_holds_rewards_back_and_shows_no_seed_or_score():
    env = SREMarathonEnvironment(schedule=SHORT, evaluation_key="k")
    first = env.reset(seed=SEED)
    log = _play_reporter(env, SEED)
    rewards = [o.reward for _, o in log]
    assert all(r == 0.0 for r in rewards[:-1])
    assert rewards[-1] == env.base.scorecard["net_score"] != 0  # the whole score, at the end
    for o in [first, *(o for _, o in log)]:
        assert not set(o.metadata["info"]) & set(HIDDEN_INFO)
        # every field but the env's own texts (alert history, tool results, incidents)
        rest = o.model_dump(mode="json", exclude={"alerts", "result", "incidents"})
        for word in ('"seed"', '"score"', '"scorecard"', '"bundle"', "marathon_score"):
            assert word not in json.dumps(rest)
    assert set(env.state.model_dump()) == {
        "episode_id",
        "step_count",
        "env",
        "invocation",
        "n_invocations",
        "task",
        "done",
    }


def _deep(n: int) -> dict:
    d: dict = {}
    x = d
    for _ in range(n):
        x["a"] = {}
        x = x["a"]
    return d


def test_any_action_is_an_observation_and_a_malformed_one_costs_one_step():
    env = SREMarathonEnvironment(schedule="single")
    early = env.step(CallToolAction(tool_name="get_alerts", arguments={}))
    assert early.error is not None and "reset" in early.error.message
    env.reset(seed=0, episode_id="ep-d")
    env.step(CallToolAction(tool_name="get_alerts", arguments={}))

    def where() -> tuple:
        b = env.base
        return (b.clock, b.budget_left, b.invocation, b.incidents_text(), b.notes)

    before = where()
    calls = lambda: sum(1 for e in env.base.evidence.events if e["type"] == "tool_call")  # noqa: E731
    n0 = calls()
    bad = [
        Action(),  # not a tool call at all
        SREAction.model_validate({"tool": "get_alerts", "args": {}}),  # the project's own form
        SREAction.model_validate({"tool_name": [{"tool": "get_alerts"}]}),  # a bare list
        SREAction.model_validate({"tool_name": 'I will call get_alerts {"state": "firing"}'}),
        SREAction.model_validate({"tool_name": "no_such_tool", "arguments": {"x": 1}}),
        SREAction.model_validate({"tool_name": "get_alerts", "arguments": "state=firing"}),
        SREAction(tool_name="get_alerts", arguments={"state": _deep(1500)}),
        CallToolAction(tool_name="", arguments={}),
    ]
    for i, action in enumerate(bad):
        obs = env.step(action)
        assert isinstance(obs, SREObservation) and obs.result["ok"] is False
        assert obs.reward == 0.0 and not obs.done and obs.result["error"]
        assert env.state.step_count == 2 + i  # one step each, and the episode goes on
    assert calls() == n0 + len(bad)  # each recorded as a malformed call
    assert where() == before  # no simulated time, nothing else changed
    assert "expected an OpenEnv tool call" in env.step(bad[1]).error.message
    assert env.step(bad[3]).error is None  # an unknown tool is the env's own error result
    with pytest.raises(ResetError, match="unknown reset parameters: sed"):
        env.reset(sed=1)
    with pytest.raises(ResetError, match="unknown fault"):
        env.reset(seed=1, options={"faults": ["no-such-fault"]})


def test_the_observation_is_capped_with_truncation_marked():
    big = SREMarathonEnvironment(schedule=SHORT, observation_chars=None, context="cumulative")
    capped = SREMarathonEnvironment(schedule=SHORT, observation_chars=4096)
    for env in (big, capped):
        env.reset(seed=SEED)
        for _ in range(6):
            env.step(CallToolAction(tool_name=END, arguments={}))
        obs = env.step(CallToolAction(tool_name="get_alerts", arguments={}))
    uncapped = big.step(CallToolAction(tool_name="get_alerts", arguments={}))
    assert len(uncapped.model_dump_json()) > 20_000  # the cumulative history and a whole result
    assert len(obs.model_dump_json()) <= 4096 and obs.truncated
    assert "result" in obs.truncated or "alerts" in obs.truncated


def test_an_arena_task_gives_the_in_process_verdict():
    import gymnasium as gym

    from sre_gym.agents.arena import make_agent

    env = gym.make("IncidentArena-v0", task="arena-008", disable_env_checker=True)
    obs, _ = env.reset(seed=4)
    agent, calls, done = make_agent("oracle", "arena-008", 4), [], False
    while not done:
        calls.append(agent.act(obs))
        obs, reward, term, trunc, info = env.step(calls[-1])
        done = term or trunc
    served = IncidentArenaEnvironment("arena-008")
    first = served.reset(seed=4)
    assert first.instruction and {t.name for t in first.available_tools} >= {"wait", "metrics"}
    for c in calls:
        o = served.step(SREAction(tool_name=c["tool"], arguments=c.get("args", {})))
    assert o.done and o.reward == reward == 1.0
    assert o.metadata["info"]["verdict"]["overall"] == info["verdict"]["overall"]
    # evaluation mode: the verdict and the seed stay hidden, the reward comes at the end
    ev = IncidentArenaEnvironment("arena-008", evaluation_key="k")
    ev.reset(seed=4)
    for c in calls:
        o = ev.step(SREAction(tool_name=c["tool"], arguments=c.get("args", {})))
    assert o.done and not {"verdict", "seed", "bundle"} & set(o.metadata["info"])


def test_over_websocket_with_openenv_s_client():
    import uvicorn

    server = uvicorn.Server(
        uvicorn.Config(build_app(schedule="single"), host="127.0.0.1", port=0, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline and thread.is_alive()
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        local = SREMarathonEnvironment(schedule="single")
        want = [local.reset(seed=1)]
        calls = [("get_alerts", {"state": "all"}), (END, {}), ("get_topology", {}), (END, {})]
        with SREMarathonClient(base_url=f"http://127.0.0.1:{port}").sync() as env:
            got_bad = env.step(SREAction.model_validate({"tool": "get_alerts"}))  # before reset
            assert got_bad.observation.result["ok"] is False
            got = [env.reset(seed=1, episode_id="ep-e")]
            tools = env.list_tools()
            assert {t.name: t.input_schema for t in tools} == _expected_tools()
            for name, args in calls:
                want.append(local.step(CallToolAction(tool_name=name, arguments=args)))
                got.append(env.step(CallToolAction(tool_name=name, arguments=args)))
            assert env.call_tool("get_alerts", state="firing")["ok"] is True
            state = env.state()
            # one session at most (max_concurrent_envs=1): a second one is refused, clearly
            from websockets.sync.client import connect

            with connect(f"ws://127.0.0.1:{port}/ws") as other:
                refusal = json.loads(other.recv())
            assert refusal["type"] == "error" and refusal["data"]["code"] == "CAPACITY_REACHED"
        _raw_websocket_session(port)
        _http_endpoints(port)
        assert (state.episode_id, state.step_count) == ("ep-e", len(calls) + 1)
        for g, w in zip(got, want, strict=True):
            assert isinstance(g.observation, SREObservation)
            assert g.reward == w.reward and g.done == w.done
            assert g.observation.model_dump(exclude={"metadata"}) == w.model_dump(
                exclude={"metadata"}
            )
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _raw_websocket_session(port: int) -> None:
    """A malformed request is an error message and the session stays; a call 1,500 deep is the
    env's error result (the server's recursion limit, as ``serve`` sets it, lets OpenEnv parse it)."""
    import sys

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    deep = '{"a":' * 1500 + "1" + "}" * 1500
    step = '{"type":"step","data":{"type":"call_tool","tool_name":"get_alerts","arguments":%s}}'
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for _ in range(100):  # the last session's slot is freed just after it closes
            ws = connect(f"ws://127.0.0.1:{port}/ws")
            try:
                ws.send(json.dumps({"type": "reset", "data": {"seed": 1}}))
                first = json.loads(ws.recv())
            except ConnectionClosed:
                first = {"type": "closed"}
            if first["type"] == "observation":
                break
            ws.close()
            time.sleep(0.1)
        with ws:
            assert first["type"] == "observation"
            for bad in ("{not json", '{"type":"step","data":[1]}', '{"type":"nope"}'):
                ws.send(bad)
                assert json.loads(ws.recv())["type"] == "error"
            ws.send(step % json.dumps({"state": "all"}).replace("all", "x" * 3))
            ws.send(step % deep)
            replies = [json.loads(ws.recv()) for _ in range(2)]
            assert [r["type"] for r in replies] == ["observation", "observation"]
            res = replies[1]["data"]["observation"]["result"]
            assert res["ok"] is False and "nested more than 64" in res["error"]
            ws.send(step % '{"state": "firing"}')
            assert json.loads(ws.recv())["data"]["observation"]["result"]["ok"] is True
    finally:
        sys.setrecursionlimit(limit)


def _http_endpoints(port: int) -> None:
    import httpx

    url = f"http://127.0.0.1:{port}"
    r = httpx.post(f"{url}/reset", json={"seed": 0, "sead": 1}, timeout=60)
    assert r.status_code == 422 and "unknown reset parameters: sead" in r.json()["detail"]
    r = httpx.post(f"{url}/reset", json={"seed": 0, "options": {"faults": ["nope"]}}, timeout=60)
    assert r.status_code == 422 and "unknown fault" in r.json()["detail"]
    assert httpx.post(f"{url}/reset", json={"seed": 0}, timeout=60).status_code == 200
    assert httpx.get(f"{url}/health").json()["status"] == "healthy"
    assert httpx.get(f"{url}/metadata").json()["name"] == "SREMarathon-v0"
    schema = httpx.get(f"{url}/schema").json()["action"]
    assert schema["title"] == "SREToolCall" and schema["required"] == ["tool_name"]


def test_the_cli_serves_on_loopback_only():
    from sre_gym.cli import build_parser

    a = build_parser().parse_args(["openenv", "--schedule", "short", "--port", "8123"])
    assert (a.host, a.port, a.max_sessions) == ("127.0.0.1", 8123, 1)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["openenv", "--host", "0.0.0.0"])
    from sre_gym.serve.openenv_env import serve

    with pytest.raises(ValueError, match="127.0.0.1 only"):
        serve(8123, "0.0.0.0")
