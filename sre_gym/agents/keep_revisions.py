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
so that it neither mistakes them for a hand edit nor blames them later, and it checks each of its
rollbacks once the next reads are in: one that went over a fix or revert landing meanwhile (keep's
reads are up to an invocation old) is undone at once, to the fix; one that left a service whose pods
were fine crash-looping or not ready ``VERIFY_AFTER_S`` later is undone too. ``Rollbacks`` is mixed
into ``sre_gym.agents.keep.KeepAgent`` and reads its state; the rest are pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sre_gym.agents.base import call
from sre_gym.agents.keep_cues import DEPLOYMENT_ALERTS, POD_ALERTS, Alert, parse_time
from sre_gym.agents.keep_suspects import LAG_S, NEVER, PERSIST_S

VERIFY_AFTER_S = 240  # keep checks that a rollback left the service's pods running this late...
VERIFY_UNTIL_S = 600  # ...and no later
WORSE_ALERTS = POD_ALERTS - {"CPUThrottlingHigh", "ContainerMemoryNearLimit"} | DEPLOYMENT_ALERTS

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


@dataclass
class Action:
    """A disruptive action keep took on a service (to check that it helped)."""

    service: str
    tool: str
    t: float
    incident: str
    before: int | None  # the revision the service ran before it
    sick: set[str]  # the service's worse-kind alerts firing when keep acted
    seen: float  # when the reads it was decided on ran
    undo: bool = False  # it undoes keep's own earlier action
    after: int | None = None  # the revision it made
    checked: bool = False


def is_fix(change: dict[str, Any]) -> bool:
    return str(change.get("title", "")).startswith("Revert")


class Rollbacks:
    """Safe rollback targets and the checks of keep's own rollbacks (mixed into ``KeepAgent``)."""

    # the agent's state this reads and keeps (see KeepAgent.reset)
    now: float
    seen_until: float
    pods: list[dict[str, Any]]
    changes: dict[str, dict[str, Any]]
    deployments: dict[str, dict[str, Any]]
    history: dict[str, list[dict[str, Any]]]
    described_at: dict[str, float]
    want_describe: set[str]
    touched: dict[str, float]
    bad: set[str]
    actions: list[Action]
    pending: dict[int, Action]

    def _rollback(self, incident: str, svc: str, ch: dict[str, Any]) -> list[dict[str, Any]]:
        """The rollback that undoes change ch of svc, or none (yet)."""
        t, read = parse_time(ch.get("time")), self.described_at.get(svc, NEVER)
        between = [
            c
            for c in self.changes.values()
            if c["service"] == svc and read < parse_time(c["time"]) < t and c is not ch
        ]
        if read <= self.touched.get(svc, NEVER) or between:
            # the history we hold may lack the revision before the change: read it first
            self.want_describe.add(svc)
            return []
        cur = self.deployments.get(svc, {}).get("revision")
        rev = rollback_target(
            self.history.get(svc) or [],
            cur,
            ch,
            self.bad | {str(ch.get("sha", ""))[:7]},
            self._fixed_before(svc, t),
            running=cur == ch.get("revision") or None,
        )
        if rev is None:
            return []
        return [call("rollback", deployment=svc, to_revision=rev, incident_id=incident)]

    def _sick(self, svc: str, alerts: list[Alert]) -> set[str]:
        return {a.name for a in alerts if a.firing and a.service == svc and a.name in WORSE_ALERTS}

    def _undos(self, alerts: list[Alert]) -> list[dict[str, Any]]:
        """Undo keep's own rollbacks that went over a fix landing meanwhile, or that left a
        service whose pods were fine crash-looping or not ready."""
        out = []
        for x in self.actions:
            if x.checked or x.undo or x.tool != "rollback" or self.seen_until <= x.t:
                continue  # (nothing read since it ran)
            hist = self.history.get(x.service) or []
            cur = self.deployments.get(x.service, {}).get("revision")
            if cur != x.after or self.now - x.t > VERIFY_UNTIL_S:
                x.checked = True  # the service moved on, or it is too late to tell
                continue
            fixes = [
                c
                for c in self.changes.values()
                if c["service"] == x.service and is_fix(c) and x.seen < parse_time(c["time"]) <= x.t
            ]
            to = max(fixes, key=lambda c: parse_time(c["time"]))["revision"] if fixes else None
            late = self.now - x.t >= VERIFY_AFTER_S
            if to is None and not x.sick and late and self._worse(x, alerts):
                to = x.before
            if to is None or entry(hist, to) is None:
                continue
            x.checked = True
            c = call("rollback", deployment=x.service, to_revision=to, incident_id=x.incident)
            self.pending[id(c)] = Action(
                x.service, "rollback", self.now, x.incident, cur, set(), self.seen_until, True
            )
            self.touched[x.service] = self.now
            self.bad.discard(cause_sha7(entry(hist, to).get("change_cause")) or "")
            out.append(c)
        return out

    def _worse(self, x: Action, alerts: list[Alert]) -> bool:
        """Do the service's current pods crash-loop or stay unready since keep's action x?"""
        pods = {p["name"] for p in self.pods if p.get("status") != "Terminating"}
        return any(
            a.firing
            and a.service == x.service
            and a.name in WORSE_ALERTS
            and a.t >= x.t + LAG_S
            and a.lasted(self.now) >= 2 * PERSIST_S
            and (a.pod is None or a.pod in pods)
            for a in alerts
        )

    def _fixed_before(self, svc: str, t: float) -> float:
        """When the last revert of svc before t landed (NEVER if none)."""
        return max(
            (
                parse_time(c["time"])
                for c in self.changes.values()
                if c["service"] == svc and is_fix(c) and parse_time(c["time"]) < t
            ),
            default=NEVER,
        )
