"""Fault injection on a live cluster, without Chaos Mesh: one mechanism class per way of causing a
fault, each reverted at its window's end and on any exit.

``LiveFaults`` is the live ``FaultDriver``: it applies the episode's schedule through ``MECHANISMS``
(``sre_gym.orchestrator.faults.Mechanism`` on the Kubernetes API), with the injector's own client.
What each does, saving the exact prior state and putting it back on revert:

- ``ConfigDrift``: an address setting of the target edited by hand (a strategic-merge patch of one
  env var; a new ReplicaSet revision with no change-cause);
- ``ScaleToZero``: the scale subresource to 0 (reverted to the saved count);
- ``EgressPolicy``: a NetworkPolicy allowing the target's egress to its callees but one (and DNS);
- ``NodeOutage``: a node, or every node of a zone, cordoned and tainted
  ``node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`` (Kubernetes' taint for a node that is
  shut down: its pods are evicted and rescheduled elsewhere);
- ``ChangeRollout``: a change of the corpus rolled out as a new ReplicaSet revision whose
  ``kubernetes.io/change-cause`` names the commit (``deploy <sha7>: <title>``): config changes set
  env vars, resource limits or the readiness port; image changes the tag; code changes an image
  built from the change (``images``, a format of ``{repo}``, ``{service}``, ``{change}``, ``{sha}``)
  or, for a change whose defect crashes the process and no image, a container command that exits
  (a crash loop); flag changes edit ``flagd-config`` and restart flagd. Its revert is the revert
  commit, rolled out the same way.

CPU hogs, memory balloons and network delay need Chaos Mesh: when its CRDs are present they are
``live_chaos`` experiments, otherwise those faults are left out of a live schedule (``supported``).
Every injection is reverted at its window's end, and by ``revert_all`` on ``close``, on an exception in the run, at interpreter exit (``atexit``) and on
SIGTERM (``install_exit_handlers``).
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import signal
import threading
from typing import Any

from sre_gym.backends.base import OperationError
from sre_gym.backends.live_chaos import CHAOS, chaos_mesh_present
from sre_gym.backends.live_client import LiveClient, k8s
from sre_gym.backends.live_objects import CHANGE_CAUSE, _annotations, _containers, _revision
from sre_gym.catalogs.schema import Change, Fault, parse_cpu, parse_mem
from sre_gym.orchestrator.changes import Presentation, present
from sre_gym.orchestrator.faults import (
    FaultDriver,
    Injection,
    aliases,
    change_aliases,
    key_aliases,
    node_aliases,
    policy_aliases,
    policy_name,
    replicas_aliases,
)
from sre_gym.orchestrator.schedule import Schedule
from sre_gym.rng import Streams, stable_hash

OUT_OF_SERVICE = {
    "key": "node.kubernetes.io/out-of-service",
    "value": "nodeshutdown",
    "effect": "NoExecute",
}
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
FLAG_KEY = "demo.flagd.json"
FLAGD = "flagd"


class _Mech:
    def always_revert(self, drv: LiveFaults, inj: Injection) -> bool:
        return False


class ConfigDrift(_Mech):
    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        f = inj.fault
        peer = str(f.params["peer"])
        edge = next((e for e in drv.app.edges if e.caller == f.target and e.callee == peer), None)
        if edge is None or not edge.addr_env:
            raise OperationError(f"{f.id}: {f.target} has no address setting for {peer}")
        cur = drv.env_of(f.target).get(edge.addr_env)
        host, _, port = (cur or "").rpartition(":")
        value = f"{host}:{int(port) + 1}" if port.isdigit() and host else f"{cur or ''}-v2"
        key = f"env.{edge.addr_env}"
        rev = drv.patch_template(f.target, env={edge.addr_env: value})
        inj.detail.update(key=key, value=value, before=cur)
        inj.artifacts = aliases(
            *key_aliases(f.target, key), f"{f.target}@{rev}", f"deployment/{f.target}@{rev}"
        )

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        return drv.env_of(inj.fault.target).get(inj.detail["key"][4:]) == inj.detail["value"]

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        drv.patch_template(inj.fault.target, env={inj.detail["key"][4:]: inj.detail["before"]})


class ScaleToZero(_Mech):
    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        target = inj.fault.target
        inj.detail.update(replicas=int(drv.deployment(target)["spec"].get("replicas", 1)))
        drv.scale(target, 0)
        inj.artifacts = replicas_aliases(target)

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        return int(drv.deployment(inj.fault.target)["spec"].get("replicas", 1)) == 0

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        drv.scale(inj.fault.target, inj.detail["replicas"])


class EgressPolicy(_Mech):
    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        f = inj.fault
        name = policy_name(f, drv.sched.seed)
        callees = sorted(
            {e.callee for e in drv.app.edges if e.caller == f.target} - {str(f.params["peer"])}
        )
        to = (
            [
                {
                    "to": [{"podSelector": {"matchLabels": {"app": c}}} for c in callees],
                    "ports": [
                        {"port": int(drv.app.service(c).port or 0), "protocol": "TCP"}
                        for c in callees
                    ],
                }
            ]
            if callees
            else []
        )
        to.append(
            {
                "to": [
                    {
                        "namespaceSelector": {
                            "matchLabels": {"kubernetes.io/metadata.name": "kube-system"}
                        }
                    }
                ],
                "ports": [{"port": 53, "protocol": "UDP"}],
            }
        )
        body = {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": name, "labels": {"policy.platform/owner": "platform-team"}},
            "spec": {
                "podSelector": {"matchLabels": {"app": f.target}},
                "policyTypes": ["Egress"],
                "egress": to,
            },
        }
        drv.call(
            "networkpolicy", name, drv.net.create_namespaced_network_policy, drv.namespace, body
        )
        inj.detail.update(policy=name)
        inj.artifacts = policy_aliases(name)

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        names = drv.plain(
            drv.call("networkpolicies", None, drv.net.list_namespaced_network_policy, drv.namespace)
        )
        return any(
            (p.get("metadata") or {}).get("name") == inj.detail["policy"]
            for p in names.get("items") or []
        )

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        name = inj.detail["policy"]
        drv.call(
            "networkpolicy", name, drv.net.delete_namespaced_network_policy, name, drv.namespace
        )


class NodeOutage(_Mech):
    def __init__(self, kind: str) -> None:
        self.kind = kind

    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        f = inj.fault
        nodes = (
            [f.target]
            if self.kind == "node"
            else [n.name for n in drv.app.nodes if n.zone == f.target]
        )
        saved, deps = {}, set()
        for n in nodes:
            node = drv.plain(drv.call("node", n, drv.core.read_node, n))
            spec = node.get("spec") or {}
            saved[n] = {
                "unschedulable": spec.get("unschedulable"),
                "taints": copy.deepcopy(spec.get("taints") or []),
            }
            pods = drv.plain(
                drv.call(
                    "pods",
                    None,
                    drv.core.list_namespaced_pod,
                    drv.namespace,
                    field_selector=f"spec.nodeName={n}",
                )
            )
            deps |= {
                (p["metadata"].get("labels") or {}).get("app") for p in pods.get("items") or []
            }
            taints = [x for x in saved[n]["taints"] if x.get("key") != OUT_OF_SERVICE["key"]] + [
                OUT_OF_SERVICE
            ]
            drv.call(
                "node",
                n,
                drv.core.patch_node,
                n,
                {"spec": {"unschedulable": True, "taints": taints}},
            )
        deps_l = sorted(d for d in deps if d and d in {s.name for s in drv.app.serving})
        from sre_gym.catalogs import hard_callers

        affected = sorted({s for d in deps_l for s in hard_callers(drv.app, d)})
        if self.kind == "zone":
            affected += nodes
        inj.affected = affected
        inj.detail.update(nodes=nodes, saved=saved, probe_deps=deps_l)
        inj.artifacts = node_aliases(self.kind, f.target, nodes)

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        for n in inj.detail["nodes"]:
            node = drv.plain(drv.call("node", n, drv.core.read_node, n))
            if any(
                x.get("key") == OUT_OF_SERVICE["key"]
                for x in (node.get("spec") or {}).get("taints") or []
            ):
                return True
        return False

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        for n, s in inj.detail["saved"].items():
            node = drv.plain(drv.call("node", n, drv.core.read_node, n))
            taints = [
                x
                for x in (node.get("spec") or {}).get("taints") or []
                if x.get("key") != OUT_OF_SERVICE["key"]
            ]
            drv.call(
                "node",
                n,
                drv.core.patch_node,
                n,
                {"spec": {"unschedulable": s["unschedulable"], "taints": taints or None}},
            )


class ChangeRollout(_Mech):
    def realisation(self, drv: LiveFaults, ch: Change) -> str | None:
        """How the change goes out on this cluster (None: it cannot)."""
        if ch.flags:
            return "flags" if drv.app.flag_configmap else None
        if ch.kind == "config":
            return "template"
        if ch.kind == "image":
            return "image"
        if drv.images:
            return "build"
        if ch.defect is not None and ch.defect.crash_after_s:
            return "crash"
        return None

    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        f = inj.fault
        ch = drv.changes[f.change]
        sha = drv.sha("fault", inj.index)
        shown = drv.shown[f"fault:{inj.index}"]
        cause = f"deploy {sha[:7]}: {shown.title}"
        how = self.realisation(drv, ch)
        before = drv.container(ch.service)
        inj.detail.update(change=ch, how=how, before=copy.deepcopy(before))
        inj.commit = sha
        image = before.get("image", "")
        if how == "flags":
            cm = drv.flag_doc()
            inj.detail["flag_doc"] = cm
            doc = json.loads(cm)
            for k, v in ch.flags.items():
                doc["flags"][k]["defaultVariant"] = v
            drv.write_flags(json.dumps(doc, indent=2))
            rev = drv.restart(FLAGD, cause)
        elif how == "template":
            res = {("cpu" if k == "cpu_limit" else "memory"): v for k, v in ch.resources.items()}
            rev = drv.patch_template(
                ch.service, env=dict(ch.env), limits=res, probe_port=ch.readiness_port, cause=cause
            )
        else:
            repo = image.rsplit(":", 1)[0]
            if how == "image":
                image = f"{repo}:{ch.image_tag}"
                rev = drv.patch_template(ch.service, image=image, cause=cause)
            elif how == "build":
                image = drv.images.format(repo=repo, service=ch.service, change=ch.id, sha=sha)
                rev = drv.patch_template(ch.service, image=image, cause=cause)
            else:  # a build that crashes on start, with the defect's last words
                msg = (ch.defect.log if ch.defect else "") or "fatal error"
                cmd = ["/bin/sh", "-c", f"echo {json.dumps(msg)} >&2; exit 2"]
                inj.detail["command"] = cmd
                rev = drv.patch_template(ch.service, command=cmd, cause=cause)
        inj.detail["image"] = image
        inj.artifacts = change_aliases(ch, sha, image, rev)

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        d, ch = inj.detail, inj.detail["change"]
        if d["how"] == "flags":
            flags = json.loads(drv.flag_doc()).get("flags", {})
            return any((flags.get(k) or {}).get("defaultVariant") == v for k, v in ch.flags.items())
        c = drv.container(ch.service)
        if d["how"] == "crash":
            return c.get("command") == d["command"]
        if d["how"] in ("image", "build"):
            return c.get("image") == d["image"]
        env = {e.get("name"): e.get("value") for e in c.get("env") or []}
        if any(env.get(k) != v for k, v in ch.env.items()):
            return False
        lim = (c.get("resources") or {}).get("limits") or {}
        for k, v in ch.resources.items():
            # the API server normalises quantities ("0.5" reads back as "500m"): compare values
            parse = parse_cpu if k == "cpu_limit" else parse_mem
            got = lim.get("cpu" if k == "cpu_limit" else "memory")
            if got is None or not _same_quantity(str(got), str(v), parse):
                return False
        return ch.readiness_port is None or _probe_port(c) == ch.readiness_port

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        d, ch = inj.detail, inj.detail["change"]
        sha = drv.sha("revert", inj.index)
        cause = f"deploy {sha[:7]}: {drv.shown[f'revert:{inj.index}'].title}"
        before = d["before"]
        if d["how"] == "flags":
            drv.write_flags(d["flag_doc"])
            drv.restart(FLAGD, cause)
        elif d["how"] == "template":
            benv = {e.get("name"): e.get("value") for e in before.get("env") or []}
            blim = (before.get("resources") or {}).get("limits") or {}
            res = {
                ("cpu" if k == "cpu_limit" else "memory"): blim.get(
                    "cpu" if k == "cpu_limit" else "memory"
                )
                for k in ch.resources
            }
            port = _probe_port(before) if ch.readiness_port is not None else None
            drv.patch_template(
                ch.service,
                env={k: benv.get(k) for k in ch.env},
                limits=res,
                probe_port=port,
                cause=cause,
            )
        elif d["how"] == "crash":
            drv.patch_template(ch.service, command=before.get("command"), cause=cause)
        else:
            drv.patch_template(ch.service, image=before.get("image"), cause=cause)


def _same_quantity(a: str, b: str, parse: Any) -> bool:
    try:
        return bool(parse(a) == parse(b))
    except ValueError:  # a form the catalog's parser does not read: compare the text
        return a == b


def _probe_port(c: dict) -> Any:
    probe = c.get("readinessProbe") or {}
    return next(
        (
            probe[h].get("port")
            for h in ("httpGet", "grpc", "tcpSocket")
            if isinstance(probe.get(h), dict)
        ),
        None,
    )


MECHANISMS: dict[str, Any] = {
    "config_drift": ConfigDrift(),
    "replicas_zero": ScaleToZero(),
    "network_partition": EgressPolicy(),
    "node_failure": NodeOutage("node"),
    "zone_outage": NodeOutage("zone"),
}
CHANGE = ChangeRollout()


class LiveFaults(LiveClient, FaultDriver):
    """The live fault driver (see the module docstring). ``api`` is the injector's client."""

    def __init__(
        self,
        sched: Schedule,
        episode_start: float,
        capacity: int,
        *,
        api: Any,
        namespace: str,
        release: str,
        images: str | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        FaultDriver.__init__(self, sched, episode_start, capacity)
        from sre_gym.catalogs import load_app, load_catalog

        self.app = load_app(sched.app)
        self.release, self.namespace, self.images = release, namespace, images
        self.api, self.timeout_s = api, timeout_s
        self.core, self.apps, self.net = (
            k8s.CoreV1Api(api),
            k8s.AppsV1Api(api),
            k8s.NetworkingV1Api(api),
        )
        self.custom = k8s.CustomObjectsApi(api)
        self._chaos: bool | None = None  # Chaos Mesh's CRDs installed (asked once)
        self.prom = None
        cat = load_catalog(sched.app, include_quarantined=True)
        deliveries = []
        for sf in sched.faults:
            f = self.faults[sf.fault_id]
            if f.change is not None:
                ch = self.changes[f.change]
                deliveries += [
                    (sf.start, f"fault:{sf.index}", ch),
                    (sf.end, f"revert:{sf.index}", ch),
                ]
        self.shown = present(cat, Streams(release, sched.app, sched.seed), deliveries)
        for key in [k for k in self.shown if k.startswith("revert:")]:
            fault = self.shown[f"fault:{key[7:]}"]
            self.shown[key] = Presentation(f'Revert "{fault.title}"', self.shown[key].author)
        self._lock = threading.RLock()
        self._closed = False

    # ------------------------------------------------------------------ the table
    def mechanism_of(self, f: Fault) -> Any:
        if f.delivery == "change":
            return CHANGE
        m = MECHANISMS.get(f.mechanism)
        if m is None and f.mechanism in CHAOS and self.chaos_mesh:
            m = CHAOS[f.mechanism]
        if m is None:
            raise OperationError(f"{f.id}: {f.mechanism} needs Chaos Mesh on a live cluster")
        return m

    @property
    def chaos_mesh(self) -> bool:
        """Are Chaos Mesh's CRDs installed (asked once)?"""
        if self._chaos is None:
            self._chaos = chaos_mesh_present(k8s.ApisApi(self.api))
        return self._chaos

    def supported(self, f: Fault) -> bool:
        """Can this cluster inject ``f``?"""
        if f.delivery == "change":
            return CHANGE.realisation(self, self.changes[f.change]) is not None
        return f.mechanism in MECHANISMS or (f.mechanism in CHAOS and self.chaos_mesh)

    def sha(self, *parts: object) -> str:
        """The commit of a delivery of this run: the simulator's, for the same (release, app, seed)."""
        return stable_hash(
            self.release, self.sched.app, self.sched.seed, "commit", *parts, digits=40
        )

    # ------------------------------------------------------------------ API helpers
    def call(self, what: str, name: str | None, fn: Any, *args: Any, **kw: Any) -> Any:
        return self._k8s(what, name, fn, *args, **kw)

    def plain(self, obj: Any) -> Any:
        return self._plain(obj)

    def deployment(self, name: str) -> dict:
        return self._deployment(name)

    def container(self, service: str) -> dict:
        return (
            _containers((self.deployment(service).get("spec") or {}).get("template") or {}) or [{}]
        )[0]

    def env_of(self, service: str) -> dict[str, str]:
        return {e.get("name"): e.get("value") for e in self.container(service).get("env") or []}

    def scale(self, name: str, replicas: int) -> None:
        self.call(
            "deployment",
            name,
            self.apps.patch_namespaced_deployment_scale,
            name,
            self.namespace,
            {"spec": {"replicas": int(replicas)}},
        )

    def patch_template(
        self,
        service: str,
        *,
        env: dict[str, str | None] | None = None,
        limits: dict[str, str | None] | None = None,
        probe_port: int | None = None,
        image: str | None = None,
        command: list[str] | None | bool = False,
        cause: str | None = None,
    ) -> int | None:
        """One strategic-merge patch of the service's first container (a value of None removes an
        env var or limit); returns the deployment's revision after the rollout starts."""
        c = self.container(service)
        change: dict[str, Any] = {"name": c.get("name")}
        if env:
            change["env"] = [
                {"name": k, "value": v} if v is not None else {"name": k, "$patch": "delete"}
                for k, v in env.items()
            ]
        if limits:
            change["resources"] = {"limits": dict(limits)}
        if probe_port is not None:
            probe = c.get("readinessProbe") or {}
            handler = next(
                (h for h in ("httpGet", "grpc", "tcpSocket") if isinstance(probe.get(h), dict)),
                "tcpSocket",
            )
            change["readinessProbe"] = {handler: {"port": int(probe_port)}}
        if image is not None:
            change["image"] = image
        if command is not False:
            change["command"] = command
        return self._roll(service, {"spec": {"containers": [change]}}, cause)

    def restart(self, service: str, cause: str | None = None) -> int | None:
        return self._roll(
            service, {"metadata": {"annotations": {RESTARTED_AT: cause or ""}}}, cause
        )

    def _roll(self, service: str, template: dict[str, Any], cause: str | None) -> int | None:
        """Patch the pod template (a new revision, its change-cause ``cause``); its number."""
        body: dict[str, Any] = {"spec": {"template": template}}
        if cause is not None:
            body["metadata"] = {"annotations": {CHANGE_CAUSE: cause}}
        self.call(
            "deployment",
            service,
            self.apps.patch_namespaced_deployment,
            service,
            self.namespace,
            body,
        )
        return _revision(self.deployment(service))

    def flag_doc(self) -> str:
        name = self.app.flag_configmap
        cm = self.plain(
            self.call("configmap", name, self.core.read_namespaced_config_map, name, self.namespace)
        )
        return (cm.get("data") or {}).get(FLAG_KEY, "{}")

    def write_flags(self, text: str) -> None:
        """Replace the flag file (read-modify-replace: a concurrent edit answers 409)."""
        name = self.app.flag_configmap
        cm = self.plain(
            self.call("configmap", name, self.core.read_namespaced_config_map, name, self.namespace)
        )
        cm.setdefault("data", {})[FLAG_KEY] = text
        self.call(
            "configmap", name, self.core.replace_namespaced_config_map, name, self.namespace, cm
        )

    # ------------------------------------------------------------------ safety
    def revert_all(self, t: float) -> list[int]:
        """Revert every injection still in place (on close, an exception, exit or SIGTERM)."""
        done = []
        with self._lock:
            for inj in list(self.injections):
                if inj is not None and not inj.reverted:
                    try:
                        self.revert(inj.index, t)
                        done.append(inj.index)
                    except Exception:  # noqa: BLE001 - revert the others whatever one does
                        inj.reverted = False
            self._closed = True
        return done

    def install_exit_handlers(self, clock: Any) -> None:
        """Revert at interpreter exit and on SIGTERM (then die of SIGTERM as before)."""
        atexit.register(self._at_exit, clock)
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.getsignal(signal.SIGTERM)
            signal.signal(signal.SIGTERM, self._on_sigterm)
            self._clock = clock

    def _at_exit(self, clock: Any) -> None:
        if not self._closed:
            self.revert_all(clock.now())

    def _on_sigterm(self, signum: int, frame: Any) -> None:
        self.revert_all(self._clock.now())
        prev = getattr(self, "_previous", signal.SIG_DFL)
        signal.signal(signal.SIGTERM, prev if prev is not None else signal.SIG_DFL)
        if callable(prev):
            prev(signum, frame)
        else:
            os.kill(os.getpid(), signal.SIGTERM)

    def uninstall_exit_handlers(self) -> None:
        atexit.unregister(self._at_exit)
        if (
            getattr(self, "_previous", None) is not None
            and threading.current_thread() is threading.main_thread()
        ):
            if signal.getsignal(signal.SIGTERM) == self._on_sigterm:
                signal.signal(signal.SIGTERM, self._previous)
            self._previous = None


__all__ = ["CHANGE", "MECHANISMS", "OUT_OF_SERVICE", "LiveFaults", "policy_name", "_annotations"]
