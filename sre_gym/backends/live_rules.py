"""The alert rule pack for a live Prometheus: a rule file, or a prometheus-operator ``PrometheusRule``.

The pack is the release's rule files (``sre_gym/catalogs/alerts/*.yaml``, in the order the simulator
loads them) with their groups and rules unchanged (``alert``, ``expr``, ``for``, ``labels``,
``annotations``) and one label added to every rule, ``sre_gym_release: <RELEASE>``, so that the
alerts of a live cluster name the release whose rules raised them and ``sre-gym live preflight``
can tell this pack from others. ``rule_file()`` is the document for Prometheus' ``rule_files``
(check it with ``promtool check rules``); ``prometheus_rule(namespace)`` wraps the same groups in a
``monitoring.coreos.com/v1`` ``PrometheusRule`` named ``sre-gym-rules``. ``render`` gives either as
YAML text. Nothing here imports the ``live`` extra.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

from sre_gym.catalogs import RELEASE, catalog_dir

__all__ = [
    "FORMATS",
    "PROMETHEUS_RULE_NAME",
    "RELEASE_LABEL",
    "dump_yaml",
    "pack_files",
    "pack_rule_names",
    "prometheus_rule",
    "render",
    "rule_file",
]

RELEASE_LABEL = "sre_gym_release"
PROMETHEUS_RULE_NAME = "sre-gym-rules"
FORMATS = ("rulefile", "prometheusrule")


def pack_files() -> list[Path]:
    """The pack's rule files, in the order ``sre_gym.backends.sim.rule_pack`` loads them."""
    return sorted((catalog_dir() / "alerts").glob("*.yaml"))


@functools.cache
def _pack_groups() -> tuple[dict[str, Any], ...]:
    groups: list[dict[str, Any]] = []
    for path in pack_files():
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        groups += doc.get("groups") or []
    names = [g["name"] for g in groups]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:  # one rule file cannot hold two groups of the same name
        raise ValueError(f"the rule pack repeats group names: {', '.join(dup)}")
    return tuple(groups)


def _groups(release: str) -> list[dict[str, Any]]:
    out = []
    for g in copy.deepcopy(_pack_groups()):
        for r in g.get("rules") or []:
            labels = dict(r.get("labels") or {})
            if labels.get(RELEASE_LABEL, release) != release:
                raise ValueError(
                    f"rule {r.get('alert')!r} already has {RELEASE_LABEL}={labels[RELEASE_LABEL]!r}"
                )
            labels[RELEASE_LABEL] = release
            r["labels"] = labels
        out.append(g)
    return out


def rule_file(release: str = RELEASE) -> dict[str, Any]:
    """The pack as one Prometheus rule file document (``{"groups": [...]}``)."""
    return {"groups": _groups(release)}


def prometheus_rule(
    namespace: str,
    *,
    release: str = RELEASE,
    name: str = PROMETHEUS_RULE_NAME,
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The pack as a ``monitoring.coreos.com/v1`` ``PrometheusRule`` in ``namespace``.

    ``labels`` are extra metadata labels, e.g. the ``release: <helm release>`` that
    kube-prometheus-stack's default ``ruleSelector`` matches.
    """
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {**(labels or {}), RELEASE_LABEL: release},
        },
        "spec": {"groups": _groups(release)},
    }


def pack_rule_names(release: str = RELEASE) -> list[str]:
    """The alert names of the pack's rules, one per rule (names repeat across severities)."""
    return [r["alert"] for g in _groups(release) for r in g.get("rules") or []]


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line strings (expressions and runbooks read as they do in the pack)."""


def _str(dumper: yaml.SafeDumper, s: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", s, style="|" if "\n" in s else None)


_Dumper.add_representer(str, _str)


class _FlowDumper(_Dumper):
    """Also lists of plain strings on one line (``verbs: [get, list]``)."""


def _list(dumper: yaml.SafeDumper, items: list) -> yaml.SequenceNode:
    flow = all(isinstance(x, str) and "\n" not in x for x in items)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=flow)


_FlowDumper.add_representer(list, _list)


def dump_yaml(doc: Any, *, flow_lists: bool = False) -> str:
    """YAML text of a document, keys in their order, multi-line strings in block style (and, with
    ``flow_lists``, lists of strings on one line)."""
    dumper = _FlowDumper if flow_lists else _Dumper
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)


def render(
    fmt: str = "rulefile",
    *,
    namespace: str = "monitoring",
    release: str = RELEASE,
    labels: dict[str, str] | None = None,
) -> str:
    """The pack as YAML text: a rule file (``rulefile``) or a ``PrometheusRule`` (``prometheusrule``)."""
    if fmt == "rulefile":
        head = (
            f"# sre_gym alert rule pack, release {release} ({len(pack_rule_names(release))} rules),\n"
            "# for Prometheus' rule_files (check with `promtool check rules`).\n"
        )
        return head + dump_yaml(rule_file(release))
    if fmt == "prometheusrule":
        head = (
            f"# sre_gym alert rule pack, release {release}, for prometheus-operator: the Prometheus\n"
            "# resource's ruleSelector and ruleNamespaceSelector must select this object.\n"
        )
        return head + dump_yaml(prometheus_rule(namespace, release=release, labels=labels))
    raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
