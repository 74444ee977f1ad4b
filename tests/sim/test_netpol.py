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


def _pairwise(app, names, policies):
    """The spec read literally, one (caller, callee) pair at a time: the reference for ``blocked``."""
    labels = [{"app": s} for s in names]
    ports = [int(app.service(s).port or 0) for s in names]
    out = set()
    for a in range(len(names)):
        for b in range(len(names)):
            eg = [p for p in policies if "Egress" in p.policy_types and p.selects(labels[a])]
            ig = [p for p in policies if "Ingress" in p.policy_types and p.selects(labels[b])]
            sent = not eg or any(r.admits(labels[b], ports[b]) for p in eg for r in p.egress)
            taken = not ig or any(r.admits(labels[a], ports[b]) for p in ig for r in p.ingress)
            if not (sent and taken):
                out.add((names[a], names[b]))
    return out


def test_blocked_agrees_with_the_spec_pair_by_pair_on_random_policy_sets():
    import random

    app = load_app(OB)
    names = compile_topology(OB).names
    ports = sorted({int(app.service(s).port or 0) for s in names})
    rng = random.Random(7)

    def rule():
        peers = rng.choice(
            [None, (), tuple((("app", rng.choice(names)),) for _ in range(rng.randint(1, 3)))]
        )
        nss = rng.choice([(), ((("kubernetes.io/metadata.name", "kube-system"),),)])
        prt = rng.choice([None, tuple((rng.choice(ports), "TCP") for _ in range(2))])
        return Rule(peers, nss, prt)

    for _ in range(40):
        policies = []
        for k in range(rng.randint(1, 5)):
            types = rng.choice([("Ingress",), ("Egress",), ("Ingress", "Egress")])
            sel = rng.choice([(), (("app", rng.choice(names)),)])
            policies.append(
                NetworkPolicy(
                    f"p{k}",
                    sel,
                    types,
                    tuple(rule() for _ in range(rng.randint(0, 2))) if "Ingress" in types else (),
                    tuple(rule() for _ in range(rng.randint(0, 2))) if "Egress" in types else (),
                )
            )
        assert _edges(app, names, blocked(app, names, policies)) == _pairwise(app, names, policies)
