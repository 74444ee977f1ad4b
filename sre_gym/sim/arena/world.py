"""ArenaWorld: one arena substrate with a task's fault overlay, stepped second by second.

The env talks to it through a small interface only: ``advance_to``, ``records``, ``snapshot`` and
the operations (``read_*`` and the interventions). It knows nothing of the env, the tools or the
grader. All randomness comes from the counter-based ``rng`` streams (drawn at construction, or keyed
by a service's rollout number), so reads never perturb the world and the same (task, seed, actions)
always give the same run.

Two layers of configuration, as in the real systems: ``config`` is what runs (a Redis ``CONFIG
SET``, a MariaDB ``SET GLOBAL``, the application services' settings) and ``persisted`` is what a
restart reads back (redis.conf after ``CONFIG REWRITE``, postgresql.auto.conf after ``ALTER
SYSTEM``, a Deployment's ConfigMap). A restart puts the service's running settings back to what
is persisted, so a repair made only at runtime is lost on it.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from sre_gym.catalogs.arena import load_substrate
from sre_gym.catalogs.arena.schema import Task
from sre_gym.rng import Streams
from sre_gym.sim.arena import dynamics, routes, shell, source, views
from sre_gym.sim.arena.load import arrivals, noise, phases, rates
from sre_gym.sim.arena.messages import MessageStore, guard_ms
from sre_gym.sim.arena.pods import Deployments
from sre_gym.sim.arena.routes import Route
from sre_gym.sim.arena.sessions import Sessions
from sre_gym.sim.arena.workers import Workers

MODEL_VERSION = "arena-sim/4"  # bump when the dynamics change: it is in the calibration fingerprint
RELEASE = "incident-arena-r1"
DEFAULT_OUTAGE_S = 10
BUILD_S = 45  # an image build on a warm layer cache, before the rollout starts


class WorldError(ValueError):
    """An operation the substrate refuses (unknown key, service or value)."""


class ArenaWorld:
    def __init__(self, task: Task, seed: int, horizon: int, faults: bool = True) -> None:
        self.task = task
        self.sub = load_substrate(task.substrate)
        self.seed = int(seed)
        self.horizon = int(horizon)
        self.streams = Streams(RELEASE, task.id, self.seed)
        self.lanes, self.mean, self.n = arrivals(self.sub, task.load, self.streams, self.horizon)
        self.noise = noise(self.lanes, self.streams, self.horizon)
        self.phase = phases(task.load, self.horizon)
        self.scheduled_rate = rates(task.load, self.horizon)
        L = len(self.lanes)
        z = np.zeros((L, self.horizon))
        self.rec = {k: z.copy() for k in ("ok", "err", "p50", "p99", "admitted")}
        self.rec_ckpt = np.zeros(self.horizon, dtype=bool)
        self.rec_pool_wait = {p: np.zeros(self.horizon) for p in self.sub.pools}
        self.rec_backlog = np.zeros(self.horizon)
        self.rec_cause = np.zeros((L, self.horizon), dtype=np.int8)
        self.rec_up = np.ones((len(self.sub.services), self.horizon), dtype=bool)
        self.rec_working = np.zeros(self.horizon)  # the queue's worker processes working
        self.config: dict[str, Any] = copy.deepcopy(self.sub.config)
        self.config.update(copy.deepcopy(self.sub.harmless))
        self.persisted: dict[str, Any] = copy.deepcopy(self.config)
        self.events: dict[str, bool] = {e: False for e in self.sub.events}
        self.magnitudes: dict[str, dict[str, float]] = {
            e: dict(v) for e, v in self.sub.event_costs.items()
        }
        self.state: dict[str, Any] = {}
        self.counters = {"flushall": 0, "restarts": [], "terminated": 0}
        self.now = 0
        self._timed: list[tuple[float, int, str, bool]] = []  # (t, order, event, active)
        self._outage: dict[str, int] = {}
        self.faults = faults
        self.cache_run_id = int(self.streams.gen("arena:runid").integers(1 << 40))
        self.pods = Deployments(self.sub, self.streams, self.config)
        self.sessions = Sessions(self.sub)
        self.sessions.connect(0, self.config)
        self.store = MessageStore(self.sub.messages) if self.sub.messages else None
        spec = self.sub.workers
        self.workers = None
        if spec is not None:
            n = int(self.config.get(f"{spec.service}.replicas", 0))
            self.workers = Workers(spec, self.sub.rollout, self.streams, n)
        # image tags whose build carries the task's image-tier fault, and the edited source trees
        self.leaky: set[str] = set()
        self.sources: dict[str, dict[str, str]] = {}
        self.builds = 0
        self.runtime_generation = 1
        self.pod_log: list[tuple[int, str, str]] = []  # (t, service, line): starts and the like
        self.pod_starts: list[
            tuple[int, str, int, dict[str, Any]]
        ] = []  # (t, svc, slot, start values)
        if faults:
            self._arm()
        for svc, d in self.pods.deps.items():  # the pods running when the run starts
            for slot, v in enumerate(d.slots):
                self._pod_started(svc, slot, 0, d.versions[v])

    # ------------------------------------------------------------------ faults and events
    def _arm(self) -> None:
        for leg in self.task.faults:
            if leg.event:
                self.magnitudes[leg.event] = {
                    **self.magnitudes.get(leg.event, {}),
                    **{k: float(v) for k, v in leg.params.items()},
                }
            if leg.arm_at_s <= 0:
                self._inject(leg)
            else:
                self._timed.append((leg.arm_at_s, len(self._timed), f"leg:{leg.id}", True))
        for ev in self.task.load.events:
            if ev.params:
                self.magnitudes[ev.name] = {
                    **self.magnitudes.get(ev.name, {}),
                    **{k: float(v) for k, v in ev.params.items()},
                }
            if ev.at_s is not None:
                self._timed.append((ev.at_s, len(self._timed), ev.name, ev.active))

    def _inject(self, leg) -> None:
        if leg.mechanism == "idle_txn_lock_leak":
            # the image's layer: every pod of this tag leaks a lock when it starts
            self.leaky.add(str(self.config[f"{leg.target}.image"]))
        for k, v in leg.injected.items():
            self.config[k] = copy.deepcopy(v)
            # a configuration or image fault is in what is deployed; a runtime one only in the
            # running process (role settings and grants are stored in the database's catalog)
            if leg.tier in ("config", "image") or "@" in k or ".grants." in k:
                self.persisted[k] = copy.deepcopy(v)
        if leg.tier in ("config", "image"):
            # the faulty values were there when the pods started
            for svc in {k.split(".", 1)[0] for k in leg.injected}:
                self.pods.reseed(svc, self.persisted)
        if leg.event:
            self.events[leg.event] = True
        if leg.mechanism == "role_db_statement_timeout":
            # the fault job recycles the app's sessions so the setting manifests (then is scrubbed)
            self.sessions.connect(self.now, self.config)

    def declare(self, t: float) -> None:
        """Arm the declaration-anchored re-triggers."""
        for ev in self.task.load.events:
            if ev.after_declaration_s is not None:
                self._timed.append(
                    (t + ev.after_declaration_s, len(self._timed), ev.name, ev.active)
                )

    # ------------------------------------------------------------------ stepping
    def advance_to(self, t: float) -> None:
        t = min(int(np.ceil(t)), self.horizon)
        while self.now < t:
            due = [x for x in self._timed if x[0] <= self.now]
            for x in sorted(due):
                self._timed.remove(x)
                self._fire(x)
            for svc, slot, tr, vals in self.pods.advance(self.now):
                self._pod_started(svc, slot, tr, vals)
            self.sessions.recycle(self.now, self.config)
            if self.store is not None:
                self.store.advance(self.now)
                self._session_lock()
            for s, until in list(self._outage.items()):
                if until <= self.now:
                    del self._outage[s]
                    if s == "postgres":
                        self.sessions.connect(self.now, self.config)  # the app reconnects
            cands = [int(np.ceil(x[0])) for x in self._timed if x[0] > self.now]
            cands += [u for u in self._outage.values() if u > self.now]
            store_next = self.store.next_change(self.now) if self.store is not None else None
            for nxt in (
                self.pods.next_change(self.now),
                self.sessions.next_expiry(self.now),
                store_next,
            ):
                if nxt is not None and nxt > self.now:
                    cands.append(nxt)
            nxt = min([*cands, t])
            self._segment(self.now, max(nxt, self.now + 1))
            self.now = max(nxt, self.now + 1)

    def _fire(self, x: tuple[float, int, str, bool]) -> None:
        _, _, name, active = x
        if name.startswith("leg:"):
            leg = next(f for f in self.task.faults if f.id == name[4:])
            self._inject(leg)
        else:
            self.events[name] = active

    def down(self) -> set[str]:
        """Services that serve nothing now: a store restarting, a Deployment scaled to zero."""
        out = set(self._outage)
        for svc in self.sub.services:
            if int(self.config.get(f"{svc}.replicas", 1)) <= 0:
                out.add(svc)
        return out

    def _segment(self, t0: int, t1: int) -> None:
        sl = slice(t0, t1)
        down = self.down()
        for j, svc in enumerate(self.sub.services):
            self.rec_up[j, sl] = svc not in down
        gens = {p: self.pods.generations(p) for p in self.sub.pools}
        secs = np.arange(t0, t1)
        if self.workers is not None:
            svc = self.workers.spec.service
            self.workers.resize(0 if svc in down else int(self.config[f"{svc}.replicas"]), t0)
        cold = {
            svc: c.pool_hold_ms
            / 1000.0
            * self.pods.cold_share(svc, secs, float(self.config.get(c.ttl_key, 0) or 0))
            for svc, c in self.sub.cold_cache.items()
        }
        seg = dynamics.simulate(
            self.sub,
            self.lanes,
            self.n[:, sl],
            self.noise[:, sl],
            secs,
            self.config,
            self.events,
            self.magnitudes,
            self.state,
            down=down,
            pool_gens=gens,
            session_timeouts=self.sessions.timeouts_ms(self.config),
            workers=self.workers if self.workers is not None else self._workers(),
            cold_hold_s=cold,
            store=self.store,
        )
        self.rec["ok"][:, sl] = seg.ok
        self.rec["err"][:, sl] = seg.err
        self.rec["p50"][:, sl] = seg.p50
        self.rec["p99"][:, sl] = seg.p99
        self.rec["admitted"][:, sl] = seg.admitted
        self.rec_ckpt[sl] = seg.checkpoint
        self.rec_backlog[sl] = seg.backlog
        self.rec_cause[:, sl] = seg.cause
        self.rec_working[sl] = seg.working
        for p, w in seg.pool_wait.items():
            self.rec_pool_wait[p][sl] = w

    def _queue_wait(self) -> float | None:
        """How long a job enqueued now would wait behind the backlog (None: nothing runs)."""
        backlog = float(self.state.get("backlog", 0.0))
        rate = dynamics.queue_rate(self.sub, self.config, self._workers())
        if rate <= 0:
            return None if backlog > 0 else 0.0
        return round(backlog / rate, 3)

    def _workers(self) -> int:
        """Worker processes working now."""
        if self.workers is not None:
            return self.sub.worker_procs * self.workers.running()
        if "worker-long" in self.down():
            return 0
        return self.sub.worker_procs * int(self.config.get("worker-long.replicas", 0))

    # ------------------------------------------------------------------ reads
    def snapshot(self) -> dict[str, Any]:
        """The guarded state as the verifier reads it (running and stored configuration, events,
        pods, ledger, counters, sessions)."""
        led = {k: round(float(v), 3) for k, v in self.state.get("ledger", {}).items()}
        return {
            "t": int(self.now),
            "config": copy.deepcopy(self.config),
            "persisted": copy.deepcopy(self.persisted),
            "events": dict(self.events),
            "pods": self.pods.snapshot(),
            "down": sorted(self.down()),
            "ledger": led,
            "backlog": round(float(self.state.get("backlog", 0.0)), 3),
            "queue_wait_s": self._queue_wait(),
            "finished_jobs_kept": round(float(self.state.get("kept", 0.0)), 3),
            "workers": self.workers.snapshot() if self.workers is not None else [],
            "counters": {
                "flushall": self.counters["flushall"],
                "restarts": list(self.counters["restarts"]),
                "terminated": self.counters["terminated"],
            },
            "cache_run_id": int(self.cache_run_id),
            "sessions": self.sessions.snapshot(self.config),
            "messages": self.store.snapshot() if self.store is not None else None,
            "images": {
                k: {"tag": v, "faulty": v in self.leaky}
                for k, v in sorted(self.config.items())
                if k.endswith(".image")
            },
            "guard_ms": guard_ms(self.config, *self._app_identity()),
        }

    def _app_identity(self) -> tuple[str, str]:
        if self.store is not None:
            return self.store.spec.app_role, self.store.spec.app_db
        return self.sub.app_role, self.sub.app_db

    def lane_stats(self, t0: int, t1: int) -> dict[str, dict[str, float]]:
        t0, t1 = max(0, int(t0)), min(int(t1), self.now)
        out = {}
        for i, name in enumerate(self.lanes):
            n = self.n[i, t0:t1].sum()
            ok = self.rec["ok"][i, t0:t1].sum()
            w = self.rec["ok"][i, t0:t1]
            p99 = dynamics.weighted_quantile(self.rec["p99"][i, t0:t1], w, 0.99)
            p50 = dynamics.weighted_quantile(self.rec["p50"][i, t0:t1], w, 0.5)
            out[name] = {
                "rps": round(float(n) / max(1, t1 - t0), 2),
                "error_rate": round(float(1 - ok / n) if n else 0.0, 4),
                "p50_ms": round(p50, 1),
                "p99_ms": round(p99, 1),
            }
        return out

    def pool_stats(self, service: str) -> dict[str, Any]:
        return views.pool_stats(self, service)

    def db_view(self, kind: str) -> Any:
        return views.db_view(self, kind)

    def redis_info(self, service: str) -> dict[str, Any]:
        return views.redis_info(self, service)

    def log_lines(
        self, service: str, window_s: int, contains: str | None = None, level: str = "any"
    ) -> list[str]:
        return views.log_lines(self, service, window_s, contains, level)

    def log_stream(self, service: str, t0: int, t1: int) -> list[str]:
        return views.log_stream(self, service, t0, t1)

    def admin_routes(self, service: str) -> dict[str, Route]:
        """Admin routes beyond config, event and stats that ``service`` serves."""
        return routes.admin_routes(self, service)

    def promql(self, query: str, range_s: int | None, step_s: int, at: float | None = None) -> Any:
        from sre_gym.sim.arena import metrics  # the PromQL engine, loaded when first queried

        try:
            return metrics.query(self, query, range_s, step_s, at)
        except metrics.QueryError as e:
            raise WorldError(str(e)) from None

    def shell(self, pod: str, command: str) -> Any:
        try:
            return shell.run(self, pod, command)
        except shell.ShellError as e:
            raise WorldError(str(e)) from None

    def _tree(self, service: str) -> dict[str, str]:
        if service not in self.sources:
            base = source.base_tree(service)
            if base is None:
                raise WorldError(f"no source tree for {service}")
            self.sources[service] = dict(base)
        return self.sources[service]

    def read_source(self, service: str, path: str | None) -> Any:
        try:
            return source.read(self._tree(service), path)
        except source.SourceError as e:
            raise WorldError(str(e)) from None

    def edit_source(self, service: str, path: str, find: str, replace: str) -> Any:
        try:
            return source.edit(self._tree(service), path, find, replace)
        except source.SourceError as e:
            raise WorldError(str(e)) from None

    def rebuild(self, service: str) -> dict[str, Any]:
        """Build the service's image from its current source, then roll it out. The new image
        carries the task's image-tier fault unless the source now ends the faulty path."""
        tree = self._tree(service)
        key = f"{service}.image"
        if key not in self.config:
            raise WorldError(f"{service} is not built from a source tree here")
        self.builds += 1
        tag = f"{self.sub.config[key]}-b{self.builds}"
        for leg in self.task.faults:
            fixed_by = leg.params.get("fixed_by")
            if leg.target == service and fixed_by and not source.path_ends(tree, fixed_by):
                self.leaky.add(tag)
        self.config[key] = self.persisted[key] = tag
        ready = self.pods.roll(service, self.now + BUILD_S, self.persisted)
        return {"image": tag, "build_s": BUILD_S, "ready_s": max(ready)}

    def resequence(self, channel: str | None) -> Any:
        if self.store is None:
            raise WorldError("no message sequences on this substrate")
        return self.store.resequence(self.now, channel)

    def delete_duplicates(self) -> Any:
        if self.store is None:
            raise WorldError("no message sequences on this substrate")
        return {"deleted": self.store.delete_duplicates()}

    # ------------------------------------------------------------------ the message store
    def _pod_started(self, svc: str, slot: int, t: int, vals: dict[str, Any]) -> None:
        image = vals.get(f"{svc}.image")
        self.pod_log.append((t, svc, f"INFO pod {svc}-{slot} ready (image {image})"))
        self.pod_starts.append((int(t), svc, int(slot), vals))
        if self.store is None or svc != "svc-message":
            return
        self.store.release(slot=slot)  # the replaced pod's sessions closed with it
        mode = self.persisted.get("svc-message.runtime_mode")
        if mode is not None:
            self.pod_log.append(
                (
                    t,
                    svc,
                    f"INFO runtime lifecycle restored mode={mode} from app_runtime (persisted)",
                )
            )
        if image in self.leaky:
            self.store.lock(t, self.config, "leak", slot)
            self.pod_log.append((t, svc, "INFO sequencer warm-up primed 8 hot channels"))

    def _session_lock(self) -> None:
        """A pinned runtime lifecycle keeps the sequencer lock for a worker's whole session:
        whatever ends the holder, the next session takes it at once."""
        assert self.store is not None
        mode = self.config.get("svc-message.runtime_mode", "request")
        h = self.store.holder
        if mode == "pinned" and h is None:
            self.store.lock(self.now, self.config, "pinned")
        elif mode != "pinned" and h is not None and h["kind"] == "pinned":
            self.store.release()

    # ------------------------------------------------------------------ interventions
    def set_config(
        self, key: str, value: Any, persist: bool = True, running: bool = True
    ) -> tuple[Any, Any]:
        """Change a setting: the running value, the stored one, or both. A stored change to a
        setting a process reads at start rolls its Deployment."""
        if key not in self.config:
            raise WorldError(f"unknown setting {key!r}")
        old = copy.deepcopy(self.config[key])
        if running:
            self.config[key] = copy.deepcopy(value)
        if persist:
            changed = self.persisted.get(key) != value
            self.persisted[key] = copy.deepcopy(value)
            svc = key.split(".", 1)[0]
            if changed and key in self.sub.start_keys and svc in self.pods.deps:
                self._roll(svc)
        return old, value

    def add_scoped(self, key: str, value: Any, persist: bool = True) -> tuple[Any, Any]:
        """Set a scoped setting that may not exist yet (role or database scope); None resets."""
        old = self.config.get(key)
        if value is None:
            self.config.pop(key, None)
            if persist:
                self.persisted.pop(key, None)
        else:
            self.config[key] = value
            if persist:
                self.persisted[key] = value
        return old, value

    def persist(self, prefix: str) -> list[str]:
        """Write the running settings under ``prefix`` to the stored configuration (CONFIG
        REWRITE, ACL SAVE). Returns the keys whose stored value changed."""
        out = []
        for k, v in self.config.items():
            if k.startswith(prefix) and self.persisted.get(k) != v:
                self.persisted[k] = copy.deepcopy(v)
                out.append(k)
        return out

    def reload(self, prefix: str) -> list[str]:
        """Apply the stored global settings under ``prefix`` to the running server
        (pg_reload_conf). Scoped settings (role, database) are applied at session start."""
        out = []
        for k, v in self.persisted.items():
            if k.startswith(prefix) and "@" not in k and self.config.get(k) != v:
                self.config[k] = copy.deepcopy(v)
                out.append(k)
        return out

    def set_event(self, name: str, active: bool) -> tuple[bool, bool]:
        if name not in self.events:
            raise WorldError(f"unknown event {name!r}")
        old = self.events[name]
        self.events[name] = bool(active)
        return old, bool(active)

    def terminate_sessions(
        self, role: str | None = None, pid: int | None = None, state: str | None = None
    ) -> int:
        """pg_terminate_backend over the sessions that match (a pid, a role, a state)."""
        n = 0
        h = self.store.holder if self.store is not None else None
        if h is not None and (
            pid == h["pid"]
            or (pid is None and state == "idle in transaction")
            or (pid is None and state is None and role == self.store.spec.app_role)
        ):
            self.store.release()
            n += 1
        if state in (None, "idle"):
            n += self.sessions.terminate(self.now, self.config, role=role, pid=pid)
        self.counters["terminated"] += n
        return n

    def flushall(self, service: str) -> None:
        self.counters["flushall"] += 1
        if service == "redis-queue":
            self._lose_backlog()
        else:
            self.cache_run_id ^= 0x5A5A

    def _lose_backlog(self) -> None:
        dynamics.drop_queue(self.state)

    def _roll(self, svc: str) -> list[int]:
        return self.pods.roll(svc, self.now, self.persisted)

    def restart(self, service: str) -> dict[str, Any]:
        """Restart a service. An application service rolls pod by pod and comes up from the
        stored configuration (its switches live in the config broker and survive); a store
        refuses connections for a while and comes back with its stored settings (the queue Redis
        keeps its jobs through its append-only file; the cache Redis comes back empty). Returns
        when it is ready."""
        if service not in self.sub.services:
            raise WorldError(f"unknown service {service!r}")
        self.counters["restarts"].append({"service": service, "t": int(self.now)})
        prefix = f"{service}."
        for k in list(self.config):
            if k.startswith(prefix) and "@" not in k and k in self.persisted:
                self.config[k] = copy.deepcopy(self.persisted[k])
        if service in self.pods.deps:
            ready = self._roll(service)
            if self.workers is not None and service == self.workers.spec.service:
                self.workers.restart(self.now)
            if service in ("api",) and self.sub.app_sessions:
                self.sessions.connect(self.now, self.config)
            return {"ready_s": max(ready)}
        outage = int(self.sub.store_outage_s.get(service, DEFAULT_OUTAGE_S))
        self._outage[service] = self.now + outage
        pool_q = self.state.get("pool_q", {})
        if service == "postgres":
            for p in pool_q:
                pool_q[p] = {}
            if self.store is not None:
                self.store.release()  # every session ends with the server
        if service == "redis-queue" and self.persisted.get("redis-queue.appendonly") != "yes":
            self._lose_backlog()
        if service == "redis-cache":
            self.cache_run_id ^= 0x3C3C
        return {"ready_s": self.now + outage}
