"""The embedded backend: SimCluster + schedule injector + in-process Prometheus rule evaluation."""

from __future__ import annotations

import functools
import math
from typing import Any

from sre_gym.backends.base import (
    Backend,
    FlagBackend,
    GroundTruthBackend,
    OperationError,
    OrchestratedBackend,
    PipelineBackend,
    RevertBackend,
    SourceBackend,
    TraceBackend,
    alert_entities,
    alert_view,
    app_topology,
)
from sre_gym.catalogs import RELEASE, catalog_dir
from sre_gym.clock import EPOCH, TICK_S, rfc3339
from sre_gym.orchestrator.open_world import NOISE_PROFILES, NoiseProfile, OpenWorld
from sre_gym.orchestrator.schedule import Schedule, schedule
from sre_gym.scoring.config import ScoringConfig
from sre_gym.sim import k8s_view
from sre_gym.sim import logs as logs_mod
from sre_gym.sim.cluster import WARMUP_S, SimCluster, SimError
from sre_gym.sim.faults.injector import Injector
from sre_gym.sim.faults.noise import Noise, noise_is_off
from sre_gym.sim.source_trees import PipelineError
from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.rules import AlertEngine, load_rules

EVAL_INTERVAL_S = 30


@functools.cache
def rule_pack() -> tuple:
    """The alert rule pack shipped with the release (parsed once per process)."""
    paths = sorted((catalog_dir() / "alerts").glob("*.yaml"))
    return tuple(r for p in paths for r in load_rules(p))


class SimBackend(
    Backend,
    SourceBackend,
    PipelineBackend,
    RevertBackend,
    TraceBackend,
    FlagBackend,
    OrchestratedBackend,
    GroundTruthBackend,
):
    """One seeded marathon on the simulator. Create a new one per episode.

    It has the whole ``Backend`` protocol and every capability of ``sre_gym.backends.base``."""

    def __init__(
        self,
        app: str,
        seed: int,
        *,
        release: str = RELEASE,
        sched: Schedule | None = None,
        scoring: ScoringConfig | None = None,
        noise: NoiseProfile | None = None,
    ) -> None:
        self.app, self.seed, self.release = app, int(seed), release
        self.schedule = sched if sched is not None else schedule(app, seed, release)
        self.cluster = SimCluster(
            app, seed, release=release, horizon_s=WARMUP_S + self.schedule.duration_s
        )
        self.t0 = float(EPOCH)
        self.tick_s = TICK_S
        self.episode_start = float(EPOCH + WARMUP_S)
        self.episode_end = self.episode_start + self.schedule.duration_s
        cfg = scoring or ScoringConfig()
        self.injector = Injector(
            self.cluster,
            self.schedule,
            self.episode_start,
            hold_s=cfg.repair_hold_s,
            persistence_s=cfg.persistence_s,
        )
        # benign and unscored: load noise, and the open world's anomalies
        prof = noise if noise is not None else NOISE_PROFILES["production"]
        if noise_is_off():
            prof = NOISE_PROFILES["off"]
        self.noise = Noise(self.cluster, self.schedule, self.episode_start, scale=prof.load_noise)
        self.open_world = OpenWorld(self.cluster, self.schedule, self.episode_start, prof)
        self.engine = Engine(self.cluster.tsdb)
        self.alert_engine = AlertEngine(
            list(rule_pack()), self.engine, eval_interval_s=EVAL_INTERVAL_S
        )
        self._alerts: dict[str, dict[str, Any]] = {}
        self._alert_order: list[str] = []
        # alerts() is read for later and later times, several times a step, and the history grows to
        # thousands of alerts: the list as of the last time read is kept and brought forward with
        # the alerts fired and resolved since. Alerts fire, and resolve, in evaluation order.
        self._listing: list[dict[str, Any]] = []
        self._listing_t = -math.inf
        self._listed = 0  # the listing holds this prefix of _alert_order
        self._pos: dict[str, int] = {}  # alert id -> its place in the listing
        self._resolved: list[tuple[float, str]] = []  # (resolved_at, id), in evaluation order
        self._applied = 0  # the listing shows this prefix of _resolved
        self._pending: list[dict[str, Any]] = []
        self._records_seen = 0

    # ------------------------------------------------------------------ time
    @property
    def now(self) -> float:
        return self.cluster.now

    def advance_to(self, t: float) -> None:
        self.cluster.advance_to(t)

    def close(self) -> None:
        """Let go of the episode's telemetry at once (its pages serve the next episode's store)."""
        self.cluster.tsdb.release()

    def _evaluate(self, t: float) -> None:
        t = min(t, self.now)
        trs = self.alert_engine.evaluate_until(t)
        fired = [tr for tr in trs if tr["to"] == "firing"]
        ids = {tr["id"] for tr in fired}
        records = {r["id"]: r for r in self.alert_engine.fired_records(ids, t)} if fired else {}
        for tr in trs:
            aid = tr["id"]
            if tr["to"] == "firing":
                rec = records[aid]
                view = {
                    "id": aid,
                    "name": rec["name"],
                    "severity": rec["labels"].get("severity", "none"),
                    "labels": dict(rec["labels"]),
                    "annotations": dict(rec["annotations"]),
                    "fired_at": float(rec["fired_at"]),
                    "resolved_at": None,
                }
                self._alerts[aid] = view
                self._alert_order.append(aid)
                self._pending.append(
                    {
                        "type": "alert",
                        "t": view["fired_at"],
                        "id": aid,
                        "name": view["name"],
                        "labels": view["labels"],
                        "severity": view["severity"],
                        "entities": alert_entities(view["labels"]),
                    }
                )
            elif tr["to"] == "resolved" and aid in self._alerts:
                self._alerts[aid]["resolved_at"] = float(tr["t"])
                self._resolved.append((float(tr["t"]), aid))
                self._pending.append({"type": "alert_resolved", "t": float(tr["t"]), "id": aid})

    # ------------------------------------------------------------------ reads
    def alerts(self, t: float) -> list[dict[str, Any]]:
        """Every alert that started firing at or before t, with its state as of t."""
        return [dict(v) for v in self.alert_listing(t)]

    def alert_listing(self, t: float) -> list[dict[str, Any]]:
        self._evaluate(t)
        return list(self._listing_at(t))  # (the list itself grows with later reads)

    def _listing_at(self, t: float) -> list[dict[str, Any]]:
        """The alert views as of ``t`` (shared: callers copy them)."""
        alerts, order = self._alerts, self._alert_order
        if t < self._listing_t:  # an earlier time than the last read: built afresh
            return [
                alert_view(aid, a, a["fired_at"], t)
                for aid in order
                if (a := alerts[aid])["fired_at"] <= t
            ]
        listing = self._listing
        while self._listed < len(order) and alerts[order[self._listed]]["fired_at"] <= t:
            aid = order[self._listed]
            self._pos[aid] = len(listing)
            listing.append(alert_view(aid, alerts[aid], alerts[aid]["fired_at"], t))
            self._listed += 1
        done = self._resolved
        while self._applied < len(done) and done[self._applied][0] <= t:
            aid = done[self._applied][1]
            i = self._pos.get(aid)
            if i is not None:  # (not listed yet: it is listed resolved when it is)
                listing[i] = alert_view(aid, alerts[aid], alerts[aid]["fired_at"], t)
            self._applied += 1
        self._listing_t = t
        return listing

    def alert_entities(self, alert_id: str) -> list[str]:
        a = self._alerts.get(alert_id)
        return alert_entities(a["labels"]) if a else []

    def runbook(self, alert_id: str) -> str:
        a = self._alerts.get(alert_id)
        return a["annotations"].get("runbook", "") if a else ""

    def promql_instant(self, query: str, t: float) -> dict[str, Any]:
        return self.engine.instant(query, t)

    def promql_range(self, query: str, start: float, end: float, step: float) -> dict[str, Any]:
        return self.engine.range(query, start, end, step)

    def logs(
        self,
        service: str,
        since: float,
        until: float,
        *,
        contains: str | None = None,
        level: str = "any",
        limit: int = 50,
    ) -> list[str]:
        try:
            return logs_mod.query(
                self.cluster, service, since, until, contains=contains, level=level, limit=limit
            )
        except KeyError as e:
            raise OperationError(str(e.args[0])) from e

    def topology(self) -> dict[str, Any]:
        return app_topology(self.cluster.topo.app)

    def k8s_get(self, kind: str, name: str | None) -> Any:
        try:
            return k8s_view.get(self.cluster, kind, name)
        except k8s_view.NotFound as e:
            raise OperationError(str(e.args[0])) from e

    def k8s_describe(self, kind: str, name: str) -> dict[str, Any]:
        try:
            return k8s_view.describe(self.cluster, kind, name)
        except k8s_view.NotFound as e:
            raise OperationError(str(e.args[0])) from e

    def changes(self) -> list[dict[str, Any]]:
        return [
            {
                "sha": c.sha,
                "service": c.service,
                "kind": c.kind,
                "title": c.title,
                "author": c.author,
                "time": rfc3339(c.time),
                "t": c.time,
                "files": list(c.files),
                "diff": c.diff,
                "image": c.image,
                "revision": c.revision,
                "pipeline": dict(c.pipeline),
            }
            for c in self.cluster.changes
        ]

    def entity_of(self, kind: str, name: str) -> str | None:
        """The workload an object belongs to (for scope checks)."""
        cl = self.cluster
        if kind == "deployments":
            return name if cl.world.deployment(name) else None
        if kind == "pods":
            r = cl.pods.index_of(name)
            return cl.world.deployments[cl.pods.dep[r]].name if r is not None else None
        if kind == "networkpolicies":
            for p in cl.world.netpols:
                if p.name == name:
                    return p.workload()
        return None

    def node_of_pod(self, name: str) -> str | None:
        cl = self.cluster
        r = cl.pods.index_of(name)
        if r is None or cl.pods.node[r] < 0:
            return None
        return cl.world.nodes[cl.pods.node[r]].name

    # ------------------------------------------------------------------ interventions
    def _op(self, fn, *args) -> Any:
        try:
            return fn(*args)
        except SimError as e:
            raise OperationError(str(e)) from e

    def rollback(self, deployment: str, to_revision: int | None, t: float) -> str:
        rev = self._op(self.cluster.rollback, deployment, t, to_revision)
        return f"deployment.apps/{deployment} rolled back (now revision {rev.number}, image {rev.template.image})"

    def patch_config(self, deployment: str, key: str, value: str, t: float) -> str:
        rev = self._op(self.cluster.patch, deployment, key, value, t)
        return f"deployment.apps/{deployment} patched ({key}={value}); rolling out revision {rev.number}"

    def scale(self, deployment: str, replicas: int, t: float) -> str:
        self._op(self.cluster.scale, deployment, replicas, t)
        return f"deployment.apps/{deployment} scaled to {replicas}"

    def restart(self, deployment: str, t: float) -> str:
        rev = self._op(self.cluster.restart, deployment, t)
        return f"deployment.apps/{deployment} restarted (revision {rev.number})"

    def delete(self, kind: str, name: str, t: float) -> str:
        if kind == "pods":
            self._op(self.cluster.delete_pod, name, t)
            return f'pod "{name}" deleted'
        if kind == "networkpolicies":
            self._op(self.cluster.delete_networkpolicy, name, t)
            return f'networkpolicy.networking.k8s.io "{name}" deleted'
        raise OperationError(f"deleting {kind} is not supported; delete pods or networkpolicies")

    # ------------------------------------------------------------------ evidence
    def drain_evidence(self) -> list[dict[str, Any]]:
        """Evidence events produced since the last call (injections, reverts, deploys, alerts)."""
        self._evaluate(self.now)
        recs = self.injector.records[self._records_seen :]
        self._records_seen = len(self.injector.records)
        out = sorted([*recs, *self._pending], key=lambda e: e["t"])
        self._pending = []
        return out

    def evidence_arrays(self) -> dict[str, Any]:
        return {
            "probe": self.injector.probe,
            "artifact": self.injector.artifact,
            "entry": self.cluster.rec_entry,
        }

    # ------------------------------------------------------------------ source and the pipeline
    def _repo(self, service: str) -> Any:
        """The pipeline, for a service that has a repository."""
        cl = self.cluster
        if cl.pipeline is None:
            raise OperationError(f"{self.app} has no source trees in this release")
        if cl.world.deployment(service) is None:
            raise OperationError(f"no service {service!r} (see get_topology)")
        if service not in cl.pipeline_services:
            raise OperationError(f"{service} has no source repository in this release")
        return cl.pipeline

    def list_source(self, service: str) -> list[str]:
        """Files of the service's repository head (what the next build is made from)."""
        return self._repo(service).files(service)

    def read_source(self, service: str, path: str) -> str:
        try:
            return self._repo(service).read(service, path)
        except KeyError as e:
            raise OperationError(str(e.args[0])) from e

    def revert_diff(self, service: str, sha: str) -> str:
        """The diff that reverts one of the service's commits on its head (``git revert``)."""
        pipeline = self._repo(service)
        try:
            return pipeline.revert_diff(sha)
        except KeyError:
            raise OperationError(f"{sha[:12]} is not a commit of {service}'s repository") from None
        except PipelineError as e:
            raise OperationError(f"cannot revert {sha[:12]}: {e}") from e

    def submit_patch(self, service: str, diff: str, t: float) -> dict[str, Any]:
        """Apply, lint, test and build a source patch on the head, then roll the image out."""
        pipeline = self._repo(service)
        image = self.cluster.world.deployment(service).current.template.image
        try:
            res = pipeline.submit(service, image, diff, t)
        except (KeyError, PipelineError) as e:
            raise OperationError(str(e.args[0])) from e
        if not res.ok:
            failed = next((s for s in res.stages if s["status"] == "failed"), None)
            detail = f" [{failed['stage']}: {failed['detail'][:800]}]" if failed else ""
            raise OperationError(f"pipeline failed: {res.message}{detail}")
        rec = self.cluster.deploy_patch(service, res, diff, t, author="oncall-agent")
        return {**res.to_dict(), "revision": rec.revision}

    def note_intervention(self, t: float, target: str | None, obj: str) -> None:
        """Tell the orchestrator an intervention ran (it schedules repair persistence checks)."""
        self.injector.note_intervention(t, target, obj)

    def flag_owner(self, key: str) -> str | None:
        """The service a feature flag key (``flags.<name>``) changes, if it names one."""
        if not key.startswith("flags."):
            return None
        for f in self.cluster.topo.app.flags:
            if f.name == key[6:]:
                return f.service
        return None

    def ground_truth(self) -> dict[str, Any]:
        """Hidden truth for privileged baselines (the oracle) and analysis; never shown to agents."""
        return {
            "schedule": self.schedule,
            "injections": [inj for inj in self.injector.injections if inj is not None],
        }

    def traces(
        self,
        service: str | None,
        since: float,
        until: float,
        *,
        errors_only: bool = False,
        min_duration_ms: float | None = None,
        limit: int = 10,
        trace_id: str | None = None,
        spans: bool = False,
    ) -> list[dict[str, Any]]:
        """Sampled traces, generated from the per-tick records when asked (reading changes nothing)."""
        from sre_gym.sim import traces as traces_mod

        try:
            return traces_mod.query(
                self.cluster,
                service,
                since,
                until,
                errors_only=errors_only,
                min_duration_ms=min_duration_ms,
                limit=limit,
                trace_id=trace_id,
                spans=spans,
            )
        except KeyError as e:
            raise OperationError(str(e.args[0])) from e
