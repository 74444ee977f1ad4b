"""The live backend against a fake Kubernetes API server and a fake Prometheus (no cluster needed).

The real ``kubernetes`` client and ``prometheus_api_client`` talk HTTP to the standard-library fakes
of ``sre_gym.testing.fake_cluster``; the guarded ``Toolbox`` drives the backend end to end. Here:
``LiveBackend`` itself (packaging, the protocol, time and alerts); its reads, interventions,
connection and object readers have their own test modules.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

if os.environ.get("CI"):  # the live extra is part of `make test`: never skip silently in CI
    import kubernetes  # noqa: F401
    import prometheus_api_client  # noqa: F401
else:
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")
    pytest.importorskip("prometheus_api_client", reason="needs the live extra")

from sre_gym.backends.base import Backend  # noqa: E402
from sre_gym.backends.live import LiveBackend  # noqa: E402
from sre_gym.clock import rfc3339  # noqa: E402

from .conftest import APP, NS, T0, firing, run  # noqa: E402


# ---------------------------------------------------------------------------------------- packaging
def test_import_sre_gym_does_not_import_kubernetes():
    code = (
        "import sre_gym, sre_gym.backends, sre_gym.testing, sys; "
        "heavy = [m for m in ('kubernetes', 'prometheus_api_client') if m in sys.modules] "
        "+ [m for m in sys.modules if m.startswith('sre_gym.backends.live')]; "
        "assert not heavy, heavy"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


def test_the_parts_keep_their_names_in_the_live_module():
    from sre_gym.backends import live, live_client, live_interventions, live_objects

    assert (live.log_level, live.pod_status) == (live_objects.log_level, live_objects.pod_status)
    assert live.REQUEST_TIMEOUT_S == live_client.REQUEST_TIMEOUT_S
    assert live.ROLLBACK_KEEP is live_interventions.ROLLBACK_KEEP
    assert {n for n in vars(live) if n.isupper()} >= {
        "CHANGE_CAUSE", "HASH_LABEL", "PROBE_HANDLERS", "RESTARTED_AT", "REVISION"
    }  # fmt: skip
    assert LiveBackend.__module__ == "sre_gym.backends.live"


# ---------------------------------------------------------------------------------------- protocol
def test_protocol_attributes_follow_the_injected_clock(backend, clock):
    assert isinstance(backend, Backend)
    for name in Backend.__annotations__:
        assert hasattr(backend, name), name
    for name, member in vars(Backend).items():
        if not name.startswith("_"):
            value = getattr(backend, name)
            assert isinstance(value, float) if isinstance(member, property) else callable(value), (
                name
            )
    assert (backend.app, backend.seed, backend.release) == (APP, 3, "sre-marathon-r2")
    assert backend.namespace == NS and backend.tick_s == 15
    assert backend.t0 == backend.episode_start == T0
    assert backend.episode_end == T0 + 5400
    clock.t += 42
    assert backend.now == T0 + 42
    assert backend.evidence_arrays() == {}


def test_namespace_override_is_used_for_every_request(fc, api, clock):
    b = LiveBackend(APP, namespace="shop", api_client=api, prometheus_url=fc.prom.url, clock=clock)
    assert b.k8s_get("pods", None) == []  # nothing in "shop"
    assert b.topology()["namespace"] == "shop"
    assert ("GET", "/api/v1/namespaces/shop/pods") in fc.kube.requests
    b.close()


# ---------------------------------------------------------------------------------------- alerts
def test_alerts_get_ids_in_order_of_first_sight_and_resolve_when_gone(fc, backend, toolbox, clock):
    b_cart = firing("HighErrorRate", T0 - 120, service_name="cartservice")
    a_front = firing("HighErrorRate", T0 - 60, service_name="frontend")
    pending = dict(firing("HighLatency", T0, service_name="adservice"), state="pending")
    fc.prom.set_alerts([a_front, pending, b_cart])
    assert backend.alerts(T0) == []  # nothing polled yet
    backend.advance_to(T0)
    alerts = backend.alerts(T0)
    assert [(a["id"], a["labels"]["service_name"]) for a in alerts] == [
        ("ALR-0001", "cartservice"),  # the same poll: ties are ordered by labels
        ("ALR-0002", "frontend"),
    ]
    first = alerts[0]
    assert first == {
        "id": "ALR-0001",
        "name": "HighErrorRate",
        "severity": "warning",
        "state": "firing",
        "labels": b_cart["labels"],
        "starts_at": rfc3339(T0 - 120),
        "ends_at": None,
        "summary": b_cart["annotations"]["summary"],
        "description": "d",
    }
    assert backend.alert_entities("ALR-0002") == ["frontend"]
    assert backend.runbook("ALR-0001") == "check HighErrorRate"

    fc.prom.set_alerts([a_front])
    backend.advance_to(T0 + 30)
    fc.prom.set_alerts([a_front, b_cart])  # it fires again: a new alert
    backend.advance_to(T0 + 60)
    view = {a["id"]: a for a in backend.alerts(T0 + 60)}
    assert view["ALR-0001"]["state"] == "resolved"
    assert view["ALR-0001"]["ends_at"] == rfc3339(T0 + 30)
    assert view["ALR-0002"]["state"] == "firing"
    assert view["ALR-0003"]["labels"] == b_cart["labels"] and view["ALR-0003"]["state"] == "firing"
    assert backend.alerts(T0 + 10)[0]["state"] == "firing"  # as of an earlier time
    # readers that copy nothing get the same list, in new views on every read
    listing = backend.alert_listing(T0 + 60)
    assert listing == backend.alerts(T0 + 60)
    assert all(a is not b for a, b in zip(listing, backend.alert_listing(T0 + 60), strict=True))
    out = run(toolbox, backend, "get_alerts", state="resolved")
    assert [a["id"] for a in out["result"]] == ["ALR-0001"]
    assert out["result"][0]["runbook"] == "check HighErrorRate"

    ev = backend.drain_evidence()
    assert [(e["type"], e["id"], e["t"]) for e in ev] == [
        ("alert", "ALR-0001", T0),
        ("alert", "ALR-0002", T0),
        ("alert_resolved", "ALR-0001", T0 + 30),
        ("alert", "ALR-0003", T0 + 60),
    ]
    assert ev[0]["entities"] == ["cartservice"] and ev[0]["name"] == "HighErrorRate"
    assert backend.drain_evidence() == []


def test_advance_to_sleeps_through_the_injected_sleep_then_polls(fc, backend, clock):
    backend.advance_to(T0 + 120)
    assert clock.sleeps == [120.0] and clock.t == T0 + 120
    clock.step = 50.0  # a sleep that wakes early: advance_to keeps waiting
    backend.advance_to(T0 + 240)
    assert clock.sleeps == [120.0, 120.0, 70.0, 20.0] and clock.t == T0 + 270
    polls = [q for q in fc.prom.queries if q["path"] == "/api/v1/alerts"]
    assert len(polls) == 2 and backend.last_poll == T0 + 270
    backend.advance_to(T0)  # already past: no sleeping, still a poll
    assert len(clock.sleeps) == 4
    assert len([q for q in fc.prom.queries if q["path"] == "/api/v1/alerts"]) == 3
    clock.step = 0.0
    with pytest.raises(RuntimeError, match="clock did not move"):
        backend.advance_to(clock.t + 10)


def test_tools_outside_this_slice_answer_with_a_clear_error(backend, toolbox):
    for tool, args in [
        ("get_traces", {"service": "frontend"}),
        ("read_source", {"service": "frontend"}),
    ]:
        out = run(toolbox, backend, tool, **args)
        assert out["ok"] is False and "not available on this backend (LiveBackend" in out["error"]
    topo = run(toolbox, backend, "get_topology")["result"]
    assert topo["entrypoint"] == "frontend" and {n["zone"] for n in topo["nodes"]} == {
        "zone-a",
        "zone-b",
    }
