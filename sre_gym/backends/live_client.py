"""The live backend's connection: the ``live`` extra, the Kubernetes client and guarded API calls.

This is the one module that imports the extra (``kubernetes``, ``prometheus_api_client`` and their
HTTP stacks), so a missing extra fails here with an error naming it; the other ``live_*`` modules take
these names from this one. ``LiveClient`` is the plumbing the reads and the interventions share: API
calls whose refusals become ``OperationError``, client models as plain JSON dicts, the listings of
pods, ReplicaSets and deployments, and Prometheus queries. The client comes from the kube config, else
the in-cluster service account (``_load_api_client``).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from typing import Any

try:
    import requests
    import urllib3
    from kubernetes import client as k8s
    from kubernetes import config as k8s_config
    from kubernetes.client.exceptions import ApiException
    from prometheus_api_client import PrometheusConnect
    from prometheus_api_client.exceptions import PrometheusApiClientException
    from urllib3.util.retry import Retry
except ImportError as e:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        f"sre_gym.backends.live needs the 'live' extra ({e.name or e} is not installed): "
        "pip install 'sre_gym[live]'"
    ) from e

from sre_gym.backends.base import OperationError
from sre_gym.backends.live_objects import _revision, _rs_deployment

__all__ = [
    "REQUEST_TIMEOUT_S",
    "ApiException",
    "LiveClient",
    "PrometheusApiClientException",
    "PrometheusConnect",
    "Retry",
    "k8s",
    "k8s_config",
    "requests",
    "urllib3",
]

REQUEST_TIMEOUT_S = 30.0
_PROM_HTTP = re.compile(r"^HTTP Status Code (\d+) \((.*)\)$", re.DOTALL)


def _prometheus_error(e: PrometheusApiClientException) -> str:
    """Prometheus' own error text out of prometheus-api-client's exception (which only keeps the
    status code and the repr of the body)."""
    text = str(e)
    m = _PROM_HTTP.match(text)
    if not m:
        return f"prometheus: {text}"
    status, body = m.group(1), m.group(2)
    try:
        raw = ast.literal_eval(body)
        data = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except (ValueError, SyntaxError, TypeError, UnicodeDecodeError):
        return f"prometheus answered HTTP {status}: {body[:500]}"
    if isinstance(data, dict) and data.get("error"):
        kind = data.get("errorType")
        return f"{kind}: {data['error']}" if kind else str(data["error"])
    return f"prometheus answered HTTP {status}: {body[:500]}"


class LiveClient:
    """The Kubernetes and Prometheus plumbing of ``LiveBackend``, which sets ``api``, ``core``,
    ``apps``, ``net``, ``prom``, ``namespace`` and ``timeout_s``."""

    # ------------------------------------------------------------------ Kubernetes plumbing
    def _k8s(
        self, what: str, name: str | None, fn: Callable[..., Any], *args: Any, **kw: Any
    ) -> Any:
        """Call the API; a 404 or any other refusal becomes an OperationError naming the object."""
        try:
            return fn(*args, _request_timeout=self.timeout_s, **kw)
        except ApiException as e:
            if e.status == 404 and name is not None:
                raise OperationError(f"no {what} {name!r} in namespace {self.namespace}") from None
            raise OperationError(_api_refusal(e, what, name)) from None
        except (urllib3.exceptions.HTTPError, OSError) as e:
            raise OperationError(
                f"kubernetes API at {self.api.configuration.host} unreachable: {e}"
            ) from None

    def _plain(self, obj: Any) -> Any:
        """A client model as the API's own JSON dict (camelCase keys), whatever the client version."""
        return self.api.sanitize_for_serialization(obj)

    def _list(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> list[dict]:
        return self._plain(self._k8s(what, None, fn, *args, **kw)).get("items") or []

    def _pods(self, **kw: Any) -> list[dict]:
        return self._list("pods", self.core.list_namespaced_pod, self.namespace, **kw)

    def _replicasets(self, deployment: str | None = None) -> list[dict]:
        rss = self._list("replicasets", self.apps.list_namespaced_replica_set, self.namespace)
        if deployment is not None:
            rss = [r for r in rss if _rs_deployment(r) == deployment]
        return sorted(rss, key=lambda r: (_rs_deployment(r) or "", _revision(r) or 0))

    def _deployment(self, name: str) -> dict:
        return self._plain(
            self._k8s(
                "deployment", name, self.apps.read_namespaced_deployment, name, self.namespace
            )
        )

    # ------------------------------------------------------------------ Prometheus
    def _prom(self, fn: Callable[[], Any]) -> Any:
        try:
            result = fn()
        except PrometheusApiClientException as e:
            raise OperationError(_prometheus_error(e)) from None
        except (requests.RequestException, ValueError, KeyError) as e:
            raise OperationError(f"prometheus at {self.prom.url} failed: {e}") from None
        return result if result is not None else []


def _api_refusal(e: ApiException, what: str, name: str | None) -> str:
    message = ""
    try:
        body = json.loads(e.body) if e.body else {}
        message = body.get("message", "") if isinstance(body, dict) else ""
    except (TypeError, ValueError):
        message = str(e.body or "")[:300]
    target = f"{what} {name!r}" if name else what
    return f"kubernetes API refused the request on {target}: {e.status} {e.reason}" + (
        f": {message}" if message else ""
    )


def _load_api_client() -> k8s.ApiClient:
    """A client from the kube config, else the in-cluster service account."""
    cfg = k8s.Configuration()
    try:
        k8s_config.load_kube_config(client_configuration=cfg)
    except (k8s_config.ConfigException, OSError) as kube_err:
        try:
            k8s_config.load_incluster_config(client_configuration=cfg)
        except k8s_config.ConfigException as cluster_err:
            raise RuntimeError(
                f"no Kubernetes configuration: kube config ({kube_err}); in-cluster ({cluster_err}); "
                "pass api_client= or set KUBECONFIG"
            ) from None
    return k8s.ApiClient(cfg)
