"""Load the benchmark release (apps, faults, changes) from the YAML catalogs shipped in the package."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import yaml
from pydantic import ValidationError

from sre_gym.catalogs.schema import App, AppCatalog, Change, Fault, Release

RELEASE = "sre-marathon-r1"
APPS: tuple[str, ...] = ("online-boutique",)
NODE_MECHANISMS = frozenset({"node_failure"})


class CatalogError(ValueError):
    """A catalog file is missing, malformed or inconsistent."""


def catalog_dir() -> Path:
    return Path(str(resources.files("sre_gym.catalogs")))


def _read_yaml(path: Path) -> object:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.safe_load(f)
    except FileNotFoundError as e:
        raise CatalogError(f"missing catalog file {path}") from e
    except yaml.YAMLError as e:
        raise CatalogError(f"{path}: invalid YAML: {e}") from e


def _check_app(name: str) -> None:
    if name not in APPS:
        raise CatalogError(f"unknown app {name!r}; known apps: {', '.join(APPS)}")


@functools.cache
def load_app(name: str) -> App:
    _check_app(name)
    path = catalog_dir() / "apps" / f"{name}.yaml"
    try:
        return App.model_validate(_read_yaml(path))
    except ValidationError as e:
        raise CatalogError(f"{path}: {e}") from e


def hard_callers(app: App, service: str) -> list[str]:
    """``service`` plus every service that reaches it through hard dependencies, in catalog order."""
    up: dict[str, set[str]] = {}
    for e in app.edges:
        if e.hard:
            up.setdefault(e.callee, set()).add(e.caller)
    for r in app.routes:
        if any(s not in r.soft for s in r.calls):
            for s in r.calls:
                if s not in r.soft:
                    up.setdefault(s, set()).add(app.entrypoint)
    seen, stack = {service}, [service]
    while stack:
        for c in up.get(stack.pop(), ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return [s.name for s in app.services if s.name in seen]


@functools.cache
def load_catalog(name: str) -> AppCatalog:
    """App, faults and changes of one app, cross-checked against each other."""
    app = load_app(name)
    base = catalog_dir()
    fpath = base / "faults" / f"{name}.yaml"
    cpath = base / "changes" / f"{name}.yaml"
    try:
        changes = [Change.model_validate(c) for c in (_read_yaml(cpath) or {}).get("changes", [])]
    except ValidationError as e:
        raise CatalogError(f"{cpath}: {e}") from e
    by_change = {c.id: c for c in changes}
    if len(by_change) != len(changes):
        raise CatalogError(f"{cpath}: duplicate change ids")
    services = {s.name for s in app.services}
    nodes = {n.name for n in app.nodes}
    faults = []
    for raw in (_read_yaml(fpath) or {}).get("faults", []):
        raw = dict(raw, app=name)
        try:
            f = Fault.model_validate(raw)
        except ValidationError as e:
            raise CatalogError(f"{fpath}: fault {raw.get('id')}: {e}") from e
        node_fault = f.mechanism in NODE_MECHANISMS
        if (f.target not in nodes) if node_fault else (f.target not in services):
            raise CatalogError(f"{fpath}: fault {f.id}: unknown target {f.target!r}")
        if f.change is not None:
            ch = by_change.get(f.change)
            if ch is None:
                raise CatalogError(f"{fpath}: fault {f.id}: unknown change {f.change!r}")
            if ch.service != f.target:
                raise CatalogError(f"{fpath}: fault {f.id}: change {ch.id} is for {ch.service}")
        probe_on = nodes if f.probe.kind == "node_workloads" else services
        if f.probe.service not in probe_on or (f.probe.peer and f.probe.peer not in services):
            raise CatalogError(f"{fpath}: fault {f.id}: probe names an unknown entity")
        updates: dict[str, object] = {}
        if not f.affected and not node_fault:
            updates["affected"] = hard_callers(app, f.target)
        if not f.culprits:
            updates["culprits"] = [f.target]
        faults.append(f.model_copy(update=updates) if updates else f)
    ids = [f.id for f in faults]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"{fpath}: duplicate fault ids")
    return AppCatalog(app=app, faults=faults, changes=changes)


@functools.cache
def load_release(version: str = RELEASE) -> Release:
    if version != RELEASE:
        raise CatalogError(f"unknown release {version!r}; this package ships {RELEASE!r}")
    return Release(version=version, apps={a: load_catalog(a) for a in APPS})
