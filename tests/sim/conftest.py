"""Shared fixtures for the simulator tests (test modules cannot import this file: importlib mode)."""

from __future__ import annotations

import copy

import pytest

from sre_gym.catalogs import RELEASE, load_catalog
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


@pytest.fixture
def shop() -> SimCluster:
    """A fresh astronomy-shop cluster right after warm-up (the app with flagd and its flags)."""
    c = SimCluster("astronomy-shop", 0, horizon_s=3600)
    c.advance_to(EPOCH + WARMUP_S)
    return c


@pytest.fixture(scope="session")
def changes() -> dict:
    return {c.id: c for c in load_catalog("online-boutique").changes}


@pytest.fixture(scope="session")
def state_of():
    """The cluster's state as a comparable value (world, pod arrays, changes, profiles, actions):
    an operation the cluster refuses must leave it equal."""

    def state(cl: SimCluster) -> tuple:
        p = cl.pods
        arrays = tuple(
            getattr(p, f)[: p.n].tobytes()
            for f in (
                "alive",
                "ready",
                "state",
                "rev",
                "beh",
                "node",
                "hog",
                "delay",
                "deleted_at",
            )
        )
        return (
            copy.deepcopy(cl.world),
            arrays,
            list(p.names),
            len(cl.changes),
            len(cl.behaviours),
            len(cl._actions),
            RELEASE,
        )

    return state
