"""What the fake cluster's workloads do: a tiny Deployment controller, a kubelet, and the app's traffic.

``FakeWorld`` runs on the state of a fake Kubernetes API (``KubeStore``) at the store's clock, each
time the API or the exporter is read (``sync``):

- the controller gives the current ReplicaSet of every deployment ``spec.replicas`` pods, keeps the
  old ReplicaSet's pods until the new ones are ready (a rollout with ``maxUnavailable`` rounding to 0,
  as for the catalog's small replica counts), replaces deleted pods, and updates the status counts;
- the kubelet decides each pod's state from its template: an image no registry holds waits in
  ``ImagePullBackOff``; a container whose command exits, or whose memory limit is below its working
  set, crash-loops (``CrashLoopBackOff``, ``OOMKilled``); a readiness probe on the wrong port never
  passes; pods on a node with a ``NoExecute`` taint are evicted, and new pods go only to
  schedulable, untainted nodes (else they stay ``Pending``);
- the traffic model serves the catalog's load through its call graph with the behaviour the
  simulator compiles for the same template (``sim.state.compile_behaviour``: bad addresses, added
  latency, defects of images built from the change corpus), plus NetworkPolicies that leave a
  callee out, feature flags in ``flagd-config`` and CPU limits below the load.

``rates()`` gives the per-service and per-edge request rates, error shares and latencies that the
loopback exporter (``fake_exporter.py``) turns into series. Nothing here reads the wall clock.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import parse_cpu, parse_mem
from sre_gym.clock import rfc3339
from sre_gym.sim.state import Deployment, Image, Template, compile_behaviour
from sre_gym.sim.topology import compile_topology

if TYPE_CHECKING:
    from sre_gym.testing.fake_kube_store import KubeStore

CRASH_EVERY_S = 40.0  # a crash-looping container restarts about this often (back-off included)
NO_EXECUTE = "NoExecute"
FLAG_KEY = "demo.flagd.json"


@dataclass
class Behaviour:
    """What the pods of one template do."""

    image_ok: bool = True
    crash: str | None = None  # "Error" or "OOMKilled"
    probe_ok: bool = True
    err: float = 0.0
    lat_ms: float = 0.0
    corrupt: float = 0.0
    broken: set[str] = field(default_factory=set)  # callees it cannot reach
    cpu_limit: float = math.inf
    mem_limit: float = math.inf
    log: str = ""


@dataclass
class Rates:
    """The app's traffic now: per service requests/s, error share, p95 (ms), corrupt share; per
    edge attempts/s and failure share; per pod CPU throttled periods/s."""

    req: dict[str, float]
    err: dict[str, float]
    p95: dict[str, float]
    corrupt: dict[str, float]
    edges: dict[tuple[str, str], tuple[float, float]]
    throttled: dict[str, float]
    entry: str


class FakeWorld:
    """The controller, kubelet and traffic of one fake cluster (see the module docstring)."""

    def __init__(self, store: KubeStore) -> None:
        self.store = store
        self.app = store.app
        self.topo = compile_topology(self.app.name)
        cat = load_catalog(self.app.name, include_quarantined=True)
        # the registry: base images, published tags, and an image built from each change of the
        # corpus, tagged with the change id (what CI would have pushed)
        self.images: dict[str, Image] = {}
        for s in self.app.services:
            repo = s.image.rsplit(":", 1)[0]
            self.images[s.image] = Image(s.image, s.name, None, None)
            for tag in cat.published_tags.get(s.name, []):
                self.images[f"{repo}:{tag}"] = Image(f"{repo}:{tag}", s.name, None, None)
        for ch in cat.changes:
            repo = self.app.service(ch.service).image.rsplit(":", 1)[0]
            ref = f"{repo}:{ch.id}"
            self.images[ref] = Image(ref, ch.service, ch.id, ch.defect, ch)
        self.config_changes = [c for c in cat.changes if c.kind == "config" and c.env]
        self._serial = 0
        self._behaviours: dict[tuple[str, str], Behaviour] = {}
        self._created: dict[str, float] = {}  # pod -> episode time it was created
        self._seen: set[tuple[str, str, str]] = set()  # (kind, name, reason) already evented

    # ------------------------------------------------------------------ behaviour of a template
    def behaviour(self, service: str, template: dict) -> Behaviour:
        """What pods of ``service`` with this pod template do (memoised per template)."""
        key = (service, json.dumps(template, sort_keys=True))
        b = self._behaviours.get(key)
        if b is None:
            b = self._behaviours[key] = self._behaviour(service, template)
        return b

    def _behaviour(self, service: str, template: dict) -> Behaviour:
        svc = self.app.service(service)
        c = ((template.get("spec") or {}).get("containers") or [{}])[0]
        env = {e.get("name"): str(e.get("value", "")) for e in c.get("env") or [] if "name" in e}
        limits = (c.get("resources") or {}).get("limits") or {}
        probe = c.get("readinessProbe") or {}
        port = next(
            (probe[h].get("port") for h in ("httpGet", "grpc", "tcpSocket") if h in probe), None
        )
        tpl = Template(
            image=str(c.get("image", "")),
            env=tuple(sorted(env.items())),
            cpu_limit=str(limits.get("cpu", svc.resources.cpu_limit)),
            mem_limit=str(limits.get("memory", svc.resources.mem_limit)),
            readiness_port=port,
        )
        b = Behaviour()
        if service not in self.topo.index:  # the load generator, flagd
            b.image_ok = tpl.image in self.images or tpl.image == svc.image
            return b
        dep = Deployment(service, self.topo.index[service], svc.container, 1, [])
        images = dict(self.images)
        for ch in self.config_changes:  # a config change's own defect, while its settings hold
            if (
                ch.service == service
                and ch.defect
                and all(env.get(k) == v for k, v in ch.env.items())
            ):
                images[tpl.image] = Image(tpl.image, service, None, ch.defect, ch)
        beh = compile_behaviour(self.topo, dep, tpl, images)
        b.image_ok, b.probe_ok = beh.image_ok, beh.probe_ok
        b.err, b.lat_ms, b.corrupt, b.log = beh.err, beh.lat_ms, beh.corrupt, beh.log
        b.cpu_limit, b.mem_limit = beh.cpu_limit, beh.mem_limit
        b.broken = {self.topo.names[i] for i in np.nonzero(beh.addr_bad)[0]}
        if c.get("command"):  # an entrypoint override the image does not have exits at once
            b.crash = "Error"
        elif np.isfinite(beh.crash_after) or beh.leak > 0:
            b.crash = "Error" if np.isfinite(beh.crash_after) else "OOMKilled"
        elif svc.perf is not None and beh.mem_limit < svc.perf.mem_base_mi:
            b.crash = "OOMKilled"
        return b

    def flag_effects(self) -> dict[str, Any]:
        """service -> FlagEffect of every catalog flag whose ``defaultVariant`` in ``flagd-config``
        is not its default (the flag file as flagd would read it)."""
        if not self.app.flags or not self.app.flag_configmap:
            return {}
        cm = self.store.objects["configmaps"].get((self.store.namespace, self.app.flag_configmap))
        try:
            flags = json.loads((cm or {}).get("data", {}).get(FLAG_KEY, "{}")).get("flags", {})
        except ValueError:
            return {}
        out: dict[str, Any] = {}
        for f in self.app.flags:
            chosen = (flags.get(f.name) or {}).get("defaultVariant", f.default)
            if chosen != f.default:
                out.update(f.effects)
        return out

    # ------------------------------------------------------------------ controller and kubelet
    def sync(self) -> None:
        """Bring pods and statuses up to the store's clock (call with the store's lock held)."""
        st = self.store
        now = st.clock()
        nodes = st.objects["nodes"]
        evicting = {n for (_, n), o in nodes.items() if _tainted(o, NO_EXECUTE)}
        schedulable = sorted(
            n
            for (_, n), o in nodes.items()
            if not (o.get("spec") or {}).get("unschedulable")
            and not _tainted(o, NO_EXECUTE)
            and not _tainted(o, "NoSchedule")
        )
        for (ns, _name), dep in list(st.objects["deployments"].items()):
            if ns != st.namespace:
                continue
            st._reconcile(dep)
            self._sync_deployment(dep, now, evicting, schedulable)

    def _sync_deployment(self, dep: dict, now: float, evicting: set[str], nodes: list[str]) -> None:
        st = self.store
        name = dep["metadata"]["name"]
        rss = sorted(
            st._owned_rs(name),
            key=lambda r: int(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"]),
        )
        cur = rss[-1]
        want = int(dep["spec"].get("replicas", 1))
        pods = {r["metadata"]["name"]: [] for r in rss}
        for (ns, pname), p in list(st.objects["pods"].items()):
            owner = next((o["name"] for o in p["metadata"].get("ownerReferences") or []), None)
            if ns == st.namespace and owner in pods:
                if p["spec"].get("nodeName") in evicting:
                    del st.objects["pods"][(ns, pname)]
                    self._event(
                        "Pod",
                        pname,
                        "TaintManagerEviction",
                        "Marking for deletion Pod",
                        now,
                        "Normal",
                    )
                    continue
                pods[owner].append(p)
        b = self.behaviour(name, cur["spec"]["template"])
        mine = pods[cur["metadata"]["name"]]
        while len(mine) > want:
            victim = mine.pop()
            del st.objects["pods"][(st.namespace, victim["metadata"]["name"])]
        while len(mine) < want:
            mine.append(self._new_pod(cur, nodes, now))
        for p in mine:
            self._kubelet(p, b, now, name)
        ready_new = sum(1 for p in mine if _ready(p))
        old = [p for r in rss[:-1] for p in pods[r["metadata"]["name"]]]
        if ready_new >= want or want == 0:
            for p in old:
                st.objects["pods"].pop((st.namespace, p["metadata"]["name"]), None)
            old = []
        else:  # the old pods keep serving until the new ones are ready (maxUnavailable 0)
            keep = max(0, want - ready_new)
            for p in old[keep:]:
                st.objects["pods"].pop((st.namespace, p["metadata"]["name"]), None)
            old = old[:keep]
            for r in rss[:-1]:
                rb = self.behaviour(name, r["spec"]["template"])
                for p in old:
                    if p["metadata"]["ownerReferences"][0]["name"] == r["metadata"]["name"]:
                        self._kubelet(p, rb, now, name)
        for r in rss:
            n = len(
                [
                    p
                    for p in mine + old
                    if p["metadata"]["ownerReferences"][0]["name"] == r["metadata"]["name"]
                ]
            )
            r["spec"]["replicas"] = n
            ready = len(
                [
                    p
                    for p in mine + old
                    if p["metadata"]["ownerReferences"][0]["name"] == r["metadata"]["name"]
                    and _ready(p)
                ]
            )
            r["status"] = {"replicas": n, "readyReplicas": ready, "availableReplicas": ready}
        ready_all = sum(1 for p in mine + old if _ready(p))
        dep["status"] = {
            "observedGeneration": dep["metadata"].get("generation", 1),
            "replicas": len(mine) + len(old),
            "updatedReplicas": len(mine),
            "readyReplicas": ready_all,
            "availableReplicas": ready_all,
        }

    def _new_pod(self, rs: dict, nodes: list[str], now: float) -> dict:
        st = self.store
        self._serial += 1
        h = rs["metadata"]["labels"]["pod-template-hash"]
        suffix = hashlib.sha256(f"{h}/{self._serial}".encode()).hexdigest()[:5]
        name = f"{rs['metadata']['name']}-{suffix}"
        node = nodes[self._serial % len(nodes)] if nodes else None
        t = rfc3339(now)
        tpl = rs["spec"]["template"]
        pod = st.add(
            "pods",
            {
                "metadata": {
                    "name": name,
                    "labels": dict(tpl["metadata"]["labels"]),
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
                    "containers": json.loads(json.dumps(tpl["spec"]["containers"])),
                },
                "status": {
                    "phase": "Pending",
                    "conditions": [{"type": "Ready", "status": "False"}],
                },
            },
        )
        self._created[name] = now
        if node is None:
            self._event(
                "Pod",
                name,
                "FailedScheduling",
                "0/4 nodes are available: node(s) had untolerated taint or were unschedulable",
                now,
            )
        else:
            self._event(
                "Pod",
                name,
                "Scheduled",
                f"Successfully assigned {st.namespace}/{name} to {node}",
                now,
                "Normal",
            )
        return pod

    def _kubelet(self, pod: dict, b: Behaviour, now: float, service: str) -> None:
        """The pod's status as the kubelet would report it now."""
        name = pod["metadata"]["name"]
        created = self._created.get(name)
        if created is None:  # a seeded pod: up since before the run
            created = self._created[name] = now - 3600
        cname = pod["spec"]["containers"][0]["name"]
        cs: dict[str, Any] = {
            "name": cname,
            "image": pod["spec"]["containers"][0].get("image"),
            "imageID": "",
            "restartCount": 0,
        }
        boot = self.app.startup_of(service).boot_s
        if not pod["spec"].get("nodeName"):
            phase, ready, cs["state"] = (
                "Pending",
                False,
                {"waiting": {"reason": "ContainerCreating"}},
            )
        elif not b.image_ok:
            phase, ready = "Pending", False
            cs["state"] = {
                "waiting": {
                    "reason": "ImagePullBackOff",
                    "message": f'Back-off pulling image "{cs["image"]}"',
                }
            }
            self._event(
                "Pod", name, "Failed", f'Failed to pull image "{cs["image"]}": not found', now
            )
        elif b.crash is not None:
            phase, ready = "Running", False
            n = 1 + int((now - created) // CRASH_EVERY_S)
            cs["restartCount"] = n
            cs["state"] = {
                "waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": "back-off restarting failed container",
                }
            }
            code = 137 if b.crash == "OOMKilled" else 2
            cs["lastState"] = {
                "terminated": {
                    "reason": b.crash,
                    "exitCode": code,
                    "finishedAt": rfc3339(created + (n - 1) * CRASH_EVERY_S),
                }
            }
            self._event("Pod", name, "BackOff", "Back-off restarting failed container", now)
        else:
            phase = "Running"
            ready = b.probe_ok and now - created >= boot
            cs["state"] = {"running": {"startedAt": rfc3339(created)}}
            if not b.probe_ok:
                self._event(
                    "Pod", name, "Unhealthy", "Readiness probe failed: connection refused", now
                )
        cs["ready"] = ready
        cs["started"] = phase == "Running"
        pod["status"] = {
            "phase": phase,
            "startTime": rfc3339(created),
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
            "containerStatuses": [cs],
        }

    def _event(
        self, kind: str, name: str, reason: str, message: str, t: float, type_: str = "Warning"
    ) -> None:
        key = (kind, name, reason)
        if key not in self._seen:
            self._seen.add(key)
            self.store.add_event(kind, name, reason, message, t, type_)

    # ------------------------------------------------------------------ traffic
    def rates(self) -> Rates:
        """The app's traffic now, from the pods and templates as they stand (after ``sync``)."""
        st, topo, app = self.store, self.topo, self.app
        names = topo.names
        lg = app.loadgen
        entry_rps = lg.users * lg.requests_per_task / (sum(lg.wait_s) / 2.0)
        beh: dict[str, Behaviour] = {}
        up: dict[str, int] = {}
        for s in names:
            dep = st.objects["deployments"].get((st.namespace, s))
            pods = [
                p
                for p in st.objects["pods"].values()
                if (p["metadata"].get("labels") or {}).get("app") == s
            ]
            serving = [p for p in pods if _ready(p)]
            up[s] = len(serving)
            tpl = serving[0]["spec"] if serving else None
            b = (
                self.behaviour(s, {"spec": tpl} if tpl else dep["spec"]["template"])
                if dep
                else Behaviour()
            )
            beh[s] = b
        flags = self.flag_effects()
        blocked = self._blocked()
        chaos = self._chaos_ms()
        err_tot: dict[str, float] = {}
        p95: dict[str, float] = {}
        edge_fail: dict[tuple[str, str], float] = {}
        for level in topo.levels:  # leaves first
            for i in level:
                s = names[i]
                b = beh[s]
                fe = flags.get(s)
                own = b.err + (fe.error_rate if fe is not None else 0.0)
                ok = 1.0 - min(1.0, own)
                lat = (
                    topo.base_ms[i] * math.exp(1.645 * topo.sigma[i])
                    + b.lat_ms
                    + (fe.latency_ms if fe else 0.0)
                    + chaos.get(s, 0.0)
                )
                for j in np.nonzero(topo.calls[i])[0]:
                    callee = names[j]
                    down = up[callee] == 0
                    f = (
                        1.0
                        if (down or callee in b.broken or (s, callee) in blocked)
                        else err_tot[callee]
                    )
                    if fe is not None and callee in fe.broken_edges:
                        f = 1.0
                    edge_fail[(s, callee)] = f
                    if topo.hard[i, j]:
                        ok *= (1.0 - f) ** min(1.0, float(topo.calls[i, j]))
                    lat += 0.5 * float(topo.calls[i, j]) * (p95[callee] if not down else 0.0)
                err_tot[s] = 1.0 - ok if up[s] else 1.0
                p95[s] = float(lat)
        req = dict.fromkeys(names, 0.0)
        req[names[topo.ingress]] = entry_rps
        edges: dict[tuple[str, str], tuple[float, float]] = {}
        for level in reversed(topo.levels):  # the entry point first
            for i in level:
                s = names[i]
                if up[s] == 0:
                    continue
                for j in np.nonzero(topo.calls[i])[0]:
                    att = req[s] * float(topo.calls[i, j])
                    edges[(s, names[j])] = (att, edge_fail[(s, names[j])])
                    if edge_fail[(s, names[j])] < 1.0:
                        req[names[j]] += att
        throttled: dict[str, float] = {}
        for p in st.objects["pods"].values():
            s = (p["metadata"].get("labels") or {}).get("app")
            if s in beh and _ready(p) and up[s]:
                i = topo.index[s]
                demand = req[s] / up[s] * topo.cpu_ms[i] / 1000.0
                over = demand / max(beh[s].cpu_limit, 1e-9)
                throttled[p["metadata"]["name"]] = 10.0 * min(1.0, max(0.0, (over - 0.7) / 0.3))
                if over > 1.0:
                    p95[s] *= over
        return Rates(
            req=req,
            err={s: err_tot[s] for s in names},
            p95=p95,
            corrupt={s: beh[s].corrupt for s in names},
            edges=edges,
            throttled=throttled,
            entry=names[topo.ingress],
        )

    def _chaos_ms(self) -> dict[str, float]:
        """Latency Chaos Mesh experiments add to their target (a delay; a CPU or memory stress
        slows the pods by about their base latency again)."""
        st, out = self.store, {}
        for plural in ("networkchaos", "stresschaos"):
            for (ns, _), ch in st.objects.get(plural, {}).items():
                if ns != st.namespace:
                    continue
                spec = ch.get("spec") or {}
                target = ((spec.get("selector") or {}).get("labelSelectors") or {}).get("app")
                if target not in self.topo.index:
                    continue
                if plural == "networkchaos":
                    delay = str((spec.get("delay") or {}).get("latency", "0ms"))
                    ms = float(delay.removesuffix("ms") or 0)
                else:
                    ms = float(self.topo.base_ms[self.topo.index[target]])
                out[target] = out.get(target, 0.0) + ms
        return out

    def _blocked(self) -> set[tuple[str, str]]:
        """(client, server) pairs an egress NetworkPolicy leaves out."""
        out: set[tuple[str, str]] = set()
        st = self.store
        for (ns, _), pol in st.objects["networkpolicies"].items():
            if ns != st.namespace:
                continue
            spec = pol.get("spec") or {}
            if "Egress" not in (spec.get("policyTypes") or []):
                continue
            src = ((spec.get("podSelector") or {}).get("matchLabels") or {}).get("app")
            allowed = {
                (peer.get("podSelector") or {}).get("matchLabels", {}).get("app")
                for rule in spec.get("egress") or []
                for peer in rule.get("to") or []
            }
            for callee in self.topo.names:
                if src is not None and callee not in allowed:
                    out.add((src, callee))
        return out

    def limits_of(self, pod: dict) -> tuple[float, float]:
        """(cpu cores, memory bytes) limits of a pod's first container."""
        c = pod["spec"]["containers"][0]
        lim = (c.get("resources") or {}).get("limits") or {}
        svc = self.app.service((pod["metadata"].get("labels") or {}).get("app"))
        cpu = parse_cpu(str(lim.get("cpu", svc.resources.cpu_limit)))
        mem = parse_mem(str(lim.get("memory", svc.resources.mem_limit))) * 1024 * 1024
        return cpu, mem


def _tainted(node: dict, effect: str) -> bool:
    return any(t.get("effect") == effect for t in (node.get("spec") or {}).get("taints") or [])


def _ready(pod: dict) -> bool:
    conds = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conds)
