"""The shipped alert rule pack: its shape, its runbooks (and docs/alerts.md, generated from the rule
files), and what it detects on the simulator.

Regenerate the docs after editing a rule file:  python tests/telemetry/test_alert_pack.py --write
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

from sre_gym.backends.sim import rule_pack
from sre_gym.catalogs import catalog_dir, load_catalog
from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.rules import parse_duration
from sre_gym.telemetry.tsdb import TSDB

ROOT = Path(__file__).resolve().parents[2]
PACK_DIR = catalog_dir() / "alerts"
DOCS = ROOT / "docs" / "alerts.md"
SECTIONS = ("Meaning", "Impact", "Diagnosis", "Mitigation")
AS_NS = 'namespace="astronomy-shop"'
APPS = ("online-boutique", "train-ticket", "astronomy-shop")


def pack_docs() -> list[tuple[str, str, dict]]:
    """(file, group, rule) for every rule of the pack, in file and rule order."""
    out = []
    for p in sorted(PACK_DIR.glob("*.yaml")):
        for g in yaml.safe_load(p.read_text())["groups"]:
            for r in g["rules"]:
                out.append((p.name, g["name"], r))
    return out


def scope(group: str) -> str:
    return "astronomy-shop only" if group.startswith("astronomy-shop") else "all apps"


def anchor(rule: dict) -> str:
    return f"{rule['alert'].lower()}-{rule['labels']['severity']}"


def runbook_sections(text: str) -> dict[str, str]:
    out = {}
    for line in text.strip().splitlines():
        key, _, rest = line.partition(": ")
        out[key] = rest
    return out


# ---------------------------------------------------------------------------------- the docs
INTRO = """\
# Alert rule pack

The agent sees the world through these alerts. The pack is Prometheus rule-file YAML in
`sre_gym/catalogs/alerts/`: **{n} alerting rules from {t} templates, {a} of them only for the Astronomy
Shop**. Names, labels and shapes mirror the kubernetes-mixin (kube-prometheus) rules and the
golden-signal rules of SREGym / ITBench; `for:` windows are 30 s to 3 min (faults last 4-12 minutes).
Every rule carries `severity`, `template`, a `summary`, a `description`, a `runbook_url` into this page
and the runbook itself as the `runbook` annotation (Meaning / Impact / Diagnosis / Mitigation, the
prometheus-operator runbook layout), so an agent can read it from the alert.

This page is generated from the rule files (`python tests/telemetry/test_alert_pack.py --write`); a
test keeps it in sync.

Conventions:

- Request rules read the application's entry point, the service users reach (online-boutique:
  `frontend`, train-ticket: `ts-ui-dashboard`, astronomy-shop: `frontend-proxy`). One rule serves the
  three applications: error rules read the HTTP server metrics by route
  (`http_server_request_duration_seconds_count`) that only entry points export; latency rules select
  each entry point's spanmetrics by its (namespace, service_name) pair.
- Per-service golden-signal rules and `DependencyCallErrors` leave out the front tier (`frontend`,
  `frontend-proxy`, `ts-ui-dashboard`): what users see there is the entry-point rules' business.
  Calls to datastores (Redis, Valkey, MongoDB, MySQL, PostgreSQL, Kafka) have their own rules.
- Severity tiers share the alert name: a higher threshold, or the same condition held longer
  (`critical` after 3 minutes), gives a second alert with a higher severity.
- Rules that apply to one application select it by `namespace`; the five Astronomy-Shop-only rules
  live in `astronomy-shop.yaml`, in groups named `astronomy-shop-*`.

Besides faults, a marathon carries seeded benign noise (`sre_gym/sim/faults/noise.py`): CPU bursts
of batch jobs on one pod, flapping bursts, brief latency blips on a service's pods and noisy
neighbours crowding the pods of a node. Noise is not a fault (no evidence, nothing to repair), never
touches a service an active fault is scored on, and is the only source of alerts in a run without
faults.

How the pack behaves on the simulator is measured from evidence, with the scorer's attribution rule
(an alert is attributable to a fault if it starts firing inside the fault's window plus the grace, on
an entity of the fault's scope):

- `python benchmarks/alert_coverage.py` prints, over seeds 0-19 of each app, the share of alerts
  compatible with more than one fault (the paper reports 39 % / 76 % / 47 % for Online Boutique /
  Train Ticket / Astronomy Shop), and the share of catalog faults that, injected alone for four
  minutes, fire at least one attributable alert, listing the others (below every threshold).
- `python benchmarks/alert_noise.py` prints the alert rate of runs without faults (noise only).

The noise rate is calibrated per app (`PARAMS` in the noise module) so that the multi-fault shares
land near the paper's: in the simulator a fault's scope is its target plus every service that
reaches it through hard dependencies, so in Online Boutique almost every alert off the culprit lands
on `frontend` or `checkoutservice`, which are in nearly every fault's scope; without unattributable
noise its share would sit well above the paper's 39 %. Train Ticket's deep call graph makes most of
its alerts (edge failures between its hub services) ambiguous already, so it gets little noise.

## Rules

| rule | severity | template | applies to | for | file |
|---|---|---|---|---|---|
"""


def render_docs() -> str:
    rows = pack_docs()
    templates = {r["labels"]["template"] for _, _, r in rows}
    n_as = sum(1 for _, g, _ in rows if g.startswith("astronomy-shop"))
    out = [INTRO.format(n=len(rows), t=len(templates), a=n_as)]
    for f, g, r in rows:
        out.append(
            f"| [{r['alert']}](#{anchor(r)}) | {r['labels']['severity']} | "
            f"{r['labels']['template']} | {scope(g)} | {r['for']} | {f} |\n"
        )
    for f, g, r in rows:
        ann = r["annotations"]
        rb = runbook_sections(ann["runbook"])
        out.append(f"\n## {r['alert']} ({r['labels']['severity']})\n\n")
        out.append(
            f"Template `{r['labels']['template']}`, group `{g}` in `{f}`, applies to {scope(g)}, "
            f"holds for {r['for']}.\n\n"
        )
        out.append(f"_{ann['summary']}_ {ann['description']}\n\n")
        out.append("```promql\n" + r["expr"].rstrip() + "\n```\n\n")
        for s in SECTIONS:
            out.append(f"- **{s}**: {rb[s]}\n")
    return "".join(out)


# ---------------------------------------------------------------------------------- shape
def test_pack_has_44_rules_from_18_templates_5_for_astronomy_shop_only():
    rows = pack_docs()
    assert len(rows) == 44
    assert len({r["labels"]["template"] for _, _, r in rows}) == 18
    as_only = [r for _, g, r in rows if g.startswith("astronomy-shop")]
    assert len(as_only) == 5
    # an Astronomy-only rule selects its namespace; no other rule is about one application only
    for _, g, r in rows:
        if g.startswith("astronomy-shop"):
            assert AS_NS in r["expr"] or r["labels"].get("namespace") == "astronomy-shop"
            assert "online-boutique" not in r["expr"] and "train-ticket" not in r["expr"]
        else:
            named = set(re.findall(r'namespace="([^"]+)"', r["expr"]))
            assert named in (set(), set(APPS)), (r["alert"], named)
    # each rule appears once
    keys = Counter((r["alert"], r["labels"]["severity"]) for _, _, r in rows)
    assert max(keys.values()) == 1
    # loaded the same way the backend loads it
    assert len(rule_pack()) == 44


def test_every_rule_has_for_severity_template_and_runbook():
    anchors = set(re.findall(r"^## .*$", DOCS.read_text(), re.M)) if DOCS.exists() else set()
    for _, _, r in pack_docs():
        assert 30 <= parse_duration(r["for"]) <= 180, r["alert"]
        assert r["labels"]["severity"] in ("info", "warning", "critical")
        ann = r["annotations"]
        assert ann["summary"] and ann["description"]
        rb = runbook_sections(ann["runbook"])
        assert set(SECTIONS) <= set(rb) and all(rb[s] for s in SECTIONS), r["alert"]
        assert ann["runbook_url"] == f"docs/alerts.md#{anchor(r)}"
        assert f"## {r['alert']} ({r['labels']['severity']})" in anchors


def test_expressions_compile_and_labels_are_static():
    eng = Engine(TSDB())
    for r in rule_pack():
        eng.compile(r.expr)
        assert r.static_labels is not None and r.static_labels["template"]


def test_rule_names_mirror_real_packs():
    mixin = {
        "KubePodCrashLooping",
        "KubePodNotReady",
        "KubeDeploymentReplicasMismatch",
        "KubeDeploymentRolloutStuck",
        "KubeContainerWaiting",
        "CPUThrottlingHigh",
        "KubeNodeNotReady",
        "KubeNodeUnreachable",
    }
    names = {r.name for r in rule_pack()}
    assert mixin <= names
    assert all(re.fullmatch(r"[A-Z][A-Za-z]+", n) for n in names)


def test_docs_are_generated_from_the_rule_files():
    assert DOCS.read_text() == render_docs(), (
        "docs/alerts.md is stale: run python tests/telemetry/test_alert_pack.py --write"
    )


# ---------------------------------------------------------------------------------- behaviour
def _coverage_module():
    spec = importlib.util.spec_from_file_location(
        "alert_coverage", ROOT / "benchmarks" / "alert_coverage.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("app", APPS)
def test_a_sample_of_catalog_faults_fire_attributable_alerts_alone(app):
    """25 catalog faults per app, each injected alone for 4 minutes (noise off): at least 90 % fire
    an alert attributable to them (inside the window plus grace, on an entity of their scope)."""
    cov = _coverage_module()
    faults = load_catalog(app).faults
    step = max(1, len(faults) // 25)
    sample = faults[::step][:25]
    missed = [f.id for f in sample if not cov.single_fault(app, f.id)]
    assert len(sample) == 25
    assert len(missed) <= 2, missed


if __name__ == "__main__":
    if "--write" in sys.argv:
        DOCS.write_text(render_docs())
        print(f"wrote {DOCS}")
