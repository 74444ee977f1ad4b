"""A fake Kubernetes API server and a fake Prometheus HTTP API, for testing live backends offline.

Both are standard-library ``ThreadingHTTPServer`` instances bound to 127.0.0.1 on a free port, so the
real ``kubernetes`` client and ``prometheus_api_client`` can be pointed at them and a
``sre_gym.backends.live.LiveBackend`` exercised end to end without a cluster. They hold plain JSON
dicts (the API's own wire shape), answer only the paths the live backend uses, and record every
mutating request so a test can assert what was (or was not) sent. Neither reads the wall clock: object
timestamps come from an injected ``clock`` (default: 2026-01-01T00:00:00Z).

>>> with FakeCluster() as fc:  # doctest: +SKIP
...     backend = LiveBackend("online-boutique", api_client=fc.api_client(), prometheus_url=fc.prom.url)

Deliberately simple: label selectors are equality only, field selectors are dotted-path equality,
strategic-merge patches merge lists of named objects by ``name`` (enough for containers and env),
and the deployment controller is emulated just far enough to give every new pod template a ReplicaSet
and a revision (pods are not replaced).

This module holds ``FakeKubernetes``, ``FakePrometheus`` and ``FakeCluster`` (both started and
stopped together); the parts are ``fake_http`` (the server), ``fake_patches``, ``fake_kube_store``
(objects, seeding, controller), ``fake_kube_routes`` (the API paths) and ``fake_prometheus``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sre_gym.clock import EPOCH  # EPOCH: 2026-01-01T00:00:00Z, the default fake time
from sre_gym.testing.fake_http import Response
from sre_gym.testing.fake_kube_routes import KubeRoutes
from sre_gym.testing.fake_kube_store import (
    API_VERSION,
    CHANGE_CAUSE,
    CLUSTER_SCOPED,
    HASH_LABEL,
    RESOURCES,
    REVISION,
)
from sre_gym.testing.fake_patches import PatchError, json_patch, merge_patch
from sre_gym.testing.fake_prometheus import FakePrometheus

__all__ = [
    "API_VERSION",
    "CHANGE_CAUSE",
    "CLUSTER_SCOPED",
    "EPOCH",
    "HASH_LABEL",
    "RESOURCES",
    "REVISION",
    "FakeCluster",
    "FakeKubernetes",
    "FakePrometheus",
    "PatchError",
    "Response",
    "json_patch",
    "merge_patch",
]


class FakeKubernetes(KubeRoutes):
    """An in-memory Kubernetes API server seeded with one catalog app (deployments, replicasets,
    pods, services, nodes, namespaces, a configmap, a secret and a few events).

    ``mutations`` records every PATCH, POST, PUT and DELETE (method, path, content type, JSON body),
    answered or not; ``refuse(...)`` makes the next matching request fail with a given status.
    SelfSubjectAccessReviews are answered by ``policy(verb, resource)`` (default: everything but
    Secrets and changes to namespaces) and recorded in ``access_reviews``; ``/version`` answers
    ``version``; ``server_time`` (a clock, default the wall clock) dates every answer.
    """


class FakeCluster:
    """A FakeKubernetes and a FakePrometheus started and stopped together."""

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        clock: Callable[[], float] | None = None,
        replicas: int | None = None,
        world: bool = False,
        chaos_mesh: bool = False,
    ) -> None:
        self.kube = FakeKubernetes(
            app, clock=clock, replicas=replicas, world=world, chaos_mesh=chaos_mesh
        )
        self.prom = FakePrometheus()

    def start(self) -> FakeCluster:
        self.kube.start()
        self.prom.start()
        return self

    def stop(self) -> None:
        self.kube.stop()
        self.prom.stop()

    def __enter__(self) -> FakeCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def api_client(self, token: str | None = None) -> Any:
        """A real ``kubernetes.client.ApiClient`` pointed at the fake API server (needs the extra),
        sending ``token`` as its bearer token when given (see ``FakeKubernetes.add_identity``)."""
        from kubernetes import client

        cfg = client.Configuration()
        cfg.host = self.kube.url
        if token is not None:
            cfg.api_key = {"BearerToken": token}
            cfg.api_key_prefix = {"BearerToken": "Bearer"}
        return client.ApiClient(cfg)
