"""Shared fixtures for the simulator tests (test modules cannot import this file: importlib mode)."""

from __future__ import annotations

import pytest

from sre_gym.catalogs import load_catalog
from sre_gym.clock import EPOCH
from sre_gym.sim.cluster import WARMUP_S, SimCluster


@pytest.fixture(scope="session")
def warm():
    """Factory of fresh clusters simulated through the 10-minute healthy warm-up."""

    def make(seed: int = 0, horizon_s: int = 3600) -> SimCluster:
        c = SimCluster("online-boutique", seed, horizon_s=horizon_s)
        c.advance_to(EPOCH + WARMUP_S)
        return c

    return make


@pytest.fixture
def cl(warm) -> SimCluster:
    """A fresh healthy cluster right after warm-up (mutable, one per test)."""
    return warm()


@pytest.fixture(scope="session")
def changes() -> dict:
    return {c.id: c for c in load_catalog("online-boutique").changes}
