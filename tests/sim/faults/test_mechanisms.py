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
