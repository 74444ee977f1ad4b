"""Feature flags served by flagd, read from its ConfigMap, turned into per-service effects.

The flag file is the ConfigMap's ``demo.flagd.json`` (the OpenTelemetry demo's format: each flag has
``variants`` and a ``defaultVariant``). Changing a flag is a config change like any other; flagd
watches the file, so the effect starts at the next tick without a restart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from sre_gym.catalogs.schema import App
from sre_gym.sim.topology import Topology

FLAG_FILE = "demo.flagd.json"


# (id(app), chosen variants) -> (app, text): the file is rewritten at every flag change and, with
# ``indent``, json encodes in pure Python; the app is kept to check that the id still names it.
# Across episodes only the default file repeats (counted over five Astronomy Shop episodes, no-op
# and random remedies: one or two hits in 40-70 calls each), so a few entries do; 1,024 held ~10 MB.
_FILES: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[App, str]] = {}
_FILES_SIZE = 64


def flag_file(app: App, chosen: dict[str, str] | None = None) -> str:
    """The flagd config file with every flag at its default (or at ``chosen`` variants)."""
    key = (id(app), tuple(sorted((chosen or {}).items())))
    hit = _FILES.get(key)
    if hit is not None and hit[0] is app:
        return hit[1]
    if len(_FILES) >= _FILES_SIZE:
        _FILES.clear()
    text = _render(app, chosen or {})
    _FILES[key] = (app, text)
    return text


def _render(app: App, chosen: dict[str, str]) -> str:
    flags = {}
    for f in app.flags:
        flags[f.name] = {
            "state": "ENABLED",
            "variants": {k: v for k, v in f.variants.items()},
            "defaultVariant": chosen.get(f.name, f.default),
        }
    return json.dumps(
        {"$schema": "https://flagd.dev/schema/v0/flags.json", "flags": flags},
        indent=2,
        sort_keys=True,
    )


def variants_of(text: str) -> dict[str, str]:
    """flag -> chosen variant; a file flagd cannot parse leaves every flag at its default (empty)."""
    try:
        doc = json.loads(text)
        return {k: str(v.get("defaultVariant")) for k, v in doc.get("flags", {}).items()}
    except (ValueError, AttributeError):
        return {}


@dataclass
class FlagEffects:
    """Per-service (and per-deployment) arrays the dynamics and the kubelet add to their own."""

    err: np.ndarray
    lat: np.ndarray
    hog: np.ndarray
    broken: np.ndarray  # [n, n]
    leak: np.ndarray  # per deployment
    not_ready: np.ndarray  # per deployment
    publish: np.ndarray  # extra copies per message published, per service
    consume_ms: np.ndarray  # extra processing per consumed message, per service
    logs: dict[int, str]


def effects(
    topo: Topology, n_deps: int, dep_index: dict[str, int], chosen: dict[str, str]
) -> FlagEffects:
    n = topo.n
    out = FlagEffects(
        err=np.zeros(n),
        lat=np.zeros(n),
        hog=np.zeros(n),
        broken=np.zeros((n, n), dtype=bool),
        leak=np.zeros(n_deps),
        not_ready=np.zeros(n_deps, dtype=bool),
        publish=np.zeros(n),
        consume_ms=np.zeros(n),
        logs={},
    )
    for f in topo.app.flags:
        variant = chosen.get(f.name, f.default)
        if variant == f.default or variant not in f.variants or f.benchmark_owned:
            continue
        raw = f.variants[variant]
        v = 1.0 if raw is True else float(raw)
        if v == 0:
            continue
        for svc, e in f.effects.items():
            d = dep_index[svc]
            s = topo.index.get(svc)
            if s is not None:
                out.err[s] = 1.0 - (1.0 - out.err[s]) * (1.0 - min(1.0, e.error_rate * v))
                out.lat[s] += e.latency_ms * v
                out.hog[s] += e.cpu_cores * v
                out.publish[s] += e.publish_copies * v
                out.consume_ms[s] += e.consume_ms * v
                for c in e.broken_edges:
                    out.broken[s, topo.index[c]] = True
                if e.log:
                    out.logs[s] = e.log
            out.leak[d] += e.mem_leak_mib_s * v
            out.not_ready[d] |= e.not_ready
    return out
