"""Source trees (sre_gym/sim/source_trees.py): unit-test predicates, fix predicates, manifests."""

from __future__ import annotations

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import FixPredicate
from sre_gym.sim.diffs import apply_diff
from sre_gym.sim.source_trees import (
    base_tree,
    fix_holds,
    manifest_settings,
    run_unit_tests,
    service_meta,
)

OB = "online-boutique"
PAY = "src/paymentservice/charge.js"
OB_CHANGES = {c.id: c for c in load_catalog(OB).changes}


def edit(tree: dict, path: str, old: str, new: str) -> dict:
    out = dict(tree)
    assert out[path].count(old) == 1, old
    out[path] = out[path].replace(old, new)
    return out


def test_unit_test_predicates():
    meta = service_meta(OB, "paymentservice")
    tree = base_tree(OB, "paymentservice")
    assert run_unit_tests(meta, tree) == []
    broken = edit(tree, PAY, "Only VISA or MasterCard is accepted", "Only VISA is accepted")
    assert run_unit_tests(meta, broken) == [
        "FAIL charge rejects AMEX cards: src/paymentservice/charge.js no longer matches /Only VISA or MasterCard is accepted/"
    ]
    gone = {k: v for k, v in tree.items() if k != PAY}
    assert all("is missing" in f for f in run_unit_tests(meta, gone))


def test_fix_predicate_revert_defect_and_hand_fix():
    ch = OB_CHANGES["payment-expiry-check"]
    base = base_tree(OB, "paymentservice")
    defective, _ = apply_diff(base, ch.diff, strict=True)
    assert fix_holds(ch.fix, base)
    assert not fix_holds(ch.fix, defective)
    reverted, _ = apply_diff(defective, ch.diff, reverse=True)
    assert reverted == base and fix_holds(ch.fix, reverted)
    hand = edit(
        defective,
        PAY,
        "monthIndex(year, month) <= thisMonth + 1",
        "monthIndex(year, month) < thisMonth",
    )
    assert hand != base and fix_holds(ch.fix, hand)  # an equivalent edit, not byte-identical


def test_fix_predicate_of_a_created_file_holds_once_it_is_deleted():
    fix = FixPredicate(file="cfg/Pool.java", must_not_match=[r"maxSize\(1\)"])
    assert fix_holds(fix, {})
    assert not fix_holds(fix, {"cfg/Pool.java": "maxSize(1)\n"})
    assert fix_holds(fix, {"cfg/Pool.java": "maxSize(50)\n"})
    assert not fix_holds(FixPredicate(file="x", must_match=["a"]), {})


def test_manifest_settings():
    s = manifest_settings(base_tree(OB, "checkoutservice"), "checkoutservice")
    assert s["image"].endswith("/checkoutservice:v0.10.6")
    assert s["env"]["PAYMENT_SERVICE_ADDR"] == "paymentservice:50051"
    assert (s["cpu_limit"], s["mem_limit"], s["readiness_port"]) == ("200m", "128Mi", 5050)
    assert manifest_settings({}, "nothing") == {}
