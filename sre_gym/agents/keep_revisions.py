"""What the Keep baseline knows of deployment revisions, and where a rollback may safely go.

Kubernetes numbers a deployment's revisions in order and moves a revision that is rolled back to
onto the head under a new number, so arithmetic on revision numbers goes wrong after the first
rollback. Keep therefore rolls back only with the deployment's described revision history at hand
(``k8s_describe``), and
- only while the suspect change is what the deployment runs (a change already replaced, by the
  pipeline or by keep, needs no rollback);
- to the newest revision created before the change, never to one whose change is known to be bad
  (one keep rolled back, one a later ``Revert "..."`` undid), and never to one older than a fix or
  revert that landed before the change (that would bring the fixed defect back).
It also remembers the revisions its own rollbacks and restarts created (the tool results name them),
so that it neither mistakes them for a hand edit nor blames them later. Pure functions.
"""

from __future__ import annotations

import re
from typing import Any

from sre_gym.agents.keep_cues import parse_time

_REVISION = re.compile(r"revision (\d+)")
_DEPLOY = re.compile(r"^deploy ([0-9a-f]{7})")


def own_revision(result: Any) -> int | None:
    """The revision a rollback or restart result says it made ('... (now revision 41, ...)',
    '... restarted (revision 2)')."""
    m = _REVISION.search(result) if isinstance(result, str) else None
    return int(m.group(1)) if m else None


def cause_sha7(cause: str | None) -> str | None:
    """The short sha a revision's change cause names ('deploy 8e340c8: title'), if any."""
    m = _DEPLOY.match(cause or "")
    return m.group(1) if m else None


def entry(history: list[dict[str, Any]], revision: int | None) -> dict[str, Any] | None:
    return next((h for h in history if h.get("revision") == revision), None)


def runs(history: list[dict[str, Any]], current: int | None, change: dict[str, Any]) -> bool:
    """Does the deployment run ``change`` now? (its current revision is the change's own revision
    for a hand edit, or names the change's commit; a restart keeps the cause)"""
    cur = entry(history, current)
    if cur is None:
        return False
    if change.get("drift"):
        return current == change.get("revision")
    return cause_sha7(cur.get("change_cause")) == str(change.get("sha", ""))[:7]


def changed_at(history: list[dict[str, Any]], change: dict[str, Any]) -> float:
    """When the change's revision was made: a hand edit's from the history, a deploy's from
    ``list_changes``."""
    if change.get("drift"):
        own = entry(history, change.get("revision"))
        return parse_time(own["created"]) if own else parse_time(change.get("time"))
    return parse_time(change.get("time"))


def rollback_target(
    history: list[dict[str, Any]],
    current: int | None,
    change: dict[str, Any],
    bad: set[str],
    fixed_at: float,
    running: bool | None = None,
) -> int | None:
    """The revision to roll back to in order to undo ``change``: the newest revision created
    before it that is not the current one, names no commit in ``bad`` (short shas) and is not older
    than ``fixed_at`` (the last fix or revert of the service before the change); None if there is
    no such revision or the deployment no longer runs the change (``running``: known already, else
    read from the history, which may predate the change if no revision came between)."""
    if not (running or (running is None and runs(history, current, change))):
        return None
    t = changed_at(history, change)
    best, best_t = None, -1.0
    for h in history:
        created = parse_time(h.get("created"))
        if h.get("revision") == current or created >= t or created < fixed_at:
            continue
        if cause_sha7(h.get("change_cause")) in bad:
            continue
        if created > best_t:
            best, best_t = h, created
    return int(best["revision"]) if best else None
