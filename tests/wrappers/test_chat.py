"""ChatObservation: system and user messages, tool messages per result, compact text form."""

from __future__ import annotations

import json
import string

import gymnasium as gym
import pytest

from sre_gym.envs.marathon import N_INVOCATIONS
from sre_gym.tools import TOOLS
from sre_gym.wrappers import ChatObservation, ToolCallSteps
from sre_gym.wrappers.chat import ascii_text, system_prompt


def test_check_env_passes_for_both_modes(make, strict_check):
    strict_check(make(ChatObservation))
    strict_check(make(lambda e: ChatObservation(e, mode="text")))
    strict_check(make(ToolCallSteps, ChatObservation))


def test_reset_gives_the_situation_and_the_rules(make):
    env = make(ChatObservation)
    msgs, info = env.reset(seed=0)
    assert [m["role"] for m in msgs] == ["system", "user"]
    sys_ = msgs[0]["content"]
    for phrase in ("report_incident", "cite an open incident", "Forbidden", "110 s", "notes"):
        assert phrase in sys_
    assert all(name in sys_ for name in TOOLS)
    user = msgs[1]["content"]
    assert user.startswith(f"Invocation 1 of {N_INVOCATIONS} at 2026-")
    assert "Open incidents: none." in user and "Your notes: (empty)" in user


def test_profile_limits_the_tools_in_the_prompt(make):
    msgs, _ = make(ChatObservation, profile="confined").reset(seed=0)
    assert "Access profile: confined" in msgs[0]["content"]
    assert "query_logs" not in msgs[0]["content"] and "rollback" in msgs[0]["content"]
    assert system_prompt("online-boutique", "confined") == msgs[0]["content"]


def test_a_step_answers_each_call_then_describes_the_next_invocation(make):
    env = make(ChatObservation)
    env.reset(seed=0)
    msgs = []
    for _ in range(8):  # until some alerts have fired
        msgs, *_ = env.step([])
    calls = [
        {"tool": "get_topology", "args": {}},
        {"tool": "k8s_get", "args": {"kind": "secrets"}},
        {"tool": "report_incident", "args": {"alert_ids": [], "root_cause_services": ["frontend"]}},
    ]
    msgs, r, term, trunc, info = env.step({"calls": calls, "notes": "cart looks slow"})
    roles = [m["role"] for m in msgs]
    assert roles == ["tool", "tool", "tool", "user"]
    assert [m["tool_call_id"] for m in msgs[:3]] == ["call_0", "call_1", "call_2"]
    assert json.loads(msgs[0]["content"])["app"] == "online-boutique"
    assert msgs[1]["content"].startswith("error: blocked by policy")
    user = msgs[3]["content"]
    assert "Invocation 10 of 45" in user and "INC-0001: root cause frontend" in user
    assert "Your notes: cart looks slow" in user and "New alerts since the last invocation" in user


def test_new_and_resolved_alerts_are_each_listed_once(make):
    env = make(ChatObservation)
    msgs, _ = env.reset(seed=0)
    seen_new, seen_resolved = [], []
    term = False
    while not term:
        for m in msgs:
            if m["role"] != "user":
                continue
            for line in m["content"].splitlines():
                if line.startswith("- ALR-"):
                    seen_new.append(line.split()[1])
                if line.startswith("Resolved since"):
                    seen_resolved += [x.split()[0] for x in line.split(": ", 1)[1].split(", ")]
        msgs, r, term, trunc, info = env.step([])
    alerts = env.unwrapped.alerts_view()
    assert len(seen_new) == len(set(seen_new)) and set(seen_new) <= {a["id"] for a in alerts}
    assert len(seen_resolved) == len(set(seen_resolved)) and seen_resolved
    assert "The run is over" in msgs[-1]["content"]


def test_unreadable_action_is_explained_in_a_user_message(make):
    env = make(ChatObservation)
    env.reset(seed=0)
    msgs, *_ = env.step("{oops")
    assert msgs[0]["role"] == "user" and "not understood" in msgs[0]["content"]
    assert "not valid JSON" in msgs[0]["content"]


def test_over_tool_call_steps_only_tool_messages_until_time_moves(make):
    env = make(ToolCallSteps, ChatObservation)
    env.reset(seed=0)
    msgs, *_ = env.step({"tool": "get_alerts", "args": {"state": "firing"}})
    assert [m["role"] for m in msgs] == ["tool"]
    msgs, *_ = env.step({"tool": "end_invocation", "args": {}})
    assert [m["role"] for m in msgs] == ["tool", "user"]
    assert json.loads(msgs[0]["content"])["reason"] == "requested"


def test_text_mode_is_printable_and_in_its_space(make):
    env = make(lambda e: ChatObservation(e, mode="text"))
    text, _ = env.reset(seed=0)
    assert text.startswith("[system]\n") and "\n\n[user]\n" in text
    text, *_ = env.step({"calls": [{"tool": "get_topology"}], "notes": "caf\u00e9 \u2192 down"})
    assert "[tool call_0]" in text and "caf\\u00e9 \\u2192 down" in text
    assert set(text) <= set(string.printable) and env.observation_space.contains(text)


def test_ascii_text():
    assert ascii_text("a\u00e9\x00b\n") == "a\\xe9b\n"


def test_bad_mode_and_make_vec():
    with pytest.raises(ValueError, match="mode"):
        ChatObservation(gym.make("SREMarathon-v0"), mode="html")
    envs = gym.make_vec("SREMarathon-v0", num_envs=2, wrappers=[ChatObservation])
    obs, info = envs.reset(seed=0)
    assert len(obs) == 2 and obs[0][0]["role"] == "system"
    obs, *_ = envs.step(([], [{"tool": "get_topology"}]))
    assert [m["role"] for m in obs[1]] == ["tool", "user"]
    envs.close()


def test_async_make_vec_names_the_fix_and_runs_without_shared_memory():
    with pytest.raises(TypeError, match=r'vector_kwargs=\{"shared_memory": False\}'):
        gym.make_vec(
            "SREMarathon-v0", num_envs=2, vectorization_mode="async", wrappers=[ChatObservation]
        )
    envs = gym.make_vec(
        "SREMarathon-v0",
        num_envs=2,
        vectorization_mode="async",
        wrappers=[ChatObservation],
        vector_kwargs={"shared_memory": False},
    )
    try:
        obs, _ = envs.reset(seed=0)
        assert len(obs) == 2 and obs[1][0]["role"] == "system"
    finally:
        envs.close()


def test_long_results_are_cut_to_valid_json_keeping_the_useful_end(make):
    env = make(lambda e: ChatObservation(e, result_chars=3000))
    env.reset(seed=0)
    for _ in range(15):
        env.step([])
    msgs, *_ = env.step(
        [
            {"tool": "query_logs", "args": {"service": "frontend", "since_s": 3600, "limit": 500}},
            {"tool": "get_alerts", "args": {}},
        ]
    )
    logs, alerts = json.loads(msgs[0]["content"]), json.loads(msgs[1]["content"])
    assert len(msgs[0]["content"]) <= 3200 and len(msgs[1]["content"]) <= 3200
    full = env.unwrapped.last_results
    assert "truncated" in logs[0] and logs[-1] == full[0]["result"][-1]  # newest lines kept
    assert "truncated" in alerts[-1] and alerts[0]["id"] == full[1]["result"][0]["id"]
