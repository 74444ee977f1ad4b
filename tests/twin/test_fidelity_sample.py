"""CI's five-seed sample of ``benchmarks/twin_fidelity.py``: the no-action policy on Online
Boutique's validation seeds 2000-2004, every figure inside its stated margin (the whole table,
four policies on all three apps, is the benchmark's)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "twin_fidelity.py"


def test_five_seed_sample_is_inside_every_margin():
    spec = importlib.util.spec_from_file_location("twin_fidelity", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    lines: list[str] = []
    rows = mod.run("online-boutique", [2000, 2001, 2002, 2003, 2004], ["noop"], lines.append)
    assert len(rows) >= 20  # scores, shares, marginals, rules and mechanisms with enough faults
    outside = [r for r in rows if not r[6]]
    assert outside == [], "\n".join(lines)
