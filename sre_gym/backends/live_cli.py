"""``sre-gym live rules | rbac | preflight``: set up a live cluster for the live backend and check it.

``rules`` prints the alert rule pack as a Prometheus rule file or a ``PrometheusRule``; ``rbac``
prints the agent identity's ServiceAccount, Role and RoleBinding (and the read-only ClusterRole of
the cluster-scoped reads); ``preflight`` checks a cluster and a Prometheus (one line per check, exit
1 if any fails). Only ``preflight`` needs the ``live`` extra.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def _emit(text: str, output: str | None, what: str) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {what} to {output}", file=sys.stderr)


def _labels(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        k, sep, v = pair.partition("=")
        if not sep or not k:
            raise SystemExit(f"error: --label takes KEY=VALUE, got {pair!r}")
        out[k] = v
    return out


def _rules(a: argparse.Namespace) -> int:
    from sre_gym.backends.live_rules import pack_rule_names, render

    text = render(a.format, namespace=a.namespace, labels=_labels(a.label))
    _emit(text, a.output, f"{len(pack_rule_names())} rules ({a.format})")
    return 0


def _rbac(a: argparse.Namespace) -> int:
    from sre_gym.backends.live_rbac import render
    from sre_gym.catalogs import load_app

    ns = a.namespace or load_app(a.app).namespace
    try:
        text = render(ns, a.service_account, namespace_only=a.namespace_only, injector=a.injector)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    _emit(text, a.output, f"RBAC for {a.service_account} in {ns}")
    return 0


def _preflight(a: argparse.Namespace) -> int:
    try:
        from sre_gym.backends.live_preflight import preflight
    except ImportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    checks = preflight(
        a.app,
        namespace=a.namespace,
        kubeconfig=a.kubeconfig,
        context=a.context,
        prometheus_url=a.prometheus_url,
        max_skew_s=a.max_skew,
    )
    for c in checks:
        print(c.line())
    failed = [c.name for c in checks if not c.ok]
    print(f"preflight: {'FAILED (' + ', '.join(failed) + ')' if failed else 'all checks passed'}")
    return 1 if failed else 0


def register(subparsers: Any) -> None:
    """Add the ``live`` subcommands to the ``sre-gym`` parser."""
    from sre_gym.backends.live_rbac import SERVICE_ACCOUNT
    from sre_gym.backends.live_rules import FORMATS
    from sre_gym.catalogs import APPS

    p = subparsers.add_parser(
        "live", help="a live cluster: the alert rule pack, RBAC for the agent, preflight checks"
    )
    sub = p.add_subparsers(dest="live_cmd", required=True)

    r = sub.add_parser("rules", help="print the alert rule pack for a live Prometheus")
    r.add_argument(
        "--format",
        choices=FORMATS,
        default="rulefile",
        help="a Prometheus rule file (default) or a prometheus-operator PrometheusRule",
    )
    r.add_argument(
        "--namespace", default="monitoring", help="the PrometheusRule's namespace (monitoring)"
    )
    r.add_argument(
        "--label",
        action="append",
        default=[],
        metavar="K=V",
        help="another metadata label of the PrometheusRule, e.g. release=kube-prometheus-stack",
    )
    r.add_argument("-o", "--output", default=None, metavar="FILE", help="write here, not stdout")
    r.set_defaults(fn=_rules)

    b = sub.add_parser(
        "rbac", help="print the agent identity's ServiceAccount, Role and RoleBinding"
    )
    b.add_argument("--app", default="online-boutique", choices=APPS)
    b.add_argument("--namespace", default=None, help="default: the app's namespace")
    b.add_argument("--service-account", default=SERVICE_ACCOUNT, metavar="NAME")
    b.add_argument(
        "--namespace-only",
        action="store_true",
        help="leave out the read-only ClusterRole for nodes and the namespace list",
    )
    b.add_argument(
        "--injector",
        action="store_true",
        help="the fault injector's identity instead (sre-gym-injector: templates, scale, the flag "
        "ConfigMap, NetworkPolicies, node taints)",
    )
    b.add_argument("-o", "--output", default=None, metavar="FILE", help="write here, not stdout")
    b.set_defaults(fn=_rbac)

    f = sub.add_parser(
        "preflight",
        help="check a cluster and Prometheus for a live run (exit 1 if any check fails)",
    )
    f.add_argument("--app", default="online-boutique", choices=APPS)
    f.add_argument("--namespace", default=None, help="default: the app's namespace")
    f.add_argument(
        "--kubeconfig", default=None, metavar="F", help="default: $KUBECONFIG or ~/.kube/config"
    )
    f.add_argument("--context", default=None, metavar="C", help="default: the current context")
    f.add_argument(
        "--prometheus-url",
        default="http://localhost:9090",
        metavar="U",
        help="Prometheus' base URL (http://localhost:9090)",
    )
    f.add_argument(
        "--max-skew",
        type=float,
        default=5.0,
        metavar="S",
        help="largest clock difference to the API server, in seconds (5)",
    )
    f.set_defaults(fn=_preflight)
