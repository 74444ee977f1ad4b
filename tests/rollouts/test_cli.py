"""`sre-gym rollout` and `sre-gym qualify`."""

from __future__ import annotations

import json

from sre_gym.cli import main
from sre_gym.rollouts.cli import leaderboard

APP = "online-boutique"


def test_rollout_prints_a_leaderboard_and_resumes(tmp_path, capsys):
    out = str(tmp_path / "res.jsonl")
    argv = ["rollout", "--agent", "noop,runbook", "--apps", APP, "--seeds", "0-1"]
    assert main([*argv, "--out", out, "-q"]) == 0
    cap = capsys.readouterr()
    lines = cap.out.splitlines()
    assert lines[0].split()[:5] == ["agent", "app", "seeds", "net", "paper"]
    recs = {r.split()[0]: [float(x) for x in r.split()[3:5]] for r in lines[1:3]}
    assert recs["noop"] == [0.0, 0.0]
    assert recs["runbook"][1] > 0.0  # the paper credits its reports
    # best net_score first
    assert [r.split()[0] for r in lines[1:3]] == sorted(recs, key=lambda a: -recs[a][0])
    assert "noop: 2 episodes (2 run, 0 already in" in cap.err
    assert main([*argv, "--out", out, "--json", "-q"]) == 0
    cap = capsys.readouterr()
    assert "runbook: 2 episodes (0 run, 2 already in" in cap.err
    recs = [json.loads(line) for line in cap.out.splitlines()]
    assert [(r["agent"], r["seed"]) for r in recs] == [
        ("noop", 0),
        ("noop", 1),
        ("runbook", 0),
        ("runbook", 1),
    ]
    with open(out) as f:
        assert len(f.readlines()) == 4


def test_rollout_takes_a_schedule_profile(capsys):
    argv = ["rollout", "--agent", "oracle", "--apps", APP, "--seeds", "3", "--json", "-q"]
    assert main([*argv, "--schedule", "single"]) == 0
    (rec,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rec["schedule"] == "single" and rec["scorecard"]["n_faults"] == 1


def test_leaderboard_means_per_agent_and_app():
    recs = [
        {
            "agent": a,
            "app": APP,
            "seed": s,
            "scorecard": {
                "net_score": v,
                "marathon_score": 2 * v,
                "correlation": 1,
                "localization": 0,
                "repair": 0,
                "intervention_risk": 0,
            },
        }
        for a, s, v in (("x", 0, 10.0), ("x", 1, 20.0), ("y", 0, 30.0))
    ]
    rows = leaderboard(recs).splitlines()
    assert rows[1].split()[:5] == ["y", APP, "1", "30.00", "60.00"]
    assert rows[2].split()[:5] == ["x", APP, "2", "15.00", "30.00"]
    assert rows[2].split()[-1] == "7.07"  # sample sd of 10 and 20


def test_qualify_passes_and_explains(capsys):
    assert main(["qualify", "--app", APP, "--seeds", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"PASS  {APP}  seed=1")
    assert out.rstrip().endswith("1/1 seeds qualify (oracle >= 90, net >= 85; noop == 0 on both)")
    assert main(["qualify", "--app", APP, "--seeds", "1", "--json", "-q"]) == 0
    [res] = json.loads(capsys.readouterr().out)
    assert res["passed"] and res["seed"] == 1


def test_rollout_runs_an_llm_agent_with_cost_columns(capsys):
    import pytest

    pytest.importorskip("openai")
    from sre_gym.testing.scripted_model import ScriptedChatServer, SreScript

    with ScriptedChatServer(SreScript()) as srv:
        argv = ["rollout", "--agent", "react,noop", "--apps", APP, "--seeds", "0-1", "-q"]
        argv += ["--schedule", "short", "--model", "scripted", "--base-url", srv.base_url]
        assert main(argv) == 0
        n = len(srv.requests)
    lines = capsys.readouterr().out.splitlines()
    head = lines[0].split()
    assert {"calls", "ktokens", "dollars"} <= set(head)
    row = {ln.split()[0]: ln.split() for ln in lines[1:]}
    calls = float(row["react"][head.index("calls")])
    assert n > 0 and abs(calls - n / 2) <= 0.5  # mean calls per episode, as the server answered
    assert float(row["noop"][head.index("calls")]) == 0
