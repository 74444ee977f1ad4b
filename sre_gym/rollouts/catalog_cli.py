"""``sre-gym catalog validate | stats`` (a plugin of ``sre_gym.cli``; it lives beside the rollouts
because validation runs whole episodes: ``sre_gym.rollouts.validate``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter


def _apps(arg: str | None) -> list[str]:
    from sre_gym.catalogs import APPS

    if arg is None:
        return list(APPS)
    apps = [a.strip() for a in arg.split(",") if a.strip()]
    bad = [a for a in apps if a not in APPS]
    if bad:
        raise SystemExit(f"error: unknown app(s) {', '.join(bad)}; known: {', '.join(APPS)}")
    return apps


def _validate(a: argparse.Namespace) -> int:
    from sre_gym.catalogs import load_catalog, quarantine_path, write_quarantine
    from sre_gym.rollouts.validate import sample, validate

    rows = []
    for app in _apps(a.app):
        ids = [f.id for f in load_catalog(app, include_quarantined=True).faults]
        if a.sample:
            ids = sample(ids, a.sample, a.seed)
        for v in validate(app, ids, a.seed):
            rows.append((app, v))
            if not a.json:
                mark = "ok  " if v.ok else "FAIL"
                first = "-" if v.first_failure_s is None else f"{v.first_failure_s:.0f}s"
                print(
                    f"{mark} {app:<16} {v.fault_id:<52} first-failure={first:<5} {v.stage:<22} {v.reason}",
                    flush=True,
                )
    ok = sum(v.ok for _, v in rows)
    if a.json:
        print(json.dumps([{"app": app, **v.to_dict()} for app, v in rows], sort_keys=True))
    else:
        share = ok / len(rows) if rows else 0.0
        print(f"validated {len(rows)} faults: {ok} pass ({100 * share:.1f} %)")
    if a.write_quarantine:
        bad = {(app, v.fault_id): v.reason for app, v in rows if not v.ok}
        write_quarantine(bad, [app for app in _apps(a.app)], replace_all=not a.sample)
        print(f"wrote {quarantine_path()}", file=sys.stderr)
    return 0 if ok == len(rows) else 1


def _stats(a: argparse.Namespace) -> int:
    from sre_gym.catalogs import load_catalog, load_quarantine

    total = 0
    q = load_quarantine()
    for app in _apps(a.app):
        faults = load_catalog(app, include_quarantined=True).faults
        total += len(faults)
        print(f"{app}: {len(faults)} faults ({len(q.get(app, {}))} quarantined)")
        for field in ("category", "delivery", "mechanism"):
            c = Counter(getattr(f, field) for f in faults)
            print(
                f"  by {field}: "
                + ", ".join(
                    f"{k}={v}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))
                )
            )
        cat = Counter(f.category for f in faults)
        share = (cat["code"] + cat["config"]) / len(faults) if faults else 0.0
        print(f"  code + config share: {100 * share:.1f} %")
    print(f"total: {total} faults")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("catalog", help="inspect and validate the fault catalog")
    cs = p.add_subparsers(dest="catalog_cmd", required=True)
    v = cs.add_parser(
        "validate", help="inject each fault alone: observable, no-op fails, oracle repairs"
    )
    v.add_argument("--app", default=None, help="comma-separated apps (default: all)")
    v.add_argument(
        "--sample", type=int, default=None, help="validate N faults per app (deterministic sample)"
    )
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--json", action="store_true")
    v.add_argument(
        "--write-quarantine", action="store_true", help="record failing faults in quarantine.yaml"
    )
    v.set_defaults(fn=_validate)
    s = cs.add_parser("stats", help="counts by app, category, mechanism and delivery")
    s.add_argument("--app", default=None)
    s.set_defaults(fn=_stats)
