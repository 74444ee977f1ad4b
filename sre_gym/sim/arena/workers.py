"""The queue's worker processes under the kubelet (frappe's RQ workers), second by second.

An RQ worker quits on any Redis error it does not retry (rq/worker.py, ``Worker.work``: "found an
unhandled exception, quitting..."), and a command the queue refuses is one: NOPERM when the ACL
denies the blocking pop it dequeues with (BLPOP), OOM when its heartbeat or registration write
(HSET) meets a full ``noeviction`` queue, NOREPLICAS for every write while
``min-replicas-to-write`` cannot be met. A lost connection is retried instead
(``dequeue_job_and_maintain_ttl``: 1 s, doubling, at most 60 s), but a worker that cannot reach the
queue while it registers at start quits too. ``bench worker`` is the container's process, so the
container exits and the kubelet restarts it (restartPolicy Always) after a back-off: at once the
first time, then 10 s, doubling, capped at 300 s, and afresh once a container has run 10 minutes
(Kubernetes, Pod Lifecycle, "Container restarts"). A restarted worker boots, registers and pops; if
the queue still refuses, it quits again. So a repair of the queue reaches the jobs only when each
worker next starts, and the backlog that piled up meanwhile drains after that.

The pods were started long before the run (as everywhere in the arena), so a worker refused from
the first second has been failing since long before: its back-off is at the cap, and where each
pod stands in its cycle (waiting or booting) is drawn from the ``rng`` streams. Boot times are
drawn per pod and start, so reading the world never changes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sre_gym.catalogs.arena.schema import Rollout, WorkerSpec
from sre_gym.rng import Streams

RUN, BOOT, WAIT, RETRY = "run", "boot", "wait", "retry"
STATES = {RUN: "running", BOOT: "starting", WAIT: "back-off", RETRY: "reconnecting"}
# what a refused worker logs as it quits (redis-py's exceptions for the server's replies)
ERRORS = {
    "noperm": "redis.exceptions.NoPermissionError: User default has no permissions to run the "
    "'blpop' command",
    "oom": "redis.exceptions.OutOfMemoryError: OOM command not allowed when used memory > "
    "'maxmemory'.",
    "noreplicas": "redis.exceptions.ResponseError: NOREPLICAS Not enough good replicas to write.",
    "conn": "redis.exceptions.ConnectionError: Error 111 connecting to redis-queue:6379. "
    "Connection refused.",
}


@dataclass
class _Pod:
    uid: int  # the pod's identity (its draws)
    phase: str  # RUN, BOOT (until ``until``), WAIT (back-off until ``until``), RETRY (reconnect)
    until: float = 0.0
    exits: int = 0  # exits since the back-off last started afresh
    started: float = -1e9  # when the current container started
    starts: int = 0  # containers started in this pod (its boot draws)
    restarts: int = 0  # containers the kubelet restarted in this pod during the run
    retry_s: float = 0.0  # the next reconnect wait


class Workers:
    """The worker pods of one queue; ``step`` says how many work in a second."""

    def __init__(self, spec: WorkerSpec, rollout: Rollout, streams: Streams, replicas: int):
        self.spec, self.rollout, self.streams = spec, rollout, streams
        self.uids = 0
        self.pods = [self._new(RUN) for _ in range(max(0, int(replicas)))]
        self.first = True
        self.log: list[tuple[int, int, str, str]] = []  # (t, pod index, kind, detail)

    def _new(self, phase: str) -> _Pod:
        self.uids += 1
        return _Pod(self.uids, phase)

    def _boot_s(self, p: _Pod) -> float:
        g = self.streams.gen(f"arena:worker-boot:{p.uid}", p.starts)
        return float(self.rollout.boot_s * g.lognormal(0.0, self.rollout.boot_sigma))

    def _start(self, i: int, p: _Pod, t: float) -> None:
        """The kubelet starts a new container in pod ``i``; the worker boots."""
        p.until = t + self._boot_s(p)
        p.starts += 1
        p.phase, p.started = BOOT, float(t)

    def _exit(self, i: int, p: _Pod, t: int, why: str) -> None:
        if t - p.started >= self.spec.backoff_reset_s:
            p.exits = 0  # ran ten minutes: the back-off starts afresh
        delays = self.spec.restart_backoff_s
        delay = float(delays[min(p.exits, len(delays) - 1)])
        p.exits += 1
        p.phase, p.until = WAIT, t + delay
        self.log.append((t, i, "exit", why))
        if delay > 0:
            self.log.append((t, i, "backoff", f"{delay:.0f}"))
        else:
            self._restart(i, p, t)

    def _restart(self, i: int, p: _Pod, t: int) -> None:
        self._start(i, p, t)
        p.restarts += 1
        self.log.append((t, i, "start", ""))

    def _steady(self, t: int) -> None:
        """Refused from the first second: each pod is somewhere in a capped back-off cycle."""
        cap = float(self.spec.restart_backoff_s[-1])
        for p in self.pods:
            boot = self._boot_s(p)
            pos = float(self.streams.gen(f"arena:worker-phase:{p.uid}").random()) * (cap + boot)
            p.exits = len(self.spec.restart_backoff_s)
            if pos < cap:
                p.phase, p.until = WAIT, t + cap - pos
            else:
                p.starts += 1
                p.phase, p.until, p.started = BOOT, t + cap + boot - pos, t - (pos - cap)

    def step(self, t: int, refused: str | None, down: bool) -> int:
        """Advance every pod through second ``t`` (the queue refusing the workers' commands for
        reason ``refused``, or unreachable when ``down``); returns how many work in it."""
        if self.first:
            self.first = False
            if refused is not None:
                self._steady(t)
        n = 0
        for i, p in enumerate(self.pods):
            if p.phase == WAIT and t >= p.until:
                self._restart(i, p, t)
            if p.phase == BOOT and t >= p.until:
                if down or refused is not None:
                    self._exit(i, p, t, "conn" if down else str(refused))
                else:
                    p.phase = RUN
                    self.log.append((t, i, "ready", ""))
            elif p.phase == RETRY and t >= p.until:
                if down:
                    p.retry_s = min(2.0 * p.retry_s, self.spec.reconnect_max_s)
                    p.until = t + p.retry_s
                else:
                    p.phase = RUN
                    self.log.append((t, i, "reconnected", ""))
            elif p.phase == RUN:
                if down:
                    p.phase, p.retry_s = RETRY, self.spec.reconnect_s
                    p.until = t + p.retry_s
                    self.log.append((t, i, "retry", f"{p.retry_s:.0f}"))
                elif refused is not None:
                    self._exit(i, p, t, refused)
            n += p.phase == RUN
        return n

    def running(self) -> int:
        return sum(p.phase == RUN for p in self.pods)

    def resize(self, replicas: int, t: int) -> None:
        """Scale: surplus pods go at once, new pods start a container now."""
        replicas = max(0, int(replicas))
        while len(self.pods) > replicas:
            self.pods.pop()
        while len(self.pods) < replicas:
            p = self._new(BOOT)
            self._start(len(self.pods), p, t)
            self.pods.append(p)

    def restart(self, t: int) -> None:
        """A rolling restart: new pods with a fresh back-off. A working pod serves until its
        successor is ready (its worker carries on); any other starts a new container now."""
        for i, p in enumerate(self.pods):
            q = self._new(p.phase)
            if p.phase == RUN:
                q.started = float(t)
            else:
                self._start(i, q, t)
            self.pods[i] = q

    def snapshot(self) -> list[dict[str, Any]]:
        return [
            {
                "pod": f"{self.spec.service}-{i}",
                "state": STATES[p.phase],
                "restarts": p.restarts,
            }
            for i, p in enumerate(self.pods)
        ]

    def lines(self, t0: int, t1: int) -> list[tuple[int, str]]:
        """The worker pods' log lines and kubelet events in [t0, t1)."""
        svc = self.spec.service
        out = []
        for t, i, kind, detail in self.log:
            if not t0 <= t < t1:
                continue
            name = f"rq:worker:{svc}-{i}"
            if kind == "exit":
                out.append((t, f"ERROR {ERRORS[detail]}"))
                out.append((t, f"ERROR Worker {name}: found an unhandled exception, quitting..."))
            elif kind == "backoff":
                out.append(
                    (
                        t,
                        f"WARN kubelet: Back-off restarting failed container worker in pod "
                        f"{svc}-{i} (back-off {detail}s)",
                    )
                )
            elif kind == "start":
                out.append((t, f"INFO kubelet: Started container worker in pod {svc}-{i}"))
            elif kind == "ready":
                out.append((t, f"INFO Worker {name} started, listening on long"))
            elif kind == "retry":
                out.append(
                    (
                        t,
                        f"ERROR Could not connect to Redis instance: {ERRORS['conn'][30:]} "
                        f"Retrying in {detail} seconds...",
                    )
                )
            else:
                out.append((t, f"INFO Worker {name} reconnected to redis-queue"))
        return out
