"""The live backend: the read tools, the interventions and a scheduled episode on a real cluster.

``LiveBackend`` implements the ``Backend`` protocol over a real Kubernetes API (the official
``kubernetes`` client: ``CoreV1Api``, ``AppsV1Api``, ``NetworkingV1Api``) and a real Prometheus HTTP API
(``prometheus_api_client.PrometheusConnect``), with the same return shapes as ``SimBackend``, so the
guarded ``Toolbox`` and every agent drive a real cluster unchanged:

    backend = LiveBackend("online-boutique", prometheus_url="http://localhost:9090")
    toolbox = Toolbox(backend, Evidence(manifest={}))
    toolbox.execute({"tool": "k8s_get", "args": {"kind": "pods"}}, backend.now, 1, 110)

Time is the episode clock, read only through the injected ``clock`` (a ``live_time.Clock``, or a
``clock()`` function with a ``sleep(s)``), so tests drive time without sleeping or compress it.
With a schedule (``sched``), the backend runs the episode (``live_episode.LiveEpisode``): it injects
and reverts each fault at its window's edges through ``live_faults.LiveFaults`` (with
``injector_api``, the injector's own identity), reads probes and entry-point traffic with PromQL
(``live_probes``), follows interventions for the observed persistence of repairs, and gives the
scorer the same evidence as the simulator (docs/live.md). Traces, source access and the build
pipeline are not available (the Toolbox answers those tools with a clear error).

Alerts come from polling Prometheus' ``/api/v1/alerts`` at every tick and ``advance_to``: an alert is known from
the first poll that sees it *firing* (pending alerts are ignored) and becomes resolved at the first
poll that no longer sees it. Logs are read with ``read_namespaced_pod_log`` from the current
containers of the service's pods; their level is inferred from the line (JSON ``severity``/``level``,
logfmt ``level=``, or an ERROR/WARN word), since Kubernetes keeps no level.

This module holds ``LiveBackend`` itself (construction, time, alerts, evidence); its parts live beside
it: ``live_client`` (the extra, the client and the guarded calls), ``live_objects`` (pure readers of
API objects and log lines), ``live_reads`` and ``live_interventions``. They import ``kubernetes`` and
``prometheus_api_client`` (the ``live`` extra); nothing in the core package imports them, so
``import sre_gym`` stays light.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from sre_gym.backends.base import Backend, OrchestratedBackend, alert_entities, alert_view
from sre_gym.backends.live_client import (
    REQUEST_TIMEOUT_S,
    PrometheusConnect,
    Retry,
    _load_api_client,
    k8s,
    requests,
)
from sre_gym.backends.live_episode import LiveEpisode, ObservedRepairs
from sre_gym.backends.live_interventions import RESTARTED_AT, ROLLBACK_KEEP, LiveInterventions
from sre_gym.backends.live_objects import (
    CHANGE_CAUSE,
    HASH_LABEL,
    PROBE_HANDLERS,
    REVISION,
    log_level,
    pod_status,
)
from sre_gym.backends.live_reads import LiveReads
from sre_gym.backends.live_time import Clock, TimeScale
from sre_gym.catalogs import RELEASE, load_app
from sre_gym.clock import EPISODE_S, TICK_S, parse_time

__all__ = [
    "CHANGE_CAUSE",
    "HASH_LABEL",
    "PROBE_HANDLERS",
    "REQUEST_TIMEOUT_S",
    "RESTARTED_AT",
    "REVISION",
    "ROLLBACK_KEEP",
    "LiveBackend",
    "log_level",
    "pod_status",
]


# ---------------------------------------------------------------------------------------- backend
class _Callables:
    """A ``Clock`` from a ``clock()`` and a ``sleep(s)`` function (no time compression)."""

    scale = TimeScale()

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]) -> None:
        self.now, self.sleep = clock, sleep


class LiveBackend(LiveEpisode, LiveReads, LiveInterventions, Backend, OrchestratedBackend):
    """One episode on a real cluster: reads and interventions through the Kubernetes API and
    Prometheus. Create a new one per episode; ``close()`` releases the HTTP sessions.

    It has the ``Backend`` protocol and, of the capabilities of ``sre_gym.backends.base``, only
    ``OrchestratedBackend`` (its fault driver follows interventions); no source, pipeline, traces,
    flag owners or ground truth."""

    def __init__(
        self,
        app: str,
        *,
        namespace: str | None = None,
        api_client: k8s.ApiClient | None = None,
        prometheus_url: str,
        prometheus_headers: dict[str, str] | None = None,
        clock: Clock | Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        seed: int = 0,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        sched: Any = None,
        injector_api: k8s.ApiClient | None = None,
        images: str | None = None,
        hold_s: float = 90.0,
        persistence_s: float = 120.0,
    ) -> None:
        self.topo_app = load_app(app)
        self.app, self.seed, self.release = app, int(seed), RELEASE
        self.namespace = namespace or self.topo_app.namespace
        self.clk: Clock = clock if hasattr(clock, "now") else _Callables(clock, sleep)  # type: ignore[arg-type]
        self.timescale: TimeScale = self.clk.scale
        self.sleep = self.clk.sleep
        self.tick_s = TICK_S
        self.t0 = self.episode_start = float(self.clk.now())
        self.schedule = sched
        self.episode_end = self.episode_start + (
            sched.duration_s if sched is not None else EPISODE_S
        )
        self.timeout_s = request_timeout_s
        self._event_log: dict[tuple, dict[str, Any]] = {}
        self._events_pending: list[dict[str, Any]] = []
        self._owns_client = api_client is None
        self.api = api_client if api_client is not None else _load_api_client()
        self.core = k8s.CoreV1Api(self.api)
        self.apps = k8s.AppsV1Api(self.api)
        self.net = k8s.NetworkingV1Api(self.api)
        # no status retries: a 5xx would otherwise be retried with real, unmockable back-off sleeps
        self.prom = PrometheusConnect(
            url=prometheus_url.rstrip("/"),
            headers=prometheus_headers,
            retry=Retry(total=1, read=False, status_forcelist=(), backoff_factor=0),
            timeout=request_timeout_s,
        )
        self._alerts: dict[str, dict[str, Any]] = {}
        self._alert_order: list[str] = []
        self._open: dict[tuple[tuple[str, str], ...], str] = {}
        self._pending: list[dict[str, Any]] = []
        self.last_poll: float | None = None
        self.poll_error: str | None = None
        self._records_seen = 0
        if sched is not None:
            self._start_faults(sched, injector_api, images, hold_s, persistence_s)

    def _start_faults(
        self, sched: Any, injector_api: Any, images: str | None, hold_s: float, persistence_s: float
    ) -> None:
        from sre_gym.backends.live_faults import LiveFaults
        from sre_gym.backends.live_probes import LiveProbes

        cap = int((self.episode_end - self.t0) // self.tick_s) + 2
        self.faults = LiveFaults(
            sched,
            self.episode_start,
            cap,
            api=injector_api if injector_api is not None else self.api,
            namespace=self.namespace,
            release=self.release,
            images=images,
            timeout_s=self.timeout_s,
        )
        zones: dict[str, list[str]] = {}
        for n in self.topo_app.nodes:
            zones.setdefault(n.zone, []).append(n.name)
        entry = self.topo_app.entrypoint
        self.probes = LiveProbes(
            self._query_range, self.timescale, self.namespace, entry, zones, self.tick_s
        )
        self.repairs = ObservedRepairs(self, hold_s, persistence_s)
        self._setup_episode()
        self.faults.install_exit_handlers(self.clk)

    def _query_range(self, query: str, start: float, end: float, step: float) -> list[dict]:
        """``/api/v1/query_range`` at exact (millisecond) times: prometheus-api-client rounds them
        to whole seconds, which a time-compressed tick does not survive."""

        def get() -> list[dict]:
            pc = self.prom
            resp = pc._session.get(
                f"{pc.url}/api/v1/query_range",
                params={
                    "query": query,
                    "start": f"{start:.3f}",
                    "end": f"{end:.3f}",
                    "step": f"{step:g}",
                },
                headers=pc.headers,
                timeout=self.timeout_s,
            )
            body = resp.json()
            if resp.status_code != 200 or body.get("status") != "success":
                raise ValueError(f"HTTP {resp.status_code}: {body.get('error', resp.text[:300])}")
            return body["data"]["result"]

        return self._prom(get)

    def close(self) -> None:
        """Revert every injection still in place, then close the Prometheus session and the
        Kubernetes client this backend created."""
        if self.faults is not None:
            self.faults.revert_all(self.now)
            self.faults.uninstall_exit_handlers()
        self.prom.close()
        if self._owns_client:
            self.api.close()

    def __enter__(self) -> LiveBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ time
    @property
    def now(self) -> float:
        return float(self.clk.now())

    def clock(self) -> float:
        return self.now

    # ------------------------------------------------------------------ alerts
    def poll_alerts(self) -> None:
        """Read Prometheus' firing alerts now and update the history (``advance_to`` calls this).

        A failed poll changes nothing (no alert is resolved on missing data); ``poll_error`` says why.
        """
        t = self.now
        pc = self.prom
        try:
            resp = pc._session.request(
                "GET",
                f"{pc.url}/api/v1/alerts",
                headers=pc.headers,
                auth=pc.auth,
                verify=pc._session.verify,
                cert=pc._session.cert,
                timeout=self.timeout_s,
            )
            if resp.status_code != 200:
                raise ValueError(f"HTTP {resp.status_code}: {resp.text[:300]}")
            raw = resp.json()["data"]["alerts"]
        except (requests.RequestException, ValueError, KeyError, TypeError) as e:
            self.poll_error = f"polling {pc.url}/api/v1/alerts failed: {e}"
            return
        self.poll_error, self.last_poll = None, t
        firing: dict[tuple[tuple[str, str], ...], dict] = {}
        for a in raw:
            if not isinstance(a, dict) or a.get("state") != "firing":
                continue
            labels = {str(k): str(v) for k, v in (a.get("labels") or {}).items()}
            firing.setdefault(tuple(sorted(labels.items())), a | {"labels": labels})
        for key, aid in list(self._open.items()):
            if key not in firing:
                self._alerts[aid]["resolved_at"] = t
                del self._open[key]
                self._pending.append({"type": "alert_resolved", "t": t, "id": aid})
        for key in sorted(k for k in firing if k not in self._open):
            a = firing[key]
            aid = f"ALR-{len(self._alert_order) + 1:04d}"
            labels = a["labels"]
            annotations = {str(k): str(v) for k, v in (a.get("annotations") or {}).items()}
            view = {
                "id": aid,
                "name": labels.get("alertname", ""),
                "severity": labels.get("severity", "none"),
                "labels": labels,
                "annotations": annotations,
                "active_at": self._episode_time(parse_time(a.get("activeAt"))),
                "seen_at": t,
                "resolved_at": None,
            }
            self._alerts[aid] = view
            self._alert_order.append(aid)
            self._open[key] = aid
            self._pending.append(
                {
                    "type": "alert",
                    "t": t,
                    "id": aid,
                    "name": view["name"],
                    "labels": labels,
                    "severity": view["severity"],
                    "entities": alert_entities(labels),
                }
            )

    def alerts(self, t: float) -> list[dict[str, Any]]:
        """Every alert seen firing at or before ``t`` (polled), with its state as of ``t``.

        ``starts_at`` is Prometheus' ``activeAt`` (as Alertmanager reports it)."""
        out = []
        for aid in self._alert_order:
            a = self._alerts[aid]
            if a["seen_at"] <= t:
                start = a["active_at"] if a["active_at"] is not None else a["seen_at"]
                out.append(alert_view(aid, a, start, t))
        return out

    def alert_listing(self, t: float) -> list[dict[str, Any]]:
        return self.alerts(t)  # new views on every read: nothing is shared

    def alert_entities(self, alert_id: str) -> list[str]:
        a = self._alerts.get(alert_id)
        return alert_entities(a["labels"]) if a else []

    def runbook(self, alert_id: str) -> str:
        a = self._alerts.get(alert_id)
        if not a:
            return ""
        return a["annotations"].get("runbook") or a["annotations"].get("runbook_url", "")

    def _episode_time(self, t: float | None) -> float | None:
        return None if t is None else self.timescale.from_prom(t)

    # ------------------------------------------------------------------ evidence
    def drain_evidence(self) -> list[dict[str, Any]]:
        """Evidence since the last call, by time: the fault driver's injections, reverts and
        observed challenges, alert transitions, and the Kubernetes events the reads saw (the
        Toolbox records the interventions)."""
        recs: list[dict[str, Any]] = []
        if self.faults is not None:
            recs = self.faults.records[self._records_seen :]
            self._records_seen = len(self.faults.records)
        out = sorted([*recs, *self._pending, *self._events_pending], key=lambda e: e["t"])
        self._pending, self._events_pending = [], []
        return out

    def evidence_arrays(self) -> dict[str, Any]:
        """The per-tick arrays the scorer reads: probes, artifacts, entry-point traffic (none
        without a schedule)."""
        if self.faults is None:
            return {}
        return {"probe": self.faults.probe, "artifact": self.faults.artifact, "entry": self.entry}
