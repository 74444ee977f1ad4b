"""A floor for one simulated 90-minute episode in Python + numpy: a reference for benchmarks, not project code.

What any embedded simulator of this benchmark must at least do per episode: 400 ticks of 15 s over
45 services and 90 call edges (traffic through a call graph, capacity and queueing latency, per-edge
failures), about 2,000 Prometheus-style series appended per tick, and 44 alert rules evaluated every
30 s with rate windows and `for:` clauses. Each tick is stepped in order (state carries over); rules are
evaluated vectorised over time, once per invocation, as DESIGN §12 suggests. `floor_episode()` returns
seconds per episode; `floor_batched(n)` shares one numpy state among n episodes (seconds per episode).
"""

from __future__ import annotations

import time

import numpy as np

N_SVC, N_EDGE, TICKS, SERIES, RULES = 45, 90, 400, 2000, 44
INVOCATION_TICKS = 8  # 120 s / 15 s


def _graph(rng: np.random.Generator):
    src = rng.integers(0, N_SVC - 1, N_EDGE)
    dst = np.minimum(src + 1 + rng.integers(0, 5, N_EDGE), N_SVC - 1)
    inc = np.zeros((N_SVC, N_EDGE))
    inc[dst, np.arange(N_EDGE)] = 1.0
    return src, dst, inc


def _run(n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    src, dst, inc = _graph(rng)
    cap = rng.uniform(50, 200, (n, N_SVC))
    fault = np.ones((n, N_SVC))
    series = np.zeros((TICKS, n, SERIES))
    counters = np.zeros((n, SERIES))
    mix = rng.standard_normal((N_SVC * 3, SERIES)) * 0.01
    thresholds = rng.uniform(0.5, 2.0, RULES)
    pick = rng.integers(0, SERIES, RULES)
    firing = np.zeros((n, RULES), dtype=np.int32)
    for t in range(TICKS):
        if t % 40 == 0:
            fault = np.where(rng.random((n, N_SVC)) < 0.05, 0.3, 1.0)
        entry = 100.0 * (1 + 0.1 * np.sin(t / 30)) * rng.uniform(0.95, 1.05, n)
        load = np.zeros((n, N_SVC))
        load[:, 0] = entry
        for _ in range(3):  # propagate down the call graph
            load = load + (load[:, src] * 0.5) @ inc.T
        util = np.minimum(load / (cap * fault), 0.99)
        lat = 5.0 / (1.0 - util)
        err = np.clip((util - 0.9) * 5, 0, 1) * (fault < 1)
        edge_fail = err[:, dst] * load[:, src] * 0.5
        feats = np.concatenate([load, lat, err], axis=1)
        counters += np.abs(feats @ mix) * 15.0 + edge_fail.sum(axis=1, keepdims=True) * 0.0
        series[t] = counters
        if (t + 1) % INVOCATION_TICKS == 0:  # evaluate the rule pack over this invocation's times
            lo = max(0, t + 1 - INVOCATION_TICKS - 8)
            window = series[lo : t + 1][:, :, pick]
            rate = (window[8:] - window[:-8]) / 120.0 if window.shape[0] > 8 else window[-1:] * 0
            cond = rate > thresholds
            for row in cond:  # `for:` clause: consecutive evaluations above threshold
                firing = np.where(row, firing + 1, 0)


def floor_episode(repeat: int = 5) -> float:
    times = []
    for r in range(repeat):
        t = time.perf_counter()
        _run(1, r)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def floor_batched(n: int = 64, repeat: int = 3) -> float:
    times = []
    for r in range(repeat):
        t = time.perf_counter()
        _run(n, r)
        times.append((time.perf_counter() - t) / n)
    return float(np.median(times))


if __name__ == "__main__":
    print(
        f"floor single episode {floor_episode() * 1000:.1f} ms; batched x64 {floor_batched() * 1000:.2f} ms/episode"
    )
