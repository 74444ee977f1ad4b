"""The release loader (sre_gym/catalogs/__init__.py) and the shipped Online Boutique catalog."""

from __future__ import annotations

import shutil
from collections import Counter

import pytest
import yaml

import sre_gym.catalogs as catalogs
from sre_gym.catalogs import (
    APPS,
    RELEASE,
    CatalogError,
    catalog_dir,
    hard_callers,
    load_app,
    load_catalog,
    load_quarantine,
    load_release,
)
from sre_gym.catalogs.schema import parse_cpu, parse_mem

OB = "online-boutique"
BACKENDS = {
    "cartservice",
    "productcatalogservice",
    "currencyservice",
    "paymentservice",
    "shippingservice",
    "emailservice",
    "checkoutservice",
    "recommendationservice",
    "adservice",
}


@pytest.fixture(scope="module")
def app():
    return load_app(OB)


@pytest.fixture(scope="module")
def cat():
    return load_catalog(OB)


# ---------------------------------------------------------------------------------- release


def test_load_release_validates_every_app():
    rel = load_release()
    assert rel.version == RELEASE
    assert set(rel.apps) == set(APPS)
    assert rel.apps[OB] is load_catalog(OB)


def test_unknown_release_and_app_are_clear_errors():
    with pytest.raises(
        CatalogError, match=r"unknown release 'r0'; this package ships 'sre-marathon-r2'"
    ):
        load_release("r0")
    with pytest.raises(CatalogError, match=r"unknown app 'nope'; known apps: online-boutique"):
        load_app("nope")
    with pytest.raises(CatalogError, match="unknown app"):
        load_catalog("nope")


# ---------------------------------------------------------------------------------- app facts


def test_services_are_upstream_online_boutique(app):
    names = [s.name for s in app.services]
    assert len(names) == len(set(names))
    # the release's services, plus the open world's side jobs (kind batch: they serve no request)
    side = {s.name for s in app.services if s.kind == "batch"}
    assert side == {"cart-snapshot", "redis-exporter"}
    assert set(names) - side == BACKENDS | {"frontend", "redis-cart", "loadgenerator"}
    assert app.entrypoint == "frontend"
    assert app.loadgen.service == "loadgenerator"
    assert app.service("loadgenerator").kind == "loadgen"
    assert [s.name for s in app.serving] == [
        n for n in names if n != "loadgenerator" and n not in side
    ]
    assert app.service("redis-cart").kind == "stateful"
    assert app.service("frontend").kind == "gateway"


def test_every_serving_service_has_sane_resources_and_perf(app):
    for s in app.serving:
        r = s.resources
        assert 0 < parse_cpu(r.cpu_request) <= parse_cpu(r.cpu_limit), s.name
        assert 0 < parse_mem(r.mem_request) <= parse_mem(r.mem_limit), s.name
        assert s.perf is not None and s.perf.mem_base_mi < parse_mem(r.mem_limit), s.name
        assert s.readiness is not None and s.readiness.port == s.port, s.name


def test_call_graph_is_the_real_one(app):
    edges = {(e.caller, e.callee) for e in app.edges}
    assert len(edges) == len(app.edges)
    out = lambda c: {b for a, b in edges if a == c}  # noqa: E731
    assert out("frontend") == {
        "currencyservice",
        "productcatalogservice",
        "cartservice",
        "recommendationservice",
        "shippingservice",
        "checkoutservice",
        "adservice",
    }
    assert out("checkoutservice") == {
        "cartservice",
        "productcatalogservice",
        "currencyservice",
        "shippingservice",
        "paymentservice",
        "emailservice",
    }
    assert out("recommendationservice") == {"productcatalogservice"}
    assert out("cartservice") == {"redis-cart"}
    callers = {a for a, _ in edges}
    assert callers == {"frontend", "checkoutservice", "recommendationservice", "cartservice"}
    soft = {(e.caller, e.callee) for e in app.edges if not e.hard}
    assert soft == {
        ("frontend", "recommendationservice"),
        ("frontend", "adservice"),
        ("checkoutservice", "emailservice"),
    }


def test_edge_addresses_are_caller_env_vars_pointing_at_the_callee(app):
    for e in app.edges:
        assert e.addr_env is not None
        value = app.service(e.caller).env[e.addr_env]
        host, port = value.split(":")
        assert host == e.callee
        expected = 5000 if e.callee == "emailservice" else app.service(e.callee).port
        assert int(port) == expected, (e.caller, e.callee)


def test_routes_follow_the_load_generator_task_mix(app):
    """Weights are HTTP requests per 19 Locust task picks (locustfile.py of v0.10.6)."""
    tasks = {
        "index": 1,
        "setCurrency": 2,
        "browseProduct": 10,
        "addToCart": 2,
        "viewCart": 3,
        "checkout": 1,
    }
    requests = {  # route names hit by one execution of each task, redirects followed
        "index": ["home"],
        "setCurrency": ["set_currency", "home"],
        "browseProduct": ["product"],
        "addToCart": ["product", "cart_add", "cart_view"],
        "viewCart": ["cart_view"],
        "checkout": ["product", "cart_add", "cart_view", "checkout"],
    }
    expected = Counter()
    for task, w in tasks.items():
        for r in requests[task]:
            expected[r] += w
    assert {r.name: r.weight for r in app.routes} == dict(expected)
    total = sum(expected.values())
    assert app.loadgen.requests_per_task == pytest.approx(total / sum(tasks.values()), abs=1e-4)
    paths = {r.name: r.path for r in app.routes}
    assert paths["checkout"] == "POST /cart/checkout"
    assert paths["home"] == "GET /"


def test_route_calls_only_reach_frontend_callees_and_soft_ones_are_soft_edges(app):
    fe_callees = {e.callee: e for e in app.edges if e.caller == "frontend"}
    for r in app.routes:
        assert set(r.calls) <= set(fe_callees), r.name
        for s in r.soft:
            assert s in r.calls and not fe_callees[s].hard, (r.name, s)
        for s in r.calls:
            if not fe_callees[s].hard:
                assert s in r.soft, (r.name, s)


# ---------------------------------------------------------------------------------- faults


def test_fault_catalog_breadth(cat):
    faults = cat.faults
    assert len(faults) >= 12
    assert len({f.mechanism for f in faults}) >= 6
    assert sum(f.delivery == "change" for f in faults) >= 3
    assert sum(f.delivery == "direct" for f in faults) >= 3
    assert len({f.category for f in faults}) == 7  # every category is represented
    assert len({f.id for f in faults}) == len(faults)
    assert all(f.app == OB for f in faults)


def test_faults_reference_existing_entities(cat):
    services = {s.name for s in cat.app.services}
    nodes = {n.name for n in cat.app.nodes}
    changes = {c.id: c for c in cat.changes}
    zones = {n.zone for n in cat.app.nodes}
    for f in cat.faults:
        if f.mechanism == "node_failure":
            assert f.target in nodes
        elif f.mechanism == "zone_outage":
            assert f.target in zones
        else:
            assert f.target in services
            assert f.target in f.affected
        if f.delivery == "change":
            assert changes[f.change].service == f.target
        assert f.culprits, f.id
        assert f.remedies, f.id
        assert set(f.affected) <= services, f.id


def test_loader_fills_affected_with_hard_callers_and_culprits_with_target(cat, app):
    folder = catalog_dir() / "faults"
    raw = [
        r
        for p in [folder / f"{OB}.yaml", *sorted(folder.glob(f"{OB}-*.yaml"))]
        for r in (yaml.safe_load(p.read_text()) or {}).get("faults", [])
    ]
    assert any(r["id"] == "ob-code-payment-expiry" for r in raw)
    by_id = {f.id: f for f in cat.faults}
    for r in raw:
        f = by_id[r["id"]]
        if "affected" not in r and f.mechanism not in ("node_failure", "zone_outage"):
            assert f.affected == hard_callers(app, f.target)
        elif "affected" in r:
            assert f.affected == r["affected"]
        if "culprits" not in r:
            assert f.culprits == [f.target]
    assert by_id["ob-code-payment-expiry"].affected == [
        "frontend",
        "paymentservice",
        "checkoutservice",
    ]


# ---------------------------------------------------------------------------------- hard_callers


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        (
            "productcatalogservice",
            ["frontend", "productcatalogservice", "checkoutservice", "recommendationservice"],
        ),
        ("redis-cart", ["frontend", "cartservice", "checkoutservice", "redis-cart"]),
        ("paymentservice", ["frontend", "paymentservice", "checkoutservice"]),
        ("emailservice", ["emailservice"]),  # only a soft dependency of checkout
        ("adservice", ["adservice"]),  # soft on every route
        ("recommendationservice", ["recommendationservice"]),
        ("frontend", ["frontend"]),
        ("currencyservice", ["frontend", "currencyservice", "checkoutservice"]),
    ],
)
def test_hard_callers(app, service, expected):
    assert hard_callers(app, service) == expected


# ---------------------------------------------------------------------------------- cross-checks


@pytest.fixture
def tmp_catalog(tmp_path, monkeypatch):
    """A writable copy of the shipped catalogs that ``load_catalog`` reads (cache bypassed)."""
    root = tmp_path / "catalogs"
    shutil.copytree(catalog_dir(), root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    monkeypatch.setattr(catalogs, "catalog_dir", lambda: root)

    def edit(kind: str, fn) -> None:
        """Apply ``fn`` to the file of the app's family (``<app>.yaml``, ``<app>-*.yaml``) that
        holds the explicit entries (change-delivered faults may live beside their changes)."""
        paths = [root / kind / f"{OB}.yaml", *sorted((root / kind).glob(f"{OB}-*.yaml"))]
        docs = [(p, yaml.safe_load(p.read_text()) or {}) for p in paths if p.exists()]
        p, data = next((p, d) for p, d in docs if d.get(kind))
        fn(data)
        p.write_text(yaml.safe_dump(data))

    def load():
        # load_catalog(OB) filters the cached whole catalog: clear the cache around each load
        load_catalog.cache_clear()
        try:
            return load_catalog(OB)
        finally:
            load_catalog.cache_clear()

    yield edit, load
    load_catalog.cache_clear()


def _fault(data, fid):
    return next(f for f in data["faults"] if f["id"] == fid)


def test_tmp_catalog_copy_loads_identically(tmp_catalog, monkeypatch):
    _, load = tmp_catalog
    copy = load()
    monkeypatch.undo()  # the shipped catalogs again
    assert copy == load_catalog(OB)


def test_the_catalog_without_quarantine_shares_the_whole_catalogs_models():
    app = "astronomy-shop"  # (it has quarantined faults)
    whole, kept = load_catalog(app, include_quarantined=True), load_catalog(app)
    assert kept.changes is whole.changes and kept.app is whole.app
    quarantined = set(load_quarantine().get(app, {}))
    assert quarantined and len(kept.faults) == len(whole.faults) - len(quarantined)
    assert [f for f in whole.faults if f.id not in quarantined] == kept.faults
    assert all(any(f is g for g in whole.faults) for f in kept.faults)


NODE_FAULT = {
    "id": "ob-extra-node",
    "category": "infrastructure",
    "delivery": "direct",
    "mechanism": "node_failure",
    "target": "kind-worker9",
    "probe": {"kind": "node_workloads", "service": "kind-worker9"},
    "remedies": ["delete_pods_on_node"],
}
DIRECT_FAULT = {
    "id": "ob-extra-hog",
    "category": "resource",
    "delivery": "direct",
    "mechanism": "cpu_hog",
    "target": "cartservice",
    "params": {"cores": 0.2},
    "probe": {"kind": "latency_p95", "service": "cartservice", "max": 150},
    "remedies": ["restart"],
}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: _fault(d, "ob-code-payment-expiry").update(target="paymentsvc"),
            r"fault ob-code-payment-expiry: unknown target 'paymentsvc'",
        ),
        (
            lambda d: d["faults"].append(dict(NODE_FAULT)),
            r"fault ob-extra-node: unknown target 'kind-worker9'",
        ),
        (
            lambda d: d["faults"].append(dict(DIRECT_FAULT, target="cartsvc")),
            r"fault ob-extra-hog: unknown target 'cartsvc'",
        ),
        (
            lambda d: _fault(d, "ob-code-payment-expiry").update(change="no-such-change"),
            r"fault ob-code-payment-expiry: unknown change 'no-such-change'",
        ),
        (
            lambda d: _fault(d, "ob-code-payment-expiry").update(change="currency-nanos-carry"),
            r"fault ob-code-payment-expiry: change currency-nanos-carry is for currencyservice",
        ),
        (
            lambda d: _fault(d, "ob-code-payment-expiry")["probe"].update(service="paymentsvc"),
            r"fault ob-code-payment-expiry: probe names an unknown entity",
        ),
        (
            lambda d: _fault(d, "ob-config-checkout-deadline")["probe"].update(peer="nobody"),
            r"fault ob-config-checkout-deadline: probe names an unknown entity",
        ),
        (lambda d: d["faults"].append(dict(d["faults"][0])), r"duplicate fault ids"),
        (
            lambda d: _fault(d, "ob-code-payment-expiry").update(colour="red"),
            r"fault ob-code-payment-expiry: .*colour\s+Extra inputs are not permitted",
        ),
        (
            lambda d: _fault(d, "ob-code-payment-expiry").update(category="cosmic-rays"),
            r"fault ob-code-payment-expiry: .*category",
        ),
        (
            lambda d: d["faults"].append(dict(DIRECT_FAULT, change="payment-expiry-check")),
            r"fault ob-extra-hog: .*change-delivered faults \(and only they\) name a change",
        ),
    ],
)
def test_fault_catalog_inconsistencies_are_named(tmp_catalog, mutate, message):
    edit, load = tmp_catalog
    edit("faults", mutate)
    with pytest.raises(CatalogError, match=r"(?s)faults/online-boutique[-\w]*\.yaml: " + message):
        load()


def test_duplicate_change_ids_and_bad_changes(tmp_catalog):
    edit, load = tmp_catalog
    edit("changes", lambda d: d["changes"].append(dict(d["changes"][0])))
    with pytest.raises(CatalogError, match=r"duplicate change ids"):
        load()


def test_bad_change_field_names_the_file(tmp_catalog):
    edit, load = tmp_catalog
    edit("changes", lambda d: d["changes"][0].update(kind="hotfix"))
    with pytest.raises(
        CatalogError,
        match=r"(?s)changes/online-boutique\.yaml: .*kind\n\s+Input should be 'code', 'config' or 'image'",
    ):
        load()


def test_invalid_yaml_and_missing_file(tmp_catalog, tmp_path):
    _, load = tmp_catalog
    p = tmp_path / "catalogs" / "faults" / f"{OB}.yaml"
    p.write_text("faults: [unclosed\n")
    with pytest.raises(CatalogError, match=r"faults/online-boutique\.yaml: invalid YAML"):
        load()
    (tmp_path / "catalogs" / "apps" / f"{OB}.yaml").unlink()
    with pytest.raises(CatalogError, match=r"missing catalog file .*apps/online-boutique\.yaml"):
        load_app.__wrapped__(OB)


def test_empty_fault_file_gives_no_faults(tmp_catalog, tmp_path):
    _, load = tmp_catalog
    folder = tmp_path / "catalogs" / "faults"
    for p in [folder / f"{OB}.yaml", *folder.glob(f"{OB}-*.yaml")]:
        p.write_text("")
    assert load().faults == []
