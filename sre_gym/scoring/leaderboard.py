"""The leaderboard: the paper's Table 2 from rollout results.

Input rows are what ``sre-gym run --json`` prints, one JSON object per line::

    {"agent": "runbook", "app": "online-boutique", "seed": 0, "scorecard": {...}}

Flat rows work too (the scorecard's fields at the top level, nested ones either nested or flattened
as ``degradation.ratio`` / ``degradation_ratio``, ``cost.tool_calls`` / ``tool_calls``...), as do
``method`` instead of ``agent`` and rows holding a ``scorecard`` under another layer of nesting.

Methods are ranked by ``net_score`` (the default reward: the staged score that charges false
alarms, unneeded interventions and harm), with the paper's Marathon-Score beside it; rows from
before net_score existed rank after those with it. One row per method: each metric is averaged over seeds within an app, then over apps (so every app
weighs the same, as the paper averages each method's runs across its three applications). A value
that is ``null`` in a run (an MTTx no fault reached, a degradation ratio without a no-action run)
is left out of that average; a method with no value at all shows ``-``. The best value of each
column is marked (highest or lowest, per the column's direction; ties are all marked).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sre_gym.scoring.scorer import OUTCOMES


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    better: Literal["higher", "lower"]
    fmt: str
    sources: tuple[str, ...]  # flattened keys to read the value from, first found wins


COLUMNS: tuple[Column, ...] = (
    Column("net_score", "net_score", "higher", "{:.1f}", ("net_score",)),
    Column("marathon_score", "Marathon-Score", "higher", "{:.1f}", ("marathon_score",)),
    Column("correlation", "Corr.", "higher", "{:.3f}", ("correlation",)),
    Column("localization", "Loc.", "higher", "{:.3f}", ("localization",)),
    Column("repair", "Repair", "higher", "{:.3f}", ("repair",)),
    Column("intervention_risk", "Int. risk", "lower", "{:.3f}", ("intervention_risk",)),
    Column(
        "degradation_ratio",
        "Degr. ratio",
        "lower",
        "{:.3f}",
        ("degradation.ratio", "degradation_ratio"),
    ),
    Column("mttd_s", "MTTD (s)", "lower", "{:.0f}", ("mttd_s", "mttd")),
    Column("mttl_s", "MTTL (s)", "lower", "{:.0f}", ("mttl_s", "mttl")),
    Column("mttr_s", "MTTR (s)", "lower", "{:.0f}", ("mttr_s", "mttr")),
    Column("tool_calls", "Tool calls", "lower", "{:.1f}", ("cost.tool_calls", "tool_calls")),
    Column("dollars", "Cost ($)", "lower", "{:.2f}", ("cost.dollars", "dollars", "cost")),
)
METHOD_KEYS = ("agent", "method", "policy")


# ---------------------------------------------------------------------------------- reading


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts become dotted keys: ``{"outcomes": {"handled": 3}}`` -> ``{"outcomes.handled": 3}``."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def normalize_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A result row as flat keys (``agent``, ``app``, ``seed``, ``marathon_score``,
    ``degradation.ratio``, ``cost.tool_calls``, ``outcomes.handled``...)."""
    flat = flatten(row)
    out: dict[str, Any] = {}
    for k, v in flat.items():
        # the scorecard's own fields win over same-named outer ones; drop a "scorecard." prefix
        base = k.split("scorecard.", 1)[1] if "scorecard." in k else k
        if base.startswith("scorecard_"):
            base = base.removeprefix("scorecard_")
        if base not in out or k != base:
            out[base] = v
    for k in list(out):  # accept "_" for "." in flat rows: degradation_ratio, cost_tool_calls
        for group in ("degradation", "cost", "outcomes"):
            if k.startswith(group + "_"):
                out.setdefault(f"{group}.{k[len(group) + 1 :]}", out[k])
    for k in OUTCOMES:  # outcome counts may also sit at the top level
        if k in out and f"outcomes.{k}" not in out:
            out[f"outcomes.{k}"] = out[k]
    method = next((out[k] for k in METHOD_KEYS if out.get(k) is not None), None)
    out["agent"] = str(method) if method is not None else "?"
    out["app"] = str(out.get("app", "?"))
    return out


def _read_lines(text: str, origin: str) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"{origin}:{n}: not a JSON object ({e.msg})") from e
        if not isinstance(obj, dict):
            raise ValueError(f"{origin}:{n}: expected a JSON object per line")
        rows.append(obj)
    return rows


def load_results(results: Any) -> list[dict[str, Any]]:
    """Normalised rows from: a JSONL path (or a directory of ``*.jsonl``), several of them, row
    dicts (nested or flat), a ``sre_gym.rollouts`` results object, or a pandas DataFrame of flat
    rows. Rows without a Marathon-Score (failed runs) are dropped."""
    raw: list[Mapping[str, Any]] = []
    if isinstance(results, str | os.PathLike | Mapping):
        results = [results]
    elif isinstance(getattr(results, "records", None), list):  # sre_gym.rollouts.RolloutResults
        results = results.records
    elif hasattr(results, "columns") and hasattr(results, "to_dict"):  # a pandas DataFrame
        results = results.to_dict(orient="records")
    for item in results:
        if isinstance(item, str | os.PathLike):
            p = Path(item)
            files = sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
            for f in files:
                raw.extend(_read_lines(f.read_text(), str(f)))
        elif isinstance(item, Mapping):
            raw.append(item)
        else:
            raise TypeError(f"cannot read results from {type(item).__name__}")
    rows = [normalize_row(r) for r in raw]
    return [r for r in rows if _number(r.get("marathon_score")) is not None]


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _value(row: Mapping[str, Any], col: Column) -> float | None:
    for s in col.sources:
        if s in row:
            return _number(row[s])
    return None


def _mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


# ---------------------------------------------------------------------------------- the table


@dataclass
class Leaderboard:
    """Rows (one per method, best net_score first) and the best methods of each column."""

    rows: list[dict[str, Any]]
    best: dict[str, set[str]] = field(default_factory=dict)
    columns: tuple[Column, ...] = COLUMNS
    rank_by: str = "net_score"

    def is_best(self, method: str, key: str) -> bool:
        return method in self.best.get(key, set())

    def _cell(self, row: Mapping[str, Any], col: Column, mark: str) -> str:
        v = row.get(col.key)
        if v is None:
            return "-"
        s = col.fmt.format(v)
        return mark.format(s) if self.is_best(row["method"], col.key) else s

    def to_text(self) -> str:
        """A fixed-width table; best values carry a ``*``."""
        head = ["Method", "Runs", *(c.label for c in self.columns)]
        body = [
            [r["method"], str(r["runs"]), *(self._cell(r, c, "{}*") for c in self.columns)]
            for r in self.rows
        ]
        widths = [max(len(x) for x in col) for col in zip(head, *body, strict=True)]
        lines = [
            "  ".join(
                h.ljust(w) if i == 0 else h.rjust(w)
                for i, (h, w) in enumerate(zip(line, widths, strict=True))
            )
            for line in (head, *body)
        ]
        lines.insert(1, "  ".join("-" * w for w in widths))
        return (
            "\n".join(lines) + "\n* best in column (higher is better for the scores and "
            f"stage shares, lower for the rest); ranked by {self.rank_by}\n"
        )

    def to_markdown(self) -> str:
        """A GitHub-flavoured markdown table; best values are **bold**."""
        head = ["Method", "Runs", *(c.label for c in self.columns)]
        arrows = {"higher": "↑", "lower": "↓"}
        head = head[:2] + [f"{c.label} {arrows[c.better]}" for c in self.columns]
        lines = [
            "| " + " | ".join(head) + " |",
            "|" + "|".join([":---", "---:"] + ["---:"] * len(self.columns)) + "|",
        ]
        for r in self.rows:
            cells = [r["method"], str(r["runs"])] + [
                self._cell(r, c, "**{}**") for c in self.columns
            ]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """CSV with raw values (empty when undefined) and a ``best_in`` column; written to ``path``
        if given. Returns the text."""
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["method", "runs", "apps", *(c.key for c in self.columns), "best_in"])
        for r in self.rows:
            w.writerow(
                [
                    r["method"],
                    r["runs"],
                    ";".join(r["apps"]),
                    *("" if r.get(c.key) is None else repr(float(r[c.key])) for c in self.columns),
                    ";".join(c.key for c in self.columns if self.is_best(r["method"], c.key)),
                ]
            )
        text = buf.getvalue()
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame indexed by method (needs the ``viz`` extra)."""
        import pandas as pd

        df = pd.DataFrame(
            [
                {
                    "method": r["method"],
                    "runs": r["runs"],
                    **{c.key: r.get(c.key) for c in self.columns},
                }
                for r in self.rows
            ]
        )
        return df.set_index("method")


def leaderboard(
    results: Any, columns: tuple[Column, ...] = COLUMNS, rank_by: str = "net_score"
) -> Leaderboard:
    """Aggregate results (anything ``load_results`` reads) into one row per method, ranked by
    ``rank_by`` (``"net_score"``, or ``"marathon_score"`` for the paper's ranking)."""
    if rank_by not in ("net_score", "marathon_score"):
        raise ValueError(f"rank_by must be 'net_score' or 'marathon_score', not {rank_by!r}")
    other = "marathon_score" if rank_by == "net_score" else "net_score"
    rows = load_results(results)
    if not rows:
        raise ValueError("no results with a Marathon-Score")
    by_method: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in rows:
        by_method.setdefault(r["agent"], {}).setdefault(r["app"], []).append(r)
    table = []
    for method, apps in by_method.items():
        out: dict[str, Any] = {
            "method": method,
            "runs": sum(len(v) for v in apps.values()),
            "apps": sorted(apps),
        }
        for col in columns:
            per_app = [_mean(_value(r, col) for r in runs) for runs in apps.values()]
            out[col.key] = _mean(per_app)
        table.append(out)
    table.sort(
        key=lambda r: (
            r.get(rank_by) is None,
            -(r.get(rank_by) or 0.0),
            -(r.get(other) or 0.0),
            r["method"],
        )
    )
    best: dict[str, set[str]] = {}
    for col in columns:
        vals = [(r["method"], r[col.key]) for r in table if r[col.key] is not None]
        if not vals:
            continue
        pick = max if col.better == "higher" else min
        target = pick(v for _, v in vals)
        best[col.key] = {
            m for m, v in vals if math.isclose(v, target, rel_tol=1e-12, abs_tol=1e-12)
        }
    return Leaderboard(table, best, columns, rank_by)


__all__ = ["COLUMNS", "Column", "Leaderboard", "leaderboard", "load_results", "normalize_row"]
