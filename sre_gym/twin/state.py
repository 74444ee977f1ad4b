"""TwinState and TwinParams: the batch of episodes as records of arrays, and what is fixed for a run.

Every field of every record is a numpy array whose leading axis is the episode ``E``; the comment
beside it gives the rest of its shape, dtype and unit (``D`` deployments, ``C`` slots per
deployment, ``n`` services, ``M`` edges, ``K`` nodes, ``F`` faults of an episode, ``T`` ticks of
an episode, ``W`` ring depth). No field is a list, a dict or an object array, so the records can
later be registered as JAX pytrees unchanged.

Step functions take a state and return one. In numpy they update the arrays of the state they are
given (the state is *donated*, as a JAX ``jit`` with donated buffers would treat it): the rings of
telemetry hold tens of megabytes at N = 64, and copying them every tick would cost more than the
tick. ``TwinState.copy()`` keeps a state to compare with.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sre_gym.scoring.config import ScoringConfig
from sre_gym.twin.layout import Layout


class Record:
    """Helpers shared by the state's records: every field is an array with a leading ``E``."""

    def arrays(self) -> dict[str, np.ndarray]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def copy(self) -> Any:
        return type(self)(**{k: v.copy() for k, v in self.arrays().items()})

    def take(self, rows: np.ndarray) -> Any:
        """The records of ``rows`` (a new batch)."""
        return type(self)(**{k: v[rows] for k, v in self.arrays().items()})

    def put(self, rows: np.ndarray, other: Any) -> None:
        """Overwrite ``rows`` with the rows of ``other`` (in order)."""
        for k, v in self.arrays().items():
            v[rows] = getattr(other, k)


@dataclass
class Pods(Record):
    """Pod slots, ``[E, D, C]`` each (``sim/pods.py:PodTable`` by deployment block)."""

    alive: np.ndarray  # bool: the slot holds a pod (terminating included)
    ready: np.ndarray  # bool
    state: np.ndarray  # int8: PENDING, RUNNING, BACKOFF, IMAGE_WAIT, TERMINATING
    rev: np.ndarray  # int64 revision number the pod was created from
    seq: np.ndarray  # int64 creation order in the episode (the full simulator's row order)
    inc: np.ndarray  # int64 incarnation: pods the slot has held (names a pod in artifacts)
    srow: np.ndarray  # int64 the pod's series row in its deployment's block (series.py)
    node: np.ndarray  # int64 node index, -1 unscheduled
    created: np.ndarray  # float64 s (absolute)
    start_at: np.ndarray  # float64 s
    pulled_s: np.ndarray  # float64 s
    started: np.ndarray  # float64 s, NaN while not running
    backoff_until: np.ndarray  # float64 s
    last_term_at: np.ndarray  # float64 s
    deleted_at: np.ndarray  # float64 s, NaN
    mem: np.ndarray  # float64 MiB working set
    cpu_total: np.ndarray  # float64 core-seconds
    periods: np.ndarray  # float64 CFS periods
    throttled: np.ndarray  # float64 throttled periods
    hog: np.ndarray  # float64 cores burnt by a runaway process
    delay: np.ndarray  # float64 ms netem delay
    balloon: np.ndarray  # float64 MiB filled scratch space
    restarts: np.ndarray  # int64
    crashes: np.ndarray  # int64 exits since the last long run (back-off doubling)
    last_term: np.ndarray  # int64 TERM_NONE, TERM_ERROR, TERM_OOM
    pulls: np.ndarray  # int64 image pull attempts
    # the behaviour of the revision the pod runs (sim/state.py:compile_behaviour)
    b_defect: np.ndarray  # int64 defect id, ND for none
    b_image_ok: np.ndarray  # bool
    b_probe_ok: np.ndarray  # bool
    b_cpu: np.ndarray  # float64 CPU limit, cores
    b_mem: np.ndarray  # float64 memory limit, MiB
    b_lat: np.ndarray  # float64 ms added by the latency variable
    b_addr_bad: np.ndarray  # int64 bitmask over the service's edges (wrong address)
    # benign noise on the pod (sim/faults/noise.py: one disturbance at a time, taken back exactly)
    noise_ev: np.ndarray  # int64 event * 16 + phase, -1 none
    noise_amt: np.ndarray  # float64 amount added
    noise_field: np.ndarray  # int8 0 hog, 1 delay


@dataclass
class Deps(Record):
    """Deployments ``[E, D]`` and their revision histories ``[E, D, R]`` (newest last)."""

    replicas: np.ndarray  # int64 desired replicas
    generation: np.ndarray  # int64
    dirty: np.ndarray  # bool: the controller has work to do
    pend: np.ndarray  # bool: a change asked for a controller pass, run before the next pod update
    pend_t: np.ndarray  # float64 s the change happened (its new pods' creation time)
    n_rev: np.ndarray  # int64 revisions held (<= R)
    rv_num: np.ndarray  # [E, D, R] int64 revision number
    rv_created: np.ndarray  # [E, D, R] float64 s
    rv_img: np.ndarray  # [E, D, R] int64 image id (0 catalog, tags, then builds)
    rv_defect: np.ndarray  # [E, D, R] int64 defect id (ND none)
    rv_img_ok: np.ndarray  # [E, D, R] bool: the registry has the image
    rv_env: np.ndarray  # [E, D, R, KE] int16 value code per env key (0 absent)
    rv_cpu: np.ndarray  # [E, D, R] float64 cores
    rv_mem: np.ndarray  # [E, D, R] float64 MiB
    rv_port: np.ndarray  # [E, D, R] int64 readiness probe port
    rv_restart: np.ndarray  # [E, D, R] int64 restartedAt stamp (s), 0 none
    git_env: np.ndarray  # [E, D, KE] int16 the manifest's env at the repository head
    carried: np.ndarray  # [E, D, 4] int64 defect changes in the head, oldest first (-1)
    patched: np.ndarray  # [E, D, 4] bool an agent's revert took that defect's lines out (fix holds)
    sel_on: np.ndarray  # [E, D, 3] bool selector chaos attached (hog, delay, balloon)
    sel_amt: np.ndarray  # [E, D, 3] float64 its amount
    builds: np.ndarray  # [E] int64 images built so far (ids FIRST_BUILD + k)


@dataclass
class World(Record):
    """Nodes, the world's knobs and the controllers' memories."""

    node_ready: np.ndarray  # [E, K] bool
    node_down: np.ndarray  # [E, K] float64 s since NotReady (inf: ready)
    node_static: np.ndarray  # [E, K, NSI] bool catalog and tag images each node has pulled
    node_images: np.ndarray  # [E, K, D, 16] int32 last builds pulled per deployment (-1)
    load_factor: np.ndarray  # [E] float64 traffic surges multiply it
    outside_err: np.ndarray  # [E, n] float64 third-party error share
    outside_lat: np.ndarray  # [E, n] float64 ms
    prev_attempts: np.ndarray  # [E, M] float64 expected attempts per call last tick
    flag_var: np.ndarray  # [E, NFL] int64 variant chosen per flag
    fx_err: np.ndarray  # [E, n] float64 flag effects (recomputed when flags change)
    fx_lat: np.ndarray  # [E, n]
    fx_hog: np.ndarray  # [E, n]
    fx_publish: np.ndarray  # [E, n]
    fx_consume: np.ndarray  # [E, n]
    fx_broken: np.ndarray  # [E, M] bool
    fx_leak: np.ndarray  # [E, D]
    fx_not_ready: np.ndarray  # [E, D] bool
    pol_on: np.ndarray  # [E, NP] bool egress allow-lists in place
    pol_created: np.ndarray  # [E, NP] float64 s
    pol_name: np.ndarray  # [E, NP] int64 its name (``episode._pol_names``): equal names, equal
    blocked: np.ndarray  # [E, M] bool edges the policies drop
    lag: np.ndarray  # [E, Q] float64 consumer lag
    hpa_t: np.ndarray  # [E, H, 21] float64 recommendation times (NaN empty), oldest first
    hpa_want: np.ndarray  # [E, H, 21] int64 recommendations


@dataclass
class Telemetry(Record):
    """Counters and sample rings (``sim/metrics.py:MetricWriter``'s state and its TSDB)."""

    c_ok: np.ndarray  # [E, n] float64 server spans, status UNSET
    c_err: np.ndarray  # [E, n] float64 status ERROR
    c_bucket: np.ndarray  # [E, n, 12] float64 latency buckets (le ... +Inf)
    c_edge: np.ndarray  # [E, M] float64 service-graph requests
    c_edge_fail: np.ndarray  # [E, M]
    c_integrity: np.ndarray  # [E, n]
    c_route: np.ndarray  # [E, R, 2] float64 entry requests (200, 500), not floored
    long: np.ndarray  # [E, ROWS_L, WL] float64 service, deployment, node series (NaN absent)
    pod: np.ndarray  # [E, ROWS_P, WP] float64 pod series read over ranges
    inst: np.ndarray  # [E, ROWS_I, WI] float64 pod series read at an instant
    sr_last: np.ndarray  # [E, D, SR] int64 last tick each series row had a pod's samples
    sr_overflow: np.ndarray  # [E] int64 pods given a series row still in a rule window
    # the probes' SLI window (sim/faults/probes.py:Window), 4 ticks
    w_k: np.ndarray  # [E] int64 ticks pushed
    w_served: np.ndarray  # [E, 4, n]
    w_errs: np.ndarray  # [E, 4, n]
    w_lat: np.ndarray  # [E, 4, n]
    w_bad: np.ndarray  # [E, 4, n]
    w_att: np.ndarray  # [E, 4, M]
    w_tfail: np.ndarray  # [E, 4, M]
    entry: np.ndarray  # [E, T, 3] float64 entry requests/s, failed share, slow share


@dataclass
class Alerts(Record):
    """The ``for:`` machine per alert column and the log of alerts that fired."""

    st: np.ndarray  # [E, COLS] int8 0 inactive, 1 pending, 2 firing
    active_at: np.ndarray  # [E, COLS] float64 s
    log_of: np.ndarray  # [E, COLS] int64 the firing alert's place in the log (-1)
    n: np.ndarray  # [E] int64 alerts fired
    col: np.ndarray  # [E, A] int64 column of each fired alert
    fired: np.ndarray  # [E, A] float64 s
    resolved: np.ndarray  # [E, A] float64 s (inf while firing)
    ent: np.ndarray  # [E, A, 2] int64 its entities (-1 pad)


@dataclass
class Faults(Record):
    """The episode's scheduled faults ``[E, F]`` as injected, and their per-tick evidence."""

    n: np.ndarray  # [E] int64 scheduled faults
    cat: np.ndarray  # [E, F] int64 catalog fault (-1 pad)
    start: np.ndarray  # [E, F] float64 s absolute, as scheduled
    end: np.ndarray  # [E, F] float64 s
    injected: np.ndarray  # [E, F] bool
    reverted: np.ndarray  # [E, F] bool
    affected: np.ndarray  # [E, F, U] bool scope beyond the culprits (node faults grow it)
    alias: np.ndarray  # [E, F, AL] int64 artifact codes (codes.py), 0 pad
    nodes: np.ndarray  # [E, F, K] bool the machines a node or zone fault took down
    probe_deps: np.ndarray  # [E, F, D] bool workloads a node fault moved
    pods: np.ndarray  # [E, F, C] int64 incarnation of the pods a pod condition hit (-1)
    amount: np.ndarray  # [E, F] float64 the condition's size (selector chaos)
    commit: np.ndarray  # [E, F] int64 change record of a delivery (-1)
    rev: np.ndarray  # [E, F] int64 revision a delivery or drift created
    before_img: np.ndarray  # [E, F] int64 the template before a delivery
    before_defect: np.ndarray  # [E, F] int64
    before_ok: np.ndarray  # [E, F] bool
    before_env: np.ndarray  # [E, F, KE] int16
    before_cpu: np.ndarray  # [E, F] float64
    before_mem: np.ndarray  # [E, F] float64
    before_port: np.ndarray  # [E, F] int64
    before_git: np.ndarray  # [E, F, KC] int16 the manifest's values of the change's keys before
    after_img: np.ndarray  # [E, F] int64 the image a delivery deployed
    after_cpu: np.ndarray  # [E, F] float64
    after_mem: np.ndarray  # [E, F] float64
    drift_code: np.ndarray  # [E, F] int16 value a drift set
    replicas: np.ndarray  # [E, F] int64 replicas before a scale to zero
    probe: np.ndarray  # [E, F, T] int8 1 healthy, 0 failing, -1 not read
    artifact: np.ndarray  # [E, F, T] int8 1 present, 0 gone, -1 not read
    # persistence: watches per fault (intervention time, route, first tick, recovered tick)
    wt: np.ndarray  # [E, F, 4] float64 intervention time (NaN: none)
    wroute: np.ndarray  # [E, F, 4] bool artifact route
    wk: np.ndarray  # [E, F, 4] int64 first tick after the intervention
    wrec: np.ndarray  # [E, F, 4] int64 recovered tick (-1)
    # challenges held: (time, recovered time, route) per fault, at most 4 kept
    ch_n: np.ndarray  # [E, F] int64
    ch_t: np.ndarray  # [E, F, 4] float64
    ch_rec: np.ndarray  # [E, F, 4] float64
    ch_route: np.ndarray  # [E, F, 4] bool artifact route
    ch_held: np.ndarray  # [E, F, 4] int8 1 held, 0 relapsed, -1 its fork has not run (yet)


@dataclass
class Changes(Record):
    """Deploys as ``list_changes`` shows them, per service (the suspects of DiscreteRemedies)."""

    n: np.ndarray  # [E] int64 change records so far (a record's id is its number)
    svc_n: np.ndarray  # [E, D] int64 records per deployment
    t: np.ndarray  # [E, D, L] float64 time of the service's last L records (ring)
    rev: np.ndarray  # [E, D, L] int64 revision it rolled out (-1 none)
    diff: np.ndarray  # [E, D, L] bool it has a source diff
    rid: np.ndarray  # [E, D, L] int64 record id (names the commit in artifacts)
    cid: np.ndarray  # [E, D, L] int64 catalog change it delivered (-1: a patch or a revert)
    undone: np.ndarray  # [E, D, L] bool reverted since (a second revert is an empty diff)
    prev: np.ndarray  # [E, D, L, KC] int16 the manifest's values of that change's env keys before
    inv_cid: np.ndarray  # [E, D, L] int16 an agent's revert: the catalog change it concerns (-1)
    inv_add: np.ndarray  # [E, D, L] bool it puts that change back (a revert of a revert)
    at_end: np.ndarray  # [E, D, L] bool an env-only change whose lines went to the env list's end
    # the head before the last commit built on the base tree (``deploys.on_base``), which a revert
    # of that commit, or of a change it dropped, goes back to (``deploys.restore_base``)
    base_rid: np.ndarray  # [E, D] int64 that commit's record id (-1: none)
    base_drop: np.ndarray  # [E, D, L] bool the records it took out of the head
    base_env: np.ndarray  # [E, D, KE] int16 the manifest's env before it
    base_car: np.ndarray  # [E, D, 4] int64 the carried defects before it
    base_pat: np.ndarray  # [E, D, 4] bool and whether their lines were out


@dataclass
class Agent(Record):
    """The agent's incidents and interventions, and what the discrete wrapper remembers."""

    inv: np.ndarray  # [E] int64 invocations done
    n_inc: np.ndarray  # [E] int64 incidents reported
    i_open: np.ndarray  # [E, I] bool
    i_at: np.ndarray  # [E, I] float64 s reported
    i_culprit: np.ndarray  # [E, I] int64 entity
    i_art: np.ndarray  # [E, I] int64 artifact code
    i_located: np.ndarray  # [E, I] float64 s (culprit, artifact) last set
    i_named_by: np.ndarray  # [E, I] int64 remedy that named the artifact (-1 report)
    holders: np.ndarray  # [E, A, 4] int64 incidents holding each fired alert (-1)
    incident_of: np.ndarray  # [E, U] int64 the wrapper's incident of each entity (-1)
    acted: np.ndarray  # [E, n] int64 invocation of the last intervention on a service (-1)
    n_x: np.ndarray  # [E] int64 interventions
    x_t: np.ndarray  # [E, X] float64 s
    x_target: np.ndarray  # [E, X] int64 entity (-1)
    x_obj: np.ndarray  # [E, X] int64 artifact code of the object it names
    x_inc: np.ndarray  # [E, X] int64 incident cited
    unneeded: np.ndarray  # [E] int64 interventions acting on no active fault
    out_of_scope: np.ndarray  # [E] int64 needed ones their incident does not justify
    score: np.ndarray  # [E, 2] float64 (marathon_score, net_score) as of the last step
    # the scorer's counts, kept as alerts are held and seen (score.py)
    n_held: np.ndarray  # [E, I] int64 alerts each incident holds
    k_held: np.ndarray  # [E, F, I] int64 of those, attributable to each fault
    seen: np.ndarray  # [E, A] bool counted among the alerts the agent could have seen
    n_seen: np.ndarray  # [E, F] int64 attributable alerts seen, per fault


@dataclass
class Episode(Record):
    """What a reset draws for each episode: its seeds, noise streams and event tables."""

    seed: np.ndarray  # [E] int64 run seed
    t_ep: np.ndarray  # [E] float64 s episode start
    n_inv: np.ndarray  # [E] int64 invocations of the episode
    tick: np.ndarray  # [E] int64 next tick to simulate
    clock: np.ndarray  # [E] int64 ticks the batch has simulated (equal in every row): ring columns
    noise: np.ndarray  # [E, W, 2n] float64 telemetry noise of ticks win0.. (SimCluster._noise)
    unif: np.ndarray  # [E, W, 3n+M] float64 rounding uniforms of ticks win0..
    win0: np.ndarray  # [E] int64 first tick of the window (episode.telemetry_draws)
    n_draw: np.ndarray  # [E] int64 ticks the streams cover (later ticks repeat the last)
    gen_noise: np.ndarray  # [E, GEN] uint64 the noise stream's state after the window
    gen_unif: np.ndarray  # [E, GEN] uint64 the uniforms' stream's state
    load_noise: np.ndarray  # [E, T]
    load_phase: np.ndarray  # [E]
    background_error: np.ndarray  # [E] float64
    ev_n: np.ndarray  # [E] int64 events
    ev_ptr: np.ndarray  # [E] int64 next event
    ev_tick: np.ndarray  # [E, EV] int32 tick the event runs before (sorted)
    ev_kind: np.ndarray  # [E, EV] int8
    ev_a: np.ndarray  # [E, EV] int32 arguments
    ev_b: np.ndarray  # [E, EV] int32
    # benign noise (sim/faults/noise.py) and open-world anomalies (orchestrator/open_world.py)
    nz_kind: np.ndarray  # [E, NZ] int64 index in noise.KINDS
    nz_target: np.ndarray  # [E, NZ] int64 deployment (node for a noisy neighbour)
    nz_amount: np.ndarray  # [E, NZ] float64 cores, ms, or share of the limit
    nz_spared: np.ndarray  # [E, NZ, D] bool deployments a noisy neighbour leaves alone
    ow_kind: np.ndarray  # [E, NA] int64 index in open_world.KINDS
    ow_target: np.ndarray  # [E, NA] int64 service, deployment or node
    ow_amount: np.ndarray  # [E, NA] float64 error share or traffic factor
    ow_key: np.ndarray  # [E, NA] int64 env key of a hand edit
    ow_value: np.ndarray  # [E, NA] int16 its value code
    ow_timeout: np.ndarray  # [E, NA] float64 ms a failing third-party call waits
    ow_before: np.ndarray  # [E, NA] int64 value before a hand edit (-1 absent); 1: node was down
    seq: np.ndarray  # [E] int64 pods created so far
    overflow: np.ndarray  # [E] int64 pods that found no free slot (capacity checks)


@dataclass
class TwinState:
    """A batch of episodes (see the module docstring)."""

    ep: Episode
    pods: Pods
    deps: Deps
    world: World
    tel: Telemetry
    alerts: Alerts
    faults: Faults
    changes: Changes
    agent: Agent

    def records(self) -> dict[str, Record]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def copy(self) -> TwinState:
        return TwinState(**{k: r.copy() for k, r in self.records().items()})

    def take(self, rows: np.ndarray) -> TwinState:
        return TwinState(**{k: r.take(rows) for k, r in self.records().items()})

    def put(self, rows: np.ndarray, other: TwinState) -> None:
        for k, r in self.records().items():
            r.put(rows, getattr(other, k))

    @staticmethod
    def concat(states: list[TwinState]) -> TwinState:
        """One batch of the rows of ``states``, in order."""
        first = states[0].records()
        return TwinState(
            **{
                name: type(rec)(
                    **{
                        k: np.concatenate([getattr(getattr(x, name), k) for x in states])
                        for k in rec.arrays()
                    }
                )
                for name, rec in first.items()
            }
        )

    @property
    def E(self) -> int:
        return len(self.ep.seed)


@dataclass(frozen=True, eq=False)
class TwinParams:
    """What is fixed for a vector env's life: the app's layout and the run's knobs (never per row)."""

    layout: Layout
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    reward: str = "net"  # "net" | "paper": which score's increments are paid
    auto_report: bool = False
    schedule: Any = None  # a ScheduleProfile
    noise: Any = None  # a NoiseProfile
    release: str = ""
    counterfactual: bool = False
    persistence: bool = True  # run repair persistence challenges (else every challenge holds)
