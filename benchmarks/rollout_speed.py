"""Rollout throughput: Ray with N workers vs one worker, and equality with the serial path.

Run it inside a private network namespace (Ray binds every interface it sees):

    RAY_AUTH_MODE=disabled RAY_USAGE_STATS_ENABLED=0 \\
        unshare -n sh -c 'ip link set lo up && exec .venv/bin/python benchmarks/rollout_speed.py'

Each configuration gets its own fresh Ray instance with that many CPUs, whose workers are warmed up
(imports, rule pack) on other seeds before the clock starts, so both pay the same fixed costs and no
worker holds a cached result of a timed seed. Prints the ratio of the throughputs from one run.
"""

from __future__ import annotations

import argparse
import socket
import sys
import time

from sre_gym.rollouts import parse_seeds, rollout, run_episode


def timed(agent: str, app: str, seeds: list[int], workers: int) -> tuple[float, list[dict]]:
    import ray

    ray.init(
        address="local",
        num_cpus=workers,
        include_dashboard=False,
        object_store_memory=256 * 1024**2,
        log_to_driver=False,
    )
    try:
        warm = ray.remote(num_cpus=1)(run_episode)
        ray.get([warm.remote("noop", app, 10_000 + i) for i in range(workers)])
        t0 = time.perf_counter()
        res = rollout(agent, app, seeds, workers=workers, progress=False)
        return time.perf_counter() - t0, res.records
    finally:
        ray.shutdown()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--agent", default="runbook")
    p.add_argument("--app", default="online-boutique")
    p.add_argument("--seeds", default="0-7")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument(
        "--allow-host-network", action="store_true", help="run even if not in a private netns"
    )
    a = p.parse_args(argv)
    if {n for _, n in socket.if_nameindex()} - {"lo"} and not a.allow_host_network:
        print("refusing to start Ray on the host network: run inside unshare -n", file=sys.stderr)
        return 2
    seeds = parse_seeds(a.seeds)
    t0 = time.perf_counter()
    serial = rollout(a.agent, a.app, seeds, progress=False)
    t_serial = time.perf_counter() - t0
    t1, one = timed(a.agent, a.app, seeds, 1)
    tn, many = timed(a.agent, a.app, seeds, a.workers)
    n = len(seeds)
    print(f"{a.agent} on {a.app}, {n} seeds")
    print(f"  serial (no Ray)   {t_serial:6.2f} s  {n / t_serial:5.2f} episodes/s")
    print(f"  Ray, 1 worker     {t1:6.2f} s  {n / t1:5.2f} episodes/s")
    print(f"  Ray, {a.workers} workers    {tn:6.2f} s  {n / tn:5.2f} episodes/s")
    same = many == serial.records and one == serial.records
    print(f"  results identical to the serial path: {same}")
    print(f"  throughput ratio ({a.workers} workers / 1 worker): {t1 / tn:.2f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
