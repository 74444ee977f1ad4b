"""The one Ray session of the test run (only tests marked ``ray`` request it).

Ray binds every interface of the network namespace it runs in, so the Ray tests run only inside a
private namespace that has nothing but loopback (``make test`` does this with ``unshare -n``); on a
host network the fixture skips them unless SRE_GYM_RAY_HOST_NETWORK=1 says to go ahead anyway.
"""

from __future__ import annotations

import os
import socket
from types import SimpleNamespace

import pytest

TEST_RESOURCE = "sre_gym_test_cluster"  # a custom resource of the local node
TEST_CLUSTER = "local-test"  # the node's sre-gym/cluster label


def _only_loopback() -> bool:
    """Is this process's network namespace loopback-only? (/sys may show the host's.)"""
    return {name for _, name in socket.if_nameindex()} <= {"lo"}


@pytest.fixture(scope="session")
def ray_allowed():
    """Ray, when this process may start it (a loopback-only namespace); skips otherwise."""
    ray = pytest.importorskip("ray")
    if not _only_loopback() and os.environ.get("SRE_GYM_RAY_HOST_NETWORK") != "1":
        pytest.skip(
            "Ray tests run only in a private network namespace with just loopback "
            "(make test runs them with unshare -n); set SRE_GYM_RAY_HOST_NETWORK=1 to override"
        )
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    return ray


@pytest.fixture(scope="session")
def ray_session(ray_allowed):
    ray = ray_allowed
    from sre_gym.rollouts.runner import CLUSTER_LABEL

    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=256 * 1024**2,
        resources={TEST_RESOURCE: 2},
        labels={CLUSTER_LABEL: TEST_CLUSTER},
        log_to_driver=False,
    )
    yield SimpleNamespace(ray=ray, resource=TEST_RESOURCE, cluster=TEST_CLUSTER)
    ray.shutdown()
