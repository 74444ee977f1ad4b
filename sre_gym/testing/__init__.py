"""Test helpers shipped with the package: scripted adversaries that try to game the scorer, and a
builder of hand-made evidence (``sre_gym.testing.evidence``) to test a scorer on exact situations.

The adversaries are ordinary agents (``act(obs, info) -> action``) so anyone can check a scoring
change against them: ``from sre_gym.testing import make_adversary``.
"""

from __future__ import annotations

from sre_gym.testing.adversaries import (
    ADVERSARIES,
    AlertSpamAdversary,
    ChangeReverter,
    DestructiveOracle,
    GiantIncidentAdversary,
    OneIncidentDestroyer,
    make_adversary,
)
from sre_gym.testing.chatty import ChattyReader

__all__ = [
    "ADVERSARIES",
    "AlertSpamAdversary",
    "ChangeReverter",
    "ChattyReader",
    "DestructiveOracle",
    "GiantIncidentAdversary",
    "OneIncidentDestroyer",
    "make_adversary",
]
