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
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from sre_gym.catalogs import load_app
from sre_gym.clock import EPOCH, rfc3339  # EPOCH: 2026-01-01T00:00:00Z, the default fake time

Response = tuple[int, str, bytes]

# resource plural -> (API group prefix, Kind)
RESOURCES: dict[str, tuple[str, str]] = {
    "pods": ("/api/v1", "Pod"),
    "services": ("/api/v1", "Service"),
    "events": ("/api/v1", "Event"),
    "configmaps": ("/api/v1", "ConfigMap"),
    "secrets": ("/api/v1", "Secret"),
    "namespaces": ("/api/v1", "Namespace"),
    "nodes": ("/api/v1", "Node"),
    "deployments": ("/apis/apps/v1", "Deployment"),
    "replicasets": ("/apis/apps/v1", "ReplicaSet"),
    "networkpolicies": ("/apis/networking.k8s.io/v1", "NetworkPolicy"),
}
CLUSTER_SCOPED = frozenset({"namespaces", "nodes"})
API_VERSION = {
    "/api/v1": "v1",
    "/apis/apps/v1": "apps/v1",
    "/apis/networking.k8s.io/v1": "networking.k8s.io/v1",
}
REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"


def _json(status: int, obj: Any) -> Response:
    return status, "application/json", json.dumps(obj).encode()


def _status(code: int, reason: str, message: str, **details: Any) -> Response:
    return _json(
        code,
        {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure" if code >= 400 else "Success",
            "message": message,
            "reason": reason,
            "details": details,
            "code": code,
        },
    )


class _Handler(BaseHTTPRequestHandler):
    owner: _Server  # set on the per-server subclass
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after shutdown

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        pass

    def _serve(self) -> None:
        url = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if self.command == "POST" and ctype == "application/x-www-form-urlencoded":
            form = parse_qs(body.decode(), keep_blank_values=True)
            params.update({k: v[-1] for k, v in form.items()})
        try:
            status, out_type, payload = self.owner.handle(
                self.command, unquote(url.path), params, ctype, body
            )
        except Exception as e:  # a bug in a fake must show up as an answer, not a hung client
            status, out_type, payload = _status(500, "InternalError", f"{type(e).__name__}: {e}")
        self.send_response(status)
        self.send_header("Content-Type", out_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve


class _Server:
    """An HTTP server on 127.0.0.1:<free port> in a background thread; use as a context manager."""

    def __init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.lock = threading.RLock()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> str:
        """Bind and serve; returns the base URL."""
        if self._httpd is None:
            handler = type("Handler", (_Handler,), {"owner": self})
            httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
            httpd.daemon_threads = False
            httpd.block_on_close = True  # server_close joins every request thread
            self._httpd = httpd
            self._thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"{type(self).__name__}-{httpd.server_address[1]}",
                daemon=True,
            )
            self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving, close the socket and join the threads."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            if self._thread is not None:
                self._thread.join(timeout=10)
        self._httpd, self._thread = None, None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        raise NotImplementedError


# ---------------------------------------------------------------------------------------- patches
def merge_patch(dst: dict, patch: dict, *, strategic: bool) -> dict:
    """Apply a JSON merge patch (RFC 7386) or, with ``strategic``, a simple strategic-merge patch:
    ``null`` deletes a key, objects merge recursively, and lists of objects that all carry a ``name``
    merge item by item on it (containers, env); ``$``-directives are ignored."""
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge_patch(dst[k], v, strategic=strategic)
        elif (
            strategic
            and isinstance(v, list)
            and isinstance(dst.get(k), list)
            and all(isinstance(x, dict) and "name" in x for x in [*v, *dst[k]])
        ):
            by_name = {x["name"]: x for x in dst[k]}
            for item in v:
                if item["name"] in by_name:
                    merge_patch(by_name[item["name"]], item, strategic=True)
                else:
                    new = merge_patch({}, item, strategic=True)
                    dst[k].append(new)
                    by_name[new["name"]] = new
        elif isinstance(v, dict):
            dst[k] = merge_patch({}, v, strategic=strategic)
        else:
            dst[k] = copy.deepcopy(v)
    return dst


class PatchError(ValueError):
    pass


def _pointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(doc: dict, ops: list) -> dict:
    """Apply a JSON patch (RFC 6902: add, replace, remove, test) to ``doc`` in place."""
    for op in ops:
        parts = _pointer(op["path"])
        parent: Any = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent.get(p)
            if parent is None:
                raise PatchError(f"path {op['path']!r} does not exist")
        last = parts[-1]
        kind = op["op"]
        if isinstance(parent, list):
            i = len(parent) if last == "-" else int(last)
            if kind == "add":
                parent.insert(i, copy.deepcopy(op["value"]))
            elif kind == "replace":
                parent[i] = copy.deepcopy(op["value"])
            elif kind == "remove":
                del parent[i]
            elif kind == "test" and parent[i] != op["value"]:
                raise PatchError(f"test failed at {op['path']!r}")
            continue
        if kind in ("replace", "remove", "test") and last not in parent:
            raise PatchError(f"path {op['path']!r} does not exist")
        if kind in ("add", "replace"):
            parent[last] = copy.deepcopy(op["value"])
        elif kind == "remove":
            del parent[last]
        elif kind == "test" and parent[last] != op["value"]:
            raise PatchError(f"test failed at {op['path']!r}")
        elif kind not in ("add", "replace", "remove", "test"):
            raise PatchError(f"unsupported JSON patch op {kind!r}")
    return doc


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


def _template_key(template: dict) -> str:
    """A pod template's identity without the pod-template-hash label (as the controller compares)."""
    t = copy.deepcopy(template)
    labels = (t.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    return json.dumps(t, sort_keys=True)


def _hash(text: str, n: int = 10) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


# ---------------------------------------------------------------------------------------- kubernetes
class FakeKubernetes(_Server):
    """An in-memory Kubernetes API server seeded with one catalog app (deployments, replicasets,
    pods, services, nodes, namespaces, a configmap, a secret and a few events).

    ``mutations`` records every PATCH, POST, PUT and DELETE (method, path, content type, JSON body),
    answered or not; ``refuse(...)`` makes the next matching request fail with a given status.
    """

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        namespace: str | None = None,
        clock: Callable[[], float] | None = None,
        replicas: int | None = None,
    ) -> None:
        super().__init__()
        self.clock = clock or (lambda: float(EPOCH))
        self.app = load_app(app)
        self.namespace = namespace or self.app.namespace
        self.objects: dict[str, dict[tuple[str, str], dict]] = {k: {} for k in RESOURCES}
        self.logs: dict[str, list[tuple[float, str]]] = {}
        self.mutations: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self._refusals: list[tuple[str, str, int, str, str]] = []
        self._rv = 0
        self._seed(replicas)

    # ------------------------------------------------------------------ the test-facing API
    def add(self, kind: str, obj: dict) -> dict:
        """Store an object (a plain API dict); fills namespace, uid and creationTimestamp."""
        with self.lock:
            obj = copy.deepcopy(obj)
            meta = obj.setdefault("metadata", {})
            if kind not in CLUSTER_SCOPED:
                meta.setdefault("namespace", self.namespace)
            meta.setdefault("uid", _hash(f"{kind}/{meta.get('namespace', '')}/{meta['name']}", 32))
            meta.setdefault("creationTimestamp", rfc3339(self.clock()))
            group, kind_name = RESOURCES[kind]
            obj.setdefault("apiVersion", API_VERSION[group])
            obj.setdefault("kind", kind_name)
            self._rv += 1
            meta["resourceVersion"] = str(self._rv)
            self.objects[kind][(meta.get("namespace", ""), meta["name"])] = obj
            return obj

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict | None:
        """A deep copy of a stored object, or None."""
        ns = "" if kind in CLUSTER_SCOPED else (namespace or self.namespace)
        with self.lock:
            obj = self.objects[kind].get((ns, name))
            return copy.deepcopy(obj) if obj is not None else None

    def names(self, kind: str, namespace: str | None = None) -> list[str]:
        ns = "" if kind in CLUSTER_SCOPED else (namespace or self.namespace)
        with self.lock:
            return sorted(n for (o_ns, n) in self.objects[kind] if o_ns == ns)

    def remove(self, kind: str, name: str, namespace: str | None = None) -> None:
        ns = "" if kind in CLUSTER_SCOPED else (namespace or self.namespace)
        with self.lock:
            self.objects[kind].pop((ns, name), None)

    def pods_of(self, deployment: str) -> list[str]:
        """Names of the pods labelled ``app=<deployment>``."""
        with self.lock:
            return sorted(
                o["metadata"]["name"]
                for o in self.objects["pods"].values()
                if (o["metadata"].get("labels") or {}).get("app") == deployment
            )

    def replicasets_of(self, deployment: str) -> list[dict]:
        """The deployment's ReplicaSets, oldest revision first (deep copies)."""
        with self.lock:
            rss = [copy.deepcopy(r) for r in self._owned_rs(deployment)]
        return sorted(rss, key=lambda r: int(r["metadata"]["annotations"][REVISION]))

    def set_logs(self, pod: str, lines: list[tuple[float, str]]) -> None:
        """The log of a pod's container(s): (unix time, line) pairs."""
        with self.lock:
            self.logs[pod] = sorted(lines, key=lambda x: x[0])

    def rollout(
        self,
        deployment: str,
        *,
        image: str | None = None,
        env: dict[str, str] | None = None,
        cause: str = "",
    ) -> dict:
        """Change a deployment's pod template as a CI deploy would (a new ReplicaSet and revision)."""
        with self.lock:
            dep = self.objects["deployments"][(self.namespace, deployment)]
            c = dep["spec"]["template"]["spec"]["containers"][0]
            if image is not None:
                c["image"] = image
            for k, v in (env or {}).items():
                merge_patch(c, {"env": [{"name": k, "value": v}]}, strategic=True)
            if cause:
                dep["metadata"].setdefault("annotations", {})[CHANGE_CAUSE] = cause
            self._reconcile(dep)
            return copy.deepcopy(dep)

    def refuse(
        self,
        method: str,
        path_contains: str,
        status: int = 409,
        reason: str = "Conflict",
        message: str = "the object has been modified; please apply your changes to the latest version and try again",
    ) -> None:
        """Make the next ``method`` request whose path contains ``path_contains`` fail."""
        with self.lock:
            self._refusals.append((method.upper(), path_contains, status, reason, message))

    # ------------------------------------------------------------------ seeding
    def _seed(self, replicas: int | None) -> None:
        ns = self.namespace
        for n in ("default", "kube-system", "kube-node-lease", "monitoring", ns):
            self.add(
                "namespaces",
                {
                    "metadata": {"name": n},
                    "spec": {"finalizers": ["kubernetes"]},
                    "status": {"phase": "Active"},
                },
            )
        for node in self.app.nodes:
            self.add(
                "nodes",
                {
                    "metadata": {
                        "name": node.name,
                        "labels": {
                            "kubernetes.io/hostname": node.name,
                            "topology.kubernetes.io/zone": node.zone,
                        },
                    },
                    "spec": {},
                    "status": {
                        "conditions": [
                            {
                                "type": "Ready",
                                "status": "True",
                                "reason": "KubeletReady",
                                "message": "kubelet is posting ready status",
                            }
                        ]
                    },
                },
            )
        nodes = [n.name for n in self.app.nodes]
        for i, svc in enumerate(self.app.services):
            reps = svc.replicas if replicas is None else replicas
            container: dict[str, Any] = {
                "name": svc.container,
                "image": svc.image,
                "env": [{"name": k, "value": str(v)} for k, v in svc.env.items()],
                "resources": {
                    "requests": {
                        "cpu": svc.resources.cpu_request,
                        "memory": svc.resources.mem_request,
                    },
                    "limits": {"cpu": svc.resources.cpu_limit, "memory": svc.resources.mem_limit},
                },
            }
            if svc.port is not None:
                container["ports"] = [{"containerPort": svc.port}]
            if svc.readiness is not None:
                handler = {"http": "httpGet", "grpc": "grpc", "tcp": "tcpSocket"}[
                    svc.readiness.kind
                ]
                probe: dict[str, Any] = {"port": svc.readiness.port}
                if handler == "httpGet":
                    probe["path"] = "/_healthz"
                container["readinessProbe"] = {handler: probe, "periodSeconds": 5}
            labels = {"app": svc.name}
            dep = self.add(
                "deployments",
                {
                    "metadata": {
                        "name": svc.name,
                        "labels": labels,
                        "generation": 1,
                        "annotations": {},
                    },
                    "spec": {
                        "replicas": reps,
                        "selector": {"matchLabels": labels},
                        "strategy": {
                            "type": "RollingUpdate",
                            "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"},
                        },
                        "template": {
                            "metadata": {"labels": dict(labels)},
                            "spec": {"containers": [container]},
                        },
                    },
                    "status": {
                        "observedGeneration": 1,
                        "replicas": reps,
                        "updatedReplicas": reps,
                        "readyReplicas": reps,
                        "availableReplicas": reps,
                    },
                },
            )
            rs = self._reconcile(dep)
            rs["status"] = {"replicas": reps, "readyReplicas": reps, "availableReplicas": reps}
            for k in range(reps):
                self._add_pod(svc.name, rs, nodes[(i + k) % len(nodes)], k)
            if svc.port is not None:
                port = svc.service_port or svc.port
                self.add(
                    "services",
                    {
                        "metadata": {"name": svc.name, "labels": labels},
                        "spec": {
                            "type": "ClusterIP",
                            "clusterIP": f"10.96.{(i * 37) % 250 + 1}.{(i * 91) % 250 + 2}",
                            "ports": [
                                {
                                    "name": "grpc" if port != 8080 else "http",
                                    "port": port,
                                    "targetPort": svc.port,
                                    "protocol": "TCP",
                                }
                            ],
                            "selector": labels,
                        },
                    },
                )
        self.add(
            "configmaps",
            {
                "metadata": {"name": "kube-root-ca.crt"},
                "data": {"ca.crt": "-----BEGIN CERTIFICATE-----\n...\n"},
            },
        )
        self.add(
            "secrets",
            {
                "metadata": {"name": "db-password"},
                "type": "Opaque",
                "data": {"password": "aHVudGVyMg=="},
            },
        )
        t = self.clock()
        first = self.app.services[0].name
        self.add_event(
            "Deployment",
            first,
            "ScalingReplicaSet",
            f"Scaled up replica set {self.replicasets_of(first)[-1]['metadata']['name']} to 1",
            t - 60,
        )
        pod = self.pods_of(first)[0] if self.pods_of(first) else None
        if pod:
            self.add_event("Pod", pod, "Started", "Started container server", t - 50)

    def _add_pod(self, dep: str, rs: dict, node: str, k: int) -> dict:
        h = rs["metadata"]["labels"][HASH_LABEL]
        name = f"{rs['metadata']['name']}-{_hash(f'{dep}/{h}/{k}', 5)}"
        t = rfc3339(self.clock() - 3600)
        c = rs["spec"]["template"]["spec"]["containers"][0]
        return self.add(
            "pods",
            {
                "metadata": {
                    "name": name,
                    "labels": dict(rs["spec"]["template"]["metadata"]["labels"]),
                    "ownerReferences": [
                        {
                            "apiVersion": "apps/v1",
                            "kind": "ReplicaSet",
                            "name": rs["metadata"]["name"],
                            "uid": rs["metadata"]["uid"],
                            "controller": True,
                        }
                    ],
                    "creationTimestamp": t,
                },
                "spec": {
                    "nodeName": node,
                    "containers": copy.deepcopy(rs["spec"]["template"]["spec"]["containers"]),
                },
                "status": {
                    "phase": "Running",
                    "startTime": t,
                    "conditions": [{"type": "Ready", "status": "True"}],
                    "containerStatuses": [
                        {
                            "name": c["name"],
                            "image": c["image"],
                            "imageID": "",
                            "ready": True,
                            "started": True,
                            "restartCount": 0,
                            "state": {"running": {"startedAt": t}},
                        }
                    ],
                },
            },
        )

    def add_event(
        self,
        kind: str,
        name: str,
        reason: str,
        message: str,
        t: float,
        type_: str = "Normal",
        count: int = 1,
    ) -> dict:
        """Record an event about an object of the app namespace."""
        ts = rfc3339(t)
        return self.add(
            "events",
            {
                "metadata": {
                    "name": f"{name}.{_hash(f'{kind}/{name}/{reason}/{t}', 16)}",
                    "creationTimestamp": ts,
                },
                "involvedObject": {"kind": kind, "name": name, "namespace": self.namespace},
                "reason": reason,
                "message": message,
                "type": type_,
                "count": count,
                "firstTimestamp": ts,
                "lastTimestamp": ts,
                "source": {"component": "fake-cluster"},
            },
        )

    # ------------------------------------------------------------------ the controller, roughly
    def _owned_rs(self, deployment: str) -> list[dict]:
        return [
            r
            for (ns, _), r in self.objects["replicasets"].items()
            if ns == self.namespace
            and any(
                o.get("kind") == "Deployment" and o.get("name") == deployment
                for o in r["metadata"].get("ownerReferences") or []
            )
        ]

    def _reconcile(self, dep: dict) -> dict:
        """Give the deployment's current template a ReplicaSet at the head of the revision history."""
        name = dep["metadata"]["name"]
        key = _template_key(dep["spec"]["template"])
        rss = self._owned_rs(name)
        top = max((int(r["metadata"]["annotations"][REVISION]) for r in rss), default=0)
        match = next((r for r in rss if _template_key(r["spec"]["template"]) == key), None)
        annotations = dep["metadata"].setdefault("annotations", {})
        if match is not None and int(match["metadata"]["annotations"][REVISION]) == top:
            rs = match
        else:
            if match is None:
                h = _hash(key)
                template = copy.deepcopy(dep["spec"]["template"])
                template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = h
                labels = dict(template["metadata"]["labels"])
                rs = self.add(
                    "replicasets",
                    {
                        "metadata": {
                            "name": f"{name}-{h}",
                            "labels": labels,
                            "annotations": {},
                            "ownerReferences": [
                                {
                                    "apiVersion": "apps/v1",
                                    "kind": "Deployment",
                                    "name": name,
                                    "uid": dep["metadata"]["uid"],
                                    "controller": True,
                                }
                            ],
                        },
                        "spec": {
                            "replicas": 0,
                            "selector": {"matchLabels": labels},
                            "template": template,
                        },
                        "status": {"replicas": 0},
                    },
                )
            else:
                rs = match
            rs["metadata"]["annotations"][REVISION] = str(top + 1)
            if annotations.get(CHANGE_CAUSE):
                rs["metadata"]["annotations"][CHANGE_CAUSE] = annotations[CHANGE_CAUSE]
            dep["metadata"]["generation"] = int(dep["metadata"].get("generation", 1)) + (
                1 if top else 0
            )
        annotations[REVISION] = rs["metadata"]["annotations"][REVISION]
        for r in rss + ([rs] if rs not in rss else []):
            r["spec"]["replicas"] = dep["spec"].get("replicas", 1) if r is rs else 0
        return rs

    # ------------------------------------------------------------------ HTTP
    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        with self.lock:
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
            for i, (m, frag, code, reason, message) in enumerate(self._refusals):
                if m == method and frag in path:
                    del self._refusals[i]
                    return _status(code, reason, message)
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
            return _status(
                405, "MethodNotAllowed", f"{method} is not supported on {path} by the fake"
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


# ---------------------------------------------------------------------------------------- prometheus
class FakePrometheus(_Server):
    """Canned answers to ``/api/v1/query``, ``/api/v1/query_range`` and ``/api/v1/alerts``.

    Set ``instant[query]`` / ``ranges[query]`` to a ``data`` object (``{"resultType", "result"}``)
    and ``alerts`` to the list ``/api/v1/alerts`` returns. An unknown query gets an empty result; a
    query containing ``bad{`` gets Prometheus' HTTP 400 ``bad_data`` parse error. ``queries`` records
    every request (path and parameters).
    """

    def __init__(self) -> None:
        super().__init__()
        self.instant: dict[str, dict[str, Any]] = {}
        self.ranges: dict[str, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.queries: list[dict[str, Any]] = []

    def set_alerts(self, alerts: list[dict[str, Any]]) -> None:
        with self.lock:
            self.alerts = copy.deepcopy(alerts)

    def handle(
        self, method: str, path: str, params: dict[str, str], ctype: str, body: bytes
    ) -> Response:
        with self.lock:
            self.queries.append({"path": path, "method": method, **params})
            if path == "/api/v1/alerts":
                return _json(
                    200, {"status": "success", "data": {"alerts": copy.deepcopy(self.alerts)}}
                )
            if path not in ("/api/v1/query", "/api/v1/query_range"):
                return 404, "text/plain; charset=utf-8", b"404 page not found\n"
            query = params.get("query")
            if not query:
                return _json(
                    400,
                    {
                        "status": "error",
                        "errorType": "bad_data",
                        "error": 'invalid parameter "query": unknown query',
                    },
                )
            if "bad{" in query:
                col = query.index("bad{") + 5
                return _json(
                    400,
                    {
                        "status": "error",
                        "errorType": "bad_data",
                        "error": f'invalid parameter "query": 1:{col}: parse error: unexpected end of input inside braces',
                    },
                )
            if path == "/api/v1/query":
                data = self.instant.get(query, {"resultType": "vector", "result": []})
            else:
                data = self.ranges.get(query, {"resultType": "matrix", "result": []})
            return _json(200, {"status": "success", "data": copy.deepcopy(data)})


class FakeCluster:
    """A FakeKubernetes and a FakePrometheus started and stopped together."""

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        clock: Callable[[], float] | None = None,
        replicas: int | None = None,
    ) -> None:
        self.kube = FakeKubernetes(app, clock=clock, replicas=replicas)
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

    def api_client(self) -> Any:
        """A real ``kubernetes.client.ApiClient`` pointed at the fake API server (needs the extra)."""
        from kubernetes import client

        cfg = client.Configuration()
        cfg.host = self.kube.url
        return client.ApiClient(cfg)
