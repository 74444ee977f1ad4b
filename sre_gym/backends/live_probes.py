"""Symptom probes and entry-point traffic on a live cluster, read from Prometheus with PromQL.

``LiveProbes`` implements ``sre_gym.orchestrator.faults.ProbeReader`` for a live run: each probe kind
is a query of ``catalogs/live/probes.yaml`` filled in for the fault (namespace, service, peer,
threshold, nodes), answering 1 (healthy) or 0. Probes are read in batches, one range query per
active fault over the ticks Prometheus has scraped by now (``read``), after the fact: Prometheus
keeps the history, so a batch gives the same values as a query at each tick would, and a run needs
a few queries per invocation rather than one per fault and tick. Queries go through the clock's
``TimeScale`` (``compress_promql``; times ``to_prom``), the identity on a real cluster.
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import yaml

from sre_gym.backends.live_time import TimeScale, compress_promql
from sre_gym.catalogs import catalog_dir
from sre_gym.orchestrator.faults import Injection

ENTRY_COLUMNS = ("requests", "failed", "slow")


@functools.cache
def templates() -> dict[str, Any]:
    """The probe and entry queries of ``catalogs/live/probes.yaml``."""
    with open(catalog_dir() / "live" / "probes.yaml", encoding="utf-8") as f:
        return yaml.safe_load(f)


def _re(name: str) -> str:
    """A Kubernetes name inside a PromQL regex string (DNS names: only the dot is special)."""
    return name.replace(".", "\\\\.")


def _fill(template: str, **values: str) -> str:
    out = template
    for k in sorted(values, key=len, reverse=True):  # $nodes before $node
        out = out.replace(f"${k}", values[k])
    return " ".join(out.split())


def probe_query(inj: Injection, namespace: str, zone_nodes: dict[str, list[str]]) -> str:
    """The fault's probe as one PromQL query (1 healthy, 0 failing)."""
    pr = inj.fault.probe
    deps = inj.detail.get("probe_deps") or []
    nodes = zone_nodes.get(pr.service, [])
    return _fill(
        templates()["probes"][pr.kind],
        ns=namespace,
        service=pr.service,
        peer=pr.peer or "",
        max=f"{pr.max:g}" if pr.max is not None else "0",
        node=pr.service,
        nodes="|".join(_re(n) for n in nodes) or "^$",
        deps="|".join(_re(d) for d in deps) or "^$",
    )


def entry_queries(namespace: str, entry: str) -> list[str]:
    t = templates()["entry"]
    return [_fill(t[c], ns=namespace, entry=entry) for c in ENTRY_COLUMNS]


class LiveProbes:
    """Probe and entry readings through ``query_range(query, start, end, step) -> matrix``."""

    def __init__(
        self,
        query_range: Callable[[str, float, float, float], list[dict]],
        scale: TimeScale,
        namespace: str,
        entry: str,
        zone_nodes: dict[str, list[str]],
        tick_s: float,
    ) -> None:
        self.query_range = query_range
        self.scale, self.namespace, self.entry = scale, namespace, entry
        self.zone_nodes, self.tick_s = zone_nodes, tick_s
        self.values: dict[tuple[int, int], int] = {}  # (fault index, tick) -> probe

    def series(self, query: str, times: list[float]) -> list[float]:
        """The query's value at each episode time (NaN where it has none)."""
        if not times:
            return []
        q = compress_promql(query, self.scale)
        start, end = self.scale.to_prom(times[0]), self.scale.to_prom(times[-1])
        step = self.scale.seconds(self.tick_s)
        matrix = self.query_range(q, start, end, step)
        out = [math.nan] * len(times)
        for s in matrix[:1]:
            for ts, v in s.get("values") or []:
                k = int(round((float(ts) - start) / step))
                if 0 <= k < len(times):
                    out[k] = float(v)
        return out

    def read(self, injections: list[Injection], ticks: list[int], times: list[float]) -> None:
        """Read the probes of ``injections`` at these ticks (episode ``times``) into ``values``."""
        for inj in injections:
            q = probe_query(inj, self.namespace, self.zone_nodes)
            for k, v in zip(ticks, self.series(q, times), strict=True):
                self.values[(inj.index, k)] = int(v == 1.0)

    def reader(self, tick: int, t: float) -> Callable[[Injection], int]:
        return lambda inj: self.values.get((inj.index, tick), 0)

    def entry_rows(self, times: list[float]) -> np.ndarray:
        """Entry-point requests/s, failed share, slow share at each time (0 where no data)."""
        cols = [self.series(q, times) for q in entry_queries(self.namespace, self.entry)]
        arr = np.nan_to_num(np.array(cols, dtype=float).T.reshape(len(times), len(cols)))
        return np.clip(arr, 0.0, None)


def prom_time(t: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(t, tz=_dt.UTC)
