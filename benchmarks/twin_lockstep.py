"""How long the twin and the full simulator stay in lockstep with no agent.

For each (app, seed) both engines simulate the same no-action run tick by tick (the twin evaluating
its alert rules every 30 s, as the engine does) and this prints the first tick at which a
telemetry counter (requests, errors, calls per edge) differs, or that none did, with the largest
relative difference of the dynamics' per-tick outputs (served, errors, latency, the entry's
traffic; shares near 0 compared absolutely) seen until then. ``tests/twin/test_conformance.py``
asserts the first 160 ticks of seed 11 on every app; this runs longer samples.

``--ceiling`` runs acting episodes instead: ``discrete_ceiling.py``'s ceiling chooser plays each
seed on the full env (numeric stack, whole marathon), and the twin replays its actions; this
prints the first invocation at which the twin's observation, mask or reward (beyond 1e-9, the
rounding of difference 1 in ``docs/twin.md``) differs, or that the whole episode agreed. With
``--random`` the full env plays uniformly over its masked actions instead (one generator per seed),
which reaches far more of the remedies' paths.

Run: python benchmarks/twin_lockstep.py [--apps A,B] [--seeds 3,5,7,11] [--ticks 400]
     python benchmarks/twin_lockstep.py --ceiling [--random] [--apps A,B] [--seeds 2000-2049]
"""

from __future__ import annotations

import argparse

import numpy as np
from realism import seeds_of

from sre_gym.backends.sim import SimBackend
from sre_gym.clock import EPOCH
from sre_gym.twin import alerts, alloc, engine
from sre_gym.twin.rules import compile_pack
from sre_gym.twin.vector_env import make_params


def lockstep(app: str, seed: int, ticks: int) -> tuple[int | None, float]:
    """(first tick whose counters differ or None, worst relative output difference before it)."""
    prm = make_params(app)  # the full env's defaults: marathon schedule, production noise
    z = alloc.sizes(prm, cols=len(compile_pack(prm.layout).col_rule))
    s = engine.fill_rows(prm, z, np.array([seed]))
    cl = SimBackend(app, seed).cluster
    worst = 0.0
    for k in range(ticks):
        out = engine.tick(prm, s)
        if k % 2 == 0:
            alerts.evaluate(prm, s, np.array([0]))
        cl.advance_to(EPOCH + k * 15)
        m = cl.metrics
        for ref, got in ((m.c_ok, s.tel.c_ok), (m.c_err, s.tel.c_err), (m.c_edge, s.tel.c_edge)):
            if not np.array_equal(ref, got[0]):
                return k, worst
        for ref, got in (
            (cl.rec_served[k], out.served[0]),
            (cl.rec_err[k], out.err[0]),
            (cl.rec_lat[k], out.lat[0]),
            (cl.rec_entry[k], s.tel.entry[0, k]),
        ):
            worst = max(worst, float((np.abs(ref - got) / np.maximum(np.abs(ref), 1.0)).max()))
    return None, worst


def acting(app: str, seed: int, random: bool = False) -> tuple[int | None, int, str]:
    """(first invocation that differs or None, invocations played, what differed)."""
    import gymnasium as gym
    from discrete_ceiling import Ceiling

    from sre_gym.twin import features
    from sre_gym.wrappers import DiscreteRemedies, NumericObservation

    prm = make_params(app)  # the full env's defaults: marathon schedule, production noise
    z = alloc.sizes(prm, cols=len(compile_pack(prm.layout).col_rule))
    env = DiscreteRemedies(NumericObservation(gym.make("SREMarathon-v0", app=app)))
    chooser = Ceiling(env)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    drawn = engine.plans(prm, np.array([seed]))
    s = engine.reset(prm, z, np.array([seed]), drawn=drawn)
    base = engine.reset_base(prm, z, np.array([seed]), drawn=drawn)
    k, done = 0, False
    try:
        while not done:
            if not np.array_equal(features.observe(prm, s)[0], obs):
                return k, k, "observation"
            if not np.array_equal(features.action_mask(prm, s)[0], info["action_mask"]):
                return k, k, "mask"
            a = (
                int(rng.choice(np.flatnonzero(info["action_mask"])))
                if random
                else chooser(obs, info)
            )
            obs, r, term, trunc, info = env.step(a)
            s, r_twin, _ = engine.step(prm, s, np.array([a]), base)
            if abs(r_twin[0] - r) > 1e-9:
                return k, k, "reward"
            done, k = term or trunc, k + 1
    finally:
        env.close()
    return None, k, ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--apps", default="online-boutique,train-ticket,astronomy-shop")
    ap.add_argument("--seeds", default="3,5,7,11")
    ap.add_argument("--ticks", type=int, default=400)
    ap.add_argument("--ceiling", action="store_true", help="acting episodes (module docstring)")
    ap.add_argument("--random", action="store_true", help="with --ceiling: random masked actions")
    a = ap.parse_args()
    if a.ceiling:
        for app in a.apps.split(","):
            agreed = 0
            seeds = seeds_of(a.seeds)
            for seed in seeds:
                k, n, what = acting(app, seed, a.random)
                agreed += k is None
                where = f"all {n} invocations agree" if k is None else f"{what} at invocation {k}"
                print(f"{app:16s} {seed:5d}  {where}", flush=True)
            print(f"{app}: {agreed} of {len(seeds)} episodes agree throughout", flush=True)
        return
    print(f"{'app':16s} {'seed':>5s}  first differing counter tick   worst output difference")
    for app in a.apps.split(","):
        for seed in seeds_of(a.seeds):
            k, worst = lockstep(app, seed, a.ticks)
            where = f"none in {a.ticks}" if k is None else f"tick {k}"
            print(f"{app:16s} {seed:5d}  {where:30s} {worst:.1e}", flush=True)


if __name__ == "__main__":
    main()
