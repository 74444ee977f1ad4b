"""The versioned scoring configuration (sre_gym/scoring/config.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sre_gym.scoring.config import NET_FIELDS, ScoringConfig


def test_defaults_match_the_design():
    c = ScoringConfig()
    assert (c.w_correlation, c.w_localization, c.w_repair) == (1 / 3, 1 / 3, 1 / 3)
    assert c.attribution_grace_s == 180 and c.repair_hold_s == 60 and c.persistence_s == 120
    assert c.forbidden_penalty == 1.0 and c.invocation_s == 120
    assert c.version.startswith("v2-") and len(c.version) == 15
    assert c.version == ScoringConfig().version
    # net_score's weights (docs/scoring.md gives the reasons)
    assert (c.w_false_alarm, c.w_unwarranted, c.w_out_of_scope) == (0.25, 0.15, 0.05)
    assert c.w_degradation == 1.0 and c.net_floor == -100.0
    # the Marathon-Score's own fields hash as they did before net_score existed
    assert c.paper_version == "v1-0ae404cf0c5b"


@pytest.mark.parametrize("field", [f.name for f in dataclasses.fields(ScoringConfig)])
def test_version_changes_with_any_field(field):
    base = ScoringConfig()
    value = getattr(base, field)
    other = dataclasses.replace(base, **{field: value * 2 if value else 1})
    assert other.version != base.version


def test_all_versions_distinct():
    base = ScoringConfig()
    versions = {base.version}
    for f in dataclasses.fields(ScoringConfig):
        v = getattr(base, f.name)
        versions.add(dataclasses.replace(base, **{f.name: v + 1}).version)
    assert len(versions) == 1 + len(dataclasses.fields(ScoringConfig))


def test_round_trip_through_json():
    c = ScoringConfig(w_correlation=0.5, w_localization=0.25, w_repair=0.25, repair_hold_s=60)
    d = json.loads(json.dumps(c.to_dict()))
    assert d["version"] == c.version
    assert ScoringConfig.from_dict(d) == c
    assert ScoringConfig.from_dict({k: v for k, v in d.items() if k != "version"}) == c


def test_from_dict_rejects_a_mismatched_version():
    d = ScoringConfig().to_dict()
    d["repair_hold_s"] = 30
    with pytest.raises(
        ValueError,
        match=r"scoring config version v2-[0-9a-f]{12} does not match its fields \(v2-[0-9a-f]{12}\)",
    ):
        ScoringConfig.from_dict(d)
    d = ScoringConfig().to_dict() | {"version": "v2-000000000000"}
    with pytest.raises(ValueError, match="does not match"):
        ScoringConfig.from_dict(d)


def test_from_dict_rejects_unknown_fields():
    with pytest.raises(TypeError):
        ScoringConfig.from_dict({"w_bonus": 1.0})


def test_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ScoringConfig().repair_hold_s = 1  # type: ignore[misc]


def test_manifests_from_before_the_revert_deadline_still_load_and_keep_their_version():
    # the default configuration's version before `localize_before_revert` existed
    legacy = {**dataclasses.asdict(ScoringConfig()), "version": "v1-943cbf81bbb7"}
    del legacy["localize_before_revert"]
    for k in NET_FIELDS:
        del legacy[k]
    cfg = ScoringConfig.from_dict(legacy)
    assert cfg.localize_before_revert is False and cfg.paper_version == "v1-943cbf81bbb7"
    assert ScoringConfig().version != cfg.version


def test_manifests_from_before_net_score_load_with_its_default_weights():
    """A manifest written before net_score names the paper's fields and their version only: it
    loads, its paper version is checked, and net_score is scored with the default weights."""
    legacy = {k: v for k, v in dataclasses.asdict(ScoringConfig()).items() if k not in NET_FIELDS}
    legacy["version"] = ScoringConfig().paper_version
    cfg = ScoringConfig.from_dict(legacy)
    assert cfg == ScoringConfig() and cfg.version == ScoringConfig().version
    with pytest.raises(ValueError, match="does not match"):
        ScoringConfig.from_dict({**legacy, "repair_hold_s": 30})
    # a net weight in the manifest makes it a new one: its version must cover every field
    with pytest.raises(ValueError, match="does not match"):
        ScoringConfig.from_dict({**legacy, "w_false_alarm": 0.25})
