"""Deterministic staged scoring from evidence (online and offline are the same function)."""

from __future__ import annotations

import os

from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import OUTCOMES, score

Scorecard = dict


def score_bundle(path: str | os.PathLike) -> Scorecard:
    """Verify a sealed bundle and score it offline; equals the online ``info["scorecard"]``."""
    from sre_gym.bundle import read_bundle

    ev = read_bundle(path)
    return score(ev, cutoff=float(ev.manifest["episode_end"]))


__all__ = ["OUTCOMES", "Scorecard", "ScoringConfig", "score", "score_bundle"]
