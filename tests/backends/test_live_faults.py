"""Live fault injection (sre_gym/backends/live_faults.py) against the fake Kubernetes API: each
mechanism injects, is present, and its revert puts the cluster back exactly; faults that need
Chaos Mesh or a built image are left out; every injection is reverted on a normal end, on an
exception and on SIGTERM."""

from __future__ import annotations

import copy
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

from kubernetes import client  # noqa: E402

from sre_gym.backends.live import LiveBackend  # noqa: E402
from sre_gym.backends.live_faults import OUT_OF_SERVICE, LiveFaults  # noqa: E402
from sre_gym.catalogs import RELEASE, load_catalog  # noqa: E402
from sre_gym.orchestrator.schedule import Schedule, ScheduledFault  # noqa: E402
from sre_gym.testing.fake_cluster import FakeCluster, FakeKubernetes  # noqa: E402


def state(kube) -> dict:
    with kube.lock:
        return copy.deepcopy(
            {
                "deployments": {
                    n: (d["spec"]["template"]["spec"], d["spec"].get("replicas"))
                    for (_, n), d in kube.objects["deployments"].items()
                },
                "netpols": sorted(n for (_, n) in kube.objects["networkpolicies"]),
                "nodes": {n: o.get("spec") for (_, n), o in kube.objects["nodes"].items()},
                "configmaps": {
                    n: c.get("data") for (_, n), c in kube.objects["configmaps"].items()
                },
            }
        )


def one(app: str, fid: str, start: int = 0, end: int = 600) -> Schedule:
    return Schedule(RELEASE, app, 0, (ScheduledFault(0, fid, start, end),), (), 1800, 1200, "t")


def driver(kube, app: str, fid: str, images: str | None = None) -> LiveFaults:
    cfg = client.Configuration()
    cfg.host = kube.url
    return LiveFaults(
        one(app, fid), 1000.0, 200, api=client.ApiClient(cfg), namespace=kube.namespace,
        release=RELEASE, images=images,
    )  # fmt: skip


CASES = [
    ("online-boutique", "ob-addr-drift-frontend-cartservice", None),
    ("online-boutique", "ob-scaled-to-zero-cartservice", None),
    ("online-boutique", "ob-egress-deny-checkoutservice-paymentservice", None),
    ("online-boutique", "ob-node-down-kind-worker", None),
    ("online-boutique", "ob-config-ad-memory-limit", None),
    ("online-boutique", "ob-config-checkout-payment-addr", None),
    ("online-boutique", "ob-deploy-email-probe", None),
    ("online-boutique", "ob-deploy-shipping-image", None),
    ("online-boutique", "ob-code-shipping-panic", None),  # a crash loop: a command that exits
    ("online-boutique", "ob-code-payment-expiry", "{repo}:{change}"),  # an image built from it
    ("astronomy-shop", "as-zone-outage-zone-a", None),
    ("astronomy-shop", "as-flag-adhighcpu-on", None),
]


@pytest.mark.parametrize(("app", "fid", "images"), CASES, ids=[c[1] for c in CASES])
def test_each_mechanism_injects_is_present_and_reverts_exactly(app, fid, images):
    with FakeKubernetes(app) as kube:
        before = state(kube)
        drv = driver(kube, app, fid, images)
        assert drv.supported(drv.faults[fid])
        inj = drv.inject(0, 1000.0)
        assert drv.present(inj)
        assert state(kube) != before
        assert inj.artifacts and inj.culprits
        rec = drv.records[-1]
        assert rec["type"] == "injection" and rec["artifacts"] == inj.artifacts
        if inj.fault.delivery == "change":  # a new revision whose change-cause names the commit
            dep = kube.get("deployments", "flagd" if "flag" in fid else inj.fault.target)
            cause = dep["metadata"]["annotations"]["kubernetes.io/change-cause"]
            assert cause.startswith(f"deploy {inj.commit[:7]}: ")
            assert inj.commit in inj.artifacts
        drv.revert(0, 1600.0)
        assert not drv.present(inj)
        after = state(kube)
        assert after == before
        assert drv.records[-1] == {"type": "revert", "t": 1600.0, "index": 0, "acted": True}


def test_the_node_outage_taints_out_of_service_and_cordons():
    with FakeKubernetes("online-boutique") as kube:
        drv = driver(kube, "online-boutique", "ob-node-down-kind-worker")
        inj = drv.inject(0, 1000.0)
        spec = kube.get("nodes", "kind-worker")["spec"]
        assert spec["unschedulable"] is True and OUT_OF_SERVICE in spec["taints"]
        assert inj.detail["probe_deps"]  # the workloads it evicts are what its probe watches


def test_a_repaired_fault_is_not_reverted_over_the_repair():
    with FakeKubernetes("online-boutique") as kube:
        drv = driver(kube, "online-boutique", "ob-scaled-to-zero-cartservice")
        inj = drv.inject(0, 1000.0)
        kube.objects["deployments"][(kube.namespace, "cartservice")]["spec"]["replicas"] = 3
        drv.revert(0, 1600.0)
        assert not drv.present(inj)
        assert kube.get("deployments", "cartservice")["spec"]["replicas"] == 3
        assert drv.records[-1]["acted"] is False


def test_faults_that_need_chaos_mesh_or_an_image_are_left_out():
    with FakeKubernetes("online-boutique") as kube:
        drv = driver(kube, "online-boutique", "ob-cpu-hog-frontend")
        for fid in ("ob-cpu-hog-frontend", "ob-net-delay-cartservice", "ob-tmpfs-fill-frontend"):
            assert not drv.supported(drv.faults[fid])
        assert not drv.supported(drv.faults["ob-code-payment-expiry"])  # no image to roll out
        drv.images = "{repo}:{change}"
        assert drv.supported(drv.faults["ob-code-payment-expiry"])
    cat = load_catalog("online-boutique")
    assert sum(drv.supported(f) for f in cat.faults) >= 60


def _backend(fc: FakeCluster, fid: str, t0: float, clock) -> LiveBackend:
    return LiveBackend(
        "online-boutique", api_client=fc.api_client(), prometheus_url=fc.prom.url,
        clock=clock, sleep=lambda s: None, sched=one("online-boutique", fid, 0, 600),
    )  # fmt: skip


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        self.t += 1.0  # every read moves a second: sleeping always ends
        return self.t


def test_injections_are_reverted_at_their_end_and_on_an_exception():
    with FakeCluster("online-boutique") as fc:
        before = state(fc.kube)
        clock = Clock(1_800_000_000.0)
        b = _backend(fc, "ob-scaled-to-zero-cartservice", clock.t, clock)
        b.advance_to(b.episode_start + 30)
        assert state(fc.kube) != before  # injected
        b.advance_to(b.episode_start + 700)
        assert state(fc.kube) == before  # reverted at the window's end
        assert [e["type"] for e in b.drain_evidence() if e["type"] != "alert"][:2] == [
            "injection",
            "revert",
        ]
        b.close()
        b = _backend(fc, "ob-egress-deny-checkoutservice-paymentservice", clock.t, clock)
        b.advance_to(b.episode_start + 30)
        assert fc.kube.names("networkpolicies")

        def boom() -> None:
            raise RuntimeError("the agent's process failed")

        b.poll_alerts = boom
        with pytest.raises(RuntimeError, match="failed"):
            b.advance_to(b.episode_start + 60)
        assert state(fc.kube) == before  # reverted before the exception propagated
        b.close()


CHILD = textwrap.dedent(
    """
    import sys, time
    from kubernetes import client
    from sre_gym.backends.live import LiveBackend
    from sre_gym.catalogs import RELEASE
    from sre_gym.orchestrator.schedule import Schedule, ScheduledFault
    cfg = client.Configuration(); cfg.host = sys.argv[1]
    sched = Schedule(RELEASE, "online-boutique", 0,
                     (ScheduledFault(0, "ob-egress-deny-checkoutservice-paymentservice", 0, 600),),
                     (), 1800, 1200, "t")
    b = LiveBackend("online-boutique", api_client=client.ApiClient(cfg), prometheus_url=sys.argv[2],
                    sched=sched)
    b.advance_to(b.episode_start + 0.5)
    print("injected", flush=True)
    time.sleep(60)
    """
)


def test_sigterm_reverts_every_injection_then_the_process_dies_of_it():
    with FakeCluster("online-boutique") as fc:
        before = state(fc.kube)
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        p = subprocess.Popen(
            [sys.executable, "-c", CHILD, fc.kube.url, fc.prom.url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert p.stdout.readline().strip() == "injected", p.stderr.read()
            assert fc.kube.names("networkpolicies")
            p.send_signal(signal.SIGTERM)
            assert p.wait(timeout=30) == -signal.SIGTERM
        finally:
            if p.poll() is None:
                p.kill()
        assert state(fc.kube) == before
        deletes = [m for m in fc.kube.mutations if m["method"] == "DELETE"]
        assert [m["path"].rsplit("/", 1)[-1] for m in deletes] == [
            json.loads(json.dumps(fc.kube.mutations[0]["body"]))["metadata"]["name"]
        ]
        time.sleep(0)
