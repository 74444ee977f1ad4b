"""What a reset draws per episode, from the same pure functions the full simulator calls.

``plan_rows`` runs, for each seed, ``orchestrator.schedule.schedule``, ``sim.faults.noise.plan``,
``orchestrator.open_world.plan`` and the cluster's counter-based noise streams
(``SimCluster.__init__``: telemetry noise, rounding uniforms, load noise and phase), and lays the
schedule out as one event table per episode in the order the full simulator's scheduled actions run
(``SimCluster.at``: by time, then registration order: injector faults and deploys, benign noise,
the open world). This is per-episode Python, run once per reset.

Differs from the full simulator: nothing (the same draws, the same order); an evaluation key is not
supported (the twin is for training).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sre_gym.catalogs import load_catalog
from sre_gym.clock import EPOCH, TICK_S
from sre_gym.orchestrator import open_world
from sre_gym.orchestrator.faults import policy_name
from sre_gym.orchestrator.schedule import Schedule, schedule
from sre_gym.rng import Streams
from sre_gym.sim.cluster import WARMUP_S
from sre_gym.sim.faults import noise as noise_mod
from sre_gym.twin.layout import Layout
from sre_gym.twin.tables import Tables

# event kinds
EV_INJECT, EV_REVERT, EV_DEPLOY, EV_NZ_START, EV_NZ_STOP, EV_OW_START, EV_OW_STOP = range(7)
NZ_KINDS = noise_mod.KINDS
OW_KINDS = open_world.KINDS


@dataclass
class RowPlan:
    """One episode's draws (arrays of the Episode and Faults records, unpadded)."""

    seed: int
    sched: Schedule
    noise: np.ndarray  # [GEN] the telemetry-noise stream's start state (``pack``)
    unif: np.ndarray  # [GEN] the telemetry-rounding stream's
    load_noise: np.ndarray
    load_phase: float
    events: list[tuple[int, int, int, int, float, float]]  # (tick, kind, a, b, x, y), in order
    faults: list[tuple[int, float, float]]  # (catalog fault, start, end) absolute
    nz: list[tuple[int, int, float, list[int]]]  # (kind, target, amount, spared deployments)
    ow: list[tuple[int, int, float, int, int, float]]  # (kind, target, amount, key, value, timeout)
    pol_name: list[int]  # per policy slot: its NetworkPolicy's name, as its rank among the slots'


def tick_of(t: float) -> int:
    """The tick a scheduled action at ``t`` runs before (the first tick at or after ``t``)."""
    return int(np.ceil((t - EPOCH) / TICK_S - 1e-9))


def plan_row(lay: Layout, tab: Tables, seed: int, release: str, prof, noise_prof) -> RowPlan:
    """The draws of the episode with run seed ``seed`` (its world seed: no evaluation key)."""
    app = lay.app
    sched = schedule(app, seed, release, prof)
    cap = (WARMUP_S + sched.duration_s) // TICK_S + 1
    st = Streams(release, app, seed)
    tel = pack(st.gen("telemetry-noise").bit_generator)
    unif = pack(st.gen("telemetry-rounding").bit_generator)
    load_noise = st.gen("load-noise").standard_normal(cap)
    load_phase = float(st.gen("load-phase").random() * 2 * np.pi)
    t_ep = float(EPOCH + WARMUP_S)
    fidx = tab.faults.index
    cidx = tab.changes.index
    # (time, registration order, event): SimCluster.at keeps its actions sorted by both
    acts: list[tuple[float, int, tuple]] = []

    def at(t: float, ev: tuple) -> None:
        acts.append((float(t), len(acts), ev))

    faults = []
    for sf in sched.faults:
        faults.append((fidx[sf.fault_id], t_ep + sf.start, t_ep + sf.end))
        at(t_ep + sf.start, (EV_INJECT, sf.index, 0, 0.0, 0.0))
        at(t_ep + sf.end, (EV_REVERT, sf.index, 0, 0.0, 0.0))
    for i, d in enumerate(sched.deploys):
        at(t_ep + d.time, (EV_DEPLOY, cidx[d.change_id], i, 0.0, 0.0))
    prm = noise_mod.PARAMS.get(app, noise_mod.NoiseParams())
    if noise_prof.load_noise != 1.0:
        prm = replace(prm, per_hour=prm.per_hour * noise_prof.load_noise)
    nz = []
    for ev in noise_mod.plan(sched, release, prm) if not noise_mod.noise_is_off() else ():
        if ev.kind == "noisy_neighbour":
            target = lay.nodes.index(ev.target)
            spared = [lay.dep_index[s] for s in ev.spared if s in lay.dep_index]
        else:
            target, spared = lay.dep_index[ev.target], []
        nz.append((NZ_KINDS.index(ev.kind), target, float(ev.amount), spared))
        for k, (a, b) in enumerate(ev.phases):
            at(t_ep + a, (EV_NZ_START, ev.index, k, 0.0, 0.0))
            at(t_ep + b, (EV_NZ_STOP, ev.index, k, 0.0, 0.0))
    ow = []
    keys, codes = tab.env.key_of, tab.env.code_of
    for a in open_world.plan(sched, noise_prof, release):
        d = dict(a.detail)
        kind = OW_KINDS.index(a.kind)
        key = value = -1
        timeout = 0.0
        if a.kind == "third_party":
            target = lay.topo.index[a.target]
            timeout = float(d["timeout_ms"])
        elif a.kind == "node_flap":
            target = lay.nodes.index(a.target)
        elif a.kind == "surge":
            target = -1
        else:
            target = lay.dep_index[a.target]
            if a.kind == "manual_edit":
                key, value = keys[d["key"]], codes[d["value"]]
        ow.append((kind, target, float(a.amount), key, value, timeout))
        at(t_ep + a.start, (EV_OW_START, a.index, 0, 0.0, 0.0))
        if a.end <= sched.duration_s:
            at(t_ep + a.end, (EV_OW_STOP, a.index, 0, 0.0, 0.0))
    acts.sort(key=lambda x: (x[0], x[1]))
    events = [(tick_of(t), *ev) for t, _, ev in acts]
    names = _pol_names(tab, sched)
    return RowPlan(seed, sched, tel, unif, load_noise, load_phase, events, faults, nz, ow, names)


def _pol_names(tab: Tables, sched: Schedule) -> list[int]:
    """Each policy slot's NetworkPolicy name (``policy_name``: it depends on the seed, and two
    partitions of one service may share it) as its rank among the slots' names: equal names get
    equal numbers, and numbers sort as the names do."""
    ft = tab.faults
    cat = load_catalog(sched.app, include_quarantined=True).faults
    slots = np.nonzero(ft.policy >= 0)[0]
    names = [""] * ft.admit.shape[0]
    for i in slots.tolist():
        names[int(ft.policy[i])] = policy_name(cat[i], sched.seed)
    order = sorted(set(names))
    return [order.index(n) for n in names]


# the telemetry noise and rounding uniforms are drawn an invocation at a time, each episode's
# stream going on from where it stopped (the same numbers as ``SimCluster``'s draws of the whole
# run at once: both streams fill their arrays in order), so an episode holds 8 ticks of them
WINDOW = 8
GEN = 13  # a Philox state as uint64: key 2, counter 4, buffer 4, buffer_pos, has_uint32, uinteger


def pack(bg: np.random.Philox) -> np.ndarray:
    """[GEN] uint64: the bit generator's state."""
    st = bg.state
    return np.concatenate(
        [
            st["state"]["key"],
            st["state"]["counter"],
            st["buffer"],
            np.array([st["buffer_pos"], st["has_uint32"], st["uinteger"]], dtype=np.uint64),
        ]
    )


def unpack(v: np.ndarray) -> np.random.Generator:
    """A generator in the state ``pack`` gave."""
    bg = np.random.Philox(key=v[0:2].copy())
    bg.state = {
        "bit_generator": "Philox",
        "state": {"counter": v[2:6].copy(), "key": v[0:2].copy()},
        "buffer": v[6:10].copy(),
        "buffer_pos": int(v[10]),
        "has_uint32": int(v[11]),
        "uinteger": int(v[12]),
    }
    return np.random.Generator(bg)


def telemetry_draws(lay: Layout, ep, tick: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each episode's telemetry noise [E, 2n] and rounding uniforms [E, 3n + M] for ``tick``
    [E] (``SimCluster._noise`` / ``_unif``; past the run's last tick, the last tick's again). A
    row whose window does not hold ``tick`` draws the next ``WINDOW`` ticks first (ticks are
    recorded one after another, so its streams stand at ``tick``)."""
    n, m = lay.n, lay.M
    off = tick - ep.win0
    for i in np.nonzero((off < 0) | (off >= WINDOW))[0].tolist():
        k, cap = int(tick[i]), int(ep.n_draw[i])
        new = max(0, min(WINDOW, cap - k))
        if new:
            gn, gu = unpack(ep.gen_noise[i]), unpack(ep.gen_unif[i])
            ep.noise[i, :new] = gn.standard_normal((new, 2 * n))
            ep.unif[i, :new] = gu.random((new, 3 * n + m))
            ep.gen_noise[i], ep.gen_unif[i] = pack(gn.bit_generator), pack(gu.bit_generator)
            ep.noise[i, new:], ep.unif[i, new:] = ep.noise[i, new - 1], ep.unif[i, new - 1]
        else:  # (the row's last drawn tick stays in its window, repeated)
            last = min(WINDOW - 1, cap - 1 - int(ep.win0[i]))
            ep.noise[i, :], ep.unif[i, :] = ep.noise[i, last], ep.unif[i, last]
        ep.win0[i] = k
    er = np.arange(len(tick))
    off = tick - ep.win0
    return ep.noise[er, off], ep.unif[er, off]


def app_background_error(noise_prof) -> float:
    """The open world's client-error share (``OpenWorld.__init__`` sets it on the cluster)."""
    return float(noise_prof.background_error)


def fault_count_bound(lay: Layout, prof) -> int:
    """The most faults a schedule of ``prof`` can hold (the fault axis ``F``)."""
    from sre_gym.clock import INJECT_S
    from sre_gym.orchestrator.schedule import PARAMS

    if prof.n_faults is not None:
        return max(1, int(prof.n_faults[1]))
    prm = PARAMS[lay.app]
    return max(1, round(prm.n_max * prof.injection_s / INJECT_S))


def catalog_faults(lay: Layout) -> list:
    return load_catalog(lay.app, include_quarantined=True).faults
