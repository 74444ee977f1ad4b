"""reset, tick and step: the twin's transitions, composed from the sub-steps of the other modules.

``tick`` is ``SimCluster._step`` plus the injector's tick hook: due events, pod lifecycle, the
controller, traffic, autoscalers and queues, telemetry, fault probes and persistence watches.
``reset`` draws fresh episodes (``episode.py``) into the catalog's start state and runs the
10-minute warm-up with its alert evaluations; ``step`` runs one invocation of every episode: the
agent's calls at their times, eight ticks, the four alert evaluations, the observation, the mask
and the reward. ``step`` never resets: a finished episode steps to itself with reward 0.

Differs from the full simulator: the order of a tick's work is the full simulator's; the agent's
calls run between ticks at the simulated times their durations give (``remedies.py``).
"""

from __future__ import annotations

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.sim.cluster import WARMUP_S
from sre_gym.twin import (
    alerts,
    calls,
    challenges,
    controller,
    dynamics,
    events,
    pods,
    probes,
    remedies,
    score,
    telemetry,
    world,
)
from sre_gym.twin.alloc import Sizes, start
from sre_gym.twin.episode import RowPlan, app_background_error, plan_row
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import tables

WARM_TICKS = (
    WARMUP_S // TICK_S
)  # ticks before the episode starts (the reset runs them and one more)


def time_of(tick: np.ndarray) -> np.ndarray:
    return (EPOCH + tick * TICK_S).astype(float)


def tick(
    prm: TwinParams,
    s: TwinState,
    record: bool = True,
    pending: list[challenges.Pending] | None = None,
    fork: challenges.Fork | None = None,
) -> dynamics.TickOut:
    """Simulate each episode's next tick (``SimCluster._step`` and the injector's hook).

    ``record`` off: the world alone (a no-action run). Persistence challenges started this tick
    are appended to ``pending`` to run later (``run_forks``), else run at once. ``fork``: ``s``
    is a batch of persistence forks (``challenges.start``): its scheduled blips end on time and
    only the probes are recorded."""
    k = s.ep.tick.copy()
    t = time_of(k)
    controller.reconcile_pending(prm, s)  # (the agent's calls since the last tick)
    events.run_due(prm, s, k, t)
    if fork is not None:
        fork.due(s, t)
    pods.lifecycle(prm, s, t)
    controller.reconcile_dirty(prm, s, t)
    rps = dynamics.entry_rps(prm, s, t, k)
    out = dynamics.step(prm, s, t, rps)
    s.world.prev_attempts[:] = out.attempts
    world.hpa_sync(prm, s, t, out)
    world.queues_step(prm, s, out)
    if record:
        telemetry.record(prm, s, out, t, k)
        probes.record_tick(prm, s, out, t, k)
        telemetry.push_window(prm, s, out)
        started = probes.persistence_tick(prm, s, t, k)
        if started is not None:
            if pending is None:
                run_forks(prm, s, [started])
            else:
                pending.append(started)
    elif fork is not None:
        probes.record_tick(prm, s, out, t, k, past_end=True)
        telemetry.push_window(prm, s, out)
    else:
        s.tel.entry[np.arange(s.E), k] = np.stack(
            [out.entry_rps, out.entry_failed, out.entry_slow], axis=1
        )
    s.ep.tick += 1
    s.ep.clock += 1
    return out


def run_forks(prm: TwinParams, s: TwinState, pending: list[challenges.Pending]) -> None:
    """Run the persistence forks of ``pending`` as one batch and record whether each repair held
    (``challenges``): every fork ticks until the last one's window is over."""
    if not pending:
        return
    fork = challenges.start(prm, challenges.gather(pending))
    for _ in range(challenges.ticks_left(fork)):
        tick(prm, fork.state, record=False, fork=fork)
    pd = fork.pending
    s.faults.ch_held[pd.row, pd.fault, pd.slot] = challenges.finish(fork)


def settle_forks(
    prm: TwinParams, s: TwinState, held: list[challenges.Pending], cut: np.ndarray
) -> None:
    """Run the forks in ``held`` whose outcome the score can read now (``challenges.readable``)
    and keep the others for later steps while their fault lasts (after its end no incident can be
    localized to it any more, and the outcome is never read). ``held`` is updated in place."""
    run: list[challenges.Pending] = []
    keep: list[challenges.Pending] = []
    for pd in held:
        now = challenges.readable(prm, s, pd)
        later = ~now & (s.faults.end[pd.row, pd.fault] > cut[pd.row])
        if now.any():
            run.append(challenges.subset(pd, now) if not now.all() else pd)
        if later.any():
            keep.append(challenges.subset(pd, later) if not later.all() else pd)
    run_forks(prm, s, run)
    held[:] = keep


def plans(prm: TwinParams, seeds: np.ndarray) -> list[RowPlan]:
    """Each seed's draws (``episode.plan_row``): a run and its no-action run share them."""
    lay = prm.layout
    tab = tables(lay)
    return [plan_row(lay, tab, int(x), prm.release, prm.schedule, prm.noise) for x in seeds]


def fill_rows(
    prm: TwinParams,
    z: Sizes,
    seeds: np.ndarray,
    clock: int = 0,
    drawn: list | None = None,
    lean: bool = False,
) -> TwinState:
    """Fresh episodes for ``seeds``: the start state with each seed's draws (``drawn``: from
    ``plans``, else made here), before warm-up (``clock``: the batch clock their first tick
    writes at)."""
    E = len(seeds)
    s = start(prm, z, E, lean)
    ep, fs = s.ep, s.faults
    ep.clock[:] = clock
    drawn = plans(prm, seeds) if drawn is None else drawn
    for i, seed in enumerate(seeds.tolist()):
        rp = drawn[i]
        if len(rp.events) > z.EV or len(rp.faults) > z.F or len(rp.nz) > z.NZ or len(rp.ow) > z.NA:
            raise RuntimeError(
                f"episode {seed}: {len(rp.events)} events, {len(rp.faults)} faults, "
                f"{len(rp.nz)} noise events, {len(rp.ow)} anomalies exceed the twin's capacities "
                f"({z.EV}, {z.F}, {z.NZ}, {z.NA})"
            )
        ep.seed[i] = seed
        nt = len(rp.load_noise)  # (the rest, one invocation past the end, repeats the last tick's)
        if not lean:
            ep.gen_noise[i], ep.gen_unif[i], ep.n_draw[i] = rp.noise, rp.unif, nt
        ep.load_noise[i, :nt], ep.load_noise[i, nt:] = rp.load_noise, rp.load_noise[-1]
        ep.load_phase[i] = rp.load_phase
        ep.background_error[i] = app_background_error(prm.noise)
        ep.n_inv[i] = rp.sched.duration_s // 120
        ne = len(rp.events)
        ep.ev_n[i] = ne
        if ne:
            ev = np.array([e[:4] for e in rp.events], dtype=np.int64)
            ep.ev_tick[i, :ne], ep.ev_kind[i, :ne], ep.ev_a[i, :ne], ep.ev_b[i, :ne] = ev.T
        nf = len(rp.faults)
        fs.n[i] = nf
        if nf:
            fa = np.array(rp.faults)
            fs.cat[i, :nf] = fa[:, 0].astype(np.int64)
            fs.start[i, :nf] = fa[:, 1]
            fs.end[i, :nf] = fa[:, 2]
        for j, (kind, target, amount, spared) in enumerate(rp.nz):
            ep.nz_kind[i, j], ep.nz_target[i, j], ep.nz_amount[i, j] = kind, target, amount
            ep.nz_spared[i, j, spared] = True
        s.world.pol_name[i, : len(rp.pol_name)] = rp.pol_name
        for j, (kind, target, amount, key, value, timeout) in enumerate(rp.ow):
            ep.ow_kind[i, j], ep.ow_target[i, j], ep.ow_amount[i, j] = kind, target, amount
            ep.ow_key[i, j], ep.ow_value[i, j], ep.ow_timeout[i, j] = key, value, timeout
    return s


def warm_up(prm: TwinParams, s: TwinState, evaluate=None, record: bool = True) -> None:
    """Simulate ticks 0 .. WARM_TICKS (``advance_to(episode_start)``), evaluating the alert rules
    every 30 s as the engine would (``evaluate(s, ticks)`` with the even ticks passed)."""
    for _ in range(WARM_TICKS + 1):
        tick(prm, s, record)
        if evaluate is not None and (s.ep.tick[0] - 1) % 2 == 0:
            evaluate(s, s.ep.tick - 1)


def reset(
    prm: TwinParams, z: Sizes, seeds: np.ndarray, clock: int = 0, drawn: list | None = None
) -> TwinState:
    """Fresh, warmed-up episodes for ``seeds`` [E] (the batch clock at their first tick:
    ``clock``): the cluster after its 10-minute warm-up with its alert evaluations, at the start
    of invocation 0."""
    s = fill_rows(prm, z, np.asarray(seeds, dtype=np.int64), clock, drawn)
    warm_up(prm, s, lambda st, k: alerts.evaluate(prm, st, np.zeros(1, dtype=np.int64)))
    t = time_of(s.ep.tick - 1)
    score.scores(prm, s, t)
    return s


def reset_base(
    prm: TwinParams, z: Sizes, seeds: np.ndarray, clock: int = 0, drawn: list | None = None
) -> TwinState:
    """The no-action runs of ``seeds`` (net_score's counterfactual): the world alone, with no
    telemetry, probes or alerts (nothing in the world reads them), its entry traffic kept."""
    s = fill_rows(prm, z, np.asarray(seeds, dtype=np.int64), clock, drawn, lean=True)
    warm_up(prm, s, record=False)
    return s


def step(
    prm: TwinParams,
    s: TwinState,
    action: np.ndarray,
    base: TwinState | None = None,
    held: list[challenges.Pending] | None = None,
):
    """One invocation of every episode: the calls of ``action`` [E] at their times, eight ticks,
    the four alert evaluations, then the score. Returns (state, reward [E], done [E]); a row
    already finished is stepped with no action and pays 0 (the vector env resets it). ``base``
    (the no-action runs of the same seeds, ``reset_base``) is stepped alongside, and net_score
    charges the degradation beyond it (else no degradation cost, ``counterfactual=False``).
    The invocation's persistence challenges run in forks before the score: all of them, or with
    ``held`` (the caller's store of challenges not run yet, kept across steps) only those whose
    outcome the score can read (``settle_forks``): the same scores, with fewer forks."""
    done0 = s.agent.inv >= s.ep.n_inv
    action = np.where(done0, 0, np.asarray(action, dtype=np.int64))
    t0 = time_of(s.ep.tick - 1)
    plan, updates = remedies.plan(prm, s, action, t0)
    pending: list[challenges.Pending] = []
    for i in range(8):
        calls.run(prm, s, plan, t0 + TICK_S * (i + 1), t0)
        tick(prm, s, pending=pending)
    remedies.apply_updates(s, updates)
    if held is None:
        run_forks(prm, s, pending)
    else:
        held.extend(pending)
        settle_forks(prm, s, held, time_of(s.ep.tick - 1))
    alerts.evaluate(prm, s, np.array([6, 4, 2, 0]))
    s.agent.inv += ~done0
    before = s.agent.score.copy()
    cut = time_of(s.ep.tick - 1)
    deg = None
    if base is not None:
        for _ in range(8):
            tick(prm, base, record=False)
        deg = score.degradation_cost(prm, s, base, cut)
    now = score.scores(prm, s, cut, deg)
    j = 1 if prm.reward == "net" else 0
    reward = np.where(done0, 0.0, now[:, j] - before[:, j])
    return s, reward, s.agent.inv >= s.ep.n_inv
