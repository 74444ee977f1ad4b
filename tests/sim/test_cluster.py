"""SimCluster: construction, warm-up, determinism under chunking and scheduled actions
(sre_gym/sim/cluster.py)."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest

from sre_gym.clock import EPISODE_S, EPOCH, TICK_S
from sre_gym.orchestrator.schedule import schedule
from sre_gym.sim import dynamics, k8s_view
from sre_gym.sim import pods as P
from sre_gym.sim.cluster import WARMUP_S, SimCluster
from sre_gym.sim.faults.injector import Injector

OB = "online-boutique"


def rows_of(cl, dep: str) -> list[int]:
    d = cl.world.deployment(dep)
    return [int(r) for r in cl.pods.live() if cl.pods.dep[r] == d.index]


# ---------------------------------------------------------------------------------- warm-up


def test_constants():
    assert (TICK_S, WARMUP_S, EPISODE_S) == (15, 600, 5400)
    cl = SimCluster(OB, 0)
    assert cl.capacity == (WARMUP_S + EPISODE_S) // TICK_S + 1
    assert cl.tick == 0 and cl.now == EPOCH - TICK_S
    assert cl.time_of_tick(4) == EPOCH + 60


def test_healthy_warm_up(warm):
    cl = warm()
    k = cl.tick
    assert k == WARMUP_S // TICK_S + 1 and cl.now == EPOCH + WARMUP_S
    p = cl.pods
    live = p.live()
    assert len(live) == len(cl.world.deployments) == 14  # 11 services, load generator, 2 side jobs
    assert p.ready[live].all() and (p.state[live] == P.RUNNING).all()
    assert (p.restarts[live] == 0).all()
    assert np.all(cl.rec_err[:k] == 0) and np.all(cl.rec_own_err[:k] == 0)
    assert np.all(cl.rec_entry[:k, 1] == 0) and np.all(cl.rec_entry[:k, 2] < 1e-6)
    assert np.all(cl.rec_served[:k] > 0)
    rps = cl.rec_entry[:k, 0]
    assert rps.min() > 15 and rps.max() < 30  # 100 users, 1-10 s waits, 28/19 requests per task
    errs = cl.tsdb.families["traces_span_metrics_calls_total"]
    err_rows = [i for i, lab in enumerate(errs.rows) if ("status_code", "STATUS_CODE_ERROR") in lab]
    assert np.all(errs.data[err_rows, :k] == 0)
    assert not [e for e in cl.world.events if e.type == "Warning"]
    assert all(not d.dirty for d in cl.world.deployments)
    # utilisation stays well below saturation everywhere (the catalog calibration: 5-45 % of limit)
    use = cl.tsdb.families["container_cpu_usage_seconds_total"]
    rate = (use.data[: use.n_series, k - 1] - use.data[: use.n_series, k - 5]) / 60
    assert np.all(rate < 0.5 * 0.3)


def test_seeds_change_noise_not_structure(warm):
    a, b = warm(seed=0), warm(seed=1)
    assert [p for p in a.pods.names] != [
        p for p in b.pods.names
    ]  # pod suffixes derive from the seed
    assert not np.array_equal(a.rec_entry[:, 0], b.rec_entry[:, 0])
    assert [d.name for d in a.world.deployments] == [d.name for d in b.world.deployments]
    c = warm(seed=0)
    assert a.pods.names == c.pods.names
    np.testing.assert_array_equal(a.rec_entry, c.rec_entry)


# ---------------------------------------------------------------------------------- chunking


HORIZON = WARMUP_S + 2400


def _run(chunks: list[float] | None, read: bool) -> tuple[SimCluster, Injector]:
    cl = SimCluster(OB, 3, horizon_s=HORIZON)
    inj = Injector(cl, schedule(OB, 3), EPOCH + WARMUP_S)
    end = EPOCH + HORIZON
    ops = [
        (EPOCH + WARMUP_S + 700.5, lambda t: cl.restart("frontend", t)),
        (EPOCH + WARMUP_S + 901.0, lambda t: cl.scale("cartservice", 3, t)),
        (
            EPOCH + WARMUP_S + 1202.0,
            lambda t: cl.delete_pod(cl.pods.names[rows_of(cl, "currencyservice")[0]], t),
        ),
        (
            EPOCH + WARMUP_S + 1500.0,
            lambda t: cl.patch("productcatalogservice", "env.EXTRA_LATENCY", "300ms", t),
        ),
    ]
    times = sorted({*(t for t, _ in ops), *(chunks or []), end})
    for t in times:
        cl.advance_to(t)
        if read:
            for kind in (
                "pods",
                "deployments",
                "replicasets",
                "events",
                "nodes",
                "networkpolicies",
            ):
                k8s_view.get(cl, kind)
            for r in cl.pods.live():
                k8s_view.describe(cl, "pods", cl.pods.names[r])
        for t_op, fn in ops:
            if t_op == t:
                fn(t)
    return cl, inj


def _fingerprint(cl: SimCluster, inj: Injector) -> dict:
    fams = {
        name: (f.label_names, tuple(f.rows), f.data[: f.n_series].tobytes())
        for name, f in sorted(cl.tsdb.families.items())
    }
    recs = {k: getattr(cl, k).tobytes() for k in vars(cl) if k.startswith("rec_")}
    pods = {
        f: getattr(cl.pods, f)[: cl.pods.n].tobytes()
        for f in ("alive", "ready", "state", "restarts", "node", "rev", "mem", "cpu_total")
    }
    return {
        "tsdb": fams,
        "n_ticks": cl.tsdb.n_ticks,
        "rec": recs,
        "pods": pods,
        "names": list(cl.pods.names),
        "events": [
            (e.type, e.reason, e.kind, e.name, e.message, e.first, e.last, e.count)
            for e in cl.world.events
        ],
        "changes": [(c.sha, c.service, c.time, c.revision, c.image) for c in cl.changes],
        "probe": inj.probe.tobytes(),
        "artifact": inj.artifact.tobytes(),
        "records": repr(inj.records),
    }


@pytest.fixture(scope="module")
def one_shot():
    return _fingerprint(*_run(None, read=False))


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param([EPOCH + s for s in range(0, HORIZON, 15)], id="tick-by-tick"),
        pytest.param([EPOCH + s + 0.5 for s in range(-20, HORIZON, 7)], id="7s-off-grid"),
        pytest.param(
            sorted(EPOCH + np.random.default_rng(5).uniform(-30, HORIZON, 60)), id="random"
        ),
    ],
)
def test_chunk_sizes_give_bit_identical_data(one_shot, chunks):
    got = _fingerprint(*_run(list(chunks), read=True))
    assert got["n_ticks"] == one_shot["n_ticks"] == HORIZON // TICK_S + 1
    assert got["tsdb"].keys() == one_shot["tsdb"].keys()
    for name in got["tsdb"]:
        assert got["tsdb"][name] == one_shot["tsdb"][name], name
    for key in ("rec", "pods", "names", "events", "changes", "probe", "artifact", "records"):
        assert got[key] == one_shot[key], key


def test_advance_to_is_idempotent_and_bounded():
    cl = SimCluster(OB, 0, horizon_s=60)
    cl.advance_to(EPOCH + 29.9)
    assert cl.tick == 2
    cl.advance_to(EPOCH + 10)  # going back does nothing
    assert cl.tick == 2
    cl.advance_to(EPOCH + 10_000)
    assert cl.tick == cl.capacity == 5
    assert cl.tsdb.n_ticks == 5


def test_scheduled_actions_run_in_time_then_insertion_order_with_their_own_time(cl):
    seen = []
    t = cl.now
    cl.at(t + 20, lambda x: seen.append(("b", x)))
    cl.at(t + 3, lambda x: seen.append(("a", x)))
    cl.at(t + 20, lambda x: seen.append(("c", x)))
    cl.at(t + 31, lambda x: seen.append(("d", x)))
    cl.advance_to(t + 15)
    assert seen == [("a", t + 3)]
    cl.advance_to(t + 30)
    assert seen == [("a", t + 3), ("b", t + 20), ("c", t + 20)]
    cl.advance_to(t + 45)
    assert seen[-1] == ("d", t + 31)


def _note(log: list, x: float) -> None:
    log.append(x)


def test_a_fork_takes_over_only_the_kept_actions_and_simulates_as_a_filtered_copy(cl):
    t = cl.now
    cl.at(t + 20, functools.partial(_note, []))
    cl.at(t + 40, functools.partial(_note, []))
    before = list(cl._actions)

    def keep(a: tuple) -> bool:
        return a[0] != t + 40

    lean = cl.fork(keep)
    full = cl.fork()
    full._actions = [a for a in full._actions if keep(a)]
    assert cl._actions == before  # the real run keeps every action
    assert [a[:2] for a in lean._actions] == [a[:2] for a in full._actions]
    assert t + 20 in [a[0] for a in lean._actions] and t + 40 not in [a[0] for a in lean._actions]
    assert lean._actions[0][2] is not before[0][2]  # copied, not shared
    for f in (lean, full):
        f.advance_to(t + 300)
    arrays = [k for k, v in vars(full).items() if isinstance(v, np.ndarray)]
    assert arrays
    for k in arrays:
        assert np.array_equal(getattr(lean, k), getattr(full, k), equal_nan=True), k
    assert np.array_equal(lean.pods.ready[: lean.pods.n], full.pods.ready[: full.pods.n])


def test_a_fork_shares_the_frozen_network_policies_but_not_their_list(cl):
    """Policies are frozen, so a fork takes them over without copying; deleting one in the fork
    leaves the real run's policies as they were."""
    fork = cl.fork()
    assert cl.world.netpols
    assert all(a is b for a, b in zip(fork.world.netpols, cl.world.netpols, strict=True))
    name = fork.world.netpols[0].name
    fork.delete_networkpolicy(name, fork.now)
    assert name in [p.name for p in cl.world.netpols]
    assert name not in [p.name for p in fork.world.netpols]
    with pytest.raises(dataclasses.FrozenInstanceError):
        cl.world.netpols[0].name = "changed"  # type: ignore[misc]


def test_edge_records_keep_every_pair_that_carries_anything(monkeypatch):
    """The cluster records edges of the call graph only: every other pair of every tick's
    dynamics is exactly 0, so the matrices rebuilt from the records are the dynamics' own."""
    outs = []
    step = dynamics.step

    def spy(topo, x):
        outs.append(step(topo, x))
        return outs[-1]

    monkeypatch.setattr(dynamics, "step", spy)
    cl, inj = _run(None, read=False)  # faults, deploys, a restart, a scale, a deletion, a patch
    assert len(outs) == cl.tick and any(r["type"] == "injection" for r in inj.records)
    assert any(o.edge_kind.any() for o in outs)  # some edge failed somewhere
    for k, out in enumerate(outs):
        fail, kind, att = cl.edge_records(k)
        for got, want in ((fail, out.edge_fail), (kind, out.edge_kind), (att, out.edge_att)):
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), k
