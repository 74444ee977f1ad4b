"""The fake Kubernetes API's patches: JSON merge and strategic-merge patches, JSON patches."""

from __future__ import annotations

import pytest

from sre_gym.testing.fake_patches import PatchError, json_patch, merge_patch


def test_the_fake_patch_helpers_follow_the_rfcs():
    doc = {
        "a": {"b": 1, "c": [1, 2]},
        "containers": [{"name": "s", "env": [{"name": "A", "value": "1"}]}],
    }
    merge_patch(doc, {"a": {"b": None, "c": [3]}, "containers": [{"name": "s", "env": [{"name": "B", "value": "2"}]}]}, strategic=True)  # fmt: skip
    assert doc == {
        "a": {"c": [3]},
        "containers": [
            {"name": "s", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
        ],
    }
    json_patch(doc, [{"op": "replace", "path": "/a/c", "value": []}, {"op": "add", "path": "/x~1y", "value": 1}])  # fmt: skip
    assert doc["a"] == {"c": []} and doc["x/y"] == 1


def test_a_plain_merge_patch_replaces_lists_of_named_objects():
    doc = {"env": [{"name": "A", "value": "1"}]}
    merge_patch(doc, {"env": [{"name": "B", "value": "2"}], "gone": None}, strategic=False)
    assert doc == {"env": [{"name": "B", "value": "2"}]}


def test_a_strategic_merge_patch_deletes_a_named_item_with_the_patch_directive():
    doc = {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
    merge_patch(doc, {"env": [{"name": "A", "$patch": "delete"}, {"name": "C", "value": "3"}]}, strategic=True)  # fmt: skip
    assert doc == {"env": [{"name": "B", "value": "2"}, {"name": "C", "value": "3"}]}


def test_json_patch_edits_lists_and_refuses_bad_paths_and_failed_tests():
    doc = {"items": [1, 2, 3], "a": {"b": 1}}
    json_patch(
        doc, [{"op": "remove", "path": "/items/0"}, {"op": "add", "path": "/items/-", "value": 4}]
    )
    assert doc["items"] == [2, 3, 4]
    json_patch(doc, [{"op": "test", "path": "/a/b", "value": 1}])
    for ops, err in [
        ([{"op": "test", "path": "/a/b", "value": 2}], "is not equal to tested value 2"),
        ([{"op": "replace", "path": "/a/nope", "value": 1}], "can't replace a non-existent"),
        ([{"op": "add", "path": "/no/such/key", "value": 1}], "no"),
        ([{"op": "add", "path": "a", "value": 1}], "Location must start with /"),
        ([{"op": "move", "path": "/a/b", "value": 1}], "from"),
    ]:
        with pytest.raises(PatchError, match=err):
            json_patch(doc, ops)
