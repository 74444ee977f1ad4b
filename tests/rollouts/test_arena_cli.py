"""The arena's CLI: rollout and qualify with --suite arena, and offline re-grading."""

from __future__ import annotations

import json

from sre_gym.cli import main


def test_rollout_prints_the_leaderboard(capsys):
    assert (
        main(
            [
                "rollout",
                "--suite",
                "arena",
                "--tasks",
                "arena-010",
                "--agent",
                "oracle,noop",
                "--seeds",
                "0-1",
                "-q",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "pass" in out and "oracle" in out and "planted" in out


def test_qualify_exit_code_and_json(capsys):
    assert (
        main(["qualify", "--suite", "arena", "--tasks", "arena-017", "--seeds", "0", "--json"]) == 0
    )
    res = json.loads(capsys.readouterr().out)
    assert res[0]["task"] == "arena-017" and res[0]["qualified"]


def test_regrade_a_bundle(tmp_path, capsys):
    assert (
        main(
            [
                "rollout",
                "--suite",
                "arena",
                "--tasks",
                "arena-006",
                "--agent",
                "oracle",
                "--seeds",
                "0",
                "--bundle-dir",
                str(tmp_path),
                "--json",
            ]
        )
        == 0
    )
    rec = json.loads(capsys.readouterr().out.splitlines()[0])
    assert main(["arena", "regrade", rec["bundle"]]) == 0
    assert json.loads(capsys.readouterr().out)["matches_online"] is True
