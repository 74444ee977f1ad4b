"""Every recorded change of state has a recorded cause, or the evidence is void.

The state snapshots (at ready, declaration, soak end and after the challenge) are replayed from the
ready snapshot with the causes the bundle records: the agent's interventions (each carries what it
changed, old and new), the task's scripted switches (its load events, at their times), and the
verifier's challenge (a restart puts the target's stored settings back; a re-fired trigger
switches it on). A snapshot that the replay does not reproduce changed with no
recorded cause: a swapped or edited snapshot, or an intervention left out.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from sre_gym.catalogs.arena.schema import Task
from sre_gym.scoring.arena.checks import EvidenceError

LAYERS = (("keys", "config"), ("stored", "persisted"), ("events", "events"))


def _state(snap: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {layer: copy.deepcopy(snap[layer]) for _, layer in LAYERS}


def _apply(state: dict[str, dict[str, Any]], iv: dict[str, Any]) -> None:
    for field, layer in LAYERS:
        changes = iv.get(field) or {}
        if not isinstance(changes, dict):
            raise EvidenceError(f"intervention at {iv.get('t')}: {field} is not a mapping")
        for k, pair in changes.items():
            old, new = pair
            if state[layer].get(k) != old:
                raise EvidenceError(
                    f"intervention at {iv.get('t')} changed {layer} {k!r} from {old!r}, but the "
                    f"recorded state held {state[layer].get(k)!r}"
                )
            if new is None:
                state[layer].pop(k, None)
            else:
                state[layer][k] = copy.deepcopy(new)


def _same(state: dict[str, dict[str, Any]], snap: dict[str, Any], where: str) -> None:
    for _, layer in LAYERS:
        if state[layer] != snap[layer]:
            diff = sorted(
                k
                for k in set(state[layer]) | set(snap[layer])
                if state[layer].get(k) != snap[layer].get(k)
            )
            raise EvidenceError(f"{where}: {layer} {diff[:5]} changed with no recorded cause")


def _scripted(task: Task, anchor: float) -> list[tuple[int, str, bool]]:
    """(second it takes effect, switch, state) of the task's load events."""
    out = []
    for ev in task.load.events:
        t = ev.at_s if ev.at_s is not None else anchor + float(ev.after_declaration_s or 0)
        out.append((int(math.ceil(t)), ev.name, bool(ev.active)))
    return sorted(out)


def _switch(state: dict[str, dict[str, Any]], scripted, t0: float, t1: float) -> None:
    """Apply the scripted switches due in [t0, t1): a world standing at second ``t`` has fired
    every switch due before it (one due at ``t`` fires as the world moves on)."""
    for t, name, active in scripted:
        if t0 <= t < t1:
            state["events"][name] = active


def check(task: Task, meta: dict[str, Any], snaps: dict[str, Any], ivs: list[dict]) -> None:
    """Raise ``EvidenceError`` unless every snapshot follows from the one before and the recorded
    causes between them."""
    ready_s = float(meta["ready_s"])
    anchor = float(meta["window_end_s"])
    if any(leg.arm_at_s > 0 and leg.arm_at_s + 10 > ready_s for leg in task.faults):
        raise EvidenceError("a fault leg arms after the episode-ready gate")
    scripted = _scripted(task, anchor)
    state = _state(snaps["ready"])
    t_prev = ready_s
    for iv in sorted(ivs, key=lambda e: float(e["t"])):
        t = float(iv["t"])
        if t > anchor:
            break  # after the declaration: the agent boundary's own check
        _switch(state, scripted, t_prev, t)
        t_prev = max(t_prev, t)
        _apply(state, iv)
    _switch(state, scripted, t_prev, anchor)
    _same(state, snaps["declaration"], "declaration")
    end = float(meta["soak_end_s"])
    _switch(state, scripted, anchor, end)
    _same(state, snaps["soak_end"], "soak end")
    ch = task.challenge
    if ch.type == "service_event_recurrence":
        state["events"][ch.target] = True
    else:
        target = "db-maintenance" if ch.type == "database_checkpoint" else ch.target
        for k in list(state["config"]):
            if k.startswith(target + ".") and "@" not in k and k in state["persisted"]:
                state["config"][k] = copy.deepcopy(state["persisted"][k])
    _switch(state, scripted, end, float(snaps["after_challenge"]["t"]))
    _same(state, snaps["after_challenge"], "after the challenge")
    flushes = sum(1 for e in ivs if e.get("op") == "flushall" and float(e["t"]) <= anchor)
    got = snaps["soak_end"]["counters"]["flushall"] - snaps["ready"]["counters"]["flushall"]
    if got != flushes:
        raise EvidenceError(f"{got} FLUSHALL counted, {flushes} recorded")
    restarts = sum(1 for e in ivs if e.get("op") == "restart" and float(e["t"]) <= anchor)
    got = len(snaps["soak_end"]["counters"]["restarts"]) - len(
        snaps["ready"]["counters"]["restarts"]
    )
    if got != restarts:
        raise EvidenceError(f"{got} restarts counted, {restarts} recorded")
