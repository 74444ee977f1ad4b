"""Per-tick traffic, capacity and propagation (sre_gym/sim/dynamics.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sre_gym.sim import dynamics
from sre_gym.sim.dynamics import DROP_HANG_MS, lognorm_sf, ndtr

RPS = 20.0


def test_ndtr_matches_math_erf():
    x = np.linspace(-9, 9, 20001)
    exact = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    assert np.max(np.abs(ndtr(x) - exact)) < 1.5e-7
    assert ndtr(np.array([0.0]))[0] == pytest.approx(0.5, abs=1e-9)
    assert ndtr(np.array([50.0]))[0] == 1.0 and ndtr(np.array([-50.0]))[0] == 0.0


@settings(max_examples=300, derandomize=True)
@given(st.floats(-40, 40, allow_nan=False))
def test_ndtr_property(x):
    exact = 0.5 * (1 + math.erf(x / math.sqrt(2)))
    assert abs(float(ndtr(np.array([x]))[0]) - exact) < 1.5e-7


def test_lognorm_sf():
    med = np.array([100.0])
    assert lognorm_sf(np.array([100.0]), med, 0.45)[0] == pytest.approx(0.5, abs=1e-7)
    assert lognorm_sf(np.array([np.inf]), med, 0.45)[0] == 0.0
    for thr, sig in [(250.0, 0.45), (40.0, 0.3), (1000.0, 1.0)]:
        z = math.log(thr / 100.0) / sig
        assert lognorm_sf(np.array([thr]), med, sig)[0] == pytest.approx(
            0.5 * math.erfc(z / math.sqrt(2)), abs=2e-7
        )
    # a zero median never fails a finite threshold
    assert lognorm_sf(np.array([1.0]), np.array([0.0]), 0.45)[0] == pytest.approx(0.0, abs=1e-7)


class World:
    """The inputs a warmed cluster really passed to ``dynamics.step`` on one healthy tick.

    Tests call ``dynamics.step`` again on copies of those inputs with some fields replaced, so they
    exercise the model exactly as the cluster drives it. ``world.<input>`` is a copy of an input.
    """

    def __init__(self, cl) -> None:
        self.cl, self.topo, self.pods = cl, cl.topo, cl.pods
        seen: dict = {}
        real = dynamics.step

        def spy(*args, **kwargs):
            seen["args"], seen["kwargs"] = args, kwargs
            return real(*args, **kwargs)

        dynamics.step = spy
        try:
            cl.advance_to(cl.now + 15)
        finally:
            dynamics.step = real
        args, kwargs = seen["args"], seen["kwargs"]
        # newer API: step(topo, Inputs); older: step(topo, **fields)
        self.inputs = args[1] if len(args) > 1 else None
        self.kwargs = {} if self.inputs is not None else dict(kwargs)

    def field(self, name: str):
        v = getattr(self.inputs, name) if self.inputs is not None else self.kwargs[name]
        return v.copy() if isinstance(v, np.ndarray) else v

    def __getattr__(self, name: str):
        if name.startswith(("beh_", "pod_")) or name in ("blocked", "prev_attempts", "rows"):
            return self.field(name)
        raise AttributeError(name)

    def run(self, **over) -> dynamics.TickOut:
        over = {"entry_rps": RPS, **over}
        if self.inputs is not None:
            return dynamics.step(self.topo, dataclasses.replace(self.inputs, **over))
        return dynamics.step(self.topo, **{**self.kwargs, **over})


@pytest.fixture(scope="module")
def world(warm):
    w = World(warm())
    # the namespace's own policies drop no call of the call graph
    called = w.topo.calls > 0
    assert w.field("pod_hog").sum() == 0 and not (w.field("blocked") & called).any()
    return w


def run(world: World, **over) -> dynamics.TickOut:
    return world.run(**over)


def no_hog(world: World) -> np.ndarray:
    return np.zeros(world.field("n_pod_rows"))


def row_of(cl, name: str) -> int:
    i = cl.topo.index[name]
    return next(int(r) for r in cl.pods.live() if cl.pods.dep[r] == i)


def beh_of(cl, name: str) -> int:
    return int(cl.pods.beh[row_of(cl, name)])


def test_healthy_tick(world):
    out = run(world)
    topo = world.topo
    assert out.entry_failed == pytest.approx(0.0, abs=1e-12)
    assert out.entry_slow < 1e-6
    assert np.all(out.err < 1e-12) and np.all(out.own_err < 1e-12)
    assert out.served[topo.entry] == pytest.approx(RPS)
    # offered load is the entry rate times the transitive call matrix
    lam = np.linalg.solve((np.eye(topo.n) - topo.calls).T, np.eye(topo.n)[topo.entry] * RPS)
    np.testing.assert_allclose(out.lam, lam)
    np.testing.assert_allclose(out.edge_att, lam[:, None] * topo.calls)
    # a caller's latency exceeds its own processing time; leaves have none of it from callees
    assert np.all(out.lat >= out.own_lat - 1e-9)
    assert out.lat[topo.index["redis-cart"]] == pytest.approx(out.own_lat[topo.index["redis-cart"]])
    assert out.lat[topo.index["checkoutservice"]] > out.own_lat[topo.index["checkoutservice"]] + 5
    np.testing.assert_allclose(out.route_rps, RPS * topo.route_weight)
    assert out.route_lat[topo.route_names.index("set_currency")] == pytest.approx(
        out.own_lat[topo.entry]
    )
    edges = topo.calls > 0
    assert np.all(out.edge_fail[edges] < 1e-6) and np.all(out.edge_tfail[edges] < 1e-6)
    assert np.all(out.attempts[edges] == 1.0)


def test_healthy_tick_reports_no_edge_failures(world):
    """TickOut.edge_kind is documented as 0 ok / 1 refused / 2 timeout or dropped / 3 callee error,
    and edge_fail as the per-attempt failure probability. In a healthy cluster every pair is ok."""
    out = run(world)
    edges = world.topo.calls > 0
    names = world.topo.names
    wrong = [
        (names[a], names[b], int(out.edge_kind[a, b]))
        for a, b in zip(*np.nonzero(out.edge_kind), strict=True)
    ]
    assert wrong == [], f"healthy pairs classified as failing: {wrong[:6]}"
    assert np.all(out.edge_fail[~edges] == 0.0), "pairs with no calls report a failure probability"


def test_utilisation_adds_latency_then_saturation_adds_errors(world):
    cur = world.topo.index["currencyservice"]
    r = row_of(world, "currencyservice")
    lat, err, use = [], [], []
    for hog in np.linspace(0.0, 0.4, 17):
        h = no_hog(world)
        h[r] = hog
        o = run(world, pod_hog=h)
        lat.append(o.own_lat[cur])
        err.append(o.own_err[cur])
        use.append(o.pod_usage[r])
    lat, err = np.array(lat), np.array(err)
    assert np.all(np.diff(lat) > 0)
    assert np.all(np.diff(err) >= -1e-15)
    first_err = int(np.argmax(err > 1e-9))
    assert first_err > 0 and lat[first_err - 1] > 2 * lat[0]  # latency grew before any error
    assert err[-1] > 0.3
    assert max(use) == pytest.approx(
        world.beh_cpu_limit[beh_of(world, "currencyservice")]
    )  # usage capped at the limit


def test_denied_edge_hangs_until_the_caller_timeout(world):
    t = world.topo
    fe, cur = t.entry, t.index["currencyservice"]
    b = np.zeros((t.n, t.n), dtype=bool)
    b[fe, cur] = True
    o = run(world, blocked=b)
    assert o.edge_kind[fe, cur] == 2 and o.edge_tfail[fe, cur] == 1.0
    calls_cur = t.route_calls[:, cur]
    np.testing.assert_allclose(o.route_err, (calls_cur > 0).astype(float), atol=1e-9)
    home = t.route_names.index("home")
    assert o.route_lat[home] >= calls_cur[home] * t.timeout_ms[fe, cur]
    assert o.entry_failed == pytest.approx(t.route_weight[calls_cur > 0].sum())


def test_denied_edge_without_deadline_hangs_the_drop_time(world):
    t = world.topo
    fe, cur = t.entry, t.index["currencyservice"]
    to = world.beh_timeout.copy()
    to[beh_of(world, "frontend"), cur] = np.inf
    b = np.zeros((t.n, t.n), dtype=bool)
    b[fe, cur] = True
    o = run(world, blocked=b, beh_timeout=to)
    home = t.route_names.index("home")
    assert o.route_lat[home] >= t.route_calls[home, cur] * DROP_HANG_MS


def test_wrong_address_fails_fast(world):
    t = world.topo
    fe, cur = t.entry, t.index["currencyservice"]
    ab = world.beh_addr_bad.copy()
    ab[beh_of(world, "frontend"), cur] = True
    o = run(world, beh_addr_bad=ab)
    base = run(world)
    assert o.edge_kind[fe, cur] == 1 and o.edge_tfail[fe, cur] == 1.0
    calls_cur = t.route_calls[:, cur]
    np.testing.assert_allclose(o.route_err, (calls_cur > 0).astype(float), atol=1e-9)
    assert np.all(o.route_lat <= base.route_lat + 1e-9)  # no waiting on a refused connection
    assert o.entry_slow < 1e-6


def test_service_without_ready_pods_is_refused(world):
    t = world.topo
    ready = world.pod_ready
    ready[row_of(world, "paymentservice")] = False
    o = run(world, pod_ready=ready)
    pay, co = t.index["paymentservice"], t.index["checkoutservice"]
    assert o.served[pay] == 0 and o.err[pay] == 0 and o.lat[pay] == 0
    assert o.edge_kind[co, pay] == 1
    assert o.err[co] == pytest.approx(1.0)
    assert o.route_err[t.route_names.index("checkout")] == pytest.approx(1.0)
    assert o.route_err[t.route_names.index("home")] == pytest.approx(0.0, abs=1e-12)


def test_entry_without_ready_pods_fails_everything(world):
    ready = world.pod_ready
    ready[row_of(world, "frontend")] = False
    o = run(world, pod_ready=ready)
    assert o.entry_failed == 1.0 and o.entry_slow == 0.0
    assert o.served[world.topo.entry] == 0


def test_soft_dependencies_do_not_fail_the_entry_route(world):
    t = world.topo
    fe = t.entry
    b = np.zeros((t.n, t.n), dtype=bool)
    b[fe, t.index["adservice"]] = True
    b[fe, t.index["recommendationservice"]] = True
    o = run(world, blocked=b)
    assert o.entry_failed == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(o.route_err, 0.0, atol=1e-12)
    assert o.edge_tfail[fe, t.index["adservice"]] == 1.0
    base = run(world)
    assert (
        o.route_lat[t.route_names.index("product")] > base.route_lat[t.route_names.index("product")]
    )
    # a soft callee that is down counts as failed edges, not failed pages
    ready = world.pod_ready
    ready[row_of(world, "emailservice")] = False
    o2 = run(world, pod_ready=ready)
    co = t.index["checkoutservice"]
    assert o2.edge_kind[co, t.index["emailservice"]] == 1
    assert o2.err[co] == pytest.approx(0.0, abs=1e-12)


def test_callee_errors_compound_into_hard_callers(world):
    t = world.topo
    pe = world.beh_err.copy()
    pe[beh_of(world, "paymentservice")] = 0.4
    o = run(world, beh_err=pe)
    pay, co = t.index["paymentservice"], t.index["checkoutservice"]
    assert o.own_err[pay] == pytest.approx(0.4)
    assert o.err[co] == pytest.approx(0.4)
    assert o.own_err[co] == pytest.approx(0.0, abs=1e-12)  # inherited, not its own
    assert o.edge_kind[co, pay] == 3 and o.edge_tfail[co, pay] < 1e-6
    assert o.route_err[t.route_names.index("checkout")] == pytest.approx(0.4)


def test_retries_amplify_load_from_the_previous_tick(world):
    t = world.topo
    fe, cart, redis = t.entry, t.index["cartservice"], t.index["redis-cart"]
    pe = world.beh_err.copy()
    pe[beh_of(world, "cartservice")] = 0.5
    pr = world.beh_retries.copy()
    pr[beh_of(world, "frontend"), cart] = 3
    first = run(world, beh_err=pe, beh_retries=pr)
    base = run(world)
    assert first.lam[cart] == pytest.approx(base.lam[cart])  # amplification lags one tick
    expected = (1 - 0.5**4) / (1 - 0.5)
    assert first.attempts[fe, cart] == pytest.approx(expected)
    second = run(world, beh_err=pe, beh_retries=pr, prev_attempts=first.attempts)
    fe_share = t.calls[fe, cart] * base.lam[fe] / base.lam[cart]
    assert second.lam[cart] == pytest.approx(
        base.lam[cart] * (fe_share * expected + (1 - fe_share))
    )
    assert second.lam[redis] > base.lam[redis] * 1.5
    # retries lower the final failure: 0.5 ** 4 of the frontend's cart calls still fail
    home = t.route_names.index("home")
    assert second.route_err[home] == pytest.approx(
        1 - (1 - 0.5**4) ** t.route_calls[home, cart], rel=1e-6
    )


def test_network_delay_adds_to_callers(world):
    t = world.topo
    d = no_hog(world)
    d[row_of(world, "cartservice")] = 900.0
    o = run(world, pod_delay=d)
    base = run(world)
    cart = t.index["cartservice"]
    assert o.own_lat[cart] == pytest.approx(base.own_lat[cart] + 900.0)
    assert o.lat[t.entry] > base.lat[t.entry] + 500


def test_ready_pods_share_load(world):
    """Two ready pods of one service each see half the load (utilisation halves)."""
    t = world.topo
    cur = t.index["currencyservice"]
    r = row_of(world, "currencyservice")
    h = no_hog(world)
    h[r] = 0.15
    one = run(world, pod_hog=h)
    assert one.own_err[cur] > 0
    # duplicate the pod row: same profile, ready, no hog on the twin
    n = world.field("n_pod_rows")
    twin = {"rows": np.append(world.rows, n), "n_pod_rows": n + 1, "pod_hog": np.append(h[:n], 0.0)}
    for name in (
        "pod_dep",
        "pod_ready",
        "pod_beh",
        "pod_delay",
        "pod_zone",
        "pod_listen_age",
        "pod_data_age",
    ):
        try:
            a = world.field(name)
        except (AttributeError, KeyError):
            continue  # older input sets have no zones
        twin[name] = np.append(a[:n], a[r])
    two = run(world, **twin)
    assert two.own_err[cur] < one.own_err[cur]
    per_pod = one.lam[cur] / 2 * t.cpu_ms[cur] / 1000.0
    assert two.pod_usage[n] == pytest.approx(per_pod)
    assert two.pod_usage[r] == pytest.approx(
        min(per_pod + 0.15, world.beh_cpu_limit[world.pod_beh[r]])
    )
    assert two.served[cur] == pytest.approx(one.served[cur])


def test_memoised_levels_give_the_same_tick_as_a_cold_start(world):
    """The per-level pod structure is memoised by the ready pods' services: a tick computed
    from the memo equals one computed from scratch, field for field and bit for bit."""
    warm = run(world)
    dynamics._LEVELS.clear()
    cold = run(world)
    assert len(dynamics._LEVELS) == 1  # the cold run filled the memo again
    for f in dataclasses.fields(warm):
        a, b = getattr(warm, f.name), getattr(cold, f.name)
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes(), f.name
        else:
            assert a == b, f.name


def test_levels_follow_the_ready_pods(world):
    """A different set of ready pods gets its own levels: every ready pod sits in exactly one
    level, each level's weights average its services' pods, and the plan's edges are exactly the
    calls the ready pods make, level by level."""
    topo = world.topo
    svc = world.field("pod_dep")[world.field("rows")]
    svc = svc[svc < topo.n]
    for s in (svc, np.concatenate([svc, svc[:3]])):  # three pods more: other positions
        plan = dynamics._levels(topo, s)
        seen = np.concatenate([lv.idx for lv in plan.levels])
        assert sorted(seen.tolist()) == list(range(len(s)))
        assert plan.order.tolist() == seen.tolist()
        for lv in plan.levels:
            ps = s[lv.idx]
            assert np.unique(ps).tolist() == lv.uniq.tolist()
            np.testing.assert_allclose(lv.w.sum(axis=1), 1.0)
            assert lv.w.shape == (len(lv.uniq), len(lv.idx))
            used = topo.calls[ps] > 0
            assert used[lv.pi, lv.pj].all() and len(lv.pi) == used.sum()
            assert (plan.pod[lv.edges] == lv.idx[lv.pi]).all()
            assert (plan.callee[lv.edges] == lv.pj).all()
            assert (lv.calls == topo.calls[ps[lv.pi], lv.pj]).all()
        assert (plan.svc == s[plan.pod]).all()
        assert len(plan.pod) == (topo.calls[s] > 0).sum()


def test_levels_memo_is_bounded_and_keeps_the_latest_sets(world):
    """The level memo holds at most ``_LEVELS_SIZE`` sets of ready pods, evicting the least
    recently used: a process that plays many episodes does not accumulate one entry per set."""
    topo = world.topo
    svc = world.field("pod_dep")[world.field("rows")]
    svc = svc[svc < topo.n]
    # one pod more of the first service each time: every set is new
    sets = [
        np.concatenate([svc, np.repeat(svc[:1], k + 1)]) for k in range(dynamics._LEVELS_SIZE + 5)
    ]
    for s in sets:
        dynamics._levels(topo, s)
    assert len(dynamics._LEVELS) == dynamics._LEVELS_SIZE
    latest = [(topo.app.name, s.tobytes()) for s in sets[-dynamics._LEVELS_SIZE :]]
    assert list(dynamics._LEVELS) == latest
    assert (topo.app.name, sets[0].tobytes()) not in dynamics._LEVELS


def test_expected_attempts_is_the_geometric_sum_and_stays_conditioned_near_one():
    from fractions import Fraction

    from sre_gym.sim.dynamics import expected_attempts

    tries = np.array([1, 2, 3, 4, 4, 3, 1])
    f = np.array([0.3, 0.5, 0.9, 1 - 1e-4, 1 - 1e-12, 1.0, 1.0])
    att = expected_attempts(f, f**tries, tries)
    exact = [float(sum(Fraction(x) ** i for i in range(n))) for x, n in zip(f, tries, strict=True)]
    assert np.allclose(att, exact, rtol=1e-15, atol=0)
    # where a callee fails all but ~1e-12 of its calls the attempts are about ``tries`` (here
    # n - eps * n (n - 1) / 2 to second order, eps = 1 - f exactly); the closed form with its
    # guarded denominator gave far fewer there, and a last-bit change of f moved it by a quarter
    rng = np.random.default_rng(0)
    eps = rng.uniform(1e-15, 1e-10, 10_000)
    f = 1.0 - eps
    eps = 1.0 - f
    n = np.full(f.shape, 4)
    att = expected_attempts(f, f**n, n)
    assert np.abs(att - (n - eps * 6.0)).max() < 1e-12
    g = np.nextafter(f, 0.0)
    assert (np.abs(expected_attempts(g, g**n, n) - att) / att).max() < 1e-12
    closed = (1.0 - f**n) / np.maximum(1.0 - f, 1e-12)
    assert (np.abs(closed - att) / att).max() > 0.5
