"""Pod table and the kubelet-like lifecycle (sre_gym/sim/pods.py), driven directly."""

from __future__ import annotations

import numpy as np
import pytest

from sre_gym.sim import pods as P

INF = np.inf
PULL_S = 0.0  # scheduling, pull and container creation (the cluster sets it; 0 here)


class Kubelet:
    """One deployment, one profile, two nodes (node index -1 means unscheduled)."""

    def __init__(self, **beh) -> None:
        self.pods = P.PodTable(cap=2)
        self.arrays = {
            "beh_image_ok": np.array([beh.get("image_ok", True)]),
            "beh_probe_ok": np.array([beh.get("probe_ok", True)]),
            "beh_crash_after": np.array([float(beh.get("crash_after", INF))]),
            "beh_leak": np.array([float(beh.get("leak", 0.0))]),
            "beh_mem_limit": np.array([float(beh.get("mem_limit", 100.0))]),
            "dep_mem_base": np.array([float(beh.get("mem_base", 50.0))]),
            # the process boots in `startup` s; a probe every second from the start marks it ready
            "dep_boot": np.array([float(beh.get("startup", 5.0))]),
            "dep_probed": np.array([True]),
            "dep_probe_delay": np.array([0.0]),
            "dep_probe_period": np.array([1.0]),
        }
        self.node_ready = np.array([True, True, False])  # last entry: "no node"
        self.node_down = np.array([INF, INF, INF])

    def add(self, name: str = "pod-a", t: float = 0.0, node: int = 0) -> int:
        r = self.pods.add(name, 0, 1, 0, node, t)
        self.pods.start_at[r] = t + PULL_S  # scheduled, image pulled, container created
        return r

    def at(self, t: float) -> dict[str, np.ndarray]:
        return P.lifecycle(
            self.pods,
            float(t),
            node_ready=self.node_ready,
            node_down_since=self.node_down,
            **self.arrays,
        )

    def node_down_at(self, node: int, t: float) -> None:
        self.node_ready[node] = False
        self.node_down[node] = t


def test_table_add_grow_and_lookup():
    p = P.PodTable(cap=2)
    rows = [p.add(f"p{i}", i % 3, 1, 0, 0, float(i)) for i in range(9)]
    assert rows == list(range(9))
    assert p.cap >= 9 and p.n == 9
    assert p.dep[:9].tolist() == [i % 3 for i in range(9)]
    assert p.created[:9].tolist() == [float(i) for i in range(9)]
    assert np.isnan(p.started[:9]).all()
    assert p.index_of("p4") == 4 and p.index_of("zz") is None
    v = p.version
    p.terminate(4, 100.0)  # out of the endpoints now, gone when the process has exited
    assert p.version == v + 1 and p.state[4] == P.TERMINATING
    assert p.deleted_at[4] == 100.0 + P.SHUTDOWN_S and not p.ready[4]
    p.terminate(4, 200.0)  # idempotent
    assert p.deleted_at[4] == 100.0 + P.SHUTDOWN_S and p.version == v + 1
    assert 4 not in p.live().tolist() and len(p.live()) == 8
    assert p.index_of("p4") == 4  # still exists while terminating


def test_index_of_prefers_the_newest_living_row():
    p = P.PodTable()
    p.add("same", 0, 1, 0, 0, 0.0)
    p.add("same", 0, 2, 0, 0, 1.0)
    assert p.index_of("same") == 1
    p.alive[1] = False
    assert p.index_of("same") == 0


def test_start_then_ready_after_startup():
    k = Kubelet(startup=5)
    r = k.add(t=0.0)
    ch = k.at(0)
    assert ch["started"].tolist() == [r]
    assert k.pods.state[r] == P.RUNNING and k.pods.started[r] == PULL_S
    ready_at = []
    for t in range(1, 12):
        ch = k.at(t)
        if k.pods.ready[r]:
            ready_at.append(t)
        if t == 5:
            assert ch["became_ready"].tolist() == [r]
    # booted after 5 s; the probe (every second from the start) passes at its first run after
    assert ready_at == list(range(5, 12))


def test_start_waits_for_the_pull_and_ready_for_the_probe_run():
    """A pod starts at ``start_at``; with initialDelaySeconds 10 and periodSeconds 15 a process
    that boots in 12 s is ready at the probe run of 25 s after the start."""
    k = Kubelet(startup=12)
    k.arrays["dep_probe_delay"] = np.array([10.0])
    k.arrays["dep_probe_period"] = np.array([15.0])
    r = k.add(t=0.0)
    k.pods.start_at[r] = 8.0  # an 8 s pull
    k.at(5)
    assert k.pods.state[r] == P.PENDING
    ready = [t for t in range(8, 60) if (k.at(t), bool(k.pods.ready[r]))[1]]
    assert k.pods.started[r] == 8.0 and ready[0] == 8 + 25
    # without a probe the pod is ready when its container starts, booted or not
    k2 = Kubelet(startup=12)
    k2.arrays["dep_probed"] = np.array([False])
    r2 = k2.add(t=0.0)
    k2.at(0)
    assert k2.pods.ready[r2]


def test_failing_readiness_probe_never_gets_ready():
    k = Kubelet(probe_ok=False, startup=5)
    r = k.add()
    fails = []
    for t in range(0, 30, 5):
        ch = k.at(t)
        fails.append(r in ch["probe_fail"])
        assert not k.pods.ready[r]
    assert k.pods.state[r] == P.RUNNING
    assert fails == [True] * 6  # reported from the probe's first run (no initial delay here)


def test_pod_on_no_node_stays_pending():
    k = Kubelet()
    r = k.add(node=-1)
    for t in range(0, 60, 15):
        k.at(t)
    assert k.pods.state[r] == P.PENDING and not k.pods.ready[r]


def test_crash_loop_backoff_doubles_to_the_cap():
    k = Kubelet(crash_after=5)
    r = k.add()
    crashes, resumes, prev = [], [], None
    for t in range(0, 4000):
        ch = k.at(t)
        if r in ch["crash"]:
            crashes.append(t)
            assert k.pods.state[r] == P.BACKOFF and k.pods.last_term[r] == P.TERM_ERROR
            assert not k.pods.ready[r]
        if prev == P.BACKOFF and k.pods.state[r] == P.RUNNING:
            resumes.append(t)
        prev = int(k.pods.state[r])
    delays = [b - a for a, b in zip(crashes, resumes, strict=False)]
    assert delays[:7] == [10, 20, 40, 80, 160, 300, 300]
    assert set(delays[5:]) == {P.BACKOFF_CAP_S}
    assert crashes[0] == PULL_S + 5  # started, then 5 s of running
    assert all(c - r_ == 5 for r_, c in zip(resumes, crashes[1:], strict=False))
    assert k.pods.restarts[r] == len(crashes)
    assert k.pods.last_term_at[r] == crashes[-1]


def test_backoff_resets_after_ten_minutes_of_running():
    k = Kubelet(crash_after=P.BACKOFF_RESET_S + 100)
    r = k.add()
    crashes, resumes, prev = [], [], None
    for t in range(0, 4000, 5):
        ch = k.at(t)
        if r in ch["crash"]:
            crashes.append(t)
        if prev == P.BACKOFF and k.pods.state[r] == P.RUNNING:
            resumes.append(t)
        prev = int(k.pods.state[r])
    assert len(crashes) >= 4
    assert {b - a for a, b in zip(crashes, resumes, strict=False)} == {10}


def test_oom_kill_when_memory_exceeds_the_limit():
    # base 50 MiB warming from 60 % to 100 % over a minute, plus 1 MiB/s of leak; limit 100 MiB
    k = Kubelet(leak=1.0, mem_limit=100.0, mem_base=50.0)
    r = k.add()
    oom_at = None
    for t in range(0, 200):
        ch = k.at(t)
        if r in ch["oom"]:
            oom_at = t
            break
        up = t - PULL_S
        if up > 0:
            warm = min(1.0, 0.6 + 0.4 * up / 60)
            assert k.pods.mem[r] == pytest.approx(50 * warm + up)
    assert oom_at is not None
    up = oom_at - PULL_S
    assert 50 * min(1, 0.6 + 0.4 * up / 60) + up > 100
    assert 50 * min(1, 0.6 + 0.4 * (up - 1) / 60) + (up - 1) <= 100
    assert k.pods.last_term[r] == P.TERM_OOM and k.pods.state[r] == P.BACKOFF
    assert k.pods.restarts[r] == 1 and k.pods.mem[r] == 0.0
    assert r not in ch["crash"]


def test_balloon_over_the_limit_is_killed_at_once():
    k = Kubelet(mem_limit=256.0, mem_base=12.0)
    r = k.add()
    k.pods.balloon[r] = 320.0
    ch = k.at(0)
    assert r in ch["started"] and r in ch["oom"]
    k.pods.balloon[r] = 0.0
    k.at(10)  # back-off over: runs again, below the limit now
    assert k.pods.state[r] == P.RUNNING and k.pods.restarts[r] == 1


def test_exit_resets_cadvisor_counters_but_not_restarts():
    k = Kubelet(crash_after=20)
    r = k.add()
    k.at(0)
    k.pods.cpu_total[r] = 3.0
    k.pods.periods[r] = 100.0
    k.pods.throttled[r] = 7.0
    k.at(30)
    assert k.pods.restarts[r] == 1
    assert (k.pods.cpu_total[r], k.pods.periods[r], k.pods.throttled[r]) == (0.0, 0.0, 0.0)
    assert np.isnan(k.pods.started[r])


def test_image_pull_failure_waits_forever():
    k = Kubelet(image_ok=False)
    r = k.add()
    for i, t in enumerate(range(0, 300, 15)):
        ch = k.at(t)
        assert r in ch["image_fail"]
        assert k.pods.state[r] == P.IMAGE_WAIT and not k.pods.ready[r]
        assert k.pods.pulls[r] == i + 1
    assert k.pods.restarts[r] == 0 and len(ch["started"]) == 0


def test_readiness_lost_after_node_grace_and_eviction_after_340s():
    k = Kubelet(startup=1)
    on_bad = k.add("on-bad", node=0)
    on_good = k.add("on-good", node=1)
    for t in range(0, 100, 10):
        k.at(t)
    assert k.pods.ready[on_bad] and k.pods.ready[on_good]
    k.node_down_at(0, 100.0)
    ready_until = evicted_at = None
    for t in range(100, 500):
        ch = k.at(t)
        if k.pods.ready[on_bad]:
            ready_until = t
        if on_bad in ch["evicted"]:
            evicted_at = t
            assert k.pods.state[on_bad] == P.TERMINATING
            assert k.pods.deleted_at[on_bad] == t + P.SHUTDOWN_S
            break
    assert ready_until == 100 + P.NODE_GRACE_S - 1
    assert evicted_at == 100 + P.EVICT_AFTER_S
    assert P.EVICT_AFTER_S == 340.0
    assert k.pods.state[on_good] == P.RUNNING and k.pods.ready[on_good]
    # the evicted pod vanishes once its shutdown time is over
    ch = k.at(evicted_at + P.SHUTDOWN_S)
    assert on_bad in ch["gone"] and not k.pods.alive[on_bad]


def test_terminating_pods_vanish_at_their_deletion_time():
    k = Kubelet()
    a = k.add("a")
    b = k.add("b")
    k.at(0)
    k.pods.terminate(a, 10.0)  # its process exits SHUTDOWN_S later
    gone_at = 10.0 + P.SHUTDOWN_S
    v = k.pods.version
    ch = k.at(gone_at - 1)
    assert k.pods.alive[a] and a not in ch["gone"]
    ch = k.at(gone_at)
    assert ch["gone"].tolist() == [a] and not k.pods.alive[a]
    assert k.pods.version > v
    assert k.pods.live().tolist() == [b]
    ch = k.at(gone_at + 1)
    assert len(ch["gone"]) == 0  # reported once


def test_backoff_does_not_resume_on_a_dead_node():
    k = Kubelet(crash_after=5)
    r = k.add()
    for t in range(0, 8):
        k.at(t)
    assert k.pods.state[r] == P.BACKOFF
    k.node_down_at(0, 8.0)
    for t in range(8, 60):
        k.at(t)
    assert k.pods.state[r] == P.BACKOFF
