"""SREMarathon-v0 on a live cluster: the backend choice, its arguments, and what differs at reset.

``gym.make("SREMarathon-v0", backend="live", kubeconfig=..., context=..., namespace=...,
prometheus_url=..., clock=...)`` runs the same env (tools, policy, recorder, bundle, scorer) on a
real Kubernetes cluster and Prometheus. ``live_config`` checks those arguments; ``live_backend``
runs the preflight (the env refuses to start when a check fails, with the checks' lines), draws the
schedule from the faults this cluster can inject (``LiveFaults.supported``: the profile's filter
gains their ids, recorded in the manifest), and makes the ``LiveBackend``. Invocations follow its
``clock`` at the 120-second cadence (the wall clock, or a ``CompressedClock`` in tests).

The no-action counterfactual of a live run is a recorded run: ``noaction_bundle`` names the sealed
bundle of a no-op run of the same (release, app, seed, schedule); its entry-point traffic becomes
``entry_noaction`` and the manifest names it (``noaction``: the bundle's directory name and seal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sre_gym.orchestrator.profiles import ScheduleProfile
from sre_gym.orchestrator.schedule import Schedule, schedule

BACKENDS = ("sim", "live")
LIVE_ARGS = (
    "kubeconfig",
    "context",
    "namespace",
    "prometheus_url",
    "clock",
    "api_client",  # a kubernetes ApiClient (instead of kubeconfig/context)
    "injector_api_client",  # the injector's own identity (default: the same client)
    "prometheus_headers",
    "images",  # format of images built from the change corpus: "{repo}:{change}", ...
    "noaction_bundle",  # the recorded no-op run of the same seed (the counterfactual)
    "preflight",  # False skips the checks (never for an evaluated run)
)


def live_config(backend: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """The live backend's arguments (None for the simulator); a clear error on anything else."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    unknown = sorted(set(args) - set(LIVE_ARGS))
    if unknown:
        raise TypeError(
            f"unexpected arguments {', '.join(unknown)} (live arguments: {', '.join(LIVE_ARGS)})"
        )
    if backend == "sim":
        if args:
            raise TypeError(f"{', '.join(sorted(args))} apply to backend='live' only")
        return None
    if not args.get("prometheus_url"):
        raise ValueError("backend='live' needs prometheus_url")
    return dict(args)


def _clock(cfg: dict[str, Any]) -> Any:
    from sre_gym.backends.live_time import WallClock

    return cfg.get("clock") or WallClock()


def _api(cfg: dict[str, Any]) -> Any:
    if cfg.get("api_client") is not None:
        return cfg["api_client"]
    from sre_gym.backends.live_preflight import api_client_from

    return api_client_from(cfg.get("kubeconfig"), cfg.get("context"))


def check(app: str, cfg: dict[str, Any], api: Any, release: str) -> None:
    """Refuse to start when the preflight fails, naming every failed check."""
    if cfg.get("preflight") is False:
        return
    from sre_gym.backends.live_preflight import MAX_SKEW_S, preflight

    clock = _clock(cfg)
    checks = preflight(
        app,
        prometheus_url=cfg["prometheus_url"],
        namespace=cfg.get("namespace"),
        api_client=api,
        prometheus_headers=cfg.get("prometheus_headers"),
        clock=clock.now,
        # the skew bound is wall seconds: on a compressed clock, k times as many episode seconds
        max_skew_s=MAX_SKEW_S * clock.scale.k,
        release=release,
    )
    failed = [c for c in checks if not c.ok]
    if failed:
        raise RuntimeError(
            "live preflight failed; the env does not start:\n" + "\n".join(c.line() for c in failed)
        )


def live_schedule(
    app: str, world: int, release: str, prof: ScheduleProfile, supported: set[str]
) -> tuple[Schedule, ScheduleProfile]:
    """The seeded schedule drawn from the faults this cluster can inject (the profile's own fault
    filter still applies)."""
    import fnmatch

    ids = sorted(supported)
    if prof.faults is not None:
        ids = [i for i in ids if any(fnmatch.fnmatchcase(i, p) for p in prof.faults)]
    live_prof = prof.model_copy(update={"faults": tuple(ids), "name": f"{prof.name}+live"})
    return schedule(app, world, release, live_prof), live_prof


def live_backend(env: Any, world: int, prof: ScheduleProfile, custom: Schedule | None) -> Any:
    """Preflight, the live schedule and the ``LiveBackend`` of one episode."""
    from sre_gym.backends.live import LiveBackend
    from sre_gym.backends.live_faults import LiveFaults
    from sre_gym.catalogs import load_catalog

    cfg = env.live
    api = _api(cfg)
    check(env.app, cfg, api, env.release)
    sched = custom
    cat = load_catalog(env.app, include_quarantined=custom is not None)
    probe = LiveFaults(
        Schedule(env.release, env.app, world, (), (), prof.duration_s, prof.duration_s, ""),
        0.0,
        1,
        api=api,
        namespace=cfg.get("namespace") or cat.app.namespace,
        release=env.release,
        images=cfg.get("images"),
    )
    ok = {f.id for f in cat.faults if probe.supported(f)}
    if sched is None:
        sched, env.live_profile = live_schedule(env.app, world, env.release, prof, ok)
    else:
        bad = sorted({sf.fault_id for sf in sched.faults} - ok)
        if bad:
            raise ValueError(
                f"this cluster cannot inject {', '.join(bad)} (they need Chaos Mesh or images=)"
            )
    return LiveBackend(
        env.app,
        namespace=cfg.get("namespace"),
        api_client=api,
        prometheus_url=cfg["prometheus_url"],
        prometheus_headers=cfg.get("prometheus_headers"),
        clock=_clock(cfg),
        seed=world,
        sched=sched,
        injector_api=cfg.get("injector_api_client"),
        images=cfg.get("images"),
        hold_s=env.scoring.repair_hold_s,
        persistence_s=env.scoring.persistence_s,
    )


def noaction_entry(
    cfg: dict[str, Any], manifest: dict[str, Any], n: int
) -> tuple[np.ndarray, dict]:
    """The recorded no-op run's entry traffic (``n`` ticks, zero-padded) and how the manifest names
    it; the run must be of the same release, app, seed and schedule."""
    import os

    from sre_gym.bundle import read_bundle, verify

    path = cfg["noaction_bundle"]
    seal = verify(path)
    base = read_bundle(path)
    for key in ("release", "app", "seed"):
        if base.manifest.get(key) != manifest.get(key):
            raise ValueError(
                f"noaction_bundle {path}: {key} is {base.manifest.get(key)!r}, this run's {manifest.get(key)!r}"
            )
    if base.manifest["env"].get("schedule_profile") != manifest["env"].get("schedule_profile"):
        raise ValueError(f"noaction_bundle {path}: another schedule profile")
    if any(e["type"] == "intervention" for e in base.events):
        raise ValueError(f"noaction_bundle {path}: that run intervened; record a no-op run")
    entry = np.zeros((n, 3))
    src = base.arrays["entry"][:n]
    entry[: len(src)] = src
    return entry, {"bundle": os.path.basename(os.path.normpath(str(path))), "seal": seal}
