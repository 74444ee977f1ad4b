"""The rule pack for a live Prometheus: the rule file (checked by the real ``promtool``), the
PrometheusRule, and ``sre-gym live rules``."""

from __future__ import annotations

import subprocess
import sys

import yaml

from sre_gym.backends.live_rules import (
    PROMETHEUS_RULE_NAME,
    RELEASE_LABEL,
    pack_files,
    pack_rule_names,
    prometheus_rule,
    render,
    rule_file,
)
from sre_gym.backends.sim import rule_pack
from sre_gym.catalogs import RELEASE
from sre_gym.cli import main
from sre_gym.telemetry.rules import load_rules


def test_the_rule_file_round_trips_through_load_rules_with_the_release_label():
    pack = list(rule_pack())
    emitted = load_rules(render("rulefile"))  # the YAML text, as Prometheus would read it
    assert len(emitted) == len(pack) == len(pack_rule_names())
    for a, b in zip(pack, emitted, strict=True):
        assert (b.name, b.expr, b.for_s, b.group) == (a.name, a.expr, a.for_s, a.group)
        assert b.labels == {**a.labels, RELEASE_LABEL: RELEASE}
        assert b.annotations == a.annotations
    assert [r.name for r in pack] == pack_rule_names()


def test_the_rule_file_keeps_the_pack_files_groups_in_order():
    groups = [g for p in pack_files() for g in yaml.safe_load(p.read_text())["groups"]]
    doc = rule_file()
    assert list(doc) == ["groups"]
    assert [g["name"] for g in doc["groups"]] == [g["name"] for g in groups]
    assert len({g["name"] for g in doc["groups"]}) == len(groups)  # one file: names must differ
    for g in doc["groups"]:
        assert all(r["labels"][RELEASE_LABEL] == RELEASE for r in g["rules"])
    assert rule_file("r-test")["groups"][0]["rules"][0]["labels"][RELEASE_LABEL] == "r-test"
    assert RELEASE_LABEL not in groups[0]["rules"][0].get("labels", {})  # the pack is unchanged


def test_promtool_checks_the_emitted_rule_file(promtool, tmp_path):
    path = tmp_path / "sre-gym-rules.yml"
    path.write_text(render("rulefile"))
    r = subprocess.run(
        [str(promtool), "check", "rules", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"SUCCESS: {len(rule_pack())} rules found" in r.stdout


def test_the_prometheus_rule_holds_the_same_groups():
    obj = prometheus_rule("observability", labels={"release": "kube-prometheus-stack"})
    assert obj["apiVersion"] == "monitoring.coreos.com/v1" and obj["kind"] == "PrometheusRule"
    assert obj["metadata"] == {
        "name": PROMETHEUS_RULE_NAME,
        "namespace": "observability",
        "labels": {"release": "kube-prometheus-stack", RELEASE_LABEL: RELEASE},
    }
    assert obj["spec"] == rule_file()
    parsed = yaml.safe_load(render("prometheusrule", namespace="observability"))
    assert parsed["metadata"]["labels"] == {RELEASE_LABEL: RELEASE}
    assert load_rules(parsed["spec"])[0].labels[RELEASE_LABEL] == RELEASE


def test_the_cli_prints_or_writes_the_pack(tmp_path, capsys):
    assert main(["live", "rules"]) == 0
    assert capsys.readouterr().out == render("rulefile")
    out = tmp_path / "rules.yml"
    assert main(["live", "rules", "-o", str(out)]) == 0
    assert out.read_text() == render("rulefile")
    assert f"wrote {len(rule_pack())} rules" in capsys.readouterr().err
    args = ["live", "rules", "--format", "prometheusrule", "--namespace", "obs"]
    assert main([*args, "--label", "release=kps"]) == 0
    obj = yaml.safe_load(capsys.readouterr().out)
    assert obj["metadata"]["namespace"] == "obs" and obj["metadata"]["labels"]["release"] == "kps"


def test_rules_and_rbac_need_no_live_extra():
    code = (
        "import sys\n"
        "from sre_gym.cli import main\n"
        "assert main(['live', 'rules']) == 0 and main(['live', 'rbac']) == 0\n"
        "assert 'kubernetes' not in sys.modules and 'prometheus_api_client' not in sys.modules\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "PrometheusRule" not in r.stdout and "kind: Role" in r.stdout
