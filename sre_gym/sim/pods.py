"""Pods as a struct of arrays, and the kubelet-like lifecycle step vectorised over them.

A pod row lives from creation until its termination grace ends. Container restarts (crash, OOM) keep
the row; deleting the pod (restart, rollout, eviction) ends it and its replacement is a new row with a
new name. Runtime conditions injected into a pod (a CPU hog, a netem delay, a memory balloon on an
emptyDir) belong to the row; chaos that selects pods by label re-attaches to replacements (the
cluster applies the deployment's conditions to every pod it creates).

A new pod's timeline: it is scheduled, its image is pulled if the node lacks it (the cluster sets
``start_at`` at creation: scheduling, the pull and the container's creation), the container starts,
the process accepts connections ``boot`` seconds later, and the readiness probe (first run at
``initialDelaySeconds``, then every ``periodSeconds``) marks the pod ready at its first run after
that. Without a readiness probe the pod is ready when its container starts, and until the process
has booted it refuses the connections it is sent (``booting``).
"""

from __future__ import annotations

import numpy as np

# container states
PENDING, RUNNING, BACKOFF, IMAGE_WAIT, TERMINATING = 0, 1, 2, 3, 4
STATE_NAMES = (
    "ContainerCreating",
    "Running",
    "CrashLoopBackOff",
    "ImagePullBackOff",
    "Terminating",
)
# last termination reasons
TERM_NONE, TERM_ERROR, TERM_OOM = 0, 1, 2
TERM_NAMES = ("", "Error", "OOMKilled")

NODE_GRACE_S = 40.0  # node-monitor-grace-period: pods on a silent node turn NotReady
EVICT_AFTER_S = 340.0  # grace + the default 300 s not-ready/unreachable toleration
SCHEDULE_S = 1.0  # scheduler binding plus the kubelet's pod sync
CREATE_S = 1.0  # sandbox (CNI) and container creation
SHUTDOWN_S = 5.0  # a terminating pod's process exits this soon after SIGTERM (within its grace)
BACKOFF_BASE_S, BACKOFF_CAP_S, BACKOFF_RESET_S = 10.0, 300.0, 600.0

_FLOAT = [
    "created",
    "start_at",
    "pulled_s",
    "started",
    "backoff_until",
    "last_term_at",
    "deleted_at",
    "mem",
    "cpu_total",
    "periods",
    "throttled",
    "hog",
    "delay",
    "balloon",
    "usage",
]
_INT = ["dep", "rev", "beh", "node", "state", "restarts", "crashes", "last_term", "pulls"]


class PodTable:
    def __init__(self, cap: int = 64) -> None:
        self.cap = cap
        self.n = 0  # rows used (dead rows stay; alive marks the live ones)
        self.alive = np.zeros(cap, dtype=bool)
        self.ready = np.zeros(cap, dtype=bool)
        for f in _FLOAT:
            setattr(self, f, np.zeros(cap))
        for f in _INT:
            setattr(self, f, np.zeros(cap, dtype=np.int64))
        self.names: list[str] = []
        self.version = 0  # bumped when rows are added or die (consumers rebuild their indexes)

    def _grow(self) -> None:
        new = self.cap * 2
        for f in ["alive", "ready", *_FLOAT, *_INT]:
            old = getattr(self, f)
            arr = np.zeros(new, dtype=old.dtype)
            arr[: self.cap] = old
            setattr(self, f, arr)
        self.cap = new

    def add(self, name: str, dep: int, rev: int, beh: int, node: int, t: float) -> int:
        if self.n == self.cap:
            self._grow()
        i = self.n
        self.n += 1
        self.names.append(name)
        self.alive[i] = True
        self.ready[i] = False
        for f in _FLOAT:
            getattr(self, f)[i] = 0.0
        for f in _INT:
            getattr(self, f)[i] = 0
        self.dep[i], self.rev[i], self.beh[i], self.node[i] = dep, rev, beh, node
        self.created[i] = t
        self.started[i] = np.nan
        self.deleted_at[i] = np.nan
        self.state[i] = PENDING
        self.version += 1
        return i

    def live(self) -> np.ndarray:
        """Row indices of pods that exist and are not terminating."""
        m = self.alive[: self.n] & (self.state[: self.n] != TERMINATING)
        return np.nonzero(m)[0]

    def index_of(self, name: str) -> int | None:
        for i in range(self.n - 1, -1, -1):
            if self.alive[i] and self.names[i] == name:
                return i
        return None

    def terminate(self, i: int, t: float, grace_s: float = SHUTDOWN_S) -> None:
        """Delete the pod: out of the endpoints at once, gone when its process has exited."""
        if self.alive[i] and self.state[i] != TERMINATING:
            self.state[i] = TERMINATING
            self.ready[i] = False
            self.deleted_at[i] = t + min(SHUTDOWN_S, grace_s)
            self.version += 1


def ready_at(
    started: np.ndarray, boot: np.ndarray, probed: np.ndarray, delay: np.ndarray, period: np.ndarray
) -> np.ndarray:
    """When containers started at ``started`` become ready: at the first probe run at or after the
    process accepts connections (``started + boot``), or at once without a probe."""
    late = np.maximum(0.0, boot - delay)
    first = started + delay + np.ceil(late / period - 1e-9) * period
    return np.where(probed, first, started)


def lifecycle(
    pods: PodTable,
    t: float,
    *,
    beh_image_ok: np.ndarray,
    beh_probe_ok: np.ndarray,
    beh_crash_after: np.ndarray,
    beh_leak: np.ndarray,
    beh_mem_limit: np.ndarray,
    dep_mem_base: np.ndarray,
    dep_boot: np.ndarray,
    dep_probed: np.ndarray,
    dep_probe_delay: np.ndarray,
    dep_probe_period: np.ndarray,
    node_ready: np.ndarray,
    node_down_since: np.ndarray,
    dep_leak: np.ndarray | None = None,
    dep_not_ready: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Advance every pod to time ``t``; returns the rows that changed, by transition, for events."""
    n = pods.n
    a = pods.alive[:n]
    st = pods.state[:n]
    beh = pods.beh[:n]
    node = pods.node[:n]
    nready = node_ready[node]
    down_for = np.where(nready, 0.0, t - node_down_since[node])

    gone = a & (st == TERMINATING) & (t >= pods.deleted_at[:n])
    if gone.any():
        a[gone] = False
        pods.version += 1

    pend = a & (st == PENDING) & nready & (t >= pods.start_at[:n])
    img_ok = beh_image_ok[beh]
    started_now = pend & img_ok
    st[started_now] = RUNNING
    pods.started[:n][started_now] = pods.start_at[:n][started_now]
    image_fail = pend & ~img_ok
    st[image_fail] = IMAGE_WAIT
    pulls = pods.pulls[:n]
    pulls[a & (st == IMAGE_WAIT)] += 1

    resume = a & (st == BACKOFF) & (t >= pods.backoff_until[:n]) & nready
    st[resume] = RUNNING
    pods.started[:n][resume] = pods.backoff_until[:n][resume]

    run = a & (st == RUNNING)
    up = np.where(run, t - pods.started[:n], 0.0)
    dep = pods.dep[:n]
    warm = np.minimum(1.0, 0.6 + 0.4 * up / 60.0)
    leak = beh_leak[beh] if dep_leak is None else beh_leak[beh] + dep_leak[dep]
    mem = np.where(run, pods.balloon[:n] + dep_mem_base[dep] * warm + leak * up, 0.0)
    oom = run & (mem > beh_mem_limit[beh])
    crash = run & ~oom & (up >= beh_crash_after[beh])
    exited = oom | crash
    if exited.any():
        rows = np.nonzero(exited)[0]
        pods.restarts[rows] += 1
        pods.crashes[rows] += 1
        delay = np.minimum(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** (pods.crashes[rows] - 1))
        pods.backoff_until[rows] = t + delay
        pods.last_term[rows] = np.where(oom[rows], TERM_OOM, TERM_ERROR)
        pods.last_term_at[rows] = t
        st[rows] = BACKOFF
        pods.started[rows] = np.nan
        mem[rows] = 0.0
        for f in ("cpu_total", "periods", "throttled"):
            getattr(pods, f)[rows] = 0.0
        run = run & ~exited
    pods.crashes[:n][run & (up > BACKOFF_RESET_S)] = 0
    pods.mem[:n] = mem

    was_ready = pods.ready[:n].copy()
    node_ok = nready | (down_for < NODE_GRACE_S)
    probe_ok = (
        beh_probe_ok[beh] if dep_not_ready is None else beh_probe_ok[beh] & ~dep_not_ready[dep]
    )
    started = pods.started[:n]
    probed = dep_probed[dep]
    when = ready_at(started, dep_boot[dep], probed, dep_probe_delay[dep], dep_probe_period[dep])
    ready = run & (t >= when) & probe_ok & node_ok
    pods.ready[:n] = ready

    evict = a & (st != TERMINATING) & ~nready & (down_for >= EVICT_AFTER_S)
    if evict.any():
        st[evict] = TERMINATING
        pods.deleted_at[:n][evict] = t + SHUTDOWN_S
        pods.ready[:n][evict] = False
        pods.version += 1
    return {
        "started": np.nonzero(started_now)[0],
        "image_fail": np.nonzero(a & (st == IMAGE_WAIT))[0],
        "oom": np.nonzero(oom)[0],
        "crash": np.nonzero(crash)[0],
        "probe_fail": np.nonzero(run & probed & (up >= dep_probe_delay[dep]) & ~probe_ok)[0],
        "became_ready": np.nonzero(ready & ~was_ready)[0],
        "evicted": np.nonzero(evict)[0],
        "gone": np.nonzero(gone)[0],
    }
