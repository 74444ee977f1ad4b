"""A seed's draws: the telemetry streams drawn an invocation at a time are the full simulator's."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from sre_gym.catalogs import RELEASE
from sre_gym.rng import Streams
from sre_gym.twin.episode import GEN, WINDOW, pack, telemetry_draws, unpack
from sre_gym.twin.layout import layout


def test_pack_and_unpack_keep_a_stream_going():
    g = Streams(RELEASE, "online-boutique", 3).gen("telemetry-noise")
    g.standard_normal(5)
    v = pack(g.bit_generator)
    assert v.shape == (GEN,) and v.dtype == np.uint64
    assert np.array_equal(unpack(v).standard_normal(7), g.standard_normal(7))


def test_windows_give_the_whole_runs_draws_then_repeat_the_last_tick():
    lay = layout("online-boutique")
    n, m, cap = lay.n, lay.M, 21  # a short run: two windows and a part
    st = [Streams(RELEASE, lay.app, seed) for seed in (4, 9)]
    want_noise = [s.gen("telemetry-noise").standard_normal((cap, 2 * n)) for s in st]
    want_unif = [s.gen("telemetry-rounding").random((cap, 3 * n + m)) for s in st]
    ep = SimpleNamespace(
        noise=np.zeros((2, WINDOW, 2 * n)),
        unif=np.zeros((2, WINDOW, 3 * n + m)),
        win0=np.full(2, -WINDOW),
        n_draw=np.full(2, cap),
        gen_noise=np.stack([pack(s.gen("telemetry-noise").bit_generator) for s in st]),
        gen_unif=np.stack([pack(s.gen("telemetry-rounding").bit_generator) for s in st]),
    )
    for k in range(cap + 2 * WINDOW):
        tick = np.array([k, k])
        noise, unif = telemetry_draws(lay, ep, tick)
        kk = min(k, cap - 1)
        for i in range(2):
            assert np.array_equal(noise[i], want_noise[i][kk])
            assert np.array_equal(unif[i], want_unif[i][kk])
