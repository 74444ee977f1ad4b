"""Incident-Arena tasks: load the substrates and tasks shipped under ``catalogs/arena/`` and enforce
Incident-Arena's contract invariants at load time (a task that breaks one is an authoring error).

Invariants (after Arena's ``contract.py``):
1. the report never grades: no check reads the agent's report;
2. no orphan requirement: every public requirement is read by some check, and every check names
   known requirements;
3. the two gates read disjoint evidence: outcome checks read only ``derived/outcome.json``, and no
   safe-repair check reads it;
4. outcome names each dimension: no outcome check reads an aggregate ``/pass``;
5. every pack is required or in an envelope, and envelopes repeat no required pack;
6. the challenge is consumed: a safe-repair check asserts its receipt's ``/pass`` is true;
7. the instruction is plain prose: no markdown, and none of the task's hidden keys, events,
   mechanisms or injected values;
8. the oracle repairs every fault leg and ends with the declaration.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from sre_gym.catalogs import CatalogError, catalog_dir
from sre_gym.catalogs.arena.schema import Check, Pack, Substrate, Task

OUTCOME_ARTIFACT = "derived/outcome.json"
REPORT_ARTIFACTS = ("report.json", "derived/incident-report.json", "derived/completion.json")
RECEIPTS = {
    "fixed_restart": "challenge/restart-receipt.json",
    "database_checkpoint": "challenge/maintenance-functional.json",
    "service_event_recurrence": "challenge/service-event-recurrence.json",
    "concurrent_sequence": "challenge/concurrent-sequence.json",
}
# challenges that restart their target first (a restart puts its stored settings back)
RESTARTS = ("fixed_restart", "concurrent_sequence")
_MARKDOWN = re.compile(r"(^\s*[#>*-]\s)|(`)|(\*\*)|(__)|(\[[^\]]*\]\()|(^\s*\d+\.\s)", re.M)


def arena_dir() -> Path:
    return catalog_dir() / "arena"


def _yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        raise CatalogError(f"missing arena file {path}") from e
    except yaml.YAMLError as e:
        raise CatalogError(f"{path}: invalid YAML: {e}") from e


@functools.cache
def load_substrate(name: str) -> Substrate:
    path = arena_dir() / "substrates" / f"{name}.yaml"
    try:
        return Substrate.model_validate(_yaml(path))
    except ValidationError as e:
        raise CatalogError(f"{path}: {e}") from e


@functools.cache
def _shared_packs() -> dict[str, list[dict[str, Any]]]:
    return _yaml(arena_dir() / "packs.yaml") or {}


def task_ids() -> tuple[str, ...]:
    """Every shipped task id, in order (``arena-008``, ...)."""
    return tuple(sorted(p.stem for p in (arena_dir() / "tasks").glob("arena-*.yaml")))


def _expand(raw: dict[str, Any]) -> dict[str, Any]:
    """Shared packs (``safe_repair.use``) are copied in from packs.yaml before validation."""
    raw = dict(raw)
    if raw.get("outcome") == "standard":
        raw["outcome"] = _shared_packs()["_outcome"]
    sr = dict(raw.get("safe_repair") or {})
    use = sr.pop("use", [])
    packs = list(sr.get("packs") or [])
    shared = _shared_packs()
    for name in use:
        if name not in shared:
            raise CatalogError(f"{raw.get('id')}: no shared pack {name!r} in packs.yaml")
        packs.append({"name": name, "checks": shared[name]})
        sr.setdefault("require", [])
        if name not in sr["require"]:
            sr["require"] = [*sr["require"], name]
    sr["packs"] = packs
    raw["safe_repair"] = sr
    return raw


@functools.cache
def load_task(task_id: str) -> Task:
    """A validated task; ``CatalogError`` names the broken invariant."""
    if task_id not in task_ids():
        raise CatalogError(f"unknown arena task {task_id!r}; known: {', '.join(task_ids())}")
    path = arena_dir() / "tasks" / f"{task_id}.yaml"
    raw = _yaml(path)
    if not isinstance(raw, dict):
        raise CatalogError(f"{path}: a task is a mapping")
    try:
        task = Task.model_validate(_expand(raw))
    except ValidationError as e:
        raise CatalogError(f"{path}: {e}") from e
    if task.id != task_id:
        raise CatalogError(f"{path}: id {task.id!r} does not match the file name")
    check_task(task)
    return task


def _all_checks(task: Task) -> list[tuple[str, Check]]:
    out = [("outcome", c) for c in task.outcome]
    for p in task.safe_repair.packs:
        out += [(f"safe_repair.{p.name}", c) for c in p.checks]
    return out


def check_task(task: Task) -> None:
    """Raise ``CatalogError`` if ``task`` breaks one of the module's invariants."""
    where = task.id
    sub = load_substrate(task.substrate)
    checks = _all_checks(task)
    req_ids = {r.id for r in task.requirements}
    if len(req_ids) != len(task.requirements):
        raise CatalogError(f"{where}: duplicate requirement ids")
    ids = [c.id for _, c in checks]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"{where}: duplicate check ids")
    # 1. the report never grades
    for gate, c in checks:
        if c.observe.artifact in REPORT_ARTIFACTS:
            raise CatalogError(f"{where}: {gate} check {c.id} reads the agent's report")
    # 2. no orphan requirement, no unknown requirement
    read = {r for _, c in checks for r in c.requirement_ids}
    if req_ids - read:
        raise CatalogError(f"{where}: orphan requirements {sorted(req_ids - read)}")
    if read - req_ids:
        raise CatalogError(f"{where}: checks name unknown requirements {sorted(read - req_ids)}")
    # 3. disjoint evidence; 4. no aggregate pass in the outcome gate
    for c in task.outcome:
        if c.observe.artifact != OUTCOME_ARTIFACT:
            raise CatalogError(f"{where}: outcome check {c.id} reads {c.observe.artifact}")
        if c.observe.pointer.rstrip("/").endswith("/pass") or c.observe.pointer == "/pass":
            raise CatalogError(f"{where}: outcome check {c.id} reads an aggregate /pass")
    if not task.outcome:
        raise CatalogError(f"{where}: the outcome gate has no check")
    for gate, c in checks:
        if gate != "outcome" and c.observe.artifact == OUTCOME_ARTIFACT:
            raise CatalogError(f"{where}: {gate} check {c.id} reads the outcome gate's evidence")
    # 5. packs required or enveloped
    names = [p.name for p in task.safe_repair.packs]
    if len(set(names)) != len(names):
        raise CatalogError(f"{where}: duplicate safe-repair packs")
    req = set(task.safe_repair.require)
    env_packs = {n for e in task.safe_repair.envelopes for n in e.require}
    unknown = (req | env_packs) - set(names)
    if unknown:
        raise CatalogError(f"{where}: required packs not defined: {sorted(unknown)}")
    if set(names) - req - env_packs:
        raise CatalogError(f"{where}: packs never required: {sorted(set(names) - req - env_packs)}")
    if req & env_packs:
        raise CatalogError(f"{where}: envelopes repeat required packs {sorted(req & env_packs)}")
    # 6. the challenge receipt is consumed
    receipt = RECEIPTS[task.challenge.type]
    if not any(
        g != "outcome"
        and c.observe.artifact == receipt
        and c.observe.pointer == "/pass"
        and c.assert_.op == "equals"
        and c.assert_.value is True
        for g, c in checks
    ):
        raise CatalogError(f"{where}: no safe-repair check asserts {receipt}#/pass == true")
    # 7. plain-prose instruction without ground truth
    lint_instruction(task)
    # 8. the oracle repairs every leg and declares
    legs = {f.id for f in task.faults}
    if len(legs) != len(task.faults):
        raise CatalogError(f"{where}: duplicate fault leg ids")
    if legs - {s.leg for s in task.oracle if s.leg}:
        raise CatalogError(f"{where}: the oracle repairs no action for legs {sorted(legs)}")
    if not task.oracle or task.oracle[-1].tool != "declare_repair_complete":
        raise CatalogError(f"{where}: the oracle must end with declare_repair_complete")
    for f in task.faults:
        for k in list(f.injected) + list(f.golden):
            if k not in sub.config and k.split("@", 1)[0] not in sub.config:
                raise CatalogError(f"{where}: leg {f.id} names unknown config key {k!r}")
        if f.event is not None and f.event not in sub.events:
            raise CatalogError(f"{where}: leg {f.id} switches unknown event {f.event!r}")
    for ev in task.load.events:
        if ev.name not in sub.events:
            raise CatalogError(f"{where}: load event {ev.name!r} is not a substrate event")
    for v in task.vocabulary:
        if "." not in v:
            raise CatalogError(f"{where}: vocabulary entries are service.component, got {v!r}")


def lint_instruction(task: Task) -> None:
    """The instruction is plain prose with no markdown and no hidden ground truth."""
    text = task.instruction
    if _MARKDOWN.search(text):
        raise CatalogError(f"{task.id}: the instruction contains markdown")
    low = text.lower()
    secrets: set[str] = set()
    for f in task.faults:
        secrets.add(f.mechanism)
        for k, v in f.injected.items():
            secrets.add(k.lower())
            secrets.add(k.split(".", 1)[-1].split("@", 1)[0].lower())
            if isinstance(v, str) and len(v) > 2:
                secrets.add(v.lower())
        if f.event:
            secrets.add(f.event.split(".", 1)[-1].lower())
    for s in sorted(secrets):
        if s and s in low:
            raise CatalogError(f"{task.id}: the instruction gives away {s!r}")


def load_all() -> dict[str, Task]:
    return {t: load_task(t) for t in task_ids()}


__all__ = [
    "OUTCOME_ARTIFACT",
    "RECEIPTS",
    "RESTARTS",
    "Pack",
    "Substrate",
    "Task",
    "arena_dir",
    "check_task",
    "lint_instruction",
    "load_all",
    "load_substrate",
    "load_task",
    "task_ids",
]
