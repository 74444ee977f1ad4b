"""examples/evaluate_policies.ipynb runs headless, end to end (nbclient + ipykernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sre_gym.catalogs import APPS

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "evaluate_policies.ipynb"


def test_evaluate_policies_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # the notebook as a user runs it, on one seed of the short profile to keep the suite quick
    setup = nb.cells[1]
    assert "SEEDS = range(3)" in setup.source and 'PROFILE = "marathon"' in setup.source
    setup.source = setup.source.replace("SEEDS = range(3)", "SEEDS = range(1)").replace(
        'PROFILE = "marathon"', 'PROFILE = "short"'
    )
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(
        o.get("text", "") + str(o.get("data", {}).get("text/plain", "")) for o in outputs
    )
    for agent in ("runbook", "keep", "oracle"):
        assert f"{agent:8} " in text  # every baseline ran
    assert "marathon_score" in text  # the leaderboard was shown
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 2  # and the plots drawn
    results = tmp_path / "runs" / "evaluate_policies.jsonl"
    assert len(results.read_text().splitlines()) == 3 * 1 * len(APPS)  # agents x seeds x apps
