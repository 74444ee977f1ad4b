"""The patches of the fake Kubernetes API: JSON merge / strategic-merge patches and JSON patches.

``merge_patch`` applies RFC 7386 (or, with ``strategic``, a simple strategic merge: lists of named
objects merge by ``name``), ``json_patch`` applies RFC 6902 (add, replace, remove, test) and raises
``PatchError`` on a bad path or a failed test.
"""

from __future__ import annotations

import copy
from typing import Any


def merge_patch(dst: dict, patch: dict, *, strategic: bool) -> dict:
    """Apply a JSON merge patch (RFC 7386) or, with ``strategic``, a simple strategic-merge patch:
    ``null`` deletes a key, objects merge recursively, and lists of objects that all carry a ``name``
    merge item by item on it (containers, env); ``$``-directives are ignored."""
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict) and isinstance(dst.get(k), dict):
            merge_patch(dst[k], v, strategic=strategic)
        elif (
            strategic
            and isinstance(v, list)
            and isinstance(dst.get(k), list)
            and all(isinstance(x, dict) and "name" in x for x in [*v, *dst[k]])
        ):
            by_name = {x["name"]: x for x in dst[k]}
            for item in v:
                if item["name"] in by_name:
                    merge_patch(by_name[item["name"]], item, strategic=True)
                else:
                    new = merge_patch({}, item, strategic=True)
                    dst[k].append(new)
                    by_name[new["name"]] = new
        elif isinstance(v, dict):
            dst[k] = merge_patch({}, v, strategic=strategic)
        else:
            dst[k] = copy.deepcopy(v)
    return dst


class PatchError(ValueError):
    pass


def _pointer(path: str) -> list[str]:
    if not path.startswith("/"):
        raise PatchError(f"invalid JSON pointer {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(doc: dict, ops: list) -> dict:
    """Apply a JSON patch (RFC 6902: add, replace, remove, test) to ``doc`` in place."""
    for op in ops:
        parts = _pointer(op["path"])
        parent: Any = doc
        for p in parts[:-1]:
            parent = parent[int(p)] if isinstance(parent, list) else parent.get(p)
            if parent is None:
                raise PatchError(f"path {op['path']!r} does not exist")
        last = parts[-1]
        kind = op["op"]
        if isinstance(parent, list):
            i = len(parent) if last == "-" else int(last)
            if kind == "add":
                parent.insert(i, copy.deepcopy(op["value"]))
            elif kind == "replace":
                parent[i] = copy.deepcopy(op["value"])
            elif kind == "remove":
                del parent[i]
            elif kind == "test" and parent[i] != op["value"]:
                raise PatchError(f"test failed at {op['path']!r}")
            continue
        if kind in ("replace", "remove", "test") and last not in parent:
            raise PatchError(f"path {op['path']!r} does not exist")
        if kind in ("add", "replace"):
            parent[last] = copy.deepcopy(op["value"])
        elif kind == "remove":
            del parent[last]
        elif kind == "test" and parent[last] != op["value"]:
            raise PatchError(f"test failed at {op['path']!r}")
        elif kind not in ("add", "replace", "remove", "test"):
            raise PatchError(f"unsupported JSON patch op {kind!r}")
    return doc
