"""Deploys through the pipeline: code, config and image changes, rebuilt tags and their
defects, and refused changes (sre_gym/sim/deploys.py)."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import Change
from sre_gym.sim.diffs import make_diff
from sre_gym.sim.interventions import SimError

PAY = "src/paymentservice/charge.js"
# the expiry check of payment-expiry-check, and a hand fix of it
EXPIRY_BAD = "monthIndex(year, month) <= thisMonth + 1"
EXPIRY_FIXED = "monthIndex(year, month) < thisMonth"

# ---------------------------------------------------------------------------------- changes


def test_deploy_change_kinds(cl, changes):
    code = cl.deploy_change(
        changes["payment-expiry-check"], "0123456789abcdef" * 2 + "01234567", cl.now + 1
    )
    assert code.image.endswith("paymentservice:0123456789ab")
    assert code.pipeline["build"] == "passed" and code.revision == 2
    assert cl.world.images[code.image].defect.error_rate == 0.35
    assert cl.world.deployment("paymentservice").current.commit == code.sha
    assert cl.world.deployment("paymentservice").current.change_cause.startswith("deploy 0123456: ")
    cfg = cl.deploy_change(
        changes["catalog-extra-latency"], "e" * 40, cl.now + 1, author="z", title="tune"
    )
    tpl = cl.world.deployment("productcatalogservice").current.template
    assert (
        "EXTRA_LATENCY" in tpl.env_dict()
        and cfg.image == tpl.image
        and cfg.pipeline["build"].startswith("skipped")
    )
    assert (cfg.author, cfg.title) == ("z", "tune")
    img = cl.deploy_change(changes["shipping-image-bump"], "f" * 40, cl.now + 1)
    assert img.image.endswith("shippingservice:v0.10.7")
    assert [c.change_id for c in cl.changes] == [
        "payment-expiry-check",
        "catalog-extra-latency",
        "shipping-image-bump",
    ]


def test_a_rebuild_tag_of_the_head_keeps_its_defect(cl, changes):
    """The team's rebuilt tag (a new base image) is built from the head: a committed defect stays
    in it until it is reverted."""
    bad = cl.deploy_change(changes["payment-expiry-check"], "a" * 40, cl.now + 1)
    rebuild = cl.deploy_change(changes["payment-image-r1"], "b" * 40, cl.now + 1)
    assert rebuild.image.endswith("paymentservice:v0.10.6-r1")
    img = cl.world.images[rebuild.image]
    assert img.defect is not None and img.defect.error_rate == 0.35
    assert img.change.id == "payment-expiry-check"
    cl.deploy_change(changes["payment-expiry-check"], "c" * 40, cl.now + 1, revert_of=bad.sha)
    again = cl.deploy_change(changes["payment-image-r1"], "d" * 40, cl.now + 1)
    assert cl.world.images[again.image].defect is None


def test_unknown_service_change_is_refused(cl, state_of):
    ch = Change(id="x", service="web", kind="code", title="t", files=[], diff="")
    before = state_of(cl)
    with pytest.raises(SimError, match="deployment 'web' not found"):
        cl.deploy_change(ch, "a" * 40, cl.now + 1)
    assert state_of(cl) == before


def test_a_flag_change_updates_the_configmap_not_the_template(shop):
    ch = next(c for c in load_catalog("astronomy-shop").changes if c.id == "flag-darkmodetoggle-on")
    flagd = shop.world.deployment("flagd")
    image = flagd.current.template.image
    rec = shop.deploy_change(ch, "9" * 40, shop.now + 1)
    assert shop.flag_variants()["darkModeToggle"] == "on"
    assert rec.revision == flagd.current.number == 1 and rec.image == image
    assert rec.pipeline["rollout"] == "configmap updated"
    assert rec.pipeline["build"] == "skipped (no source change)"
    assert rec.files == ["src/flagd/demo.flagd.json"] and shop.changes == [rec]


# ---------------------------------------------------------------------------------- patches


def test_deploy_patch_rolls_out_the_built_fix(cl, changes):
    """A source patch built by the pipeline is deployed as a code change: its image (without the
    head's defect once the patch fixes it), a revision whose cause is the diff's message, and a
    record of the pipeline's stages."""
    cl.deploy_change(changes["payment-expiry-check"], "a" * 40, cl.now + 1)
    i = cl.topo.index["paymentservice"]
    cl.advance_to(cl.now + 120)
    assert cl.rec_own_err[cl.tick - 1, i] > 0.1
    text = cl.pipeline.read("paymentservice", PAY)
    diff = "charge: fix the expiry check\n\n" + make_diff(
        PAY, text, text.replace(EXPIRY_BAD, EXPIRY_FIXED)
    )
    d = cl.world.deployment("paymentservice")
    build = cl.pipeline.submit("paymentservice", d.current.template.image, diff, cl.now + 1)
    assert build.ok
    rec = cl.deploy_patch("paymentservice", build, diff, cl.now + 1, author="oncall")
    assert (rec.sha, rec.kind, rec.author, rec.title) == (
        build.sha,
        "code",
        "oncall",
        "charge: fix the expiry check",
    )
    assert rec.change_id == f"patch:{build.sha[:12]}" and rec.files == [PAY]
    assert rec.pipeline == {
        "apply": "passed",
        "lint": "passed",
        "unit-tests": "passed",
        "build": "passed",
        "rollout": "started",
    }
    assert d.current.number == rec.revision == 3 and d.current.template.image == build.image
    assert d.current.commit == build.sha
    assert d.current.change_cause == f"patch {build.sha[:7]}: charge: fix the expiry check"
    assert cl.world.images[build.image].defect is None and cl.changes[-1] is rec
    cl.advance_to(cl.now + 120)
    assert cl.rec_own_err[cl.tick - 1, i] == 0
