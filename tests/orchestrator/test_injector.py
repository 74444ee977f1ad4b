"""Injection, revert and per-tick fault evidence (sre_gym/orchestrator/injector.py)."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

from sre_gym.catalogs import RELEASE, hard_callers, load_catalog
from sre_gym.orchestrator.injector import (
    POD_FIELDS,
    PROBE_TAIL_S,
    RESTART_QUIET_S,
    Injector,
)
from sre_gym.orchestrator.schedule import Schedule, ScheduledDeploy, ScheduledFault, schedule
from sre_gym.sim import pods as P
from sre_gym.sim.cluster import TICK_S, WARMUP_S, SimCluster
from sre_gym.sim.diffs import reverse_diff
from sre_gym.sim.state import EPOCH

OB = "online-boutique"
CAT = load_catalog(OB)
FAULTS = {f.id: f for f in CAT.faults}
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
    backoff = [b for st, b, _ in at_revert if st == P.BACKOFF]
    if backoff:
        # crash-loop back-off delays recovery: the container restarts only when it expires
        startup = cl.dep_startup[cl.topo.index[f.probe.service]]
        since_exit = min(s for _, _, s in at_revert)
        wait = max(max(backoff), RESTART_QUIET_S - since_exit, 0) + startup
        assert max(backoff) <= recovered * TICK_S <= wait + 2 * TICK_S, (fid, backoff, recovered)
    else:
        assert recovered <= 2, f"{fid}: recovered {recovered} ticks after the revert"


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
    hog_cl, hog, _ = alone[first("cpu_hog")]
    pods = hog.injections[0].detail["pods"]
    assert len(pods) == 1 and {pods[0], f"pod/{pods[0]}", f"pods/{pods[0]}"} == set(
        hog.records[0]["artifacts"]
    )


def test_change_revert_is_a_revert_commit(alone):
    cl, inj, _ = alone["ob-code-payment-expiry"]
    fault_ch, revert_ch = cl.changes
    assert revert_ch.change_id == "revert:payment-expiry-check"
    assert revert_ch.title == 'Revert "charge: reject cards that expire this month"'
    assert revert_ch.author == "release-manager"
    assert revert_ch.image == cl.topo.app.service("paymentservice").image
    assert revert_ch.diff == reverse_diff(fault_ch.diff)
    assert revert_ch.revision == 3 and revert_ch.time == EP + START + DUR
    d = cl.world.deployment("paymentservice")
    assert d.current.template.image == revert_ch.image and d.current.commit == revert_ch.sha
    assert (
        d.current.change_cause
        == f'deploy {revert_ch.sha[:7]}: Revert "charge: reject cards that expire this month"'
    )


# ---------------------------------------------------------------------------------- fixed early


def _run_with_fix(fid: str, fix, at: int = START + 150):
    cl, inj = run_alone(fid)
    cl.advance_to(EP + at)
    fix(cl, inj)
    cl.advance_to(cl.time_of_tick(cl.capacity - 1))
    return cl, inj


def test_revert_does_nothing_after_a_rollback():
    cl, inj = _run_with_fix(
        "ob-code-currency-carry", lambda cl, inj: cl.rollback("currencyservice", cl.now + 1)
    )
    d = cl.world.deployment("currencyservice")
    assert [r.number for r in d.revisions] == [
        2,
        3,
    ]  # the rollback renumbered revision 1; no revert revision
    assert len(cl.changes) == 1
    assert inj.records[-1] == {"type": "revert", "t": EP + START + DUR, "index": 0, "acted": False}
    k_fix = (WARMUP_S + START + 150) // TICK_S + 1
    art = inj.artifact[0]
    assert np.all(art[K_START:k_fix] == 1) and np.all(art[k_fix:K_END] == 0)
    assert inj.probe[0, k_fix + 2 : K_END].min() == 1  # repaired before the revert


def test_revert_does_nothing_after_the_policy_is_deleted():
    cl, inj = _run_with_fix(
        first("network_partition"),
        lambda cl, inj: cl.delete_networkpolicy(inj.injections[0].detail["policy"], cl.now + 1),
    )
    assert inj.records[-1]["acted"] is False
    assert cl.world.netpols == []
    assert inj.artifact[0, K_END - 1] == 0


def test_revert_does_nothing_after_the_stressed_pod_is_replaced():
    fid = first("cpu_hog", "productcatalogservice")
    cl, inj = _run_with_fix(fid, lambda cl, inj: cl.restart(FAULTS[fid].target, cl.now + 1))
    assert inj.records[-1]["acted"] is False
    assert inj.artifact[0, K_END - 1] == 0
    assert (inj.probe[0, K_END - 10 : K_END] == 1).all()


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
    """Reverting a bad image keeps whatever config the deployment has now."""
    cl, inj = _run_with_fix(
        "ob-code-catalog-reload",
        lambda cl, inj: cl.patch("productcatalogservice", "env.LOG_LEVEL", "debug", cl.now + 1),
    )
    tpl = cl.world.deployment("productcatalogservice").current.template
    assert tpl.image == cl.topo.app.service("productcatalogservice").image
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
        if FAULTS[sf.fault_id].mechanism in POD_FIELDS:
            # a stressed pod can be replaced by another fault's rollout: gone for good then
            assert art[0] == 1 and np.all(np.diff(art) <= 0), sf
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
