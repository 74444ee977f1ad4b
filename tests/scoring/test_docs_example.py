"""docs/scoring.md's worked example: the doc's own code builds the evidence, and the scorer must
return exactly the scorecard written in the doc (the JSON block after the hand computation)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from sre_gym.bundle import write_bundle
from sre_gym.scoring import score, score_bundle

DOC = Path(__file__).resolve().parents[2] / "docs" / "scoring.md"


def block(text: str, marker: str, lang: str) -> str:
    m = re.search(rf"<!-- {re.escape(marker)} -->\s*```{lang}\n(.*?)\n```", text, re.S)
    assert m, f"{DOC.name}: no ```{lang} block after <!-- {marker} -->"
    return m.group(1)


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text()


@pytest.fixture(scope="module")
def example(doc):
    ns: dict = {}
    exec(compile(block(doc, "worked-example:evidence", "python"), str(DOC), "exec"), ns)
    return ns["evidence"], json.loads(block(doc, "worked-example:expected", "json"))


def same(got, want, path="card"):
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        assert set(want) <= set(got), f"{path}: missing {sorted(set(want) - set(got))}"
        for k, v in want.items():
            same(got[k], v, f"{path}.{k}")
    elif isinstance(want, float):
        assert got is not None and math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-9), (
            f"{path}: scorer gives {got}, the doc says {want}"
        )
    else:
        assert got == want, f"{path}: scorer gives {got!r}, the doc says {want!r}"


def test_scorer_gives_the_numbers_in_the_doc(example):
    evidence, expected = example
    card = score(evidence)
    same(card, expected)
    # every number the doc states is in the card: nothing in the card is left unchecked
    flat_keys = set(card) - {"scoring_version"}
    assert flat_keys == set(expected), f"undocumented in the example: {flat_keys - set(expected)}"


def test_the_hand_computation_quotes_the_same_numbers(doc, example):
    _, e = example
    quoted = {
        f"**{e['marathon_score']:.2f}**",
        f"**{e['localization']:.3f}**",
        f"**{e['repair']:.3f}**",
        f"**{e['intervention_risk']}**",
        f"**{e['incident_precision']}**",
        f"**{e['mttd_s']:.0f} s**",
        f"**{e['mttl_s']:.0f} s**",
        f"**{e['mttr_s']:.0f} s**",
        f"**{e['degradation']['degraded_requests']}**",
        f"**{e['degradation']['share']:.5f}**",
        f"**{e['degradation']['noaction_degraded_requests']}**",
        f"**{e['degradation']['ratio']:.4f}**",
    }
    missing = sorted(q for q in quoted if q not in doc)
    assert not missing, f"the prose of {DOC.name} does not quote: {missing}"


def test_every_scorecard_field_is_documented(doc, example):
    evidence, _ = example
    card = score(evidence)
    fields = [*card, *(f"{k}" for k in card["degradation"]), *card["cost"], *card["outcomes"]]
    missing = [k for k in fields if f"`{k}`" not in doc]
    assert not missing, f"{DOC.name} does not define: {missing}"


def test_the_example_rescores_the_same_from_a_bundle(example, tmp_path):
    evidence, _ = example
    path = write_bundle(evidence, tmp_path)
    assert score_bundle(path) == score(evidence, cutoff=evidence.manifest["episode_end"])
    assert score_bundle(path) == score(evidence)


def test_every_config_field_and_event_type_is_documented(doc):
    import dataclasses

    from sre_gym.bundle.evidence import EVENT_TYPES
    from sre_gym.scoring.config import ScoringConfig

    fields = [f.name for f in dataclasses.fields(ScoringConfig)]
    assert not [k for k in fields if f"`{k}`" not in doc], f"{DOC.name} misses config fields"
    fmt = (DOC.parent / "bundle-format.md").read_text()
    missing = [t for t in sorted(EVENT_TYPES) if f"| `{t}`" not in fmt]
    assert not missing, f"bundle-format.md does not document event types {missing}"
