"""Grade an arena episode from its evidence alone: materialize, check, classify, analyse.

``grade(evidence)`` is the one grading function: the env calls it online on the evidence it is
about to seal, and ``sre-gym`` re-grades a sealed bundle offline with it, so both agree. Missing,
malformed or forged evidence gives ``status: "void"`` (no reward), never a silent zero.
"""

from __future__ import annotations

from typing import Any

from sre_gym.catalogs.arena import RECEIPTS, RESTARTS
from sre_gym.catalogs.arena.schema import Task
from sre_gym.scoring.arena import consistency
from sre_gym.scoring.arena import materialize as M
from sre_gym.scoring.arena.checks import EvidenceError, evaluate

GRADER_VERSION = "arena-grader/1"
FAILURE_CLASSES = (
    "never_declared",
    "off_permitted_list",
    "planted_cause_left",
    "repair_did_not_last",
    "declared_too_early",
    "other_integrity",
)
# what malformed evidence raises when a document has the wrong shape or type somewhere deep
MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError)
RECEIPT_KEYS = {"schema_version", "actor", "type", "window", "pass", "agent_frozen"}


def _lane_probe(a: dict, i: int, t0: int, t1: int, limit: float, err_max: float) -> dict:
    n, ok = a["lane_n"][i, t0:t1], a["lane_ok"][i, t0:t1]
    p99 = round(M.wquantile(a["lane_p99"][i, t0:t1], ok, 0.99), 1)
    err = float(1 - ok.sum() / n.sum()) if n.sum() else 1.0
    return {
        "p99_ms": p99,
        "error_rate": round(err, 5),
        "pass": bool(p99 <= limit and err <= err_max and ok.sum() > 0),
    }


def probe(
    ev: Any,
    lanes: list[str],
    t0: int,
    t1: int,
    bands: dict[str, Any],
    before: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """A challenge probe: every lane's p99 within its widest band and its errors within bounds.

    With ``before`` (the window just before a restart), the probe judges what the restart did:
    a lane out of bounds after it fails only if it was within bounds before it. A lane that had
    not recovered by then (a backlog still draining) says nothing about whether the repair lasts;
    the outcome gate grades that."""
    a = M.arrays(ev, ("lane_n", "lane_ok", "lane_p99"))
    rows = {}
    for i, lane in enumerate(lanes):
        b = bands["lanes"][lane]
        limit = max(float(b["peak_p99_ms"]), float(b["trough_p99_ms"]))
        err_max = float(bands["error_rate_max"])
        row = _lane_probe(a, i, t0, t1, limit, err_max)
        if before is not None:
            pre = _lane_probe(a, i, int(before[0]), int(before[1]), limit, err_max)
            row["before"] = pre
            row["pass"] = row["pass"] or not pre["pass"]
        rows[lane] = row
    return {"lanes": rows, "pass": all(r["pass"] for r in rows.values())}


BURST_WRITES = 20


def burst_unique(after: dict[str, Any]) -> bool:
    """Do barrier-synchronised writes to one channel get unique numbers from the service as it
    runs after the challenge's restart (an atomic sequencer)?"""
    return after["config"].get("svc-message.sequencer_mode", "atomic") == "atomic"


def next_checkpoint(cfg: dict[str, Any], t: int) -> int | None:
    """The maintenance controller's next run at or after ``t`` under schedule ``cfg``."""
    if not cfg.get("db-maintenance.enabled"):
        return None
    period, off = int(cfg["db-maintenance.period_s"]), int(cfg["db-maintenance.offset_s"])
    k = -(-(t - off) // period)
    return off + k * period


def checkpoint_challenge(
    ev: Any, cfg: dict[str, Any], healthy: dict[str, Any], t: int
) -> dict[str, Any]:
    """The database checkpoint challenge as the restarted controller runs it: its next run
    completes outside the write peak, still enabled, period and duration as shipped."""
    nxt = next_checkpoint(cfg, t)
    dur = int(cfg.get("db-maintenance.duration_s", 0))
    run = checkpoint_run(ev, nxt, dur) if nxt is not None else {}
    ok = bool(
        nxt is not None
        and run["run_completed"]
        and run["outside_peak"]
        and cfg.get("db-maintenance.period_s") == healthy["db-maintenance.period_s"]
        and cfg.get("db-maintenance.duration_s") == healthy["db-maintenance.duration_s"]
    )
    return {"boundary_s": nxt, "duration_s": dur, "run": run, "pass": ok}


def checkpoint_run(ev: Any, boundary: int, duration: int) -> dict[str, Any]:
    a = M.arrays(ev, ("checkpoint", "phase"))
    ck = a["checkpoint"][boundary : boundary + duration].astype(bool)
    ph = a["phase"][boundary : boundary + duration]
    return {
        "boundary_s": int(boundary),
        "run_completed": bool(len(ck) == duration and ck.all()),
        "outside_peak": bool(len(ph) == duration and not (ph == M.PEAK).any()),
    }


def _receipt(ev: Any, task: Task, meta: dict, bands: dict, store: dict) -> None:
    """Validate the verifier's challenge receipt: shape, binding, and a recomputed outcome."""
    name = RECEIPTS[task.challenge.type]
    rec = ev.artifacts.get(name)
    if not isinstance(rec, dict) or set(rec) < RECEIPT_KEYS:
        raise EvidenceError(f"{name}: missing or malformed challenge receipt")
    if (
        rec["schema_version"] != 1
        or rec["actor"] != "verifier"
        or rec["type"] != task.challenge.type
    ):
        raise EvidenceError(f"{name}: not a verifier receipt of type {task.challenge.type}")
    fz = rec["agent_frozen"]
    if not isinstance(fz, dict) or fz.get("success") is not True or fz.get("remaining_pids") != []:
        raise EvidenceError(f"{name}: the agent was not proven frozen")
    t0, t1 = rec["window"]
    before = None
    if task.challenge.type in RESTARTS:
        # the probe compares the window after the restart with the soak's end just before it
        end = int(meta["soak_end_s"])
        before = (max(int(meta["soak_start_s"]), end - task.challenge.probe_s), end)
        if rec.get("before") != list(before):
            raise EvidenceError(f"{name}: the window before the restart is not the soak's end")
    elif "before" in rec:
        raise EvidenceError(f"{name}: only a restart's receipt has a window before it")
    want = probe(ev, list(meta["lanes"]), int(t0), int(t1), bands, before)["pass"]
    if task.challenge.type == "database_checkpoint":
        want = checkpoint_challenge(
            ev,
            ev.artifacts["sut/state_after_challenge.json"]["config"],
            ev.artifacts["config-healthy.json"],
            int(meta["soak_end_s"]),
        )["pass"]
        if rec.get("boundary_s") != next_checkpoint(
            ev.artifacts["sut/state_after_challenge.json"]["config"], int(meta["soak_end_s"])
        ):
            raise EvidenceError(f"{name}: the receipt's boundary is not the schedule's next one")
    if task.challenge.type == "concurrent_sequence":
        want = want and burst_unique(ev.artifacts["sut/state_after_challenge.json"])
    if bool(rec["pass"]) != bool(want):
        raise EvidenceError(f"{name}: the receipt's pass does not match the recorded window")


LANE_ARRAYS = ("lane_n", "lane_ok", "lane_err", "lane_p50", "lane_p99", "lane_admitted")
TIME_ARRAYS = ("phase", "checkpoint")


def _check_arrays(ev: Any, meta: dict[str, Any]) -> None:
    """Every recorded array covers every lane and every second up to the run's end."""
    lanes, end = len(meta["lanes"]), int(meta["end_s"])
    for name in LANE_ARRAYS + TIME_ARRAYS:
        a = ev.arrays.get(name)
        want = (lanes, end) if name in LANE_ARRAYS else (end,)
        if a is None or getattr(a, "shape", None) != want:
            got = None if a is None else getattr(a, "shape", "not an array")
            raise EvidenceError(f"array {name}: shape {got}, expected {want}")


def materialize(ev: Any) -> tuple[Task, dict[str, Any]]:
    """(task, artifact store with every derived document)."""
    try:
        task = Task.model_validate(ev.artifacts["task.json"])
        meta = ev.artifacts["meta.json"]
        bands = ev.artifacts["calibration.json"]["bands"]
        before = ev.artifacts["config-before.json"]
        s_ready = ev.artifacts["sut/state_ready.json"]
        s_decl = ev.artifacts["sut/state_declaration.json"]
        s_end = ev.artifacts["sut/state_soak_end.json"]
        s_after = ev.artifacts["sut/state_after_challenge.json"]
        boundary = ev.artifacts["agent-boundary.json"]
    except KeyError as e:
        raise EvidenceError(f"missing artifact {e}") from None
    except Exception as e:  # a malformed task document
        raise EvidenceError(f"malformed evidence: {str(e)[:300]}") from None
    _check_arrays(ev, meta)
    harmless = set(ev.artifacts.get("harmless.json", []))
    store = dict(ev.artifacts)
    ivs = [e for e in ev.events if e.get("type") == "intervention"]
    refused = [e for e in ev.events if e.get("type") == "refused"]
    snaps = {"ready": s_ready, "declaration": s_decl, "soak_end": s_end, "after_challenge": s_after}
    if before != s_ready["config"]:
        raise EvidenceError("config-before.json is not the ready snapshot's configuration")
    consistency.check(task, meta, snaps, ivs)
    try:
        store["derived/outcome.json"] = M.outcome(ev, task, meta, bands)
        store["derived/repair-scope.json"] = M.repair_scope(
            task, harmless, s_ready, s_decl, s_end, ivs, refused
        )
        decl = meta.get("declare_ts_s")
        late = [e for e in ivs if decl is not None and e["t"] > decl]
        store["derived/agent-boundary.json"] = {
            "frozen": boundary.get("success") is True and boundary.get("remaining_pids") == [],
            "no_mutation_after_declaration": not late,
        }
        store["derived/config-survivor.json"] = M.config_survivor(task, s_decl, s_end, s_after)
        store["derived/traffic-reconciliation.json"] = M.traffic(ev, meta)
        store["derived/redis-state.json"] = M.redis_state(s_ready, s_end, task)
        safe_min = float(meta.get("safe_statement_timeout_ms", 0))
        store["derived/runtime-persistence.json"] = M.runtime_persistence(
            task, s_end, s_after, safe_min
        )
        store["derived/maintenance.json"] = M.maintenance(ev, before, s_end, meta)
        store["derived/sequence-integrity.json"] = M.sequence_integrity(s_end, meta)
        store["derived/lock-state.json"] = M.lock_state(s_end, s_after)
    except MALFORMED as e:
        raise EvidenceError(f"malformed evidence: {e!r}"[:300]) from None
    _receipt(ev, task, meta, bands, store)
    return task, store


# checks that read damage a fault leaves behind (lost or waiting jobs, sessions still under the
# planted setting, corrupt sequences, a lock holder): failing one is "damage left"
DAMAGE = {
    ("derived/redis-state.json", "/no_jobs_lost"),
    ("derived/redis-state.json", "/backlog_drained"),
    ("derived/runtime-persistence.json", "/fresh_sessions_repaired"),
    ("derived/sequence-integrity.json", "/no_duplicates"),
    ("derived/sequence-integrity.json", "/cursors_consistent"),
    ("derived/sequence-integrity.json", "/search_caught_up"),
    ("derived/lock-state.json", "/holder_gone"),
}


def _damage_left(task: Task, packs: dict[str, Any]) -> bool:
    for p in task.safe_repair.packs:
        for c, rec in zip(p.checks, packs[p.name]["checks"], strict=True):
            if not rec["pass"] and (c.observe.artifact, c.observe.pointer) in DAMAGE:
                return True
    return False


def _classify(
    task: Task, store: dict, outcome_pass: bool, safe_pass: bool, packs: dict[str, Any]
) -> tuple[str, str]:
    meta = store["meta.json"]
    rs = store["derived/repair-scope.json"]
    cs = store["derived/config-survivor.json"]
    if meta.get("declare_ts_s") is None:
        return "never_declared", ""
    for kind in (
        "other_subsystem",
        "adjacent_key",
        "past_bound",
        "protected_setting",
        "ceiling",
        "forbidden_op",
    ):
        if rs[kind]:
            return "off_permitted_list", kind
    if any(v["planted_left"] for v in cs["legs"].values()):
        return "planted_cause_left", "planted"
    if _damage_left(task, packs):
        return "planted_cause_left", "damage_left"
    receipt = store[RECEIPTS[task.challenge.type]]
    if (
        not cs["all_hold"]
        or rs["post_declaration_drift"]
        or not receipt["pass"]
        or any(v["repaired_at_declaration"] and not v["holds_after"] for v in cs["legs"].values())
    ):
        return "repair_did_not_last", ""
    if safe_pass and not outcome_pass:
        return "declared_too_early", ""
    return "other_integrity", ""


def _leg_steps(task: Task, leg_id: str) -> list[Any]:
    return [s for s in task.oracle if s.leg == leg_id]


def _correct_for(task: Task, leg: Any, e: dict[str, Any]) -> bool:
    """Does an intervention repair this leg: move one of its keys to the golden state, switch its
    event off, or repeat one of the leg's own oracle steps?"""
    for k, (_old, new) in (e.get("keys") or {}).items():
        p = leg.golden.get(k)
        if p is not None and M.predicate(p, new is not None, new):
            return True
    pair = (e.get("events") or {}).get(leg.event) if leg.event else None
    if pair is not None and pair[1] is False:
        return True
    return any(
        s.tool == e.get("tool") and s.args == e.get("args") for s in _leg_steps(task, leg.id)
    )


def _leg_fixed(task: Task, leg: Any, ivs: list[dict[str, Any]]) -> bool:
    """Every oracle step of the leg was issued: the same call, or one that does the same for this
    leg (another value inside the golden bounds). Only the leg's own steps count."""
    mine = [e for e in ivs if _correct_for(task, leg, e)]
    for step in _leg_steps(task, leg.id):
        if not any(e.get("tool") == step.tool for e in mine):
            return False
    return bool(mine)


def analytics(task: Task, ev: Any, meta: dict) -> dict[str, Any]:
    ivs = [e for e in ev.events if e.get("type") == "intervention"]
    ready = float(meta["ready_s"])
    correct = [e for e in ivs if any(_correct_for(task, leg, e) for leg in task.faults)]
    legs = {leg.id: _leg_fixed(task, leg, ivs) for leg in task.faults}
    decl = meta.get("declare_ts_s")
    first = correct[0]["t"] - ready if correct else None
    gap = decl - correct[-1]["t"] if (correct and decl is not None) else None
    return {
        "full_fix": bool(legs) and all(legs.values()),
        "legs_fixed": legs,
        "first_correct_action_s": first,
        "last_correct_action_to_declare_s": gap,
        "mutations": sum(1 for e in ivs if e.get("keys")),
        "restarts": sum(1 for e in ivs if any(t.startswith("restart:") for t in e.get("tags", []))),
        "tool_calls": sum(1 for e in ev.events if e.get("type") == "tool_call"),
    }


def grade(ev: Any) -> dict[str, Any]:
    """The verdict of one episode's evidence (``status`` "graded" or "void"). Missing, malformed
    or inconsistent evidence is void: never an exception, never a silent zero."""
    try:
        return _grade(ev)
    except EvidenceError as e:
        return _void(str(e))
    except MALFORMED as e:
        return _void(f"malformed evidence: {type(e).__name__}: {str(e)[:200]}")


def _void(msg: str) -> dict[str, Any]:
    return {"status": "void", "error": msg, "overall": None, "failure_class": None}


def _grade(ev: Any) -> dict[str, Any]:
    task, store = materialize(ev)
    out_checks = [evaluate(c, store, "outcome") for c in task.outcome]
    packs = {}
    for p in task.safe_repair.packs:
        recs = [evaluate(c, store, f"safe_repair.{p.name}") for c in p.checks]
        packs[p.name] = {"pass": all(r["pass"] for r in recs), "checks": recs}
    outcome_pass = all(r["pass"] for r in out_checks)
    req_pass = all(packs[n]["pass"] for n in task.safe_repair.require)
    envs = {e.id: all(packs[n]["pass"] for n in e.require) for e in task.safe_repair.envelopes}
    safe_pass = req_pass and (not envs or any(envs.values()))
    overall = outcome_pass and safe_pass
    cls, sub = ("", "") if overall else _classify(task, store, outcome_pass, safe_pass, packs)
    legs = store["derived/config-survivor.json"]["legs"]
    return {
        "status": "graded",
        "grader": GRADER_VERSION,
        "task": task.id,
        "overall": overall,
        "outcome": {"pass": outcome_pass, "checks": out_checks},
        "safe_repair": {"pass": safe_pass, "packs": packs, "envelopes": envs},
        "failure_class": cls or None,
        "failure_subkind": sub or None,
        "legs": legs,
        "analytics": analytics(task, ev, store["meta.json"]),
        "provisional": bool(store["calibration.json"].get("provisional", False)),
    }


__all__ = [
    "FAILURE_CLASSES",
    "GRADER_VERSION",
    "checkpoint_challenge",
    "checkpoint_run",
    "grade",
    "next_checkpoint",
    "probe",
]
