"""NetworkPolicy semantics (sre_gym/sim/netpol.py): the standard spec, evaluated per call edge."""

from __future__ import annotations

from sre_gym.catalogs import load_app
from sre_gym.sim.netpol import NetworkPolicy, Rule, baseline, blocked, egress_allowlist
from sre_gym.sim.topology import compile_topology

OB = "online-boutique"


def _edges(app, names, b):
    return {(names[i], names[j]) for i in range(len(names)) for j in range(len(names)) if b[i, j]}


def test_the_namespace_policies_let_every_call_of_the_app_through():
    for name in ("online-boutique", "train-ticket", "astronomy-shop"):
        app = load_app(name)
        topo = compile_topology(name)
        b = blocked(app, topo.names, baseline(app, 0.0))
        assert not (b & (topo.calls > 0)).any(), name
        # ... but nothing else: default deny holds for pairs that never call each other
        assert b.any()


def test_ingress_isolation_takes_the_union_of_the_selecting_policies():
    app = load_app(OB)
    names = compile_topology(OB).names
    deny = NetworkPolicy("deny", (), ("Ingress",))
    assert ("checkoutservice", "paymentservice") in _edges(app, names, blocked(app, names, [deny]))
    allow = NetworkPolicy(
        "allow",
        (("app", "paymentservice"),),
        ("Ingress",),
        (Rule(((("app", "checkoutservice"),),), (), ((50051, "TCP"),)),),
    )
    b = _edges(app, names, blocked(app, names, [deny, allow]))
    assert ("checkoutservice", "paymentservice") not in b
    # a rule on another port admits nothing on this one
    wrong = NetworkPolicy(
        "allow",
        (("app", "paymentservice"),),
        ("Ingress",),
        (Rule(((("app", "checkoutservice"),),), (), ((8080, "TCP"),)),),
    )
    assert ("checkoutservice", "paymentservice") in _edges(app, names, blocked(app, names, [wrong]))


def test_an_egress_allowlist_drops_only_what_it_leaves_out():
    app = load_app(OB)
    names = compile_topology(OB).names
    pol = egress_allowlist(app, "lock", "checkoutservice", "paymentservice", 0.0)
    b = _edges(app, names, blocked(app, names, [*baseline(app, 0.0), pol]))
    out = {(a, c) for a, c in b if a == "checkoutservice"}
    callees = {e.callee for e in app.edges if e.caller == "checkoutservice"}
    assert ("checkoutservice", "paymentservice") in out
    assert not out & {("checkoutservice", c) for c in callees - {"paymentservice"}}
