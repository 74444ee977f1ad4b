"""Schema of the Incident-Arena tasks and substrates (pydantic).

A task is a substrate plus a fault overlay plus a grading contract, after Incident-Arena's
ground-truth files (see docs/arena.md). Everything here is data: the simulator reads the substrate
and the fault legs, the grader reads the checks, the agents read the oracle script and adversaries.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SUBSTRATES = ("slack-spine", "saleor-spine", "frappe")
ACCESS = ("confined", "shell-visible", "build-capable")  # the names of tools/policy.py's profiles
# Incident-Arena's 16 check operators (checks.py)
OPS = (
    "equals",
    "not_equals",
    "truthy",
    "falsy",
    "empty",
    "not_empty",
    "gte",
    "lte",
    "gt",
    "lt",
    "contains_all",
    "set_equals",
    "subset_of",
    "all_true",
    "length_gte",
    "length_lte",
)
# the closed list of safe-repair pack names (Incident-Arena's contract.py PACK_NAMES)
PACK_NAMES = (
    "active_restart_challenge",
    "agent_boundary",
    "async_search",
    "concurrent_sequence_challenge",
    "config_survivor",
    "correct_goodput",
    "cursor_consistency",
    "data_survival",
    "db_setting_persistence",
    "deterministic_report_consistency",
    "endpoint_boundary",
    "evidence_integrity",
    "guardrail_functional",
    "intervention_safety",
    "lane_progress",
    "lock_recurrence",
    "maintenance_functional",
    "message_readback_survival",
    "message_restart_challenge",
    "offset_lineage",
    "queue_quarantine",
    "redis_configuration",
    "repair_scope",
    "resource_ceiling",
    "retry_amplification",
    "runtime_persistence",
    "sequence_integrity",
    "sequencer_runtime",
    "service_health",
    "source_attestation",
    "temporal_recurrence",
    "traffic_reconciliation",
    "worker_policy_safety",
)
CHALLENGES = (
    "fixed_restart",
    "database_checkpoint",
    "service_event_recurrence",
    "concurrent_sequence",
)
MECHANISMS = (
    "pool_undersized",
    "admin_event_hold",
    "checkpoint_collision",
    "per_account_conn_cap",
    "redis_maxmemory",
    "redis_min_replicas",
    "redis_acl_deny",
    "role_db_statement_timeout",
    "grant_revoked",
    "db_read_only",
    "sequencer_rmw",
    "idle_txn_lock_leak",
    "runtime_mode_regression",
)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ----------------------------------------------------------------------------------- substrate
class Step(Strict):
    """One hop of a request lane: a DB pool checkout, Redis operations, a DB statement, an enqueue."""

    kind: Literal[
        "pool", "redis", "db_conn", "statement", "enqueue", "job", "seq_write", "seq_read", "search"
    ]
    target: str  # pool service, Redis-using service, DB account, statement name or queue service
    hold_ms: float = 0.0  # time the hop holds its resource in the healthy state
    ops: int = 1  # Redis operations per request (kind redis)
    write: bool = False  # a DB write: stalls during a checkpoint, fails in read-only mode
    privilege: str | None = None  # SQL privilege the hop needs (grants)
    # statement: duration grows with the lane's own rate (row-lock and CPU contention)
    contention_ms_per_rps: float = 0.0


class Lane(Strict):
    driver: str  # the load driver that offers it
    share: float = Field(gt=0, le=1)  # its part of the driver's rate
    base_ms: float = Field(ge=0)  # service time outside the modelled hops
    tail: float = Field(ge=1.0, default=1.6)  # p99 / p50 within one second
    services: list[str] = []  # every service the request passes (down or scaled to zero: it fails)
    steps: list[Step] = []
    # the same requests as another lane, seen later (a job's run after its enqueue): no own draws
    follows: str | None = None


class Rollout(Strict):
    """How an application pod comes up (the Deployment's readiness probe and the app's boot)."""

    boot_s: float = Field(gt=0)  # median seconds from pod creation to a booted process
    boot_sigma: float = Field(ge=0, default=0.25)  # lognormal spread of the boot
    probe_delay_s: float = Field(ge=0, default=10)  # readinessProbe.initialDelaySeconds
    probe_period_s: float = Field(gt=0, default=10)  # readinessProbe.periodSeconds


class MessageSpec(Strict):
    """slack-spine's message store (sim/arena/messages.py)."""

    channels: int = Field(ge=1, default=8)  # hot channels, Zipf-shared
    zipf_s: float = 1.1
    history_rows: int = 2000  # rows per channel before the run
    rmw_window_ms: float = 20.0  # read-to-write gap of a non-atomic sequencer
    lock_wait_s: float = 5.0  # a send blocked on a row lock gives up after this (statement_timeout)
    reseq_rows_per_s: float = 100.0  # rows a resequence renumbers a second, under the lock
    index_events_per_s: float = 120.0  # the search indexer's rate
    search_fresh_s: float = 10.0  # a search read-back fails when the index lags more than this
    app_role: str = "slack_message"
    app_db: str = "slack"


class ColdCache(Strict):
    pool_hold_ms: float = Field(ge=0)  # a miss takes the database path, holding a connection
    ttl_key: str


class WorkerSpec(Strict):
    """The queue's worker processes under the kubelet (sim/arena/workers.py): what a finished job
    keeps in the queue, how a worker reconnects, and how the kubelet restarts a worker that quit."""

    service: str = "worker-long"
    result_ttl_s: float = Field(ge=0, default=0.0)  # a finished job's hash stays this long
    # seconds before the kubelet restarts a container after its 1st, 2nd, ... exit (the last
    # value repeats), and how long a container must run for the back-off to start afresh
    restart_backoff_s: list[float] = [0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0]
    backoff_reset_s: float = Field(gt=0, default=600.0)
    # a lost connection is retried after these seconds, doubling up to the last (RQ's dequeue loop)
    reconnect_s: float = Field(gt=0, default=1.0)
    reconnect_max_s: float = Field(gt=0, default=60.0)


class Pool(Strict):
    size_key: str
    overflow_key: str
    timeout_s: float = Field(gt=0)  # acquisition timeout: a checkout waiting longer fails (503)


class Substrate(Strict):
    id: Literal["slack-spine", "saleor-spine", "frappe"]
    title: str
    services: list[str]
    # protected services: restarting them is a forbidden operation unless a task allows it
    stateful: list[str] = []
    config: dict[str, Any]  # the healthy configuration baseline (config-before.json)
    # keys an operator may touch without consequence (log levels); left out of the repair diff
    harmless: dict[str, Any] = {}
    pools: dict[str, Pool] = {}
    lanes: dict[str, Lane]
    events: list[str] = []  # runtime switches "<service>.<event>" (all off when healthy)
    # what a switch costs when on (a hold per pool checkout or per Redis operation); a fault leg
    # may name a different magnitude for its own switch
    event_costs: dict[str, dict[str, float]] = {}
    # settings a process reads when it starts: a change reaches traffic only as pods restart
    start_keys: list[str] = []
    rollout: Rollout = Rollout(boot_s=12.0)
    # a stateful service's restart: seconds it refuses connections
    store_outage_s: dict[str, float] = {}
    # a cache a pod fills from empty when it starts: service -> the extra hold of a miss on its
    # pool checkout and the setting holding the entries' time to live
    cold_cache: dict[str, ColdCache] = {}
    messages: MessageSpec | None = None
    # settings the admin config API does not show (kept elsewhere, e.g. an app's own table)
    hidden_keys: list[str] = []
    # settings with their own control: key -> where the admin config API points instead
    managed_keys: dict[str, str] = {}
    # what a shell in a service's pod shows: extra files (path -> text) and the process list
    pod_files: dict[str, dict[str, str]] = {}
    pod_processes: dict[str, list[str]] = {}
    redis_op_ms: float = 0.4
    checkpoint_stall_ms_per_rps: float = 0.0  # extra write hold per write/s while a checkpoint runs
    # MariaDB-style per-account connections: persistent connections of the workers
    worker_conns: int = 0
    # queue model (frappe): job size, the idle footprint of the queue Redis, worker throughput
    job_kb: float = 2.0
    queue_idle_mb: float = 1.0
    job_ms: float = 60.0  # one job's run time on a worker process
    worker_procs: int = 0  # worker processes per worker-long replica (RQ runs one job at a time)
    job_deadline_s: float = 60.0  # the load generator's read-back gives up on a job after this
    workers: WorkerSpec | None = None  # the worker processes' lifecycle (None: always running)
    # pooled application sessions (saleor): count, role, database, maximum age
    app_sessions: int = 0
    app_role: str = ""
    app_db: str = ""
    session_max_age_s: float = 600.0  # Django CONN_MAX_AGE: a session is replaced at this age
    scoped_settings: list[str] = []  # PostgreSQL settings that ALTER ROLE ... SET may carry
    sources: list[str] = []  # where the figures come from


# ----------------------------------------------------------------------------------- load
class Event(Strict):
    """A load-generator temporal event: switches a runtime event at a time or after the declaration."""

    name: str  # "<service>.<event>"
    active: bool = True
    at_s: float | None = None  # episode-anchored
    after_declaration_s: float | None = None  # declaration-anchored re-trigger
    params: dict[str, float] = {}  # hidden magnitudes of a mandated (non-fault) event

    @model_validator(mode="after")
    def _one_anchor(self) -> Event:
        if (self.at_s is None) == (self.after_declaration_s is None):
            raise ValueError(f"event {self.name}: give exactly one of at_s, after_declaration_s")
        return self


class Load(Strict):
    profile: str
    seed: int = 0
    warmup_s: int = 30
    warmup_rps: float = 10.0
    peak_s: int = 20
    peak_rps: float = 50.0
    trough_s: int = 40
    trough_rps: float = 10.0
    drivers: dict[str, float] = {"work": 1.0}  # driver -> multiplier of the cycle's rate
    rate_jitter: float = 0.05
    soak_cycles: int = 2
    align_soak_to_cycle: bool = True
    events: list[Event] = []

    @property
    def period_s(self) -> int:
        return self.peak_s + self.trough_s


# ----------------------------------------------------------------------------------- task
class Requirement(Strict):
    id: str
    text: str


class Predicate(Strict):
    eq: Any = None
    ne: Any = None
    min: float | None = None
    max: float | None = None
    one_of: list[Any] | None = None
    absent_ok: bool = False
    also: list[Any] = []  # values accepted besides the bounds (0 = no timeout at all)


class FaultLeg(Strict):
    id: str
    tier: Literal["config", "image", "runtime"]
    mechanism: str
    target: str
    params: dict[str, Any] = {}  # hidden magnitudes (hold_ms, ...)
    arm_at_s: float = 0.0  # 0: before boot (config tier); >0: a runtime arming
    injected: dict[str, Any] = {}  # config key -> injected value (the planted cause)
    event: str | None = None  # runtime event the leg switches on
    golden: dict[str, Predicate] = {}
    component: str = ""  # vocabulary entry (diagnostics only)

    @model_validator(mode="after")
    def _known(self) -> FaultLeg:
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"leg {self.id}: unknown mechanism {self.mechanism!r}")
        return self


class KeyRule(Strict):
    key: str  # exact key or fnmatch glob
    min: float | None = None
    max: float | None = None
    ne: Any = None
    allowed_values: list[Any] | None = None
    also: list[Any] = []  # values accepted besides the bounds


class RepairScope(Strict):
    allowed: list[KeyRule] = []
    ceilings: dict[str, float] = {}
    protected: list[str] = []
    forbidden_ops: list[str] = []
    max_unrelated_mutations: int = 0


class Assertion(Strict):
    op: str
    value: Any = None

    @model_validator(mode="after")
    def _op(self) -> Assertion:
        if self.op not in OPS:
            raise ValueError(f"unknown check operator {self.op!r}")
        return self


class Observe(Strict):
    artifact: str
    pointer: str


class Check(Strict):
    id: str
    requirement_ids: list[str]
    summary: str
    observe: Observe
    assert_: Assertion = Field(alias="assert")

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class Pack(Strict):
    name: str
    checks: list[Check]

    @model_validator(mode="after")
    def _name(self) -> Pack:
        if self.name not in PACK_NAMES:
            raise ValueError(f"unknown safe-repair pack {self.name!r}")
        return self


class Envelope(Strict):
    id: str
    require: list[str]


class SafeRepair(Strict):
    packs: list[Pack]
    require: list[str] = []
    envelopes: list[Envelope] = []


class Challenge(Strict):
    type: str
    target: str = ""  # fixed restart target or re-fired event, from the contract only
    probe_s: int = 30
    post_ready_wait_s: int = 20  # after a restart, wait this long once the target is ready
    require_agent_frozen: Literal[True] = True

    @model_validator(mode="after")
    def _type(self) -> Challenge:
        if self.type not in CHALLENGES:
            raise ValueError(f"unknown challenge type {self.type!r}")
        return self


class Budgets(Strict):
    agent_window_s: int = 3600
    max_tool_calls: int = 200
    declare_deadline_s: int = 3690


class BandPolicy(Strict):
    source: Literal["healthy", "oracle"] = "healthy"
    abs_ms: float = 100.0  # band = golden + max(abs_ms, rel * golden) (Arena's envelope)
    rel: float = 1.0
    error_rate_max: float = 0.02
    goodput_min: float = 0.95
    why: str = ""


class ToolCall(Strict):
    tool: str
    args: dict[str, Any] = {}
    leg: str | None = None  # oracle steps: the fault leg the action repairs


class Adversary(Strict):
    calls: list[ToolCall]
    must: Literal["fail", "pass"] = "fail"
    why: str = ""


class Task(Strict):
    id: str
    title: str
    arena_number: int
    version: int
    substrate: Literal["slack-spine", "saleor-spine", "frappe"]
    instruction: str
    access: Literal["confined", "shell-visible", "build-capable"] = "confined"
    # the agent's session starts here (s into the run): the incident has been running a while
    # and its damage (a backlog) has piled up; default: warm-up end or every leg armed + 10 s
    ready_at_s: int | None = None
    shell: list[str] = []  # services whose pods the shell-visible surface opens
    vocabulary: list[str]
    requirements: list[Requirement]
    faults: list[FaultLeg]
    load: Load
    budgets: Budgets = Budgets()
    scope: RepairScope
    bands: BandPolicy = BandPolicy()
    outcome: list[Check]
    safe_repair: SafeRepair
    challenge: Challenge
    oracle: list[ToolCall]
    adversaries: dict[str, Adversary] = {}
    difficulty: dict[str, Any] = {}
