"""Operator views of an arena world: pool stats, database views, Redis INFO, log lines.

They read the world's recorded state only (no randomness), so calling them never changes a run.
What they show is what an operator could see; nothing names the fault or its mechanism."""

from __future__ import annotations

from typing import Any

import numpy as np


# ---------------------------------------------------------------------- operator views
def pool_stats(w: Any, service: str) -> dict[str, Any]:
    if service not in w.sub.pools:
        return {"pool": None, "note": f"{service} has no database pool"}
    p = w.sub.pools[service]
    t0 = max(0, w.now - 60)
    wait = w.rec_pool_wait[service][t0 : w.now]
    running = [
        {
            "share_of_pods": round(share, 2),
            "pool_size": vals.get(p.size_key, w.config[p.size_key]),
            "max_overflow": vals.get(p.overflow_key, w.config[p.overflow_key]),
        }
        for share, vals in w.pods.generations(service)
    ]
    return {
        "pool_size": w.config[p.size_key],
        "max_overflow": w.config[p.overflow_key],
        "running": running,
        "rollout": w.pods.snapshot().get(service),
        "checkout_timeout_s": p.timeout_s,
        "wait_ms_max_60s": round(float(wait.max()) * 1000 if len(wait) else 0.0, 1),
        "waiting_now": round(sum(w.state.get("pool_q", {}).get(service, {}).values()), 1),
    }


def db_view(w: Any, kind: str) -> Any:
    engine = "mariadb" if w.sub.id == "frappe" else "postgres"
    cfg = w.config
    if kind == "settings":
        out = []
        for k, v in sorted(cfg.items()):
            if not k.startswith(engine + ".") or ".grants." in k:
                continue
            name, _, scope = k[len(engine) + 1 :].partition("@")
            out.append({"name": name, "scope": scope or "global", "value": v})
        return {"engine": engine, "settings": out}
    if kind == "grants":
        return {
            k.split(".", 2)[2]: v for k, v in sorted(cfg.items()) if k.startswith("mariadb.grants.")
        } or {"note": "no per-account grants are managed here"}
    if kind == "locks":
        return w.store.locks_view(w.now) if w.store is not None else []
    if kind == "sequences":
        if w.store is None:
            return {"note": "no message store here"}
        snap = w.store.snapshot()
        return {k: snap[k] for k in ("channels", "duplicates", "search_lag_s", "resequencing")}
    if kind == "sessions":
        if w.store is not None:
            return w.store.locks_view(w.now)
        snap = w.snapshot()["sessions"]
        return [
            {"pid": s["pid"], "usename": s["role"], "backend_start_s": s["backend_start_s"]}
            for s in snap
        ]
    # checkpoints
    ck = w.rec_ckpt[: w.now]
    starts = np.flatnonzero(ck & ~np.concatenate([[False], ck[:-1]])) if len(ck) else []
    return {"checkpoints_req": len(starts), "recent_starts_s": [int(s) for s in starts[-5:]]}


def redis_info(w: Any, service: str) -> dict[str, Any]:
    """INFO: memory (the idle footprint, queued jobs and the finished jobs kept until their hashes
    expire), replication and the keyspace."""
    queued, kept = float(w.state.get("backlog", 0.0)), float(w.state.get("kept", 0.0))
    used = w.sub.queue_idle_mb + (queued + kept) * w.sub.job_kb / 1024.0
    out: dict[str, Any] = {"used_memory_mb": round(used, 2), "connected_slaves": 0}
    if service == "redis-queue":
        out["queued_jobs"] = int(round(queued))
        out["keyspace"] = {"db0": {"keys": int(round(queued + kept)), "expires": int(round(kept))}}
        if w.workers is not None:
            out["connected_clients"] = 1 + w.workers.running()
    return out


# what a failing request logs, by the dynamics' cause code
_CAUSE_LINES = {
    "down": "ERROR connection refused: an upstream service is unavailable",
    "pool_timeout": "ERROR sqlalchemy.exc.TimeoutError: QueuePool limit of size {size} overflow "
    "{over} reached, connection timed out, timeout {timeout:.2f}",
    "conn_cap": "ERROR pymysql.err.OperationalError: (1226, \"User 'frappe_site' has exceeded the "
    "'max_user_connections' resource\")",
    "privilege": 'ERROR pymysql.err.OperationalError: (1142, "{priv} command denied to user '
    "'frappe_site'@'%' for table 'tabNote'\")",
    "read_only": "ERROR pymysql.err.OperationalError: (1290, 'The MariaDB server is running with "
    "the --read-only option so it cannot execute this statement')",
    "statement_timeout": "ERROR django.db.utils.OperationalError: canceling statement due to "
    "statement timeout",
    "enqueue_oom": "ERROR redis.exceptions.OutOfMemoryError: OOM command not allowed when used "
    "memory > 'maxmemory'.",
    "noreplicas": "ERROR redis.exceptions.ResponseError: NOREPLICAS Not enough good replicas to "
    "write.",
    "job_deadline": "WARN job read-back gave up: job still queued",
    "lock_timeout": "ERROR psycopg2.errors.QueryCanceled: canceling statement due to statement "
    "timeout (waiting for ShareLock on tuple of relation channel_seq)",
    "readback_mismatch": "WARN read-back returned another message under the same sequence number",
    "unread_mismatch": "WARN unread count disagrees with the channel's stored messages",
    "search_stale": "WARN search read-back did not find a message written before the deadline",
    "shed": "WARN 429 Too Many Requests: admission limit reached",
}
# what every service logs now and then, whatever its health
_NOISE = (
    "WARN retrying connection to kafkagate (attempt 2 of 5)",
    "WARN slow request: GET /healthz took 1204 ms",
    "ERROR websocket client went away without a close frame",
    "WARN gc pause 212 ms",
    "WARN redis latency spike: 14 ms for HGETALL",
    "INFO config broker poll: no change",
    "ERROR upstream idle connection reset by peer; reconnecting",
    "WARN search indexer batch took 1.8 s",
)


def _touches(w: Any, lane: str, service: str) -> bool:
    spec = w.sub.lanes[lane]
    return service in spec.services or any(s.target == service for s in spec.steps)


def _cause_line(w: Any, lane: str, code: int) -> str:
    from sre_gym.sim.arena.dynamics import CAUSES

    cause = CAUSES[code]
    spec = w.sub.lanes[lane]
    fmt: dict[str, Any] = {"size": "?", "over": "?", "timeout": 0.0, "priv": "?"}
    for st in spec.steps:
        if st.kind == "pool" and cause == "pool_timeout":
            p = w.sub.pools[st.target]
            gens = w.pods.generations(st.target)
            vals = gens[0][1] if gens else w.config
            fmt.update(
                size=vals.get(p.size_key, w.config[p.size_key]),
                over=vals.get(p.overflow_key, w.config[p.overflow_key]),
                timeout=p.timeout_s,
            )
        if st.privilege:
            fmt["priv"] = st.privilege
    return _CAUSE_LINES.get(cause, "ERROR request failed").format(**fmt)


def log_stream(w: Any, service: str, t0: int, t1: int) -> list[str]:
    """Every line ``service`` logged in [t0, t1): one access summary per lane and second, the
    failures with their causes, the pod events, and background noise that says nothing about
    the incident (drawn per minute from a stream of its own, so reading never changes a run)."""
    t0, t1 = max(0, int(t0)), min(int(t1), int(w.now))
    events: list[tuple[int, int, str]] = []
    for i, lane in enumerate(w.lanes):
        if not _touches(w, lane, service):
            continue
        n, ok = w.n[i, t0:t1], w.rec["ok"][i, t0:t1]
        err, cause = w.rec["err"][i, t0:t1], w.rec_cause[i, t0:t1]
        p50 = w.rec["p50"][i, t0:t1]
        for k in np.flatnonzero(n > 0):
            t = t0 + int(k)
            events.append((t, 1, f"INFO {lane}: {int(ok[k])}/{int(n[k])} ok, p50 {p50[k]:.0f} ms"))
            if err[k] > 0:
                line = _cause_line(w, lane, int(cause[k]))
                events.append((t, 2, f"{line} ({int(err[k])} requests, {lane})"))
    for t, svc, line in w.pod_log:
        if svc == service and t0 <= t < t1:
            events.append((int(t), 0, line))
    if w.workers is not None and service == w.workers.spec.service:
        events += [(t, 0, line) for t, line in w.workers.lines(t0, t1)]
    if service == "db-maintenance":
        ck = w.rec_ckpt[t0:t1]
        starts = np.flatnonzero(ck & ~np.concatenate([[False], ck[:-1]])) + t0 if len(ck) else []
        events += [(int(s), 0, "INFO maintenance run started: CHECKPOINT") for s in starts]
    for m in range(t0 // 60, (t1 + 59) // 60):
        g = w.streams.gen(f"arena:log-noise:{service}", m)
        for _ in range(int(g.poisson(4))):
            t = m * 60 + int(g.integers(60))
            line = _NOISE[int(g.integers(len(_NOISE)))]
            if t0 <= t < t1:
                events.append((t, 3, line))
    events.sort()
    return [f"t={t}s {line}" for t, _, line in events]


def log_lines(
    w: Any, service: str, window_s: int, contains: str | None = None, level: str = "any"
) -> list[str]:
    lines = log_stream(w, service, w.now - window_s, w.now)
    if level != "any":
        lines = [ln for ln in lines if f" {level.upper()} " in ln]
    if contains:
        lines = [ln for ln in lines if contains.lower() in ln.lower()]
    return lines[-100:]
