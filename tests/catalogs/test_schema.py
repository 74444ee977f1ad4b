"""Pydantic schema of the release (sre_gym/catalogs/schema.py)."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from sre_gym.catalogs import load_app, load_catalog
from sre_gym.catalogs.schema import (
    App,
    Change,
    Defect,
    Edge,
    Fault,
    Perf,
    Resources,
    Service,
    Startup,
    parse_cpu,
    parse_mem,
)


@pytest.mark.parametrize(
    ("q", "cores"),
    [("100m", 0.1), ("0.5", 0.5), ("2", 2.0), ("1500m", 1.5), ("0", 0.0), ("250.5m", 0.2505)],
)
def test_parse_cpu(q, cores):
    assert parse_cpu(q) == pytest.approx(cores)


@pytest.mark.parametrize(
    ("q", "mib"), [("64Mi", 64.0), ("1Gi", 1024.0), ("512Ki", 0.5), ("1.5Gi", 1536.0)]
)
def test_parse_mem(q, mib):
    assert parse_mem(q) == pytest.approx(mib)


@pytest.mark.parametrize("q", ["100Mi", "1Gi", "-1", "abc", "", "1e3", "100 m", "m", "0.5.1"])
def test_bad_cpu_quantities(q):
    with pytest.raises(
        ValueError, match=rf"bad CPU quantity '{q}' \(expected e\.g\. '200m' or '0\.5'\)"
    ):
        parse_cpu(q)


@pytest.mark.parametrize("q", ["128", "128M", "100m", "1G", "Mi", "-5Mi", "12 Mi"])
def test_bad_memory_quantities(q):
    with pytest.raises(ValueError, match=rf"bad memory quantity '{q}' \(expected e\.g\. '128Mi'\)"):
        parse_mem(q)


def _resources(**kw):
    d = {"cpu_request": "100m", "mem_request": "64Mi", "cpu_limit": "200m", "mem_limit": "128Mi"}
    d.update(kw)
    return d


def test_resources_validate_quantities():
    Resources(**_resources())
    with pytest.raises(ValidationError, match=r"cpu_limit\n.*bad CPU quantity '200Mi'"):
        Resources(**_resources(cpu_limit="200Mi"))
    with pytest.raises(ValidationError, match=r"mem_request\n.*bad memory quantity '64MB'"):
        Resources(**_resources(mem_request="64MB"))


def test_models_reject_unknown_fields_and_are_frozen():
    with pytest.raises(ValidationError, match=r"cpu_limt\n\s+Extra inputs are not permitted"):
        Resources(**_resources(cpu_limt="1"))
    r = Resources(**_resources())
    with pytest.raises(ValidationError, match="frozen"):
        r.cpu_limit = "1"  # type: ignore[misc]
    with pytest.raises(ValidationError, match=r"retires\n\s+Extra inputs"):
        Edge(caller="a", callee="b", calls=1, retires=3)


def test_numeric_constraints():
    with pytest.raises(ValidationError, match="calls"):
        Edge(caller="a", callee="b", calls=0)
    with pytest.raises(ValidationError, match="retries"):
        Edge(caller="a", callee="b", calls=1, retries=-1)
    with pytest.raises(ValidationError, match="base_ms"):
        Perf(base_ms=0, cpu_ms_per_req=1, mem_base_mi=1)
    with pytest.raises(ValidationError, match="boot_s"):
        Startup(image_mb=10, boot_s=-1)
    with pytest.raises(ValidationError, match="image_mb"):
        Startup(image_mb=0, boot_s=1)


def test_serving_services_need_perf():
    base = {"name": "svc", "language": "Go", "image": "x:1", "resources": _resources()}
    with pytest.raises(ValidationError, match="service svc: serving services need perf parameters"):
        Service(kind="stateless", **base)
    assert Service(kind="loadgen", **base).perf is None


def _app_dict() -> dict:
    return copy.deepcopy(load_app("online-boutique").model_dump())


def test_app_round_trips():
    assert App.model_validate(_app_dict()) == load_app("online-boutique")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (
            lambda d: d["services"].append(copy.deepcopy(d["services"][1])),
            "duplicate service names",
        ),
        (lambda d: d.update(entrypoint="gateway"), "entrypoint 'gateway' is not a service"),
        (
            lambda d: d["edges"].append({"caller": "frontend", "callee": "ghost", "calls": 1}),
            "edge frontend->ghost: unknown service 'ghost'",
        ),
        (
            lambda d: d["edges"].append({"caller": "phantom", "callee": "cartservice", "calls": 1}),
            "edge phantom->cartservice: unknown service 'phantom'",
        ),
        (lambda d: d["routes"][0]["calls"].update(ghost=1), "route home: unknown service 'ghost'"),
        (lambda d: d["routes"][0]["soft"].append("spirit"), "route home: unknown service 'spirit'"),
        (
            lambda d: d["services"][0]["resources"].update(cpu_limit="2 cores"),
            "bad CPU quantity '2 cores'",
        ),
        (lambda d: d.update(zones=["a"]), r"zones\n\s+Extra inputs are not permitted"),
    ],
)
def test_app_rejects_inconsistent_references(mutate, message):
    d = _app_dict()
    mutate(d)
    with pytest.raises(ValidationError, match=message):
        App.model_validate(d)


def _fault_dict(**kw) -> dict:
    d = {
        "id": "f1",
        "app": "online-boutique",
        "category": "code",
        "delivery": "change",
        "mechanism": "code_exception",
        "target": "paymentservice",
        "change": "payment-expiry-check",
        "probe": {"kind": "error_ratio", "service": "paymentservice", "max": 0.05},
        "remedies": ["rollback"],
    }
    d.update(kw)
    return d


def test_fault_change_consistency():
    assert Fault.model_validate(_fault_dict()).culprits == []
    with pytest.raises(
        ValidationError, match="fault f1: change-delivered faults \\(and only they\\) name a change"
    ):
        Fault.model_validate(_fault_dict(change=None))
    with pytest.raises(ValidationError, match="fault f1: change-delivered faults"):
        Fault.model_validate(_fault_dict(delivery="direct"))


def test_fault_literals():
    with pytest.raises(ValidationError, match="category"):
        Fault.model_validate(_fault_dict(category="weather"))
    with pytest.raises(ValidationError, match="probe.kind"):
        Fault.model_validate(_fault_dict(probe={"kind": "vibes", "service": "x"}))
    with pytest.raises(ValidationError, match="delivery"):
        Fault.model_validate(_fault_dict(delivery="mail"))


def test_change_and_defect_defaults():
    d = Defect()
    assert (d.error_rate, d.latency_ms, d.cpu_mult, d.crash_after_s, d.mem_leak_mib_s) == (
        0.0,
        0.0,
        1.0,
        None,
        0.0,
    )
    with pytest.raises(ValidationError, match="kind"):
        Change(id="c", service="s", kind="hotfix", title="t", files=[], diff="")


def test_shipped_changes_are_consistent():
    cat = load_catalog("online-boutique")
    services = {s.name for s in cat.app.serving}
    for c in cat.changes:
        assert c.service in services, c.id
        if c.kind == "image":
            assert c.image_tag, c.id
        if c.kind == "config":
            assert c.env or c.resources or c.readiness_port is not None, c.id
            for k in c.resources:
                assert k in ("cpu_limit", "mem_limit")
        if c.kind == "code":
            assert c.files and c.diff.startswith("--- a/"), c.id
