"""Bounds on what an agent sends: nesting depth, measured without recursion.

A model's tool arguments can be anything JSON (or Python) can hold, nested to any depth. Python's
own recursive walks (``json.dumps``, ``repr``, ``copy.deepcopy``) raise ``RecursionError`` near
a thousand levels, so every surface measures the depth first, with this walk, and refuses a value
nested deeper than ``MAX_DEPTH`` before anything recursive touches it. No tool's arguments need
more than a handful of levels.
"""

from __future__ import annotations

from typing import Any

# deeper than any tool's arguments (the deepest schema has three levels), far below the recursion
# limit of Python's own walks
MAX_DEPTH = 64


def depth_over(x: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``x`` (dicts, lists and tuples of anything) is nested more than ``limit`` deep. An
    iterative walk: it never recurses, and it stops at the first branch past the limit."""
    stack: list[tuple[Any, int]] = [(x, 0)]
    # the deepest place each container was reached at: a value shared by several parents is walked
    # again only from a deeper place (a cycle goes deeper each time, to the limit)
    reached: dict[int, int] = {}
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            children = v.values()
        elif isinstance(v, list | tuple):
            children = v
        else:
            continue
        if d >= limit:
            return True
        if reached.get(id(v), -1) >= d:
            continue
        reached[id(v)] = d
        stack.extend((c, d + 1) for c in children)
    return False


def too_deep_error(what: str = "the arguments", limit: int = MAX_DEPTH) -> str:
    """The error a surface gives for a value nested past ``limit``."""
    return f"{what} are nested more than {limit} levels deep; no tool takes more than a few"
