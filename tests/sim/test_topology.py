"""The call graph compiled into arrays (sre_gym/sim/topology.py)."""

from __future__ import annotations

import numpy as np
import pytest

from sre_gym.catalogs import load_app
from sre_gym.sim.topology import compile_topology, default_limits, service_port


@pytest.fixture(scope="module")
def topo():
    return compile_topology("online-boutique")


def test_serving_services_in_catalog_order(topo):
    app = load_app("online-boutique")
    assert topo.names == tuple(s.name for s in app.serving)
    assert "loadgenerator" not in topo.index
    assert topo.n == 11
    assert all(topo.index[nm] == i for i, nm in enumerate(topo.names))
    assert topo.names[topo.entry] == "frontend"


def test_compiled_once(topo):
    assert compile_topology("online-boutique") is topo


def test_edge_matrices_match_the_catalog(topo):
    app = load_app("online-boutique")
    I = topo.index  # noqa: E741
    edges = {(e.caller, e.callee): e for e in app.edges}
    for a in topo.names:
        for b in topo.names:
            e = edges.get((a, b))
            i, j = I[a], I[b]
            if e is None:
                assert topo.timeout_ms[i, j] == np.inf
                assert not topo.hard[i, j]
                if i != topo.entry:
                    assert topo.calls[i, j] == 0
                continue
            assert topo.hard[i, j] == e.hard
            assert topo.timeout_ms[i, j] == e.timeout_ms
            assert topo.retries[i, j] == e.retries
            assert topo.addr_env[(i, j)] == e.addr_env
            if i != topo.entry:
                assert topo.calls[i, j] == e.calls
    assert topo.timeout_ms[I["frontend"], I["adservice"]] == 100
    assert topo.calls[I["cartservice"], I["redis-cart"]] == 1.5


def test_entry_calls_are_the_route_mix(topo):
    app = load_app("online-boutique")
    w = np.array([r.weight for r in app.routes])
    assert topo.route_weight.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(topo.route_weight, w / w.sum())
    I = topo.index  # noqa: E741
    # currency: home 10 x 3, product 2 x 13, cart_view 4 x 6, checkout 1 x 1 per 28 requests
    assert topo.calls[topo.entry, I["currencyservice"]] == pytest.approx((30 + 26 + 24 + 1) / 28)
    assert topo.calls[topo.entry, I["checkoutservice"]] == pytest.approx(1 / 28)
    np.testing.assert_allclose(topo.calls[topo.entry], topo.route_weight @ topo.route_calls)
    for k, r in enumerate(app.routes):
        for s in topo.names:
            c = r.calls.get(s, 0)
            assert topo.route_calls[k, I[s]] == c
            assert topo.route_hard[k, I[s]] == (c > 0 and s not in r.soft)
    assert topo.route_names == tuple(r.name for r in app.routes)
    assert topo.route_paths == tuple(r.path for r in app.routes)


def test_levels_put_callees_first_and_the_entry_alone_last(topo):
    seen: set[int] = set()
    for lv in topo.levels:
        for s in lv:
            callees = set(np.nonzero(topo.calls[s])[0].tolist())
            assert callees <= seen, topo.names[s]
        seen |= set(lv.tolist())
    assert seen == set(range(topo.n))
    assert topo.levels[-1].tolist() == [topo.entry]
    for k in range(topo.n):
        assert k in topo.levels[topo.level_of[k]]
    I = topo.index  # noqa: E741
    assert (
        topo.level_of[I["redis-cart"]]
        < topo.level_of[I["cartservice"]]
        < topo.level_of[I["checkoutservice"]]
    )
    assert topo.level_of[I["productcatalogservice"]] < topo.level_of[I["recommendationservice"]]


def test_per_service_parameters(topo):
    app = load_app("online-boutique")
    for s in app.serving:
        i = topo.index[s.name]
        assert topo.base_ms[i] == s.perf.base_ms
        assert topo.cpu_ms[i] == s.perf.cpu_ms_per_req
        assert topo.mem_base[i] == s.perf.mem_base_mi
        assert topo.sigma[i] == s.perf.sigma
        run = app.startup_of(s.name)
        assert (topo.warmup_s[i], topo.warmup_factor[i]) == (run.warmup_s, run.warmup_factor)
    # JIT runtimes warm up longest: the JVM's adservice, then .NET, then Node.js
    w = topo.warmup_s
    assert (
        w[topo.index["adservice"]] > w[topo.index["cartservice"]] > w[topo.index["currencyservice"]]
    )


def test_callee_addresses_and_ports(topo):
    app = load_app("online-boutique")
    assert topo.callee_addr[topo.index["emailservice"]] == "emailservice:5000"
    assert topo.callee_addr[topo.index["cartservice"]] == "cartservice:7070"
    assert service_port(app, "emailservice") == 5000
    assert service_port(app, "paymentservice") == 50051
    # every caller's shipped env points at the callee address the topology expects
    for (a, b), var in topo.addr_env.items():
        assert app.service(topo.names[a]).env[var] == topo.callee_addr[b]


def test_default_limits():
    app = load_app("online-boutique")
    assert default_limits(app, "frontend") == (0.2, 128.0)
    assert default_limits(app, "recommendationservice") == (0.2, 450.0)
    assert default_limits(app, "redis-cart") == (0.125, 256.0)
