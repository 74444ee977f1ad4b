"""The oracle: privileged in knowledge only.

It reads the run's hidden ground truth (which faults are active, their culprits, artifacts and
remedies) but acts through the same tools, budget and policy as any agent: it reports a fault once an
attributable alert has fired, names the right culprit and artifact, and applies the fault's remedy. It
is the practical upper bound, and the check that every fault is observable and repairable in time.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import Any

from sre_gym.agents.base import Agent, alerts_of, call
from sre_gym.backends.base import alert_entities
from sre_gym.sim.pods import TERMINATING
from sre_gym.tools.specs import BUDGET_S, TOOLS

RETRY_AFTER_S = 240  # act again if the probe is still failing this long after a remedy


class OracleAgent(Agent):
    name = "oracle"

    def __init__(self, env: Any) -> None:
        if env is None:
            raise ValueError("the oracle needs the env (it reads the run's ground truth)")
        self.env = env.unwrapped
        self.reset()

    def reset(self) -> None:
        self.reported: dict[int, str] = {}  # injection index -> incident id
        self.acted: dict[int, float] = {}
        self.reverted: set[int] = set()  # faults whose commit the oracle reverted in the head
        self.unlinked: set[int] = set()  # reported on a pending alert, which is not in it yet
        self.n_reports = 0
        self._alerts: dict[tuple[str, str], tuple[float, str, set[str]]] = {}

    def _seen(self, a: dict[str, Any]) -> tuple[float, str, set[str]]:
        """(start, id, entities in lower case) of an alert of the history; an alert keeps its
        labels, so each is worked out once (the history reaches thousands of alerts)."""
        key = (a["id"], a["starts_at"])
        hit = self._alerts.get(key)
        if hit is None:
            ents = {e.lower() for e in alert_entities(a["labels"])}
            hit = self._alerts[key] = (_ts(a["starts_at"]), a["id"], ents)
        return hit

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> list[dict[str, Any]]:
        env = self.env
        b = env.backend
        now = float(obs["time"])
        grace = env.scoring.attribution_grace_s
        seen = [self._seen(a) for a in alerts_of(obs)]
        # each alert's place in the history under each entity it names, in history order
        by_entity: dict[str, list[int]] = {}
        for k, (_, _, ents) in enumerate(seen):
            for e in ents:
                by_entity.setdefault(e, []).append(k)
        # alerts whose condition holds but whose `for:` has not run out yet (ground truth: no
        # agent sees them); the oracle acts on them and adds the alert once it fires
        pending = [
            (a["active_at"], {e.lower() for e in alert_entities(a["labels"])})
            for a in b.alert_engine.active_alerts()
            if a["state"] == "pending"
        ]
        self.n_reports = len(env.toolbox.incidents)
        injections = sorted(b.ground_truth()["injections"], key=lambda i: i.end)
        calls: list[dict[str, Any]] = []
        budget = BUDGET_S

        def spend(cs: list[dict[str, Any]]) -> bool:
            nonlocal budget
            cost = sum(TOOLS[c["tool"]].duration_s for c in cs)
            if not cs or cost > budget:
                return False
            calls.extend(cs)
            budget -= cost
            return True

        # reports first (a remedy must cite one), then the remedies that relieve at once, most
        # urgent first, then the reverts that keep a defect from coming back with the next build,
        # then the fault's new alerts join its incident (net_score scores grouping)
        due: list[Any] = []
        joins: list[tuple[int, str, list[str]]] = []  # (fault, its incident, alerts to add)
        for inj in injections:
            if inj.start > now:
                continue
            scope = {s.lower() for s in (*inj.affected, *inj.culprits)}
            # the alerts naming its scope, in history order, that started within its window
            near = sorted({k for e in scope for k in by_entity.get(e, ())})
            mine = [seen[k][1] for k in near if inj.start <= seen[k][0] <= inj.end + grace]
            iid = self.reported.get(inj.index)
            if iid is not None and mine:  # keep the incident whole: the fault's new alerts join
                held = env.toolbox.incidents[iid].alerts
                new = [a for a in mine if a not in held]
                if new:  # (after the remedies: a repair in time matters more)
                    joins.append((inj.index, iid, new))
            if inj.index not in self.reported:
                early = not mine and any(inj.start <= t and scope & ents for t, ents in pending)
                if not mine and not early:
                    continue
                if early:
                    self.unlinked.add(inj.index)
                iid = f"INC-{self.n_reports + 1:04d}"
                report = call(
                    "report_incident",
                    alert_ids=mine,
                    root_cause_services=list(inj.culprits),
                    artifact=inj.artifacts[0],
                    summary=f"{inj.fault.category} fault on {inj.fault.target}",
                )
                if not spend([report]):
                    continue
                self.n_reports += 1
                self.reported[inj.index] = iid
            if now < inj.end:
                due.append(inj)
        for inj in due:
            if inj.index in self.acted and now - self.acted[inj.index] < RETRY_AFTER_S:
                continue
            if inj.index in self.acted and not b.injector.present(inj) and _healthy(b, inj):
                continue
            if spend(self._remedy(inj, self.reported[inj.index])):
                self.acted[inj.index] = now
        for inj in due:
            revert = self._revert(inj, self.reported[inj.index], now)
            if revert and spend(revert):
                self.reverted.add(inj.index)
        for index, iid, new in joins:
            if spend([call("update_incident", incident_id=iid, add_alert_ids=new)]):
                self.unlinked.discard(index)
        return calls

    def _revert(self, inj, iid: str, now: float) -> list[dict[str, Any]]:
        """``submit_patch revert=`` for a code fault whose defect is still in the repository head,
        when an ordinary code deploy of the service will build from that head before the fault's
        revert (the rollback alone would then be undone)."""
        b = self.env.backend
        ch = inj.detail.get("change")
        pipe = b.cluster.pipeline
        if ch is None or ch.kind != "code" or pipe is None or inj.index in self.reverted:
            return []
        if pipe.defect(ch.service)[1] is not ch or inj.index not in self.acted:
            return []
        changes = b.injector.changes
        ep0 = b.episode_start
        later = any(
            now <= ep0 + d.time < inj.end
            and changes[d.change_id].service == ch.service
            and changes[d.change_id].kind == "code"
            for d in b.schedule.deploys
        )
        if not later:
            return []
        return [call("submit_patch", service=inj.fault.target, revert=inj.commit, incident_id=iid)]

    def _remedy(self, inj, iid: str) -> list[dict[str, Any]]:
        b = self.env.backend
        f = inj.fault
        kind = f.remedies[0]
        d = inj.detail
        if d.get("change") is not None and d["change"].flags:
            app = b.cluster.topo.app
            defaults = {fl.name: fl.default for fl in app.flags}
            # a leak already grown stays in the running pods after the flag is off: replace them
            again = f.probe.kind == "no_restarts"
            return [
                call(
                    "patch_config",
                    deployment="flagd",
                    key=f"flags.{flag}",
                    value=defaults[flag],
                    incident_id=iid,
                )
                for flag in d["change"].flags
            ] + ([call("restart", deployment=f.target, incident_id=iid)] if again else [])
        if kind in ("rollback", "patch_config"):
            rev = _good_revision(b, inj)
            if rev is None:
                return []
            return [call("rollback", deployment=f.target, to_revision=rev, incident_id=iid)]
        if kind == "raise_cpu_limit":  # give the pods headroom over what the chaos burns
            cores = max(3 * d["amount"], 0.1)
            return [
                call(
                    "patch_config",
                    deployment=f.target,
                    key="resources.limits.cpu",
                    value=f"{int(round(cores * 1000))}m",
                    incident_id=iid,
                )
            ]
        if kind in ("restart", "delete_pod"):
            return [call("restart", deployment=f.target, incident_id=iid)]
        if kind == "scale_up":
            return [
                call("scale", deployment=f.target, replicas=int(d["replicas"]), incident_id=iid)
            ]
        if kind == "delete_networkpolicy":
            return [
                call("delete_resource", kind="networkpolicies", name=d["policy"], incident_id=iid)
            ]
        if kind in ("delete_pods_on_node", "delete_pods_in_zone"):
            cl = b.cluster
            down = [i for i, n in enumerate(cl.world.nodes) if n.name in d["nodes"]]
            p = cl.pods
            names = [
                p.names[r] for r in p.live() if p.node[r] in down and p.state[r] != TERMINATING
            ]
            names = [
                n
                for n in names
                if cl.world.deployments[p.dep[int(p.index_of(n))]].name in cl.topo.index
            ]
            return [call("delete_resource", kind="pods", name=n, incident_id=iid) for n in names]
        raise ValueError(f"oracle has no remedy for {kind!r}")


def _good_revision(b, inj) -> int | None:
    """Latest revision without the fault's change (other revisions, e.g. restarts, may sit on top)."""
    dep = b.cluster.world.deployment(inj.fault.target)
    if "key" in inj.detail:  # a direct config edit
        var, bad = inj.detail["key"][4:], inj.detail["value"]

        def drifted_clean(tpl) -> bool:
            return tpl.env_dict().get(var) != bad

        if drifted_clean(dep.current.template):
            return None
        for rev in reversed(dep.revisions[:-1]):
            if drifted_clean(rev.template):
                return rev.number
        return None
    ch = inj.detail["change"]
    after = inj.detail["after"]

    images = b.cluster.world.images

    def clean(tpl) -> bool:
        if ch.kind == "code":  # no image built from a head that carried the defect
            img = images.get(tpl.image)
            return not (img is not None and img.change is ch and img.defect is not None)
        if ch.kind == "image":
            return tpl.image != after.image
        env = tpl.env_dict()
        if any(env.get(k) == v for k, v in ch.env.items()):
            return False
        if "cpu_limit" in ch.resources and tpl.cpu_limit == after.cpu_limit:
            return False
        if "mem_limit" in ch.resources and tpl.mem_limit == after.mem_limit:
            return False
        return not (ch.readiness_port is not None and tpl.readiness_port == ch.readiness_port)

    if clean(dep.current.template):
        return None
    for rev in reversed(dep.revisions[:-1]):
        if clean(rev.template):
            return rev.number
    return None


def _healthy(b, inj) -> bool:
    k = b.cluster.tick - 1
    return k >= 0 and b.injector.probe[inj.index, k] == 1


@functools.lru_cache(maxsize=4096)
def _ts(iso: str) -> float:
    return dt.datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC).timestamp()
