"""The leaderboard (the paper's Table 2) from rollout results, and `sre-gym leaderboard`."""

from __future__ import annotations

import csv
import io
import json

import pytest

from sre_gym.cli import main
from sre_gym.scoring.leaderboard import COLUMNS, leaderboard, load_results, normalize_row


def card(
    score, net=None, corr=0.5, loc=0.2, rep=0.1, risk=0.1, ratio=0.9, mttd=240.0, calls=100, usd=1.0
):
    return {
        "net_score": score / 2 if net is None else net,
        "marathon_score": score,
        "correlation": corr,
        "localization": loc,
        "repair": rep,
        "intervention_risk": risk,
        "degradation": {"share": 0.3, "ratio": ratio},
        "mttd_s": mttd,
        "mttl_s": None,
        "mttr_s": None,
        "cost": {"tool_calls": calls, "dollars": usd},
        "outcomes": {"handled": 1, "missed": 2},
    }


def rows():
    return [
        {"agent": "a", "app": "ob", "seed": 0, "scorecard": card(10.0, 5.0, mttd=120.0)},
        {"agent": "a", "app": "ob", "seed": 1, "scorecard": card(20.0, -5.0, mttd=None)},
        {"agent": "a", "app": "tt", "seed": 0, "scorecard": card(40.0, 0.0, ratio=None, usd=3.0)},
        {"agent": "b", "app": "ob", "seed": 0, "scorecard": card(30.0, risk=0.0, calls=10)},
        {"agent": "b", "app": "tt", "seed": 0, "scorecard": card(20.0, risk=0.0, calls=10)},
    ]


def test_one_row_per_method_averaged_over_seeds_then_apps():
    board = leaderboard(rows())
    by = {r["method"]: r for r in board.rows}
    # best net_score first, although a has the better Marathon-Score
    assert [r["method"] for r in board.rows] == ["b", "a"]
    assert by["a"]["net_score"] == pytest.approx(0.0) and by["b"]["net_score"] == 12.5
    # a: ob mean (10 + 20) / 2 = 15, tt 40 -> (15 + 40) / 2 = 27.5 (apps weigh the same)
    assert by["a"]["marathon_score"] == pytest.approx(27.5)
    assert by["b"]["marathon_score"] == pytest.approx(25.0)
    assert by["a"]["runs"] == 3 and by["a"]["apps"] == ["ob", "tt"]
    # nulls are left out: MTTD of a is ob: 120 (the seed without one is skipped), tt: 240
    assert by["a"]["mttd_s"] == pytest.approx(180.0)
    assert by["a"]["degradation_ratio"] == pytest.approx(0.9)  # tt had no ratio
    assert by["a"]["mttl_s"] is None  # no run reached localization timing
    assert by["a"]["dollars"] == pytest.approx((1.0 + 3.0) / 2)


def test_best_value_per_column_respects_its_direction():
    board = leaderboard(rows())
    assert board.best["marathon_score"] == {"a"} and board.best["net_score"] == {"b"}
    assert board.best["intervention_risk"] == {"b"}  # lower is better
    assert board.best["tool_calls"] == {"b"}
    assert board.best["correlation"] == {"a", "b"}  # ties are all marked
    assert "mttl_s" not in board.best  # nobody has a value
    directions = {c.key: c.better for c in COLUMNS}
    assert directions["marathon_score"] == directions["net_score"] == "higher"
    assert directions["repair"] == "higher"
    assert {directions[k] for k in ("mttd_s", "mttr_s", "degradation_ratio", "dollars")} == {
        "lower"
    }


def test_flat_and_nested_rows_give_the_same_table():
    nested = rows()
    flat = []
    for r in nested:
        c = r["scorecard"]
        flat.append(
            {
                "method": r["agent"],
                "app": r["app"],
                "seed": r["seed"],
                **{k: v for k, v in c.items() if not isinstance(v, dict)},
                "degradation_ratio": c["degradation"]["ratio"],
                "cost.tool_calls": c["cost"]["tool_calls"],
                "dollars": c["cost"]["dollars"],
                "outcomes.handled": 1,
            }
        )
    assert leaderboard(flat).rows == leaderboard(nested).rows
    n = normalize_row(nested[0])
    assert n["degradation.ratio"] == 0.9 and n["cost.tool_calls"] == 100
    assert n["outcomes.handled"] == 1 and n["agent"] == "a"


def test_reads_rollout_records_and_dataframes():
    from sre_gym.rollouts.results import RolloutResults

    res = RolloutResults(records=[{**r, "release": "x", "return": 0.0} for r in rows()])
    assert leaderboard(res).rows == leaderboard(rows()).rows
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([normalize_row(r) for r in rows()])  # NaN where a value is missing
    assert leaderboard(df).rows == leaderboard(rows()).rows
    assert list(leaderboard(rows()).to_pandas().index) == ["b", "a"]


def test_the_paper_ranking_is_a_choice():
    board = leaderboard(rows(), rank_by="marathon_score")
    assert [r["method"] for r in board.rows] == ["a", "b"]
    assert board.to_text().rstrip().endswith("ranked by marathon_score")
    with pytest.raises(ValueError, match="rank_by"):
        leaderboard(rows(), rank_by="dollars")


def test_cli_ranks_by_the_reward_it_is_given(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    assert main(["leaderboard", str(results)]) == 0
    assert [ln.split()[0] for ln in capsys.readouterr().out.splitlines()[2:4]] == ["b", "a"]
    assert main(["leaderboard", str(results), "--reward", "paper"]) == 0
    assert [ln.split()[0] for ln in capsys.readouterr().out.splitlines()[2:4]] == ["a", "b"]


def test_rows_from_before_net_score_rank_after_those_with_it():
    old = [{"agent": "old", "app": "ob", "seed": 0, "scorecard": card(90.0)}]
    del old[0]["scorecard"]["net_score"]
    board = leaderboard(rows() + old)
    assert [r["method"] for r in board.rows] == ["b", "a", "old"]
    assert board.rows[-1]["net_score"] is None and board.best["marathon_score"] == {"old"}


def test_failed_rows_are_dropped_and_bad_lines_reported(tmp_path):
    assert load_results([{"agent": "x", "app": "ob", "error": "boom"}]) == []
    with pytest.raises(ValueError, match="no results"):
        leaderboard([])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"agent": "a"}\nnot json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2"):
        load_results(bad)


def test_renderings_mark_the_best(tmp_path):
    board = leaderboard(rows())
    md = board.to_markdown()
    assert md.splitlines()[0].startswith("| Method | Runs | net_score ↑ | Marathon-Score ↑")
    assert "| a | 3 | 0.0 | **27.5** |" in md and "| b | 2 | **12.5** | 25.0 |" in md
    text = board.to_text()
    assert "27.5*" in text and "25.0 " in text and "12.5*" in text
    out = tmp_path / "t.csv"
    board.to_csv(out)
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert table[1]["method"] == "a" and float(table[1]["marathon_score"]) == 27.5
    assert table[1]["mttl_s"] == ""  # undefined stays empty
    assert "marathon_score" in table[1]["best_in"].split(";")
    assert {"net_score", "intervention_risk"} <= set(table[0]["best_in"].split(";"))


def test_cli_prints_and_writes_markdown_and_csv(tmp_path, capsys):
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in rows()))
    md, out_csv = tmp_path / "board.md", tmp_path / "board.csv"
    assert main(["leaderboard", str(results), "--md", str(md), "--csv", str(out_csv)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split()[:4] == ["Method", "Runs", "net_score", "Marathon-Score"]
    assert "27.5*" in printed
    assert md.read_text() == leaderboard(rows()).to_markdown()
    assert out_csv.read_text() == leaderboard(rows()).to_csv()
    assert main(["leaderboard", str(tmp_path / "missing.jsonl")]) == 2


def test_real_runs_rank_the_baselines(episode):
    results = [
        {
            "agent": a,
            "app": "online-boutique",
            "seed": 0,
            "scorecard": episode(a, 0)["info"]["scorecard"],
        }
        for a in ("noop", "runbook", "oracle")
    ]
    board = leaderboard(results)
    print(board.to_text())
    nets = {r["method"]: r["net_score"] for r in board.rows}
    assert [r["method"] for r in board.rows] == sorted(nets, key=lambda m: -nets[m])
    assert board.rows[0]["method"] == "oracle" and nets["noop"] == 0.0
    assert board.best["marathon_score"] == {"oracle"} and board.best["repair"] == {"oracle"}
    noop = next(r for r in board.rows if r["method"] == "noop")
    assert noop["mttd_s"] is None  # noop never detects anything
