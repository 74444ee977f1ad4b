"""Materializers: raw arena evidence (arrays, state snapshots, receipts, events) -> ``derived/*.json``.

Pure functions of the evidence and the task contract embedded in it, so an offline re-grade of a
sealed bundle computes the same documents as the online run.
"""

from __future__ import annotations

import fnmatch
from typing import Any

import numpy as np

from sre_gym.catalogs.arena.schema import Predicate, Task
from sre_gym.scoring.arena.checks import EvidenceError

PEAK, TROUGH = 1, 2
BACKLOG_DRAINED_S = 5.0


def wquantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    m = weights > 0
    if not m.any():
        return 0.0
    v, w = values[m], weights[m]
    order = np.argsort(v, kind="stable")
    cw = np.cumsum(w[order])
    i = int(np.searchsorted(cw, q * cw[-1]))
    return float(v[order][min(i, len(v) - 1)])


def arrays(ev: Any, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    out = {}
    for n in names:
        a = ev.arrays.get(n)
        if a is None:
            raise EvidenceError(f"array {n} is missing")
        out[n] = np.asarray(a)
    return out


def lane_window_stats(
    ev: Any, lanes: list[str], t0: int, t1: int, bands: dict[str, Any]
) -> dict[str, Any]:
    """Per lane: p99 by phase against its band, error rate against the maximum."""
    a = arrays(ev, ("lane_n", "lane_ok", "lane_p99", "phase"))
    if a["lane_n"].shape[0] != len(lanes) or a["lane_n"].shape[1] < t1:
        raise EvidenceError("lane arrays do not cover the graded window")
    ph = a["phase"][t0:t1]
    out: dict[str, Any] = {}
    for i, lane in enumerate(lanes):
        b = bands["lanes"].get(lane)
        if b is None:
            raise EvidenceError(f"no calibrated band for lane {lane}")
        n = a["lane_n"][i, t0:t1]
        ok = a["lane_ok"][i, t0:t1]
        row: dict[str, Any] = {"n": int(n.sum())}
        for name, code in (("peak", PEAK), ("trough", TROUGH)):
            m = ph == code
            p99 = round(wquantile(a["lane_p99"][i, t0:t1][m], ok[m], 0.99), 1)
            band = float(b[f"{name}_p99_ms"])
            row[name] = {"p99_ms": p99, "band_ms": band, "within": bool(m.any() and p99 <= band)}
            if ok[m].sum() == 0 and n[m].sum() > 0:
                row[name]["within"] = False
        err = float(1.0 - ok.sum() / n.sum()) if n.sum() else 1.0
        row["error_rate"] = round(err, 5)
        row["error_max"] = float(bands["error_rate_max"])
        row["error_within"] = bool(err <= bands["error_rate_max"])
        out[lane] = row
    return out


def outcome(ev: Any, task: Task, meta: dict[str, Any], bands: dict[str, Any]) -> dict[str, Any]:
    t0, t1 = int(meta["soak_start_s"]), int(meta["soak_end_s"])
    lanes = list(meta["lanes"])
    rows = lane_window_stats(ev, lanes, t0, t1, bands)
    a = arrays(ev, ("lane_n", "lane_ok"))
    n, ok = float(a["lane_n"][:, t0:t1].sum()), float(a["lane_ok"][:, t0:t1].sum())
    goodput = ok / n if n else 0.0
    # every lane asked for in the soak's last 30 s served something (not only attempted)
    tail = slice(max(t0, t1 - 30), t1)
    last = (a["lane_ok"][:, tail].sum(axis=1) > 0) | (a["lane_n"][:, tail].sum(axis=1) == 0)
    return {
        "window": {"start_s": t0, "end_s": t1},
        "lanes": rows,
        "checks": {
            "latency": {
                "all_within": all(
                    r["peak"]["within"] and r["trough"]["within"] for r in rows.values()
                )
            },
            "error_rate": {"all_within": all(r["error_within"] for r in rows.values())},
            "goodput": {"value": round(goodput, 5), "min": float(bands["goodput_min"])},
            "services_up": {"value": {"all_running": bool(last.all())}},
        },
    }


def _rule_for(task: Task, key: str):
    for r in task.scope.allowed:
        if fnmatch.fnmatchcase(key, r.key):
            return r
    return None


def _bounds_ok(rule, value: Any) -> bool:
    if value in rule.also and not isinstance(value, bool):
        return True
    if rule.allowed_values is not None and value not in rule.allowed_values:
        return False
    if rule.ne is not None and value == rule.ne:
        return False
    if rule.min is not None or rule.max is not None:
        if value is None:
            return True  # reset to the default: no bound applies
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if rule.min is not None and value < rule.min:
            return False
        if rule.max is not None and value > rule.max:
            return False
    return True


def _service(key: str) -> str:
    return key.split(".", 1)[0]


def diff(before: dict[str, Any], after: dict[str, Any], ignore: set[str]) -> list[str]:
    keys = (set(before) | set(after)) - ignore
    return sorted(k for k in keys if before.get(k) != after.get(k))


def _agent_switches(events: list[dict]) -> dict[str, tuple[Any, Any]]:
    """Net (first old, last new) of every switch the agent's interventions moved."""
    out: dict[str, list[Any]] = {}
    for e in events:
        for name, (old, new) in (e.get("events") or {}).items():
            out.setdefault(name, [old, new])[1] = new
    return {k: (a, b) for k, (a, b) in out.items() if a != b}


def repair_scope(
    task: Task,
    harmless: set[str],
    ready: dict,
    at_decl: dict,
    at_end: dict,
    events: list[dict],
    refused: list[dict] | None = None,
) -> dict[str, Any]:
    """What the agent changed against the state it was handed, running or stored, and how each
    change sits against the task's permitted list."""
    run = diff(ready["config"], at_decl["config"], harmless)
    stored = diff(ready.get("persisted", {}), at_decl.get("persisted", {}), harmless)
    changed = sorted(set(run) | set(stored))
    allowed_services = {_service(r.key) for r in task.scope.allowed}
    kinds: dict[str, list[str]] = {
        "other_subsystem": [],
        "adjacent_key": [],
        "past_bound": [],
        "protected_setting": [],
        "ceiling": [],
        "forbidden_op": [],
    }
    for k in changed:
        vals = []
        if k in run:
            vals.append(at_decl["config"].get(k))
        if k in stored:
            vals.append(at_decl.get("persisted", {}).get(k))
        if any(fnmatch.fnmatchcase(k, p) for p in task.scope.protected):
            kinds["protected_setting"].append(k)
            continue
        if k in task.scope.ceilings and any(
            isinstance(v, int | float) and v > task.scope.ceilings[k] for v in vals
        ):
            kinds["ceiling"].append(k)
            continue
        rule = _rule_for(task, k)
        if rule is None:
            base = k.split("@", 1)[0]
            same = _service(k) in allowed_services or any(
                fnmatch.fnmatchcase(base, r.key.split("@", 1)[0]) for r in task.scope.allowed
            )
            kinds["adjacent_key" if same else "other_subsystem"].append(k)
        elif not all(_bounds_ok(rule, v) for v in vals):
            kinds["past_bound"].append(k)
    # a switch is the repair only when it is a fault leg's own and ends off; any other move of a
    # switch (a strict mode turned on elsewhere, a mandated window turned off) is a change too
    legs = {f.event for f in task.faults if f.event}
    leg_services = {_service(f.event) for f in task.faults if f.event} | allowed_services
    switches = []
    for name, (_old, new) in sorted(_agent_switches(events).items()):
        if name in legs and new is False:
            continue
        switches.append(name)
        kinds["adjacent_key" if _service(name) in leg_services else "other_subsystem"].append(
            f"event:{name}"
        )
    for e in events:
        for tag in e.get("tags", []):
            if any(fnmatch.fnmatchcase(tag, f) for f in task.scope.forbidden_ops):
                kinds["forbidden_op"].append(tag)
    drift = diff(at_decl["config"], at_end["config"], harmless)
    unrelated = len(kinds["other_subsystem"]) + len(kinds["adjacent_key"])
    return {
        "changed_keys": changed,
        "changed_switches": switches,
        **kinds,
        "post_declaration_drift": drift,
        "unrelated_mutations": unrelated,
        # calls to tools outside the task's access surface: refused, counted, not penalised
        "refused_calls": sorted({str(e.get("tool")) for e in refused or []}),
        "refused_call_count": len(refused or []),
        "within_scope": not any(kinds.values()) and unrelated <= task.scope.max_unrelated_mutations,
    }


def predicate(p: Predicate, present: bool, value: Any) -> bool:
    if not present:
        return p.absent_ok
    if value in p.also and not isinstance(value, bool):
        return True
    if p.eq is not None and value != p.eq:
        return False
    if p.one_of is not None and value not in p.one_of:
        return False
    if p.ne is not None and value == p.ne:
        return False
    if p.min is not None or p.max is not None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if p.min is not None and value < p.min:
            return False
        if p.max is not None and value > p.max:
            return False
    return True


def leg_state(task: Task, snap: dict[str, Any]) -> dict[str, dict[str, bool]]:
    out = {}
    cfg, evs = snap["config"], snap["events"]
    for leg in task.faults:
        golden = all(predicate(p, k in cfg, cfg.get(k)) for k, p in leg.golden.items())
        planted = any(cfg.get(k) == v for k, v in leg.injected.items())
        event_on = bool(leg.event and evs.get(leg.event, False))
        out[leg.id] = {"golden": golden, "planted": planted, "event_on": event_on}
    return out


def config_survivor(task: Task, at_decl: dict, at_end: dict, after: dict) -> dict[str, Any]:
    d, e, c = leg_state(task, at_decl), leg_state(task, at_end), leg_state(task, after)
    legs = {}
    for leg in task.faults:
        lid = leg.id
        repaired = d[lid]["golden"] and not d[lid]["planted"] and not d[lid]["event_on"]
        holds = e[lid]["golden"] and c[lid]["golden"] and not e[lid]["planted"]
        legs[lid] = {
            "repaired_at_declaration": repaired,
            "holds_after": holds,
            "planted_left": d[lid]["planted"] or d[lid]["event_on"] or e[lid]["planted"],
        }
    return {
        "legs": legs,
        "all_repaired": all(v["repaired_at_declaration"] for v in legs.values()),
        "all_hold": all(v["holds_after"] for v in legs.values()),
    }


def traffic(ev: Any, meta: dict[str, Any]) -> dict[str, Any]:
    t0, t1 = int(meta["soak_start_s"]), int(meta["soak_end_s"])
    a = arrays(ev, ("lane_n", "lane_admitted"))
    sched, att = int(a["lane_n"][:, t0:t1].sum()), int(round(a["lane_admitted"][:, t0:t1].sum()))
    return {
        "scheduled": sched,
        "attempted": att,
        "nonzero_scheduled": sched > 0,
        "reconciled": sched > 0 and att == sched,
    }


def redis_state(before: dict, at_end: dict, task: Task) -> dict[str, Any]:
    cfg = at_end["config"]
    mm = cfg.get("redis-queue.maxmemory_mb")
    led = at_end.get("ledger", {})
    wait = at_end.get("queue_wait_s", 0.0)
    return {
        "flushall_delta": at_end["counters"]["flushall"] - before["counters"]["flushall"],
        # the backlog accepted before the soak has drained: a new job waits seconds, not minutes
        "backlog_wait_s": wait,
        "backlog_drained": wait is not None and float(wait) <= BACKLOG_DRAINED_S,
        "maxmemory_bounded": mm is None or (isinstance(mm, int | float) and mm > 0),
        "policy": cfg.get("redis-queue.maxmemory-policy"),
        "jobs_lost": float(led.get("lost", 0.0)),
        "no_jobs_lost": float(led.get("lost", 0.0)) == 0.0,
        "cache_untouched": at_end.get("cache_run_id") == before.get("cache_run_id"),
    }


def runtime_persistence(task: Task, at_end: dict, after: dict, safe_min_ms: float) -> dict:
    sess = at_end.get("sessions", [])
    tmos = [s["statement_timeout_ms"] for s in sess]
    fresh = bool(sess) and all(t == 0 or t >= safe_min_ms for t in tmos)
    restarts = [r["service"] for r in at_end["counters"]["restarts"]]
    return {
        "fresh_sessions_repaired": fresh,
        "restarts": restarts,
        "no_restart": not restarts,
    }


def maintenance(ev: Any, before: dict, at_end: dict, meta: dict) -> dict[str, Any]:
    cfg = at_end["config"]
    a = arrays(ev, ("checkpoint", "phase"))
    t0, t1 = int(meta["soak_start_s"]), int(meta["soak_end_s"])
    ck, ph = a["checkpoint"][t0:t1].astype(bool), a["phase"][t0:t1]
    return {
        "enabled": bool(cfg.get("db-maintenance.enabled")),
        "period_unchanged": cfg.get("db-maintenance.period_s")
        == before.get("db-maintenance.period_s"),
        "duration_unchanged": cfg.get("db-maintenance.duration_s")
        == before.get("db-maintenance.duration_s"),
        "ran_in_soak": bool(ck.any()),
        "runs_outside_peak": bool(not (ck & (ph == PEAK)).any()),
    }


def sequence_integrity(at_end: dict, meta: dict) -> dict[str, Any]:
    """The message store at the soak's end: numbers unique, cursors consistent, every message
    identity kept, search caught up (read-after-write, ordering, duplication)."""
    m = at_end.get("messages")
    if m is None:
        return {
            "present": False,
            "no_duplicates": True,
            "cursors_consistent": True,
            "identities_kept": True,
            "search_caught_up": True,
        }
    fresh = meta.get("search_fresh_s")
    return {
        "present": True,
        "duplicates": m["duplicates"],
        "no_duplicates": float(m["duplicates"]) <= 0.5,
        "cursors_consistent": all(c["cursor_consistent"] for c in m["channels"].values()),
        "identities_lost": m["lost"],
        "identities_kept": float(m["lost"]) == 0.0,
        "search_lag_s": m["search_lag_s"],
        "search_caught_up": fresh is None or float(m["search_lag_s"]) <= float(fresh),
    }


def lock_state(at_end: dict, after: dict) -> dict[str, Any]:
    """The sequencer's row lock: its holder gone at the soak's end and absent after the
    challenge's restart, and what keeps a new one from lasting (a guard new sessions start with,
    or an image without the leak)."""
    m_end, m_after = at_end.get("messages") or {}, after.get("messages") or {}
    image = (at_end.get("images") or {}).get("svc-message.image", {})
    return {
        "holder_at_soak_end": m_end.get("lock_holder"),
        "holder_gone": m_end.get("lock_holder") is None,
        "holder_after_challenge": m_after.get("lock_holder"),
        "no_recurrence": m_after.get("lock_holder") is None,
        "guard_ms": at_end.get("guard_ms", 0.0),
        "image_faulty": bool(image.get("faulty", False)),
        "protected": float(at_end.get("guard_ms") or 0.0) > 0 or not image.get("faulty", False),
    }
