"""Tool specs: the 19 tools, kinds, durations and valid JSON Schemas / OpenAI tool definitions."""

from __future__ import annotations

import jsonschema
import pytest
from pydantic import ValidationError

from sre_gym.tools import BUDGET_S, TOOLS
from sre_gym.tools.specs import END_INVOCATION

READS = {
    "get_alerts",
    "query_metrics",
    "query_logs",
    "get_traces",
    "get_topology",
    "k8s_get",
    "k8s_describe",
    "list_changes",
    "show_change",
    "read_source",
}
REPORTS = {"report_incident", "update_incident", "resolve_incident"}
INTERVENTIONS = {"rollback", "patch_config", "scale", "restart", "delete_resource", "submit_patch"}


def test_kinds_and_budget():
    kinds = {s.kind for s in TOOLS.values()}
    assert kinds == {"read", "report", "intervene"}
    assert BUDGET_S == 110
    for s in TOOLS.values():
        assert 1 <= s.duration_s <= 60
        assert s.description


def test_the_nineteen_tools_of_the_design():
    assert len(TOOLS) == 19
    assert {n for n, s in TOOLS.items() if s.kind == "read"} == READS
    assert {n for n, s in TOOLS.items() if s.kind == "report"} == REPORTS
    assert {n for n, s in TOOLS.items() if s.kind == "intervene"} == INTERVENTIONS
    assert TOOLS["submit_patch"].duration_s == 60  # lint, tests, build, rollout
    assert all(TOOLS[n].duration_s <= 5 for n in READS)
    assert all(5 <= TOOLS[n].duration_s <= 60 for n in INTERVENTIONS)
    assert END_INVOCATION.name not in TOOLS and END_INVOCATION.duration_s == 0


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schema_is_valid_json_schema_and_matches_the_model(name):
    spec = TOOLS[name]
    schema = spec.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    tool = spec.openai()
    assert tool["type"] == "function" and tool["function"]["name"] == name
    assert tool["function"]["description"] == spec.description
    jsonschema.Draft202012Validator.check_schema(tool["function"]["parameters"])
    if spec.kind == "intervene":
        assert "incident_id" in schema["required"]


def test_end_invocation_schema_and_validation():
    jsonschema.Draft202012Validator.check_schema(END_INVOCATION.json_schema())
    ok = END_INVOCATION.args.model_validate({"notes": "n", "usage": {"model_calls": 1}})
    assert ok.notes == "n" and ok.usage.model_calls == 1
    with pytest.raises(ValidationError):
        END_INVOCATION.args.model_validate({"usage": {"model_calls": -1}})
    with pytest.raises(ValidationError):
        END_INVOCATION.args.model_validate({"notes": 5})


def test_new_tools_validate_their_arguments():
    qt = TOOLS["get_traces"].args
    assert qt.model_validate({}).limit == 10
    with pytest.raises(ValidationError):
        qt.model_validate({"since_s": 5})
    rs = TOOLS["read_source"].args
    assert rs.model_validate({"service": "cartservice"}).path is None
    with pytest.raises(ValidationError):
        rs.model_validate({"service": "cartservice", "max_lines": 0})
    sp = TOOLS["submit_patch"].args
    with pytest.raises(ValidationError):
        sp.model_validate({"service": "cartservice", "diff": ""})  # no incident, empty diff
    with pytest.raises(ValidationError):
        sp.model_validate({"service": "x", "diff": "d" * 70000, "incident_id": "INC-0001"})
