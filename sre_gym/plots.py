"""Evaluation figures (extra ``viz``): a per-fault timeline of one run and the outcome bars of the
paper's Figure 9. matplotlib is imported only inside the figure functions, so ``import sre_gym``
and ``import sre_gym.plots`` stay light; ``fault_details`` needs only numpy.

    from sre_gym.plots import fault_timeline, outcome_bars
    fault_timeline("runs/online-boutique-s0-0d6536643b7c").savefig("timeline.png")
    outcome_bars("results.jsonl").savefig("outcomes.png")
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import OUTCOMES

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

# Figure 9's six outcomes, best to worst (greens: repaired; amber: acted; blues: diagnosed; grey).
OUTCOME_COLORS: dict[str, str] = {
    "handled": "#1b7837",
    "repaired_not_handled": "#a6dba0",
    "acted_without_repair": "#f4a582",
    "located_without_action": "#4393c3",
    "correlated_only": "#b8d7ea",
    "missed": "#bdbdbd",
}
OUTCOME_LABELS: dict[str, str] = {
    "handled": "handled",
    "repaired_not_handled": "repaired, not handled",
    "acted_without_repair": "acted without repair",
    "located_without_action": "located without action",
    "correlated_only": "correlated only",
    "missed": "missed",
}


# ---------------------------------------------------------------------------------- per-fault data


def load_evidence(source: Evidence | str | os.PathLike) -> Evidence:
    """``source`` itself if it is ``Evidence``, else the (verified) bundle at that path."""
    if isinstance(source, Evidence):
        return source
    if isinstance(source, str | os.PathLike):
        from sre_gym.bundle import read_bundle

        return read_bundle(Path(source))
    raise TypeError(f"expected Evidence or a bundle path, got {type(source).__name__}")


def fault_details(
    source: Evidence | str | os.PathLike,
    cutoff: float | None = None,
    config: ScoringConfig | None = None,
) -> list[dict[str, Any]]:
    """One record per injected fault: its window, the incident it was matched to, the time it
    reached each stage (raw evidence time, ``None`` if not reached), its outcome and the
    interventions that acted on it: the scorer's own per-fault view (``score(per_fault=True)``).
    ``check_details`` checks it against a scorecard.
    """
    from sre_gym.scoring.scorer import score

    return score(load_evidence(source), cutoff, config, per_fault=True)["faults"]


def check_details(details: list[dict[str, Any]], card: Mapping[str, Any]) -> list[str]:
    """Differences between ``fault_details`` and a scorecard of the same evidence (none: [])."""
    problems = []
    counts = dict.fromkeys(OUTCOMES, 0)
    for d in details:
        counts[d["outcome"]] += 1
    # at the end of a run the card also counts scheduled faults never injected as missed
    counts["missed"] += max(sum(card["outcomes"].values()) - len(details), 0)
    if counts != dict(card["outcomes"]):
        problems.append(f"outcomes {counts} != scorecard {dict(card['outcomes'])}")
    n = int(card["n_faults"]) or 1
    for key, field in (
        ("correlation", "correlated_at"),
        ("localization", "localized_at"),
        ("repair", "repaired_at"),
    ):
        share = sum(d[field] is not None for d in details) / n
        if not math.isclose(share, float(card[key]), abs_tol=1e-9):
            problems.append(f"{key} {share} != scorecard {card[key]}")
    return problems


# ---------------------------------------------------------------------------------- figures


def _figure(width: float, height: float) -> Figure:
    """A new Figure with one Axes, built without pyplot: no global state, no GUI backend needed
    (``savefig`` renders with Agg), and it displays inline in Jupyter all the same."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("sre_gym.plots needs matplotlib: pip install 'sre_gym[viz]'") from e
    fig = Figure(figsize=(width, height), layout="constrained")
    fig.subplots()
    return fig


def fault_timeline(
    scorecard_or_evidence: Evidence | str | os.PathLike | Mapping[str, Any],
    *,
    cutoff: float | None = None,
    title: str | None = None,
    width: float = 11.0,
) -> Figure:
    """Per-fault timeline of one run: each fault's active window coloured by its outcome, the
    times it was correlated, localized and repaired, the interventions that acted on it, and a
    bottom strip of every intervention (red when outside the cited incident's scope).

    Accepts ``Evidence``, a bundle path, or a mapping with a ``"faults"`` list shaped like
    ``fault_details`` (plus the manifest keys ``episode_start``/``episode_end`` if known).
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if isinstance(scorecard_or_evidence, Mapping):
        if "faults" not in scorecard_or_evidence:
            raise ValueError(
                "a scorecard has no per-fault data; pass the run's Evidence or bundle path"
            )
        details = list(scorecard_or_evidence["faults"])
        man: Mapping[str, Any] = scorecard_or_evidence
        interventions = [x for d in details for x in d.get("interventions", [])]
        card = scorecard_or_evidence
    else:
        from sre_gym.scoring.scorer import score

        evidence = load_evidence(scorecard_or_evidence)
        details = fault_details(evidence, cutoff=cutoff)
        man = evidence.manifest
        interventions = [
            e
            for e in evidence.events
            if e["type"] == "intervention" and (cutoff is None or e["t"] <= cutoff)
        ]
        card = score(evidence, cutoff=cutoff)
    ep0 = float(man.get("episode_start", min((d["start"] for d in details), default=0.0)))
    ep1 = float(man.get("episode_end", max((d["end"] for d in details), default=ep0 + 5400)))

    def m(t: float) -> float:
        return (float(t) - ep0) / 60.0

    details = sorted(details, key=lambda d: (d["start"], d["index"]))
    n = len(details)
    fig = _figure(width, 1.6 + 0.17 * (n + 2))
    ax = fig.axes[0]
    strip = -1.5  # the row of all interventions, under the faults
    ax.axvspan(m(ep0), m(ep1), color="#f7f7f7", zorder=0)
    inj_end = float(man.get("inject_end", ep0 + 3600))  # no new faults after it
    if inj_end < ep1:
        ax.axvline(m(inj_end), color="#888888", lw=0.8, ls=":", zorder=1)
    for row, d in enumerate(details):
        y = n - 1 - row
        ax.barh(
            y,
            m(d["end"]) - m(d["start"]),
            left=m(d["start"]),
            height=0.72,
            color=OUTCOME_COLORS[d["outcome"]],
            edgecolor="none",
            zorder=2,
        )
        for x in d.get("interventions", []):
            ax.plot(m(x["t"]), y, marker="|", ms=7, mew=1.0, color="#333333", zorder=3)
        if d.get("repaired_at") is None and d.get("recovered_at") is not None:
            ax.plot(
                m(d["recovered_at"]),
                y,
                marker="*",
                ms=9.0,
                mfc="none",
                mec="#222222",
                mew=0.7,
                zorder=4,
            )
        if d.get("correlated_at") is not None:
            ax.plot(
                m(d["correlated_at"]),
                y,
                marker="o",
                ms=7.0,
                mfc="none",
                mec="#08306b",
                mew=1.2,
                zorder=4,
            )
        if d.get("localized_at") is not None:
            ax.plot(m(d["localized_at"]), y, marker="D", ms=4.0, color="#6a3d9a", zorder=5)
        if d.get("repaired_at") is not None:
            ax.plot(
                m(d["repaired_at"]),
                y,
                marker="*",
                ms=10.0,
                mfc="#ffd92f",
                mec="#222222",
                mew=0.6,
                zorder=6,
            )
    for x in interventions:
        ax.plot(
            m(x["t"]),
            strip,
            marker="|",
            ms=9,
            mew=1.0,
            color="#333333" if x.get("in_scope") else "#d6604d",
            zorder=3,
        )
    labels = [
        f"{d['index']:>2} {(d.get('target') or '')[:18]} · {d.get('mechanism') or ''}"
        for d in details
    ]
    ax.set_yticks([n - 1 - i for i in range(n)] + [strip], labels + ["all interventions"])
    ax.tick_params(axis="y", labelsize=6.5, length=0)
    ax.set_ylim(strip - 1.0, n)
    ax.set_xlim(m(ep0) - 1, m(ep1) + 1)
    ax.set_xticks(np.arange(0, m(ep1) + 1, 10))
    ax.set_xlabel("minutes since the episode start (dotted: end of injections)")
    ax.grid(axis="x", color="#dddddd", lw=0.6, zorder=0)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    counts = {k: sum(d["outcome"] == k for d in details) for k in OUTCOMES}
    handles = [
        Patch(color=OUTCOME_COLORS[k], label=f"{OUTCOME_LABELS[k]} ({counts[k]})") for k in OUTCOMES
    ]
    handles += [
        Line2D([], [], ls="", marker="o", mfc="none", mec="#08306b", mew=1.2, label="correlated"),
        Line2D([], [], ls="", marker="D", ms=4, color="#6a3d9a", label="localized"),
        Line2D([], [], ls="", marker="*", ms=10, mfc="#ffd92f", mec="#222222", label="repaired"),
        Line2D(
            [],
            [],
            ls="",
            marker="*",
            ms=9,
            mfc="none",
            mec="#222222",
            label="recovered, uncredited",
        ),
        Line2D([], [], ls="", marker="|", ms=8, color="#333333", label="intervention"),
        Line2D([], [], ls="", marker="|", ms=8, color="#d6604d", label="out of scope"),
    ]
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.06 - 1.2 / (n + 8)),
        ncol=6,
        fontsize=7,
        frameon=False,
    )
    if title is None:
        score_txt = (
            f"Marathon-Score {card['marathon_score']:.1f}" if "marathon_score" in card else ""
        )
        title = (
            f"{man.get('app', '')} seed {man.get('seed', '')} · {n} faults injected · {score_txt}"
        )
    ax.set_title(title, fontsize=10, loc="left")
    return fig


def _outcome_table(results: Any) -> list[tuple[str, dict[str, float], int]]:
    """(method, outcome shares, runs) per method, pooled over every run's faults."""
    from sre_gym.scoring.leaderboard import load_results

    rows = load_results(results)
    acc: dict[str, dict[str, float]] = {}
    runs: dict[str, int] = {}
    for r in rows:
        oc = {k: r.get(f"outcomes.{k}") for k in OUTCOMES}
        if any(v is None for v in oc.values()):
            continue
        a = acc.setdefault(r["agent"], dict.fromkeys(OUTCOMES, 0.0))
        for k, v in oc.items():
            a[k] += float(v)
        runs[r["agent"]] = runs.get(r["agent"], 0) + 1
    out = []
    for method, a in acc.items():
        total = sum(a.values()) or 1.0
        out.append((method, {k: v / total for k, v in a.items()}, runs[method]))
    return out


def outcome_bars(
    results: Any,
    *,
    methods: Iterable[str] | None = None,
    title: str | None = "Outcome of every injected fault (first match)",
    width: float = 9.0,
) -> Figure:
    """The paper's Figure 9: per method, the stacked shares of the six first-match outcomes of every
    injected fault, pooled over its runs. ``results`` is anything ``leaderboard.load_results`` reads
    (JSONL paths, rows, a rollouts results object). Methods keep ``methods`` order, else best first
    (by handled, then repaired, ... share)."""
    table = _outcome_table(results)
    if not table:
        raise ValueError("no results with outcome counts to plot")
    if methods is not None:
        order = {m: i for i, m in enumerate(methods)}
        table = sorted((t for t in table if t[0] in order), key=lambda t: order[t[0]])
    else:
        table.sort(key=lambda t: tuple(-t[1][k] for k in OUTCOMES[:-1]))
    n = len(table)
    fig = _figure(width, 1.3 + 0.45 * n)
    ax = fig.axes[0]
    for row, (_method, shares, _runs) in enumerate(table):
        y = n - 1 - row
        left = 0.0
        for k in OUTCOMES:
            w = 100.0 * shares[k]
            if w <= 0:
                continue
            ax.barh(y, w, left=left, height=0.7, color=OUTCOME_COLORS[k], edgecolor="white", lw=0.5)
            if w >= 6.0:
                dark = k in ("handled", "located_without_action")
                ax.text(
                    left + w / 2,
                    y,
                    f"{w:.0f}%",
                    ha="center",
                    va="center",
                    fontsize=7.5,
                    color="white" if dark else "#222222",
                )
            left += w
    ax.set_yticks(
        [n - 1 - i for i in range(n)], [f"{m} ({r} run{'s' * (r != 1)})" for m, _, r in table]
    )
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of injected faults (%)")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    from matplotlib.patches import Patch

    ax.legend(
        handles=[Patch(color=OUTCOME_COLORS[k], label=OUTCOME_LABELS[k]) for k in OUTCOMES],
        loc="lower center",
        bbox_to_anchor=(0.5, 1.0),
        ncol=3,
        fontsize=8,
        frameon=False,
    )
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


__all__ = [
    "OUTCOME_COLORS",
    "OUTCOME_LABELS",
    "check_details",
    "fault_details",
    "fault_timeline",
    "load_evidence",
    "outcome_bars",
]
