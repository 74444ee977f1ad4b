"""SimCluster: the simulated application on Kubernetes, advanced tick by tick.

The cluster owns state (deployments, pods, nodes, policies, images), writes telemetry into its TSDB
every tick, and exposes the operations that tools and the orchestrator perform. It knows nothing about
faults or scores: the orchestrator changes the world through the same kinds of operations a person
would (a deploy, a policy, a stressed pod), and the dynamics do the rest.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.catalogs.schema import NOT_SERVING, Change, parse_cpu, parse_mem
from sre_gym.clock import EPISODE_S, EPOCH, MAX_REPLICAS, TICK_S, rfc3339
from sre_gym.rng import Streams, stable_hash
from sre_gym.sim import autoscaler, dynamics
from sre_gym.sim import flags as flags_mod
from sre_gym.sim import netpol as netpol_mod
from sre_gym.sim import pods as P
from sre_gym.sim import queues as queues_mod
from sre_gym.sim.controller import k8s_suffix, pick_node, reconcile
from sre_gym.sim.diffs import changed_files
from sre_gym.sim.metrics import MetricWriter
from sre_gym.sim.pipeline import BuildResult, Pipeline
from sre_gym.sim.source_trees import PipelineError, services_with_trees
from sre_gym.sim.state import (
    Deployment,
    Image,
    Node,
    Profile,
    Revision,
    Template,
    World,
    compile_profile,
    initial_template,
)
from sre_gym.sim.topology import compile_topology
from sre_gym.telemetry.tsdb import TSDB

WARMUP_S = 600
INITIAL_AGE_S = 2 * 86400  # the app's pods were created two days before the run (long warmed up)


class SimError(ValueError):
    """An operation the cluster refuses (unknown object, invalid value); state is unchanged."""


@dataclass
class ChangeRecord:
    """A deploy that went through the pipeline, as `list_changes` shows it."""

    sha: str
    service: str
    kind: str
    title: str
    author: str
    time: float
    files: list[str]
    diff: str
    image: str
    revision: int
    pipeline: dict[str, str]
    change_id: str  # catalog id (hidden from agents)


# the per-profile arrays the dynamics read: (array attribute, Profile field)
_PROFILE_COLUMNS = (
    ("prof_err", "err"),
    ("prof_lat", "lat_ms"),
    ("prof_cpu_mult", "cpu_mult"),
    ("prof_crash_after", "crash_after"),
    ("prof_leak", "leak"),
    ("prof_cpu_limit", "cpu_limit"),
    ("prof_mem_limit", "mem_limit"),
    ("prof_image_ok", "image_ok"),
    ("prof_probe_ok", "probe_ok"),
    ("prof_timeout", "timeout_ms"),
    ("prof_retries", "retries"),
    ("prof_addr_bad", "addr_bad"),
    ("prof_pool", "pool"),
    ("prof_hold", "hold_ms"),
    ("prof_corrupt", "corrupt"),
    ("prof_consume", "consume_ms"),
)


class SimCluster:
    def __init__(
        self, app: str, seed: int, *, release: str = RELEASE, horizon_s: int = WARMUP_S + EPISODE_S
    ) -> None:
        self.app_name = app
        self.seed = int(seed)
        self.release = release
        self.topo = topo = compile_topology(app)
        self.streams = Streams(release, app, seed)
        self.t0 = EPOCH
        self.capacity = horizon_s // TICK_S + 1
        self.tsdb = TSDB(t0=EPOCH, tick_s=TICK_S, capacity=self.capacity)
        self.tick = 0  # next tick to simulate
        self.tick_s = TICK_S
        self.recording = True  # False in forks: no telemetry, no records
        # True in a no-action counterfactual, which is read only for its entry-point traffic
        self.entry_only = False
        self.now = float(EPOCH - TICK_S)  # time of the last simulated tick
        app_cat = topo.app
        deps = [
            Deployment(
                name=s.name,
                index=i,
                container=s.container,
                replicas=s.replicas,
                revisions=[
                    Revision(1, initial_template(topo, s.name), "initial deploy", float(EPOCH))
                ],
            )
            for i, s in enumerate(
                [*app_cat.serving, *[x for x in app_cat.services if x.kind in NOT_SERVING]]
            )
        ]
        images = {s.image: Image(s.image, s.name, None, None) for s in app_cat.services}
        self.world = World(
            deployments=deps,
            nodes=[Node(n.name, n.zone) for n in app_cat.nodes],
            images=images,
            secrets={
                "redis-cart-auth": {"password": stable_hash("secret", seed)},
                "payment-gateway-credentials": {"api-key": stable_hash("pay", seed)},
            },
            configmaps={"kube-root-ca.crt": {"ca.crt": "-----BEGIN CERTIFICATE-----..."}},
        )
        if app_cat.flag_configmap:
            self.world.configmaps[app_cat.flag_configmap] = {
                flags_mod.FLAG_FILE: flags_mod.flag_file(app_cat)
            }
        self._flag_text: str | None = None
        self.zone_names = sorted({nd.zone for nd in app_cat.nodes})
        self.node_zone = np.array([self.zone_names.index(nd.zone) for nd in app_cat.nodes] + [0])
        self.queues = queues_mod.init(topo)
        try:
            self.pipeline: Pipeline | None = Pipeline(app, release, seed)
            self.pipeline_services = frozenset(services_with_trees(app))
        except PipelineError:
            self.pipeline = None  # an app without source trees: no source reads or patches
            self.pipeline_services = frozenset()
        self.published_tags = {
            svc: frozenset(tags) for svc, tags in load_catalog(app).published_tags.items()
        }
        self.pods = P.PodTable()
        self.profiles: list[Profile] = []
        self._profile_ids: dict[tuple[int, Template], int] = {}
        self._prof_version = 0  # profiles already in the per-profile arrays
        self.changes: list[ChangeRecord] = []
        self._actions: list[tuple[float, int, Callable[[float], None]]] = []
        self._action_seq = 0
        self.tick_hooks: list[Callable[[int, dynamics.TickOut], None]] = []
        n = topo.n
        others = [app_cat.service(d.name) for d in deps[n:]]
        self.dep_mem_base = np.append(
            topo.mem_base,
            [
                o.perf.mem_base_mi if o.perf else 0.4 * parse_mem(o.resources.mem_limit)
                for o in others
            ],
        )
        # how each deployment's new pods come up (catalog: runtimes, readiness probes, pulls)
        svcs = [app_cat.service(d.name) for d in deps]
        boots = [app_cat.startup_of(s.name) for s in svcs]
        self.dep_boot = np.array([b.boot_s for b in boots], dtype=float)
        self.dep_image_mb = np.array([b.image_mb for b in boots], dtype=float)
        self.dep_probed = np.array([s.readiness is not None for s in svcs])
        self.dep_probe_delay = np.array(
            [s.readiness.initial_delay_s if s.readiness else 0 for s in svcs], dtype=float
        )
        self.dep_probe_period = np.array(
            [s.readiness.period_s if s.readiness else 10 for s in svcs], dtype=float
        )
        self.node_images: list[set[str]] = [set() for _ in app_cat.nodes]
        # the namespace's own policies (default deny plus allow rules), from well before the run
        self.world.netpols = netpol_mod.baseline(app_cat, float(EPOCH - 40 * 86400))
        self._blocked_version = -1
        # the open world's knobs (orchestrator/open_world.py): traffic surges, third-party error
        # spells per service with the log line they leave, client errors everywhere
        self.load_factor = 1.0
        self.background_error = 0.0
        self.outside_err = np.zeros(topo.n)
        self.outside_lat = np.zeros(topo.n)  # ms added by calls to a failing third party
        self.outside_msg = np.zeros(topo.n, dtype=np.int16)
        self.hpas = autoscaler.build(self)
        # runtime conditions that select a deployment's pods by label: every new pod gets them
        self.selector_conditions: dict[int, dict[str, float]] = {}
        self.last_exit = np.full(len(deps), -np.inf)
        self.prev_attempts = np.ones((n, n))
        cap = self.capacity
        g = self.streams.gen("telemetry-noise")
        self._noise = g.standard_normal((cap, 2 * n))
        n_edges = int(np.count_nonzero(topo.calls))
        self._unif = self.streams.gen("telemetry-rounding").random((cap, 3 * n + n_edges))
        lg = app_cat.loadgen
        self._load_noise = self.streams.gen("load-noise").standard_normal(cap)
        self._load_phase = float(self.streams.gen("load-phase").random() * 2 * np.pi)
        self.base_rps = (
            lg.users / (0.5 * (lg.wait_s[0] + lg.wait_s[1]) + 0.3) * lg.requests_per_task
        )
        # per-tick records (for logs, SLI probes and evidence)
        self.rec_served = np.zeros((cap, n))
        self.rec_err = np.zeros((cap, n))
        self.rec_own_err = np.zeros((cap, n))
        self.rec_lat = np.zeros((cap, n))
        self.rec_edge_fail = np.zeros((cap, n, n))
        self.rec_edge_kind = np.zeros((cap, n, n), dtype=np.int8)
        self.rec_edge_att = np.zeros((cap, n, n))
        self.rec_entry = np.zeros((cap, 3))  # requests/s, failed share, slow share
        self.rec_log = np.zeros((cap, n), dtype=np.int16)
        self.rec_outside = np.zeros((cap, n))  # error share from third parties (open world)
        self.rec_outside_log = np.zeros((cap, n), dtype=np.int16)
        self.rec_corrupt = np.zeros((cap, n))
        self.rec_lag = np.zeros((cap, len(self.queues.names)))
        self.log_messages: list[str] = [""]
        self.metrics = MetricWriter(self, self.tsdb)
        for d in deps:
            self._profile_of(d, d.current.template)
            reconcile(self, d, float(EPOCH - INITIAL_AGE_S))

    # ------------------------------------------------------------------ profiles
    def _profile_of(self, dep: Deployment, tpl: Template) -> int:
        key = (dep.index, tpl)
        pid = self._profile_ids.get(key)
        if pid is None:
            pid = self._profile_ids[key] = len(self.profiles)
            self.profiles.append(compile_profile(self.topo, dep, tpl, self.world.images))
            msg = self.profiles[-1].log
            if msg and msg not in self.log_messages:
                self.log_messages.append(msg)
        return pid

    def _profile_arrays(self) -> None:
        """Per-profile arrays, extended by the profiles compiled since the last call (profiles are
        append-only, so rebuilding them whole each time would cost quadratic work in a run)."""
        ps = self.profiles
        start = self._prof_version
        if start == len(ps):
            return
        new = ps[start:]
        cols = {name: [getattr(p, attr) for p in new] for name, attr in _PROFILE_COLUMNS}
        cols["prof_log"] = [self.log_messages.index(p.log) if p.log else 0 for p in new]
        for name, values in cols.items():
            fresh = np.array(values)
            setattr(
                self, name, fresh if start == 0 else np.concatenate([getattr(self, name), fresh])
            )
        self._prof_version = len(ps)

    # ------------------------------------------------------------------ forks
    def fork(self) -> SimCluster:
        """An independent copy of the world that simulates on without telemetry or records.

        Used for what-if checks (repair persistence) that must not touch the real run.
        """
        heavy = ("tsdb", "metrics", *[k for k in vars(self) if k.startswith("rec_")])
        saved = {k: getattr(self, k) for k in heavy}
        for k in heavy:
            setattr(self, k, None)
        # read-only or append-only structures are shared with the fork instead of copied
        w = self.world
        shared: list[object] = [
            self.topo,
            self.streams,
            self.profiles,
            self._profile_ids,
            self.changes,
            self._noise,
            self._unif,
            self._load_noise,
            self.log_messages,
            w.images,
            w.events,
            w._event_index,
        ]
        for d in w.deployments:
            shared += d.revisions  # Revision objects are never mutated; the lists are copied
        for hook in self.tick_hooks:
            owner = getattr(hook, "__self__", None)
            if owner is not None and hasattr(owner, "records"):
                shared += [owner.records, owner.faults, owner.changes, owner.sched]
        memo = {id(x): x for x in shared}
        try:
            clone = copy.deepcopy(self, memo)
        finally:
            for k, v in saved.items():
                setattr(self, k, v)
        clone.recording = False
        clone.changes = []
        clone.world.events, clone.world._event_index = [], {}
        for hook in clone.tick_hooks:
            owner = getattr(hook, "__self__", None)
            if owner is not None and hasattr(owner, "records"):
                owner.records = []
        return clone

    # ------------------------------------------------------------------ time
    def at(self, t: float, fn: Callable[[float], None]) -> None:
        """Run ``fn(t)`` just before the first tick at or after time ``t``."""
        # (time, sequence) is unique, so the tuples never compare their functions
        bisect.insort(self._actions, (float(t), self._action_seq, fn))
        self._action_seq += 1

    def time_of_tick(self, tick: int) -> float:
        return float(self.t0 + tick * TICK_S)

    def advance_to(self, t: float) -> None:
        """Simulate every tick with timestamp <= t (chunking never changes results)."""
        while self.tick < self.capacity and self.time_of_tick(self.tick) <= t:
            self._step()

    def _step(self) -> None:
        tick = self.tick
        t = self.time_of_tick(tick)
        while self._actions and self._actions[0][0] <= t:
            at, _, fn = self._actions.pop(0)
            fn(at)
        self._profile_arrays()
        world, pods = self.world, self.pods
        fx = self._flag_effects()
        node_ready = np.array([nd.ready for nd in world.nodes] + [False])
        node_down = np.array(
            [nd.down_since if nd.down_since is not None else np.inf for nd in world.nodes]
            + [np.inf]
        )
        changed = P.lifecycle(
            pods,
            t,
            prof_image_ok=self.prof_image_ok,
            prof_probe_ok=self.prof_probe_ok,
            prof_crash_after=self.prof_crash_after,
            prof_leak=self.prof_leak,
            prof_mem_limit=self.prof_mem_limit,
            dep_mem_base=self.dep_mem_base,
            dep_boot=self.dep_boot,
            dep_probed=self.dep_probed,
            dep_probe_delay=self.dep_probe_delay,
            dep_probe_period=self.dep_probe_period,
            node_ready=node_ready,
            node_down_since=node_down,
            dep_leak=fx.leak,
            dep_not_ready=fx.not_ready,
        )
        self._lifecycle_events(t, changed)
        for d in world.deployments:
            if d.dirty:
                reconcile(self, d, t)
        self._profile_arrays()
        rows = pods.live()
        n = self.topo.n
        if self._blocked_version != world.netpol_version:
            self._blocked = netpol_mod.blocked(self.topo.app, self.topo.names, world.netpols)
            self._blocked_version = world.netpol_version
        blocked = self._blocked
        rel = t - EPOCH
        lg = self.topo.app.loadgen
        rps = self.base_rps * (
            1 + lg.diurnal_amplitude * np.sin(2 * np.pi * rel / 14400 + self._load_phase)
        )
        rps *= (1 + lg.noise * self._load_noise[tick]) * self.load_factor
        out = dynamics.step(
            self.topo,
            dynamics.Inputs(
                entry_rps=float(max(rps, 0.0)),
                prev_attempts=self.prev_attempts,
                rows=rows,
                n_pod_rows=pods.n,
                pod_dep=pods.dep,
                pod_ready=pods.ready,
                pod_prof=pods.prof,
                pod_hog=pods.hog,
                pod_delay=pods.delay,
                pod_zone=self.node_zone[pods.node[: pods.n]],
                pod_listen_age=np.nan_to_num(
                    t - pods.started[: pods.n] - self.dep_boot[pods.dep[: pods.n]], nan=1e9
                ),
                # the initial pods start with their data loaded; replacements start empty
                pod_data_age=np.where(
                    pods.created[: pods.n] > self.t0, t - pods.created[: pods.n], 1e9
                ),
                prof_err=self.prof_err,
                prof_lat=self.prof_lat,
                prof_cpu_mult=self.prof_cpu_mult,
                prof_cpu_limit=self.prof_cpu_limit,
                prof_corrupt=self.prof_corrupt,
                prof_timeout=self.prof_timeout,
                prof_retries=self.prof_retries,
                prof_addr_bad=self.prof_addr_bad,
                prof_pool=self.prof_pool,
                prof_hold=self.prof_hold,
                blocked=blocked,
                svc_err=1.0 - (1.0 - fx.err) * (1.0 - self.outside_err),
                svc_lat=fx.lat + self.outside_lat,
                svc_hog=fx.hog,
                svc_broken=fx.broken,
                n_zones=len(self.zone_names),
                inter_zone_ms=self.topo.app.inter_zone_ms,
            ),
        )
        self.prev_attempts = out.attempts
        if self.hpas:
            autoscaler.sync(self, self.hpas, t, out.pod_usage)
        if self.queues.names:
            ready = np.bincount(pods.dep[rows][pods.ready[rows]], minlength=len(world.deployments))
            sel = pods.dep[rows] < n
            consume = fx.consume_ms.copy()
            np.maximum.at(consume, pods.dep[rows][sel], self.prof_consume[pods.prof[rows][sel]])
            queues_mod.step(
                self.topo, self.queues, float(TICK_S), out.served, ready[:n], fx.publish, consume
            )
        if self.entry_only:
            self.rec_entry[tick] = (out.entry_rps, out.entry_failed, out.entry_slow)
        elif self.recording:
            self._record(tick, out, rows)
        self.now = t
        self.tick += 1
        for hook in self.tick_hooks:
            hook(tick, out)

    def _record(self, tick: int, out: dynamics.TickOut, rows: np.ndarray) -> None:
        """Telemetry and per-tick records (skipped in forks, which only need the dynamics)."""
        pods, n = self.pods, self.topo.n
        self.metrics.write(tick, out, self._noise[tick], self._unif[tick])
        self.rec_served[tick] = out.served
        self.rec_err[tick] = out.err
        self.rec_own_err[tick] = out.own_err
        self.rec_lat[tick] = out.lat
        self.rec_edge_fail[tick] = out.edge_fail
        self.rec_edge_kind[tick] = out.edge_kind
        self.rec_edge_att[tick] = out.edge_att
        self.rec_entry[tick] = (out.entry_rps, out.entry_failed, out.entry_slow)
        self.rec_corrupt[tick] = out.corrupt
        self.rec_outside[tick] = self.outside_err
        self.rec_outside_log[tick] = self.outside_msg
        if self.queues.names:
            self.rec_lag[tick] = self.queues.lag
        ready_rows = rows[pods.ready[rows] & (pods.dep[rows] < n)]
        if len(ready_rows):
            np.maximum.at(
                self.rec_log[tick], pods.dep[ready_rows], self.prof_log[pods.prof[ready_rows]]
            )
        self.tsdb.commit(tick)

    def _flag_effects(self) -> flags_mod.FlagEffects:
        """Flag effects from the flag ConfigMap, recomputed only when the file changes."""
        cm = self.topo.app.flag_configmap
        text = self.world.configmaps.get(cm, {}).get(flags_mod.FLAG_FILE, "") if cm else ""
        if text != self._flag_text:
            self._flag_text = text
            idx = {d.name: d.index for d in self.world.deployments}
            self._fx = flags_mod.effects(
                self.topo, len(self.world.deployments), idx, flags_mod.variants_of(text)
            )
        return self._fx

    def _lifecycle_events(self, t: float, ch: dict[str, np.ndarray]) -> None:
        w, p = self.world, self.pods
        for r in ch["started"]:
            name = p.names[r]
            img = w.deployments[p.dep[r]].revision(int(p.rev[r]))
            w.event(
                t,
                "Normal",
                "Started",
                "Pod",
                name,
                f"Started container {w.deployments[p.dep[r]].container}",
            )
            if img is not None:
                pulled = float(p.pulled_s[r])
                w.event(
                    t,
                    "Normal",
                    "Pulled",
                    "Pod",
                    name,
                    f'Successfully pulled image "{img.template.image}" in {pulled:.3f}s'
                    if pulled > 0
                    else f'Container image "{img.template.image}" already present on machine',
                )
        for r in ch["image_fail"]:
            img = w.deployments[p.dep[r]].revision(int(p.rev[r]))
            ref = img.template.image if img else "?"
            w.event(
                t,
                "Warning",
                "Failed",
                "Pod",
                p.names[r],
                f'Failed to pull image "{ref}": rpc error: code = NotFound desc = failed to pull and unpack image "{ref}": not found',
            )
            w.event(t, "Normal", "BackOff", "Pod", p.names[r], f'Back-off pulling image "{ref}"')
        for r in ch["oom"]:
            self.last_exit[p.dep[r]] = t
            w.event(
                t,
                "Warning",
                "OOMKilling",
                "Node",
                self._node_name(r),
                f"Memory cgroup out of memory: Killed process (container {w.deployments[p.dep[r]].container}) in pod {p.names[r]}",
            )
            w.event(
                t, "Warning", "BackOff", "Pod", p.names[r], "Back-off restarting failed container"
            )
        for r in ch["crash"]:
            self.last_exit[p.dep[r]] = t
            w.event(
                t, "Warning", "BackOff", "Pod", p.names[r], "Back-off restarting failed container"
            )
        for r in ch["probe_fail"]:
            dep = w.deployments[p.dep[r]]
            port = (
                dep.revision(int(p.rev[r])).template.readiness_port
                if dep.revision(int(p.rev[r]))
                else None
            )
            w.event(
                t,
                "Warning",
                "Unhealthy",
                "Pod",
                p.names[r],
                f'Readiness probe failed: timeout: failed to connect service ":{port}" within 1s: context deadline exceeded',
            )
        for r in ch["evicted"]:
            w.event(
                t,
                "Normal",
                "TaintManagerEviction",
                "Pod",
                p.names[r],
                f"Marking for deletion Pod {self.topo.app.namespace}/{p.names[r]}",
            )
            w.deployments[p.dep[r]].dirty = True
        for r in ch["gone"]:
            w.deployments[p.dep[r]].dirty = True

    def _node_name(self, r: int) -> str:
        i = self.pods.node[r]
        return self.world.nodes[i].name if i >= 0 else "<none>"

    # ------------------------------------------------------------------ pods (controller side)
    def create_pod(self, dep: Deployment, t: float) -> int:
        dep.serial += 1
        rev = dep.current
        rs_hash = k8s_suffix(10, self.release, self.seed, "rs", dep.name, rev.number)
        name = f"{dep.name}-{rs_hash}-{k8s_suffix(5, self.release, self.seed, 'pod', dep.name, dep.serial)}"
        node = pick_node(self, dep)
        pid = self._profile_of(dep, rev.template)
        row = self.pods.add(name, dep.index, rev.number, pid, node, t)
        # the node pulls an image it has not run yet (IfNotPresent, as the manifests pull)
        image = rev.template.image
        pull = 0.0
        if node >= 0 and image not in self.node_images[node]:
            cfg = self.topo.app.pull
            pull = cfg.overhead_s + self.dep_image_mb[dep.index] / cfg.mb_s
            if self.profiles[pid].image_ok:
                self.node_images[node].add(image)
        self.pods.pulled_s[row] = pull
        self.pods.start_at[row] = t + P.SCHEDULE_S + pull + P.CREATE_S
        for field, amount in self.selector_conditions.get(dep.index, {}).items():
            getattr(self.pods, field)[row] = amount
        self.world.event(
            t,
            "Normal",
            "SuccessfulCreate",
            "ReplicaSet",
            f"{dep.name}-{rs_hash}",
            f"Created pod: {name}",
        )
        if node >= 0:
            self.world.event(
                t,
                "Normal",
                "Scheduled",
                "Pod",
                name,
                f"Successfully assigned {self.topo.app.namespace}/{name} to {self.world.nodes[node].name}",
            )
        else:
            self.world.event(
                t,
                "Warning",
                "FailedScheduling",
                "Pod",
                name,
                "0/4 nodes are available: 4 node(s) had untolerated taint {node.kubernetes.io/unreachable: }.",
            )
        return row

    def delete_pod_row(self, r: int, t: float, reason: str = "Killing") -> None:
        p = self.pods
        if not p.alive[r] or p.state[r] == P.TERMINATING:
            return
        p.terminate(r, t, self.topo.app.termination_grace_s)
        dep = self.world.deployments[p.dep[r]]
        self.world.event(
            t, "Normal", "Killing", "Pod", p.names[r], f"Stopping container {dep.container}"
        )
        dep.dirty = True

    # ------------------------------------------------------------------ status views
    def deployment_status(self) -> dict[str, np.ndarray]:
        p = self.pods
        nd = len(self.world.deployments)
        live = p.live()
        dep = p.dep[live]
        cur = np.array([d.current.number for d in self.world.deployments])
        replicas = np.bincount(dep, minlength=nd).astype(float)
        available = np.bincount(dep[p.ready[live]], minlength=nd).astype(float)
        updated = np.bincount(dep[p.rev[live] == cur[dep]], minlength=nd).astype(float)
        spec = np.array([d.replicas for d in self.world.deployments], dtype=float)
        gen = np.array([d.generation for d in self.world.deployments], dtype=float)
        return {
            "spec_replicas": spec,
            "status_replicas": replicas,
            "status_replicas_available": available,
            "status_replicas_unavailable": np.maximum(spec - available, 0.0),
            "status_replicas_updated": updated,
            "metadata_generation": gen,
            "status_observed_generation": gen,
        }

    def waiting_count(self) -> np.ndarray:
        """Pods per deployment whose container is waiting (creating, back-off, image pull)."""
        p = self.pods
        live = p.live()
        st = p.state[live]
        waiting = (st == P.BACKOFF) | (st == P.IMAGE_WAIT) | (st == P.PENDING)
        return np.bincount(p.dep[live][waiting], minlength=len(self.world.deployments))

    # ------------------------------------------------------------------ operations
    def _dep(self, name: str) -> Deployment:
        d = self.world.deployment(name)
        if d is None:
            known = ", ".join(x.name for x in self.world.deployments)
            raise SimError(f"deployment {name!r} not found (known: {known})")
        return d

    def _new_revision(
        self, dep: Deployment, tpl: Template, cause: str, t: float, commit: str | None = None
    ) -> Revision:
        if tpl == dep.current.template:
            return dep.current
        number = max(r.number for r in dep.revisions) + 1
        earlier = next((r for r in dep.revisions if r.template == tpl), None)
        if earlier is not None:
            # Kubernetes reuses the ReplicaSet with that template and moves its revision to the head
            dep.revisions.remove(earlier)
            cause, commit = cause or earlier.change_cause, commit or earlier.commit
        rev = Revision(number, tpl, cause, t, commit)
        dep.revisions.append(rev)
        dep.generation += 1
        dep.dirty = True
        dep.rollout_started = t
        self._profile_of(dep, tpl)
        self.world.event(
            t,
            "Normal",
            "ScalingReplicaSet",
            "Deployment",
            dep.name,
            f"Scaled up replica set {dep.name}-{k8s_suffix(10, self.release, self.seed, 'rs', dep.name, rev.number)} to 1",
        )
        reconcile(self, dep, t)
        return rev

    def rollback(self, name: str, t: float, to_revision: int | None = None) -> Revision:
        dep = self._dep(name)
        if to_revision is None:
            if len(dep.revisions) < 2:
                raise SimError(f"deployment {name!r} has no previous revision to roll back to")
            target = dep.revisions[-2]
        else:
            target = dep.revision(int(to_revision))
            if target is None:
                have = ", ".join(str(r.number) for r in dep.revisions)
                raise SimError(f"deployment {name!r} has no revision {to_revision} (have: {have})")
            if target is dep.current:
                raise SimError(
                    f"revision {to_revision} is already the current revision of {name!r}"
                )
        # Kubernetes moves the target revision to the head of the history under a new number.
        dep.revisions.remove(target)
        rev = Revision(
            max([r.number for r in dep.revisions] + [target.number]) + 1,
            target.template,
            target.change_cause,
            t,
            target.commit,
        )
        dep.revisions.append(rev)
        dep.generation += 1
        dep.dirty = True
        dep.rollout_started = t
        self._profile_of(dep, rev.template)
        self.world.event(
            t,
            "Normal",
            "DeploymentRollback",
            "Deployment",
            name,
            f"Rolled back deployment {name!r} to revision {target.number}",
        )
        reconcile(self, dep, t)
        return rev

    def restart(self, name: str, t: float) -> Revision:
        dep = self._dep(name)
        tpl = replace(dep.current.template, restarted_at=rfc3339(t))
        return self._new_revision(dep, tpl, dep.current.change_cause, t, dep.current.commit)

    def scale(self, name: str, replicas: int, t: float) -> None:
        dep = self._dep(name)
        if not 0 <= int(replicas) <= MAX_REPLICAS:
            raise SimError(f"replicas must be between 0 and {MAX_REPLICAS}, got {replicas}")
        dep.replicas = int(replicas)
        dep.generation += 1
        dep.dirty = True
        self.world.event(
            t,
            "Normal",
            "ScalingReplicaSet",
            "Deployment",
            name,
            f"Scaled deployment {name} to {replicas}",
        )
        reconcile(self, dep, t)

    def patch(
        self, name: str, key: str, value: str, t: float, cause: str | None = None
    ) -> Revision:
        """Patch one setting of the pod template: an env var, ``resources.limits.cpu|memory`` or
        ``readinessProbe.port``."""
        dep = self._dep(name)
        tpl = dep.current.template
        value = str(value)
        if key == "resources.limits.cpu":
            try:
                parse_cpu(value)
            except ValueError as e:
                raise SimError(str(e)) from e
            new = replace(tpl, cpu_limit=value)
        elif key == "resources.limits.memory":
            try:
                parse_mem(value)
            except ValueError as e:
                raise SimError(str(e)) from e
            new = replace(tpl, mem_limit=value)
        elif key == "readinessProbe.port":
            if not value.isdigit() or not 0 < int(value) < 65536:
                raise SimError(f"readinessProbe.port must be a port number, got {value!r}")
            new = replace(tpl, readiness_port=int(value))
        elif key.startswith("flags.") and self.topo.app.flag_configmap and name == "flagd":
            return self._set_flags({key[6:]: value}, t, strict=True)
        elif key.startswith("env."):
            var = key[4:]
            if not var or not var.replace("_", "").isalnum():
                raise SimError(f"invalid environment variable name {var!r}")
            new = tpl.with_env(var, value)
        else:
            raise SimError(
                f"unsupported key {key!r}: use env.<NAME>, resources.limits.cpu, resources.limits.memory or readinessProbe.port"
            )
        return self._new_revision(
            dep,
            new,
            f"kubectl patch deployment {name} ({key}={value})" if cause is None else cause,
            t,
        )

    def unset_env(self, name: str, var: str, t: float) -> Revision:
        dep = self._dep(name)
        tpl = dep.current.template
        new = replace(tpl, env=tuple((k, v) for k, v in tpl.env if k != var))
        return self._new_revision(dep, new, "", t)

    def delete_pod(self, name: str, t: float) -> None:
        r = self.pods.index_of(name)
        if r is None or self.pods.state[r] == P.TERMINATING:
            raise SimError(f"pod {name!r} not found")
        self.delete_pod_row(r, t)
        reconcile(self, self.world.deployments[self.pods.dep[r]], t)

    def delete_networkpolicy(self, name: str, t: float) -> None:
        for i, pol in enumerate(self.world.netpols):
            if pol.name == name:
                del self.world.netpols[i]
                self.world.netpol_version += 1
                return
        raise SimError(f"networkpolicy {name!r} not found")

    # ------------------------------------------------------------------ orchestrator-side operations
    def add_networkpolicy(self, policy: netpol_mod.NetworkPolicy) -> None:
        self.world.netpols.append(policy)
        self.world.netpol_version += 1

    def set_pod_condition(self, dep_name: str, field: str, value: float, t: float) -> list[str]:
        """Set a runtime condition (hog, delay, balloon) on every live pod of a deployment."""
        dep = self._dep(dep_name)
        rows = [int(r) for r in self.pods.live() if self.pods.dep[r] == dep.index]
        getattr(self.pods, field)[rows] = value
        return [self.pods.names[r] for r in rows]

    def third_party(
        self, service: str, delta: float, what: str, t: float, timeout_ms: float = 0.0
    ) -> None:
        """A third party the service calls starts (``delta`` > 0) or stops failing that share of
        its requests; ``what`` names it in the service's error logs. A failed call waits out the
        caller's ``timeout_ms`` first, which the service's mean latency carries."""
        i = self.topo.index[service]
        self.outside_err[i] = min(max(self.outside_err[i] + delta, 0.0), 1.0)
        self.outside_lat[i] = max(self.outside_lat[i] + delta * timeout_ms, 0.0)
        if delta > 0:
            msg = f"upstream {what} timed out: context deadline exceeded"
            if msg not in self.log_messages:
                self.log_messages.append(msg)
            self.outside_msg[i] = self.log_messages.index(msg)
        elif self.outside_err[i] <= 1e-9:
            self.outside_err[i], self.outside_msg[i], self.outside_lat[i] = 0.0, 0, 0.0

    def attach_condition(self, dep_name: str, field: str, value: float, t: float) -> list[str]:
        """Set a runtime condition on a deployment's pods by selector: on every live pod now and on
        every pod created until ``detach_condition``."""
        dep = self._dep(dep_name)
        self.selector_conditions.setdefault(dep.index, {})[field] = float(value)
        return self.set_pod_condition(dep_name, field, value, t)

    def detach_condition(self, dep_name: str, field: str) -> None:
        dep = self._dep(dep_name)
        self.selector_conditions.get(dep.index, {}).pop(field, None)
        rows = [int(r) for r in self.pods.live() if self.pods.dep[r] == dep.index]
        getattr(self.pods, field)[rows] = 0.0

    def clear_pod_condition(self, pod_names: list[str], field: str) -> None:
        for nm in pod_names:
            r = self.pods.index_of(nm)
            if r is not None:
                getattr(self.pods, field)[r] = 0.0

    def set_node_ready(self, node: str, ready: bool, t: float) -> list[str]:
        for nd in self.world.nodes:
            if nd.name == node:
                nd.ready = ready
                nd.down_since = None if ready else t
                self.world.event(
                    t,
                    "Normal" if ready else "Warning",
                    "NodeReady" if ready else "NodeNotReady",
                    "Node",
                    node,
                    f"Node {node} status is now: {'NodeReady' if ready else 'NodeNotReady'}",
                )
                for d in self.world.deployments:
                    d.dirty = True
                p = self.pods
                i = self.world.nodes.index(nd)
                return sorted(
                    {self.world.deployments[p.dep[r]].name for r in p.live() if p.node[r] == i}
                )
        raise SimError(f"node {node!r} not found")

    def flag_variants(self) -> dict[str, str]:
        cm = self.topo.app.flag_configmap
        text = self.world.configmaps.get(cm, {}).get(flags_mod.FLAG_FILE, "") if cm else ""
        return flags_mod.variants_of(text)

    def _set_flags(self, chosen: dict[str, str], t: float, strict: bool = False) -> Revision:
        """Rewrite the flag file in flagd's ConfigMap (flagd picks changes up without a restart)."""
        app = self.topo.app
        known = {f.name: f for f in app.flags}
        for flag, variant in chosen.items():
            if flag not in known:
                raise SimError(f"unknown flag {flag!r} (flags: {', '.join(known)})")
            if variant not in known[flag].variants:
                raise SimError(
                    f"flag {flag!r} has no variant {variant!r} (variants: {', '.join(known[flag].variants)})"
                )
        cur = self.flag_variants()
        cur.update(chosen)
        self.world.configmaps[app.flag_configmap] = {
            flags_mod.FLAG_FILE: flags_mod.flag_file(app, cur)
        }
        self.world.event(
            t,
            "Normal",
            "Updated",
            "ConfigMap",
            app.flag_configmap,
            f"configmap {app.flag_configmap} updated ({', '.join(f'{k}={v}' for k, v in chosen.items())})",
        )
        return self._dep("flagd").current

    def deploy_change(
        self,
        change: Change,
        sha: str,
        t: float,
        *,
        title: str | None = None,
        author: str = "ci",
        revert_of: str | None = None,
    ) -> ChangeRecord:
        """Lint, test, build and roll out a change, shown as ``title`` (default: its own) by
        ``author``.

        A code change is committed to the service's repository head and the image is built from
        the head (so it carries any defect the head holds); a config change edits the manifest and
        the pod template; an image change deploys a tag, which pulls only if the registry has it
        (``published_tags``: the team's rebuilds of the head, carrying its defect). ``revert_of`` is
        the sha of the commit this one reverts (``git revert`` on the head).
        """
        dep = self._dep(change.service)
        tpl = dep.current.template
        repo = tpl.image.rsplit(":", 1)[0]
        diff = change.diff
        title = change.title if title is None else title
        tracked = self.pipeline is not None and change.service in self.pipeline_services
        if tracked:
            if revert_of is not None:
                diff = self.pipeline.revert(revert_of, sha)
            else:
                diff = self.pipeline.commit(change, sha)
        if change.flags:
            rev = self._set_flags(dict(change.flags), t)
            image = tpl.image
        else:
            if change.kind == "code":
                image = f"{repo}:{sha[:12]}"
                defect, carrier = (
                    self.pipeline.defect(change.service)
                    if tracked
                    else (None if revert_of else change.defect, None if revert_of else change)
                )
                self.world.images[image] = Image(image, change.service, sha, defect, carrier)
                tpl = replace(tpl, image=image)
            elif change.kind == "image":
                image = f"{repo}:{change.image_tag}"
                if change.image_tag in self.published_tags.get(change.service, ()):
                    # the team's tag is a rebuild of the head (a new base image, a toolchain
                    # bump): it carries whatever defect the head holds
                    defect, carrier = (
                        self.pipeline.defect(change.service) if tracked else (None, None)
                    )
                    self.world.images[image] = Image(image, change.service, sha, defect, carrier)
                tpl = replace(tpl, image=image)
            else:
                image = tpl.image
                for k, v in change.env.items():
                    tpl = tpl.with_env(k, v)
                if "cpu_limit" in change.resources:
                    tpl = replace(tpl, cpu_limit=change.resources["cpu_limit"])
                if "mem_limit" in change.resources:
                    tpl = replace(tpl, mem_limit=change.resources["mem_limit"])
                if change.readiness_port is not None:
                    tpl = replace(tpl, readiness_port=change.readiness_port)
            rev = self._new_revision(dep, tpl, f"deploy {sha[:7]}: {title}", t, sha)
        build = "passed" if change.kind == "code" else "skipped (no source change)"
        rec = ChangeRecord(
            sha=sha,
            service=change.service,
            kind=change.kind,
            title=title,
            author=author,
            time=t,
            files=changed_files(diff) if diff else list(change.files),
            diff=diff,
            image=tpl.image,
            revision=rev.number,
            pipeline={
                "lint": "passed",
                "unit-tests": "passed",
                "build": build,
                "rollout": "configmap updated" if change.flags else "started",
            },
            change_id=change.id,
        )
        self.changes.append(rec)
        return rec

    def deploy_patch(
        self, service: str, build: BuildResult, diff: str, t: float, author: str
    ) -> ChangeRecord:
        """Roll out an image the pipeline built from a source patch (and any manifest settings it
        carried)."""
        dep = self._dep(service)
        self.world.images[build.image] = Image(
            build.image, service, build.sha, build.defect, build.carrier
        )
        tpl = replace(dep.current.template, image=build.image)
        for k, v in ((build.config or {}).get("env") or {}).items():
            tpl = tpl.with_env(k, str(v))
        title = next(
            (
                ln.strip()
                for ln in diff.splitlines()
                if ln.strip()
                and not ln.startswith(("---", "+++", "@@", "+", "-", " ", "diff ", "index "))
            ),
            "source patch",
        )
        rev = self._new_revision(dep, tpl, f"patch {build.sha[:7]}: {title}", t, build.sha)
        rec = ChangeRecord(
            sha=build.sha,
            service=service,
            kind="code",
            title=title,
            author=author,
            time=t,
            files=list(build.files),
            diff=diff,
            image=build.image,
            revision=rev.number,
            pipeline={s["stage"]: s["status"] for s in build.stages} | {"rollout": "started"},
            change_id=f"patch:{build.sha[:12]}",
        )
        self.changes.append(rec)
        return rec

    def restore_template(
        self, name: str, tpl: Template, t: float, cause: str, sha: str | None = None
    ) -> Revision:
        return self._new_revision(self._dep(name), tpl, cause, t, sha)
