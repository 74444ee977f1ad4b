"""SimCluster: the simulated application on Kubernetes, advanced tick by tick.

The cluster owns state (deployments, pods, nodes, policies, images), writes telemetry into its TSDB
every tick, and exposes the operations that tools and the orchestrator perform. It knows nothing about
faults or scores: the orchestrator changes the world through the same kinds of operations a person
would (a deploy, a policy, a stressed pod), and the dynamics do the rest.

This module holds the state, its behaviours, forks, the per-tick stepping and recording, pod creation
and the status views; the operations come from mixins: interventions on deployments, policies,
pods, nodes and flags (``interventions.py``) and deploys through the pipeline (``deploys.py``).
``SimError`` and ``ChangeRecord`` are re-exported from here.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable

import numpy as np

from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.catalogs.schema import NOT_SERVING, parse_mem
from sre_gym.clock import EPISODE_S, EPOCH, TICK_S
from sre_gym.rng import Streams, stable_hash
from sre_gym.sim import autoscaler, dynamics
from sre_gym.sim import flags as flags_mod
from sre_gym.sim import netpol as netpol_mod
from sre_gym.sim import pods as P
from sre_gym.sim import queues as queues_mod
from sre_gym.sim.controller import k8s_suffix, pick_node, reconcile
from sre_gym.sim.deploys import ChangeRecord, Deploys
from sre_gym.sim.interventions import Interventions, SimError
from sre_gym.sim.metrics import MetricWriter
from sre_gym.sim.pipeline import Pipeline
from sre_gym.sim.source_trees import PipelineError, services_with_trees
from sre_gym.sim.state import (
    Behaviour,
    Deployment,
    Image,
    Node,
    Revision,
    Template,
    World,
    compile_behaviour,
    initial_template,
)
from sre_gym.sim.topology import compile_topology
from sre_gym.telemetry.tsdb import TSDB

__all__ = ["INITIAL_AGE_S", "WARMUP_S", "ChangeRecord", "SimCluster", "SimError"]

WARMUP_S = 600
INITIAL_AGE_S = 2 * 86400  # the app's pods were created two days before the run (long warmed up)
# rows each metric family reached in earlier runs of an app and horizon in this process: TSDB
# blocks are allocated at that size (see telemetry.tsdb.Family); a handful of small dicts
_ROW_HINTS: dict[tuple[str, int], dict[str, int]] = {}


# the per-behaviour arrays the dynamics read: (array attribute, Behaviour field)
_BEHAVIOUR_COLUMNS = (
    ("beh_err", "err"),
    ("beh_lat", "lat_ms"),
    ("beh_cpu_mult", "cpu_mult"),
    ("beh_crash_after", "crash_after"),
    ("beh_leak", "leak"),
    ("beh_cpu_limit", "cpu_limit"),
    ("beh_mem_limit", "mem_limit"),
    ("beh_image_ok", "image_ok"),
    ("beh_probe_ok", "probe_ok"),
    ("beh_timeout", "timeout_ms"),
    ("beh_retries", "retries"),
    ("beh_addr_bad", "addr_bad"),
    ("beh_pool", "pool"),
    ("beh_hold", "hold_ms"),
    ("beh_corrupt", "corrupt"),
    ("beh_consume", "consume_ms"),
)


class SimCluster(Interventions, Deploys):
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
        hints = _ROW_HINTS.setdefault((app, self.capacity), {})
        self.tsdb = TSDB(t0=EPOCH, tick_s=TICK_S, capacity=self.capacity, row_hints=hints)
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
        self.behaviours: list[Behaviour] = []
        self._behaviour_ids: dict[tuple[int, Template], int] = {}
        self._beh_version = 0  # behaviours already in the per-behaviour arrays
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
        # per edge of the call graph only: no other pair ever carries calls, failures or a kind
        self.edges = np.nonzero(topo.calls)
        n_edges = len(self.edges[0])
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
        # edge records keep the call graph's edges (Train Ticket's dense [n, n] records took 28 MB
        # an episode, for about 2 % of pairs)
        self.rec_edge_fail = np.zeros((cap, n_edges))
        self.rec_edge_kind = np.zeros((cap, n_edges), dtype=np.int8)
        self.rec_edge_att = np.zeros((cap, n_edges))
        self.rec_entry = np.zeros((cap, 3))  # requests/s, failed share, slow share
        self.rec_log = np.zeros((cap, n), dtype=np.int16)
        self.rec_outside = np.zeros((cap, n))  # error share from third parties (open world)
        self.rec_outside_log = np.zeros((cap, n), dtype=np.int16)
        self.rec_corrupt = np.zeros((cap, n))
        self.rec_lag = np.zeros((cap, len(self.queues.names)))
        self.log_messages: list[str] = [""]
        self.metrics = MetricWriter(self, self.tsdb)
        for d in deps:
            self._behaviour_of(d, d.current.template)
            reconcile(self, d, float(EPOCH - INITIAL_AGE_S))

    # ------------------------------------------------------------------ behaviours
    def _behaviour_of(self, dep: Deployment, tpl: Template) -> int:
        key = (dep.index, tpl)
        pid = self._behaviour_ids.get(key)
        if pid is None:
            pid = self._behaviour_ids[key] = len(self.behaviours)
            self.behaviours.append(compile_behaviour(self.topo, dep, tpl, self.world.images))
            msg = self.behaviours[-1].log
            if msg and msg not in self.log_messages:
                self.log_messages.append(msg)
        return pid

    def _behaviour_arrays(self) -> None:
        """Per-behaviour arrays, extended by the behaviours compiled since the last call (they are
        append-only, so rebuilding them whole each time would cost quadratic work in a run)."""
        ps = self.behaviours
        start = self._beh_version
        if start == len(ps):
            return
        new = ps[start:]
        cols = {name: [getattr(p, attr) for p in new] for name, attr in _BEHAVIOUR_COLUMNS}
        cols["beh_log"] = [self.log_messages.index(p.log) if p.log else 0 for p in new]
        for name, values in cols.items():
            fresh = np.array(values)
            setattr(
                self, name, fresh if start == 0 else np.concatenate([getattr(self, name), fresh])
            )
        self._beh_version = len(ps)

    # ------------------------------------------------------------------ forks
    def fork(self, keep: Callable[[tuple], bool] | None = None) -> SimCluster:
        """An independent copy of the world that simulates on without telemetry or records.

        Used for what-if checks (repair persistence) that must not touch the real run. ``keep``:
        which scheduled actions (``(time, sequence, function)``) the fork takes over; all by
        default. The rest are left out before copying rather than copied and dropped.
        """
        heavy = ("tsdb", "metrics", *[k for k in vars(self) if k.startswith("rec_")])
        if keep is not None:
            heavy = (*heavy, "_actions")
        saved = {k: getattr(self, k) for k in heavy}
        for k in heavy:
            setattr(self, k, None)
        if keep is not None:
            self._actions = [a for a in saved["_actions"] if keep(a)]
        # read-only or append-only structures are shared with the fork instead of copied
        w = self.world
        shared: list[object] = [
            self.topo,
            self.streams,
            self.behaviours,
            self._behaviour_ids,
            self.changes,
            self._noise,
            self._unif,
            self._load_noise,
            self.log_messages,
            w.images,
            w.events,
            w._event_index,
            w._events_of,
        ]
        for d in w.deployments:
            shared += d.revisions  # Revision objects are never mutated; the lists are copied
        shared += w.netpols  # frozen: policies are added and deleted, never changed
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
        clone.world.events, clone.world._event_index, clone.world._events_of = [], {}, {}
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
        self._behaviour_arrays()
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
            beh_image_ok=self.beh_image_ok,
            beh_probe_ok=self.beh_probe_ok,
            beh_crash_after=self.beh_crash_after,
            beh_leak=self.beh_leak,
            beh_mem_limit=self.beh_mem_limit,
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
        self._behaviour_arrays()
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
                pod_beh=pods.beh,
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
                beh_err=self.beh_err,
                beh_lat=self.beh_lat,
                beh_cpu_mult=self.beh_cpu_mult,
                beh_cpu_limit=self.beh_cpu_limit,
                beh_corrupt=self.beh_corrupt,
                beh_timeout=self.beh_timeout,
                beh_retries=self.beh_retries,
                beh_addr_bad=self.beh_addr_bad,
                beh_pool=self.beh_pool,
                beh_hold=self.beh_hold,
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
            np.maximum.at(consume, pods.dep[rows][sel], self.beh_consume[pods.beh[rows][sel]])
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
        self.rec_edge_fail[tick] = out.edge_fail[self.edges]
        self.rec_edge_kind[tick] = out.edge_kind[self.edges]
        self.rec_edge_att[tick] = out.edge_att[self.edges]
        self.rec_entry[tick] = (out.entry_rps, out.entry_failed, out.entry_slow)
        self.rec_corrupt[tick] = out.corrupt
        self.rec_outside[tick] = self.outside_err
        self.rec_outside_log[tick] = self.outside_msg
        if self.queues.names:
            self.rec_lag[tick] = self.queues.lag
        ready_rows = rows[pods.ready[rows] & (pods.dep[rows] < n)]
        if len(ready_rows):
            np.maximum.at(
                self.rec_log[tick], pods.dep[ready_rows], self.beh_log[pods.beh[ready_rows]]
            )
        self.tsdb.commit(tick)

    def edge_records(self, tick: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Tick ``tick``'s recorded edges as [caller, callee] matrices: the per-attempt failure
        probability, the failure kind (``dynamics.TickOut.edge_kind``) and attempts per second;
        0 for pairs without calls."""
        n = self.topo.n
        out = []
        for rec in (self.rec_edge_fail, self.rec_edge_kind, self.rec_edge_att):
            m = np.zeros((n, n), dtype=rec.dtype)
            m[self.edges] = rec[tick]
            out.append(m)
        return out[0], out[1], out[2]

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
        pid = self._behaviour_of(dep, rev.template)
        row = self.pods.add(name, dep.index, rev.number, pid, node, t)
        # the node pulls an image it has not run yet (IfNotPresent, as the manifests pull)
        image = rev.template.image
        pull = 0.0
        if node >= 0 and image not in self.node_images[node]:
            cfg = self.topo.app.pull
            pull = cfg.overhead_s + self.dep_image_mb[dep.index] / cfg.mb_s
            if self.behaviours[pid].image_ok:
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
