"""Chaos Mesh experiments for the faults plain API objects cannot cause, used only when its CRDs are
present (optional).

A CPU hog or a memory balloon is a ``StressChaos``, network delay a ``NetworkChaos`` ``delay``,
each selecting the target's pods by label (``app=<target>``) in the app namespace, with the
catalog fault's magnitude (absolute, or a share of the container's limit). The experiment lasts
until it is deleted: the revert deletes it, and strips its ``chaos-mesh/records`` finalizer if the
controller does not (a chaos target in CrashLoopBackOff, the controller gone). ``present`` asks
whether the object still exists. The classes are ``Mechanism`` implementations for
``live_faults.LiveFaults``, which detects the CRDs (``chaos_mesh_present``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from sre_gym.backends.base import OperationError
from sre_gym.catalogs.schema import parse_cpu, parse_mem
from sre_gym.orchestrator.faults import Injection, aliases

if TYPE_CHECKING:
    from sre_gym.backends.live_faults import LiveFaults

GROUP, VERSION = "chaos-mesh.org", "v1alpha1"


def chaos_mesh_present(apis: Any) -> bool:
    """Does the API server serve the ``chaos-mesh.org`` group (its CRDs are installed)?"""
    try:
        groups = apis.get_api_versions().groups or []
    except Exception:  # noqa: BLE001 - no discovery, no Chaos Mesh
        return False
    return any(g.name == GROUP for g in groups)


class ChaosExperiment:
    """One Chaos Mesh experiment per injection (``StressChaos`` or ``NetworkChaos``)."""

    def __init__(self, plural: str, kind: str, what: str) -> None:
        self.plural, self.kind, self.what = plural, kind, what

    def always_revert(self, drv: LiveFaults, inj: Injection) -> bool:
        return False

    def spec(self, drv: LiveFaults, inj: Injection) -> dict[str, Any]:
        f = inj.fault
        p = f.params
        limits = (drv.container(f.target).get("resources") or {}).get("limits") or {}
        selector = {"namespaces": [drv.namespace], "labelSelectors": {"app": f.target}}
        if self.what == "delay":
            return {
                "action": "delay",
                "mode": "all",
                "selector": selector,
                "direction": "to",
                "delay": {"latency": f"{float(p['delay_ms']):g}ms", "jitter": "0ms"},
            }
        if self.what == "cpu":
            cores = (
                float(p["cores"])
                if "cores" in p
                else float(p["cores_frac"]) * parse_cpu(str(limits.get("cpu", "1")))
            )
            return {
                "mode": "all",
                "selector": selector,
                "stressors": {"cpu": {"workers": max(1, math.ceil(cores)), "load": 100}},
            }
        mib = (
            float(p["balloon_mi"])
            if "balloon_mi" in p
            else float(p["balloon_frac"]) * parse_mem(str(limits.get("memory", "256Mi")))
        )
        return {
            "mode": "all",
            "selector": selector,
            "stressors": {"memory": {"workers": 1, "size": f"{int(mib)}MiB"}},
        }

    def inject(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        f = inj.fault
        name = f"{f.target}-{self.what}-{inj.index}"
        body = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": self.kind,
            "metadata": {"name": name, "namespace": drv.namespace},
            "spec": self.spec(drv, inj),
        }
        drv.call(
            self.kind,
            name,
            drv.custom.create_namespaced_custom_object,
            GROUP,
            VERSION,
            drv.namespace,
            self.plural,
            body,
        )
        pods = drv.plain(
            drv.call(
                "pods",
                None,
                drv.core.list_namespaced_pod,
                drv.namespace,
                label_selector=f"app={f.target}",
            )
        )
        names = [(p.get("metadata") or {}).get("name", "") for p in pods.get("items") or []]
        inj.detail.update(chaos=name, plural=self.plural)
        inj.artifacts = aliases(
            f"deployment/{f.target}",
            f"deployments/{f.target}",
            *names,
            *(f"pod/{n}" for n in names),
        )

    def present(self, drv: LiveFaults, inj: Injection) -> bool:
        try:
            drv.call(
                self.kind,
                inj.detail["chaos"],
                drv.custom.get_namespaced_custom_object,
                GROUP,
                VERSION,
                drv.namespace,
                self.plural,
                inj.detail["chaos"],
            )
        except OperationError:
            return False
        return True

    def revert(self, drv: LiveFaults, inj: Injection, t: float) -> None:
        name = inj.detail["chaos"]
        args = (GROUP, VERSION, drv.namespace, self.plural, name)
        drv.call(self.kind, name, drv.custom.delete_namespaced_custom_object, *args)
        if self.present(drv, inj):  # a finalizer holds it: strip it (a merge patch)
            drv.call(
                self.kind,
                name,
                drv.custom.patch_namespaced_custom_object,
                *args,
                {"metadata": {"finalizers": []}},
            )


CHAOS: dict[str, ChaosExperiment] = {
    "cpu_hog": ChaosExperiment("stresschaos", "StressChaos", "cpu"),
    "mem_balloon": ChaosExperiment("stresschaos", "StressChaos", "memory"),
    "network_delay": ChaosExperiment("networkchaos", "NetworkChaos", "delay"),
}
