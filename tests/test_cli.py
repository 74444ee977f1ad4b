"""The sre-gym command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sre_gym.cli import main


def test_schedule_json_is_stable(capsys):
    assert main(["schedule", "--seed", "7", "--json"]) == 0
    a = capsys.readouterr().out
    assert main(["schedule", "--seed", "7", "--json"]) == 0
    assert capsys.readouterr().out == a
    faults = json.loads(a)["faults"]
    assert 55 <= len(faults) <= 61


def test_run_score_verify(tmp_path, capsys):
    assert (
        main(["run", "--seed", "1", "--agent", "noop", "--bundle-dir", str(tmp_path), "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    bundle = out["bundle"]
    assert main(["verify", bundle]) == 0
    assert capsys.readouterr().out.startswith("OK ")
    assert main(["score", bundle, "--json"]) == 0
    rescored = json.loads(capsys.readouterr().out)
    assert rescored["scorecard"] == out["scorecard"]
    # the run paid net_score's increments (the default): the re-score says so and sums the same
    assert out["reward"] == rescored["reward"] == "net"
    assert rescored["score"] == out["scorecard"]["net_score"] == out["return"] == 0.0
    assert main(["score", bundle, "--json", "--reward", "paper"]) == 0
    paper = json.loads(capsys.readouterr().out)
    assert (paper["reward"], paper["score"]) == ("paper", out["scorecard"]["marathon_score"])
    broken = Path(tmp_path) / "copy"
    shutil.copytree(bundle, broken)
    (broken / "manifest.json").write_text("{}")
    assert main(["verify", str(broken)]) == 1
    assert "manifest.json" in capsys.readouterr().err
    assert main(["score", str(broken)]) == 2


def test_run_prints_a_scorecard_table(capsys):
    assert main(["run", "--seed", "0", "--agent", "noop"]) == 0
    out = capsys.readouterr().out
    assert "Marathon-Score" in out and "0.00" in out
    assert "net_score                      0.00  (the reward)" in out


def test_run_pays_the_reward_it_is_asked_for(capsys):
    """``--reward`` picks the score the rewards sum to; the scorecard holds both either way."""
    got = {}
    for reward in ("net", "paper"):
        args = ["run", "--schedule", "single", "--seed", "3", "--agent", "runbook", "--json"]
        assert main([*args, "--reward", reward]) == 0
        got[reward] = json.loads(capsys.readouterr().out)
    net, paper = got["net"], got["paper"]
    assert net["scorecard"] == paper["scorecard"]  # the same run, scored the same
    card = net["scorecard"]
    assert net["return"] == pytest.approx(card["net_score"], abs=1e-9)
    assert paper["return"] == pytest.approx(card["marathon_score"], abs=1e-9)
    assert card["net_score"] != card["marathon_score"]  # (so the check above tells them apart)


def test_schedule_and_run_take_a_schedule_profile(capsys):
    assert main(["schedule", "--schedule", "single", "--seed", "4", "--json"]) == 0
    sched = json.loads(capsys.readouterr().out)
    assert (sched["profile"], sched["duration_s"], len(sched["faults"])) == ("single", 1200, 1)
    spec = '{"profile": "short", "categories": ["code"]}'
    assert main(["schedule", "--schedule", spec, "--stats", "--seeds", "0-2", "--json"]) == 0
    assert 6 <= json.loads(capsys.readouterr().out)["faults_per_run_mean"] <= 8
    assert main(["run", "--schedule", "single", "--agent", "oracle", "--json"]) == 0
    card = json.loads(capsys.readouterr().out)["scorecard"]
    assert card["n_faults"] == 1 and card["marathon_score"] == 100.0


@pytest.mark.parametrize(
    ("spec", "why"),
    [("weekend", "unknown schedule profile 'weekend'"), ("{oops", "Expecting property name")],
)
def test_bad_schedule_profile_is_a_usage_error(capsys, spec, why):
    with pytest.raises(SystemExit) as e:
        main(["schedule", "--schedule", spec])
    assert e.value.code == 2 and why in capsys.readouterr().err


def test_run_takes_an_evaluation_key_file(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("SRE_GYM_EVALUATION_KEY", raising=False)
    key = tmp_path / "key"
    key.write_text("leaderboard-secret\n")
    args = ["run", "--schedule", "single", "--agent", "oracle", "--json", "-v"]
    assert main([*args, "--evaluation-key-file", str(key)]) == 0
    cap = capsys.readouterr()
    out = json.loads(cap.out)
    assert out["evaluation"] is True and out["scorecard"]["n_faults"] == 1
    assert "score " not in cap.err  # no running score in evaluation mode
    assert "leaderboard-secret" not in cap.out + cap.err
    (tmp_path / "empty").write_text(" \n")
    with pytest.raises(SystemExit, match="is empty"):
        main([*args, "--evaluation-key-file", str(tmp_path / "empty")])
    with pytest.raises(SystemExit, match="cannot read"):
        main([*args, "--evaluation-key-file", str(tmp_path / "missing")])
