"""Row independence: row i of a batch is a batch of one on the same seed and actions, bit for bit.

Each batch plays two one-invocation episodes per sub-env (``max_episode_steps=1``: the first
truncates, the next step resets it, the step after plays the second episode), so the check covers
reset, step, truncation and autoreset. Observations, rewards, flags, masks and the whole state
(every array of every record, NaN where NaN) must match the batch of one.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import sre_gym  # noqa: F401  (registers SREMarathonTwin-v0)

STEPS = 3  # episode 1, the autoreset step, episode 2


def actions_for(n: int, step: int, masks: np.ndarray) -> np.ndarray:
    """Allowed actions that differ from row to row (a counter-based draw, no generator state)."""
    u = np.sin(np.arange(n)[:, None] * 12.9898 + np.arange(masks.shape[1]) * 78.233 + step) * 43758
    return ((u - np.floor(u)) * masks).argmax(axis=1)


def play(n: int, seeds: list[int], acts: list[np.ndarray] | None = None, **kw):
    """Reset with ``seeds`` and take ``STEPS`` steps; the actions are drawn when not given."""
    env = gym.make_vec("SREMarathonTwin-v0", num_envs=n, max_episode_steps=1, **kw)
    obs, info = env.reset(seed=seeds)
    out = {"obs": [obs], "mask": [info["action_mask"]], "r": [], "term": [], "trunc": []}
    taken = []
    for k in range(STEPS):
        a = acts[k] if acts is not None else actions_for(n, k, info["action_mask"])
        taken.append(a)
        obs, r, term, trunc, info = env.step(a)
        for key, v in (("obs", obs), ("mask", info["action_mask"]), ("r", r)):
            out[key].append(v)
        out["term"].append(term)
        out["trunc"].append(trunc)
    out["seed"] = info["seed"]
    return env.unwrapped if hasattr(env, "unwrapped") else env, out, taken


def same_row(big, i: int, one) -> list[str]:
    """Names of the state arrays whose row ``i`` differs from the batch of one's row 0."""
    bad = []
    for name, rec in big.records().items():
        other = one.records()[name].arrays()
        for k, a in rec.arrays().items():
            if not np.array_equal(a[i], other[k][0], equal_nan=a.dtype.kind == "f"):
                bad.append(f"{name}.{k}")
    return bad


def check_rows(n: int, rows: list[int], **kw) -> None:
    seeds = [3000 + 7 * i for i in range(n)]
    env, out, taken = play(n, seeds, **kw)
    assert out["trunc"][0].all() and not out["trunc"][1].any() and out["trunc"][2].all()
    assert (out["r"][1] == 0).all()  # the autoreset step pays nothing
    for i in rows:
        one, ref, _ = play(1, [seeds[i]], [a[i : i + 1] for a in taken], **kw)
        for key in ("obs", "mask", "r", "term", "trunc"):
            for k, (x, y) in enumerate(zip(out[key], ref[key], strict=True)):
                assert np.array_equal(x[i], y[0]), f"row {i} of {n}: {key} at step {k}"
        assert out["seed"][i] == ref["seed"][0]
        assert same_row(env.state, i, one.state) == []
        if env.base is not None:
            assert same_row(env.base, i, one.base) == []


def test_rows_of_three_are_batches_of_one_with_the_no_action_runs():
    check_rows(3, [0, 1, 2], counterfactual=True)


@pytest.mark.parametrize("n", [64, 256])
def test_rows_of_large_batches_are_batches_of_one(n):
    # the no-action runs are checked at N = 3; here the batch engine alone (half the cost)
    check_rows(n, [0, n // 2 + 1, n - 1], counterfactual=False)
