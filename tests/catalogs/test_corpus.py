"""The change corpus, its source trees and the change-delivered faults, for every app with sources."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sre_gym.catalogs import APPS, catalog_dir, load_app, load_catalog
from sre_gym.catalogs.schema import Change, Fault, ProbeSpec, manifest_path
from sre_gym.sim.diffs import apply_diff, changed_files
from sre_gym.sim.lint import lint_tree
from sre_gym.sim.pipeline import check_change
from sre_gym.sim.source_trees import (
    apps_with_sources,
    base_tree,
    fix_holds,
    manifest_settings,
    run_unit_tests,
    service_meta,
    services_with_trees,
)

SOURCE_APPS = apps_with_sources()

# cause categories of change-delivered mechanisms (a wrong setting is a config fault even in source)
CATEGORY = {
    "code_exception": "code",
    "code_latency": "code",
    "code_cpu_regression": "code",
    "code_crash": "code",
    "code_memory_leak": "code",
    "retry_storm": "code",
    "data_corruption": "code",
    "consumer_slowdown": "code",
    "bad_timeout": "config",
    "pool_exhaustion": "config",
    "bad_endpoint": "config",
    "config_latency": "config",
    "memory_limit": "config",
    "cpu_limit": "config",
    "bad_image_tag": "deployment",
    "readiness_probe": "deployment",
}
EDGE_MECHANISMS = {"bad_timeout", "retry_storm", "bad_endpoint", "pool_exhaustion"}
PROBE_KINDS = set(ProbeSpec.model_fields["kind"].annotation.__args__)


def test_all_three_apps_have_sources():
    assert {"online-boutique", "train-ticket", "astronomy-shop"} <= set(SOURCE_APPS)


@pytest.fixture(scope="module", params=SOURCE_APPS)
def app(request) -> str:
    return request.param


def _changes(app: str) -> list[Change]:
    """The source changes of the corpus (the flag changes are checked on their own below)."""
    return [c for c in load_catalog(app, include_quarantined=True).changes if not c.flags]


def _faults(app: str) -> list[Fault]:
    """The faults delivered by a change of the corpus."""
    corpus = {c.id for c in _changes(app)}
    return [f for f in load_catalog(app, include_quarantined=True).faults if f.change in corpus]


# ---------------------------------------------------------------------------------- source trees


def test_every_serving_service_has_a_tree(app):
    trees = set(services_with_trees(app))
    if app not in APPS:
        pytest.skip(f"{app} has no app catalog yet")
    model = load_app(app)
    wanted = {s.name for s in model.services if s.kind not in ("loadgen", "batch")}
    assert wanted <= trees, sorted(wanted - trees)
    assert trees <= {s.name for s in model.services}, sorted(
        trees - {s.name for s in model.services}
    )


def test_trees_are_clean_and_match_the_app_catalog(app):
    model = load_app(app) if app in APPS else None
    for svc in services_with_trees(app):
        meta = service_meta(app, svc)
        tree = base_tree(app, svc)
        assert 1 <= len(tree) <= 12, (svc, sorted(tree))
        assert manifest_path(svc) in tree, svc
        assert lint_tree(tree) == [], svc
        assert run_unit_tests(meta, tree) == [], svc
        assert meta.tests, svc
        assert 5 <= len(meta.history) <= 15, svc
        assert len({h.author for h in meta.history}) >= 2, svc
        for t in meta.tests:
            for rx in [*t.must_match, *t.must_not_match]:
                re.compile(rx)
        if model is None:
            continue
        s = model.service(svc)
        m = manifest_settings(tree, svc)
        assert meta.image == s.image == m["image"], svc
        assert m["env"] == s.env, svc
        assert (m["cpu_limit"], m["mem_limit"]) == (s.resources.cpu_limit, s.resources.mem_limit), (
            svc
        )
        assert m["readiness_port"] == (s.readiness.port if s.readiness else None), svc


# ---------------------------------------------------------------------------------- changes


def test_changes_validate_and_ids_are_unique(app):
    changes = _changes(app)
    assert changes
    assert len({c.id for c in changes}) == len(changes)
    trees = set(services_with_trees(app))
    for c in changes:
        assert c.service in trees, c.id
        assert c.files == changed_files(c.diff), c.id
        assert c.title and len(c.phrasings) >= 2, c.id


def test_every_change_applies_lints_and_passes_tests(app):
    for c in _changes(app):
        stages = check_change(app, c)
        assert [s["status"] for s in stages] == ["passed"] * 3, (c.id, stages[-1])


def test_kinds_edit_what_they_declare(app):
    for c in _changes(app):
        base = base_tree(app, c.service)
        new, _ = apply_diff(base, c.diff, strict=True)
        manifest = manifest_path(c.service)
        files = changed_files(c.diff)
        if c.kind == "code":
            assert manifest not in files, c.id
            assert not (c.env or c.resources or c.image_tag or c.readiness_port), c.id
            continue
        assert files == [manifest], c.id
        before, after = manifest_settings(base, c.service), manifest_settings(new, c.service)
        env = {k: v for k, v in after["env"].items() if before["env"].get(k) != v}
        assert env == c.env, c.id
        res = {k: after[k] for k in ("cpu_limit", "mem_limit") if after[k] != before[k]}
        assert res == c.resources, c.id
        port = (
            after["readiness_port"] if after["readiness_port"] != before["readiness_port"] else None
        )
        assert port == c.readiness_port, c.id
        if c.kind == "image":
            assert after["image"].rsplit(":", 1)[1] == c.image_tag, c.id
        assert c.defect is None and c.fix is None, c.id


def test_defects_have_fix_predicates_that_separate_base_and_defect(app):
    for c in _changes(app):
        if c.defect is None:
            continue
        assert c.kind == "code" and c.fix is not None, c.id
        assert c.fix.file in c.files, c.id
        base = base_tree(app, c.service)
        defective, _ = apply_diff(base, c.diff, strict=True)
        assert fix_holds(c.fix, base), c.id
        assert not fix_holds(c.fix, defective), c.id
        reverted, _ = apply_diff(defective, c.diff, reverse=True, strict=True)
        assert fix_holds(c.fix, reverted), c.id
        d = c.defect
        assert d.log is not None
        assert d.error_rate <= 0.5 and d.corrupt_rate <= 1.0, c.id
        assert d.latency_ms == 0 or 20 <= d.latency_ms <= 1500, c.id


def _benign(app: str) -> list[Change]:
    named = {f.change for f in load_catalog(app, include_quarantined=True).faults if f.change}
    return [c for c in load_catalog(app, include_quarantined=True).changes if c.id not in named]


def _faulty(app: str) -> list[Change]:
    named = {f.change for f in load_catalog(app, include_quarantined=True).faults if f.change}
    return [c for c in load_catalog(app, include_quarantined=True).changes if c.id in named]


def _kind(c: Change) -> str:
    return "flags" if c.flags else c.kind


def _size(c: Change) -> int:
    return sum(
        1 for ln in c.diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
    )


def test_benign_corpus_is_five_times_the_faulty_one_and_varied(app):
    benign, faulty = _benign(app), _faulty(app)
    assert len(benign) >= 5 * len(faulty), (len(benign), len(faulty))
    for c in benign:
        assert c.defect is None and c.fix is None, c.id
        assert c.purpose is not None, c.id
    purposes = Counter(c.purpose for c in benign)
    wanted = {"feature", "refactor", "dependency", "config", "performance"}
    assert wanted <= set(purposes), purposes
    assert max(purposes.values()) <= 0.4 * len(benign), purposes


def test_benign_changes_look_like_the_faulty_ones(app):
    """Kind shares within 10 points of the faulty changes' and sizes of the same order, so neither
    the kind nor the size of a deploy tells a faulty change apart."""
    benign, faulty = _benign(app), _faulty(app)
    kb, kf = Counter(map(_kind, benign)), Counter(map(_kind, faulty))
    for k in set(kb) | set(kf):
        assert abs(kb[k] / len(benign) - kf[k] / len(faulty)) <= 0.10, (k, kb, kf)
    for k in kf:
        sb = sorted(_size(c) for c in benign if _kind(c) == k)
        sf = sorted(_size(c) for c in faulty if _kind(c) == k)
        med_b, med_f = sb[len(sb) // 2], sf[len(sf) // 2]
        assert abs(med_b - med_f) <= 2, (k, med_b, med_f)
        assert sb[int(0.9 * len(sb))] <= max(2 * sf[int(0.9 * len(sf))], 6), k


def test_wordings_are_distinct_across_the_corpus(app):
    import re as _re

    seen: dict[str, str] = {}
    for c in load_catalog(app, include_quarantined=True).changes:
        assert len(set(c.wordings)) == len(c.wordings) >= 3, c.id
        for w in c.wordings:
            key = " ".join(_re.sub(r"[^a-z0-9]+", " ", w.lower()).split())
            assert key not in seen, (c.id, seen.get(key), w)
            seen[key] = c.id


def test_benign_changes_commute_with_the_faulty_ones_of_their_service(app):
    """A benign change can land on a service whose head holds a faulty change (both directions),
    and the faulty one still reverts: images are built from the head."""
    from sre_gym.sim.diffs import merges

    faulty: dict[str, list[Change]] = {}
    for c in _faulty(app):
        if not c.flags:
            faulty.setdefault(c.service, []).append(c)
    bad = []
    for b in _benign(app):
        if b.flags:
            continue
        tree = base_tree(app, b.service)
        bad += [(b.id, f.id) for f in faulty.get(b.service, []) if not merges(tree, b.diff, f.diff)]
    assert not bad, bad[:20]


def test_benign_changes_of_a_service_mostly_stack(app):
    """An episode deploys many benign changes per service onto one head; most must merge with each
    other (the schedule never picks two that do not)."""
    from sre_gym.sim.diffs import merges

    by_svc: dict[str, list[Change]] = {}
    for c in _benign(app):
        if not c.flags:
            by_svc.setdefault(c.service, []).append(c)
    for svc, cs in by_svc.items():
        tree = base_tree(app, svc)
        picked: list[Change] = []
        for c in cs:
            if all(merges(tree, c.diff, p.diff) for p in picked):
                picked.append(c)
        assert len(picked) >= 0.6 * len(cs), (svc, len(picked), len(cs))


def test_benign_config_changes_leave_fault_settings_alone(app):
    """No benign change sets what a fault breaks: a faulty change's env keys, a service address or
    the latency knob; limits only go up; probes stay where they are."""
    cat = load_catalog(app, include_quarantined=True)
    model = cat.app
    addr = {e.addr_env for e in model.edges if e.addr_env}
    fault_keys: dict[str, set[str]] = {}
    for c in _faulty(app):
        fault_keys.setdefault(c.service, set()).update(c.env)
    from sre_gym.catalogs.schema import parse_cpu, parse_mem

    for c in _benign(app):
        if c.kind != "config" or c.flags:
            continue
        svc = model.service(c.service) if c.service in {s.name for s in model.services} else None
        assert c.readiness_port is None, c.id
        assert not set(c.env) & (fault_keys.get(c.service, set()) | addr), c.id
        if svc is not None:
            assert svc.latency_env not in c.env, c.id
            if "cpu_limit" in c.resources:
                assert parse_cpu(c.resources["cpu_limit"]) >= parse_cpu(svc.resources.cpu_limit), (
                    c.id
                )
            if "mem_limit" in c.resources:
                assert parse_mem(c.resources["mem_limit"]) >= parse_mem(svc.resources.mem_limit), (
                    c.id
                )


def test_image_changes_name_published_tags_only_when_benign(app):
    cat = load_catalog(app, include_quarantined=True)
    for c in _benign(app):
        if c.kind == "image":
            assert c.image_tag in cat.published_tags.get(c.service, []), c.id
    for c in _faulty(app):
        if c.kind == "image":
            assert c.image_tag not in cat.published_tags.get(c.service, []), c.id


# ---------------------------------------------------------------------------------- faults


def test_change_faults_validate_and_reference_their_change(app):
    faults = _faults(app)
    changes = {c.id: c for c in _changes(app)}
    services = (
        {s.name for s in load_app(app).services} if app in APPS else set(services_with_trees(app))
    )
    assert len({f.id for f in faults}) == len(faults)
    assert len({f.change for f in faults}) == len(faults)  # one fault per change
    for f in faults:
        assert f.delivery == "change" and f.app == app, f.id
        ch = changes[f.change]
        assert ch.service == f.target, f.id
        assert CATEGORY[f.mechanism] == f.category, f.id
        assert f.probe.kind in PROBE_KINDS
        assert f.probe.service in services, f.id
        assert f.probe.peer is None or f.probe.peer in services, f.id
        if f.mechanism in EDGE_MECHANISMS:
            assert f.probe.kind == "edge_error" and f.probe.service == f.target, f.id
            d = ch.defect
            if d is not None:
                named = {*d.timeouts_ms, *d.retries, *d.broken_edges, *d.pool_size}
                assert f.probe.peer in named, f.id
        if f.mechanism in ("bad_image_tag", "readiness_probe"):
            assert f.probe.kind == "rollout_complete", f.id
        assert "rollback" in f.remedies, f.id
        assert ("patch_config" in f.remedies) == (ch.kind == "config"), f.id
        assert (ch.defect is not None) == (ch.kind == "code"), f.id


def test_every_defect_change_is_named_by_a_fault(app):
    named = {f.change for f in _faults(app)}
    for c in _changes(app):
        if c.defect is not None or c.readiness_port is not None:
            assert c.id in named, c.id


def test_change_faults_load_through_the_release_loader(app):
    if app not in APPS:
        pytest.skip(f"{app} is not in the release yet")
    cat = load_catalog(app, include_quarantined=True)
    by_id = {f.id: f for f in cat.faults}
    for f in _faults(app):
        loaded = by_id[f.id]
        assert loaded.target in loaded.affected, f.id
        assert loaded.culprits == [f.target], f.id


def test_corpus_volume_and_breadth(app, capsys):
    faults = _faults(app)
    changes = _changes(app)
    by_cat = Counter(f.category for f in faults)
    by_mech = Counter(f.mechanism for f in faults)
    targets = Counter(f.target for f in faults)
    files = sum(len(base_tree(app, s)) for s in services_with_trees(app))
    with capsys.disabled():
        print(
            f"\n{app}: {len(services_with_trees(app))} trees, {files} files, {len(changes)} changes, "
            f"{sum(c.defect is not None for c in changes)} defects, {len(faults)} change faults"
        )
        print(f"  categories: {dict(sorted(by_cat.items()))}")
        print(f"  mechanisms: {dict(sorted(by_mech.items()))}")
    minimum = {"online-boutique": 55, "train-ticket": 120, "astronomy-shop": 70}.get(app, 10)
    assert len(faults) >= minimum
    assert len(by_mech) >= 10
    assert {"code", "config", "deployment"} <= set(by_cat)
    if app in APPS:
        trees = services_with_trees(app)
        serving = [
            s.name
            for s in load_app(app).services
            if s.kind in ("gateway", "stateless") and s.name in trees
        ]
        covered = [s for s in serving if targets[s] >= 1]
        assert len(covered) >= 0.9 * len(serving), sorted(set(serving) - set(covered))


def test_feature_flag_changes_apply_to_the_flagd_tree():
    """The lead's flag changes (changes/astronomy-shop-flags.yaml) edit src/flagd/demo.flagd.json."""
    path = catalog_dir() / "changes" / "astronomy-shop-flags.yaml"
    if not path.exists() or "astronomy-shop" not in SOURCE_APPS:
        pytest.skip("no flag changes")
    import yaml

    tree = base_tree("astronomy-shop", "flagd")
    for raw in yaml.safe_load(path.read_text())["changes"]:
        ch = Change.model_validate(raw)
        new, _ = apply_diff(tree, ch.diff)  # hunk positions may be offsets
        assert lint_tree(new, changed_files(ch.diff)) == [], ch.id
        flag, variant = next(iter(ch.flags.items()))
        assert f'"{flag}": {{' in new["src/flagd/demo.flagd.json"]
        assert variant in new["src/flagd/demo.flagd.json"]
