"""The simulator's mechanism table (sre_gym/sim/faults/mechanisms.py). Each mechanism's inject,
presence and revert are exercised through the injector in test_injector.py."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import APPS, load_catalog
from sre_gym.sim.faults import mechanisms as M


@pytest.mark.parametrize("app", APPS)
def test_every_catalog_fault_has_one_mechanism_class(app):
    for f in load_catalog(app, include_quarantined=True).faults:
        m = M.mechanism_of(f)
        if f.delivery == "change":
            assert m is M.CHANGE
        elif f.params.get("attach") == "selector":
            assert isinstance(m, M.SelectorChaos) and m.field == M.POD_FIELDS[f.mechanism]
        else:
            assert m is M.MECHANISMS[f.mechanism]
        for name in ("inject", "present", "revert", "always_revert"):
            assert callable(getattr(m, name))


def test_zone_aliases_name_the_zone_its_nodes_and_the_label():
    a = M.node_aliases("zone", "zone-a", ["n1", "n2"])
    assert a[:3] == ["zone-a", "zone/zone-a", "zones/zone-a"]
    assert "node/n2" in a and a[-1] == "topology.kubernetes.io/zone=zone-a"
    assert M.node_aliases("node", "n1", ["n1"]) == ["n1", "node/n1", "nodes/n1"]


def test_a_change_drawn_again_after_a_rollback_is_reverted_without_error():
    """A rollback puts the template back but leaves git as it was, so the same config change drawn
    again commits nothing new; its revert must still restore the settings, not fail on the empty
    diff (seen as a crash on Online Boutique seed 7 of the held-out split's train part)."""
    from sre_gym.agents.oracle import OracleAgent
    from sre_gym.envs.marathon import SREMarathonEnv

    fault = "ob-config-redis-cpu-rightsize"

    class FirstOnly(OracleAgent):  # repairs the first injection only
        def _remedy(self, inj, iid):
            return super()._remedy(inj, iid) if inj.index == 0 else []

    env = SREMarathonEnv(schedule="single", counterfactual=False)
    agent = FirstOnly(env)
    faults = [
        {"fault": fault, "start": 60, "end": 480},
        {"fault": fault, "start": 720, "end": 1080},
    ]
    obs, info = env.reset(seed=0, options={"faults": faults})
    b = env.backend
    before = b.cluster.world.deployment("redis-cart").current.template.cpu_limit
    while env.invocation < env.n_invocations:
        obs, _, _, _, info = env.step(agent(obs, info))
    second = b.ground_truth()["injections"][1]
    assert second.detail["record"].diff == ""  # git already held the change
    reverts = [e for e in env.evidence.of("revert") if e["index"] == 1]
    assert reverts and reverts[0]["acted"]  # the orchestrator reverted it...
    assert b.cluster.world.deployment("redis-cart").current.template.cpu_limit == before  # ...fully
