"""Test helpers shipped with the package: scripted adversaries that try to game the scorer.

They are ordinary agents (``act(obs, info) -> action``) so anyone can check a scoring change against
them: ``from sre_gym.testing import make_adversary``.
"""

from __future__ import annotations

from sre_gym.testing.adversaries import (
    ADVERSARIES,
    AlertSpamAdversary,
    DestructiveOracle,
    GiantIncidentAdversary,
    OneIncidentDestroyer,
    make_adversary,
)
from sre_gym.testing.chatty import ChattyReader

__all__ = [
    "ADVERSARIES",
    "AlertSpamAdversary",
    "ChattyReader",
    "DestructiveOracle",
    "GiantIncidentAdversary",
    "OneIncidentDestroyer",
    "make_adversary",
]
