"""Tool specs: kinds, durations and valid JSON Schemas / OpenAI tool definitions."""

from __future__ import annotations

import jsonschema
import pytest

from sre_gym.tools import BUDGET_S, TOOLS


def test_kinds_and_budget():
    kinds = {s.kind for s in TOOLS.values()}
    assert kinds == {"read", "report", "intervene"}
    assert BUDGET_S == 110
    for s in TOOLS.values():
        assert 1 <= s.duration_s <= 60
        assert s.description


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schema_is_valid_json_schema_and_matches_the_model(name):
    spec = TOOLS[name]
    schema = spec.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    tool = spec.openai()
    assert tool["type"] == "function" and tool["function"]["name"] == name
    if spec.kind == "intervene":
        assert "incident_id" in schema["required"]
