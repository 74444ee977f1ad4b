"""Fixtures for conformance tests against Debian's Prometheus 2.42 (promtool + server).

The binaries come from ``scripts/get-prometheus.sh`` (run once per session). When they cannot be
obtained the tests are skipped with the reason printed, unless ``SRE_GYM_REQUIRE_PROMETHEUS=1``,
in which case they fail.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sre_gym.telemetry.promtool_export import openmetrics
from sre_gym.telemetry.tsdb import TSDB

ROOT = Path(__file__).resolve().parents[2]
TICK_S = 15
N_TICKS = 120  # 30 minutes


def _require() -> bool:
    return os.environ.get("SRE_GYM_REQUIRE_PROMETHEUS") == "1"


def _unavailable(reason: str):
    if _require():
        pytest.fail(f"Prometheus binaries required but unavailable: {reason}")
    print(f"\nSKIP conformance: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def prometheus_bins() -> dict[str, Path]:
    """Paths of ``promtool`` and ``prometheus`` (2.42 from Debian), fetched once per session."""
    script = ROOT / "scripts" / "get-prometheus.sh"
    try:
        proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        _unavailable(f"get-prometheus.sh failed: {e}")
    if proc.returncode != 0:
        _unavailable(f"get-prometheus.sh failed: {proc.stderr.strip() or proc.stdout.strip()}")
    bindir = Path(proc.stdout.strip().splitlines()[-1])
    bins = {"promtool": bindir / "promtool", "prometheus": bindir / "prometheus"}
    for name, path in bins.items():
        if not os.access(path, os.X_OK):
            _unavailable(f"{name} not executable at {path}")
    return bins


# -- synthetic scenario ----------------------------------------------------------------------------
def _put(
    db: TSDB, name: str, label_names: tuple[str, ...], series: dict[tuple[str, ...], np.ndarray]
) -> None:
    fam = db.family(name, label_names)
    for values, row in series.items():
        r = fam.row(values)
        n = min(len(row), db.capacity)
        fam.data[r, :n] = row[:n]


def build_scenario(t0: int = 0, n_ticks: int = N_TICKS, seed: int = 7) -> TSDB:
    """Counters with resets, histograms, gauges that go stale and come back, late series."""
    rng = np.random.default_rng(seed)
    n = n_ticks
    db = TSDB(t0=t0, tick_s=TICK_S, capacity=n)
    nan = np.nan
    t = np.arange(n)

    # Request counters: integer increments, an error spike on service c, resets on b/i1.
    req: dict[tuple[str, ...], np.ndarray] = {}
    for svc, base in (("a", 20), ("b", 8), ("c", 12)):
        for inst in ("i1", "i2"):
            ok = np.cumsum(rng.poisson(base, n)).astype(float)
            err_rate = np.where((svc == "c") & (t >= 60), 6, 1 if svc != "b" else 0)
            err = np.cumsum(rng.poisson(err_rate)).astype(float)
            if svc == "b" and inst == "i1":
                ok[50:] -= ok[50]
                ok[90:] = ok[90:] - ok[90] + 3
                err[70:] = err[70:] - err[70] + 0.5
            req[(svc, "200", inst)] = ok
            req[(svc, "500", inst)] = err
    _put(db, "http_requests_total", ("service", "code", "instance"), req)

    # Classic histograms; b gets slower after tick 70. One histogram lacks the +Inf bucket.
    les = ["0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"]
    bounds = np.array([0.05, 0.1, 0.25, 0.5, 1, 2.5, np.inf])
    hist: dict[tuple[str, ...], np.ndarray] = {}
    counts: dict[tuple[str, ...], np.ndarray] = {}
    for svc in ("a", "b"):
        cum = np.zeros((n, len(les)))
        total = np.zeros(n)
        acc = np.zeros(len(les))
        for k in range(n):
            scale = 0.08 if svc == "a" or k < 70 else 0.6
            obs = rng.exponential(scale, 15)
            acc += (obs[:, None] <= bounds[None, :]).sum(0)
            cum[k] = acc
            total[k] = acc[-1]
        for j, le in enumerate(les):
            hist[(svc, le)] = cum[:, j].copy()
        counts[(svc,)] = total
    broken = np.cumsum(np.ones(n) * 2)
    hist[("x", "0.1")] = broken.copy()
    hist[("x", "1")] = broken * 2
    _put(db, "http_request_duration_seconds_bucket", ("service", "le"), hist)
    _put(db, "http_request_duration_seconds_count", ("service",), counts)

    # Pod readiness: p3 appears at 30, goes stale at 60, returns at 80; p4 exists 10..20 only.
    ready: dict[tuple[str, ...], np.ndarray] = {}
    for ns in ("prod", "dev"):
        for pod in ("p1", "p2", "p3", "p4"):
            row = np.ones(n)
            if pod == "p2" and ns == "prod":
                row[40:55] = 0
            if pod == "p3":
                row[:30] = nan
                row[60:80] = nan
                row[85:95] = 0
            if pod == "p4":
                row[:10] = nan
                row[21:] = nan
            ready[(ns, pod)] = row
    _put(db, "kube_pod_status_ready", ("namespace", "pod"), ready)

    mem: dict[tuple[str, ...], np.ndarray] = {}
    for i, inst in enumerate(("n1", "n2", "n3")):
        walk = 2e9 * (i + 1) + np.cumsum(rng.normal(0, 5e7, n))
        mem[(inst,)] = np.round(walk, 1)
    _put(db, "node_memory_usage_bytes", ("instance",), mem)

    q2 = rng.integers(0, 40, n).astype(float)
    q2[40:51] = nan
    q1 = np.minimum(np.arange(n) * 1.5, 150.0)
    _put(db, "queue_depth", ("queue",), {("q1",): q1, ("q2",): q2})

    up: dict[tuple[str, ...], np.ndarray] = {}
    for job, inst in (("api", "a1"), ("api", "a2"), ("db", "d1"), ("db", "d2")):
        row = np.ones(n)
        if inst == "d2":
            row[45:75] = 0
        up[(job, inst)] = row
    _put(db, "up", ("job", "instance"), up)

    rep = np.full(n, nan)
    rep[40:] = 3
    rep[70:] = 1
    _put(db, "deploy_replicas", ("deployment",), {("web",): rep})

    cpu = np.clip(rng.normal(0.4, 0.2, (4, n)), 0, 1).round(3)
    _put(db, "cpu_usage_ratio", ("pod",), {(f"p{i}",): cpu[i] for i in range(4)})

    db.commit(n - 1)
    return db


# -- live server -----------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc: subprocess.Popen, deadline_s: float) -> None:
    deadline = time.monotonic() + deadline_s
    delay = 0.02
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited early with rc={proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(delay)
        delay = min(delay * 1.5, 0.25)
    raise RuntimeError("prometheus did not become ready before the deadline")


LIVE_BASE = (int(time.time()) // 86400 - 1) * 86400  # start of yesterday (UTC), within retention


@contextlib.contextmanager
def serve_backfilled(bins: dict[str, Path], db: TSDB, prefix: str) -> Iterator[dict]:
    """A Prometheus 2.42 server on 127.0.0.1 serving ``db`` backfilled with promtool.

    Lookback is one tick minus 1 ms, which reproduces the TSDB's staleness (OpenMetrics has no
    stale markers). The engine to compare with must use ``lookback_s=TICK_S - 0.001``.
    """
    work = Path(tempfile.mkdtemp(prefix=prefix))
    proc = None
    try:
        om = work / "data.om"
        om.write_text(openmetrics(db))
        data = work / "data"
        data.mkdir()
        r = subprocess.run(
            [
                str(bins["promtool"]),
                "tsdb",
                "create-blocks-from",
                "openmetrics",
                str(om),
                str(data),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if r.returncode != 0:
            raise RuntimeError(f"backfill failed: {r.stderr or r.stdout}")
        cfg = work / "prometheus.yml"
        cfg.write_text("global:\n  scrape_interval: 1h\n  evaluation_interval: 30s\n")
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        with open(work / "prometheus.log", "w") as log:
            proc = subprocess.Popen(
                [
                    str(bins["prometheus"]),
                    f"--config.file={cfg}",
                    f"--storage.tsdb.path={data}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    "--storage.tsdb.retention.time=30d",
                    f"--query.lookback-delta={TICK_S * 1000 - 1}ms",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=work,
            )
            try:
                _wait_ready(url, proc, 30)
            except RuntimeError as e:
                raise RuntimeError(
                    f"{e}; log: {(work / 'prometheus.log').read_text()[-2000:]}"
                ) from None
            yield {"url": url, "workdir": work, "pid": proc.pid}
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="session")
def live_prometheus(prometheus_bins) -> Iterator[dict]:
    """The synthetic scenario served by Prometheus, backfilled at ``LIVE_BASE``."""
    db = build_scenario(t0=LIVE_BASE)
    with serve_backfilled(prometheus_bins, db, "sre-gym-prom-") as srv:
        yield {**srv, "tsdb": db, "base": LIVE_BASE}
