"""Evaluation figures (extra ``viz``): per-fault timeline and the Figure 9 outcome bars, rendered
headless to PNG; and the per-fault view they draw from agrees with the scorecard."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sre_gym.bundle import write_bundle
from sre_gym.plots import OUTCOME_COLORS, check_details, fault_details, fault_timeline, outcome_bars
from sre_gym.scoring.scorer import OUTCOMES

pytest.importorskip("matplotlib")
PNG = b"\x89PNG\r\n\x1a\n"


def test_importing_stays_light():
    code = (
        "import sys, sre_gym, sre_gym.plots, sre_gym.scoring.leaderboard, sre_gym.testing;"
        "heavy = [m for m in ('matplotlib', 'pandas', 'ray', 'kubernetes') if m in sys.modules];"
        "print(heavy); sys.exit(bool(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("agent", ["noop", "runbook", "oracle"])
def test_fault_details_agree_with_the_scorecard(episode, agent):
    ep = episode(agent, 0)
    card = ep["info"]["scorecard"]
    details = fault_details(ep["env"].evidence)
    assert len(details) == card["n_injected"]
    assert check_details(details, card) == []
    for d in details:
        assert d["start"] < d["end"] and d["outcome"] in OUTCOMES
        if d["repaired_at"] is not None:
            assert d["localized_at"] is not None and d["correlated_at"] is not None
            assert d["start"] < d["repaired_at"] < d["end"]
            assert d["interventions"], d  # a credited repair came from an intervention on it


def test_fault_timeline_renders_a_bundle(episode, tmp_path):
    ep = episode("runbook", 0)
    card = ep["info"]["scorecard"]
    bundle = write_bundle(ep["env"].evidence, tmp_path / "runs")
    fig = fault_timeline(bundle)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == card["n_injected"] + 1 and labels[-1] == "all interventions"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    for k in OUTCOMES:  # the legend counts outcomes as the scorecard does
        assert any(t.endswith(f"({card['outcomes'][k]})") for t in legend), (k, legend)
    assert f"{card['marathon_score']:.1f}" in ax.get_title(loc="left")
    out = tmp_path / "timeline.png"
    fig.savefig(out, dpi=80)
    data = out.read_bytes()
    assert data.startswith(PNG) and len(data) > 20_000


def test_fault_timeline_takes_evidence_or_details_but_not_a_bare_scorecard(episode):
    ep = episode("oracle", 0)
    ev = ep["env"].evidence
    fig = fault_timeline(ev, cutoff=ev.manifest["episode_start"] + 1800, title="first 30 min")
    assert fig.axes[0].get_title(loc="left") == "first 30 min"
    n_early = sum(1 for e in ev.of("injection") if e["t"] <= ev.manifest["episode_start"] + 1800)
    assert len(fig.axes[0].get_yticklabels()) == n_early + 1
    details = {"faults": fault_details(ev), **ev.manifest}
    assert (
        len(fault_timeline(details).axes[0].get_yticklabels())
        == ep["info"]["scorecard"]["n_injected"] + 1
    )
    with pytest.raises(ValueError, match="per-fault"):
        fault_timeline(ep["info"]["scorecard"])


def test_outcome_bars_reproduce_figure_9(episode, tmp_path):
    results = [
        {
            "agent": a,
            "app": "online-boutique",
            "seed": s,
            "scorecard": episode(a, s)["info"]["scorecard"],
        }
        for a in ("noop", "runbook", "oracle")
        for s in (0, 1)
    ]
    fig = outcome_bars(results)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["oracle (2 runs)", "runbook (2 runs)", "noop (2 runs)"]  # best on top
    # per method, the stacked segments cover exactly 100 % and carry the outcome colours
    per_row: dict[float, float] = {}
    for bar in ax.patches:
        y = round(bar.get_y() + bar.get_height() / 2, 3)
        per_row[y] = per_row.get(y, 0.0) + bar.get_width()
    assert len(per_row) == 3 and all(v == pytest.approx(100.0) for v in per_row.values())
    noop_missed = [b for b in ax.patches if round(b.get_y() + b.get_height() / 2) == 0]
    assert len(noop_missed) == 1 and noop_missed[0].get_width() == pytest.approx(100.0)
    from matplotlib.colors import to_hex

    assert to_hex(noop_missed[0].get_facecolor()) == OUTCOME_COLORS["missed"]
    out = tmp_path / "outcomes.png"
    fig.savefig(out, dpi=80)
    assert out.read_bytes().startswith(PNG)
    ordered = outcome_bars(results, methods=["noop", "oracle"])
    assert [t.get_text() for t in ordered.axes[0].get_yticklabels()] == [
        "noop (2 runs)",
        "oracle (2 runs)",
    ]
    with pytest.raises(ValueError, match="no results"):
        outcome_bars([{"agent": "x", "app": "y", "scorecard": {"marathon_score": 1.0}}])
