"""The patches of the fake Kubernetes API: JSON patches, JSON merge patches, strategic-merge patches.

``json_patch`` applies RFC 6902 with the ``jsonpatch`` package and ``merge_patch`` (not strategic)
RFC 7386 with ``json-merge-patch``; either raises ``PatchError`` on a bad patch. A strategic-merge
patch is Kubernetes' own format, with no library outside Go: ``merge_patch(..., strategic=True)``
merges lists of named objects item by item on ``name`` (containers, env, ports, volumes) and honours
the ``$patch: delete`` directive on such an item (what ``kubectl set env X-`` sends); other lists
are replaced, ``null`` deletes a key.
"""

from __future__ import annotations

import copy

import json_merge_patch
import jsonpatch


class PatchError(ValueError):
    pass


def _strategic(dst: dict, patch: dict) -> dict:
    for k, v in patch.items():
        if k.startswith("$"):
            continue
        if v is None:
            dst.pop(k, None)
        elif isinstance(v, dict) and isinstance(dst.get(k), dict):
            _strategic(dst[k], v)
        elif (
            isinstance(v, list)
            and isinstance(dst.get(k), list)
            and all(isinstance(x, dict) and "name" in x for x in [*v, *dst[k]])
        ):
            by_name = {x["name"]: x for x in dst[k]}
            for item in v:
                old = by_name.get(item["name"])
                if item.get("$patch") == "delete":
                    if old is not None:
                        dst[k].remove(old)
                        del by_name[item["name"]]
                elif old is not None:
                    _strategic(old, item)
                else:
                    new = _strategic({}, item)
                    dst[k].append(new)
                    by_name[new["name"]] = new
        elif isinstance(v, dict):
            dst[k] = _strategic({}, v)
        else:
            dst[k] = copy.deepcopy(v)
    return dst


def merge_patch(dst: dict, patch: dict, *, strategic: bool) -> dict:
    """Apply a strategic-merge patch (``strategic``) or an RFC 7386 merge patch to ``dst``, in
    place; returns ``dst``."""
    if strategic:
        return _strategic(dst, patch)
    merged = json_merge_patch.merge(copy.deepcopy(dst), copy.deepcopy(patch))
    dst.clear()
    dst.update(merged)
    return dst


def json_patch(doc: dict, ops: list) -> dict:
    """Apply a JSON patch (RFC 6902) to ``doc`` in place; returns ``doc``."""
    try:
        out = jsonpatch.apply_patch(doc, ops, in_place=False)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as e:
        raise PatchError(str(e)) from None
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise PatchError(f"invalid JSON patch: {e}") from None
    doc.clear()
    doc.update(out)
    return doc
