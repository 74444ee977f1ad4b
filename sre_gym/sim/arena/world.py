"""ArenaWorld: one arena substrate with a task's fault overlay, stepped second by second.

The env talks to it through a small interface only: ``advance_to``, ``records``, ``snapshot`` and
the operations (``read_*`` and the interventions). It knows nothing of the env, the tools or the
grader. All randomness is drawn at construction from the counter-based ``rng`` streams, so reads
never perturb the world and the same (task, seed) always gives the same run.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from sre_gym.catalogs.arena import load_substrate
from sre_gym.catalogs.arena.schema import Task
from sre_gym.rng import Streams
from sre_gym.sim.arena import dynamics, views
from sre_gym.sim.arena.load import arrivals, noise, phases, rates

MODEL_VERSION = "arena-sim/2"  # bump when the dynamics change: it is in the calibration fingerprint
RELEASE = "incident-arena-r1"
# keys a plain restart of the owning service resets to their persisted value (runtime settings)
RUNTIME_PREFIXES = ("mariadb.", "postgres.", "redis-queue.", "redis-cache.", "redis.")
STATEFUL_OUTAGE_S = 10


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
        self.config: dict[str, Any] = copy.deepcopy(self.sub.config)
        self.config.update(copy.deepcopy(self.sub.harmless))
        self.persisted: dict[str, Any] = copy.deepcopy(self.config)
        self.events: dict[str, bool] = {e: False for e in self.sub.events}
        self.magnitudes: dict[str, dict[str, float]] = {}
        self.state: dict[str, Any] = {}
        self.counters = {"flushall": 0, "restarts": [], "terminated": 0}
        self.now = 0
        self._timed: list[tuple[float, int, str, bool]] = []  # (t, order, event, active)
        self._outage: dict[str, int] = {}
        self.faults = faults
        self.cache_run_id = self.streams.gen("arena:runid").integers(1 << 40)
        self._sessions_connect(0)
        if faults:
            self._arm()

    # ------------------------------------------------------------------ faults and events
    def _arm(self) -> None:
        for leg in self.task.faults:
            if leg.event:
                self.magnitudes[leg.event] = {k: float(v) for k, v in leg.params.items()}
            if leg.arm_at_s <= 0:
                self._inject(leg)
            else:
                self._timed.append((leg.arm_at_s, len(self._timed), f"leg:{leg.id}", True))
        for ev in self.task.load.events:
            if ev.params:
                self.magnitudes.setdefault(ev.name, {k: float(v) for k, v in ev.params.items()})
            if ev.at_s is not None:
                self._timed.append((ev.at_s, len(self._timed), ev.name, ev.active))

    def _inject(self, leg) -> None:
        for k, v in leg.injected.items():
            self.config[k] = copy.deepcopy(v)
            if leg.tier == "config" or leg.mechanism == "role_db_statement_timeout":
                self.persisted[k] = copy.deepcopy(v)
        if leg.event:
            self.events[leg.event] = True
        if leg.mechanism == "role_db_statement_timeout":
            # the fault job recycles the app's sessions so the setting manifests (then is scrubbed)
            self._sessions_connect(self.now)

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
            nxt = min([int(np.ceil(x[0])) for x in self._timed if x[0] > self.now] + [t])
            nxt = min(nxt, *[u for u in self._outage.values() if u > self.now], t)
            self._segment(self.now, max(nxt, self.now + 1))
            self.now = max(nxt, self.now + 1)

    def _fire(self, x: tuple[float, int, str, bool]) -> None:
        _, _, name, active = x
        if name.startswith("leg:"):
            leg = next(f for f in self.task.faults if f.id == name[4:])
            self._inject(leg)
        else:
            self.events[name] = active

    def _segment(self, t0: int, t1: int) -> None:
        sl = slice(t0, t1)
        cfg = self.config
        down = [s for s, until in self._outage.items() if until > t0]
        if down:
            cfg = dict(cfg)
            for s in down:
                cfg[f"{s}.replicas"] = 0
        seg = dynamics.simulate(
            self.sub,
            self.lanes,
            self.n[:, sl],
            self.noise[:, sl],
            np.arange(t0, t1),
            cfg,
            self.events,
            self.magnitudes,
            self.state,
        )
        self.rec["ok"][:, sl] = seg.ok
        self.rec["err"][:, sl] = seg.err
        self.rec["p50"][:, sl] = seg.p50
        self.rec["p99"][:, sl] = seg.p99
        self.rec["admitted"][:, sl] = seg.admitted
        self.rec_ckpt[sl] = seg.checkpoint
        for p, w in seg.pool_wait.items():
            self.rec_pool_wait[p][sl] = w

    # ------------------------------------------------------------------ sessions
    def _sessions_connect(self, t: float, only: np.ndarray | None = None) -> None:
        k = self.sub.app_sessions
        if k <= 0:
            self.state["session_timeouts_ms"] = None
            return
        tmo = dynamics.effective_timeout_ms(self.config, self.sub.app_role, self.sub.app_db)
        cur = self.state.get("session_timeouts_ms")
        if cur is None or only is None:
            self.state["session_timeouts_ms"] = np.full(k, tmo)
            self.state["session_started"] = np.full(k, float(t))
            self.state["session_pid"] = 1000 + np.arange(k) + 100 * int(t)
        else:
            self.state["session_timeouts_ms"][only] = tmo
            self.state["session_started"][only] = float(t)
            self.state["session_pid"][only] = 1000 + np.flatnonzero(only) + 100 * int(t)

    # ------------------------------------------------------------------ reads
    def snapshot(self) -> dict[str, Any]:
        """The guarded state as the verifier reads it (config, events, ledger, counters)."""
        sess = []
        if self.state.get("session_timeouts_ms") is not None:
            for pid, t0, tmo in zip(
                self.state["session_pid"],
                self.state["session_started"],
                self.state["session_timeouts_ms"],
                strict=True,
            ):
                sess.append(
                    {
                        "pid": int(pid),
                        "role": self.sub.app_role,
                        "backend_start_s": float(t0),
                        "statement_timeout_ms": float(tmo),
                    }
                )
        led = {k: round(float(v), 3) for k, v in self.state.get("ledger", {}).items()}
        return {
            "t": int(self.now),
            "config": copy.deepcopy(self.config),
            "events": dict(self.events),
            "ledger": led,
            "backlog": round(float(self.state.get("backlog", 0.0)), 3),
            "counters": {
                "flushall": self.counters["flushall"],
                "restarts": list(self.counters["restarts"]),
                "terminated": self.counters["terminated"],
            },
            "cache_run_id": int(self.cache_run_id),
            "sessions": sess,
        }

    def lane_stats(self, t0: int, t1: int) -> dict[str, dict[str, float]]:
        t0, t1 = max(0, int(t0)), min(int(t1), self.now)
        out = {}
        for i, name in enumerate(self.lanes):
            n = self.n[i, t0:t1].sum()
            ok = self.rec["ok"][i, t0:t1].sum()
            w = self.rec["ok"][i, t0:t1]
            p99 = _wq(self.rec["p99"][i, t0:t1], w, 0.99)
            p50 = _wq(self.rec["p50"][i, t0:t1], w, 0.5)
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

    def log_lines(self, service: str, window_s: int) -> list[str]:
        return views.log_lines(self, service, window_s)

    # ------------------------------------------------------------------ interventions
    def set_config(self, key: str, value: Any, persist: bool = True) -> tuple[Any, Any]:
        if key not in self.config:
            raise WorldError(f"unknown setting {key!r}")
        old = copy.deepcopy(self.config[key])
        self.config[key] = copy.deepcopy(value)
        if persist:
            self.persisted[key] = copy.deepcopy(value)
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

    def set_event(self, name: str, active: bool) -> tuple[bool, bool]:
        if name not in self.events:
            raise WorldError(f"unknown event {name!r}")
        old = self.events[name]
        self.events[name] = bool(active)
        return old, bool(active)

    def terminate_sessions(self, role: str | None = None, pid: int | None = None) -> int:
        pids = self.state.get("session_pid")
        if pids is None:
            return 0
        mask = np.ones(len(pids), dtype=bool)
        if pid is not None:
            mask = pids == int(pid)
        elif role is not None and role != self.sub.app_role:
            mask[:] = False
        n = int(mask.sum())
        if n:
            self._sessions_connect(self.now, only=mask)  # the app's pool reconnects at once
            self.counters["terminated"] += n
        return n

    def flushall(self, service: str) -> None:
        self.counters["flushall"] += 1
        if service == "redis-queue":
            led = self.state.setdefault(
                "ledger", {"accepted": 0, "consumed": 0, "completed": 0, "lost": 0, "refused": 0}
            )
            led["lost"] += float(self.state.get("backlog", 0.0))
            self.state["backlog"] = 0.0
        else:
            self.cache_run_id ^= 0x5A5A

    def restart(self, service: str) -> None:
        if service not in self.sub.services:
            raise WorldError(f"unknown service {service!r}")
        self.counters["restarts"].append({"service": service, "t": int(self.now)})
        for p in self.sub.pools:
            if p == service:
                self.state.setdefault("pool_q", {})[p] = 0.0
        prefix = f"{service}."
        db = {"postgres", "mariadb", "redis", "redis-queue", "redis-cache"}
        if service in db:
            for k in list(self.config):
                if k.startswith(prefix):
                    if k in self.persisted:
                        self.config[k] = copy.deepcopy(self.persisted[k])
                    else:
                        self.config.pop(k)
            self._outage[service] = self.now + STATEFUL_OUTAGE_S
            if service == "redis-queue":
                self.flushall_on_restart()
        if (
            service in self.sub.services
            and self.sub.app_sessions
            and service
            in (
                "api",
                "postgres",
            )
        ):
            self._sessions_connect(self.now)

    def flushall_on_restart(self) -> None:
        led = self.state.setdefault(
            "ledger", {"accepted": 0, "consumed": 0, "completed": 0, "lost": 0, "refused": 0}
        )
        led["lost"] += float(self.state.get("backlog", 0.0))
        self.state["backlog"] = 0.0


def _wq(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """Weighted quantile (weights: requests per second); 0 when nothing was served."""
    m = weights > 0
    if not m.any():
        return 0.0
    v, w = values[m], weights[m]
    order = np.argsort(v, kind="stable")
    cw = np.cumsum(w[order])
    i = int(np.searchsorted(cw, q * cw[-1]))
    return float(v[order][min(i, len(v) - 1)])
