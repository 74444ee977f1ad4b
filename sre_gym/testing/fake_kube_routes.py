"""The HTTP side of the fake Kubernetes API: the routes and handlers of the API paths it serves.

``KubeRoutes`` answers GET (lists with equality label and dotted-path field selectors, single
objects, pod logs, the deployment scale subresource, ``/version``), PATCH (JSON, merge and
strategic-merge patches of objects and of the scale), DELETE, and POST of SelfSubjectAccessReviews
(answered by the store's ``policy``), with Kubernetes ``Status`` errors, on the state of a
``KubeStore``; it records every request, and every mutating one, before answering, and applies the
refusals a test set up with ``refuse``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from sre_gym.clock import rfc3339
from sre_gym.testing.fake_http import Response, _json, _status
from sre_gym.testing.fake_kube_store import (
    API_VERSION,
    CHAOS_GROUP,
    CLUSTER_SCOPED,
    RESOURCES,
    KubeStore,
)
from sre_gym.testing.fake_patches import PatchError, json_patch, merge_patch

ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
REVIEW_KIND = "SelfSubjectAccessReview"


def _lookup(obj: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _selector(text: str) -> list[tuple[str, str, bool]]:
    out = []
    for term in filter(None, (t.strip() for t in text.split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            out.append((k.strip(), v.strip(), False))
        else:
            k, v = term.split("==", 1) if "==" in term else term.split("=", 1)
            out.append((k.strip(), v.strip(), True))
    return out


class KubeRoutes(KubeStore):
    """The HTTP answers of a fake Kubernetes API server over its ``KubeStore`` state."""

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        with self.lock:
            if self.world is not None:
                self.world.sync()
            self.requests.append((method, path))
            payload: Any = None
            if body:
                try:
                    payload = json.loads(body)
                except ValueError:
                    return _status(400, "BadRequest", "request body is not JSON")
            if method != "GET":
                self.mutations.append(
                    {"method": method, "path": path, "content_type": ctype, "body": payload}
                )
            denied = self._rbac(method, path)
            if denied is not None:
                return denied
            for i, (m, frag, code, reason, message) in enumerate(self._refusals):
                if m == method and frag in path:
                    del self._refusals[i]
                    return _status(code, reason, message)
            if path.rstrip("/") == "/version" and method == "GET":
                return _json(200, dict(self.version))
            if path.rstrip("/") == "/apis" and method == "GET":
                return _json(200, self._groups())
            if path.startswith(CHAOS_GROUP) and not self.chaos_mesh:
                return _status(
                    404, "NotFound", f"the server could not find the requested resource ({path})"
                )
            if path == ACCESS_REVIEWS:
                return self._access_review(method, payload)
            route = self._route(path)
            if route is None:
                return _status(
                    404, "NotFound", f"the server could not find the requested resource ({path})"
                )
            kind, ns, name, sub = route
            if method == "GET":
                return self._get(kind, ns, name, sub, params)
            if method == "PATCH" and name is not None:
                return self._patch(kind, ns, name, sub, ctype, payload)
            if method == "DELETE" and name is not None and sub is None:
                return self._delete(kind, ns, name)
            if method == "POST" and name is None:
                return self._create(kind, ns, payload)
            if method == "PUT" and name is not None and sub is None:
                return self._replace(kind, ns, name, payload)
            return _status(
                405, "MethodNotAllowed", f"{method} is not supported on {path} by the fake"
            )

    def _groups(self) -> dict[str, Any]:
        """``GET /apis``: the API groups served (Chaos Mesh's only with ``chaos_mesh``)."""
        names = [v for k, v in API_VERSION.items() if k.startswith("/apis/")]
        if not self.chaos_mesh:
            names = [n for n in names if not n.startswith("chaos-mesh.org/")]
        groups = []
        for gv in names:
            g, v = gv.split("/")
            ver = {"groupVersion": gv, "version": v}
            groups.append({"name": g, "versions": [ver], "preferredVersion": ver})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def _rbac(self, method: str, path: str) -> Response | None:
        """A 403 when the request's bearer token names an identity of ``identities`` whose RBAC
        rules do not allow it (requests without a known token are not checked)."""
        auth = getattr(self.local, "auth", "") or ""
        token = auth.removeprefix("Bearer ").strip()
        ident = self.identities.get(token)
        if ident is None:
            return None
        user, rules = ident
        route = self._route(path)
        if route is None:
            return None
        kind, ns, name, sub = route
        from sre_gym.backends.live_rbac import allows

        verb = {"PATCH": "patch", "POST": "create", "PUT": "update", "DELETE": "delete"}.get(
            method, "get" if name is not None else "list"
        )
        resource = kind + (f"/{sub}" if sub else "")
        group = RESOURCES[kind][0]
        group = "" if group == "/api/v1" else group.split("/")[2]
        if allows(rules, verb, resource, group):
            return None
        where = f' in the namespace "{ns}"' if ns else " at the cluster scope"
        target = f'{kind} "{name}"' if name else kind
        return _status(
            403,
            "Forbidden",
            f'{target} is forbidden: User "{user}" cannot {verb} resource "{resource}" in API '
            f'group "{group}"{where}',
            kind=kind,
            name=name or "",
        )

    def _access_review(self, method: str, payload: Any) -> Response:
        """A SelfSubjectAccessReview, answered by ``policy(verb, resource)`` (``resource`` names a
        subresource as ``pods/log``; non-resource attributes pass their path)."""
        if method != "POST":
            return _status(
                405, "MethodNotAllowed", f"{method} is not supported on {ACCESS_REVIEWS}"
            )
        if not isinstance(payload, dict) or payload.get("kind", REVIEW_KIND) != REVIEW_KIND:
            return _status(400, "BadRequest", f"the request body is not a {REVIEW_KIND}")
        spec = payload.get("spec") or {}
        attrs, non = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
        if bool(attrs) == bool(non):
            return _status(
                422,
                "Invalid",
                f"{REVIEW_KIND}.authorization.k8s.io is invalid: spec: exactly one of "
                "nonResourceAttributes or resourceAttributes must be specified",
            )
        if attrs:
            resource = str(attrs.get("resource") or "")
            if attrs.get("subresource"):
                resource += f"/{attrs['subresource']}"
            verb = str(attrs.get("verb") or "")
        else:
            resource, verb = str(non.get("path") or ""), str(non.get("verb") or "")
        self.access_reviews.append(copy.deepcopy(attrs or non))
        allowed = bool(self.policy(verb, resource))
        reason = "allowed" if allowed else "denied"
        return _json(
            201,
            {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": REVIEW_KIND,
                "metadata": {},
                "spec": copy.deepcopy(spec),
                "status": {"allowed": allowed, "reason": f"{reason} by the fake cluster's policy"},
            },
        )

    def _route(self, path: str) -> tuple[str, str, str | None, str | None] | None:
        for prefix in API_VERSION:
            if path == prefix or path.startswith(prefix + "/"):
                segs = [s for s in path[len(prefix) :].split("/") if s]
                break
        else:
            return None
        if len(segs) >= 3 and segs[0] == "namespaces":
            ns, segs = segs[1], segs[2:]
        else:
            ns = ""
        if not segs or segs[0] not in RESOURCES or RESOURCES[segs[0]][0] != prefix or len(segs) > 3:
            return None
        kind = segs[0]
        if (kind in CLUSTER_SCOPED) != (ns == "") and not (ns == "" and len(segs) == 1):
            return None
        return kind, ns, segs[1] if len(segs) > 1 else None, segs[2] if len(segs) > 2 else None

    def _not_found(self, kind: str, name: str) -> Response:
        group = RESOURCES[kind][0]
        qual = kind if group == "/api/v1" else f"{kind}.{group.split('/')[2].removesuffix('/v1')}"
        return _status(404, "NotFound", f'{qual} "{name}" not found', name=name, kind=kind)

    def _matches(self, obj: dict, params: dict[str, str]) -> bool:
        labels = obj["metadata"].get("labels") or {}
        for k, v, eq in _selector(params.get("labelSelector", "")):
            if (labels.get(k) == v) != eq:
                return False
        for k, v, eq in _selector(params.get("fieldSelector", "")):
            got = _lookup(obj, k)
            if (("" if got is None else str(got)) == v) != eq:
                return False
        return True

    def _get(
        self, kind: str, ns: str, name: str | None, sub: str | None, params: dict[str, str]
    ) -> Response:
        group, kind_name = RESOURCES[kind]
        if name is None:
            items = [
                copy.deepcopy(o)
                for (o_ns, _), o in sorted(self.objects[kind].items())
                if (not ns or o_ns == ns) and self._matches(o, params)
            ]
            return _json(
                200,
                {
                    "apiVersion": API_VERSION[group],
                    "kind": f"{kind_name}List",
                    "metadata": {"resourceVersion": str(self._rv)},
                    "items": items,
                },
            )
        obj = self.objects[kind].get((ns, name))
        if obj is None:
            return self._not_found(kind, name)
        if sub is None:
            return _json(200, obj)
        if kind == "pods" and sub == "log":
            return self._log(name, params)
        if kind == "deployments" and sub == "scale":
            return _json(200, self._scale_view(obj))
        return _status(404, "NotFound", f"no subresource {sub!r} of {kind}")

    def _log(self, pod: str, params: dict[str, str]) -> Response:
        lines = self.logs.get(pod, [])
        if "sinceSeconds" in params:
            cut = self.clock() - int(params["sinceSeconds"])
            lines = [x for x in lines if x[0] >= cut]
        if "tailLines" in params:
            lines = lines[-int(params["tailLines"]) :] if int(params["tailLines"]) else []
        stamps = params.get("timestamps", "").lower() == "true"
        text = "".join(
            f"{rfc3339(t, nanos=True)} {line}\n" if stamps else f"{line}\n" for t, line in lines
        )
        return 200, "text/plain; charset=utf-8", text.encode()

    def _scale_view(self, dep: dict) -> dict:
        labels = dep["spec"]["selector"].get("matchLabels") or {}
        return {
            "apiVersion": "autoscaling/v1",
            "kind": "Scale",
            "metadata": {
                k: dep["metadata"][k]
                for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            },
            "spec": {"replicas": dep["spec"].get("replicas", 1)},
            "status": {
                "replicas": (dep.get("status") or {}).get("replicas", 0),
                "selector": ",".join(f"{k}={v}" for k, v in sorted(labels.items())),
            },
        }

    def _patch(
        self, kind: str, ns: str, name: str, sub: str | None, ctype: str, payload: Any
    ) -> Response:
        obj = self.objects[kind].get((ns, name))
        if obj is None:
            return self._not_found(kind, name)
        if sub not in (None, "scale") or (sub == "scale" and kind != "deployments"):
            return _status(404, "NotFound", f"no subresource {sub!r} of {kind}")
        work = copy.deepcopy(self._scale_view(obj) if sub == "scale" else obj)
        try:
            if ctype == "application/json-patch+json":
                if not isinstance(payload, list):
                    raise PatchError("a JSON patch must be a list of operations")
                json_patch(work, payload)
            elif ctype in (
                "application/strategic-merge-patch+json",
                "application/merge-patch+json",
            ):
                if not isinstance(payload, dict):
                    raise PatchError("a merge patch must be an object")
                merge_patch(work, payload, strategic=ctype.startswith("application/strategic"))
            else:
                return _status(
                    415,
                    "UnsupportedMediaType",
                    f"the body of the request was in an unknown format ({ctype or 'none'})",
                )
        except (PatchError, KeyError, IndexError, ValueError, TypeError) as e:
            return _status(422, "Invalid", f"{kind} {name!r} is invalid: {e}")
        if sub == "scale":
            replicas = (work.get("spec") or {}).get("replicas")
            if not isinstance(replicas, int) or replicas < 0:
                return _status(
                    422,
                    "Invalid",
                    f"Scale.apps {name!r} is invalid: spec.replicas: must be a non-negative integer",
                )
            obj["spec"]["replicas"] = replicas
            self._touch(obj)
            if kind == "deployments":
                self._reconcile(obj)
            return _json(200, self._scale_view(obj))
        work["metadata"]["name"], work["metadata"]["namespace"] = (
            name,
            ns or work["metadata"].get("namespace"),
        )
        self.objects[kind][(ns, name)] = work
        self._touch(work)
        if kind == "deployments":
            self._reconcile(work)  # a no-op unless the pod template changed
        return _json(200, work)

    def _create(self, kind: str, ns: str, payload: Any) -> Response:
        if not isinstance(payload, dict) or not (payload.get("metadata") or {}).get("name"):
            return _status(422, "Invalid", f"{kind}: metadata.name: Required value")
        name = payload["metadata"]["name"]
        if (ns, name) in self.objects[kind]:
            return _status(409, "AlreadyExists", f'{kind} "{name}" already exists', name=name)
        obj = copy.deepcopy(payload)
        if ns:
            obj["metadata"]["namespace"] = ns
        return _json(201, self.add(kind, obj))

    def _replace(self, kind: str, ns: str, name: str, payload: Any) -> Response:
        """PUT: optimistic concurrency on ``metadata.resourceVersion`` (409 when stale)."""
        old = self.objects[kind].get((ns, name))
        if old is None:
            return self._not_found(kind, name)
        if not isinstance(payload, dict):
            return _status(400, "BadRequest", "the request body is not an object")
        rv = (payload.get("metadata") or {}).get("resourceVersion")
        if rv and rv != old["metadata"].get("resourceVersion"):
            return _status(
                409,
                "Conflict",
                f'Operation cannot be fulfilled on {kind} "{name}": the object has been modified; '
                "please apply your changes to the latest version and try again",
            )
        obj = copy.deepcopy(payload)
        obj["metadata"] = {**old["metadata"], **(obj.get("metadata") or {})}
        self.objects[kind][(ns, name)] = obj
        self._touch(obj)
        if kind == "deployments":
            self._reconcile(obj)
        return _json(200, obj)

    def _touch(self, obj: dict) -> None:
        self._rv += 1
        obj["metadata"]["resourceVersion"] = str(self._rv)

    def _delete(self, kind: str, ns: str, name: str) -> Response:
        obj = self.objects[kind].pop((ns, name), None)
        if obj is None:
            return self._not_found(kind, name)
        if kind == "pods":
            return _json(200, obj)
        return _json(
            200,
            {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Success",
                "details": {"name": name, "kind": kind, "uid": obj["metadata"].get("uid")},
            },
        )
