"""Per-second lane dynamics of an arena substrate over a window of constant configuration.

Vectorised over seconds with numpy. The mechanisms:
- DB pools: a Little's-law queue. A pool of ``size + overflow`` connections, each request holding one
  for ``hold`` seconds, serves ``mu = capacity / hold`` requests a second; the backlog follows the
  Lindley recursion and is capped by the acquisition timeout (a checkout that would wait longer fails
  with 503). Below saturation the mean wait is Sakasegawa's M/M/c approximation.
- runtime events: a switch on a service adds a hidden hold to its pool checkout (the authz path going
  from cache to DB) or to each of its Redis operations (strict store consistency).
- the maintenance controller: while a checkpoint runs, every write holds its connection longer in
  proportion to the write rate (I/O contention).
- per-account connection caps (MariaDB ``max_user_connections``): concurrency by Little's law
  against the cap less the workers' persistent connections; the excess is refused.
- grants and read-only mode: a hop without its privilege, or a write under ``read_only``, fails.
- a queue Redis with ``maxmemory`` / eviction policy / ``min-replicas-to-write`` / ACL and a job
  ledger (accepted, consumed, completed, lost); the workers drain the backlog first in, first out
  at their service rate, so a job's run waits behind the backlog and a backlog left by a fault
  takes its own time to drain once the fault is gone. Finished jobs stay in the queue's memory for
  the result TTL. A refused worker command ends the worker, which comes back only when the kubelet
  restarts it (sim/arena/workers.py).
- pooled sessions with their own ``statement_timeout``: a statement running longer than its
  session's timeout is cancelled.
- a service that is down (a store restarting, a Deployment scaled to zero) fails what passes it;
  a pool whose pods run different start-time settings (a rolling restart) serves each pod's share
  of the traffic with that pod's pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sre_gym import fmath
from sre_gym.catalogs.arena.schema import Substrate

SQRT2 = math.sqrt(2.0)
STATEMENT_SIGMA = 0.25  # spread of one statement's duration around its mean (lognormal)


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf, scipy is not a dependency
    s = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (
        ((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592
    ) * t * fmath.exp(-x * x)
    return s * y


def sakasegawa_wait_s(lam: np.ndarray, hold_s: np.ndarray, c: int) -> np.ndarray:
    """Mean M/M/c queueing delay (s) below saturation (Sakasegawa 1977)."""
    mu = c / np.maximum(hold_s, 1e-6)
    rho = np.clip(lam / mu, 0.0, 0.995)
    return hold_s * rho ** (math.sqrt(2.0 * (c + 1)) - 1.0) / (c * (1.0 - rho))


def pool_queue(
    lam: np.ndarray, hold_s: np.ndarray, cap: int, timeout_s: float, q0: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """(wait seconds, refused requests, final backlog) of a pool over consecutive seconds.

    The backlog follows the Lindley recursion q_t = max(0, q_{t-1} + arrivals - mu), capped at
    mu x timeout (what waits longer is refused). It is computed second by second in the same order
    whatever the window boundaries, so splitting a run into windows (an agent's calls) never
    changes a bit of it; below saturation the wait is Sakasegawa's M/M/c delay."""
    n = len(lam)
    if cap <= 0:
        return np.full(n, timeout_s), lam.astype(float), 0.0
    mu = cap / np.maximum(hold_s, 1e-6)
    mmc = sakasegawa_wait_s(lam, hold_s, cap)
    qmax = mu * timeout_s
    q = np.zeros(n)
    refused = np.zeros(n)
    if np.any(lam > mu) or q0 > 0:  # a backlog can form: the recursion, second by second
        prev = float(q0)
        lam_l, mu_l, qmax_l = lam.tolist(), mu.tolist(), qmax.tolist()
        for i in range(n):
            v = prev + lam_l[i] - mu_l[i]
            if v > qmax_l[i]:
                refused[i] = v - qmax_l[i]
                v = qmax_l[i]
            prev = q[i] = v if v > 0.0 else 0.0
    wait = np.where(q > 0, q / mu, mmc)
    over = (q <= 0) & (mmc > timeout_s)  # even an empty queue cannot serve within the timeout
    refused = np.where(over, lam, refused)
    return np.minimum(wait, timeout_s), refused, float(q[-1]) if n else float(q0)


@dataclass
class Segment:
    """What one window produced, per lane and second."""

    ok: np.ndarray
    err: np.ndarray
    p50: np.ndarray
    p99: np.ndarray
    admitted: np.ndarray
    checkpoint: np.ndarray
    pool_wait: dict[str, np.ndarray]
    backlog: np.ndarray
    cause: np.ndarray  # [lanes, seconds] index into CAUSES of the main failure cause (0: none)
    working: np.ndarray  # the queue's worker processes working each second


CAUSES = (
    "",
    "down",
    "pool_timeout",
    "conn_cap",
    "privilege",
    "read_only",
    "statement_timeout",
    "enqueue_oom",
    "noreplicas",
    "job_deadline",
    "lock_timeout",
    "readback_mismatch",
    "unread_mismatch",
    "search_stale",
    "shed",
)


class Failures:
    """Each lane's failed share per second and the cause that fails the most of it."""

    def __init__(self, lanes: int, secs: int) -> None:
        self.share = np.zeros((lanes, secs))
        self.cause = np.zeros((lanes, secs), dtype=np.int8)

    def add(self, i: int, share: Any, cause: str) -> None:
        share = np.broadcast_to(np.asarray(share, dtype=float), self.share[i].shape)
        more = share > self.share[i]
        if more.any():
            self.share[i] = np.where(more, share, self.share[i])
            self.cause[i] = np.where(more, CAUSES.index(cause), self.cause[i])

    def note(self, i: int, where: np.ndarray, cause: str) -> None:
        """Name a cause where nothing else failed (requests turned away before any work)."""
        self.cause[i] = np.where(where & (self.cause[i] == 0), CAUSES.index(cause), self.cause[i])


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """Weighted quantile (weights: requests per second); 0 when nothing was served."""
    m = weights > 0
    if not m.any():
        return 0.0
    v, w = values[m], weights[m]
    order = np.argsort(v, kind="stable")
    cw = np.cumsum(w[order])
    i = int(np.searchsorted(cw, q * cw[-1]))
    return float(v[order][min(i, len(v) - 1)])


def new_ledger() -> dict[str, float]:
    return {"accepted": 0.0, "consumed": 0.0, "completed": 0.0, "lost": 0.0, "refused": 0.0}


def checkpoint_mask(config: dict, secs: np.ndarray, epoch: int = 0) -> np.ndarray:
    """Seconds during which the maintenance controller's checkpoint runs."""
    if not config.get("db-maintenance.enabled", False):
        return np.zeros(len(secs), dtype=bool)
    period = max(1, int(config["db-maintenance.period_s"]))
    off = int(config["db-maintenance.offset_s"])
    dur = int(config["db-maintenance.duration_s"])
    pos = (secs - epoch - off) % period
    return pos < dur


def _pool(
    pname: str,
    pool,
    lam: np.ndarray,
    hold: np.ndarray,
    config: dict,
    gens: list[tuple[float, dict]],
    state: dict,
) -> tuple[np.ndarray, np.ndarray]:
    """(mean wait seconds, refused share) of a pool whose pods may run different sizes: each
    generation of pods gets its share of the traffic and of the stored total."""
    if not gens:
        gens = [(1.0, config)]
    qs = state.setdefault("pool_q", {}).setdefault(pname, {})
    wait = np.zeros_like(lam)
    refused = np.zeros_like(lam)
    keep = {}
    for share, vals in gens:
        size = vals.get(pool.size_key, config[pool.size_key])
        over = vals.get(pool.overflow_key, config[pool.overflow_key])
        cap = (int(size) + int(over)) * share
        key = f"{int(size)}/{int(over)}"
        w, r, qend = pool_queue(lam * share, hold, cap, pool.timeout_s, qs.get(key, 0.0))
        keep[key] = qend
        wait += share * w
        refused += r
    state["pool_q"][pname] = keep
    return wait, np.where(lam > 0, refused / np.maximum(lam, 1e-9), 0.0)


def simulate(
    sub: Substrate,
    lanes: list[str],
    n: np.ndarray,
    noise: np.ndarray,
    secs: np.ndarray,
    config: dict,
    events: dict[str, bool],
    magnitudes: dict[str, dict[str, float]],
    state: dict,
    down: set[str] | frozenset[str] = frozenset(),
    pool_gens: dict[str, list[tuple[float, dict]]] | None = None,
    session_timeouts: np.ndarray | None = None,
    workers: Any = 0,
    cold_hold_s: dict[str, np.ndarray] | None = None,
    store: Any = None,
) -> Segment:
    """Simulate seconds ``secs`` (arrivals ``n`` [lanes, len(secs)]) under constant configuration.

    ``state`` carries what outlives a window: pool backlogs, the job ledger and queue backlog.
    It is updated in place."""
    L, T = n.shape
    nf = n.astype(float)
    lat = np.zeros((L, T))
    F = Failures(L, T)  # failed share of each lane's requests, and the main cause
    # traffic suppression: an admission limit rejects what exceeds it (429) before any work
    admitted = nf.copy()
    for i, name in enumerate(lanes):
        lane = sub.lanes[name]
        for svc in lane.services:
            lim = float(config.get(f"{svc}.admission_limit_rps", 0) or 0)
            if lim > 0:
                admitted[i] = np.minimum(admitted[i], lim)
            if svc in down:
                F.add(i, 1.0, "down")  # attempted, refused: connection refused or no endpoints
    ckpt = checkpoint_mask(config, secs)
    writes = np.zeros(T)
    for i, name in enumerate(lanes):
        if any(s.write for s in sub.lanes[name].steps):
            writes += admitted[i]
    stall_s = np.where(ckpt, sub.checkpoint_stall_ms_per_rps * writes / 1000.0, 0.0)
    # sends to a channel whose sequence row is locked wait for it, holding a connection, then fail
    locked = 0.0
    if store is not None:
        locked = float(store.share[list(store.locked())].sum()) if store.locked() else 0.0

    # pools: total demand and (request-weighted) hold per pool
    pool_wait: dict[str, np.ndarray] = {}
    pool_hold: dict[str, np.ndarray] = {}
    for pname, pool in sub.pools.items():
        lam = np.zeros(T)
        hold_num = np.zeros(T)
        for i, name in enumerate(lanes):
            for st in sub.lanes[name].steps:
                if st.kind == "pool" and st.target == pname:
                    h = st.hold_ms / 1000.0 + _event_pool_hold(pname, events, magnitudes)
                    if not events.get(f"{pname}.read_consistency_strict", False):
                        # a pod's cold cache sends its misses down the database path
                        h = h + (cold_hold_s or {}).get(pname, 0.0)
                    h = h + (stall_s if st.write else 0.0)
                    if st.write and _writes_seq(sub.lanes[name]):
                        h = h + locked * store.spec.lock_wait_s
                    lam += admitted[i]
                    hold_num += admitted[i] * h
        hold = np.where(lam > 0, hold_num / np.maximum(lam, 1e-9), 0.0)
        gens = (pool_gens or {}).get(pname) or []
        wait, refused = _pool(pname, pool, lam, np.maximum(hold, 1e-4), config, gens, state)
        pool_wait[pname] = np.where(lam > 0, wait, 0.0)
        pool_hold[pname] = hold
        for i, name in enumerate(lanes):
            if any(s.kind == "pool" and s.target == pname for s in sub.lanes[name].steps):
                F.add(i, refused, "pool_timeout")

    # per-account connection caps (Little's law)
    accounts = {st.target for ln in sub.lanes.values() for st in ln.steps if st.kind == "db_conn"}
    for acct in sorted(accounts):
        conc = np.zeros(T)
        for i, name in enumerate(lanes):
            for st in sub.lanes[name].steps:
                if st.kind == "db_conn" and st.target == acct:
                    conc += admitted[i] * st.hold_ms / 1000.0
        cap = int(config.get("mariadb.max_user_connections", 0) or 0)
        limit = float(cap - sub.worker_conns) if cap > 0 else float("inf")
        limit = min(limit, float(config.get("mariadb.max_connections", 1e9)) - sub.worker_conns)
        refused_share = np.where(conc > limit, 1.0 - max(limit, 0.0) / np.maximum(conc, 1e-9), 0.0)
        for i, name in enumerate(lanes):
            if any(s.kind == "db_conn" and s.target == acct for s in sub.lanes[name].steps):
                F.add(i, refused_share, "conn_cap")

    q = _queue(sub, lanes, admitted, config, state, workers, secs, "redis-queue" in down)
    for i, name in enumerate(lanes):
        lane = sub.lanes[name]
        base = np.full(T, lane.base_ms)
        for st in lane.steps:
            if st.kind == "pool":
                base += 1000.0 * (pool_hold[st.target] + pool_wait[st.target])
            elif st.kind == "redis":
                ev = f"{st.target}.store_consistency_strict"
                hold = magnitudes.get(ev, {}).get("redis_hold_ms", 0.0)
                base += st.ops * (sub.redis_op_ms + (hold if events.get(ev, False) else 0.0))
            elif st.kind == "db_conn":
                base += st.hold_ms
                grants = config.get(f"mariadb.grants.{st.target}", [])
                if st.privilege and st.privilege not in grants and "ALL" not in grants:
                    F.add(i, 1.0, "privilege")
                if st.write and config.get("mariadb.read_only", False):
                    F.add(i, 1.0, "read_only")
            elif st.kind == "statement":
                dur = st.hold_ms + st.contention_ms_per_rps * admitted[i]
                base += dur
                if session_timeouts is not None and len(session_timeouts):
                    F.add(i, _cancelled(dur, session_timeouts), "statement_timeout")
            elif st.kind == "enqueue":
                base += sub.redis_op_ms
                F.add(i, q.refused, q.why)
            elif st.kind == "seq_write":
                F.add(i, locked, "lock_timeout")
            elif st.kind == "job":
                # a job's run: it waits behind the backlog, then runs; refused at enqueue, lost,
                # or not done by the read-back deadline, it failed
                base += 1000.0 * np.minimum(q.wait_s, sub.job_deadline_s) + sub.job_ms
                F.add(i, q.refused, q.why)
                F.add(i, (q.wait_s > sub.job_deadline_s).astype(float), "job_deadline")
        lat[i] = base
    if store is not None:
        _messages(sub, lanes, admitted, F, lat, config, store)
    for i in range(L):
        if np.any(admitted[i] < nf[i]):
            F.note(i, admitted[i] < nf[i], "shed")
    fail = np.clip(F.share, 0.0, 1.0)
    p50 = lat * noise
    p99 = p50 * np.array([sub.lanes[x].tail for x in lanes])[:, None]
    okf = admitted * (1.0 - fail)
    ok = np.floor(okf + 0.5)
    err = nf - ok
    return Segment(ok, err, p50, p99, admitted, ckpt, pool_wait, q.backlog, F.cause, q.working)


def _writes_seq(lane) -> bool:
    return any(s.kind == "seq_write" for s in lane.steps)


def _messages(sub, lanes, admitted, F: Failures, lat, config, store) -> None:
    """The message store's share of the outcome: stored sends feed it; a send whose read-back
    finds another message under its number, an unread count that disagrees with the messages
    and a search read-back the index has not caught up with are all wrong answers."""
    T = admitted.shape[1]
    sends = np.zeros(T)
    for i, name in enumerate(lanes):
        if _writes_seq(sub.lanes[name]):
            sends += admitted[i] * (1.0 - np.clip(F.share[i], 0.0, 1.0))
    mode = str(config.get("svc-message.sequencer_mode", "atomic"))
    collide, unread, lag = store.step(sends, mode)
    for i, name in enumerate(lanes):
        for st in sub.lanes[name].steps:
            if st.kind == "seq_write":
                F.add(i, collide, "readback_mismatch")
            elif st.kind == "seq_read":
                F.add(i, unread, "unread_mismatch")
            elif st.kind == "search":
                F.add(i, (lag > store.spec.search_fresh_s).astype(float), "search_stale")
                lat[i] = lat[i] + 1000.0 * np.minimum(lag, store.spec.search_fresh_s)


def _event_pool_hold(pool: str, events: dict[str, bool], magnitudes: dict) -> float:
    key = f"{pool}.read_consistency_strict"
    if events.get(key, False):
        return magnitudes.get(key, {}).get("pool_hold_ms", 0.0) / 1000.0
    return 0.0


def _cancelled(dur_ms: np.ndarray, timeouts_ms: np.ndarray) -> np.ndarray:
    """Share of statements cancelled: a uniformly picked session, lognormal statement durations."""
    out = np.zeros_like(dur_ms, dtype=float)
    for t in timeouts_ms:
        if t > 0:
            z = (fmath.log(t) - fmath.log(np.maximum(dur_ms, 1e-6))) / (STATEMENT_SIGMA * SQRT2)
            out += 0.5 * (1.0 - _erf(z))
    return out / len(timeouts_ms)


def queue_rate(sub: Substrate, config: dict, workers: int) -> float:
    """Jobs a second ``workers`` working processes take off the queue. A worker takes a job with a
    blocking pop, which the queue's ACL may deny, and which is a write NOREPLICAS refuses."""
    if _refusal(config) in ("noperm", "noreplicas") or sub.job_ms <= 0:
        return 0.0
    return workers * 1000.0 / sub.job_ms


def _refusal(config: dict) -> str | None:
    """What the queue refuses every worker command for, whatever its memory: NOREPLICAS (every
    write, with no replica attached) or NOPERM (the blocking pops the workers dequeue with)."""
    if int(config.get("redis-queue.min-replicas-to-write", 0) or 0) > 0:
        return "noreplicas"
    if {"blpop", "blmove", "brpop"} & set(config.get("redis-queue.acl.default.denied", [])):
        return "noperm"
    return None


def drop_queue(state: dict) -> None:
    """Every job queued and every finished job kept is gone (FLUSHALL, a restart without AOF)."""
    led = state.setdefault("ledger", new_ledger())
    led["lost"] += float(state.get("backlog", 0.0))
    state["backlog"] = 0.0
    state["kept"] = 0.0
    if "done_ring" in state:
        state["done_ring"][:] = 0.0


@dataclass
class QueueSeconds:
    why: str  # what refuses enqueues: NOREPLICAS or OOM
    refused: np.ndarray  # refused share of the enqueues, per second
    wait_s: np.ndarray  # how long a job enqueued that second waits before it runs
    backlog: np.ndarray  # jobs queued at the end of each second
    working: np.ndarray  # worker processes working that second


def _queue(
    sub: Substrate, lanes, admitted, config, state, workers: Any, secs, down: bool
) -> QueueSeconds:
    """The queue Redis and its workers, second by second; updates the job ledger in ``state``.

    The queue's memory holds its idle footprint, the queued jobs and the finished jobs kept for
    the result TTL (their hashes expire that long after they finish). Under ``noeviction`` a full
    queue refuses enqueues, and the workers' own writes, which ends them (sim/arena/workers.py)."""
    T = admitted.shape[1]
    idx = [
        i for i, name in enumerate(lanes) if any(s.kind == "enqueue" for s in sub.lanes[name].steps)
    ]
    if not idx:
        z = np.zeros(T)
        return QueueSeconds("enqueue_oom", z, z, z, z)
    offered = admitted[idx].sum(axis=0)
    led = state.setdefault("ledger", new_ledger())
    backlog = float(state.get("backlog", 0.0))
    ttl = int(sub.workers.result_ttl_s) if sub.workers is not None else 0
    ring = state.setdefault("done_ring", np.zeros(max(1, ttl)))
    kept = float(state.get("kept", 0.0))
    maxmem = float(config.get("redis-queue.maxmemory_mb", 0) or 0)
    policy = config.get("redis-queue.maxmemory-policy", "noeviction")
    always = _refusal(config)
    norep = always == "noreplicas"
    per_worker = 1000.0 / sub.job_ms if sub.job_ms > 0 else 0.0
    job_mb = sub.job_kb / 1024.0
    slots = (maxmem - sub.queue_idle_mb) / job_mb if maxmem > 0 else float("inf")
    refused = np.zeros(T)
    wait = np.zeros(T)
    left = np.zeros(T)
    working = np.zeros(T)
    fixed = int(workers) if isinstance(workers, int | float) else None
    for s in range(T):
        t = int(secs[s])
        if ttl:
            kept -= ring[t % ttl]  # finished jobs whose hashes expire now
            ring[t % ttl] = 0.0
            kept = max(kept, 0.0)
        full = policy == "noeviction" and slots - backlog - kept < 1.0
        why = always or ("oom" if full else None)
        if fixed is None:
            n = workers.step(t, why, down) * sub.worker_procs
        else:
            n = 0 if (why or down) else fixed
        rate = n * per_worker if not down else 0.0
        working[s] = n
        new = float(offered[s])
        if norep or down:
            acc = 0.0
        elif maxmem > 0:
            room = max(0.0, slots - backlog - kept)
            if policy == "noeviction":
                acc = min(new, room)
            else:  # an LRU/LFU/random policy accepts, then evicts: finished jobs, then queued ones
                acc = new
                over = backlog + kept + new - max(0.0, slots)
                if over > 0 and kept > 0:
                    gone = min(kept, over)
                    if ttl:
                        ring *= (kept - gone) / kept
                    kept -= gone
                    over -= gone
                if over > 0:
                    led["lost"] += over
                    backlog = max(0.0, backlog - over)
        else:
            acc = new
        refused[s] = new - acc
        # first in, first out: this second's jobs run after the backlog ahead of them
        wait[s] = (backlog + 0.5 * acc) / rate if rate > 0 else float("inf")
        backlog += acc
        led["accepted"] += acc
        led["refused"] += new - acc
        c = min(backlog, rate)
        backlog -= c
        led["consumed"] += c
        led["completed"] += c
        if ttl:
            ring[t % ttl] += c
            kept += c
        left[s] = backlog
    state["backlog"] = backlog
    state["kept"] = kept
    share = np.where(offered > 0, refused / np.maximum(offered, 1e-9), 0.0)
    return QueueSeconds("noreplicas" if norep else "enqueue_oom", share, wait, left, working)
