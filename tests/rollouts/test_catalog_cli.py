"""``sre-gym catalog stats``: the catalog's breadth as the paper counts it."""

from __future__ import annotations

import re
from collections import Counter

from sre_gym.catalogs import APPS, load_catalog
from sre_gym.cli import main

CATEGORIES = {"code", "config", "resource", "network", "dependency", "deployment", "infrastructure"}
# mechanisms the issue names explicitly
NAMED = {
    "feature_flag",
    "bad_image_tag",
    "data_corruption",
    "retry_storm",
    "pool_exhaustion",
    "zone_outage",
}


def test_catalog_holds_700_faults_of_every_category_in_every_app():
    faults = [f for app in APPS for f in load_catalog(app, include_quarantined=True).faults]
    assert len(faults) >= 700
    assert len({f.id for f in faults}) == len(faults)
    for app in APPS:
        cats = {f.category for f in load_catalog(app, include_quarantined=True).faults}
        assert cats == CATEGORIES, app
    mechs = Counter(f.mechanism for f in faults)
    assert len(mechs) >= 18 and set(mechs) >= NAMED
    share = sum(f.category in ("code", "config") for f in faults) / len(faults)
    assert 0.35 <= share <= 0.55  # the paper's source: code + configuration about 40 %


def test_stats_prints_counts_that_add_up(capsys):
    assert main(["catalog", "stats"]) == 0
    out = capsys.readouterr().out
    per_app = {m[0]: int(m[1]) for m in re.findall(r"^([a-z-]+): (\d+) faults \(", out, re.M)}
    assert set(per_app) == set(APPS)
    for app, n in per_app.items():
        assert n == len(load_catalog(app, include_quarantined=True).faults)
    assert f"total: {sum(per_app.values())} faults" in out
    for line in re.findall(r"by category: (.*)", out):
        assert {kv.split("=")[0] for kv in line.split(", ")} == CATEGORIES
    counts = re.findall(r"by delivery: (.*)", out)
    assert len(counts) == 3
    for line, n in zip(counts, per_app.values(), strict=True):
        assert sum(int(kv.split("=")[1]) for kv in line.split(", ")) == n
