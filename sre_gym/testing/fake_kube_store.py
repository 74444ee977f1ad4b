"""The state of the fake Kubernetes API: its objects, their seeding from a catalog app, a controller.

``KubeStore`` holds plain API dicts by resource and (namespace, name), the pods' logs, and the record
of requests and mutations; its test-facing methods add, read, remove and roll out objects and set up
refusals. Its ``policy(verb, resource)`` is the identity's access that SelfSubjectAccessReviews
answer (``default_policy``: everything but Secrets and changes to namespaces), and ``version`` is
what ``/version`` answers. Seeding creates one catalog app's namespaces, nodes, deployments with
their ReplicaSets and pods, services, a configmap, a secret and a few events. The deployment
controller is emulated just far enough to give every new pod template a ReplicaSet and a revision
(pods are not replaced). The HTTP side is ``sre_gym.testing.fake_kube_routes``.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from typing import Any

from sre_gym.catalogs import load_app
from sre_gym.clock import EPOCH, rfc3339
from sre_gym.testing.fake_http import _Server
from sre_gym.testing.fake_patches import merge_patch

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
    # Chaos Mesh's CRDs, served only by a fake made with chaos_mesh=True
    "stresschaos": ("/apis/chaos-mesh.org/v1alpha1", "StressChaos"),
    "networkchaos": ("/apis/chaos-mesh.org/v1alpha1", "NetworkChaos"),
}
CHAOS_GROUP = "/apis/chaos-mesh.org/v1alpha1"
CLUSTER_SCOPED = frozenset({"namespaces", "nodes"})
API_VERSION = {
    "/api/v1": "v1",
    "/apis/apps/v1": "apps/v1",
    "/apis/networking.k8s.io/v1": "networking.k8s.io/v1",
    "/apis/chaos-mesh.org/v1alpha1": "chaos-mesh.org/v1alpha1",
}
# what GET /version answers (the fields the kubernetes client's VersionInfo requires)
VERSION = {
    "major": "1",
    "minor": "31",
    "gitVersion": "v1.31.0-fake",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2026-01-01T00:00:00Z",
    "goVersion": "go1.22.5",
    "compiler": "gc",
    "platform": "linux/amd64",
}
REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"


def _template_key(template: dict) -> str:
    """A pod template's identity without the pod-template-hash label (as the controller compares)."""
    t = copy.deepcopy(template)
    labels = (t.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    return json.dumps(t, sort_keys=True)


def _hash(text: str, n: int = 10) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def default_policy(verb: str, resource: str) -> bool:
    """The fake identity's access, as SelfSubjectAccessReviews answer it: everything except
    Secrets (any verb) and changing or deleting namespaces. ``resource`` names a subresource as
    ``pods/log``; a non-resource request passes its path (``/version``)."""
    base = resource.split("/", 1)[0]
    if base == "secrets":
        return False
    return not (base == "namespaces" and verb not in ("get", "list", "watch"))


class KubeStore(_Server):
    """The objects of a fake Kubernetes API server and the test-facing API to them (see
    ``FakeKubernetes``)."""

    def __init__(
        self,
        app: str = "online-boutique",
        *,
        namespace: str | None = None,
        clock: Callable[[], float] | None = None,
        replicas: int | None = None,
        world: bool = False,
        chaos_mesh: bool = False,
    ) -> None:
        super().__init__()
        self.chaos_mesh = chaos_mesh
        self.clock = clock or (lambda: float(EPOCH))
        self.app = load_app(app)
        self.namespace = namespace or self.app.namespace
        self.objects: dict[str, dict[tuple[str, str], dict]] = {k: {} for k in RESOURCES}
        self.logs: dict[str, list[tuple[float, str]]] = {}
        self.mutations: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self._refusals: list[tuple[str, str, int, str, str]] = []
        self._rv = 0
        # SelfSubjectAccessReviews: policy(verb, resource) -> allowed; each review's attributes
        self.policy: Callable[[str, str], bool] = default_policy
        self.access_reviews: list[dict[str, Any]] = []
        # a static RBAC table: bearer token -> (user name, RBAC rules); requests carrying a known
        # token are authorized against its rules (403 otherwise); see ``add_identity``
        self.identities: dict[str, tuple[str, list[dict[str, Any]]]] = {}
        self.version: dict[str, str] = dict(VERSION)
        self._seed(replicas)
        # with ``world``, a controller, kubelet and traffic model run on every read (fake_world.py)
        self.world: Any = None
        if world:
            from sre_gym.testing.fake_world import FakeWorld

            self.world = FakeWorld(self)

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

    def add_identity(self, token: str, user: str, rules: list[dict[str, Any]]) -> None:
        """Authorize requests bearing ``token`` as ``user`` with these RBAC rules."""
        with self.lock:
            self.identities[token] = (user, [dict(r) for r in rules])

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
        if self.app.flag_configmap:  # the OpenTelemetry demo's flag file, every flag at its default
            flags = {
                f.name: {
                    "state": "ENABLED",
                    "variants": {k: v for k, v in f.variants.items()},
                    "defaultVariant": f.default,
                }
                for f in self.app.flags
            }
            self.add(
                "configmaps",
                {
                    "metadata": {"name": self.app.flag_configmap},
                    "data": {"demo.flagd.json": json.dumps({"flags": flags}, indent=2)},
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
