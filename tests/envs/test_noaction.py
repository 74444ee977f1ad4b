"""The no-action counterfactual and its caches (sre_gym/envs/noaction.py)."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

from sre_gym.bundle import read_bundle
from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.envs import noaction as N
from sre_gym.envs.marathon import SREMarathonEnv
from sre_gym.orchestrator.schedule import schedule as sched_of
from sre_gym.scoring import score_bundle

APP = "online-boutique"


@pytest.fixture
def runs():
    """Three short schedules (the single-fault profile): cheap no-action runs."""
    return {s: sched_of(APP, s, RELEASE, "single") for s in (0, 1, 2)}


@pytest.fixture
def fresh(monkeypatch):
    """An empty in-process cache, so that each call below reaches the disk or simulates."""
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())
    monkeypatch.delenv(N.CACHE_DIR_ENV, raising=False)


def _no_simulation(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("simulated a run the cache holds")

    monkeypatch.setattr(N, "SimBackend", refuse)


def test_no_action_counterfactual_is_the_same_schedule():
    fault = load_catalog(APP).faults[0].id
    env = SREMarathonEnv()
    env.reset(seed=0, options={"faults": [fault]})
    while env.invocation < env.n_invocations:
        env.step([])
    own = env.evidence.arrays["entry"]
    custom = N.noaction_entry(RELEASE, APP, 0, env.backend.schedule)
    assert np.array_equal(custom, own)
    assert not np.array_equal(N.noaction_entry(RELEASE, APP, 0), own)


def test_the_no_action_cache_is_bounded_and_keeps_the_recently_used(monkeypatch, fresh, runs):
    monkeypatch.setattr(N, "NOACTION_CACHE_SIZE", 2)
    first = N.noaction_entry(RELEASE, APP, 0, runs[0])
    N.noaction_entry(RELEASE, APP, 1, runs[1])
    assert N.noaction_entry(RELEASE, APP, 0, runs[0]) is first  # a hit, now the newest
    N.noaction_entry(RELEASE, APP, 2, runs[2])
    assert len(N._NOACTION_CACHE) == 2
    assert [k[2] for k in N._NOACTION_CACHE] == [0, 2]  # seed 1 was the least recently used


def test_a_run_on_disk_serves_another_process_bit_for_bit(monkeypatch, tmp_path, fresh, runs):
    monkeypatch.setenv(N.CACHE_DIR_ENV, str(tmp_path))
    made = N.noaction_entry(RELEASE, APP, 0, runs[0])
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1 and not list(tmp_path.glob(".tmp-*"))
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())  # as a new process would start
    _no_simulation(monkeypatch)
    read = N.noaction_entry(RELEASE, APP, 0, runs[0])
    assert read.dtype == made.dtype and np.array_equal(read, made, equal_nan=True)


def test_the_disk_key_holds_the_run_and_the_code(monkeypatch, tmp_path, fresh, runs):
    monkeypatch.setenv(N.CACHE_DIR_ENV, str(tmp_path))
    N.noaction_entry(RELEASE, APP, 0, runs[0])
    N.noaction_entry(RELEASE, APP, 1, runs[1])
    assert len(list(tmp_path.glob("*.npy"))) == 2  # another seed, another entry
    # an edited simulator (another code digest) never reads what the old one wrote
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())
    monkeypatch.setattr(N, "code_digest", lambda: "0" * 64)
    N.noaction_entry(RELEASE, APP, 0, runs[0])
    assert len(list(tmp_path.glob("*.npy"))) == 3


def test_the_code_digest_covers_sources_and_catalogs(monkeypatch, tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "catalogs").mkdir(parents=True)
    (pkg / "sim.py").write_text("x = 1\n")
    (pkg / "catalogs" / "app.yaml").write_text("a: 1\n")
    monkeypatch.setattr(N, "_PACKAGE", pkg)
    digest = N.code_digest.__wrapped__
    before = digest()
    (pkg / "catalogs" / "app.yaml").write_text("a: 2\n")
    after_yaml = digest()
    (pkg / "sim.py").write_text("x = 2\n")
    assert len({before, after_yaml, digest()}) == 3
    (pkg / "notes.txt").write_text("not code")
    assert digest() == digest()


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"not an npy file"),
        lambda p: p.write_bytes(p.read_bytes()[:60]),  # cut short
        lambda p: np.save(p, np.zeros(5)),  # readable, but not a run
    ],
    ids=["garbage", "truncated", "wrong-shape"],
)
def test_a_damaged_entry_is_reported_and_simulated_again(
    monkeypatch, tmp_path, fresh, runs, damage
):
    monkeypatch.setenv(N.CACHE_DIR_ENV, str(tmp_path))
    made = N.noaction_entry(RELEASE, APP, 0, runs[0])
    (path,) = tmp_path.glob("*.npy")
    damage(path)
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())
    with pytest.warns(RuntimeWarning, match=f"{path.name}.*simulating the run again"):
        again = N.noaction_entry(RELEASE, APP, 0, runs[0])
    assert np.array_equal(again, made, equal_nan=True)
    # the entry was written anew: the next process reads it
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())
    _no_simulation(monkeypatch)
    assert np.array_equal(N.noaction_entry(RELEASE, APP, 0, runs[0]), made, equal_nan=True)


def test_the_disk_cache_is_bounded_and_drops_the_oldest(monkeypatch, tmp_path, fresh, runs):
    import os

    monkeypatch.setenv(N.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(N, "NOACTION_DISK_MAX", 2)
    names = []
    for s in (0, 1, 2):
        N.noaction_entry(RELEASE, APP, s, runs[s])
        new = {p.name for p in tmp_path.glob("*.npy")} - set(names)
        names += sorted(new)
        for i, name in enumerate(names):  # mtimes a second apart, in the order written
            if (tmp_path / name).exists():
                os.utime(tmp_path / name, ns=(i * 10**9, i * 10**9))
    assert sorted(p.name for p in tmp_path.glob("*.npy")) == sorted(names[1:])


def test_an_unwritable_cache_directory_loses_nothing(monkeypatch, tmp_path, fresh, runs):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(N.CACHE_DIR_ENV, str(blocker / "cache"))  # a directory inside a file
    with pytest.warns(RuntimeWarning, match="cannot write the no-action cache entry"):
        arr = N.noaction_entry(RELEASE, APP, 0, runs[0])
    monkeypatch.delenv(N.CACHE_DIR_ENV)
    monkeypatch.setattr(N, "_NOACTION_CACHE", OrderedDict())
    assert np.array_equal(arr, N.noaction_entry(RELEASE, APP, 0, runs[0]), equal_nan=True)


def _oracle_run(tmp_path, **kwargs):
    from sre_gym.agents import make_agent

    env = SREMarathonEnv(schedule="short", bundle_dir=str(tmp_path), **kwargs)
    ag = make_agent("oracle", env=env)
    obs, info = env.reset(seed=3)
    stream = []
    while True:
        obs, r, term, _, info = env.step(ag(obs, info))
        stream.append((obs["alerts"], obs["tool_results"], r))
        if term:
            return stream, info


def test_training_without_the_counterfactual_changes_only_the_degradation_terms(
    monkeypatch, tmp_path, fresh
):
    full_stream, full = _oracle_run(tmp_path / "full")
    assert full["scorecard"]["degradation"]["ratio"] is not None  # the oracle intervened
    # the oracle makes users better off than doing nothing: net_score charges it no harm
    assert full["scorecard"]["net"]["costs"]["degradation"] == 0.0

    def refuse(*a, **k):
        raise AssertionError("simulated the no-action run")

    monkeypatch.setattr("sre_gym.envs.marathon.noaction_entry", refuse)
    lean_stream, lean = _oracle_run(tmp_path / "lean", counterfactual=False)
    assert lean_stream == full_stream  # the same observations and rewards, step by step
    card, want = lean["scorecard"], dict(full["scorecard"])
    want["degradation"] = {
        k: v for k, v in want["degradation"].items() if k != "noaction_degraded_requests"
    } | {"ratio": None}
    # without a no-action run the degradation cost is not known, and not charged
    want["net"] = {**want["net"], "costs": {**want["net"]["costs"], "degradation": None}}
    assert card == want
    assert score_bundle(lean["bundle"]) == card  # re-scored offline the same
    assert read_bundle(lean["bundle"]).manifest["env"]["counterfactual"] is False


def test_an_evaluated_run_cannot_skip_the_counterfactual():
    with pytest.raises(ValueError, match="counterfactual=False is for training"):
        SREMarathonEnv(evaluation_key="k", counterfactual=False)
