from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters  # noqa: E402

from sre_gym.bundle import verify as verify_bundle  # noqa: E402
from sre_gym.serve.mcp_server import build_server  # noqa: E402
from sre_gym.serve.sessions import ArenaSession, MarathonSession  # noqa: E402
from sre_gym.tools.cli import tool_table  # noqa: E402
from sre_gym.tools.specs import END_INVOCATION  # noqa: E402

SHORT = "short"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _expected_tools(profile: str = "full") -> dict[str, dict]:
    rows = {r["name"]: r["schema"] for r in tool_table(profile)}
    rows[END_INVOCATION.name] = END_INVOCATION.json_schema()
    return rows


def _session(tmp_path, **kw) -> MarathonSession:
    s = MarathonSession("online-boutique", schedule=SHORT, bundle_dir=str(tmp_path), **kw)
    s.reset(seed=0)
    return s


@pytest.mark.anyio
async def test_in_memory_lists_exactly_the_tools_and_their_schemas(tmp_path):
    session = _session(tmp_path)
    async with Client(build_server(session), raise_exceptions=True) as c:
        tools = (await c.list_tools()).tools
    assert {t.name: t.input_schema for t in tools} == _expected_tools()
    assert len(tools) == 20  # the nineteen tools and the clock


@pytest.mark.anyio
async def test_a_profile_limits_the_listed_tools(tmp_path):
    session = _session(tmp_path, profile="confined")
    async with Client(build_server(session), raise_exceptions=True) as c:
        names = {t.name for t in (await c.list_tools()).tools}
    assert names == set(_expected_tools("confined"))
    assert "submit_patch" not in names


@pytest.mark.anyio
async def test_reads_end_invocation_and_a_forbidden_call_counted_in_the_scorecard(tmp_path):
    session = _session(tmp_path)
    async with Client(build_server(session), raise_exceptions=True) as c:
        res = await c.call_tool("get_topology", {})
        assert not res.is_error and res.structured_content["ok"]
        assert "services" in json.dumps(res.structured_content)
        res = await c.call_tool("k8s_get", {"kind": "secrets"})
        assert res.is_error and "forbidden" in res.structured_content["error"].lower()
        inv = session.base.invocation
        res = await c.call_tool(END_INVOCATION.name, {})
        assert not res.is_error
        seen = res.structured_content["observation"]
        assert seen["invocation"] == inv + 1 and isinstance(seen["alerts"], list)
    bundle = session.close()
    assert bundle is not None and verify_bundle(bundle)
    assert session.info["scorecard"]["forbidden_attempts"] == 1


@pytest.mark.anyio
async def test_malformed_calls_are_error_results_and_change_nothing(tmp_path):
    session = _session(tmp_path)
    before = session.base.invocation
    async with Client(build_server(session), raise_exceptions=True) as c:
        for name, args in (
            ("no_such_tool", {}),
            ("query_metrics", {"query": "sum(", "window_s": -5}),
            ("scale", {"deployment": "cartservice"}),
        ):
            res = await c.call_tool(name, args)
            assert res.is_error, name
            assert res.structured_content["ok"] is False and res.structured_content["error"]
    # each refusal costs its few seconds of budget, like any call, and nothing else
    assert session.base.invocation == before
    kinds = {e["type"] for e in session.base.evidence.events}
    assert not kinds & {"intervention", "forbidden"}


def test_close_plays_out_the_episode_and_further_calls_are_refused(tmp_path):
    session = _session(tmp_path)
    bundle = session.close()
    assert bundle is not None and verify_bundle(bundle)
    assert session.info["scorecard"]["marathon_score"] == 0.0  # nobody acted
    step = session.call("get_alerts", {})
    assert step.is_error and step.refused and "call reset()" in step.result["error"]


def _server_cmd(tmp_path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sre_gym.cli",
        "mcp",
        "--schedule",
        SHORT,
        "--bundle-dir",
        str(tmp_path),
        *extra,
    ]


@pytest.mark.anyio
async def test_stdio_transport(tmp_path):
    cmd = _server_cmd(tmp_path)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=dict(os.environ))
    async with Client(params) as c:
        tools = (await c.list_tools()).tools
        assert {t.name for t in tools} == set(_expected_tools())
        res = await c.call_tool("get_alerts", {})
        assert not res.is_error
    # stopping the server sealed the played-out episode
    deadline = time.monotonic() + 120
    while not list(tmp_path.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert list(tmp_path.iterdir())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.anyio
async def test_streamable_http_transport_on_loopback(tmp_path):
    port = _free_port()
    proc = subprocess.Popen(
        _server_cmd(tmp_path, "--transport", "http", "--port", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.3)
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            tools = (await c.list_tools()).tools
            assert {t.name for t in tools} == set(_expected_tools())
            res = await c.call_tool("k8s_get", {"kind": "deployments"})
            assert not res.is_error, res.structured_content
    finally:
        proc.terminate()
        proc.wait(timeout=120)


FAKE_AGENT = """
import asyncio, json, sys
from mcp import Client

async def main(url):
    async with Client(url) as c:
        st = json.loads((await c.read_resource("sre-gym://episode")).contents[0].text)
        await c.call_tool("get_alerts", {})
        if st["invocation"] % 2 == 0:  # on odd invocations it forgets to end its turn
            await c.call_tool("end_invocation", {})

asyncio.run(main(sys.argv[1]))
"""


def test_the_coding_agent_harness_runs_a_whole_episode_invocation_by_invocation(tmp_path):
    import importlib.util
    from pathlib import Path

    from sre_gym.bundle import read_bundle
    from sre_gym.scoring.scorer import score

    path = Path(__file__).resolve().parents[2] / "examples" / "mcp" / "run_coding_agent.py"
    spec = importlib.util.spec_from_file_location("run_coding_agent", path)
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    agent = tmp_path / "agent.py"
    agent.write_text(FAKE_AGENT)
    out = tmp_path / "bundles"
    argv = ["--schedule", "single", "--bundle-dir", str(out), "--port", str(_free_port())]
    assert harness.main([*argv, "--", sys.executable, str(agent), "{url}"]) == 0
    (bundle,) = list(out.iterdir())
    verify_bundle(bundle)
    ev = read_bundle(bundle)
    reads = [e for e in ev.events if e["type"] == "tool_call" and e.get("tool") == "get_alerts"]
    n_inv = 1200 // 120  # the single profile's run
    assert len(reads) == n_inv  # the agent ran once in every invocation, none skipped
    assert score(ev)["marathon_score"] == 0.0


def _deep(n: int) -> dict:
    d: dict = {}
    x = d
    for _ in range(n):
        x["a"] = {}
        x = x["a"]
    return d


@pytest.mark.anyio
async def test_bad_calls_at_any_depth_are_error_results_and_the_session_goes_on(tmp_path):
    session = _session(tmp_path)
    # the session the server runs every call through, 1,500 deep; over the protocol 100 deep
    # (the SDK's own client refuses to serialize a request 900 levels deep)
    step = session.call("get_alerts", {"state": _deep(1500)})
    assert step.is_error and "nested more than 64" in step.result["error"]
    async with Client(build_server(session), raise_exceptions=True) as c:
        res = await c.call_tool("get_alerts", {"state": _deep(100)})
        assert res.is_error and "nested more than 64" in res.structured_content["error"]
        res = await c.call_tool("", {})
        assert res.is_error and "tool name" in res.structured_content["error"]
        res = await c.call_tool("get_alerts", {"state": "firing"})
        assert not res.is_error  # the session went on
    tools = [e for e in session.base.evidence.events if e["type"] == "tool_call"]
    assert [t["ok"] for t in tools] == [False, False, False, True]  # each recorded, one step each


def test_a_call_1500_deep_on_the_stdio_wire_changes_nothing_and_the_server_goes_on(tmp_path):
    """The SDK's client will not send such a request, so this writes JSON-RPC lines itself. The
    SDK's stdio transport cannot parse the line (too deep for its validator) and drops it without
    an answer; the server, its session and the episode go on."""
    proc = subprocess.Popen(
        _server_cmd(tmp_path),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    answers: dict = {}

    def send(text: str) -> None:
        proc.stdin.write(text + "\n")
        proc.stdin.flush()

    def answer(rid: int) -> dict:
        for line in proc.stdout:  # every message up to the one answering rid
            msg = json.loads(line)
            answers[msg.get("id")] = msg
            if msg.get("id") == rid:
                return msg
        raise AssertionError(f"the server closed before answering request {rid}")

    def call(rid: int, args_text: str) -> str:
        head = f'{{"jsonrpc": "2.0", "id": {rid}, "method": "tools/call", "params": '
        return head + '{"name": "get_alerts", "arguments": ' + args_text + "}}"

    try:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}}
        init["clientInfo"] = {"name": "raw", "version": "0"}
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}))
        assert "result" in answer(1)
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        send(call(2, '{"state": ' + '{"a":' * 1500 + "1" + "}" * 1500 + "}"))
        send(call(3, '{"state": "firing"}'))
        assert answer(3)["result"]["isError"] is False  # the same server and episode went on
        send(call(4, '{"state": "bogus"}'))
        assert answer(4)["result"]["isError"] is True  # and still checks its arguments
        if 2 in answers:  # a later SDK may answer it: then as an error
            assert "error" in answers[2] or answers[2]["result"]["isError"]
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
    assert proc.returncode == 0


@pytest.mark.anyio
async def test_an_arena_task_over_mcp_gives_the_in_process_verdict(tmp_path):
    import gymnasium as gym

    from sre_gym.agents.arena import make_agent

    calls = []
    env = gym.make("IncidentArena-v0", task="arena-008", disable_env_checker=True)
    obs, info = env.reset(seed=2)
    agent = make_agent("oracle", "arena-008", 2)
    done = False
    while not done:
        call = agent.act(obs)
        calls.append(call)
        obs, reward, term, trunc, info = env.step(call)
        done = term or trunc
    want = (reward, info["verdict"]["overall"], info["failure_class"])
    session = ArenaSession("arena-008", bundle_dir=str(tmp_path))
    session.reset(seed=2)
    async with Client(build_server(session), raise_exceptions=True) as c:
        assert {t.name for t in (await c.list_tools()).tools} == {
            t["name"] for t in session.tools()
        }
        for call in calls:
            res = await c.call_tool(call["tool"], call.get("args", {}))
        last = res.structured_content
    assert "episode_over" in last and session.done
    assert want[1] is True  # the oracle passes: a verdict worth comparing
    got = (float(res.structured_content.get("reward", want[0])), session.info["verdict"]["overall"])
    assert got == want[:2] and session.info["failure_class"] == want[2]
    assert list(tmp_path.iterdir())  # the bundle


def test_help_shows_how_to_serve_an_arena_task(capsys):
    from sre_gym.cli import build_parser

    for cmd in ("mcp", "openenv"):
        with pytest.raises(SystemExit):
            build_parser().parse_args([cmd, "--help"])
        out = capsys.readouterr().out
        assert "--env IncidentArena-v0 --task arena-008" in out and "declare_repair_complete" in out
