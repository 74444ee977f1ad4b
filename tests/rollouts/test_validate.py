"""Fault validation: observable, no-op keeps failing, oracle repairs; failures are quarantined."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from sre_gym import catalogs
from sre_gym.catalogs import APPS, load_catalog, load_quarantine, write_quarantine
from sre_gym.cli import main
from sre_gym.orchestrator.schedule import schedule
from sre_gym.rollouts.validate import sample, validate, validate_fault

OB = "online-boutique"


@pytest.fixture
def tmp_catalog(tmp_path, monkeypatch):
    """A writable copy of the shipped catalogs; the loader caches are cleared on both sides."""
    root = tmp_path / "catalogs"
    shutil.copytree(
        catalogs.catalog_dir(), root, ignore=shutil.ignore_patterns("*.py", "__pycache__")
    )
    monkeypatch.setattr(catalogs, "catalog_dir", lambda: root)
    for fn in (load_catalog, load_quarantine, catalogs.load_app, catalogs.load_release):
        fn.cache_clear()
    yield root
    monkeypatch.undo()
    for fn in (load_catalog, load_quarantine, catalogs.load_app, catalogs.load_release):
        fn.cache_clear()


def test_sample_is_deterministic_and_spread():
    ids = [f.id for f in load_catalog(OB).faults]
    a, b = sample(ids, 6, seed=3), sample(ids, 6, seed=3)
    assert a == b and len(set(a)) == 6 and set(a) <= set(ids)
    assert sample(ids, 6, seed=4) != a
    assert sample(ids, 10_000) == ids


@pytest.mark.parametrize("app", APPS)
def test_a_sample_of_every_app_validates(app):
    """The CI sample: each fault injected alone is observable, outlives doing nothing and is
    repaired by the oracle (the whole catalog runs in benchmarks/validate_catalog.py)."""
    ids = sample([f.id for f in load_catalog(app).faults], 3, seed=0)
    verdicts = validate(app, ids)
    assert [v.fault_id for v in verdicts] == ids
    for v in verdicts:
        assert v.ok, v.to_dict()
        assert v.first_failure_s is not None and v.first_failure_s < 300
        assert v.stage == "handled" and v.reason == ""


def test_validate_cli_json_and_exit_status(capsys):
    assert main(["catalog", "validate", "--app", OB, "--sample", "1", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert (
        row["app"] == OB and row["ok"] is True and set(row) >= {"fault_id", "observable", "stage"}
    )
    with pytest.raises(SystemExit, match="unknown app"):
        main(["catalog", "validate", "--app", "no-such-app"])


def test_an_unobservable_fault_fails_with_the_reason(tmp_catalog):
    path = tmp_catalog / "faults" / f"{OB}.yaml"
    doc = yaml.safe_load(path.read_text())
    # a 2 % CPU hog never slows the service past its SLO
    doc["faults"] = [
        {
            "id": "ob-feeble-hog",
            "category": "resource",
            "delivery": "direct",
            "mechanism": "cpu_hog",
            "target": "currencyservice",
            "params": {"cores_frac": 0.02},
            "probe": {"kind": "latency_p95", "service": "currencyservice", "max": 250},
            "remedies": ["restart"],
        }
    ]
    path.write_text(yaml.safe_dump(doc))
    v = validate_fault(OB, "ob-feeble-hog")
    assert not v.observable and not v.ok
    assert v.reason == "probe never fails inside the window"


def test_quarantined_faults_leave_seeded_schedules_but_stay_pickable(tmp_catalog, capsys):
    ids = {sf.fault_id for sf in schedule(OB, 0).faults}
    victim = sorted(ids)[0]
    write_quarantine({(OB, victim): "oracle outcome missed"}, [OB], replace_all=True)
    assert load_quarantine()[OB] == {victim: "oracle outcome missed"}
    assert victim not in {f.id for f in load_catalog(OB).faults}
    assert victim in {f.id for f in load_catalog(OB, include_quarantined=True).faults}
    for seed in range(5):
        assert victim not in {sf.fault_id for sf in schedule(OB, seed).faults}
    # re-validation picks it by hand
    from sre_gym.orchestrator.schedule import custom_schedule

    assert custom_schedule(OB, 0, catalogs.RELEASE, [victim]).faults[0].fault_id == victim
    assert main(["catalog", "stats", "--app", OB]) == 0
    assert "(1 quarantined)" in capsys.readouterr().out
    other = dict(load_quarantine())
    other.pop(OB)
    # a full run for the app replaces its entries
    write_quarantine({}, [OB], replace_all=True)
    assert OB not in load_quarantine() and load_quarantine() == other  # other apps untouched
    assert victim in {f.id for f in load_catalog(OB).faults}
