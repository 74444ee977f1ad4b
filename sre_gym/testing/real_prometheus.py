"""A real Prometheus (Debian's 2.42, unpacked by ``make prometheus``) on 127.0.0.1, for live tests.

``RealPrometheus`` writes a configuration that scrapes a ``FakeExporter``'s jobs and loads the
release's rule pack, both put through a ``TimeScale`` (scrape and evaluation intervals, rule
durations and the staleness lookback divided by ``k``: see ``sre_gym.backends.live_time``), starts
the server on a free loopback port, waits until it is ready, and stops it by its process id.
``binaries()`` finds ``prometheus`` and ``promtool`` (``scripts/get-prometheus.sh`` fetches them).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from sre_gym.backends.live_rules import rule_file
from sre_gym.backends.live_time import TimeScale, compress_rule_file
from sre_gym.clock import TICK_S
from sre_gym.testing.fake_exporter import JOBS

ROOT = Path(__file__).resolve().parents[2]
EVAL_S = 30  # the simulator's rule evaluation interval (sre_gym.backends.sim.EVAL_INTERVAL_S)
LOOKBACK_S = 300  # Prometheus' default staleness lookback (--query.lookback-delta, 5m)


def binaries() -> dict[str, Path]:
    """``prometheus`` and ``promtool`` from .tools/ (fetched by scripts/get-prometheus.sh);
    raises FileNotFoundError saying how to get them."""
    bindir = ROOT / ".tools" / "prometheus" / "usr" / "bin"
    if not (bindir / "prometheus").exists():
        script = ROOT / "scripts" / "get-prometheus.sh"
        if script.exists():
            subprocess.run(["bash", str(script)], capture_output=True, timeout=300, check=False)
    bins = {n: bindir / n for n in ("prometheus", "promtool")}
    for name, path in bins.items():
        if not os.access(path, os.X_OK):
            raise FileNotFoundError(f"{name} not found at {path} (run `make prometheus`)")
    return bins


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def config(exporter: str, scale: TimeScale, rules_path: str) -> dict[str, Any]:
    """The Prometheus configuration: every exporter job, the rule pack, compressed intervals."""
    host = exporter.removeprefix("http://")
    return {
        "global": {
            "scrape_interval": scale.duration(f"{TICK_S}s"),
            "scrape_timeout": scale.duration(f"{TICK_S}s"),
            "evaluation_interval": scale.duration(f"{EVAL_S}s"),
        },
        "rule_files": [rules_path],
        "scrape_configs": [
            {
                "job_name": job,
                "metrics_path": f"/metrics/{job}",
                "static_configs": [{"targets": [host]}],
            }
            for job in JOBS
        ],
    }


class RealPrometheus:
    """A Prometheus server on 127.0.0.1 scraping ``exporter`` (a base URL) with the rule pack."""

    def __init__(
        self, exporter: str, scale: TimeScale, bins: dict[str, Path] | None = None
    ) -> None:
        self.bins = bins or binaries()
        self.exporter, self.scale = exporter, scale
        self.work = Path(tempfile.mkdtemp(prefix="sre-gym-live-prom-"))
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self, timeout_s: float = 30.0) -> RealPrometheus:
        rules = self.work / "rules.yml"
        rules.write_text(
            yaml.safe_dump(compress_rule_file(rule_file(), self.scale), sort_keys=False)
        )
        cfg = self.work / "prometheus.yml"
        cfg.write_text(
            yaml.safe_dump(config(self.exporter, self.scale, str(rules)), sort_keys=False)
        )
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.log = open(self.work / "prometheus.log", "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [
                str(self.bins["prometheus"]),
                f"--config.file={cfg}",
                f"--storage.tsdb.path={self.work / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                f"--query.lookback-delta={self.scale.duration(f'{LOOKBACK_S}s')}",
                "--storage.tsdb.retention.time=1d",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            cwd=self.work,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prometheus exited: {self.logs()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("prometheus did not become ready in time")

    def logs(self) -> str:
        p = self.work / "prometheus.log"
        return p.read_text() if p.exists() else ""

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "log", None) is not None:
            self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def __enter__(self) -> RealPrometheus:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
