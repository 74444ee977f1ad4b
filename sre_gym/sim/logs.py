"""Log lines, generated only when queried, from what the simulator recorded at each tick.

A query reads the per-tick records (requests, errors and their causes per service and edge) and draws
sampling noise from a counter-based stream keyed by (tick, service), so asking for logs never changes
anything and the same question always gets the same answer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np

from sre_gym.clock import rfc3339

if TYPE_CHECKING:
    from sre_gym.sim.cluster import SimCluster

MAX_ERRORS_PER_TICK = 12
INFO_PER_TICK = 2

_OPS = {
    "cartservice": "could not retrieve cart",
    "productcatalogservice": "could not retrieve product",
    "currencyservice": "could not convert currency",
    "recommendationservice": "failed to get product recommendations",
    "shippingservice": "failed to get shipping quote",
    "checkoutservice": "failed to complete the order",
    "adservice": "failed to retrieve ads",
    "paymentservice": "failed to charge card",
    "emailservice": "failed to send order confirmation",
    "redis-cart": "Can't access cart storage",
}
_CLIENT_ERRORS = (
    "request rejected: invalid argument: quantity must be positive",
    "request rejected: not found: no such id",
    "request rejected: unauthenticated: session expired",
    "request rejected: invalid argument: malformed currency code",
)
_INFO = {
    "frontend": "request complete",
    "cartservice": "GetCartAsync called with userId={uid}",
    "productcatalogservice": "successfully parsed product catalog json",
    "currencyservice": "conversion request successful",
    "paymentservice": "Transaction processed: visa ending 0454",
    "shippingservice": "[GetQuote] completed request",
    "emailservice": "A request to send order confirmation email has been received.",
    "checkoutservice": "payment went through (transaction_id: {uid})",
    "recommendationservice": "[Recv ListRecommendations] product_ids=['{uid}']",
    "adservice": "received ad request (context_words=[kitchen])",
    "redis-cart": "DB saved on disk",
}


def _fmt(lang: str, service: str, t: float, level: str, msg: str) -> str:
    ts = rfc3339(t)
    if lang in ("Go",):
        return json.dumps(
            {"message": msg, "severity": level, "timestamp": ts}, separators=(",", ":")
        )
    if lang == "Node.js":
        num = {"info": 30, "warning": 40, "error": 50}[level]
        return json.dumps(
            {"level": num, "time": int(t * 1000), "name": f"{service}-server", "msg": msg},
            separators=(",", ":"),
        )
    if lang == "Python":
        return f"{ts.replace('T', ' ').rstrip('Z')},000 - {service} - {level.upper()} - {msg}"
    if lang == "Java":
        return f"{ts} {level.upper():5s} [grpc-default-executor-1] hipstershop.AdService - {msg}"
    if lang == "C#":
        tag = {"info": "info", "warning": "warn", "error": "fail"}[level]
        return f"{tag}: cartservice.cartstore.RedisCartStore[0] {ts} {msg}"
    if lang == "Redis":
        mark = {"info": "*", "warning": "#", "error": "#"}[level]
        return f"1:M {ts} {mark} {msg}"
    return f"{ts} {level.upper()} {msg}"


def _edge_error(cl: SimCluster, s: int, c: int, kind: int) -> str:
    topo = cl.topo
    callee = topo.names[c]
    what = _OPS.get(callee, f"call to {callee} failed")
    if kind == 1:
        var = topo.addr_env.get((s, c))
        dep = cl.world.deployments[s]
        addr = (
            dep.current.template.env_dict().get(var, topo.callee_addr[c])
            if var
            else topo.callee_addr[c]
        )
        host = addr.split(":")[0]
        if host != callee:
            return f"{what}: rpc error: code = Unavailable desc = name resolver error: produced zero addresses (dial tcp: lookup {host} on 10.96.0.10:53: no such host)"
        return f'{what}: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp {addr}: connect: connection refused"'
    if kind == 2:
        return f"{what}: rpc error: code = DeadlineExceeded desc = context deadline exceeded"
    return f"{what}: rpc error: code = Internal desc = upstream {callee} returned an error"


def query(
    cl: SimCluster,
    service: str,
    since: float,
    until: float,
    *,
    contains: str | None = None,
    level: str = "any",
    limit: int = 50,
) -> list[str]:
    """Log lines of ``service`` between ``since`` and ``until`` (inclusive), newest last."""
    topo = cl.topo
    if service not in topo.index:
        raise KeyError(f"service {service!r} has no logs (known: {', '.join(topo.names)})")
    s = topo.index[service]
    lang = topo.app.service(service).language
    k0 = max(0, int(np.ceil((since - cl.t0) / cl.tsdb.tick_s)))
    k1 = min(cl.tick - 1, int(np.floor((until - cl.t0) / cl.tsdb.tick_s)))
    lines: list[str] = []
    for k in range(k0, k1 + 1):
        g = cl.streams.gen("logs", k * 4096 + s)
        t = cl.time_of_tick(k)
        served = cl.rec_served[k, s] * cl.tsdb.tick_s
        batch: list[tuple[float, str, str]] = []
        if served <= 0 and cl.rec_entry[k, 0] > 0 and s != topo.entry:
            batch.append(
                (t - 1, "warning", "no ready endpoints; requests to this service are refused")
            )
        # the share from a flaky third party is logged as such; the rest is the service's own
        outside = cl.rec_outside[k, s]
        if outside > 0 and served > 0:
            n = int(min(MAX_ERRORS_PER_TICK, max(1, round(outside * served))))
            what = cl.log_messages[int(cl.rec_outside_log[k, s])]
            for _ in range(n):
                batch.append((t - 15 * g.random(), "error", what))
        share = 1.0 - (1.0 - cl.rec_own_err[k, s]) / max(1.0 - outside, 1e-9)
        own = max(share, 0.0) * served
        # client errors (validation failures, unknown ids), shown as errors on every service
        if served > 0 and g.random() < cl.background_error * served:
            batch.append((t - 15 * g.random(), "error", _CLIENT_ERRORS[int(g.integers(0, 4))]))
        msg_id = cl.rec_log[k, s]
        if msg_id and (
            own >= 0.5
            or cl.log_messages[msg_id].startswith("panic")
            or "cache" in cl.log_messages[msg_id]
        ):
            n = int(min(MAX_ERRORS_PER_TICK, max(1, round(own))))
            for _ in range(n):
                batch.append((t - 15 * g.random(), "error", cl.log_messages[msg_id]))
        elif own >= 0.5:
            n = int(min(MAX_ERRORS_PER_TICK, round(own)))
            for _ in range(n):
                batch.append(
                    (
                        t - 15 * g.random(),
                        "error",
                        "request failed: server overloaded, request queue timed out",
                    )
                )
        edge_fail, edge_kind, edge_att = cl.edge_records(k)
        fails = edge_fail[s] * edge_att[s] * cl.tsdb.tick_s
        for c in np.nonzero(fails >= 0.5)[0]:
            kind = int(edge_kind[s, c])
            hard = bool(topo.hard[s, c]) if s != topo.entry else True
            lvl = "error" if hard and c != topo.index.get("adservice", -1) else "warning"
            n = int(min(MAX_ERRORS_PER_TICK, round(fails[c])))
            for _ in range(max(n, 1)):
                batch.append((t - 15 * g.random(), lvl, _edge_error(cl, s, int(c), kind)))
        if served > 0:
            for _ in range(INFO_PER_TICK):
                uid = f"{int(g.integers(0, 16**8)):08x}"
                batch.append(
                    (t - 15 * g.random(), "info", _INFO.get(service, "ok").format(uid=uid))
                )
        batch.sort(key=lambda x: x[0])
        for tt, lvl, msg in batch:
            if level != "any" and lvl != level:
                continue
            line = _fmt(lang, service, tt, lvl, msg)
            if contains and contains not in line:
                continue
            lines.append(line)
    return lines[-limit:]
