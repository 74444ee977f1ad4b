"""The build pipeline (sre_gym/sim/pipeline.py): source reads, deploy/revert bookkeeping, builds."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import Change, Defect
from sre_gym.sim.diffs import apply_diff, make_diff
from sre_gym.sim.pipeline import Pipeline
from sre_gym.sim.source_trees import PipelineError, base_tree

OB = "online-boutique"
PAY = "src/paymentservice/charge.js"
# the expiry check of payment-expiry-check, and a hand fix of it
EXPIRY_BAD = "monthIndex(year, month) <= thisMonth + 1"
EXPIRY_FIXED = "monthIndex(year, month) < thisMonth"
OB_CHANGES = {c.id: c for c in load_catalog(OB).changes}


@pytest.fixture
def pipe() -> Pipeline:
    return Pipeline(OB, "r-test", 7)


BASE_IMG = "us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/paymentservice:v0.10.6"


def test_files_and_read(pipe):
    assert PAY in pipe.files("paymentservice", BASE_IMG)
    assert "ExpiredCreditCard" in pipe.read("paymentservice", BASE_IMG, PAY)
    assert pipe.read("paymentservice", BASE_IMG, "a/" + PAY) == pipe.read(
        "paymentservice", BASE_IMG, "/" + PAY
    )
    with pytest.raises(
        KeyError,
        match=r"no file 'src/paymentservice/charge\.ts'; did you mean src/paymentservice/charge\.js",
    ):
        pipe.read("paymentservice", BASE_IMG, "src/paymentservice/charge.ts")
    with pytest.raises(
        KeyError,
        match=r"no source tree for image 'x:1' of paymentservice: it was not built by this pipeline",
    ):
        pipe.files("paymentservice", "x:1")
    with pytest.raises(PipelineError, match="no source tree for service 'nosuch'"):
        pipe.files("nosuch", BASE_IMG)
    with pytest.raises(PipelineError, match="no source trees for app"):
        Pipeline("no-such-app", "r", 0)


def test_deploy_and_revert_track_images(pipe):
    ch = OB_CHANGES["payment-expiry-check"]
    bad_img = BASE_IMG.rsplit(":", 1)[0] + ":0123456789ab"
    pipe.on_deploy(ch, "0123456789ab" * 3 + "0123", bad_img, 100.0)
    assert EXPIRY_BAD in pipe.read("paymentservice", bad_img, PAY)
    assert "thisMonth + 1" not in pipe.read("paymentservice", BASE_IMG, PAY)  # images are immutable
    pipe.on_revert(ch, "f" * 40, BASE_IMG, 400.0)
    assert pipe.tree("paymentservice", BASE_IMG) == base_tree(OB, "paymentservice")
    assert pipe.head("paymentservice") == base_tree(OB, "paymentservice")


def test_config_change_edits_the_manifest_of_the_running_image(pipe):
    ch = OB_CHANGES["checkout-payment-port"]
    img = "us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/checkoutservice:v0.10.6"
    pipe.on_deploy(ch, "a" * 40, img, 10.0)
    assert 'value: "paymentservice:50052"' in pipe.read(
        "checkoutservice", img, "kubernetes/checkoutservice.yaml"
    )
    pipe.on_revert(ch, "b" * 40, img, 20.0)
    assert pipe.tree("checkoutservice", img) == base_tree(OB, "checkoutservice")


def _running(pipe, change_id="payment-expiry-check"):
    ch = OB_CHANGES[change_id]
    img = BASE_IMG.rsplit(":", 1)[0] + ":feedfacecafe"
    pipe.on_deploy(ch, "feedfacecafe" + "0" * 28, img, 50.0)
    return ch, img


def test_submit_a_fix_builds_an_image_without_the_defect(pipe):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", img, PAY)
    fixed = code.replace(EXPIRY_BAD, EXPIRY_FIXED)
    res = pipe.submit("paymentservice", img, ch, make_diff(PAY, code, fixed), 200.0)
    assert res.ok and res.defect is None, res
    assert [s["stage"] for s in res.stages] == ["apply", "lint", "unit-tests", "build"]
    assert all(s["status"] == "passed" for s in res.stages)
    assert res.image == f"{BASE_IMG.rsplit(':', 1)[0]}:{res.sha[:12]}" and len(res.sha) == 40
    assert res.files == [PAY] and res.config is None
    assert pipe.read("paymentservice", res.image, PAY) == fixed  # the built image can be read back
    assert pipe.head("paymentservice")[PAY] == fixed


def test_submit_an_unrelated_patch_keeps_the_defect(pipe):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", img, PAY)
    patched = code.replace("Transaction processed:", "Transaction done:")
    res = pipe.submit("paymentservice", img, ch, make_diff(PAY, code, patched), 200.0)
    assert res.ok and res.defect == ch.defect


@pytest.mark.parametrize(
    ("mutate", "stage", "message"),
    [
        (
            lambda c: c.replace("module.exports = charge;", "module.exports = charge(;"),
            "lint",
            "lint failed",
        ),
        (
            lambda c: c.replace("Only VISA or MasterCard is accepted", "Only VISA"),
            "unit-tests",
            "unit tests failed: FAIL charge rejects AMEX cards",
        ),
    ],
)
def test_submit_stops_at_the_failing_stage(pipe, mutate, stage, message):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", img, PAY)
    res = pipe.submit("paymentservice", img, ch, make_diff(PAY, code, mutate(code)), 200.0)
    assert not res.ok and res.image is None and res.defect is None
    assert res.stages[-1]["stage"] == stage and res.stages[-1]["status"] == "failed"
    assert res.message.startswith(message)


def test_submit_errors(pipe):
    ch, img = _running(pipe)
    bad_hunk = "--- a/src/paymentservice/charge.js\n+++ b/src/paymentservice/charge.js\n@@ -1,2 +1,2 @@\n-nothing like this\n+x\n"
    res = pipe.submit("paymentservice", img, ch, bad_hunk, 1.0)
    assert not res.ok and res.stages == [res.stages[0]] and res.stages[0]["stage"] == "apply"
    assert "hunk 1 does not apply at line 1" in res.stages[0]["detail"]
    res = pipe.submit("paymentservice", img, ch, "not a diff", 1.0)
    assert not res.ok and "no file headers" in res.message
    other = make_diff("kubernetes/frontend.yaml", None, "kind: Deployment\n")
    res = pipe.submit("paymentservice", img, ch, other, 1.0)
    assert not res.ok and "not part of paymentservice's repository" in res.message
    code = pipe.read("paymentservice", img, PAY)
    noop = (
        "--- a/src/paymentservice/charge.js\n+++ b/src/paymentservice/charge.js\n@@ -1,1 +1,1 @@\n-"
        + code.split("\n")[0]
        + "\n+"
        + code.split("\n")[0]
        + "\n"
    )
    res = pipe.submit("paymentservice", img, ch, noop, 1.0)
    assert not res.ok and res.message == "patch changes nothing"
    res = pipe.submit("paymentservice", "nope:1", None, bad_hunk, 1.0)
    assert not res.ok and "no source tree for image" in res.message


def test_submit_of_a_manifest_patch_reports_its_settings(pipe):
    ch = OB_CHANGES["checkout-payment-port"]
    img = "us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/checkoutservice:v0.10.6"
    pipe.on_deploy(ch, "a" * 40, img, 10.0)
    path = "kubernetes/checkoutservice.yaml"
    text = pipe.read("checkoutservice", img, path)
    res = pipe.submit(
        "checkoutservice", img, ch, make_diff(path, text, text.replace("50052", "50051")), 30.0
    )
    assert res.ok and res.defect is None
    assert res.config["env"]["PAYMENT_SERVICE_ADDR"] == "paymentservice:50051"


def test_submit_is_deterministic():
    results = []
    for _ in range(2):
        p = Pipeline(OB, "r-test", 7)
        ch, img = _running(p)
        code = p.read("paymentservice", img, PAY)
        diff = make_diff(PAY, code, code.replace(EXPIRY_BAD, EXPIRY_FIXED))
        results.append(p.submit("paymentservice", img, ch, diff, 200.0).to_dict())
    assert results[0] == results[1]
    p = Pipeline(OB, "r-test", 8)
    ch, img = _running(p)
    code = p.read("paymentservice", img, PAY)
    diff = make_diff(PAY, code, code.replace(EXPIRY_BAD, EXPIRY_FIXED))
    assert p.submit("paymentservice", img, ch, diff, 200.0).sha != results[0]["sha"]
    assert (
        p.submit("paymentservice", img, ch, diff, 201.0).sha
        != p.submit("paymentservice", img, ch, diff, 200.0).sha
    )


def test_on_deploy_falls_back_to_the_base_tree_when_the_head_moved(pipe):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", img, PAY)
    fixed = code.replace(
        "  // Cards expiring this month are declined by the processor; fail fast.\n", ""
    )
    res = pipe.submit("paymentservice", img, ch, make_diff(PAY, code, fixed), 300.0)
    assert res.ok
    # the same change deployed again does not apply to the patched head; it is built from the base
    pipe.on_deploy(ch, "c" * 40, "repo/paymentservice:cccccccccccc", 400.0)
    assert (
        pipe.tree("paymentservice", "repo/paymentservice:cccccccccccc")
        == apply_diff(base_tree(OB, "paymentservice"), ch.diff)[0]
    )


def test_build_result_keeps_defect_when_change_has_no_fix(pipe):
    img = BASE_IMG
    ch = Change(
        id="x",
        service="paymentservice",
        kind="code",
        title="t",
        author="a",
        files=[PAY],
        diff=OB_CHANGES["payment-expiry-check"].diff,
        defect=Defect(error_rate=0.1),
    )
    code = pipe.read("paymentservice", img, PAY)
    res = pipe.submit(
        "paymentservice",
        img,
        ch,
        make_diff(PAY, code, code.replace("Transaction processed", "Processed")),
        1.0,
    )
    assert res.ok and res.defect == ch.defect
