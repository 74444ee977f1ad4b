"""The versioned scoring configuration (sre_gym/scoring/config.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from sre_gym.scoring.config import ScoringConfig


def test_defaults_match_the_design():
    c = ScoringConfig()
    assert (c.w_correlation, c.w_localization, c.w_repair) == (1 / 3, 1 / 3, 1 / 3)
    assert c.attribution_grace_s == 180 and c.repair_hold_s == 60 and c.persistence_s == 120
    assert c.forbidden_penalty == 1.0 and c.invocation_s == 120
    assert c.version.startswith("v1-") and len(c.version) == 15
    assert c.version == ScoringConfig().version


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
        match=r"scoring config version v1-[0-9a-f]{12} does not match its fields \(v1-[0-9a-f]{12}\)",
    ):
        ScoringConfig.from_dict(d)
    d = ScoringConfig().to_dict() | {"version": "v1-000000000000"}
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
    cfg = ScoringConfig.from_dict(legacy)
    assert cfg.localize_before_revert is False and cfg.version == "v1-943cbf81bbb7"
    assert ScoringConfig().version != cfg.version
