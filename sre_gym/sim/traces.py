"""Request traces, generated only when queried, from what the simulator recorded at each tick.

A tick's sampled traces are a pure function of that tick's records (requests, latencies, errors and
their causes per service and edge) and of a counter-based random stream keyed by the tick, exactly like
logs: asking for traces never changes anything, the same question always gets the same answer, and a
filter only selects among traces that exist whatever the filter.

Model of one sampled request (about ``SAMPLE_RATE`` of entry-point requests are kept):
- the route is drawn from the entry point's route mix; the entry span's direct calls follow the
  route, every other service calls its callees as the call graph says (fractional counts are drawn);
- a call is one client attempt per try: a transport failure (connection refused, no endpoints, DNS,
  deadline exceeded or a dropped connection) happens with the edge's recorded failure rate when the
  edge's recorded failure kind is a transport one, and is retried as often as the recorded attempts
  per call imply; otherwise the callee's server span is generated, recursively;
- a server span fails on its own with the service's recorded own-error share, or because a hard
  dependency failed after its retries; its duration is its own time (log-normal around the recorded
  median, minus what its callees take on average) plus the time of its calls, which run in sequence.
So span durations and error shares agree with the per-tick records the metrics are written from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from sre_gym import fmath
from sre_gym.clock import rfc3339
from sre_gym.sim.logs import _edge_error

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

SAMPLE_RATE = 0.01  # head sampling: share of entry-point requests whose trace is kept
MAX_TRACES_PER_TICK = 40
MAX_SPANS = 80  # per trace; deeper fan-out is cut and the trace marked truncated
MAX_RETRIES = 10
HANG_MS = 20000.0  # a dropped connection without a client deadline


class _Tick:
    """Per-tick arrays the generator needs, derived once from the records."""

    def __init__(self, cl: SimCluster, k: int) -> None:
        topo = cl.topo
        self.k = k
        self.lat = cl.rec_lat[k]
        self.served = cl.rec_served[k]
        self.own_err = cl.rec_own_err[k]
        self.fail, self.kind, att = cl.edge_records(k)
        own = getattr(cl, "rec_own_lat", None)
        if own is not None:
            self.own = np.maximum(own[k], 0.05)
        else:
            below = (topo.calls * self.lat[None, :]).sum(axis=1)
            self.own = np.maximum(self.lat - below, np.maximum(0.2 * self.lat, 0.05))
        # retries per call implied by the recorded attempts (sum of f^i for i <= r)
        with np.errstate(divide="ignore", invalid="ignore"):
            per_call = att / (self.served[:, None] * topo.calls)
        per_call = np.where(np.isfinite(per_call), per_call, 1.0)
        f = np.clip(self.fail, 0.0, 1.0)
        powers = fmath.ipow(f[None, :, :], np.arange(MAX_RETRIES + 1)[:, None, None])
        sums = np.cumsum(powers, axis=0)
        self.retries = np.argmin(np.abs(sums - per_call[None]), axis=0)


class _Gen:
    def __init__(
        self,
        cl: SimCluster,
        tk: _Tick,
        g: np.random.Generator,
        ops: dict[tuple[int, int], tuple[str, ...]],
    ) -> None:
        self.cl, self.tk, self.g, self.ops = cl, tk, g, ops
        self.topo = cl.topo
        self.spans: list[dict[str, Any]] = []
        self.truncated = False

    def _id(self) -> str:
        return f"{int(self.g.integers(0, 2**63)):016x}"

    def _n_calls(self, x: float) -> int:
        whole = int(x)
        return whole + int(self.g.random() < x - whole)

    def _op(self, s: int, c: int) -> str:
        ops = self.ops.get((s, c), ())
        op = ops[int(self.g.integers(0, len(ops)))] if ops else "call"
        return f"{self.topo.names[c]}/{op}"

    def server(
        self, s: int, parent: str | None, start: float, name: str, calls: np.ndarray, hard
    ) -> tuple[float, str | None]:
        """A server span of service ``s`` (and its subtree). Returns (duration ms, error or None)."""
        tk, g, topo = self.tk, self.g, self.topo
        sid = self._id()
        span: dict[str, Any] = {
            "span_id": sid,
            "parent_span_id": parent,
            "service": topo.names[s],
            "name": name,
            "kind": "server",
            "start_offset_ms": round(start, 3),
        }
        self.spans.append(span)
        own = float(tk.own[s]) * float(fmath.exp(topo.sigma[s] * g.standard_normal()))
        cursor = start + 0.5 * own
        error: str | None = None
        if g.random() < tk.own_err[s]:
            msg_id = int(self.cl.rec_log[tk.k, s])
            error = self.cl.log_messages[msg_id] if msg_id else "internal error"
        for c in np.nonzero(calls)[0]:
            for _ in range(self._n_calls(float(calls[c]))):
                if len(self.spans) >= MAX_SPANS:
                    self.truncated = True
                    break
                dur, err = self.call(int(s), int(c), sid, cursor)
                cursor += dur
                if err is not None and hard[c] and error is None:
                    error = f"{topo.names[c]}: {err}"
        span["duration_ms"] = round(cursor - start + 0.5 * own, 3)
        span["status"] = "error" if error else "ok"
        if error:
            span["error"] = error
        return span["duration_ms"], error

    def call(self, s: int, c: int, parent: str, start: float) -> tuple[float, str | None]:
        """All attempts of one call from ``s`` to ``c``; returns (elapsed ms, final error or None)."""
        tk, g, topo = self.tk, self.g, self.topo
        kind = int(tk.kind[s, c])
        tries = 1 + int(tk.retries[s, c])
        t = start
        err: str | None = None
        for _ in range(tries):
            if len(self.spans) >= MAX_SPANS:
                self.truncated = True
                break
            if kind in (1, 2) and g.random() < tk.fail[s, c]:
                timeout = float(topo.timeout_ms[s, c])
                dur = 1.0 if kind == 1 else (timeout if np.isfinite(timeout) else HANG_MS)
                err = _edge_error(self.cl, s, c, kind)
                self.spans.append(
                    {
                        "span_id": self._id(),
                        "parent_span_id": parent,
                        "service": topo.names[s],
                        "name": self._op(s, c),
                        "kind": "client",
                        "start_offset_ms": round(t, 3),
                        "duration_ms": round(dur, 3),
                        "status": "error",
                        "error": err,
                    }
                )
                t += dur
                continue
            dur, err = self.server(c, parent, t, self._op(s, c), topo.calls[c], topo.hard[c])
            t += dur
            if err is None:
                break
        return t - start, err


def _ops(cl: SimCluster) -> dict[tuple[int, int], tuple[str, ...]]:
    topo = cl.topo
    out: dict[tuple[int, int], tuple[str, ...]] = {}
    for e in topo.app.edges:
        if e.caller in topo.index and e.callee in topo.index:
            out[(topo.index[e.caller], topo.index[e.callee])] = tuple(e.ops)
    return out


def tick_traces(cl: SimCluster, k: int) -> list[dict[str, Any]]:
    """Every sampled trace of tick ``k`` (requests in the 15 s ending at the tick), oldest first."""
    topo = cl.topo
    e = topo.entry
    if cl.rec_served[k, e] <= 0:
        return []  # nothing reached the instrumented entry point
    g = cl.streams.gen("traces", k)
    tick_s = float(cl.tsdb.tick_s)
    n = min(int(g.poisson(cl.rec_entry[k, 0] * tick_s * SAMPLE_RATE)), MAX_TRACES_PER_TICK)
    if n == 0:
        return []
    tk = _Tick(cl, k)
    ops = _ops(cl)
    t_end = cl.time_of_tick(k)
    out = []
    for _ in range(n):
        start = t_end - tick_s * g.random()
        r = int(g.choice(len(topo.route_names), p=topo.route_weight))
        trace_id = f"{int(g.integers(0, 2**63)):016x}{int(g.integers(0, 2**63)):016x}"
        gen = _Gen(cl, tk, g, ops)
        path = topo.route_paths[r]
        dur, err = gen.server(e, None, 0.0, path, topo.route_calls[r], topo.route_hard[r])
        ms = int(round((start % 1.0) * 1000))
        out.append(
            {
                "trace_id": trace_id,
                "start": f"{rfc3339(start)[:-1]}.{min(ms, 999):03d}Z",
                "_t": start,
                "route": path,
                "duration_ms": dur,
                "status": "error" if err else "ok",
                "services": sorted({sp["service"] for sp in gen.spans}),
                "spans": gen.spans,
                **({"truncated": True} if gen.truncated else {}),
            }
        )
    out.sort(key=lambda x: x["_t"])
    for tr in out:
        del tr["_t"]
    return out


def summary(tr: dict[str, Any]) -> dict[str, Any]:
    """A trace without its span list: the failed spans and the three slowest server spans."""
    errors = [
        {"service": sp["service"], "name": sp["name"], "error": sp["error"]}
        for sp in tr["spans"]
        if sp["status"] == "error"
    ]
    servers = sorted(
        (sp for sp in tr["spans"][1:] if sp["kind"] == "server"),
        key=lambda sp: (-sp["duration_ms"], sp["span_id"]),
    )
    out = {k: v for k, v in tr.items() if k != "spans"}
    out["n_spans"] = len(tr["spans"])
    out["errors"] = errors[:3] + ([{"more": len(errors) - 3}] if len(errors) > 3 else [])
    out["slowest"] = [
        {"service": sp["service"], "name": sp["name"], "duration_ms": sp["duration_ms"]}
        for sp in servers[:3]
    ]
    return out


def query(
    cl: SimCluster,
    service: str | None,
    since: float,
    until: float,
    *,
    errors_only: bool = False,
    min_duration_ms: float | None = None,
    limit: int = 20,
    trace_id: str | None = None,
    spans: bool = False,
) -> list[dict[str, Any]]:
    """Sampled traces between ``since`` and ``until`` that pass the filters; the newest ``limit``,
    newest last. ``service`` keeps traces with a span of that service; ``errors_only`` those with a
    failed span; ``min_duration_ms`` those whose root span took at least that long; ``trace_id`` the
    one trace with that id. Traces come as summaries unless ``spans`` (or a ``trace_id``) asks for
    every span."""
    topo = cl.topo
    if service is not None and service not in topo.index:
        raise KeyError(f"service {service!r} has no traces (known: {', '.join(topo.names)})")
    tick_s = cl.tsdb.tick_s
    k0 = max(0, int(np.ceil((since - cl.t0) / tick_s)))
    k1 = min(cl.tick - 1, int(np.floor((until - cl.t0) / tick_s)))
    picked: list[dict[str, Any]] = []
    for k in range(k1, k0 - 1, -1):  # newest first, so a small limit reads few ticks
        for tr in reversed(tick_traces(cl, k)):
            if trace_id is not None and tr["trace_id"] != trace_id:
                continue
            if service is not None and service not in tr["services"]:
                continue
            if (
                errors_only
                and tr["status"] != "error"
                and not any(sp["status"] == "error" for sp in tr["spans"])
            ):
                continue
            if min_duration_ms is not None and tr["duration_ms"] < min_duration_ms:
                continue
            picked.append(tr if spans or trace_id is not None else summary(tr))
            if len(picked) >= limit:
                return picked[::-1]
    return picked[::-1]
