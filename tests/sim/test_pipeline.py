"""The build pipeline (sre_gym/sim/pipeline.py): the repository head, commits, reverts, builds."""

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
BASE_IMG = "us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/paymentservice:v0.10.6"


@pytest.fixture
def pipe() -> Pipeline:
    return Pipeline(OB, "r-test", 7)


def _benign_edit(tree: dict, path: str = PAY) -> str:
    """A small harmless commit far from the expiry check (a comment on the file's last line)."""
    text = tree[path]
    return make_diff(path, text, text + "// reviewed for the release checklist\n")


def test_files_and_read(pipe):
    assert PAY in pipe.files("paymentservice")
    assert "ExpiredCreditCard" in pipe.read("paymentservice", PAY)
    assert pipe.read("paymentservice", "a/" + PAY) == pipe.read("paymentservice", "/" + PAY)
    with pytest.raises(
        KeyError,
        match=r"no file 'src/paymentservice/charge\.ts' in the repository; did you mean src/paymentservice/charge\.js",
    ):
        pipe.read("paymentservice", "src/paymentservice/charge.ts")
    with pytest.raises(PipelineError, match="no source tree for service 'nosuch'"):
        pipe.files("nosuch")
    with pytest.raises(PipelineError, match="no source trees for app"):
        Pipeline("no-such-app", "r", 0)


def test_a_committed_defect_stays_in_every_build_until_reverted(pipe):
    """Images are built from the head: a later harmless commit still carries the defect."""
    ch = OB_CHANGES["payment-expiry-check"]
    pipe.commit(ch, "a" * 40)
    assert EXPIRY_BAD in pipe.read("paymentservice", PAY)
    assert pipe.defect("paymentservice") == (ch.defect, ch) and pipe.in_head(ch)
    later = Change(
        id="later",
        service="paymentservice",
        kind="code",
        title="charge: note the release checklist",
        files=[PAY],
        diff=_benign_edit(pipe.head("paymentservice")),
    )
    pipe.commit(later, "b" * 40)
    assert pipe.defect("paymentservice") == (ch.defect, ch)  # the next build still has it
    revert = pipe.revert("a" * 40, "c" * 40)
    assert "-" + "  if (monthIndex(year, month) <= thisMonth + 1) {" in revert
    head = pipe.head("paymentservice")
    assert EXPIRY_BAD not in head[PAY] and "release checklist" in head[PAY]  # later work kept
    assert pipe.defect("paymentservice") == (None, None) and not pipe.in_head(ch)


def test_a_change_written_against_the_base_merges_onto_a_moved_head(pipe):
    ch = OB_CHANGES["payment-expiry-check"]
    base = base_tree(OB, "paymentservice")
    first = Change(
        id="first",
        service="paymentservice",
        kind="code",
        title="charge: note the release checklist",
        files=[PAY],
        diff=_benign_edit(base),
    )
    pipe.commit(first, "a" * 40)
    shown = pipe.commit(ch, "b" * 40)  # the expiry diff still applies as written (offsets)
    assert EXPIRY_BAD in pipe.read("paymentservice", PAY)
    assert shown == ch.diff
    # reverting the first commit keeps the second
    pipe.revert("a" * 40, "c" * 40)
    head = pipe.head("paymentservice")
    assert EXPIRY_BAD in head[PAY] and "release checklist" not in head[PAY]


def test_config_change_edits_the_manifest_in_the_head(pipe):
    ch = OB_CHANGES["checkout-payment-port"]
    pipe.commit(ch, "a" * 40)
    assert 'value: "paymentservice:50052"' in pipe.read(
        "checkoutservice", "kubernetes/checkoutservice.yaml"
    )
    pipe.revert("a" * 40, "b" * 40)
    assert pipe.head("checkoutservice") == base_tree(OB, "checkoutservice")


def _running(pipe, change_id="payment-expiry-check"):
    ch = OB_CHANGES[change_id]
    pipe.commit(ch, "feedfacecafe" + "0" * 28)
    return ch, BASE_IMG.rsplit(":", 1)[0] + ":feedfacecafe"


def test_submit_a_fix_builds_an_image_without_the_defect(pipe):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", PAY)
    fixed = code.replace(EXPIRY_BAD, EXPIRY_FIXED)
    res = pipe.submit("paymentservice", img, make_diff(PAY, code, fixed), 200.0)
    assert res.ok and res.defect is None and res.carrier is None, res
    assert [s["stage"] for s in res.stages] == ["apply", "lint", "unit-tests", "build"]
    assert all(s["status"] == "passed" for s in res.stages)
    assert res.image == f"{BASE_IMG.rsplit(':', 1)[0]}:{res.sha[:12]}" and len(res.sha) == 40
    assert res.files == [PAY] and res.config is None
    assert pipe.head("paymentservice")[PAY] == fixed
    # a patch can be reverted like any commit
    diff = pipe.revert_diff(res.sha)
    assert apply_diff(pipe.head("paymentservice"), diff)[0][PAY] == code


def test_submit_an_unrelated_patch_keeps_the_defect(pipe):
    ch, img = _running(pipe)
    code = pipe.read("paymentservice", PAY)
    patched = code.replace("Transaction processed:", "Transaction done:")
    res = pipe.submit("paymentservice", img, make_diff(PAY, code, patched), 200.0)
    assert res.ok and res.defect == ch.defect and res.carrier is ch


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
    code = pipe.read("paymentservice", PAY)
    before = pipe.head("paymentservice")
    res = pipe.submit("paymentservice", img, make_diff(PAY, code, mutate(code)), 200.0)
    assert not res.ok and res.image is None and res.defect is None
    assert res.stages[-1]["stage"] == stage and res.stages[-1]["status"] == "failed"
    assert res.message.startswith(message)
    assert pipe.head("paymentservice") == before  # a failed build commits nothing


def test_submit_errors(pipe):
    ch, img = _running(pipe)
    bad_hunk = "--- a/src/paymentservice/charge.js\n+++ b/src/paymentservice/charge.js\n@@ -1,2 +1,2 @@\n-nothing like this\n+x\n"
    res = pipe.submit("paymentservice", img, bad_hunk, 1.0)
    assert not res.ok and res.stages == [res.stages[0]] and res.stages[0]["stage"] == "apply"
    assert "hunk 1 does not apply at line 1" in res.stages[0]["detail"]
    assert "head of paymentservice's repository" in res.message
    res = pipe.submit("paymentservice", img, "not a diff", 1.0)
    assert not res.ok and "no file headers" in res.message
    other = make_diff("kubernetes/frontend.yaml", None, "kind: Deployment\n")
    res = pipe.submit("paymentservice", img, other, 1.0)
    assert not res.ok and "not part of paymentservice's repository" in res.message
    code = pipe.read("paymentservice", PAY)
    noop = (
        "--- a/src/paymentservice/charge.js\n+++ b/src/paymentservice/charge.js\n@@ -1,1 +1,1 @@\n-"
        + code.split("\n")[0]
        + "\n+"
        + code.split("\n")[0]
        + "\n"
    )
    res = pipe.submit("paymentservice", img, noop, 1.0)
    assert not res.ok and res.message == "patch changes nothing"
    with pytest.raises(KeyError):
        pipe.revert_diff("0" * 40)


def test_submit_of_a_manifest_patch_reports_its_settings(pipe):
    ch = OB_CHANGES["checkout-payment-port"]
    img = "us-central1-docker.pkg.dev/online-boutique-ci/microservices-demo/checkoutservice:v0.10.6"
    pipe.commit(ch, "a" * 40)
    path = "kubernetes/checkoutservice.yaml"
    text = pipe.read("checkoutservice", path)
    res = pipe.submit(
        "checkoutservice", img, make_diff(path, text, text.replace("50052", "50051")), 30.0
    )
    assert res.ok and res.defect is None
    assert res.config["env"]["PAYMENT_SERVICE_ADDR"] == "paymentservice:50051"


def test_submit_is_deterministic():
    results = []
    for _ in range(2):
        p = Pipeline(OB, "r-test", 7)
        ch, img = _running(p)
        code = p.read("paymentservice", PAY)
        diff = make_diff(PAY, code, code.replace(EXPIRY_BAD, EXPIRY_FIXED))
        results.append(p.submit("paymentservice", img, diff, 200.0).to_dict())
    assert results[0] == results[1]
    p = Pipeline(OB, "r-test", 8)
    ch, img = _running(p)
    code = p.read("paymentservice", PAY)
    diff = make_diff(PAY, code, code.replace(EXPIRY_BAD, EXPIRY_FIXED))
    assert p.submit("paymentservice", img, diff, 200.0).sha != results[0]["sha"]
    assert p.sha_of("paymentservice", 201.0, diff) != p.sha_of("paymentservice", 200.0, diff)


def test_a_defect_without_a_fix_predicate_is_kept_by_every_patch(pipe):
    ch = Change(
        id="x",
        service="paymentservice",
        kind="code",
        title="t",
        phrasings=["u", "v"],
        files=[PAY],
        diff=OB_CHANGES["payment-expiry-check"].diff,
        defect=Defect(error_rate=0.1),
    )
    pipe.commit(ch, "d" * 40)
    code = pipe.read("paymentservice", PAY)
    res = pipe.submit(
        "paymentservice",
        BASE_IMG,
        make_diff(PAY, code, code.replace("Transaction processed", "Processed")),
        1.0,
    )
    assert res.ok and res.defect == ch.defect
