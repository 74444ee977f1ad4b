"""The simulator's probe reader: each active fault's symptom probe at a tick.

A probe reads what an SLO rule or a rollout check would: service SLIs over the last minute, one
scrape late (``Window``: a 1-minute ``rate()`` evaluated a scrape interval after the fact), and the
workload's rollout and restart state. 1 is healthy, 0 failing. ``SimProbes`` implements
``sre_gym.orchestrator.faults.ProbeReader`` for the simulator's ``Injector``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from sre_gym.orchestrator.faults import Injection
from sre_gym.sim.dynamics import TickOut, p95_factor
from sre_gym.sim.pods import BACKOFF, IMAGE_WAIT, RUNNING, ready_at

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

PROBE_KINDS = (
    "error_ratio",
    "latency_p95",
    "edge_error",
    "rollout_complete",
    "no_restarts",
    "node_workloads",
)
RESTART_QUIET_S = 300.0  # a pod that exited within the longest back-off is not yet trusted
STUCK_GRACE_S = 30.0  # a running pod not ready this long after its startup is stuck
# A service failing more than this share of its own requests over the window is not recovered,
# whatever its symptom reads: pods that take traffic before they listen (a JVM booting behind no
# readiness probe) refuse it fast, which would otherwise read as low latency and no bad data. Above
# the worst third-party spell of the open world (30 %), so that an outside dependency does not hold
# a repair back.
ANSWERING_ERR_MAX = 0.5
WINDOW_TICKS = 4  # SLI probes read the last minute (4 scrapes), one scrape behind


class SimProbes:
    """Symptom probes on a simulated cluster, read through its SLI window (``ProbeReader``)."""

    def __init__(self, cl: SimCluster) -> None:
        self.cl = cl
        self.window = Window(cl.topo.n)
        self.out: TickOut | None = None  # the tick being recorded (set by the injector)

    def reader(self, tick: int, t: float) -> Callable[[Injection], int]:
        assert self.out is not None
        return self.health(tick, self.out)

    def health(self, tick: int, out: TickOut) -> Callable[[Injection], int]:
        """Each active fault's probe as of ``tick``, from the tick's output ``out``."""
        cl = self.cl
        topo = cl.topo
        t = cl.time_of_tick(tick)

        # computed at most once per tick, and only when a live fault's probe reads them (a dict
        # rather than functools.cache: building a cache wrapper costs more than most ticks' reads)
        memo: dict[str, Any] = {}

        def status() -> dict[str, np.ndarray]:
            if "status" not in memo:
                memo["status"] = cl.deployment_status()
            return memo["status"]

        def workload_states() -> tuple[np.ndarray, np.ndarray]:
            """(quiet, rollout_ok) per deployment; only rollout and restart probes need them."""
            if "workloads" not in memo:
                memo["workloads"] = _workload_states()
            return memo["workloads"]

        def _workload_states() -> tuple[np.ndarray, np.ndarray]:
            st = status()
            # a workload scaled to zero is not healthy, however quiet it is
            serving = st["spec_replicas"] > 0
            avail_ok = (st["status_replicas_available"] >= st["spec_replicas"]) & serving
            p = cl.pods
            live = p.live()
            # a pod that crashed recently, or is stuck waiting (back-off, image pull), is
            # unsettled; a pod that is simply starting up after a rollout is not
            state = p.state[live]
            stuck = (state == BACKOFF) | (state == IMAGE_WAIT)
            unsettled = stuck | (
                (p.restarts[live] > 0) & (t - p.last_term_at[live] < RESTART_QUIET_S)
            )
            bad = np.bincount(p.dep[live][unsettled], minlength=len(cl.world.deployments))
            # a pod of an older revision still running may crash again: the workload is quiet only
            # once the rollout has replaced every one of them
            cur = np.array([d.current.number for d in cl.world.deployments])
            behind = np.bincount(
                p.dep[live][p.rev[live] != cur[p.dep[live]]], minlength=len(cl.world.deployments)
            )
            quiet = (bad == 0) & (behind == 0) & avail_ok
            # a rollout that is progressing is fine; one whose new pods are stuck (image pull,
            # back-off, never passing readiness) is not
            d = p.dep[live]
            due = ready_at(
                p.started[live],
                cl.dep_boot[d],
                cl.dep_probed[d],
                cl.dep_probe_delay[d],
                cl.dep_probe_period[d],
            )
            never_ready = (
                (state == RUNNING) & ~p.ready[live] & (t > np.nan_to_num(due) + STUCK_GRACE_S)
            )
            stuck_n = np.bincount(
                p.dep[live][stuck | never_ready], minlength=len(cl.world.deployments)
            )
            return quiet, avail_ok & (stuck_n == 0)

        # SLIs as an SLO reads them: over the last minute, one scrape behind
        sli = self.window.read(out, topo.sigma)
        # serving now, and over the window the SLIs read (a window without requests has no ratio)
        has = (out.served > 0) & (sli.served > 0)
        # taking requests now, but failing most of them over the window, or with no window yet
        refusing = (out.served > 0) & ((sli.served <= 0) | (sli.own_err > ANSWERING_ERR_MAX))
        idx = topo.index
        p = cl.pods
        live = p.live()

        node_of = {nd.name: i for i, nd in enumerate(cl.world.nodes)}
        # workloads of the app (not the load generator or flagd) still sitting on each node
        app_pods = live[(p.dep[live] < topo.n) & (p.node[live] >= 0)]
        live_nodes = np.bincount(p.node[app_pods], minlength=len(cl.world.nodes))

        zone_of = [nd.zone for nd in cl.world.nodes]

        dep_idx = {d.name: d.index for d in cl.world.deployments}

        def workloads_up(inj: Injection) -> bool:
            """The moved workloads run somewhere (not merely gone: scaling to zero is no repair)."""
            st = status()
            some_ready = (st["spec_replicas"] > 0) & (st["status_replicas_available"] >= 1)
            return all(some_ready[dep_idx[d]] for d in inj.detail.get("probe_deps", ()))

        def health(inj: Injection) -> int:
            pr = inj.fault.probe
            if pr.kind == "node_workloads":
                i = node_of[pr.service]
                return int(cl.world.nodes[i].ready or (live_nodes[i] == 0 and workloads_up(inj)))
            if pr.kind == "zone_available":
                empty = all(
                    nd.ready or live_nodes[i] == 0
                    for i, nd in enumerate(cl.world.nodes)
                    if zone_of[i] == pr.service
                )
                return int(empty and workloads_up(inj))
            if pr.kind == "queue_lag":
                lags = [
                    lag
                    for (_, group), lag in zip(cl.queues.names, cl.queues.lag, strict=True)
                    if group == pr.service
                ]
                return int(all(lag <= pr.max for lag in lags))
            s = idx[pr.service]
            if pr.kind == "error_ratio":
                return int(bool(has[s]) and sli.own_err[s] <= pr.max)
            if refusing[s]:  # (a consumer that takes no requests is judged by the rest alone)
                return 0
            if pr.kind == "corruption":
                return int(bool(has[s]) and sli.corrupt[s] <= pr.max)
            if pr.kind == "latency_p95":
                return int(bool(has[s]) and sli.p95[s] <= pr.max)
            if pr.kind == "edge_error":  # the caller must be serving for its edge to count
                return int(bool(has[s]) and sli.edge_tfail[s, idx[pr.peer]] <= pr.max)
            if pr.kind == "rollout_complete":
                return int(bool(workload_states()[1][s]))
            if pr.kind == "no_restarts":
                return int(bool(workload_states()[0][s]))
            raise ValueError(pr.kind)  # pragma: no cover

        return health


@dataclass
class SLIs:
    """Per-service SLIs over a window: own error share, own p95 (ms), corrupt share, and per edge
    the transport-failure share of attempts."""

    own_err: np.ndarray
    p95: np.ndarray
    corrupt: np.ndarray
    edge_tfail: np.ndarray
    served: np.ndarray  # requests in the window (0: the ratios have no value, as rate() gives none)


class Window:
    """The last ``WINDOW_TICKS`` ticks of what the symptom probes read, so that a probe sees what a
    1-minute rate() in an SLO rule sees, one scrape interval late: shares are ratios of the window's
    sums (requests, errors, attempts), latency the traffic-weighted p95 of its ticks."""

    def __init__(self, n: int) -> None:
        w = WINDOW_TICKS
        self.k = 0  # ticks pushed so far
        self.served = np.zeros((w, n))
        self.errs = np.zeros((w, n))
        self.lat = np.zeros((w, n))  # served-weighted p95
        self.bad = np.zeros((w, n))
        self.att = np.zeros((w, n, n))
        self.tfail = np.zeros((w, n, n))

    def push(self, out: TickOut, sigma: np.ndarray) -> None:
        i = self.k % WINDOW_TICKS
        self.served[i] = out.served
        self.errs[i] = out.own_err * out.served
        self.lat[i] = out.own_lat * p95_factor(sigma) * out.served
        self.bad[i] = out.corrupt * out.served
        self.att[i] = out.edge_att
        self.tfail[i] = out.edge_tfail * out.edge_att
        self.k += 1

    def read(self, out: TickOut, sigma: np.ndarray) -> SLIs:
        """The SLIs of the window ending one tick ago (the current tick alone before any tick)."""
        if self.k == 0:
            p95 = out.own_lat * p95_factor(sigma)
            return SLIs(out.own_err, p95, out.corrupt, out.edge_tfail, out.served)
        rows = slice(0, min(self.k, WINDOW_TICKS))  # the ring is full after WINDOW_TICKS pushes
        served = self.served[rows].sum(axis=0)
        tot = np.maximum(served, 1e-12)
        att = np.maximum(self.att[rows].sum(axis=0), 1e-12)
        return SLIs(
            own_err=self.errs[rows].sum(axis=0) / tot,
            p95=self.lat[rows].sum(axis=0) / tot,
            corrupt=self.bad[rows].sum(axis=0) / tot,
            edge_tfail=self.tfail[rows].sum(axis=0) / att,
            served=served,
        )
