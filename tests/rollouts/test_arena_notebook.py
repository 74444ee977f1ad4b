"""examples/arena_policies.ipynb runs headless, end to end (nbclient + ipykernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "arena_policies.ipynb"


def test_arena_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    setup = nb.cells[1]
    assert "SEEDS = range(4)" in setup.source
    setup.source = setup.source.replace("SEEDS = range(4)", "SEEDS = range(1)")
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "\n".join(o.get("text", "") for o in outputs)
    assert "oracle" in text and "planted" in text and "QUALIFIED" in text
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 1
