"""Depth bounds on agent input (sre_gym/tools/inputs.py), measured without recursion."""

from __future__ import annotations

import json

import pytest

from sre_gym.tools.inputs import MAX_DEPTH, depth_over, too_deep_error


def _nest(depth: int, as_dict: bool) -> object:
    x: object = "core"
    for _ in range(depth):
        x = {"a": x} if as_dict else [x]
    return x


@pytest.mark.parametrize("as_dict", [True, False])
def test_depth_is_measured_exactly_and_far_past_the_recursion_limit(as_dict):
    assert not depth_over(_nest(MAX_DEPTH, as_dict))
    assert depth_over(_nest(MAX_DEPTH + 1, as_dict))
    deep = _nest(200_000, as_dict)  # json.dumps and repr give up near a thousand
    with pytest.raises(RecursionError):
        json.dumps(deep)
    assert depth_over(deep)
    assert not depth_over(_nest(3, as_dict), limit=3) and depth_over(_nest(4, as_dict), limit=3)


def test_leaves_tuples_wide_values_and_cycles():
    assert not depth_over("x") and not depth_over(None) and not depth_over({})
    assert depth_over((((),),), limit=2)
    wide = {str(i): [i, {"k": [i]}] for i in range(10_000)}
    assert not depth_over(wide, limit=4) and depth_over(wide, limit=3)
    cyc: list = []
    cyc.append(cyc)
    assert depth_over(cyc)
    shared = [1]
    assert not depth_over([shared, shared, shared])  # the same leaf list twice is no cycle
    assert "64 levels" in too_deep_error()
