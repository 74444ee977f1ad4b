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
    if kind == "sessions":
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
    used = w.sub.queue_idle_mb + float(w.state.get("backlog", 0.0)) * w.sub.job_kb / 1024.0
    out = {"used_memory_mb": round(used, 2), "connected_slaves": 0}
    if service == "redis-queue":
        out["queued_jobs"] = int(round(float(w.state.get("backlog", 0.0))))
    return out


def log_lines(w: Any, service: str, window_s: int) -> list[str]:
    t0, t1 = max(0, w.now - window_s), w.now
    lines: list[str] = []
    cfg = w.config
    for i, lane in enumerate(w.lanes):
        spec = w.sub.lanes[lane]
        if service not in spec.services and not any(s.target == service for s in spec.steps):
            continue
        err = float(w.rec["err"][i, t0:t1].sum())
        if err <= 0:
            continue
        for st in spec.steps:
            if st.kind == "pool" and st.target == service:
                p = w.sub.pools[service]
                lines.append(
                    f"ERROR sqlalchemy.exc.TimeoutError: QueuePool limit of size "
                    f"{cfg[p.size_key]} overflow {cfg[p.overflow_key]} reached, connection timed "
                    f"out, timeout {p.timeout_s:.2f} ({int(err)} in {window_s}s, lane {lane})"
                )
            if st.kind == "db_conn" and service in ("frappe-web", "mariadb"):
                lines.append(
                    f"ERROR pymysql.err.OperationalError: (1226, \"User '{st.target}' has exceeded "
                    f"the 'max_user_connections' resource\") ({int(err)} in {window_s}s)"
                )
            if st.kind == "enqueue" and service in ("frappe-web", st.target):
                if int(cfg.get("redis-queue.min-replicas-to-write", 0) or 0) > 0:
                    lines.append(
                        "ERROR redis.exceptions.ResponseError: NOREPLICAS Not enough good replicas to write."
                    )
                else:
                    lines.append(
                        "ERROR redis.exceptions.OutOfMemoryError: OOM command not allowed when used memory > 'maxmemory'."
                    )
            if st.kind == "statement" and service in ("api", "postgres"):
                lines.append(
                    f"ERROR django.db.utils.OperationalError: canceling statement due to statement "
                    f"timeout ({int(err)} in {window_s}s, lane {lane})"
                )
    if service == "db-maintenance":
        ck = w.rec_ckpt[t0:t1]
        starts = np.flatnonzero(ck & ~np.concatenate([[False], ck[:-1]])) + t0 if len(ck) else []
        lines += [f"INFO maintenance run started t={int(s)}s: CHECKPOINT" for s in starts]
    if service == "redis-queue" and w.sub.worker_procs:
        denied = cfg.get("redis-queue.acl.default.denied", [])
        for c in ("blpop", "brpop", "blmove"):
            if c in denied:
                lines.append(
                    f"ERROR NOPERM User default has no permissions to run the '{c}' command"
                )
    return lines[-50:]
