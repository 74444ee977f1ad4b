"""The benchmark release as data: pydantic models for apps, faults, changes and tools.

Catalog YAML files are validated against these models when loaded; a typo in a catalog is a load
error that names the file and the field, never a silent default.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_QTY = re.compile(r"^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$")


def parse_cpu(q: str) -> float:
    """Kubernetes CPU quantity ("100m", "0.5", "2") in cores."""
    m = _QTY.match(str(q))
    if not m or m.group(2) not in (None, "m"):
        raise ValueError(f"bad CPU quantity {q!r} (expected e.g. '200m' or '0.5')")
    v = float(m.group(1))
    return v / 1000 if m.group(2) == "m" else v


def parse_mem(q: str) -> float:
    """Kubernetes memory quantity ("64Mi", "1Gi", "512Ki") in MiB."""
    m = _QTY.match(str(q))
    if not m or m.group(2) not in ("Ki", "Mi", "Gi"):
        raise ValueError(f"bad memory quantity {q!r} (expected e.g. '128Mi')")
    v = float(m.group(1))
    return {"Ki": v / 1024, "Mi": v, "Gi": v * 1024}[m.group(2)]


# workloads outside the request path: the load generator, infrastructure (flagd) and side workloads
# (kind batch: batch jobs, exporters, a trace store) that run in the namespace but serve no user
# request
NOT_SERVING = ("loadgen", "infra", "batch")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    def __deepcopy__(self, memo: dict | None = None) -> Strict:
        # catalog values are frozen and shared by every run of the process: a copy of the world
        # (a persistence fork) refers to them instead of copying them
        return self


class Resources(Strict):
    cpu_request: str
    mem_request: str
    cpu_limit: str
    mem_limit: str

    @field_validator("cpu_request", "cpu_limit")
    @classmethod
    def _cpu(cls, v: str) -> str:
        parse_cpu(v)
        return v

    @field_validator("mem_request", "mem_limit")
    @classmethod
    def _mem(cls, v: str) -> str:
        parse_mem(v)
        return v


class Perf(Strict):
    """Simulation parameters of one service (not Kubernetes facts; calibrated, documented per app)."""

    base_ms: float = Field(gt=0, description="own processing time per request (median), ms")
    cpu_ms_per_req: float = Field(gt=0, description="CPU time per request, ms")
    mem_base_mi: float = Field(gt=0, description="steady working set, MiB")
    sigma: float = Field(default=0.45, gt=0, description="log-normal latency spread")


class Probe(Strict):
    """A readiness probe as the manifest sets it (Kubernetes defaults for what it leaves out)."""

    port: int
    kind: Literal["http", "grpc", "tcp"]
    initial_delay_s: int = 0
    period_s: int = Field(default=10, ge=1, description="periodSeconds (default 10)")
    failure_threshold: int = Field(default=3, ge=1, description="failureThreshold (default 3)")


class Startup(Strict):
    """How a new container of one image comes up: simulation parameters whose sources the app
    catalog cites (image sizes, process start-up, JIT warm-up)."""

    image_mb: float = Field(gt=0, description="compressed image size a node without it pulls, MB")
    boot_s: float = Field(ge=0, description="container start until the process accepts connections")
    warmup_s: float = Field(
        default=0.0, ge=0, description="then slower for this long (JIT, caches)"
    )
    warmup_factor: float = Field(
        default=0.0, ge=0, description="extra latency and CPU per request at the start of warm-up"
    )


class Pull(Strict):
    """Image pulls on the app's nodes: a fixed cost (registry auth, manifest) plus the download and
    unpacking of the compressed layers."""

    overhead_s: float = Field(default=4.0, ge=0)
    mb_s: float = Field(default=12.0, gt=0)


class Service(Strict):
    name: str
    language: str
    kind: Literal["gateway", "stateless", "stateful", "loadgen", "infra", "batch"]
    port: int | None = None
    service_port: int | None = Field(
        default=None, description="the Kubernetes Service's port, if not `port`"
    )
    container: str = "server"
    replicas: int = Field(default=1, ge=0)
    image: str
    resources: Resources
    env: dict[str, str] = Field(default_factory=dict)
    readiness: Probe | None = None
    startup: Startup | None = Field(
        default=None, description="overrides the app's runtime entry for the service's language"
    )
    perf: Perf | None = None
    rpcs: list[str] = Field(default_factory=list)
    spread_zones: bool = Field(
        default=False, description="replicas spread over zones (topology spread)"
    )
    slo_p95_ms: float = Field(
        default=250, gt=0, description="latency objective the alerts use (p95 of server spans)"
    )
    latency_env: str | None = Field(
        default=None, description="env var whose Go duration is added to every request"
    )
    notes: str = ""

    @model_validator(mode="after")
    def _serving_needs_perf(self) -> Service:
        if self.kind not in NOT_SERVING and self.perf is None:
            raise ValueError(f"service {self.name}: serving services need perf parameters")
        return self


class Edge(Strict):
    caller: str
    callee: str
    calls: float = Field(gt=0, description="calls to callee per request served by caller")
    hard: bool = True
    timeout_ms: float = Field(default=5000, gt=0)
    retries: int = Field(default=0, ge=0)
    addr_env: str | None = Field(default=None, description="caller env var holding callee address")
    pool: int | None = Field(
        default=None, gt=0, description="client connection pool per caller pod (databases, caches)"
    )
    ops: list[str] = Field(default_factory=list)


class Route(Strict):
    """An entry-point request type; weights follow the load generator's task mix."""

    name: str
    path: str
    weight: float = Field(gt=0)
    calls: dict[str, float] = Field(default_factory=dict)
    soft: list[str] = Field(default_factory=list)


class Node(Strict):
    name: str
    zone: str


class FlagEffect(Strict):
    """What a feature flag does to its consumer while its variant is not the default off value.

    Numeric fields scale with the variant's value (1.0 for boolean "on"), so percentage flags such as
    paymentFailure's "25%" give a quarter of ``error_rate``.
    """

    error_rate: float = 0.0
    latency_ms: float = 0.0
    cpu_cores: float = 0.0
    mem_leak_mib_s: float = 0.0
    not_ready: bool = False
    broken_edges: list[str] = Field(default_factory=list)
    publish_copies: float = 0.0
    consume_ms: float = 0.0
    log: str = ""


class Flag(Strict):
    """A flagd feature flag (name and variants as in the pinned demo's demo.flagd.json)."""

    name: str
    service: str = Field(description="the service whose behaviour the flag changes (its culprit)")
    variants: dict[str, float | bool]
    default: str = "off"
    effects: dict[str, FlagEffect] = Field(description="service -> effect (usually just `service`)")
    benchmark_owned: bool = Field(
        default=False, description="belongs to the load generator, not a fault"
    )


class Queue(Strict):
    """A message topic: producers publish per request; each consumer group drains it."""

    name: str
    broker: str
    producers: dict[str, float] = Field(description="service -> messages per request served")
    consumers: dict[str, float] = Field(
        description="consumer service (= group) -> messages/s per ready pod"
    )


class LoadGen(Strict):
    service: str
    users: int = Field(gt=0)
    wait_s: tuple[float, float]
    requests_per_task: float = Field(gt=0, description="entry-point HTTP requests per user task")
    diurnal_amplitude: float = Field(default=0.15, ge=0, lt=1)
    noise: float = Field(default=0.05, ge=0, lt=1)


class External(Strict):
    """A dependency outside the cluster that a service calls (a card processor, an SMTP relay): its
    flaky spells are one of the open world's benign anomalies."""

    service: str
    host: str
    what: str
    # a failing call to an outside API mostly times out rather than failing fast, so a flaky spell
    # shows in latency as well as errors; 2 s is a common client deadline for such calls (a
    # judgement, as the externals themselves are the catalog's own)
    timeout_ms: int = Field(
        2000, gt=0, le=60_000, description="the caller's deadline: a failed call waits this long"
    )


class Autoscaler(Strict):
    """A HorizontalPodAutoscaler on CPU utilisation (of the pods' CPU requests)."""

    deployment: str
    min_replicas: int = Field(ge=1)
    max_replicas: int = Field(ge=1)
    target_cpu_pct: int = Field(default=70, gt=0, le=1000)


class App(Strict):
    name: str
    title: str
    version: str
    source: str
    namespace: str
    entrypoint: str = Field(
        description="the service users' requests arrive at (request alerts read it)"
    )
    router: str | None = Field(
        default=None,
        description="where routes fan out, if a pass-through gateway (the entrypoint) sits in front of it",
    )
    loadgen: LoadGen
    nodes: list[Node]
    services: list[Service]
    edges: list[Edge]
    routes: list[Route]
    inter_zone_ms: float = Field(default=0.0, ge=0, description="one-way latency between zones")
    runtimes: dict[str, Startup] = Field(
        default_factory=dict, description="language -> how its containers come up"
    )
    pull: Pull = Field(default_factory=Pull)
    termination_grace_s: int = Field(default=30, ge=0, description="terminationGracePeriodSeconds")
    externals: list[External] = Field(default_factory=list)
    autoscalers: list[Autoscaler] = Field(default_factory=list)
    flags: list[Flag] = Field(default_factory=list)
    flag_configmap: str | None = None
    queues: list[Queue] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> App:
        names = [s.name for s in self.services]
        if len(set(names)) != len(names):
            raise ValueError("duplicate service names")
        known = set(names)
        if self.entrypoint not in known:
            raise ValueError(f"entrypoint {self.entrypoint!r} is not a service")
        if self.router is not None and self.router not in known:
            raise ValueError(f"router {self.router!r} is not a service")
        for e in self.edges:
            for n in (e.caller, e.callee):
                if n not in known:
                    raise ValueError(f"edge {e.caller}->{e.callee}: unknown service {n!r}")
        for r in self.routes:
            for n in [*r.calls, *r.soft]:
                if n not in known:
                    raise ValueError(f"route {r.name}: unknown service {n!r}")
        for f in self.flags:
            if f.service not in known or f.default not in f.variants or not set(f.effects) <= known:
                raise ValueError(f"flag {f.name}: unknown service or default variant")
        for q in self.queues:
            for n in [q.broker, *q.producers, *q.consumers]:
                if n not in known:
                    raise ValueError(f"queue {q.name}: unknown service {n!r}")
        for x in self.externals:
            if x.service not in known:
                raise ValueError(f"external {x.host}: unknown service {x.service!r}")
        for h in self.autoscalers:
            if h.deployment not in known or h.min_replicas > h.max_replicas:
                raise ValueError(f"autoscaler of {h.deployment!r}: unknown deployment or bounds")
        for s in self.services:
            if s.startup is None and s.language not in self.runtimes:
                raise ValueError(f"service {s.name}: no runtime for language {s.language!r}")
        return self

    def startup_of(self, name: str) -> Startup:
        s = self.service(name)
        return s.startup if s.startup is not None else self.runtimes[s.language]

    def service(self, name: str) -> Service:
        for s in self.services:
            if s.name == name:
                return s
        raise KeyError(name)

    @property
    def serving(self) -> list[Service]:
        """Services that serve requests (not the load generator or infra such as flagd), in order."""
        return [s for s in self.services if s.kind not in NOT_SERVING]


# -- faults ---------------------------------------------------------------------------------------

Category = Literal[
    "code", "config", "resource", "network", "dependency", "deployment", "infrastructure"
]
Delivery = Literal["change", "direct"]


class ProbeSpec(Strict):
    """The SLI check that shows a fault: healthy iff the measured value is within bound.

    Probes read a service's own share of the symptom, so that a fault elsewhere does not mask a
    repair: ``error_ratio`` counts errors raised in the service itself (not inherited from callees),
    ``latency_p95`` the time spent in the service itself, ``edge_error`` transport failures on one
    edge (refused, dropped, timed out; not errors the callee returns). ``rollout_complete`` and
    ``no_restarts`` read the deployment's pods; ``node_workloads`` is healthy once no pod is left on
    the named node while it is NotReady. ``corruption`` reads the share of the service's responses
    carrying silently wrong data (a data-integrity check, not an error), ``queue_lag`` a consumer
    group's lag in messages on the service's queue, ``zone_available`` whether the named zone serves
    traffic. A service without ready pods fails its SLI probes, and one failing more than half of
    its own requests (pods that take traffic before they listen) fails every probe read on it.
    """

    kind: Literal[
        "error_ratio",
        "latency_p95",
        "edge_error",
        "rollout_complete",
        "no_restarts",
        "node_workloads",
        "corruption",
        "queue_lag",
        "zone_available",
    ]
    service: str = Field(description="service the SLI is read on (the node, for node_workloads)")
    peer: str | None = None
    max: float | None = None


class Fault(Strict):
    id: str
    app: str
    category: Category
    delivery: Delivery
    mechanism: str
    target: str = Field(description="service (or node, for node mechanisms) the fault acts on")
    params: dict[str, float | int | str] = Field(default_factory=dict)
    change: str | None = Field(
        default=None, description="change-corpus id for change-delivered faults"
    )
    affected: list[str] = Field(
        default_factory=list, description="target plus services showing symptoms"
    )
    culprits: list[str] = Field(
        default_factory=list, description="root-cause entities; default [target]"
    )
    probe: ProbeSpec
    remedies: list[str]
    summary: str = ""

    @model_validator(mode="after")
    def _change_needs_corpus(self) -> Fault:
        if (self.delivery == "change") != (self.change is not None):
            raise ValueError(
                f"fault {self.id}: change-delivered faults (and only they) name a change"
            )
        return self


class FaultTemplate(Strict):
    """Direct faults of one mechanism over many targets; expanded into one ``Fault`` per target.

    A target is a service, ``caller>callee`` for edge faults (the fault's target is the caller and
    ``params.peer`` the callee), or a node / zone name for infrastructure faults. The probe's
    service defaults to the target (to the node or zone for infrastructure probes).
    """

    id: str
    category: Category
    mechanism: str
    targets: list[str]
    params: dict[str, float | int | str] = Field(default_factory=dict)
    probe: dict[str, float | str]
    remedies: list[str]
    culprits: list[str] = Field(default_factory=list)
    summary: str = ""

    def expand(self, prefix: str, app: str) -> list[Fault]:
        out = []
        for tgt in self.targets:
            caller, _, peer = tgt.partition(">")
            params = dict(self.params)
            probe = dict(self.probe)
            if peer:
                params["peer"] = peer
                probe.setdefault("peer", peer)
            probe.setdefault("service", caller)
            slug = f"{caller}-{peer}" if peer else caller
            out.append(
                Fault(
                    id=f"{prefix}-{self.id}-{slug}",
                    app=app,
                    category=self.category,
                    delivery="direct",
                    mechanism=self.mechanism,
                    target=caller,
                    params=params,
                    probe=ProbeSpec.model_validate(probe),
                    remedies=list(self.remedies),
                    culprits=list(self.culprits),
                    summary=self.summary,
                )
            )
        return out


class Defect(Strict):
    """What a built image does differently from its parent (interpreted by the simulator)."""

    error_rate: float = Field(
        default=0.0, ge=0, le=1, description="share of requests failing in the service"
    )
    latency_ms: float = Field(default=0.0, ge=0, description="added to every request")
    cpu_mult: float = Field(default=1.0, gt=0, description="CPU per request multiplier")
    crash_after_s: float | None = Field(
        default=None, gt=0, description="the process exits after running this long"
    )
    mem_leak_mib_s: float = Field(default=0.0, ge=0, description="working-set growth while running")
    timeouts_ms: dict[str, float] = Field(
        default_factory=dict, description="client deadline per callee"
    )
    retries: dict[str, int] = Field(default_factory=dict, description="client retries per callee")
    broken_edges: list[str] = Field(
        default_factory=list,
        description="callees it can no longer reach (wrong host or port in code)",
    )
    pool_size: dict[str, int] = Field(
        default_factory=dict, description="connection pool size per callee (per pod)"
    )
    hold_ms: float = Field(
        default=0.0,
        ge=0,
        description="extra time each pooled connection is held (e.g. a transaction around slow work)",
    )
    corrupt_rate: float = Field(
        default=0.0, ge=0, le=1, description="share of responses silently carrying wrong data"
    )
    consume_ms: float = Field(
        default=0.0, ge=0, description="extra processing per consumed message"
    )
    log: str = Field(default="", description="the log line the defect produces")


class FixPredicate(Strict):
    """How the pipeline judges a patch: the named file must (not) match these regexes."""

    file: str
    must_match: list[str] = Field(default_factory=list)
    must_not_match: list[str] = Field(default_factory=list)


MANIFEST_DIR = "kubernetes"  # where a service's repository keeps its Kubernetes manifest


def manifest_path(service: str) -> str:
    """The service's manifest in its repository (``kubernetes/<service>.yaml``)."""
    return f"{MANIFEST_DIR}/{service}.yaml"


_TICKET = re.compile(r"#\d+|\b[A-Z][A-Z0-9]+-\d+\b")
Purpose = Literal[
    "feature", "refactor", "dependency", "config", "flag", "performance", "fix", "test", "chore"
]


class Change(Strict):
    """A commit to a service's source or deploy config, delivered through the build pipeline.

    The title as a deploy shows it is drawn per episode: one of ``title`` and ``phrasings`` (other
    wordings of the same commit message), in one of the team's title styles with a ticket id, and an
    author from the service's team (``catalogs/teams.yaml``). So a wording memorised from another
    seed names no change, and faulty and benign changes share every form."""

    id: str
    service: str
    kind: Literal["code", "config", "image"]
    title: str
    phrasings: list[str] = Field(
        default_factory=list, description="other wordings of the title (one is drawn per episode)"
    )
    purpose: Purpose | None = Field(default=None, description="the kind of work it is")
    files: list[str]
    diff: str
    defect: Defect | None = None
    env: dict[str, str] = Field(default_factory=dict, description="config changes: env vars set")
    resources: dict[str, str] = Field(
        default_factory=dict, description="config changes: limits set"
    )
    image_tag: str | None = Field(default=None, description="image changes: tag deployed")
    readiness_port: int | None = None
    flags: dict[str, str] = Field(
        default_factory=dict, description="flag config changes: flag -> variant"
    )
    fix: FixPredicate | None = Field(
        default=None, description="source patches that satisfy this neutralise the defect"
    )

    @field_validator("title", "phrasings")
    @classmethod
    def _no_ticket_ids(cls, v: str | list[str]) -> str | list[str]:
        for t in [v] if isinstance(v, str) else v:
            if not t.strip() or _TICKET.search(t):
                raise ValueError(
                    f"title {t!r}: ticket and PR ids are drawn per episode; write the message only"
                )
        return v

    @property
    def wordings(self) -> list[str]:
        return [self.title, *self.phrasings]

    @property
    def env_only(self) -> bool:
        """Does the change only set env vars in the service's manifest (so that the build pipeline
        can re-apply it to any head as the settings edit it is)?"""
        return (
            self.kind == "config"
            and bool(self.env)
            and not (self.resources or self.flags or self.readiness_port)
            and self.files == [manifest_path(self.service)]
        )


class Team(Strict):
    """The people who commit to some services, and their ticket project key."""

    key: str = Field(pattern=r"^[A-Z][A-Z0-9]{1,7}$")
    services: list[str] = Field(min_length=1)
    members: list[str] = Field(min_length=3)


class AppCatalog(Strict):
    """Everything the release holds for one app."""

    app: App
    faults: list[Fault]
    changes: list[Change]
    teams: list[Team] = Field(default_factory=list)
    published_tags: dict[str, list[str]] = Field(
        default_factory=dict,
        description="service -> image tags its registry holds besides the base image's (an image "
        "change to any other tag cannot be pulled)",
    )

    def team(self, service: str) -> Team:
        for t in self.teams:
            if service in t.services:
                return t
        raise KeyError(f"no team owns {service!r}")


class Release(Strict):
    """One frozen benchmark release: every app's catalog under one version string."""

    version: str
    apps: dict[str, AppCatalog]
