"""``sre-gym tools``: the tool list as text and JSON, per access profile."""

from __future__ import annotations

import json

import jsonschema

from sre_gym.cli import PLUGINS, main
from sre_gym.tools import TOOLS
from sre_gym.tools.cli import tool_table


def test_registered_as_a_cli_plugin():
    assert "sre_gym.tools.cli" in PLUGINS


def test_text_listing_has_every_tool_with_kind_and_duration(capsys):
    assert main(["tools"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("19 tools in profile 'full'")
    for name, spec in TOOLS.items():
        line = next(x for x in out.splitlines() if x.split() and x.split()[0] == name)
        assert spec.kind in line and f"{spec.duration_s}s" in line


def test_json_listing_has_valid_schemas(capsys):
    assert main(["tools", "--json", "--compact"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(TOOLS)
    for r in rows:
        jsonschema.Draft202012Validator.check_schema(r["schema"])
        assert r["kind"] == TOOLS[r["name"]].kind and r["duration_s"] == TOOLS[r["name"]].duration_s


def test_profile_filter(capsys):
    assert main(["tools", "--json", "--profile", "confined"]) == 0
    names = {r["name"] for r in json.loads(capsys.readouterr().out)}
    assert names == {r["name"] for r in tool_table("confined")}
    assert "query_logs" not in names and "submit_patch" not in names and "rollback" in names
