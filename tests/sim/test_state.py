"""Kubernetes-shaped cluster state and profile compilation (sre_gym/sim/state.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from sre_gym.catalogs.schema import Defect
from sre_gym.clock import EPOCH
from sre_gym.sim.state import (
    Deployment,
    Image,
    Revision,
    World,
    compile_behaviour,
    go_duration_ms,
    initial_template,
)
from sre_gym.sim.topology import compile_topology, default_limits

TOPO = compile_topology("online-boutique")


@pytest.mark.parametrize(
    ("v", "ms"),
    [
        ("100ms", 100.0),
        ("1.5s", 1500.0),
        ("2m", 120000.0),
        ("1h", 3.6e6),
        ("250us", 0.25),
        ("250µs", 0.25),
        ("5ns", 5e-6),
        (" 3s ", 3000.0),
    ],
)
def test_go_duration(v, ms):
    assert go_duration_ms(v) == pytest.approx(ms)


@pytest.mark.parametrize("v", ["10", "fast", "1d", "-1s", "1.5.2s", ""])
def test_go_duration_rejects(v):
    assert go_duration_ms(v) is None


def test_initial_template_is_the_shipped_spec():
    tpl = initial_template(TOPO, "frontend")
    s = TOPO.app.service("frontend")
    assert tpl.image == s.image
    assert tpl.env_dict() == s.env
    assert [k for k, _ in tpl.env] == sorted(s.env)
    assert (tpl.cpu_limit, tpl.mem_limit, tpl.readiness_port, tpl.restarted_at) == (
        "200m",
        "128Mi",
        8080,
        None,
    )
    assert initial_template(TOPO, "loadgenerator").readiness_port is None


def test_template_with_env_is_sorted_and_value_semantics():
    tpl = initial_template(TOPO, "productcatalogservice")
    t2 = tpl.with_env("EXTRA_LATENCY", "1s")
    assert t2.env_dict()["EXTRA_LATENCY"] == "1s"
    assert [k for k, _ in t2.env] == sorted(k for k, _ in t2.env)
    assert "EXTRA_LATENCY" not in tpl.env_dict()  # immutable
    assert t2.with_env("EXTRA_LATENCY", "1s") == t2
    assert hash(t2.with_env("PORT", "3550")) == hash(
        t2
    )  # setting the same value is the same template


def _dep(name: str) -> Deployment:
    i = TOPO.index.get(name, TOPO.n)
    tpl = initial_template(TOPO, name)
    return Deployment(name, i, "server", 1, [Revision(1, tpl, "initial", float(EPOCH))])


def _images(*extra: Image) -> dict:
    imgs = {s.image: Image(s.image, s.name, None, None) for s in TOPO.app.services}
    for im in extra:
        imgs[im.ref] = im
    return imgs


def test_shipped_template_compiles_to_a_healthy_profile():
    for name in TOPO.names:
        d = _dep(name)
        p = compile_behaviour(TOPO, d, d.current.template, _images())
        assert (p.err, p.lat_ms, p.cpu_mult, p.leak) == (0.0, 0.0, 1.0, 0.0), name
        assert p.crash_after == np.inf
        assert p.image_ok and p.probe_ok, name
        assert not p.addr_bad.any(), name
        np.testing.assert_array_equal(p.timeout_ms, TOPO.timeout_ms[d.index])
        np.testing.assert_array_equal(p.retries, TOPO.retries[d.index])
        assert (p.cpu_limit, p.mem_limit) == default_limits(TOPO.app, name)


def test_wrong_address_env_marks_only_that_callee():
    d = _dep("checkoutservice")
    tpl = d.current.template.with_env("PAYMENT_SERVICE_ADDR", "paymentservice:50052")
    p = compile_behaviour(TOPO, d, tpl, _images())
    assert np.nonzero(p.addr_bad)[0].tolist() == [TOPO.index["paymentservice"]]
    # removing the variable is also a broken address
    env = tuple((k, v) for k, v in d.current.template.env if k != "CART_SERVICE_ADDR")
    p2 = compile_behaviour(TOPO, d, replace(d.current.template, env=env), _images())
    assert np.nonzero(p2.addr_bad)[0].tolist() == [TOPO.index["cartservice"]]


def test_latency_env_is_parsed_as_a_go_duration():
    d = _dep("productcatalogservice")
    assert (
        compile_behaviour(
            TOPO, d, d.current.template.with_env("EXTRA_LATENCY", "450ms"), _images()
        ).lat_ms
        == 450
    )
    assert (
        compile_behaviour(
            TOPO, d, d.current.template.with_env("EXTRA_LATENCY", "junk"), _images()
        ).lat_ms
        == 0
    )
    # the variable means nothing to a service whose code does not read it
    c = _dep("currencyservice")
    assert (
        compile_behaviour(
            TOPO, c, c.current.template.with_env("EXTRA_LATENCY", "1s"), _images()
        ).lat_ms
        == 0
    )


def test_defect_of_the_image_is_applied():
    d = _dep("checkoutservice")
    defect = Defect(
        error_rate=0.2,
        latency_ms=30,
        cpu_mult=3,
        crash_after_s=40,
        mem_leak_mib_s=1.5,
        timeouts_ms={"currencyservice": 5},
        retries={"cartservice": 4},
        log="boom",
    )
    img = Image("checkout:abc", "checkoutservice", "abc", defect)
    tpl = replace(d.current.template, image="checkout:abc")
    p = compile_behaviour(TOPO, d, tpl, _images(img))
    assert (p.err, p.lat_ms, p.cpu_mult, p.crash_after, p.leak, p.log) == (
        0.2,
        30,
        3,
        40,
        1.5,
        "boom",
    )
    assert p.timeout_ms[TOPO.index["currencyservice"]] == 5
    assert p.retries[TOPO.index["cartservice"]] == 4
    assert p.timeout_ms[TOPO.index["paymentservice"]] == 5000
    # the topology's arrays are not modified by compiling a profile
    assert TOPO.timeout_ms[d.index, TOPO.index["currencyservice"]] == 5000
    assert TOPO.retries[d.index, TOPO.index["cartservice"]] == 0


def test_unknown_image_and_wrong_probe_port():
    d = _dep("emailservice")
    p = compile_behaviour(TOPO, d, replace(d.current.template, image="email:v9"), _images())
    assert not p.image_ok
    q = compile_behaviour(TOPO, d, replace(d.current.template, readiness_port=8081), _images())
    assert not q.probe_ok and q.image_ok


def test_limits_parse_quantities():
    d = _dep("adservice")
    p = compile_behaviour(
        TOPO, d, replace(d.current.template, cpu_limit="1500m", mem_limit="1Gi"), _images()
    )
    assert (p.cpu_limit, p.mem_limit) == (1.5, 1024.0)


def test_deployment_revision_lookup():
    d = _dep("frontend")
    d.revisions.append(Revision(5, d.current.template, "x", 1.0))
    assert d.current.number == 5
    assert d.revision(1).number == 1
    assert d.revision(2) is None


def test_world_events_fold_repeats():
    w = World(deployments=[], nodes=[], images={})
    w.event(10, "Warning", "BackOff", "Pod", "p", "Back-off restarting failed container")
    w.event(20, "Normal", "Started", "Pod", "p", "Started container server")
    w.event(30, "Warning", "BackOff", "Pod", "p", "Back-off restarting failed container")
    w.event(40, "Warning", "BackOff", "Pod", "q", "Back-off restarting failed container")
    assert len(w.events) == 3
    e = w.events[0]
    assert (e.first, e.last, e.count) == (10, 30, 2)
    assert w.events[2].name == "q" and w.events[2].count == 1
    assert w.deployment("nope") is None


def test_events_of_lists_one_objects_events_in_order():
    w = World(deployments=[], nodes=[], images={})
    w.event(10, "Normal", "Scheduled", "Pod", "p", "Successfully assigned")
    w.event(15, "Normal", "ScalingReplicaSet", "Deployment", "p", "Scaled up")
    w.event(20, "Warning", "BackOff", "Pod", "p", "Back-off restarting failed container")
    w.event(25, "Warning", "BackOff", "Pod", "q", "Back-off restarting failed container")
    w.event(30, "Normal", "Scheduled", "Pod", "p", "Successfully assigned")
    # the same objects, in the same order, as a scan of every event finds them
    for kind, name in [("Pod", "p"), ("Pod", "q"), ("Deployment", "p"), ("Node", "n")]:
        assert w.events_of(kind, name) == [e for e in w.events if (e.kind, e.name) == (kind, name)]
    first = w.events_of("Pod", "p")[0]
    assert (first.reason, first.count, first.last) == ("Scheduled", 2, 30)
