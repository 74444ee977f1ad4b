"""Persistence challenges run in forks of the twin's episodes, as the full simulator runs them.

A policy that repairs (``benchmarks/twin_fidelity.py``'s ceiling, which reads the hidden fault
records on both engines) plays the same seeds on both; every challenge (time, fault), the outcome
of every one whose fork ran, and both final scores agree, relapses included. Running a fork only
once the score can read it gives the scores of running every fork at once. With ``persistence``
off every challenge holds.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import gymnasium as gym
import numpy as np
import pytest

import sre_gym  # noqa: F401
from sre_gym.twin import alloc, engine, features
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.vector_env import make_params
from sre_gym.wrappers import DiscreteRemedies, NumericObservation

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def fid():
    sys.path.insert(0, str(BENCH))  # (the ceiling's own helpers)
    spec = importlib.util.spec_from_file_location("twin_fidelity", BENCH / "twin_fidelity.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def full_challenges(fid, app: str, seed: int) -> tuple[list, tuple]:
    env = DiscreteRemedies(NumericObservation(gym.make("SREMarathon-v0", app=app)))
    chooser = fid.Ceiling(env)
    obs, info = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, term, trunc, info = env.step(chooser(obs, info))
        done = term or trunc
    ev = env.unwrapped.evidence
    card = fid.score(ev)
    got = sorted(
        (float(e["t"]), int(e["index"]), e["outcome"] == "held")
        for e in ev.events
        if e["type"] == "challenge"
    )
    env.close()
    return got, (card["marathon_score"], card["net_score"])


def twin_challenges(fid, app: str, seeds: list[int], persistence: bool = True, eager: bool = True):
    n = len(seeds)
    vec = gym.make_vec("SREMarathonTwin-v0", num_envs=n, app=app, persistence=persistence)
    if eager:
        vec.held = None  # every fork runs (the default runs those the score can read)
    lay = vec.params.layout
    shims = [
        SimpleNamespace(services=lay.topo.names, nodes=tuple(lay.nodes), base=None)
        for _ in range(n)
    ]
    choosers = [fid.TwinCeiling(vec, i, shims[i]) for i in range(n)]
    obs, info = vec.reset(seed=list(seeds))
    out: list = [None] * n
    done = np.zeros(n, dtype=bool)
    while not done.all():
        acts = np.array(
            [0 if done[i] else choosers[i](obs[i], info["action_mask"][i]) for i in range(n)]
        )
        obs, _, term, trunc, info = vec.step(acts)
        fs = vec.state.faults
        for i in np.flatnonzero((term | trunc) & ~done):  # before the autoreset
            ch = sorted(
                (float(fs.ch_t[i, f, c]), f, int(fs.ch_held[i, f, c]))
                for f in range(int(fs.n[i]))
                for c in range(int(fs.ch_n[i, f]))
            )
            out[i] = (ch, tuple(float(x) for x in vec.state.agent.score[i]))
        done |= term | trunc
    vec.close()
    return out


def test_challenges_and_their_relapses_match_the_full_simulator(fid):
    seeds = [2000, 2001]
    twin = twin_challenges(fid, "online-boutique", seeds)
    relapses = run = 0
    for seed, (ch, scores) in zip(seeds, twin, strict=True):
        want, want_scores = full_challenges(fid, "online-boutique", seed)
        assert ch == [(t, f, int(held)) for t, f, held in want]
        assert scores == want_scores
        relapses += sum(held == 0 for _, _, held in ch)
        # run only where the score can read them, the forks give the same scores
        ((lazy, lazy_scores),) = twin_challenges(fid, "online-boutique", [seed], eager=False)
        assert [(t, f) for t, f, _ in lazy] == [(t, f) for t, f, _ in ch]
        assert all(got in (-1, held) for (_, _, got), (_, _, held) in zip(lazy, ch, strict=True))
        assert lazy_scores == scores
        run += sum(got >= 0 for _, _, got in lazy)
    assert relapses >= 2  # the sample has repairs that do not last
    assert run >= 10


def test_forks_run_only_when_read_give_the_same_scores():
    """The vector env runs a fork only once the score can read its outcome; the engine's eager
    mode runs every fork at once: the same rewards and scores, step by step."""
    app, seeds = "online-boutique", np.array([2000, 2001, 2002])
    prm = make_params(app)
    z = alloc.sizes(prm, len(compile_pack(prm.layout).col_rule))
    drawn = engine.plans(prm, seeds)
    runs = []
    for held in (None, []):
        s = engine.reset(prm, z, seeds, drawn=drawn)
        base = engine.reset_base(prm, z, seeds, drawn=drawn)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(prm.schedule.invocations):
            m = features.action_mask(prm, s)
            a = (rng.random(m.shape) * m).argmax(axis=1)
            s, r, _ = engine.step(prm, s, a, base, held)
            out.append((r.copy(), s.agent.score.copy()))
        runs.append((out, s.faults.ch_held.copy()))
    (eager, ch_eager), (lazy, ch_lazy) = runs
    for (r0, s0), (r1, s1) in zip(eager, lazy, strict=True):
        assert np.array_equal(r0, r1) and np.array_equal(s0, s1)
    ran = ch_lazy >= 0
    assert np.array_equal(ch_lazy[ran], ch_eager[ran])
    assert (ch_eager >= 0).sum() > ran.sum() >= 1  # fewer forks, and some


def test_without_persistence_every_challenge_holds(fid):
    ((ch, _),) = twin_challenges(fid, "online-boutique", [2000], persistence=False)
    assert len(ch) >= 10
    assert all(held == 1 for _, _, held in ch)
