"""Export TSDB contents for real Prometheus tools (conformance oracle).

* :func:`rule_test_file` writes a ``promtool test rules`` unit-test file: the TSDB series as
  ``input_series`` (interval = tick), ``alert_rule_test`` entries with the in-process
  :class:`~sre_gym.telemetry.rules.AlertEngine`'s firing alerts at every evaluation time, and
  ``promql_expr_test`` entries computed by the in-process :class:`~sre_gym.telemetry.promql.Engine`.
* :func:`openmetrics` writes the series for ``promtool tsdb create-blocks-from openmetrics``.

Staleness: a NaN right after a present sample is exported as promtool's ``stale`` marker and later
NaNs as ``_`` (no sample), which is exactly what the TSDB's NaN means. OpenMetrics has no staleness
marker, so a backfilled server only reproduces vanishing series when it runs with
``--query.lookback-delta`` just under one tick (compare with ``Engine(lookback_s=tick - 0.001)``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .promql.format import go_float
from .tsdb import TSDB

if TYPE_CHECKING:
    from .promql import Engine
    from .rules import AlertEngine


def _escape(v: str) -> str:
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def series_selector(name: str, labels: Iterable[tuple[str, str]]) -> str:
    """``name{a="b",...}`` in Prometheus text syntax (labels sorted, empty values dropped)."""
    inner = ",".join(
        f'{k}="{_escape(v)}"' for k, v in sorted(labels) if v != "" and k != "__name__"
    )
    return f"{name}{{{inner}}}"


def _duration(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    if ms % 1000:
        return f"{ms}ms"
    return f"{ms // 1000}s"


def series_values(row: np.ndarray) -> str | None:
    """promtool ``values`` notation for one row of samples; None if the series never exists."""
    present = ~np.isnan(row)
    if not present.any():
        return None
    last = int(np.flatnonzero(present)[-1])
    toks: list[str] = []
    seen = False
    prev_present = False
    for i in range(last + 1):
        if present[i]:
            toks.append(go_float(float(row[i])))
            seen = prev_present = True
        elif seen and prev_present:
            toks.append("stale")
            prev_present = False
        else:
            toks.append("_")
    if last + 1 < len(row):
        # The series vanishes after its last sample: mark it stale at the next tick.
        toks.append("stale")
    return " ".join(toks)


def input_series(tsdb: TSDB, names: Sequence[str] | None = None) -> list[dict[str, str]]:
    """All (or the named) families as promtool ``input_series`` entries over committed ticks."""
    out: list[dict[str, str]] = []
    n = tsdb.n_ticks
    for name in sorted(names if names is not None else tsdb.families):
        fam = tsdb.families[name]
        # promtool's in-memory storage returns series in creation order; sorted input makes that
        # the label order a real Prometheus (and the engine) uses, so sums add up identically.
        for r in sorted(range(fam.n_series), key=lambda i: fam.rows[i]):
            labels = fam.rows[r]
            vals = series_values(fam.data[r, :n])
            if vals is not None:
                out.append({"series": series_selector(name, labels), "values": vals})
    return out


def openmetrics(tsdb: TSDB, shift_s: float = 0.0) -> str:
    """OpenMetrics text (untyped families) of all committed samples, timestamps shifted."""
    lines: list[str] = []
    n = tsdb.n_ticks
    times = [tsdb.time_of(k) + shift_s for k in range(n)]
    for name in sorted(tsdb.families):
        fam = tsdb.families[name]
        if not fam.n_series:
            continue
        lines.append(f"# TYPE {name} unknown")
        for r, labels in enumerate(fam.rows):
            sel = series_selector(name, labels)
            row = fam.data[r, :n]
            for k in np.flatnonzero(~np.isnan(row)).tolist():
                lines.append(f"{sel} {go_float(float(row[k]))} {go_float(times[k])}")
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def expr_test(engine: Engine, expr: str, eval_time: float) -> dict[str, Any]:
    """A ``promql_expr_test`` entry whose expectation is the in-process engine's result."""
    res = engine.eval(engine.compile(expr), [eval_time])
    samples = []
    if res.kind == "scalar":
        samples.append({"labels": "{}", "value": _yaml_float(float(res.values[0, 0]))})
    elif res.kind == "vector":
        for i, ls in enumerate(res.label_sets):
            if not res.present[i, 0]:
                continue
            d = dict(ls)
            name = d.pop("__name__", "")
            samples.append(
                {
                    "labels": series_selector(name, d.items()),
                    "value": _yaml_float(float(res.values[i, 0])),
                }
            )
    else:
        raise ValueError(f"promql_expr_test needs a vector or scalar query, got {res.kind}")
    return {"expr": expr, "eval_time": _duration(eval_time - 0), "exp_samples": samples}


def _yaml_float(v: float) -> float | str:
    if math.isnan(v):
        raise ValueError("NaN results cannot be expressed in promql_expr_test (NaN != NaN)")
    return v


def alert_tests(alert_engine: AlertEngine, eval_times: Sequence[float]) -> list[dict[str, Any]]:
    """``alert_rule_test`` entries: every alert name at every time, with the engine's firing alerts
    (promtool checks all alerts of a name at once, so severity tiers sharing a name go together)."""
    out: list[dict[str, Any]] = []
    t0 = alert_engine.engine.tsdb.t0
    names = list(dict.fromkeys(rule.name for rule in alert_engine.rules))
    for e in eval_times:
        firing = alert_engine.firing_snapshot(e)
        for name in names:
            exp = []
            for a in firing:
                if a["name"] != name:
                    continue
                labels = {k: v for k, v in a["labels"].items() if k != "alertname"}
                entry: dict[str, Any] = {"exp_labels": labels}
                if a["annotations"]:
                    entry["exp_annotations"] = dict(a["annotations"])
                exp.append(entry)
            out.append({"eval_time": _duration(e - t0), "alertname": name, "exp_alerts": exp})
    return out


def rule_test_file(
    tsdb: TSDB,
    rule_files: Sequence[str],
    *,
    alert_engine: AlertEngine | None = None,
    alert_times: Sequence[float] = (),
    expr_tests: Sequence[dict[str, Any]] = (),
    evaluation_interval_s: float = 30,
) -> dict[str, Any]:
    """The whole ``promtool test rules`` document (dump it with ``yaml.safe_dump``).

    promtool starts every series at time 0, so the TSDB should have ``t0 == 0``.
    """
    if tsdb.t0 != 0:
        raise ValueError("promtool unit tests start at time 0; build the TSDB with t0=0")
    test: dict[str, Any] = {
        "interval": _duration(tsdb.tick_s),
        "input_series": input_series(tsdb),
    }
    if alert_engine is not None:
        test["alert_rule_test"] = alert_tests(alert_engine, alert_times)
    if expr_tests:
        test["promql_expr_test"] = list(expr_tests)
    return {
        "rule_files": list(rule_files),
        "evaluation_interval": _duration(evaluation_interval_s),
        "tests": [test],
    }
