"""Injection, revert and per-tick fault evidence (sre_gym/sim/faults/injector.py)."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

from sre_gym.catalogs import RELEASE, hard_callers, load_catalog
from sre_gym.catalogs.schema import Change
from sre_gym.clock import EPOCH, TICK_S
from sre_gym.orchestrator.schedule import Schedule, ScheduledDeploy, ScheduledFault, schedule
from sre_gym.sim import pods as P
from sre_gym.sim.cluster import WARMUP_S, SimCluster
from sre_gym.sim.diffs import make_diff, reverse_diff
from sre_gym.sim.faults.injector import (
    POD_FIELDS,
    PROBE_TAIL_S,
    RESTART_QUIET_S,
    WINDOW_TICKS,
    Injector,
)
from sre_gym.sim.source_trees import base_tree

OB = "online-boutique"
CAT = load_catalog(OB)
FAULTS = {f.id: f for f in CAT.faults}
CHANGES = {c.id: c for c in CAT.changes}
EP = EPOCH + WARMUP_S  # episode start
START, DUR = 30, 360  # fault window, seconds after the episode start
AFTER_S = 420  # simulated after the revert: long enough for the longest crash back-off (300 s)
K_START = (WARMUP_S + START) // TICK_S
K_END = (WARMUP_S + START + DUR) // TICK_S  # tick of the revert


def first(mechanism: str, target: str | None = None) -> str:
    """Id of the first catalog fault with this mechanism (and target), whatever its name."""
    return next(f.id for f in CAT.faults if f.mechanism == mechanism and target in (None, f.target))


def single(fid: str, start: int = START, dur: int = DUR, seed: int = 0, deploys=()) -> Schedule:
    return Schedule(
        RELEASE, OB, seed, (ScheduledFault(0, fid, start, start + dur),), tuple(deploys)
    )


HORIZON = WARMUP_S + START + DUR + AFTER_S


@functools.cache
def _warm() -> SimCluster:
    cl = SimCluster(OB, 0, horizon_s=HORIZON)
    cl.advance_to(EP)
    return cl


def run_alone(fid: str, **kw):
    """A copy of one healthy warmed-up cluster with an injector for this fault alone."""
    cl = copy.deepcopy(_warm())
    inj = Injector(cl, single(fid, **kw), EP)
    return cl, inj


@pytest.fixture(scope="module")
def alone():
    """Every catalog fault injected alone into a healthy run, with the target's pods at the revert."""
    out = {}
    for fid, f in FAULTS.items():
        cl, inj = run_alone(fid)
        at_revert: list = []
        if f.mechanism != "node_failure":

            def snap(t, cl=cl, f=f, at_revert=at_revert):
                p = cl.pods
                d = cl.world.deployment(f.probe.service)
                for r in p.live():
                    if p.dep[r] == d.index:
                        at_revert.append(
                            (int(p.state[r]), p.backoff_until[r] - t, t - p.last_term_at[r])
                        )

            cl.at(EP + START + DUR, snap)  # runs right after the injector's revert
        cl.advance_to(cl.time_of_tick(cl.capacity - 1))
        out[fid] = (cl, inj, at_revert)
    return out


@pytest.mark.parametrize("fid", sorted(FAULTS))
def test_probe_fails_in_the_window_and_recovers_after_the_revert(alone, fid):
    cl, inj, at_revert = alone[fid]
    f = FAULTS[fid]
    row = inj.probe[0]
    assert np.all(row[:K_START] == -1)  # nothing recorded before the injection
    window = row[K_START:K_END]
    assert (window != -1).all()
    assert (window == 0).any(), f"{fid}: symptom never showed"
    first_bad = int(np.argmax(window == 0))
    assert first_bad <= 8, f"{fid}: symptom took {first_bad} ticks to show"
    if f.mechanism == "node_failure":
        # the symptom ends on its own once the node's pods are evicted (340 s) and their
        # replacements run elsewhere (up to a Java service's startup later)
        rest = row[K_START:]
        assert (rest == 1).any(), f"{fid}: evicted pods never came back"
        healthy_from = K_START + int(np.argmax(rest == 1))
        assert (healthy_from - K_START) * TICK_S in range(345, 346 + 3 * TICK_S)
        assert (row[healthy_from:K_END] == 1).all()
    else:
        assert row[K_END - 1] == 0, f"{fid}: symptom gone before the revert"
    after = row[K_END:]
    recovered = int(np.argmax(after == 1))
    assert after[recovered] == 1
    assert (after[recovered:] == 1).all(), f"{fid}: relapsed"
    # a revert that rolls out new pods waits for them (a pull, the boot, the readiness probe);
    # then the probe's one-minute window, read one scrape late, has to clear
    i = cl.topo.index.get(f.probe.service)
    # a rolling update replaces the pods one at a time (an autoscaler may have added some)
    come_up = 0.0 if i is None else (_come_up_s(cl, i) + TICK_S) * max(1, len(at_revert))
    window = (WINDOW_TICKS + 2) * TICK_S
    backoff = [b for st, b, _ in at_revert if st == P.BACKOFF]
    if backoff:
        # crash-loop back-off delays recovery: the container restarts only when it expires
        since_exit = min(s for _, _, s in at_revert)
        wait = max(max(backoff), RESTART_QUIET_S - since_exit, 0) + come_up
        assert max(backoff) <= recovered * TICK_S <= wait + window, (fid, backoff, recovered)
    else:
        assert recovered * TICK_S <= come_up + window, f"{fid}: recovered {recovered} ticks late"


def _come_up_s(cl, i: int) -> float:
    """The longest a new pod of deployment ``i`` takes from creation to ready (a full pull)."""
    app = cl.topo.app
    run = app.startup_of(cl.world.deployments[i].name)
    start = P.SCHEDULE_S + app.pull.overhead_s + run.image_mb / app.pull.mb_s + P.CREATE_S
    ready = P.ready_at(
        np.array([start]),
        cl.dep_boot[[i]],
        cl.dep_probed[[i]],
        cl.dep_probe_delay[[i]],
        cl.dep_probe_period[[i]],
    )
    return float(ready[0]) + run.boot_s * (not cl.dep_probed[i])


def test_probe_is_recorded_for_a_tail_after_the_revert():
    fid = "ob-code-payment-expiry"
    cl = SimCluster(OB, 0, horizon_s=WARMUP_S + START + DUR + PROBE_TAIL_S + 120)
    inj = Injector(cl, single(fid), EP)
    cl.advance_to(cl.time_of_tick(cl.capacity - 1))
    row = inj.probe[0]
    tail_end = (WARMUP_S + START + DUR + PROBE_TAIL_S) // TICK_S
    assert (row[K_START : tail_end + 1] != -1).all()
    assert (row[tail_end + 1 :] == -1).all() and len(row[tail_end + 1 :]) == 120 // TICK_S


def test_backoff_delays_recovery_for_some_fault(alone):
    delayed = {fid for fid, (_, _, at) in alone.items() if any(st == P.BACKOFF for st, _, _ in at)}
    balloons = {f.id for f in CAT.faults if f.mechanism in ("mem_balloon", "dependency_oom")}
    assert delayed & balloons


@pytest.mark.parametrize("fid", sorted(FAULTS))
def test_artifact_present_for_the_whole_window_without_a_fix(alone, fid):
    _, inj, _ = alone[fid]
    art = inj.artifact[0]
    assert np.all(art[:K_START] == -1)
    assert np.all(art[K_START:K_END] == 1)
    assert np.all(art[K_END:] == -1)


@pytest.mark.parametrize("fid", sorted(FAULTS))
def test_records_of_an_unfixed_fault(alone, fid):
    cl, inj, _ = alone[fid]
    f = FAULTS[fid]
    inj_rec, rev_rec = inj.records
    assert inj_rec["type"] == "injection" and inj_rec["t"] == EP + START
    assert (inj_rec["start"], inj_rec["end"]) == (EP + START, EP + START + DUR)
    assert inj_rec["fault_id"] == fid and inj_rec["index"] == 0
    assert inj_rec["culprits"] == f.culprits
    assert inj_rec["artifacts"] and all(a == a.strip().lower() for a in inj_rec["artifacts"])
    assert len(set(inj_rec["artifacts"])) == len(inj_rec["artifacts"])
    assert inj_rec["probe"] == f.probe.model_dump()
    if f.mechanism == "node_failure":
        assert f.target in inj_rec["artifacts"]
        assert inj_rec["probe_services"]
        assert inj_rec["affected"] == sorted(
            {s for d in inj_rec["probe_services"] for s in hard_callers(CAT.app, d)}
        )
    else:
        assert inj_rec["affected"] == f.affected
    if f.delivery == "change":
        sha = inj_rec["commit"]
        assert len(sha) == 40 and sha in inj_rec["artifacts"]
        rev = cl.changes[0].revision
        assert (
            f"{f.target}@{rev}" in inj_rec["artifacts"]
            and f"deployment/{f.target}@{rev}" in inj_rec["artifacts"]
        )
    else:
        assert inj_rec["commit"] is None
    assert rev_rec == {"type": "revert", "t": EP + START + DUR, "index": 0, "acted": True}
    assert inj.injections[0].reverted


def test_change_fault_aliases(alone):
    cl, inj, _ = alone["ob-code-payment-expiry"]
    rec = inj.records[0]
    ch = cl.changes[0]
    tag = ch.image.rsplit("/", 1)[-1]
    assert tag == f"paymentservice:{rec['commit'][:12]}"
    assert {
        ch.image.lower(),
        tag,
        rec["commit"],
        "paymentservice@2",
        "paymentservice@revision-2",
    } <= set(rec["artifacts"])
    cfg = alone["ob-config-catalog-latency"][1].records[0]["artifacts"]
    assert {"env.extra_latency", "productcatalogservice/env.extra_latency", "extra_latency"} <= set(
        cfg
    )
    mem = alone["ob-config-ad-memory-limit"][1].records[0]["artifacts"]
    assert "resources.limits.memory" in mem and "adservice/resources.limits.memory" in mem
    probe = alone["ob-deploy-email-probe"][1].records[0]["artifacts"]
    assert "readinessprobe.port" in probe
    img = alone["ob-deploy-shipping-image"][1].records[0]["artifacts"]
    assert "v0.10.7" in img and "shippingservice:v0.10.7" in img
    pol_inj = alone[first("network_partition")][1]
    name = pol_inj.injections[0].detail["policy"]
    assert set(pol_inj.records[0]["artifacts"]) == {
        name,
        f"networkpolicy/{name}",
        f"networkpolicies/{name}",
        f"netpol/{name}",
    }
    hog_cl, hog, _ = alone[first("cpu_hog")]  # chaos by selector: the deployment and its pods
    pods = hog.injections[0].detail["pods"]
    target = FAULTS[first("cpu_hog")].target
    assert len(pods) == 1 and {
        f"deployment/{target}",
        f"deployments/{target}",
        pods[0],
        f"pod/{pods[0]}",
    } == set(hog.records[0]["artifacts"])
    pod_inj = alone[first("network_delay")][1]
    pods = pod_inj.injections[0].detail["pods"]
    assert {pods[0], f"pod/{pods[0]}", f"pods/{pods[0]}"} == set(pod_inj.records[0]["artifacts"])


def test_change_revert_is_a_revert_commit(alone):
    cl, inj, _ = alone["ob-code-payment-expiry"]
    fault_ch, revert_ch = cl.changes
    # a revert commit on the head, built and deployed like any commit: a new image without the defect
    assert revert_ch.change_id == CHANGES["payment-expiry-check"].id
    assert revert_ch.title == f'Revert "{fault_ch.title}"'
    team = CAT.team("paymentservice")
    assert revert_ch.author in team.members and fault_ch.author in team.members
    assert revert_ch.image.endswith(":" + revert_ch.sha[:12])
    assert cl.world.images[revert_ch.image].defect is None
    assert revert_ch.diff == reverse_diff(fault_ch.diff)
    assert revert_ch.revision == 3 and revert_ch.time == EP + START + DUR
    d = cl.world.deployment("paymentservice")
    assert d.current.template.image == revert_ch.image and d.current.commit == revert_ch.sha
    assert d.current.change_cause == f"deploy {revert_ch.sha[:7]}: {revert_ch.title}"
    assert cl.pipeline.head("paymentservice") == base_tree(OB, "paymentservice")


# ---------------------------------------------------------------------------------- fixed early


def _run_with_fix(fid: str, fix, at: int = START + 150):
    cl, inj = run_alone(fid)
    cl.advance_to(EP + at)
    fix(cl, inj)
    cl.advance_to(cl.time_of_tick(cl.capacity - 1))
    return cl, inj


def test_after_a_rollback_the_revert_still_takes_the_defect_out_of_the_head():
    """The rollback repaired the running workload (no artifact from then on), but the defect is
    still committed: the orchestrator's revert commits and deploys the revert anyway, or the next
    build would bring it back."""
    cl, inj = _run_with_fix(
        "ob-code-currency-carry", lambda cl, inj: cl.rollback("currencyservice", cl.now + 1)
    )
    assert len(cl.changes) == 2 and cl.changes[1].title.startswith("Revert ")
    assert inj.records[-1] == {"type": "revert", "t": EP + START + DUR, "index": 0, "acted": False}
    assert cl.pipeline.defect("currencyservice") == (None, None)
    k_fix = (WARMUP_S + START + 150) // TICK_S + 1
    art = inj.artifact[0]
    assert np.all(art[K_START:k_fix] == 1) and np.all(art[k_fix:K_END] == 0)
    assert inj.probe[0, k_fix + WINDOW_TICKS + 2 : K_END].min() == 1  # repaired before the revert


def test_revert_does_nothing_after_the_policy_is_deleted():
    cl, inj = _run_with_fix(
        first("network_partition"),
        lambda cl, inj: cl.delete_networkpolicy(inj.injections[0].detail["policy"], cl.now + 1),
    )
    assert inj.records[-1]["acted"] is False
    assert {p.name for p in cl.world.netpols} == {
        p.name for p in _warm().world.netpols
    }  # only the namespace's own policies are left
    assert inj.artifact[0, K_END - 1] == 0


def test_a_restart_does_not_shake_off_selector_chaos():
    fid = first("cpu_hog", "productcatalogservice")
    cl, inj = _run_with_fix(fid, lambda cl, inj: cl.restart(FAULTS[fid].target, cl.now + 1))
    assert inj.artifact[0, K_END - 1] == 1  # re-attached to the new pods
    assert (inj.probe[0, K_END - 4 : K_END] == 0).all()
    assert inj.records[-1]["acted"] is True


def test_deleting_the_stressed_pod_removes_the_artifact():
    def fix(cl, inj):
        cl.delete_pod(inj.injections[0].detail["pods"][0], cl.now + 1)

    cl, inj = _run_with_fix(first("network_delay"), fix)
    assert inj.records[-1]["acted"] is False
    assert not inj.present(inj.injections[0])


def test_revert_does_nothing_when_the_node_came_back():
    fid = first("node_failure")
    cl, inj = _run_with_fix(
        fid, lambda cl, inj: cl.set_node_ready(FAULTS[fid].target, True, cl.now + 1)
    )
    assert inj.records[-1]["acted"] is False
    assert inj.artifact[0, K_END - 1] == 0


def test_config_revert_restores_only_the_changed_key():
    """An unrelated patch made during the fault survives the orchestrator's revert."""
    cl, inj = _run_with_fix(
        "ob-config-catalog-latency",
        lambda cl, inj: cl.patch(
            "productcatalogservice", "resources.limits.cpu", "300m", cl.now + 1
        ),
    )
    assert inj.records[-1]["acted"] is True
    tpl = cl.world.deployment("productcatalogservice").current.template
    assert "EXTRA_LATENCY" not in tpl.env_dict()
    assert tpl.cpu_limit == "300m"
    assert inj.artifact[0, K_END - 1] == 1  # the patch did not touch the artifact


def test_patching_the_bad_setting_fixes_the_artifact():
    cl, inj = _run_with_fix(
        "ob-config-checkout-payment-addr",
        lambda cl, inj: cl.patch(
            "checkoutservice", "env.PAYMENT_SERVICE_ADDR", "paymentservice:50051", cl.now + 1
        ),
    )
    assert inj.records[-1]["acted"] is False
    assert inj.artifact[0, K_END - 1] == 0
    assert inj.probe[0, K_END - 1] == 1


def test_code_revert_keeps_a_later_config_change():
    """Reverting a bad commit keeps whatever config the deployment has now."""
    cl, inj = _run_with_fix(
        "ob-code-catalog-reload",
        lambda cl, inj: cl.patch("productcatalogservice", "env.LOG_LEVEL", "debug", cl.now + 1),
    )
    tpl = cl.world.deployment("productcatalogservice").current.template
    assert cl.world.images[tpl.image].defect is None and cl.changes[-1].title.startswith("Revert ")
    assert tpl.env_dict()["LOG_LEVEL"] == "debug"


# ---------------------------------------------------------------------------------- whole schedule


def test_full_schedule_evidence():
    s = schedule(OB, 2)
    cl = SimCluster(OB, 2)
    inj = Injector(cl, s, EP)
    cl.advance_to(EP + 5400)
    kinds = [r["type"] for r in inj.records]
    assert kinds.count("injection") == kinds.count("revert") == len(s.faults)
    assert kinds.count("deploy") == len(s.deploys)
    ts = [r["t"] for r in inj.records]
    assert ts == sorted(ts)
    for sf in s.faults:
        rec = next(r for r in inj.records if r["type"] == "injection" and r["index"] == sf.index)
        assert (
            rec["start"] == EP + sf.start
            and rec["end"] == EP + sf.end
            and rec["fault_id"] == sf.fault_id
        )
        ks, ke = (WARMUP_S + sf.start) // TICK_S, (WARMUP_S + sf.end) // TICK_S
        art = inj.artifact[sf.index, ks:ke]
        f = FAULTS[sf.fault_id]
        if f.mechanism in POD_FIELDS and f.params.get("attach") != "selector":
            # a stressed pod can be replaced by another fault's rollout: gone for good then
            assert art[0] == 1 and np.all(np.diff(art) <= 0), sf
        elif f.delivery == "change" and CHANGES[f.change].kind == "code":
            # the image with the defect is in the workload until a benign deploy's build (from the
            # head: the defect too) takes over; it never leaves for good before the revert
            assert art[0] == 1 and art[-1] == 1, sf
        else:
            assert np.all(art == 1), sf  # nobody fixes anything
        assert np.all(inj.probe[sf.index, ks:ke] >= 0)
    deploys = [r for r in inj.records if r["type"] == "deploy"]
    for d, sd in zip(deploys, s.deploys, strict=True):
        assert d["t"] == EP + sd.time
        assert d["sha"] in {c.sha for c in cl.changes}
    assert inj.probe.shape == (len(s.faults), cl.capacity)
    # most faults show their symptom while nobody acts
    shown = sum(bool((inj.probe[sf.index] == 0).any()) for sf in s.faults)
    assert shown >= 0.9 * len(s.faults)


def test_ordinary_deploy_goes_through_the_pipeline():
    benign = next(c for c in CAT.changes if c.id not in {f.change for f in CAT.faults})
    s = Schedule(RELEASE, OB, 0, (), (ScheduledDeploy(benign.id, 60),))
    cl = SimCluster(OB, 0, horizon_s=WARMUP_S + 300)
    inj = Injector(cl, s, EP)
    cl.advance_to(EP + 300)
    assert [r["type"] for r in inj.records] == ["deploy"]
    rec = inj.records[0]
    assert rec["t"] == EP + 60 and rec["service"] == benign.service and rec["revision"] == 2
    assert cl.changes[0].change_id == benign.id and cl.changes[0].sha == rec["sha"]
    assert inj.probe.shape == (0, cl.capacity)


# ------------------------------------------------------------------ real-cluster timing
def _recovery(app_cl, inj, t_fix: float) -> tuple[float, float]:
    """(when the target's first new pod became ready, when the probe was healthy again) after a
    remedy at ``t_fix``."""
    p = app_cl.pods
    f = inj.injections[0].fault
    d = app_cl.world.deployment(f.target)
    new = [int(r) for r in range(p.n) if p.dep[r] == d.index and p.created[r] >= t_fix]
    k_fix = int((t_fix - app_cl.t0) // TICK_S) + 1
    ok = np.nonzero(inj.probe[0, k_fix:] == 1)[0]
    return min(p.created[r] for r in new), app_cl.time_of_tick(k_fix + int(ok[0]))


def test_a_rollback_recovers_after_the_catalogs_rollout_time_and_the_slo_window():
    """A rolled-back pod comes up as the catalog says (scheduling, no pull for the cached image,
    container creation, boot, the first readiness probe run after it), then the probe, reading a
    one-minute window one scrape late, needs most of a minute more."""
    cl, inj = run_alone("ob-code-currency-carry")
    cl.advance_to(EP + START + 150)
    t_fix = cl.now + 1
    cl.rollback("currencyservice", t_fix)
    cl.advance_to(EP + START + DUR - 15)
    app = cl.topo.app
    run = app.startup_of("currencyservice")
    probe = app.service("currencyservice").readiness
    p = cl.pods
    d = cl.world.deployment("currencyservice")
    row = max((int(r) for r in range(p.n) if p.dep[r] == d.index), key=lambda r: p.created[r])
    assert p.pulled_s[row] == 0.0  # the rolled-back image is still on the node
    started = p.created[row] + P.SCHEDULE_S + P.CREATE_S
    assert p.started[row] == started
    want_ready = P.ready_at(
        np.array([started]),
        np.array([run.boot_s]),
        np.array([True]),
        np.array([float(probe.initial_delay_s)]),
        np.array([float(probe.period_s)]),
    )[0]
    _, healthy = _recovery(cl, inj, t_fix)
    assert healthy - t_fix >= 45  # the rate window, not the pod, sets the pace
    assert healthy >= want_ready
    assert inj.probe[0, int((want_ready - cl.t0) // TICK_S)] == 0  # ready is not yet healthy


def test_a_new_image_is_pulled_and_a_jvm_without_a_probe_refuses_until_it_booted():
    """Train Ticket's 2021 manifests set no readiness probe: a new pod takes traffic as soon as its
    container starts and refuses it until Spring Boot has booted (the catalog's boot_s); a node
    that has not run the image pulls it first (the catalog's size and throughput)."""
    tt = SimCluster("train-ticket", 0, horizon_s=WARMUP_S + 900)
    tt.advance_to(EP)
    tt.hpas = []  # the autoscaler would add pods of its own to the picture
    svc = "ts-travel-service"
    i, d = tt.topo.index[svc], tt.world.deployment(svc)
    tt.restart(svc, EP + 1)
    p = tt.pods
    row = max((int(r) for r in range(p.n) if p.dep[r] == d.index), key=lambda r: p.created[r])
    app = tt.topo.app
    run, pull = app.startup_of(svc), app.pull
    image = d.current.template.image
    assert p.pulled_s[row] in (0.0, pytest.approx(pull.overhead_s + run.image_mb / pull.mb_s))
    assert p.start_at[row] == pytest.approx(EP + 1 + P.SCHEDULE_S + p.pulled_s[row] + P.CREATE_S)
    assert image in tt.node_images[int(p.node[row])]
    seen = []
    while tt.now < EP + 200:
        tt.advance_to(tt.now + 15)
        if p.ready[row]:
            booted = tt.now >= p.started[row] + run.boot_s
            seen.append((booted, float(tt.rec_own_err[tt.tick - 1, i])))
    assert [e > 0.99 for b, e in seen if not b] and all(e > 0.99 for b, e in seen if not b)
    assert [e for b, e in seen if b] and all(e < 0.01 for b, e in seen[-3:] if b)


def test_a_benign_build_on_a_defective_head_brings_the_defect_back_after_a_rollback():
    """Images are built from the head: rolling back relieves, the next deploy of the service
    carries the defect again, and only a revert (or a fixing patch) takes it out."""
    cl, inj = run_alone("ob-code-currency-carry")
    cl.advance_to(EP + START + 90)
    cl.rollback("currencyservice", cl.now + 1)
    cl.advance_to(cl.now + 30)
    assert not inj.present(inj.injections[0])
    # an ordinary deploy of currencyservice (a benign change that merges with the fault's)
    base = cl.pipeline.head("currencyservice")
    path = "src/currencyservice/server.js"
    diff = make_diff(path, base[path], base[path] + "// currency rates refreshed nightly\n")
    benign = Change(
        id="note",
        service="currencyservice",
        kind="code",
        title="note the refresh",
        files=[path],
        diff=diff,
    )
    cl.deploy_change(benign, "7" * 40, cl.now + 1)
    cl.advance_to(cl.now + 15)
    assert inj.present(inj.injections[0])  # the new build carries the defect again
    sha = inj.injections[0].commit
    cl.deploy_change(
        CHANGES[FAULTS["ob-code-currency-carry"].change], "8" * 40, cl.now + 1, revert_of=sha
    )
    cl.advance_to(cl.now + 15)
    assert not inj.present(inj.injections[0])
    assert "currency rates refreshed nightly" in cl.pipeline.head("currencyservice")[path]


def test_selector_chaos_follows_the_pods_until_more_headroom_neutralises_it():
    fid = first("cpu_hog", "productcatalogservice")
    assert FAULTS[fid].params["attach"] == "selector"
    cl, inj = run_alone(fid)
    cl.advance_to(EP + START + 60)
    cl.restart("productcatalogservice", cl.now + 1)
    cl.advance_to(cl.now + 60)
    d = cl.world.deployment("productcatalogservice")
    p = cl.pods
    new = [int(r) for r in p.live() if p.dep[r] == d.index]
    assert new and all(p.hog[r] > 0 for r in new)  # re-attached to the replacements
    assert inj.present(inj.injections[0])
    cl.patch("productcatalogservice", "resources.limits.cpu", "1", cl.now + 1)
    cl.advance_to(cl.now + 120)
    assert not inj.present(inj.injections[0])
    cl.advance_to(EP + START + DUR + 30)  # the orchestrator detaches it at its revert
    assert all(p.hog[r] == 0 for r in p.live() if p.dep[r] == d.index)


def test_a_restarted_jvm_recovers_only_once_its_new_pods_answer():
    """A heap-fill fault on Train Ticket is repaired by a restart, but the new pods take traffic
    before Spring Boot listens (no readiness probe) and refuse it: the probe stays unhealthy until
    they have booted, and the repair is credited from then, not from the restart."""
    app = "train-ticket"
    svc = "ts-travel-service"
    fid = f"tt-heap-fill-{svc}"
    sched = Schedule(RELEASE, app, 0, (ScheduledFault(0, fid, START, START + 900),), ())
    tt = SimCluster(app, 0, horizon_s=WARMUP_S + START + 1200)
    tt.advance_to(EP)
    tt.hpas = []  # the autoscaler would add pods of its own to the picture
    inj = Injector(tt, sched, EP)
    tt.advance_to(EP + START + 240)
    t_fix = tt.now + 1
    tt.restart(svc, t_fix)
    tt.advance_to(EP + START + 600)
    p, d = tt.pods, tt.world.deployment(svc)
    new = [int(r) for r in range(p.n) if p.dep[r] == d.index and p.created[r] >= t_fix]
    booted = max(p.started[r] for r in new) + tt.topo.app.startup_of(svc).boot_s
    k_fix = int((t_fix - tt.t0) // TICK_S) + 1
    ok = np.nonzero(inj.probe[0, k_fix:] == 1)[0]
    assert len(ok), "the restart repairs the fault"
    healthy = tt.time_of_tick(k_fix + int(ok[0]))
    assert healthy >= booted
    assert inj.probe[0, int((booted - tt.t0) // TICK_S) - 1] == 0  # ready but refusing
