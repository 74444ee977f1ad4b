"""Service source trees of the build-capable surface: read, edit, and what a rebuild makes of them.

A tree is data (``catalogs/arena/source/<service>.yaml``); a world keeps its own edited copy. A
rebuilt image behaves as its source says: the image-tier fault of a task names the file and the
statement that ends the faulty code path (``fixed_by``), and a rebuild from a tree where that
path ends properly leaves the fault out of the image.
"""

from __future__ import annotations

import functools
from typing import Any

import yaml

from sre_gym.catalogs.arena import arena_dir


@functools.cache
def base_tree(service: str) -> dict[str, str] | None:
    path = arena_dir() / "source" / f"{service}.yaml"
    if not path.exists():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return dict(data["files"])


class SourceError(ValueError):
    """A read or an edit the tree refuses."""


def read(tree: dict[str, str], path: str | None) -> dict[str, Any]:
    if path is None:
        return {"files": sorted(tree)}
    if path not in tree:
        raise SourceError(f"no file {path!r}; files: {', '.join(sorted(tree))}")
    return {"path": path, "text": tree[path]}


def edit(tree: dict[str, str], path: str, find: str, replace: str) -> dict[str, Any]:
    if path not in tree:
        raise SourceError(f"no file {path!r}; files: {', '.join(sorted(tree))}")
    n = tree[path].count(find) if find else 0
    if n != 1:
        raise SourceError(f"`find` must occur exactly once in {path} (it occurs {n} times)")
    tree[path] = tree[path].replace(find, replace, 1)
    return {"path": path, "edited": True}


def path_ends(tree: dict[str, str], fixed_by: dict[str, Any]) -> bool:
    """Does the faulty code path end in the tree: after the line containing ``after`` inside
    ``function``, some later statement of the same function (not a comment) starts with one of
    ``ends``?"""
    text = tree.get(str(fixed_by.get("file", "")))
    if text is None:
        return False
    lines = text.splitlines()
    start = next(
        (i for i, ln in enumerate(lines) if ln.lstrip().startswith(f"def {fixed_by['function']}(")),
        None,
    )
    if start is None:
        return False
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for ln in lines[start + 1 :]:
        if ln.strip() and len(ln) - len(ln.lstrip()) <= indent:
            break
        body.append(ln)
    hit = next((i for i, ln in enumerate(body) if fixed_by["after"] in ln), None)
    if hit is None:
        return False
    ends = tuple(fixed_by["ends"])
    return any(
        ln.strip().startswith(ends) and not ln.strip().startswith("#") for ln in body[hit + 1 :]
    )
