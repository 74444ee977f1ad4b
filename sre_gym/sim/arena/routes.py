"""Service admin routes beyond config, event and stats: svc-message's sequencer helper (served by
the config broker) and its runtime checkpoint control (documented only inside its pods).

A PUT changes the running service; with ``persist`` it is also stored (the broker, or the app's
``app_runtime`` row), which is what a restart reads back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SEQUENCER = "svc-message.sequencer_mode"
RUNTIME = "svc-message.runtime_mode"


@dataclass
class Route:
    op: str
    get: Callable[[], dict[str, Any]]
    put: Callable[[dict[str, Any], bool], tuple[dict[str, Any], list[str]]]
    hidden: bool = False  # not named in the service's route listing


def _mode_route(world: Any, key: str, modes: tuple[str, ...], op: str, hidden: bool) -> Route:
    def get() -> dict[str, Any]:
        out = {"mode": world.config[key], "stored": world.persisted[key]}
        if key == RUNTIME:
            out["generation"] = world.runtime_generation
            starts = sum(
                1 for _, svc, line in world.pod_log if svc == "svc-message" and "ready" in line
            )
            out["starts"] = starts
        return out

    def put(body: dict[str, Any], persist: bool) -> tuple[dict[str, Any], list[str]]:
        mode = body.get("mode")
        if set(body) != {"mode"} or mode not in modes:
            raise ValueError(f'PUT takes {{"mode": one of {list(modes)}, "persist": bool}}')
        world.set_config(key, mode, persist=persist)
        if persist and key == RUNTIME:
            world.runtime_generation += 1
        return {**get(), "persisted": persist}, []

    return Route(op, get, put, hidden)


def admin_routes(world: Any, service: str) -> dict[str, Route]:
    out: dict[str, Route] = {}
    if service != "svc-message":
        return out
    if SEQUENCER in world.config:
        out["/admin/sequencer"] = _mode_route(
            world, SEQUENCER, ("atomic", "rmw"), "sequencer", False
        )
    if RUNTIME in world.config:
        out["/admin/runtime"] = _mode_route(world, RUNTIME, ("request", "pinned"), "runtime", True)
    return out
