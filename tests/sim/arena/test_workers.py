"""The queue's workers under the kubelet: a refused worker quits, and comes back only when its
container is next restarted; finished jobs stay in the queue's memory for their result TTL."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_substrate, load_task
from sre_gym.rng import Streams
from sre_gym.sim.arena.workers import Workers
from sre_gym.sim.arena.world import ArenaWorld

SUB = load_substrate("frappe")


def _pool(n: int = 1) -> Workers:
    return Workers(SUB.workers, SUB.rollout, Streams("t", "workers", 0), n)


def _times(w: Workers, kind: str, pod: int = 0) -> list[int]:
    return [t for t, i, k, _ in w.log if k == kind and i == pod]


def test_a_refused_worker_quits_and_restarts_after_the_kubelets_back_off():
    w = _pool()
    assert all(w.step(t, None, False) == 1 for t in range(10))
    assert all(w.step(t, "noperm", False) == 0 for t in range(10, 1500))
    exits, starts = _times(w, "exit"), _times(w, "start")
    delays = [s - e for e, s in zip(exits, starts, strict=False)]
    assert delays[:8] == [0, 10, 20, 40, 80, 160, 300, 300]  # at once, then doubling to 5 min
    # between a start and the next exit: the boot, after which the worker pops and is refused
    boots = [e - s for s, e in zip(starts, exits[1:], strict=False)]
    assert all(5 <= b <= 60 for b in boots) and len(set(boots)) > 1


def test_a_fixed_queue_reaches_the_jobs_at_the_next_start_and_a_long_run_resets_the_back_off():
    w = _pool()
    for t in range(0, 400):
        w.step(t, "oom", False)
    last_exit = _times(w, "exit")[-1]
    backoff = int(next(d for t, i, k, d in w.log if k == "backoff" and t == last_exit))
    working = [w.step(t, None, False) for t in range(400, 1400)]
    ready = _times(w, "ready")[-1]
    assert ready >= last_exit + backoff  # nothing works before the back-off is over
    assert working[ready - 400] == 1 and not any(working[: ready - 400])
    w.step(1400, "noreplicas", False)  # ran over ten minutes: the back-off starts afresh
    assert _times(w, "start")[-1] == 1400


def test_a_lost_connection_is_retried_but_a_worker_starting_without_its_queue_quits():
    w = _pool()
    w.step(0, None, False)
    got = [w.step(t, None, t in (1, 2, 3, 4)) for t in range(1, 12)]
    # down at 1-4: retried after 1 s (2, down), then 2 s (4, down), then 4 s (8, up)
    assert got == [0] * 7 + [1] * 4 and not _times(w, "exit")
    w2 = _pool()
    w2.step(0, None, False)
    w2.step(1, "noperm", False)  # quits, and is restarted at once
    for t in range(2, 200):
        w2.step(t, None, True)  # the queue is down while it boots
    assert [d for t, i, k, d in w2.log if k == "exit"][:2] == ["noperm", "conn"]


def test_refused_from_the_first_second_each_pod_is_somewhere_in_a_capped_cycle():
    w = _pool(2)
    working = [w.step(t, "noperm", False) for t in range(0, 700)]
    assert not any(working)
    for pod in (0, 1):
        starts = _times(w, "start", pod)
        assert starts and starts[0] < 300 + 60  # the first restart comes within one cycle
        assert all(b - a >= 300 for a, b in zip(starts, starts[1:], strict=False))
    assert _times(w, "start", 0)[0] != _times(w, "start", 1)[0]


def _fix_queue(w: ArenaWorld) -> None:
    w.set_config("redis-queue.maxmemory_mb", 256.0)


def test_after_the_fix_jobs_wait_for_the_workers_next_start_then_the_backlog_drains():
    w = ArenaWorld(load_task("arena-001"), 0, 1400)
    w.advance_to(40)
    _fix_queue(w)
    w.advance_to(1400)
    ready = min(t for t, _, k, _ in w.workers.log if k == "ready" and t >= 40)
    assert ready > 60 and not w.rec_working[40:ready].any()  # the back-off, not the fix, decides
    peak = w.rec_backlog[40:ready].max()
    assert peak > 200 and w.rec_backlog[-1] < 5  # jobs piled up, then drained
    job = w.lanes.index("job")
    assert w.rec["err"][job, ready - 30 : ready].sum() > 0.9 * w.n[job, ready - 30 : ready].sum()


def test_a_rolling_restart_of_the_workers_skips_the_back_off():
    a = ArenaWorld(load_task("arena-001"), 0, 600)
    b = ArenaWorld(load_task("arena-001"), 0, 600)
    for w in (a, b):
        w.advance_to(40)
        _fix_queue(w)
    b.restart("worker-long")
    for w in (a, b):
        w.advance_to(600)
    first = [min(t for t, _, k, _ in w.workers.log if k == "ready" and t >= 40) for w in (a, b)]
    assert first[1] < 40 + 60 and first[1] < first[0]


def test_finished_jobs_fill_a_small_queue_before_any_backlog_and_expire_after_their_ttl():
    w = ArenaWorld(load_task("arena-004"), 0, 1300)  # 3 MB, noeviction
    w.advance_to(200)
    enq = w.lanes.index("enqueue")
    refused = np.flatnonzero(w.rec["err"][enq, :200] > 0.5 * np.maximum(w.n[enq, :200], 1))
    assert 60 < refused[0] < 150 and w.rec_backlog[: refused[0]].max() < 50
    info = w.redis_info("redis-queue")
    assert info["used_memory_mb"] > 2.9 and info["keyspace"]["db0"]["expires"] > 800
    assert not w.rec_working[refused[0] + 1 : 200].any()  # the heartbeat's OOM ended them
    w.advance_to(1300)  # the finished jobs' hashes expire; accepted jobs now wait, unconsumed
    assert w.state["kept"] < 1 and w.rec_backlog[-1] > 800
    healthy = ArenaWorld(load_task("arena-004"), 0, 800, faults=False)
    healthy.advance_to(800)
    kept = healthy.state["kept"]
    assert 4000 < kept < 8000 and healthy.rec_working[100:].min() == 2  # ten minutes of jobs


def test_metrics_show_the_crash_loop():
    w = ArenaWorld(load_task("arena-000"), 0, 700)
    w.advance_to(700)
    res = w.promql('kube_pod_container_status_restarts_total{service="worker-long"}', None, 15)
    assert {r["metric"]["pod"] for r in res["result"]} == {"worker-long-0", "worker-long-1"}
    assert all(float(r["value"][1]) >= 1 for r in res["result"])
    res = w.promql("max_over_time(arena_queue_workers[10m])", None, 15)
    assert float(res["result"][0]["value"][1]) == 0.0
