"""Preflight of a live cluster: is everything there that the live backend needs, and is the agent
identity kept from what it must not do?

``preflight(app, prometheus_url=..., ...)`` returns one ``Check`` (name, ok, detail) per
requirement, always the same names in the same order:

* ``kubernetes API``: the API server answers ``GET /version``;
* ``clock skew``: this machine's clock is within ``max_skew_s`` (5 s) of the API server's, read
  off the ``Date`` header of that answer;
* ``secrets unreadable``: SelfSubjectAccessReviews say the identity may not get, list or watch
  Secrets in the namespace;
* ``namespace undeletable``: ... and may not delete the namespace;
* ``backend permissions``: ... and may send every namespaced request of
  ``live_rbac.PERMISSIONS``; missing cluster-scoped reads (nodes, the namespace list) are named
  in the detail but do not fail the check, since the rest of the backend works without them;
* ``deployments``: every deployment of the app's catalog is in the namespace and ready (rollout
  observed, all replicas updated, ready and available, at least one replica);
* ``prometheus``: Prometheus answers ``/-/ready`` (or ``/api/v1/status/buildinfo`` where a proxy
  serves no ``/-/ready``);
* ``alert rules``: ``/api/v1/rules`` lists every rule of the pack (``live_rules``) with this
  release's ``sre_gym_release`` label.

A check that cannot run because the API server or Prometheus cannot be reached fails with "not
checked: ...". The only requests that are not GETs are the SelfSubjectAccessReviews (POSTs that
change nothing). ``sre-gym live preflight`` prints one line per check and exits 1 if any failed.
"""

from __future__ import annotations

import email.utils
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from sre_gym.backends.live_client import (
    ApiException,
    _api_refusal,
    _load_api_client,
    k8s,
    k8s_config,
    requests,
    urllib3,
)
from sre_gym.backends.live_rbac import PERMISSIONS
from sre_gym.backends.live_rules import RELEASE_LABEL, pack_rule_names
from sre_gym.catalogs import RELEASE, load_app

__all__ = ["CHECKS", "MAX_SKEW_S", "Check", "api_client_from", "preflight"]

MAX_SKEW_S = 5.0
TIMEOUT_S = 10.0
CHECKS = (
    "kubernetes API",
    "clock skew",
    "secrets unreadable",
    "namespace undeletable",
    "backend permissions",
    "deployments",
    "prometheus",
    "alert rules",
)
_SECRET_VERBS = ("get", "list", "watch")


@dataclass(frozen=True)
class Check:
    """One requirement of a live run: its name, whether it holds, and what was found."""

    name: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'ok' if self.ok else 'FAIL':<4}  {self.name:<21} {self.detail}"


class _Unanswered(Exception):
    """The API server did not answer a question (unreachable, or it refused)."""


def api_client_from(kubeconfig: str | None = None, context: str | None = None) -> Any:
    """A Kubernetes client from a kube config file and context (default: ``$KUBECONFIG`` or
    ``~/.kube/config`` and its current context, else the in-cluster service account)."""
    if kubeconfig is None and context is None:
        return _load_api_client()
    cfg = k8s.Configuration()
    try:
        k8s_config.load_kube_config(
            config_file=kubeconfig, context=context, client_configuration=cfg
        )
    except (k8s_config.ConfigException, OSError, ValueError, yaml.YAMLError) as e:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        where = kubeconfig or "(default)"
        raise RuntimeError(f"no Kubernetes configuration: kube config {where}: {first}") from None
    return k8s.ApiClient(cfg)


def _words(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


class _Preflight:
    def __init__(
        self,
        app: str,
        namespace: str,
        api: Any,
        prometheus_url: str,
        prometheus_headers: dict[str, str] | None,
        clock: Callable[[], float],
        max_skew_s: float,
        timeout_s: float,
        release: str,
    ) -> None:
        self.app, self.namespace, self.api = app, namespace, api
        self.prom_url = prometheus_url.rstrip("/")
        self.prom_headers = prometheus_headers or {}
        self.clock, self.max_skew_s, self.timeout_s = clock, max_skew_s, timeout_s
        self.release = release

    # ------------------------------------------------------------------ Kubernetes
    def kubernetes(self) -> list[Check]:
        host = self.api.configuration.host
        before = float(self.clock())
        try:
            resp = k8s.VersionApi(self.api).get_code_with_http_info(_request_timeout=self.timeout_s)
        except ApiException as e:
            return self._no_api(f"{host} answered /version with {e.status} {e.reason}")
        except (urllib3.exceptions.HTTPError, OSError, ValueError) as e:
            return self._no_api(f"{host} unreachable: {e}")
        after = float(self.clock())
        if isinstance(resp, tuple):  # clients before 37: (data, status, headers)
            data, headers = resp[0], resp[2]
        else:
            data, headers = resp.data, resp.headers
        version = getattr(data, "git_version", None) or "unknown version"
        checks = [Check("kubernetes API", True, f"{host} answers ({version})")]
        checks.append(self._skew((headers or {}).get("Date"), before, after))
        checks += [self._secrets(), self._namespace(), self._permissions(), self._deployments()]
        return checks

    def _no_api(self, why: str) -> list[Check]:
        skipped = "not checked: the Kubernetes API cannot be reached"
        return [Check("kubernetes API", False, why)] + [
            Check(name, False, skipped) for name in CHECKS[1:6]
        ]

    def _skew(self, date: str | None, before: float, after: float) -> Check:
        if not date:
            return Check("clock skew", False, "the API server sent no Date header")
        try:
            server = email.utils.parsedate_to_datetime(date).timestamp()
        except (TypeError, ValueError):
            return Check(
                "clock skew", False, f"the API server's Date header {date!r} is not a date"
            )
        # the header has whole seconds: the server's clock was in [server, server + 1) meanwhile
        skew = (before + after) / 2 - (server + 0.5)
        side = "ahead of" if skew >= 0 else "behind"
        detail = (
            f"this clock is {abs(skew):.1f} s {side} the API server's (bound {self.max_skew_s:g} s)"
        )
        return Check("clock skew", abs(skew) <= self.max_skew_s, detail)

    def _can(
        self,
        verb: str,
        resource: str,
        group: str = "",
        *,
        namespaced: bool = True,
        name: str | None = None,
    ) -> bool:
        """A SelfSubjectAccessReview: may this identity send the request?"""
        res, _, sub = resource.partition("/")
        attrs = k8s.V1ResourceAttributes(
            verb=verb,
            group=group,
            resource=res,
            subresource=sub or None,
            namespace=self.namespace if namespaced else None,
            name=name,
        )
        body = k8s.V1SelfSubjectAccessReview(
            api_version="authorization.k8s.io/v1",
            kind="SelfSubjectAccessReview",
            spec=k8s.V1SelfSubjectAccessReviewSpec(resource_attributes=attrs),
        )
        try:
            review = k8s.AuthorizationV1Api(self.api).create_self_subject_access_review(
                body, _request_timeout=self.timeout_s
            )
        except ApiException as e:
            raise _Unanswered(_api_refusal(e, "selfsubjectaccessreviews", None)) from None
        except (urllib3.exceptions.HTTPError, OSError, ValueError) as e:
            raise _Unanswered(f"kubernetes API unreachable: {e}") from None
        return bool(review.status is not None and review.status.allowed)

    def _secrets(self) -> Check:
        try:
            allowed = [v for v in _SECRET_VERBS if self._can(v, "secrets")]
        except _Unanswered as e:
            return Check("secrets unreadable", False, f"could not ask the API: {e}")
        if allowed:
            return Check(
                "secrets unreadable",
                False,
                f"this identity may {'/'.join(allowed)} Secrets in namespace {self.namespace}; "
                "use an identity bound only to the Role of `sre-gym live rbac`",
            )
        return Check(
            "secrets unreadable",
            True,
            f"this identity may not get, list or watch Secrets in namespace {self.namespace}",
        )

    def _namespace(self) -> Check:
        # the API server authorizes a request on a Namespace object with that namespace as the
        # request's namespace, so a RoleBinding inside it could grant this: ask exactly that
        try:
            allowed = self._can("delete", "namespaces", name=self.namespace)
        except _Unanswered as e:
            return Check("namespace undeletable", False, f"could not ask the API: {e}")
        if allowed:
            return Check(
                "namespace undeletable",
                False,
                f"this identity may delete namespace {self.namespace}",
            )
        return Check(
            "namespace undeletable",
            True,
            f"this identity may not delete namespace {self.namespace}",
        )

    def _permissions(self) -> Check:
        missing, optional = [], []
        try:
            for p in PERMISSIONS:
                if not self._can(p.verb, p.resource, p.group, namespaced=p.namespaced):
                    (missing if p.namespaced else optional).append(f"{p.verb} {p.resource}")
        except _Unanswered as e:
            return Check("backend permissions", False, f"could not ask the API: {e}")
        if missing:
            return Check(
                "backend permissions",
                False,
                f"not allowed in namespace {self.namespace}: {_words(missing)} "
                "(apply `sre-gym live rbac`)",
            )
        detail = f"every request the backend sends is allowed in namespace {self.namespace}"
        if optional:
            detail += (
                f"; cluster-scoped reads not granted, their tools will be refused: "
                f"{_words(optional)}"
            )
        return Check("backend permissions", True, detail)

    def _deployments(self) -> Check:
        wanted = [s.name for s in load_app(self.app).services]
        try:
            listing = k8s.AppsV1Api(self.api).list_namespaced_deployment(
                self.namespace, _request_timeout=self.timeout_s
            )
        except ApiException as e:
            return Check("deployments", False, _api_refusal(e, "deployments", None))
        except (urllib3.exceptions.HTTPError, OSError, ValueError) as e:
            return Check("deployments", False, f"kubernetes API unreachable: {e}")
        items = self.api.sanitize_for_serialization(listing).get("items") or []
        have = {(d.get("metadata") or {}).get("name"): d for d in items}
        missing = [n for n in wanted if n not in have]
        unready = [f"{n} ({why})" for n in wanted if n in have and (why := _unready(have[n]))]
        if not missing and not unready:
            return Check(
                "deployments",
                True,
                f"all {len(wanted)} deployments of {self.app} are ready in {self.namespace}",
            )
        parts = []
        if missing:
            parts.append(f"missing from namespace {self.namespace}: {_words(missing)}")
        if unready:
            parts.append(f"not ready: {_words(unready)}")
        return Check("deployments", False, "; ".join(parts))

    # ------------------------------------------------------------------ Prometheus
    def prometheus(self) -> list[Check]:
        url = self.prom_url
        try:
            ready = self._get("/-/ready")
            if ready.status_code == 404:  # a proxy in front of Prometheus may not serve /-/ready
                ready = self._get("/api/v1/status/buildinfo")
        except requests.RequestException as e:
            return [
                Check("prometheus", False, f"{url} unreachable: {e}"),
                Check("alert rules", False, "not checked: Prometheus cannot be reached"),
            ]
        if ready.status_code != 200:
            text = ready.text.strip()[:200]
            return [
                Check(
                    "prometheus",
                    False,
                    f"{ready.url} answered HTTP {ready.status_code}"
                    + (f": {text}" if text else ""),
                ),
                Check("alert rules", False, "not checked: Prometheus is not ready"),
            ]
        return [Check("prometheus", True, f"{url} is ready"), self._rules()]

    def _get(self, path: str, **params: str) -> Any:
        return requests.get(
            f"{self.prom_url}{path}",
            params=params or None,
            headers=self.prom_headers,
            timeout=self.timeout_s,
        )

    def _rules(self) -> Check:
        try:
            r = self._get("/api/v1/rules", type="alert")
            r.raise_for_status()
            groups = r.json()["data"]["groups"]
            loaded = [rule for g in groups for rule in g.get("rules") or []]
        except (requests.RequestException, ValueError, KeyError, TypeError) as e:
            return Check("alert rules", False, f"{self.prom_url}/api/v1/rules failed: {e}")
        want = Counter(pack_rule_names(self.release))
        have: Counter[str] = Counter()
        others: Counter[str] = Counter()
        for rule in loaded:
            if rule.get("type", "alerting") != "alerting" or rule.get("name") not in want:
                continue
            tag = (rule.get("labels") or {}).get(RELEASE_LABEL, "")
            if tag == self.release:
                have[rule["name"]] += 1
            else:
                others[tag] += 1
        missing = want - have
        n = sum(want.values())
        if not missing:
            return Check(
                "alert rules", True, f"all {n} rules of the pack ({self.release}) are loaded"
            )
        detail = (
            f"{sum(missing.values())} of the pack's {n} rules ({self.release}) are not loaded: "
            f"{_words(sorted(missing))}"
        )
        if others:
            detail += "; rules of these names are loaded with " + ", ".join(
                f"{RELEASE_LABEL}={k} ({v})" if k else f"no {RELEASE_LABEL} label ({v})"
                for k, v in sorted(others.items(), key=lambda kv: kv[0] or "")
            )
        return Check("alert rules", False, detail + " (load `sre-gym live rules`)")


def _unready(dep: dict) -> str | None:
    """Why a deployment is not ready (kubectl rollout status' predicate, and at least one replica)."""
    spec, st, meta = dep.get("spec") or {}, dep.get("status") or {}, dep.get("metadata") or {}
    desired = int(spec.get("replicas", 1) if spec.get("replicas") is not None else 1)
    if desired < 1:
        return "scaled to 0"
    generation, observed = int(meta.get("generation") or 0), int(st.get("observedGeneration") or 0)
    if observed < generation:
        return f"generation {generation} not observed yet"
    for key, what in (
        ("updatedReplicas", "updated"),
        ("readyReplicas", "ready"),
        ("availableReplicas", "available"),
    ):
        n = int(st.get(key) or 0)
        if n < desired:
            return f"{n}/{desired} {what}"
    return None


def preflight(
    app: str,
    *,
    prometheus_url: str,
    namespace: str | None = None,
    api_client: Any = None,
    kubeconfig: str | None = None,
    context: str | None = None,
    prometheus_headers: dict[str, str] | None = None,
    clock: Callable[[], float] = time.time,
    max_skew_s: float = MAX_SKEW_S,
    timeout_s: float = TIMEOUT_S,
    release: str = RELEASE,
) -> list[Check]:
    """The checks of ``CHECKS``, in order, for ``app`` in ``namespace`` (default: the catalog's).

    ``api_client`` is used as given (and left open); otherwise one is made from ``kubeconfig`` and
    ``context`` and closed at the end. ``clock`` is this machine's clock for the skew check.
    """
    ns = namespace or load_app(app).namespace
    owned = api_client is None
    checks: list[Check]
    try:
        api = api_client if api_client is not None else api_client_from(kubeconfig, context)
    except RuntimeError as e:
        checks = [Check("kubernetes API", False, str(e))]  # "no Kubernetes configuration: ..."
        checks += [Check(n, False, "not checked: no Kubernetes configuration") for n in CHECKS[1:6]]
        api, owned = None, False
    run = _Preflight(
        app, ns, api, prometheus_url, prometheus_headers, clock, max_skew_s, timeout_s, release
    )
    try:
        if api is not None:
            checks = run.kubernetes()
        return checks + run.prometheus()
    finally:
        if owned:
            api.close()
