"""Per-service source trees: what each serving service's repository holds, and the checks run on it.

Every serving service of an app has a small source tree in ``sre_gym/catalogs/source/<app>/<service>/``
(the files its defects touch, its config, a unit-test file and its Kubernetes manifest under
``kubernetes/<service>.yaml``) and a ``meta.yaml`` (language, linter, base image, the unit-test
predicates and the commit history). Trees load lazily and are cached per process; trees are plain
``dict`` snapshots that are never mutated after creation.

The predicates evaluated on a tree live here too: the service's unit tests (``run_unit_tests``), a
change's ``fix`` predicate (``fix_holds``) and the container settings of its manifest
(``manifest_settings``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sre_gym.catalogs import YAML_LOADER, catalog_dir
from sre_gym.catalogs.schema import FixPredicate, manifest_path
from sre_gym.sim.lint import LINTERS

Tree = Mapping[str, str]  # repository-relative path -> file text


class PipelineError(ValueError):
    """A source tree, catalog file or request the pipeline cannot work with."""


# =================================================================================== service metadata


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UnitTest(_Strict):
    """What one unit test of the service checks, as regexes over one source file (re.MULTILINE)."""

    name: str
    file: str
    must_match: list[str] = Field(default_factory=list)
    must_not_match: list[str] = Field(default_factory=list)


class Commit(_Strict):
    """An earlier commit to the service (history shown next to the live changes)."""

    title: str
    author: str
    days_ago: int = Field(ge=1)
    files: list[str]


class ServiceMeta(_Strict):
    service: str
    language: str
    lint: str = Field(description="the service's main linter (files are linted by their type)")
    image: str = Field(description="the base image the tree is built into")
    tests: list[UnitTest] = Field(default_factory=list)
    history: list[Commit] = Field(default_factory=list)


def source_root() -> Path:
    return catalog_dir() / "source"


def apps_with_sources() -> list[str]:
    root = source_root()
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@functools.cache
def services_with_trees(app: str) -> tuple[str, ...]:
    d = source_root() / app
    if not d.is_dir():
        raise PipelineError(f"no source trees for app {app!r} (looked in {d})")
    return tuple(sorted(p.name for p in d.iterdir() if (p / "meta.yaml").is_file()))


def _service_dir(app: str, service: str) -> Path:
    d = source_root() / app / service
    if not (d / "meta.yaml").is_file():
        known = ", ".join(services_with_trees(app))
        raise PipelineError(f"no source tree for service {service!r} of {app} (known: {known})")
    return d


@functools.cache
def service_meta(app: str, service: str) -> ServiceMeta:
    path = _service_dir(app, service) / "meta.yaml"
    try:
        meta = ServiceMeta.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, ValidationError) as e:
        raise PipelineError(f"{path}: {e}") from e
    if meta.service != service:
        raise PipelineError(f"{path}: meta names service {meta.service!r}, expected {service!r}")
    if meta.lint not in LINTERS:
        raise PipelineError(f"{path}: unknown linter {meta.lint!r}")
    return meta


@functools.cache
def base_tree(app: str, service: str) -> Tree:
    """The service's tree at its base image (read once per process; do not mutate)."""
    d = _service_dir(app, service)
    out: dict[str, str] = {}
    for p in sorted(d.rglob("*")):
        if p.is_file() and p.name != "meta.yaml" and "__pycache__" not in p.parts:
            out[p.relative_to(d).as_posix()] = p.read_text(encoding="utf-8")
    return out


# =================================================================================== tests and fixes


@functools.lru_cache(maxsize=4096)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.M)


def predicate_failures(
    file: str, must_match: Iterable[str], must_not_match: Iterable[str], tree: Tree
) -> list[str]:
    if file not in tree:
        return [f"{file} is missing"]
    text = tree[file]
    out = [f"{file} no longer matches /{p}/" for p in must_match if not _rx(p).search(text)]
    out += [f"{file} matches /{p}/" for p in must_not_match if _rx(p).search(text)]
    return out


def run_unit_tests(meta: ServiceMeta, tree: Tree) -> list[str]:
    """Failed unit tests of the service on ``tree``, as ``FAIL <name>: <reason>`` lines."""
    out = []
    for t in meta.tests:
        fails = predicate_failures(t.file, t.must_match, t.must_not_match, tree)
        out += [f"FAIL {t.name}: {f}" for f in fails]
    return out


def fix_holds(fix: FixPredicate, tree: Tree) -> bool:
    """Does ``tree`` satisfy the fix predicate? A deleted file satisfies a predicate that only
    forbids patterns (removing a defective file, as a revert of its creation does, is a fix)."""
    if fix.file not in tree and not fix.must_match:
        return True
    return not predicate_failures(fix.file, fix.must_match, fix.must_not_match, tree)


# =================================================================================== manifests


def manifest_settings(tree: Tree, service: str) -> dict:
    """Image, env, limits and readiness port of the service's container in its manifest."""
    path = manifest_path(service)
    if path not in tree:
        return {}
    docs = [d for d in yaml.load_all(tree[path], Loader=YAML_LOADER) if isinstance(d, dict)]
    for d in docs:
        if d.get("kind") not in ("Deployment", "StatefulSet"):
            continue
        containers = d.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [])
        if not containers:
            continue
        c = containers[0]
        env = {e["name"]: str(e.get("value", "")) for e in c.get("env", []) or [] if "name" in e}
        lim = (c.get("resources") or {}).get("limits") or {}
        probe = c.get("readinessProbe") or {}
        port = None
        for k in ("grpc", "httpGet", "tcpSocket"):
            if k in probe:
                port = probe[k].get("port")
        return {
            "image": c.get("image"),
            "env": env,
            "cpu_limit": None if lim.get("cpu") is None else str(lim.get("cpu")),
            "mem_limit": None if lim.get("memory") is None else str(lim.get("memory")),
            "readiness_port": port,
        }
    return {}


def env_block(lines: list[str]) -> tuple[int, int] | None:
    """(the ``env:`` line, the first line after its list) of a manifest's first container, or
    None if it has no env list."""
    start = next((i for i, ln in enumerate(lines) if ln.strip() == "env:"), None)
    if start is None:
        return None
    base = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (
        not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > base
    ):
        end += 1
    return start, end


def with_env(text: str, env: Mapping[str, str]) -> str | None:
    """The manifest ``text`` with its first container's env vars set to ``env`` (a changed value in
    place, a new variable appended to the list), or None if it has no env list to edit. The edit
    ``kubectl set env`` or a GitOps tool would make, whatever else changed in the file since."""
    lines = text.split("\n")
    span = env_block(lines)
    if span is None:
        return None
    start, end = span
    block = lines[start + 1 : end]
    item = next((ln for ln in block if ln.lstrip().startswith("- name:")), None)
    if item is None:
        return None
    pad = " " * (len(item) - len(item.lstrip()))
    for key, value in env.items():
        quoted = '"' + str(value).replace('"', '\\"') + '"'
        at = next(
            (
                j
                for j, ln in enumerate(block)
                if ln.strip() in (f"- name: {key}", f'- name: "{key}"')
            ),
            None,
        )
        if at is not None and at + 1 < len(block) and block[at + 1].strip().startswith("value:"):
            block[at + 1] = f"{pad}  value: {quoted}"
        else:
            while block and not block[-1].strip():
                block.pop()
            block += [f"{pad}- name: {key}", f"{pad}  value: {quoted}"]
    return "\n".join([*lines[: start + 1], *block, *lines[end:]])
