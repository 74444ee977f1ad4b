"""Shared fixtures of the live backend's tests: a fake cluster, a settable clock, a backend on them,
and ``promtool`` (fetched as the conformance tests fetch it).

The live test modules import the helpers (``from .conftest import ...``); the fixtures import the
``live`` extra only when used, so the simulator backend's tests here run without it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from sre_gym.backends.sim import SimBackend
from sre_gym.bundle.evidence import Evidence
from sre_gym.clock import rfc3339
from sre_gym.testing.fake_cluster import EPOCH, FakeCluster
from sre_gym.tools.dispatch import Toolbox

if TYPE_CHECKING:
    from sre_gym.backends.live import LiveBackend

APP = "online-boutique"
NS = "online-boutique"
T0 = EPOCH + 7200.0


class Clock:
    """A settable clock; ``sleep`` records each duration and moves the clock by it (or by ``step``)."""

    def __init__(self, t: float) -> None:
        self.t = t
        self.sleeps: list[float] = []
        self.step: float | None = None

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.sleeps.append(s)
        self.t += s if self.step is None else self.step


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def fc(clock):
    cluster = FakeCluster(APP, clock=clock, replicas=2)
    cluster.start()
    yield cluster
    cluster.stop()
    assert not cluster.kube.running and not cluster.prom.running


@pytest.fixture
def api(fc):
    from kubernetes import client as k8s  # the live extra, imported by the tests that use it

    cfg = k8s.Configuration()
    cfg.host = fc.kube.url
    a = k8s.ApiClient(cfg)
    yield a
    a.close()


@pytest.fixture
def backend(fc, api, clock):
    from sre_gym.backends.live import LiveBackend

    b = LiveBackend(
        APP, api_client=api, prometheus_url=fc.prom.url, clock=clock, sleep=clock.sleep, seed=3
    )
    yield b
    b.close()


@pytest.fixture
def toolbox(backend):
    return Toolbox(backend, Evidence(manifest={}))


@pytest.fixture(scope="module")
def sim():
    b = SimBackend(APP, 0)
    b.advance_to(b.t0 + 120)
    return b


def run(tb: Toolbox, backend: LiveBackend, tool: str, **args) -> dict:
    out, _ = tb.execute({"tool": tool, "args": args}, backend.now, 1, 110.0)
    return out


def firing(name: str, activate: float, **labels: str) -> dict:
    return {
        "labels": {"alertname": name, "severity": "warning", **labels},
        "annotations": {
            "summary": f"{name} on {labels}",
            "description": "d",
            "runbook": f"check {name}",
        },
        "state": "firing",
        "activeAt": rfc3339(activate),
        "value": "1e+00",
    }


def open_incident(fc, backend, toolbox, clock, deployment: str = "cartservice") -> str:
    """An alert about ``deployment`` and an incident citing it (interventions must cite one)."""
    fc.prom.set_alerts([firing("KubePodCrashLooping", clock.t - 60, deployment=deployment)])
    backend.advance_to(clock.t)
    aid = backend.alerts(clock.t)[-1]["id"]
    rep = run(
        toolbox, backend, "report_incident", alert_ids=[aid], root_cause_services=[deployment],
        summary="crash looping",
    )  # fmt: skip
    assert rep["ok"], rep
    return rep["result"]["id"]


def mutations(fc) -> list[dict]:
    return [m for m in fc.kube.mutations if m["method"] != "GET"]


# -- promtool, as the conformance tests get it (tests/conformance/conftest.py) ---------------------
ROOT = Path(__file__).resolve().parents[2]


def _require() -> bool:
    return os.environ.get("SRE_GYM_REQUIRE_PROMETHEUS") == "1"


def _unavailable(reason: str):
    if _require():
        pytest.fail(f"Prometheus binaries required but unavailable: {reason}")
    print(f"\nSKIP conformance: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def promtool() -> Path:
    """``promtool`` (2.42 from Debian) from ``scripts/get-prometheus.sh``, fetched once per session;
    skipped with the reason when it cannot be had, failed instead when
    ``SRE_GYM_REQUIRE_PROMETHEUS=1``."""
    script = ROOT / "scripts" / "get-prometheus.sh"
    try:
        proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        _unavailable(f"get-prometheus.sh failed: {e}")
    if proc.returncode != 0:
        _unavailable(f"get-prometheus.sh failed: {proc.stderr.strip() or proc.stdout.strip()}")
    path = Path(proc.stdout.strip().splitlines()[-1]) / "promtool"
    if not os.access(path, os.X_OK):
        _unavailable(f"promtool not executable at {path}")
    return path
