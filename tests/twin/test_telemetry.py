"""The rings' clearing: ``record`` clears a ring column only for series rows written since it was
last used, and that must leave every ring as clearing the whole column would."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401  (registers SREMarathonTwin-v0)
from sre_gym.twin import telemetry
from sre_gym.twin.series import WI, WL, WP


def _play(app: str, steps: int) -> dict[str, np.ndarray]:
    env = gym.make_vec("SREMarathonTwin-v0", num_envs=3, app=app, counterfactual=False)
    _, info = env.reset(seed=[41, 42, 43])
    rng = np.random.default_rng(0)
    for _ in range(steps):
        m = info["action_mask"]
        _, _, _, _, info = env.step((rng.random(m.shape) * m).argmax(axis=1))
    tel = env.unwrapped.state.tel if hasattr(env, "unwrapped") else env.state.tel
    return {k: v.copy() for k, v in tel.arrays().items()}


def test_clearing_only_written_rows_leaves_the_rings_as_clearing_every_row(monkeypatch):
    app, steps = "online-boutique", 12  # random restarts and rollbacks: pods come and go
    mine = _play(app, steps)
    record = telemetry.record

    def clear_all(prm, s, out, t, tick):
        clock = int(s.ep.clock[0])
        s.tel.long[:, :, clock % WL] = np.nan
        s.tel.pod[:, :, clock % WP] = np.nan
        s.tel.inst[:, :, clock % WI] = np.nan
        return record(prm, s, out, t, tick)

    monkeypatch.setattr(telemetry, "record", clear_all)
    ref = _play(app, steps)
    assert mine.keys() == ref.keys()
    for k in mine:
        assert np.array_equal(mine[k], ref[k], equal_nan=mine[k].dtype.kind == "f"), k
    # the episodes wrote pod series in more series rows than they hold pods at the end
    assert (~np.isnan(mine["pod"])).any(axis=2).sum() > 0
