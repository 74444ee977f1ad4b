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
from pydantic import ValidationError  # noqa: E402

from sre_gym.envs.marathon import HIDDEN_INFO  # noqa: E402
from sre_gym.serve.openenv_env import (  # noqa: E402
    SREMarathonClient,
    SREMarathonEnvironment,
    SREObservation,
    build_app,
    tool_list,
)
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
    for (_, o), (_, p_obs, p_done, _) in zip(log, plain, strict=True):
        assert (o.alerts, o.incidents, o.tool_results) == (
            p_obs["alerts"],
            p_obs["incidents"],
            p_obs["tool_results"],
        )
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
        f"Alert history (JSON): {obs.alerts}\nOpen incidents (JSON): {obs.incidents}\n"
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
        rest = o.model_dump(mode="json", exclude={"alerts", "tool_results", "result", "incidents"})
        for word in ('"seed"', '"score"', '"scorecard"', '"bundle"', "marathon_score"):
            assert word not in json.dumps(rest)
    assert set(env.state.model_dump()) == {
        "episode_id",
        "step_count",
        "invocation",
        "n_invocations",
        "done",
    }


def test_a_malformed_action_is_an_error_observation_and_changes_nothing():
    env = SREMarathonEnvironment(schedule="single")
    early = env.step(CallToolAction(tool_name="get_alerts", arguments={}))
    assert early.error is not None and "reset" in early.error.message
    env.reset(seed=0, episode_id="ep-d")
    env.step(CallToolAction(tool_name="get_alerts", arguments={}))

    def where() -> tuple:
        b = env.base
        return (env.state, b.clock, b.budget_left, b.invocation, b.incidents_text(), b.notes)

    before = where()
    for action in (Action(), CallToolAction(tool_name="", arguments={})):
        obs = env.step(action)
        assert isinstance(obs, SREObservation) and obs.error is not None
        assert obs.reward == 0.0 and not obs.done and obs.result["ok"] is False
        assert obs.error.message in obs.tool_results
        assert where() == before
    # a call the env cannot run is the env's error result: no time spent, nothing else changed
    obs = env.step(CallToolAction(tool_name="no_such_tool", arguments={"x": 1}))
    assert obs.error is None and obs.result["ok"] is False
    assert "unknown tool" in obs.result["error"] and obs.reward == 0.0
    assert where()[1:] == before[1:] and obs.budget_left_s == int(before[2])
    with pytest.raises(ValidationError):  # arguments must be an object: OpenEnv's own check
        CallToolAction(tool_name="get_alerts", arguments="state=firing")
    with pytest.raises(ValueError, match="unknown reset parameters: sed"):
        env.reset(sed=1)


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
            got = [env.reset(seed=1, episode_id="ep-e")]
            tools = env.list_tools()
            assert {t.name: t.input_schema for t in tools} == _expected_tools()
            for name, args in calls:
                want.append(local.step(CallToolAction(tool_name=name, arguments=args)))
                got.append(env.step(CallToolAction(tool_name=name, arguments=args)))
            assert env.call_tool("get_alerts", state="firing")["ok"] is True
            state = env.state()
        assert (state.episode_id, state.step_count) == ("ep-e", len(calls) + 1)
        for g, w in zip(got, want, strict=True):
            assert isinstance(g.observation, SREObservation)
            assert g.reward == w.reward and g.done == w.done
            # the server never sends metadata (info), so the client sees exactly the observation
            assert g.observation == w.model_copy(update={"metadata": {}})
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_cli_serves_on_loopback_only():
    from sre_gym.cli import build_parser

    a = build_parser().parse_args(["openenv", "--schedule", "short", "--port", "8123"])
    assert (a.host, a.port, a.max_sessions) == ("127.0.0.1", 8123, 1)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["openenv", "--host", "0.0.0.0"])
    from sre_gym.serve.openenv_env import serve

    with pytest.raises(ValueError, match="127.0.0.1 only"):
        serve(8123, "0.0.0.0")
