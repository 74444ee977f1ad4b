"""Load the benchmark release (apps, faults, changes) from the YAML catalogs shipped in the package."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

import yaml
from pydantic import ValidationError

from sre_gym.catalogs.schema import App, AppCatalog, Change, Fault, FaultTemplate, Release, Team

RELEASE = "sre-marathon-r2"  # r2: the open, slow world (benign stream, timing, open world)
APPS: tuple[str, ...] = ("online-boutique", "train-ticket", "astronomy-shop")
PREFIX = {"online-boutique": "ob", "train-ticket": "tt", "astronomy-shop": "as"}
NODE_MECHANISMS = frozenset({"node_failure"})
ZONE_MECHANISMS = frozenset({"zone_outage"})


# libyaml's loader when the wheel has it (about ten times faster): the change corpus is large, and
# the pipeline reads a manifest at every deploy
YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class CatalogError(ValueError):
    """A catalog file is missing, malformed or inconsistent."""


def catalog_dir() -> Path:
    return Path(str(resources.files("sre_gym.catalogs")))


def _read_yaml(path: Path) -> object:
    try:
        with open(path, encoding="utf-8") as f:
            return yaml.load(f, Loader=YAML_LOADER)
    except FileNotFoundError as e:
        raise CatalogError(f"missing catalog file {path}") from e
    except yaml.YAMLError as e:
        raise CatalogError(f"{path}: invalid YAML: {e}") from e


def _family(folder: Path, name: str) -> list[Path]:
    """``<name>.yaml`` then ``<name>-*.yaml`` in a folder (an app's catalog may span files)."""
    main = folder / f"{name}.yaml"
    rest = sorted(p for p in folder.glob(f"{name}-*.yaml"))
    return ([main] if main.exists() else []) + rest


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
    router = app.router or app.entrypoint
    for r in app.routes:
        for s in r.calls:
            if s not in r.soft:
                up.setdefault(s, set()).add(router)
    if router != app.entrypoint:
        up.setdefault(router, set()).add(app.entrypoint)
    seen, stack = {service}, [service]
    while stack:
        for c in up.get(stack.pop(), ()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return [s.name for s in app.services if s.name in seen]


def quarantine_path() -> Path:
    return catalog_dir() / "quarantine.yaml"


@functools.cache
def load_quarantine() -> dict[str, dict[str, str]]:
    """app -> {fault id: reason} for faults that failed validation (kept out of schedules)."""
    path = quarantine_path()
    if not path.exists():
        return {}
    doc = _read_yaml(path) or {}
    return {app: dict(v or {}) for app, v in doc.get("quarantine", {}).items()}


def write_quarantine(
    failed: dict[tuple[str, str], str], apps: list[str], replace_all: bool
) -> None:
    """Record validation failures; with ``replace_all`` the apps' previous entries are dropped."""
    cur = {a: dict(v) for a, v in load_quarantine().items()}
    for app in apps:
        if replace_all:
            cur[app] = {}
    for (app, fid), reason in failed.items():
        cur.setdefault(app, {})[fid] = reason
    body = {"quarantine": {a: dict(sorted(v.items())) for a, v in sorted(cur.items()) if v}}
    text = (
        "# Faults that failed `sre-gym catalog validate` (observable, no-op keeps failing, oracle\n"
        "# repairs in time); schedules leave them out until they are fixed.\n"
    )
    with open(quarantine_path(), "w", encoding="utf-8") as f:
        f.write(text + yaml.safe_dump(body, sort_keys=False, width=120))
    load_quarantine.cache_clear()
    load_catalog.cache_clear()


@functools.cache
def load_catalog(name: str, include_quarantined: bool = False) -> AppCatalog:
    """App, faults and changes of one app, cross-checked against each other."""
    if not include_quarantined:
        # the same models as the whole catalog's, less the quarantined faults: the change corpus
        # is validated and held once per process, not once per variant (about 3 MB an app)
        whole = load_catalog(name, include_quarantined=True)
        q = load_quarantine().get(name, {})
        return whole.model_copy(update={"faults": [f for f in whole.faults if f.id not in q]})
    app = load_app(name)
    base = catalog_dir()
    fpath = base / "faults" / f"{name}.yaml"
    if not fpath.exists():
        raise CatalogError(f"missing catalog file {fpath}")
    changes: list[Change] = []
    published: dict[str, list[str]] = {}
    for cpath in _family(base / "changes", name):
        doc = _read_yaml(cpath) or {}
        try:
            changes += [Change.model_validate(c) for c in doc.get("changes", [])]
        except ValidationError as e:
            raise CatalogError(f"{cpath}: {e}") from e
        for svc, tags in (doc.get("published_tags") or {}).items():
            published.setdefault(svc, []).extend(str(t) for t in tags)
    by_change = {c.id: c for c in changes}
    if len(by_change) != len(changes):
        raise CatalogError(f"changes of {name}: duplicate change ids")
    services = {s.name for s in app.services}
    nodes = {n.name for n in app.nodes}
    faults = []
    parsed: list[tuple[Path, Fault]] = []
    for path in _family(base / "faults", name):
        doc = _read_yaml(path) or {}
        for raw in doc.get("faults", []):
            raw = dict(raw, app=name)
            try:
                parsed.append((path, Fault.model_validate(raw)))
            except ValidationError as e:
                raise CatalogError(f"{path}: fault {raw.get('id')}: {e}") from e
        for raw in doc.get("templates", []):
            try:
                tpl = FaultTemplate.model_validate(raw)
                parsed += [(path, f) for f in tpl.expand(PREFIX[name], name)]
            except ValidationError as e:
                raise CatalogError(f"{path}: template {raw.get('id')}: {e}") from e
    zones = {n.zone for n in app.nodes}
    for fpath, f in parsed:
        node_fault = f.mechanism in NODE_MECHANISMS
        zone_fault = f.mechanism in ZONE_MECHANISMS
        known = nodes if node_fault else zones if zone_fault else services
        if f.target not in known:
            raise CatalogError(f"{fpath}: fault {f.id}: unknown target {f.target!r}")
        if f.change is not None:
            ch = by_change.get(f.change)
            if ch is None:
                raise CatalogError(f"{fpath}: fault {f.id}: unknown change {f.change!r}")
            if ch.service != f.target and not ch.flags:
                raise CatalogError(f"{fpath}: fault {f.id}: change {ch.id} is for {ch.service}")
        probe_on = {"node_workloads": nodes, "zone_available": zones}.get(f.probe.kind, services)
        if f.probe.service not in probe_on or (f.probe.peer and f.probe.peer not in services):
            raise CatalogError(f"{fpath}: fault {f.id}: probe names an unknown entity")
        updates: dict[str, object] = {}
        if not f.affected and not node_fault and not zone_fault:
            updates["affected"] = hard_callers(app, f.target)
        if not f.culprits:
            updates["culprits"] = [f.target]
        faults.append(f.model_copy(update=updates) if updates else f)
    ids = [f.id for f in faults]
    if len(set(ids)) != len(ids):
        raise CatalogError(f"{fpath}: duplicate fault ids")
    teams = load_teams(name)
    owned = {s for t in teams for s in t.services}
    for c in changes:
        if c.service not in owned:
            raise CatalogError(f"change {c.id}: no team in teams.yaml owns {c.service!r}")
    for svc in published:
        if svc not in services:
            raise CatalogError(f"published_tags of {name}: unknown service {svc!r}")
    return AppCatalog(
        app=app, faults=faults, changes=changes, teams=teams, published_tags=published
    )


@functools.cache
def load_teams(name: str) -> list[Team]:
    """The teams of one app (``catalogs/teams.yaml``)."""
    path = catalog_dir() / "teams.yaml"
    doc = _read_yaml(path) or {}
    try:
        return [Team.model_validate(t) for t in (doc.get("teams") or {}).get(name, [])]
    except ValidationError as e:
        raise CatalogError(f"{path}: {e}") from e


@functools.cache
def load_release(version: str = RELEASE) -> Release:
    if version != RELEASE:
        raise CatalogError(f"unknown release {version!r}; this package ships {RELEASE!r}")
    return Release(version=version, apps={a: load_catalog(a) for a in APPS})
