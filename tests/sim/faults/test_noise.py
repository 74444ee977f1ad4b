"""Seeded benign noise: deterministic, applied through runtime pod conditions, never touching what
the scorer measures, and the only source of alerts in a marathon without faults."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from sre_gym.backends.sim import SimBackend
from sre_gym.catalogs import RELEASE, load_catalog
from sre_gym.orchestrator.open_world import NOISE_PROFILES
from sre_gym.orchestrator.schedule import Schedule, schedule
from sre_gym.sim.faults import noise as nz

APPS = ("online-boutique", "train-ticket", "astronomy-shop")


QUIET = NOISE_PROFILES["quiet"]  # load noise only (this module's); no open-world anomalies


def no_faults(app: str, seed: int) -> Schedule:
    """A marathon without faults (and without the schedule's ordinary deploys)."""
    return Schedule(RELEASE, app, seed, (), ())


def callers_of(app: str) -> dict[str, set[str]]:
    """Every service that reaches each service through the call graph (transitively)."""
    up: dict[str, set[str]] = {}
    cat = load_catalog(app).app
    for e in cat.edges:
        up.setdefault(e.callee, set()).add(e.caller)
    router = cat.router or cat.entrypoint
    for r in cat.routes:
        for s in r.calls:
            up.setdefault(s, set()).add(router)
    if router != cat.entrypoint:
        up.setdefault(router, set()).add(cat.entrypoint)
    out = {}
    for s in {e.callee for e in cat.edges} | {e.caller for e in cat.edges} | {router}:
        seen, stack = set(), [s]
        while stack:
            for c in up.get(stack.pop(), ()):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        out[s] = seen
    return out


def test_plan_is_a_pure_function_of_release_app_seed_and_schedule():
    s = schedule("online-boutique", 3)
    a, b = nz.plan(s), nz.plan(s)
    assert a == b and len(a) > 10
    assert nz.plan(schedule("online-boutique", 4)) != a
    assert {e.kind for e in a} <= set(nz.KINDS)
    # a different schedule changes only what the noise must avoid, not its draws
    free = nz.plan(no_faults("online-boutique", 3))
    assert len(free) >= len(a)
    assert nz.plan(s, params=nz.NoiseParams(per_hour=0)) == ()


@pytest.mark.parametrize("app", APPS)
def test_noise_never_targets_what_an_active_fault_is_scored_on(app):
    cat = load_catalog(app)
    faults = {f.id: f for f in cat.faults}
    nodes = {n.name: n.zone for n in cat.app.nodes}
    front = {cat.app.entrypoint, cat.app.router or cat.app.entrypoint}
    down: dict[str, set[str]] = {}
    for e in cat.app.edges:
        down.setdefault(e.caller, set()).add(e.callee)
    for seed in range(3):
        sched = schedule(app, seed)
        events = nz.plan(sched)
        assert events
        for ev in events:
            assert ev.end <= 5400 and all(a < b for a, b in ev.phases)
            for sf in sched.faults:
                if sf.start - nz.BEFORE_S > ev.end or sf.end + nz.AFTER_S < ev.start:
                    continue
                f = faults[sf.fault_id]
                scored = {f.target, *f.culprits, f.probe.service, f.probe.peer} - {None}
                if f.probe.peer:
                    stack = [f.probe.peer]
                    while stack:
                        for c in down.get(stack.pop(), ()):
                            if c not in scored:
                                scored.add(c)
                                stack.append(c)
                if ev.kind == "noisy_neighbour":
                    assert ev.target not in scored
                    assert nodes[ev.target] not in scored
                    assert scored - set(nodes) - set(nodes.values()) <= set(ev.spared)
                else:
                    assert ev.target not in scored, (ev, f.id)
            if ev.kind != "noisy_neighbour":
                assert ev.target not in front
                assert ev.amount > 0


@pytest.mark.parametrize("app", APPS)
def test_noise_leaves_every_probe_and_artifact_record_unchanged(app):
    """The evidence the scorer reads about faults is identical with and without noise."""
    runs = {}
    for mode in ("noise", "quiet"):
        if mode == "noise":  # load noise alone: the open world is another module's
            b = SimBackend(app, 1, noise=QUIET)
        else:
            with nz.noise_off():
                b = SimBackend(app, 1)
        b.cluster.hpas = []  # autoscalers follow the noise's CPU, and with it the pods
        b.advance_to(b.episode_end)
        runs[mode] = b
    noisy, quiet = runs["noise"], runs["quiet"]
    assert noisy.noise.events and not quiet.noise.events
    ev_n, ev_q = noisy.drain_evidence(), quiet.drain_evidence()
    # probes are scored up to the revert; noise keeps away until a minute after it (the unscored
    # tail recorded afterwards may show noise)
    cl = noisy.cluster
    for inj in noisy.injector.injections:
        k = int((inj.end + nz.AFTER_S - cl.t0) // cl.tick_s)
        a, b = noisy.injector.probe[inj.index, :k], quiet.injector.probe[inj.index, :k]
        assert np.array_equal(a, b), inj.fault.id
        assert (a >= 0).any()
    assert np.array_equal(noisy.injector.artifact, quiet.injector.artifact)
    # no evidence of injection: the same injections, reverts and deploys, nothing else
    kinds = ("injection", "revert", "deploy")
    assert [e for e in ev_n if e["type"] in kinds] == [e for e in ev_q if e["type"] in kinds]
    assert [c.sha for c in noisy.cluster.changes] == [c.sha for c in quiet.cluster.changes]
    # ... while the telemetry does differ (the noise is real)
    cpu = "container_cpu_cfs_throttled_periods_total"
    fam_n, fam_q = noisy.cluster.tsdb.families[cpu], quiet.cluster.tsdb.families[cpu]
    assert np.nansum(fam_n.data) > np.nansum(fam_q.data)


@pytest.mark.parametrize("app", APPS)
def test_a_marathon_without_faults_fires_only_noise_alerts(app):
    """Zero faults: without noise nothing fires; with it, every alert starts after a noise event
    began and names a disturbed workload, a pod on a crowded node, or one of their callers."""
    seed = 2
    with nz.noise_off():
        quiet = SimBackend(app, seed, sched=no_faults(app, seed))
    quiet.cluster.hpas = []
    quiet.advance_to(quiet.episode_end)
    assert [e for e in quiet.drain_evidence() if e["type"] == "alert"] == []

    b = SimBackend(app, seed, sched=no_faults(app, seed), noise=QUIET)
    b.cluster.hpas = []  # (an autoscaler reacting to a burst adds booting pods: not this test's)
    t_ep = b.episode_start
    b.advance_to(b.episode_end)
    deps = [d.name for d in b.cluster.world.deployments]
    touched = []
    for t, i, _, pods in b.noise.history:
        hit = {d for d in deps for p in pods if p.startswith(d + "-")}
        touched.append((t, t_ep + b.noise.events[i].end, hit))
    alerts = [e for e in b.drain_evidence() if e["type"] == "alert"]
    assert alerts, "the noise should fire some alerts"
    # benign: throttling and latency, never errors, restarts or unavailable pods
    latency = {"ServiceHighLatency", "EntrypointHighLatency", "EntrypointSlowRequests"}
    assert {a["name"] for a in alerts} <= {"CPUThrottlingHigh"} | latency
    up = callers_of(app)
    for a in alerts:
        assert a["t"] >= t_ep
        ok = False
        for start, end, deps in touched:
            if not (start <= a["t"] <= end + 600):
                continue
            reach = set(deps)
            for d in deps:
                reach |= up.get(d, set())
            if set(a["entities"]) & reach:
                ok = True
                break
        assert ok, a


def test_a_noisy_backend_pickles_and_forks():
    b = SimBackend("online-boutique", 0, noise=QUIET)
    b.advance_to(b.episode_start + 900)
    clone = pickle.loads(pickle.dumps(b))
    assert [e.index for e in clone.noise.events] == [e.index for e in b.noise.events]
    fork = b.cluster.fork()
    fork.advance_to(b.episode_start + 1500)
    b.advance_to(b.episode_start + 1500)
    assert np.array_equal(fork.pods.hog[: fork.pods.n], b.cluster.pods.hog[: b.cluster.pods.n])
