"""Chaos Mesh experiments (sre_gym/backends/live_chaos.py) against the fake API serving its CRDs:
each is created on the target's pods with the catalog's magnitude and deleted on revert, a stuck
one losing its finalizer."""

from __future__ import annotations

import pytest

pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")

from sre_gym.backends.live_chaos import CHAOS, ChaosExperiment  # noqa: E402
from sre_gym.testing.fake_cluster import FakeKubernetes  # noqa: E402

from .test_live_faults import driver, state  # noqa: E402


def test_the_table_covers_the_mechanisms_plain_objects_cannot_cause():
    assert set(CHAOS) == {"cpu_hog", "mem_balloon", "network_delay"}
    assert all(isinstance(m, ChaosExperiment) for m in CHAOS.values())


CHAOS_CASES = [
    ("ob-cpu-hog-frontend", "stresschaos", "cpu"),
    ("ob-tmpfs-fill-frontend", "stresschaos", "memory"),
    ("ob-net-delay-cartservice", "networkchaos", "delay"),
]


@pytest.mark.parametrize(("fid", "plural", "what"), CHAOS_CASES, ids=[c[0] for c in CHAOS_CASES])
def test_chaos_mesh_experiments_are_used_when_its_crds_are_present(fid, plural, what):
    with FakeKubernetes("online-boutique", chaos_mesh=True) as kube:
        before = state(kube)
        drv = driver(kube, "online-boutique", fid)
        assert drv.chaos_mesh and drv.supported(drv.faults[fid])
        inj = drv.inject(0, 1000.0)
        (name,) = kube.names(plural)
        spec = kube.get(plural, name)["spec"]
        assert spec["selector"]["labelSelectors"] == {"app": inj.fault.target}
        key = {"cpu": "stressors", "memory": "stressors", "delay": "delay"}[what]
        assert key in spec and (what == "delay" or what in spec["stressors"])
        assert drv.present(inj) and f"deployment/{inj.fault.target}" in inj.artifacts
        drv.revert(0, 1600.0)
        assert kube.names(plural) == [] and not drv.present(inj)
        assert state(kube) == before


def test_a_stuck_chaos_experiment_loses_its_finalizer():
    with FakeKubernetes("online-boutique", chaos_mesh=True) as kube:
        drv = driver(kube, "online-boutique", "ob-net-delay-cartservice")
        drv.inject(0, 1000.0)
        kube.refuse("DELETE", "/networkchaos/", 409, "Conflict", "being deleted")
        with pytest.raises(Exception, match="409"):
            drv.revert(0, 1600.0)
        # a controller that never finishes: the delete is answered, the object stays
        drv.injections[0].reverted = False
        kube.refuse("DELETE", "/networkchaos/", 200, "Success", "")  # (answered, not deleted)
        drv.revert(0, 1700.0)
        assert [m["body"] for m in kube.mutations if m["method"] == "PATCH"][-1] == {
            "metadata": {"finalizers": []}
        }
