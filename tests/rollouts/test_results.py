"""Results: flat rows, the DataFrame, JSONL and Parquet stores (torn lines, resume keys)."""

from __future__ import annotations

import json

import pytest

from sre_gym.rollouts.results import (
    JsonlStore,
    RolloutResults,
    flatten,
    load_results,
    open_store,
    record_key,
    row,
)


def rec(agent="keep", seed=0, score=50.0, app="online-boutique"):
    return {
        "agent": agent,
        "app": app,
        "seed": seed,
        "release": "r1",
        "scorecard": {
            "marathon_score": score,
            "net_score": score / 2,
            "mttd_s": None,
            "outcomes": {"handled": 3, "missed": 1},
            "degradation": {"share": 0.5, "ratio": None},
        },
        "return": score,
        "bundle": None,
    }


def test_flatten_and_row():
    assert flatten({"a": 1, "b": {"c": 2, "d": {"e": 3}}}) == {"a": 1, "b.c": 2, "b.d.e": 3}
    r = row(rec(seed=4))
    assert list(r)[:4] == ["agent", "app", "seed", "schedule"]
    assert r["outcomes.handled"] == 3 and r["degradation.ratio"] is None
    # records written before schedule profiles existed are marathons
    assert record_key(rec(seed=4)) == ("r1", "keep", "online-boutique", 4, "marathon", False)
    assert record_key({**rec(seed=4), "schedule": "short"})[4] == "short"
    assert record_key({**rec(seed=4), "evaluation": True})[5] is True


def test_to_pandas_has_one_row_per_app_and_seed_and_every_scorecard_key():
    res = RolloutResults([rec(seed=s, score=10.0 * s) for s in range(3)])
    df = res.to_pandas()
    assert len(df) == 3
    assert list(df.columns[:4]) == ["agent", "app", "seed", "schedule"]
    assert {"marathon_score", "mttd_s", "outcomes.handled", "outcomes.missed"} <= set(df.columns)
    assert {"degradation.share", "degradation.ratio"} <= set(df.columns)
    assert df["marathon_score"].tolist() == [0.0, 10.0, 20.0]
    assert res.summary("marathon_score") == {"episodes": 3, "mean": 10.0, "min": 0.0, "max": 20.0}
    assert res.scores("marathon_score") == {("online-boutique", s): 10.0 * s for s in range(3)}
    assert res.summary() == {"episodes": 3, "mean": 5.0, "min": 0.0, "max": 10.0}
    assert res.scores() == {("online-boutique", s): 5.0 * s for s in range(3)}


def test_jsonl_store_ignores_a_torn_last_line_and_appends_after_it(tmp_path):
    p = tmp_path / "r.jsonl"
    store = JsonlStore(p)
    store.append(rec(seed=0))
    with open(p, "a") as f:
        f.write('{"agent": "keep", "app": "online-bou')  # a crash mid-write
    assert [r["seed"] for r in store.load()] == [0]
    store.append(rec(seed=1))
    assert [r["seed"] for r in store.load()] == [0, 1]
    lines = p.read_text().splitlines()
    assert json.loads(lines[-1])["seed"] == 1 and len(lines) == 3
    assert JsonlStore(tmp_path / "missing.jsonl").load() == []


def test_parquet_store_round_trips(tmp_path):
    pytest.importorskip("pyarrow")
    import pandas as pd

    p = tmp_path / "r.parquet"
    store = open_store(p)
    store.append(rec(seed=0))
    store.append(rec(seed=1, score=7.5))
    assert open_store(p).load() == [rec(seed=0), rec(seed=1, score=7.5)]
    df = pd.read_parquet(p)
    assert df["marathon_score"].tolist() == [50.0, 7.5] and "outcomes.handled" in df.columns


def test_load_results_keeps_the_last_record_of_a_key(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    JsonlStore(a).append(rec(seed=0, score=1.0))
    JsonlStore(b).append(rec(seed=0, score=2.0))
    JsonlStore(b).append(rec(agent="runbook", seed=0))
    res = load_results([a, b])
    assert sorted((r["agent"], r["scorecard"]["marathon_score"]) for r in res) == [
        ("keep", 2.0),
        ("runbook", 50.0),
    ]
    assert len(load_results(a)) == 1
