"""The examples run (with small step counts) and do what they say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_openai_tools_scripted_holds_a_valid_conversation(capsys):
    out = load("openai_tools_scripted").main(["--seed", "0", "--invocations", "6"])
    assert out["invocations"] == 6 and out["turns"] >= 6
    msgs = out["messages"]
    assert msgs[0]["role"] == "system"
    pending: set[str] = set()
    for m in msgs:  # every tool call is answered before the model speaks again
        if m["role"] == "assistant":
            assert not pending
            pending = {c["id"] for c in m.get("tool_calls") or []}
        elif m["role"] == "tool":
            pending.remove(m["tool_call_id"])
    called = [
        c["function"]["name"]
        for m in msgs
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]
    assert "get_alerts" in called and "report_incident" in called
    assert "score" in capsys.readouterr().out


def test_train_numeric_updates_the_policy(capsys):
    out = load("train_numeric").main(["--steps", "12", "--horizon", "4", "--seed", "1"])
    assert out["episodes"] == 3 and len(out["returns"]) == 3
    assert np.all(np.isfinite(out["W"])) and not np.allclose(out["W"], out["W_init"])
    assert "episode   3" in capsys.readouterr().out
