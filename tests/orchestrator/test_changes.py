"""The change stream (sre_gym/orchestrator/changes.py): benign deploys and how deploys present."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from sre_gym.backends.sim import SimBackend
from sre_gym.catalogs import APPS, load_catalog
from sre_gym.orchestrator.changes import (
    STYLES,
    _footprint,
    benign_changes,
    conflicts,
    kind_of,
    kind_weights,
)
from sre_gym.orchestrator.schedule import schedule


def _change_faults(app: str, s) -> list:
    faults = {f.id: f for f in load_catalog(app, include_quarantined=True).faults}
    return [sf for sf in s.faults if faults[sf.fault_id].delivery == "change"]


@pytest.mark.parametrize("app", APPS)
def test_the_injection_window_holds_the_profile_change_failure_rate(app):
    for seed in range(3):
        s = schedule(app, seed)
        k = sum(1 for sf in _change_faults(app, s) if sf.start < s.inject_s)
        benign = sum(1 for d in s.deploys if d.time < s.inject_s)
        assert abs(k / (k + benign) - 0.15) <= 0.03, (seed, k, benign)
        # deploys keep arriving after the window, at its rate
        after = sum(1 for d in s.deploys if d.time >= s.inject_s)
        rate_in, rate_after = benign / s.inject_s, after / (s.duration_s - 300 - s.inject_s)
        assert after > 0 and 0.8 <= rate_after / rate_in <= 1.25


def test_the_rate_is_a_profile_field():
    lo = schedule("online-boutique", 1, profile={"profile": "marathon", "change_failure_rate": 0.3})
    hi = schedule("online-boutique", 1)
    assert [f.fault_id for f in lo.faults] == [f.fault_id for f in hi.faults]  # faults unmoved
    assert len(lo.deploys) < len(hi.deploys)


@pytest.mark.parametrize("app", APPS)
def test_no_benign_change_repeats_and_the_picked_ones_stack(app):
    s = schedule(app, 4)
    ids = [d.change_id for d in s.deploys]
    assert len(ids) == len(set(ids))
    clash = conflicts(app)
    picked = set(ids)
    for cid in ids:
        assert not clash.get(cid, frozenset()) & picked, cid
    # the kinds follow the faulty changes' mix
    by_id = {c.id: c for c in benign_changes(app)}
    kinds = Counter(kind_of(by_id[c]) for c in ids)
    for kind, w in kind_weights(app).items():
        assert abs(kinds[kind] / len(ids) - w) <= 0.12, (kind, kinds)


def test_footprints_meet_when_edits_touch_neighbouring_lines():
    changes = {c.id: c for c in load_catalog("online-boutique").changes}
    a = changes["payment-expiry-check"]
    assert _footprint(a) & _footprint(a)
    assert not _footprint(a) & _footprint(changes["checkout-payment-port"])  # other file


@pytest.mark.parametrize("app", APPS)
def test_every_deploy_of_an_episode_has_its_own_title_and_a_team_author(app):
    b = SimBackend(app, 2)
    shown = b.injector.shown
    titles = [p.title for p in shown.values()]
    assert len(titles) == len(set(titles))
    cat = load_catalog(app)
    members = {m for t in cat.teams for m in t.members}
    assert {p.author for p in shown.values()} <= members
    keys = "|".join(t.key for t in cat.teams)
    numbered = [t for t in titles if re.search(rf"\b({keys})-\d+\b|#\d+", t)]
    assert len(numbered) >= 0.6 * len(titles)  # most carry a ticket or PR number


def test_a_change_is_worded_differently_from_seed_to_seed():
    """The same change deployed in two episodes rarely shows the same title (ticket numbers and
    wording are drawn per episode), so a memorised title names no change."""
    seen: dict[str, list[str]] = {}
    for seed in range(4):
        b = SimBackend("online-boutique", seed)
        for slot, p in b.injector.shown.items():
            kind, _, i = slot.partition(":")
            if kind == "deploy":
                seen.setdefault(b.schedule.deploys[int(i)].change_id, []).append(p.title)
    multi = {cid: ts for cid, ts in seen.items() if len(ts) >= 2}
    same = sum(1 for ts in multi.values() if len(set(ts)) < len(ts))
    assert multi and same <= 0.05 * len(multi)


def test_styles_are_shared_by_faulty_and_benign_deploys():
    b = SimBackend("online-boutique", 3)
    forms = {"fault": Counter(), "deploy": Counter()}
    for slot, p in b.injector.shown.items():
        kind = slot.split(":")[0]
        if kind in forms:
            form = re.sub(r"[A-Z][A-Z0-9]+-\d+", "K-N", p.title)
            form = re.sub(r"#\d+", "#N", form)
            forms[kind][_style_of(form)] += 1
    assert set(forms["fault"]) <= set(forms["deploy"]) and len(forms["deploy"]) == len(STYLES)


def _style_of(form: str) -> str:
    if form.startswith("[K-N] "):
        return "bracket"
    if form.startswith("K-N: "):
        return "colon"
    if form.startswith("K-N "):
        return "prefix"
    if form.endswith("(K-N)"):
        return "suffix"
    if form.endswith("(#N)"):
        return "pr"
    return "plain"
