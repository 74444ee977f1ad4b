"""Throughput for trainers: many concurrent episodes against one server, or a Ray pool of env workers.

Two pools, both existing engines (no process manager of ours):
- ``server``: one ``sre-gym openenv`` process (OpenEnv's own server: one WebSocket session per
  episode, each env stepped on its session's thread), driven by N clients at once;
- ``ray``: N Ray actors, each holding one ``SREMarathonEnvironment`` (the same env the server
  runs), stepped by ``ray.get``.

For 1, 8 and 32 concurrent sessions it prints steps per second (all sessions together), p50 and
p99 step latency and memory per session (the server's or the actors' resident memory after the
sessions reset, over N; the server's baseline before any session is left out). Each session
resets (schedule ``short``) and alternates ``get_alerts`` and ``end_invocation``.

    python benchmarks/serve_throughput.py --pool server
    unshare -n sh -c 'ip link set lo up && exec python benchmarks/serve_throughput.py --pool ray'

Ray binds every interface it can see, so run it in a private network namespace (as ``make
test`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import numpy as np

STEPS = ("get_alerts", "end_invocation")


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and its children (the server has no children)."""
    return _rss_mb(pid)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_pool(n: int, steps: int, seed: int) -> dict[str, Any]:
    from openenv.core.env_server.mcp_types import CallToolAction

    from sre_gym.serve.openenv_env import SREMarathonClient

    port = _free_port()
    cmd = [sys.executable, "-m", "sre_gym.cli", "openenv", "--schedule", "short"]
    cmd += ["--port", str(port), "--max-sessions", str(n)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(proc.stderr.read().decode())
            time.sleep(0.2)
        base = _tree_rss_mb(proc.pid)
        lat: list[float] = []
        lock = threading.Lock()
        ready = threading.Barrier(n + 1)
        go = threading.Barrier(n + 1)
        errors: list[BaseException] = []

        def session(i: int) -> None:
            try:
                # no keepalive pings: with 32 CPU-bound sessions on two cores the server's event
                # loop can answer a ping later than the client's 20 s (measured)
                client = SREMarathonClient(
                    base_url=f"http://127.0.0.1:{port}",
                    message_timeout_s=600,
                    websocket_ping_interval_s=None,
                )
                with client.sync() as env:
                    env.reset(seed=seed + i)
                    ready.wait()
                    go.wait()
                    mine = []
                    for k in range(steps):
                        t = time.perf_counter()
                        env.step(CallToolAction(tool_name=STEPS[k % 2], arguments={}))
                        mine.append(time.perf_counter() - t)
                    with lock:
                        lat.extend(mine)
            except BaseException as e:  # reported below
                errors.append(e)
                ready.abort()
                go.abort()

        threads = [threading.Thread(target=session, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        ready.wait(timeout=600)
        mem = (_tree_rss_mb(proc.pid) - base) / n
        t0 = time.perf_counter()
        go.wait()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        if errors:
            raise errors[0]
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return _row("server", n, lat, wall, mem)


def ray_pool(n: int, steps: int, seed: int) -> dict[str, Any]:
    import ray

    @ray.remote
    class Worker:
        def __init__(self) -> None:
            from sre_gym.serve.openenv_env import SREMarathonEnvironment

            self.env = SREMarathonEnvironment(schedule="short")

        def reset(self, seed: int) -> float:
            self.env.reset(seed=seed)
            return _rss_mb(os.getpid())

        def step(self, tool: str) -> float:
            from openenv.core.env_server.mcp_types import CallToolAction

            t = time.perf_counter()
            self.env.step(CallToolAction(tool_name=tool, arguments={}))
            return time.perf_counter() - t

    workers = [Worker.remote() for _ in range(n)]
    mem = sum(ray.get([w.reset.remote(seed + i) for i, w in enumerate(workers)])) / n
    lat: list[float] = []
    t0 = time.perf_counter()
    for k in range(steps):
        starts = time.perf_counter()
        ray.get([w.step.remote(STEPS[k % 2]) for w in workers])
        # the round trip each session waited (its step, and Ray's scheduling of it)
        lat.extend([time.perf_counter() - starts] * n)
    wall = time.perf_counter() - t0
    for w in workers:
        ray.kill(w)
    return _row("ray", n, lat, wall, mem)


def _row(pool: str, n: int, lat: list[float], wall: float, mem: float) -> dict[str, Any]:
    a = np.array(lat) * 1000
    return {
        "pool": pool,
        "sessions": n,
        "steps": len(lat),
        "steps_per_s": round(len(lat) / wall, 1),
        "p50_ms": round(float(np.percentile(a, 50)), 1),
        "p99_ms": round(float(np.percentile(a, 99)), 1),
        "mem_per_session_mb": round(mem, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pool", choices=("server", "ray"), default="server")
    ap.add_argument("--sessions", default="1,8,32", help="concurrent sessions, comma-separated")
    ap.add_argument("--steps", type=int, default=20, help="steps per session")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.pool == "ray":
        import ray

        ray.init(include_dashboard=False, log_to_driver=False)
    try:
        for n in (int(x) for x in a.sessions.split(",")):
            run = server_pool if a.pool == "server" else ray_pool
            print(json.dumps(run(n, a.steps, a.seed)), flush=True)
    finally:
        if a.pool == "ray":
            ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
