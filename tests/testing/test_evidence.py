"""The hand-made evidence builder (sre_gym/testing/evidence.py)."""

from __future__ import annotations

from sre_gym.bundle import read_bundle, write_bundle
from sre_gym.scoring import score
from sre_gym.testing.evidence import CAP, EvidenceBuilder, handled


def test_handled_is_one_whole_story_and_survives_a_bundle(tmp_path):
    b = handled(n_faults=2)
    kinds = [e["type"] for e in b.ev.events]
    assert kinds == ["injection", "revert", "alert", "incident", "intervention", "challenge"]
    assert b.ev.arrays["probe"].shape == (2, CAP)
    card = b.score()
    assert card["outcomes"]["handled"] == 1 and card["n_faults"] == 2
    back = read_bundle(write_bundle(b.ev, tmp_path))
    assert score(back) == card


def test_a_fault_fails_through_its_window_and_heals_where_told():
    b = EvidenceBuilder(1).fault(0, 1200.0, 1680.0)
    probe = b.ev.arrays["probe"][0]
    assert (probe[80:112] == 0).all() and probe[79] == -1
    b.heal(0, 1350.0)
    assert probe[90] == 1 and probe[89] == 0 and b.ev.arrays["artifact"][0, 90] == 0
    assert b.ev.events[-1]["type"] == "challenge" and b.ev.events[-1]["recovered_at"] == 1350.0
