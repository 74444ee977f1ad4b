"""Allocating a batch: the capacities of every axis, blank records, and the catalog's start state.

``sizes`` fixes each axis from the layout, the schedule profile and the compiled rule pack;
``blank`` allocates a batch of ``E`` episodes filled with each field's empty value; ``start`` is
the cluster as ``SimCluster.__init__`` leaves it (revision 1 of every deployment, its pods created
and placed two days before the run), the same for every seed, built once and copied per reset.

Differs from the full simulator: the alert log, incidents, interventions and histories have fixed
capacities (an overflow is an error naming the capacity).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.sim.cluster import INITIAL_AGE_S, WARMUP_S
from sre_gym.twin import controller
from sre_gym.twin.episode import GEN, WINDOW, fault_count_bound
from sre_gym.twin.series import WI, WL, WP, series_index
from sre_gym.twin.state import (
    Agent,
    Alerts,
    Changes,
    Deps,
    Episode,
    Faults,
    Pods,
    Telemetry,
    TwinParams,
    TwinState,
    World,
)
from sre_gym.twin.tables import ENV_CODE, tables

EMPTY = -(10**9)  # a slot never used: its last series is long gone
# builds a node remembers having pulled per deployment (the full simulator forgets none; a
# deployment rarely has more builds in an episode, and a forgotten one is pulled again)
NODE_IMAGES = 16
# alert log capacity per app (fired alerts in a marathon: Online Boutique about 600, Train Ticket
# about 3,000), and the wrappers' histories
ALERTS = {"online-boutique": 2048, "train-ticket": 6144, "astronomy-shop": 3072}
# revisions kept per deployment: a marathon's deploys, restarts and rollbacks (the full simulator
# keeps every one; measured with no agent, seeds 0-2: at most 50 on Online Boutique, 15 on Train
# Ticket, 24 on Astronomy Shop), with room for an agent's own; the oldest goes first when full
REVISIONS = {"online-boutique": 96, "train-ticket": 48, "astronomy-shop": 64}


@dataclass(frozen=True)
class Sizes:
    T: int  # ticks of an episode
    F: int  # faults
    EV: int  # scheduled events
    NZ: int  # benign noise events
    NA: int  # open-world anomalies
    A: int  # alerts fired
    COLS: int  # alert columns
    I: int  # incidents  # noqa: E741
    X: int  # interventions
    R: int  # revisions kept per deployment
    L: int  # change records kept per service
    AL: int  # artifact aliases per fault
    KE: int  # env keys
    KC: int  # env keys a change sets


def sizes(prm: TwinParams, cols: int) -> Sizes:
    lay = prm.layout
    tab = tables(lay)
    prof = prm.schedule
    return Sizes(
        # an episode's ticks, and one invocation past its end (a finished row a batch steps once
        # more before resetting it)
        T=(WARMUP_S + prof.duration_s) // TICK_S + 1 + 8,
        F=fault_count_bound(lay, prof),
        EV=4096,
        NZ=256,
        NA=256,
        A=ALERTS.get(lay.app, 4096) * max(1, prof.duration_s // 5400),
        COLS=cols,
        I=256,
        X=1024,
        R=REVISIONS.get(lay.app, 64),
        L=REVISIONS.get(lay.app, 64),
        AL=16,
        KE=len(tab.env.keys),
        KC=tab.changes.env_key.shape[1],
    )


def blank(prm: TwinParams, z: Sizes, E: int, lean: bool = False) -> TwinState:
    """A batch of ``E`` empty episodes (every field at its empty value). ``lean``: for runs of
    the world alone (``engine.reset_base``), without the telemetry rings and per-tick draws, the
    alert columns and log, or room for incidents and interventions."""
    lay = prm.layout
    tab = tables(lay)
    si = series_index(lay)
    if lean:
        z = replace(z, A=1, COLS=1, I=1, X=1)
    ring_rows = (0, 0, 0) if lean else si.n_rows
    TN = 1 if lean else WINDOW  # the per-tick telemetry draws held
    D, C, n, M, K = lay.D, lay.C, lay.n, lay.M, lay.K
    nd = len(tab.defects.change)
    nfl = len(tab.flags.names)
    npol = tab.faults.admit.shape[0]
    H = len(lay.hpa_dep)
    Q = len(lay.queue_names)

    def f(*shape, v=0.0):
        return np.full((E, *shape), v, dtype=np.float64)

    def i(*shape, v=0):
        return np.full((E, *shape), v, dtype=np.int64)

    def b(*shape, v=False):
        return np.full((E, *shape), v, dtype=bool)

    pods = Pods(
        alive=b(D, C),
        ready=b(D, C),
        state=np.zeros((E, D, C), dtype=np.int8),
        rev=i(D, C),
        seq=i(D, C),
        inc=i(D, C),
        srow=i(D, C),
        node=i(D, C, v=-1),
        created=f(D, C),
        start_at=f(D, C),
        pulled_s=f(D, C),
        started=f(D, C, v=np.nan),
        backoff_until=f(D, C),
        last_term_at=f(D, C),
        deleted_at=f(D, C, v=np.nan),
        mem=f(D, C),
        cpu_total=f(D, C),
        periods=f(D, C),
        throttled=f(D, C),
        hog=f(D, C),
        delay=f(D, C),
        balloon=f(D, C),
        restarts=i(D, C),
        crashes=i(D, C),
        last_term=i(D, C),
        pulls=i(D, C),
        b_defect=i(D, C, v=nd),
        b_image_ok=b(D, C, v=True),
        b_probe_ok=b(D, C, v=True),
        b_cpu=f(D, C),
        b_mem=f(D, C),
        b_lat=f(D, C),
        b_addr_bad=i(D, C),
        noise_ev=i(D, C, v=-1),
        noise_amt=f(D, C),
        noise_field=np.zeros((E, D, C), dtype=np.int8),
    )
    deps = Deps(
        replicas=i(D),
        generation=i(D, v=1),
        dirty=b(D, v=True),
        pend=b(D),
        pend_t=f(D),
        n_rev=i(D, v=1),
        rv_num=i(D, z.R),
        rv_created=f(D, z.R),
        rv_img=i(D, z.R),
        rv_defect=i(D, z.R, v=nd),
        rv_img_ok=b(D, z.R, v=True),
        rv_env=np.zeros((E, D, z.R, z.KE), dtype=ENV_CODE),
        rv_cpu=f(D, z.R),
        rv_mem=f(D, z.R),
        rv_port=i(D, z.R, v=-1),
        rv_restart=i(D, z.R),
        git_env=np.zeros((E, D, z.KE), dtype=ENV_CODE),
        carried=i(D, 4, v=-1),
        patched=b(D, 4),
        sel_on=b(D, 3),
        sel_amt=f(D, 3),
        builds=i(),
    )
    wld = World(
        node_ready=b(K, v=True),
        node_down=f(K, v=np.inf),
        node_static=b(K, tab.n_static),
        node_images=np.full((E, K, D, NODE_IMAGES), -1, dtype=np.int32),
        load_factor=f(v=1.0),
        outside_err=f(n),
        outside_lat=f(n),
        prev_attempts=f(M, v=1.0),
        flag_var=np.broadcast_to(tab.flags.default, (E, nfl)).copy(),
        fx_err=f(n),
        fx_lat=f(n),
        fx_hog=f(n),
        fx_publish=f(n),
        fx_consume=f(n),
        fx_broken=b(M),
        fx_leak=f(D),
        fx_not_ready=b(D),
        pol_on=b(npol),
        pol_created=f(npol),
        pol_name=i(npol),
        blocked=np.broadcast_to(tab.base_blocked, (E, M)).copy(),
        lag=f(Q),
        hpa_t=f(H, 21, v=np.nan),
        hpa_want=i(H, 21),
    )
    tel = Telemetry(
        c_ok=f(n),
        c_err=f(n),
        c_bucket=f(n, 12),
        c_edge=f(M),
        c_edge_fail=f(M),
        c_integrity=f(n),
        c_route=f(lay.R, 2),
        long=f(ring_rows[0], WL, v=np.nan),
        pod=f(ring_rows[1], WP, v=np.nan),
        inst=f(ring_rows[2], WI, v=np.nan),
        sr_last=i(D, lay.SR, v=EMPTY),
        sr_overflow=i(),
        w_k=i(),
        w_served=f(4, n),
        w_errs=f(4, n),
        w_lat=f(4, n),
        w_bad=f(4, n),
        w_att=f(4, M),
        w_tfail=f(4, M),
        entry=f(z.T, 3),
    )
    alerts = Alerts(
        st=np.zeros((E, z.COLS), dtype=np.int8),
        active_at=f(z.COLS),
        log_of=i(z.COLS, v=-1),
        n=i(),
        col=i(z.A, v=-1),
        fired=f(z.A, v=np.inf),
        resolved=f(z.A, v=np.inf),
        ent=i(z.A, 2, v=-1),
    )
    flt = Faults(
        n=i(),
        cat=i(z.F, v=-1),
        start=f(z.F, v=np.inf),
        end=f(z.F, v=np.inf),
        injected=b(z.F),
        reverted=b(z.F),
        affected=b(z.F, lay.U),
        alias=i(z.F, z.AL),
        nodes=b(z.F, K),
        probe_deps=b(z.F, D),
        pods=i(z.F, C, v=-1),
        amount=f(z.F),
        commit=i(z.F, v=-1),
        rev=i(z.F, v=-1),
        before_img=i(z.F),
        before_defect=i(z.F, v=nd),
        before_ok=b(z.F, v=True),
        before_env=np.zeros((E, z.F, z.KE), dtype=ENV_CODE),
        before_cpu=f(z.F),
        before_mem=f(z.F),
        before_port=i(z.F, v=-1),
        before_git=np.full((E, z.F, z.KC), -1, dtype=ENV_CODE),
        after_img=i(z.F),
        after_cpu=f(z.F),
        after_mem=f(z.F),
        drift_code=np.zeros((E, z.F), dtype=ENV_CODE),
        replicas=i(z.F),
        probe=np.full((E, z.F, z.T), -1, dtype=np.int8),
        artifact=np.full((E, z.F, z.T), -1, dtype=np.int8),
        wt=f(z.F, 4, v=np.nan),
        wroute=b(z.F, 4),
        wk=i(z.F, 4),
        wrec=i(z.F, 4, v=-1),
        ch_n=i(z.F),
        ch_t=f(z.F, 4),
        ch_rec=f(z.F, 4),
        ch_route=b(z.F, 4),
        ch_held=np.full((E, z.F, 4), -1, dtype=np.int8),
    )
    changes = Changes(
        n=i(),
        svc_n=i(D),
        t=f(D, z.L, v=np.inf),
        rev=i(D, z.L, v=-1),
        diff=b(D, z.L),
        rid=i(D, z.L, v=-1),
        cid=i(D, z.L, v=-1),
        undone=b(D, z.L),
        prev=np.full((E, D, z.L, z.KC), -1, dtype=ENV_CODE),
        inv_cid=np.full((E, D, z.L), -1, dtype=np.int16),
        inv_add=b(D, z.L),
        at_end=b(D, z.L),
        base_rid=i(D, v=-1),
        base_drop=b(D, z.L),
        base_env=np.zeros((E, D, z.KE), dtype=ENV_CODE),
        base_car=i(D, 4, v=-1),
        base_pat=b(D, 4),
    )
    agent = Agent(
        inv=i(),
        n_inc=i(),
        i_open=b(z.I),
        i_at=f(z.I),
        i_culprit=i(z.I, v=-1),
        i_art=i(z.I),
        i_located=f(z.I),
        i_named_by=i(z.I, v=-1),
        holders=i(z.A, 4, v=-1),
        incident_of=i(lay.U, v=-1),
        acted=i(n, v=-1),
        n_x=i(),
        x_t=f(z.X),
        x_target=i(z.X, v=-1),
        x_obj=i(z.X),
        x_inc=i(z.X, v=-1),
        unneeded=i(),
        out_of_scope=i(),
        score=f(2),
        n_held=i(z.I),
        k_held=np.zeros((E, z.F, z.I), dtype=np.int32),
        seen=b(z.A),
        n_seen=i(z.F),
    )
    ep = Episode(
        seed=i(),
        t_ep=f(v=float(EPOCH + WARMUP_S)),
        n_inv=i(v=prm.schedule.invocations),
        tick=i(),
        clock=i(),
        noise=f(TN, 2 * n),
        unif=f(TN, 3 * n + M),
        win0=i(v=-WINDOW),
        n_draw=i(),
        gen_noise=np.zeros((E, GEN), dtype=np.uint64),
        gen_unif=np.zeros((E, GEN), dtype=np.uint64),
        load_noise=f(z.T),
        load_phase=f(),
        background_error=f(),
        ev_n=i(),
        ev_ptr=i(),
        ev_tick=i(z.EV, v=np.iinfo(np.int32).max).astype(np.int32),
        ev_kind=i(z.EV).astype(np.int8),
        ev_a=i(z.EV).astype(np.int32),
        ev_b=i(z.EV).astype(np.int32),
        nz_kind=i(z.NZ),
        nz_target=i(z.NZ),
        nz_amount=f(z.NZ),
        nz_spared=b(z.NZ, D),
        ow_kind=i(z.NA),
        ow_target=i(z.NA),
        ow_amount=f(z.NA),
        ow_key=i(z.NA),
        ow_value=np.zeros((E, z.NA), dtype=ENV_CODE),
        ow_timeout=f(z.NA),
        ow_before=i(z.NA),
        seq=i(),
        overflow=i(),
    )
    return TwinState(ep, pods, deps, wld, tel, alerts, flt, changes, agent)


@functools.cache
def _start(prm: TwinParams, z: Sizes, lean: bool) -> TwinState:
    lay = prm.layout
    tab = tables(lay)
    s = blank(prm, z, 1, lean)
    dp = s.deps
    dp.replicas[0] = lay.dep_replicas
    dp.rv_num[0, :, 0] = 1
    dp.rv_created[0, :, 0] = float(EPOCH)
    dp.rv_env[0, :, 0] = tab.env.init
    dp.rv_cpu[0, :, 0] = lay.dep_cpu0
    dp.rv_mem[0, :, 0] = lay.dep_mem0
    dp.rv_port[0, :, 0] = lay.dep_probe_port
    dp.git_env[0] = tab.env.init
    t0 = float(EPOCH - INITIAL_AGE_S)
    # SimCluster.__init__: each deployment reconciled in order (one pass keeps that order)
    controller.reconcile(
        prm, s, np.zeros(lay.D, dtype=np.int64), np.arange(lay.D), np.full(lay.D, t0)
    )
    return s


def start(prm: TwinParams, z: Sizes, E: int, lean: bool = False) -> TwinState:
    """``E`` copies of the catalog's start state (``lean``: see ``blank``)."""
    one = _start(prm, z, lean)
    return one.take(np.zeros(E, dtype=np.int64))
