"""Prometheus alerting rules: loading rule files and evaluating them like Prometheus 2.42.

``load_rules`` parses a rule file (``groups: [{name, interval?, rules: [...]}]``), validates it and
compiles label/annotation templates up front. ``AlertEngine`` evaluates each rule's expression with
the vectorised PromQL engine once per batch of evaluation times and then replays the 2.42
``for:`` state machine per time in order:

* a new series becomes *pending* (``active_at = e``);
* a pending alert whose ``e - active_at >= for`` becomes *firing* (``fired_at = e``; ``for: 0``
  fires in the same evaluation);
* a pending alert whose series disappears is dropped; a firing one is *resolved* (``resolved_at``);
* a series that reappears after resolution is a new alert.

Alert labels are the series labels minus ``__name__`` plus the rendered rule labels plus
``alertname``. Two series mapping to the same alert labels make that evaluation of the rule fail
(recorded in :attr:`AlertEngine.errors`, state unchanged), as in Prometheus. Evaluation times are
``t0 + k * interval`` (the group's ``interval`` or ``eval_interval_s``), exactly like
``promtool test rules``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import promql_parser as pp
import yaml

from .promql import Engine, Plan, PromQLError
from .promql.templates import Template, TemplateError, compile_template

__all__ = ["AlertEngine", "AlertRule", "RuleError", "load_rules", "parse_duration"]

_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_DURATION = re.compile(
    r"(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?(?:(\d+)ms)?"
)
_NO_SERIES: tuple[list, list] = ([], [])  # a rule's result with no series (read, never changed)
_UNITS_MS = (365 * 86_400_000, 7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1)


class RuleError(ValueError):
    """Invalid rule file (bad YAML shape, expression, duration or template)."""


def parse_duration(s: str | int | float) -> float:
    """Prometheus duration (``1h30m``, ``90s``, ``0``) to seconds."""
    if isinstance(s, int | float) and not isinstance(s, bool):
        if s == 0:
            return 0.0
        raise RuleError(f"not a valid duration string: {s!r} (missing unit)")
    if not isinstance(s, str):
        raise RuleError(f"not a valid duration string: {s!r}")
    if s == "0":
        return 0.0
    m = _DURATION.fullmatch(s)
    if not s or m is None:
        raise RuleError(f"not a valid duration string: {s!r}")
    ms = sum(int(g) * u for g, u in zip(m.groups(), _UNITS_MS, strict=True) if g)
    return ms / 1000.0


@dataclass
class AlertRule:
    """One alerting rule with its compiled expression and templates."""

    name: str
    expr: str
    for_s: float = 0.0
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    group: str = ""
    interval_s: float | None = None
    label_templates: dict[str, Template] = field(default_factory=dict, repr=False)
    annotation_templates: dict[str, Template] = field(default_factory=dict, repr=False)
    static_labels: dict[str, str] | None = field(default=None, repr=False)

    @property
    def labels_use_value(self) -> bool:
        """Whether a label template may depend on the sample value (so labels can't be cached)."""
        return any(
            not t.static and ("alue" in t.text or re.search(r"\{\{-?\s*\.\s*(\||-?\}\})", t.text))
            for t in self.label_templates.values()
        )

    def render_labels(self, series: dict[str, str], value: float) -> dict[str, str]:
        """Alert labels: series labels minus ``__name__``, rule labels, ``alertname``."""
        out = {k: v for k, v in series.items() if k != "__name__"}
        if self.static_labels is not None:
            out.update(self.static_labels)
            for k, v in self.static_labels.items():
                if v == "":
                    out.pop(k, None)
        else:
            for k, t in self.label_templates.items():
                v = t.render(series, value)
                if v:
                    out[k] = v
                else:
                    out.pop(k, None)
        out["alertname"] = self.name
        return out

    def render_annotations(self, series: dict[str, str], value: float) -> dict[str, str]:
        return {k: t.render(series, value) for k, t in self.annotation_templates.items()}


def _check_label_map(m: Any, what: str, where: str) -> dict[str, str]:
    if m is None:
        return {}
    if not isinstance(m, dict):
        raise RuleError(f"{where}: {what} must be a mapping")
    out: dict[str, str] = {}
    for k, v in m.items():
        if not isinstance(k, str) or not _LABEL_NAME.fullmatch(k):
            raise RuleError(f"{where}: invalid {what} name {k!r}")
        if what == "label" and k == "__name__":
            raise RuleError(f"{where}: invalid label name {k!r}")
        if isinstance(v, bool) or v is None:
            raise RuleError(f"{where}: {what} {k!r} must be a string")
        out[k] = v if isinstance(v, str) else str(v)
    return out


def load_rules(source: str | Path | dict | Sequence[dict]) -> list[AlertRule]:
    """Load alerting rules from a rule file path, YAML text, or an already-parsed document.

    Recording rules are rejected (the simulator has no place to write their output).
    """
    if isinstance(source, Path) or (
        isinstance(source, str) and "\n" not in source and source.endswith((".yml", ".yaml"))
    ):
        text = Path(source).read_text()
        doc = yaml.safe_load(text)
    elif isinstance(source, str):
        doc = yaml.safe_load(source)
    else:
        doc = source
    if isinstance(doc, list):
        doc = {"groups": doc}
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), list):
        raise RuleError("rule file must be a mapping with a 'groups' list")
    extra = set(doc) - {"groups"}
    if extra:
        raise RuleError(f"unknown top-level keys {sorted(extra)}")
    rules: list[AlertRule] = []
    seen_groups: set[str] = set()
    for gi, g in enumerate(doc["groups"]):
        if not isinstance(g, dict) or not isinstance(g.get("name"), str) or not g["name"]:
            raise RuleError(f"group #{gi}: needs a non-empty 'name'")
        gname = g["name"]
        if gname in seen_groups:
            raise RuleError(f'groupname: "{gname}" is repeated in the same file')
        seen_groups.add(gname)
        bad = set(g) - {"name", "interval", "rules", "limit"}
        if bad:
            raise RuleError(f"group {gname!r}: unknown keys {sorted(bad)}")
        interval = parse_duration(g["interval"]) if g.get("interval") is not None else None
        if interval is not None and interval <= 0:
            raise RuleError(f"group {gname!r}: interval must be positive")
        for ri, r in enumerate(g.get("rules") or []):
            rules.append(_load_rule(r, gname, ri, interval))
    return rules


def _load_rule(r: Any, gname: str, ri: int, interval: float | None) -> AlertRule:
    where = f"group {gname!r}, rule #{ri}"
    if not isinstance(r, dict):
        raise RuleError(f"{where}: rule must be a mapping")
    if "record" in r:
        raise RuleError(f"{where}: recording rules are not supported (record: {r['record']!r})")
    if not isinstance(r.get("alert"), str) or not r["alert"]:
        raise RuleError(f"{where}: alert name missing")
    name = r["alert"]
    where = f"{where} ({name})"
    bad = set(r) - {"alert", "expr", "for", "labels", "annotations"}
    if bad:
        raise RuleError(f"{where}: unsupported keys {sorted(bad)}")
    expr = r.get("expr")
    if isinstance(expr, int | float) and not isinstance(expr, bool):
        expr = str(expr)
    if not isinstance(expr, str) or not expr.strip():
        raise RuleError(f"{where}: expr missing")
    try:
        pp.parse(expr)
    except ValueError as e:
        raise RuleError(f"{where}: could not parse expression: {e}") from None
    for_s = parse_duration(r["for"]) if r.get("for") is not None else 0.0
    labels = _check_label_map(r.get("labels"), "label", where)
    annotations = _check_label_map(r.get("annotations"), "annotation", where)
    try:
        lt = {k: compile_template(v) for k, v in labels.items()}
        at = {k: compile_template(v) for k, v in annotations.items()}
    except TemplateError as e:
        raise RuleError(f"{where}: {e}") from None
    static = (
        {k: t.render({}, 0.0) for k, t in lt.items()}
        if all(t.static for t in lt.values())
        else None
    )
    return AlertRule(name, expr, for_s, labels, annotations, gname, interval, lt, at, static)


@dataclass
class _Alert:
    rule: int
    key: tuple
    labels: dict[str, str]
    series: dict[str, str]
    state: str  # "pending" | "firing" | "resolved"
    active_at: float
    value: float
    fired_at: float | None = None
    resolved_at: float | None = None
    id: str | None = None
    fired_value: float | None = None
    annotations: dict[str, str] | None = None


class AlertEngine:
    """Evaluates alerting rules over a TSDB with Prometheus 2.42 ``for:`` semantics.

    Call :meth:`evaluate_until` as simulated time advances; it returns the state transitions of
    the new evaluations. :meth:`alerts_fired_until` / :meth:`history` give every alert that has
    fired at or before ``t`` with its state as of ``t``; :meth:`active_alerts` the current
    pending and firing ones.
    """

    def __init__(
        self,
        rules: Iterable[AlertRule] | str | Path,
        engine: Engine,
        eval_interval_s: float = 30,
        *,
        keep_snapshots: bool = False,
        strict: bool = False,
    ) -> None:
        if isinstance(rules, str | Path):
            rules = load_rules(rules)
        self.rules: list[AlertRule] = list(rules)
        self.engine = engine
        self.eval_interval_s = float(eval_interval_s)
        self.strict = strict
        self.keep_snapshots = keep_snapshots
        self.plans: list[Plan] = []
        for r in self.rules:
            try:
                self.plans.append(engine.compile(r.expr))
            except PromQLError as e:
                raise RuleError(f"rule {r.name!r}: {e}") from None
        self._interval_ms = [
            int(round((r.interval_s or self.eval_interval_s) * 1000)) for r in self.rules
        ]
        self._next_ms = [engine.tsdb.t0 * 1000] * len(self.rules)
        self._active: list[dict[tuple, _Alert]] = [{} for _ in self.rules]
        # Alert labels per series-label dict (the engine reuses those dicts while the series set
        # is unchanged), for rules whose label templates do not depend on the value.
        self._label_cache: list[dict[int, tuple] | None] = [
            {} if not r.labels_use_value else None for r in self.rules
        ]
        self._fired: list[_Alert] = []
        self._snapshots: dict[float, list[_Alert | dict]] = {}
        self.errors: list[dict[str, Any]] = []
        self.last_eval: float | None = None

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["plans"]  # compiled plans are rebuilt from the rule expressions
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.plans = [self.engine.compile(r.expr) for r in self.rules]

    # -- evaluation ------------------------------------------------------------------------------
    def _final_ms(self) -> int:
        tsdb = self.engine.tsdb
        if tsdb.n_ticks == 0:
            return -(1 << 62)
        return tsdb.time_of(tsdb.n_ticks - 1) * 1000

    def due_times(self, t: float) -> list[float]:
        """Evaluation times not evaluated yet, ``<= t`` and with their data final."""
        limit = min(int(math.floor(t * 1000)), self._final_ms())
        out: set[int] = set()
        for i, nxt in enumerate(self._next_ms):
            step = self._interval_ms[i]
            out.update(range(nxt, limit + 1, step))
        return [x / 1000 for x in sorted(out)]

    def evaluate_until(self, t: float) -> list[dict[str, Any]]:
        """Run all due evaluations up to ``t``; return their transitions in order.

        Each transition is ``{"t", "alert", "id", "labels", "from", "to", "value"}`` with states
        ``inactive``/``pending``/``firing``/``resolved``. Order: evaluation time, rule order,
        sorted alert labels.
        """
        limit = min(int(math.floor(t * 1000)), self._final_ms())
        per_rule: list[tuple[list[int], Any]] = []
        all_times: set[int] = set()
        # tiers of one template often share their expression: evaluate each (query, times) once
        memo: dict[tuple[str, tuple[int, ...]], Any] = {}
        with self.engine.shared_spans():  # rules read a few counters through many matchers
            for i, plan in enumerate(self.plans):
                times = list(range(self._next_ms[i], limit + 1, self._interval_ms[i]))
                if times:
                    self._next_ms[i] = times[-1] + self._interval_ms[i]
                    all_times.update(times)
                per_rule.append((times, self._eval_rule(i, plan, times, memo) if times else None))
        transitions: list[dict[str, Any]] = []
        active = self._active
        for e_ms in sorted(all_times):
            e = e_ms / 1000
            for i, (_times, res) in enumerate(per_rule):
                series = res.get(e_ms) if res is not None else None
                if series is None or (series is _NO_SERIES and not active[i]):
                    continue
                transitions.extend(self._step(i, e, series))
            if self.keep_snapshots:
                self._snapshots[e] = [
                    {
                        "name": self.rules[a.rule].name,
                        "rule": a.rule,  # tiers share a name: annotations come from this rule
                        "labels": dict(a.labels),
                        "series": a.series,
                        "value": a.value,
                        "id": a.id,
                    }
                    for act in self._active
                    for a in act.values()
                    if a.state == "firing"
                ]
            self.last_eval = e
        return transitions

    def _eval_rule(
        self, i: int, plan: Plan, times: list[int], memo: dict | None = None
    ) -> dict[int, Any]:
        """Series of rule ``i`` per evaluation time (ms) -> (label dicts, values).

        ``memo`` shares engine results (read-only) between rules with the same query and times;
        an error is still recorded for every rule that hits it."""
        key = (plan.query, tuple(times))
        res = memo.get(key) if memo is not None else None
        if res is None:
            try:
                res = self.engine.eval(plan, np.asarray(times, dtype=np.float64) / 1000)
            except PromQLError as e:
                res = e
            if memo is not None:
                memo[key] = res
        if isinstance(res, PromQLError):
            if len(times) == 1:
                self._error(i, times[0] / 1000, str(res))
                return {}
            out: dict[int, Any] = {}
            for tm in times:  # find which evaluations fail, as Prometheus evaluates them one by one
                out.update(self._eval_rule(i, plan, [tm], memo))
            return out
        out = {}
        if res.kind == "scalar":
            for k, tm in enumerate(times):
                out[tm] = ([{}], [float(res.values[0, k])])
            return out
        labels = res.labels
        if not labels:  # the common case: nothing matches the alert condition
            return dict.fromkeys(times, _NO_SERIES)
        values = res.values.T.tolist()
        # two lists per time rather than a pair per series: fewer objects to allocate and collect
        for k, (tm, col) in enumerate(zip(times, res.present.T, strict=True)):
            vk = values[k]
            rows = col.nonzero()[0].tolist()
            out[tm] = ([labels[r] for r in rows], [vk[r] for r in rows])
        return out

    def _error(self, i: int, e: float, msg: str) -> None:
        self.errors.append({"t": e, "alert": self.rules[i].name, "error": msg})
        if self.strict:
            raise RuleError(f"rule {self.rules[i].name!r} at t={e}: {msg}")

    def _step(
        self, i: int, e: float, series: tuple[list[dict[str, str]], list[float]]
    ) -> list[dict[str, Any]]:
        """One evaluation of rule ``i`` at ``e``: ``series`` is its result (label dicts, values)."""
        active = self._active[i]
        if not series[0] and not active:
            return []
        rule = self.rules[i]
        seen: dict[tuple, tuple[dict[str, str], dict[str, str], float]] = {}
        cache = self._label_cache[i]
        for s_labels, v in zip(*series, strict=True):
            hit = cache.get(id(s_labels)) if cache is not None else None
            if hit is not None and hit[0] is s_labels:
                _, labels, key = hit
            else:
                labels = rule.render_labels(s_labels, v)
                key = tuple(sorted(labels.items()))
                if cache is not None:
                    if len(cache) > 50_000:
                        cache.clear()
                    cache[id(s_labels)] = (s_labels, labels, key)
            if key in seen:
                self._error(
                    i,
                    e,
                    "vector contains metrics with the same labelset after applying alert labels",
                )
                return []
            seen[key] = (labels, s_labels, v)
        out: list[dict[str, Any]] = []
        new = []
        for key, (_, s_labels, v) in seen.items():
            a = active.get(key)
            if a is None:
                new.append(key)
            else:
                a.value = v
                a.series = s_labels
        for key in sorted(new):
            labels, s_labels, v = seen[key]
            a = _Alert(i, key, labels, s_labels, "pending", e, v)
            active[key] = a
            out.append(self._transition(a, e, "inactive", "pending"))
        # nothing resolves (every alert was seen again) and nothing is due to fire: the common
        # case, decided without sorting the alerts' label sets
        if len(active) == len(seen) and not any(
            a.state == "pending" and e - a.active_at >= rule.for_s for a in active.values()
        ):
            return out
        for key in sorted(active):
            a = active[key]
            if key not in seen:
                del active[key]
                if a.state == "pending":
                    out.append(self._transition(a, e, "pending", "inactive"))
                else:
                    a.state = "resolved"
                    a.resolved_at = e
                    out.append(self._transition(a, e, "firing", "resolved"))
                continue
            if a.state == "pending" and e - a.active_at >= rule.for_s:
                a.state = "firing"
                a.fired_at = e
                a.fired_value = a.value
                a.id = f"ALR-{len(self._fired) + 1:04d}"
                a.annotations = rule.render_annotations(a.series, a.value)
                self._fired.append(a)
                out.append(self._transition(a, e, "pending", "firing"))
        return out

    def _transition(self, a: _Alert, e: float, frm: str, to: str) -> dict[str, Any]:
        return {
            "t": e,
            "alert": self.rules[a.rule].name,
            "id": a.id,
            "labels": dict(a.labels),
            "from": frm,
            "to": to,
            "value": a.value,
        }

    # -- accessors -------------------------------------------------------------------------------
    def _record(self, a: _Alert, t: float | None) -> dict[str, Any]:
        rule = self.rules[a.rule]
        resolved = (
            a.resolved_at
            if a.resolved_at is not None and (t is None or a.resolved_at <= t)
            else None
        )
        return {
            "id": a.id,
            "name": rule.name,
            "labels": dict(a.labels),
            "annotations": dict(a.annotations or {}),
            "severity": a.labels.get("severity"),
            "state": "resolved" if resolved is not None else "firing",
            "active_at": a.active_at,
            "fired_at": a.fired_at,
            "resolved_at": resolved,
            "value": a.fired_value,
        }

    def alerts_fired_until(self, t: float) -> list[dict[str, Any]]:
        """Every alert that fired at or before ``t`` (in firing order), state as of ``t``.

        Only evaluations already run by :meth:`evaluate_until` are known.
        """
        return [
            self._record(a, t) for a in self._fired if a.fired_at is not None and a.fired_at <= t
        ]

    history = alerts_fired_until

    def fired_records(self, ids: set[str], t: float) -> list[dict[str, Any]]:
        """The records of the alerts ``ids`` that fired at or before ``t`` (state as of ``t``),
        without building the records of every other alert."""
        return [
            self._record(a, t)
            for a in self._fired
            if a.id in ids and a.fired_at is not None and a.fired_at <= t
        ]

    def firing_at(self, t: float) -> list[dict[str, Any]]:
        """Alerts firing at time ``t`` (fired at or before ``t`` and not resolved by then)."""
        return [r for r in self.alerts_fired_until(t) if r["state"] == "firing"]

    def active_alerts(self) -> list[dict[str, Any]]:
        """Pending and firing alerts after the last evaluation (rule order, sorted labels)."""
        out = []
        for act in self._active:
            for key in sorted(act):
                a = act[key]
                out.append(
                    {
                        "id": a.id,
                        "name": self.rules[a.rule].name,
                        "labels": dict(a.labels),
                        "state": a.state,
                        "active_at": a.active_at,
                        "fired_at": a.fired_at,
                        "value": a.value,
                    }
                )
        return out

    def firing_snapshot(self, e: float) -> list[dict[str, Any]]:
        """Firing alerts right after the evaluation at ``e``, with annotations rendered from the
        value at ``e`` (what Prometheus/promtool show). Needs ``keep_snapshots=True``."""
        if not self.keep_snapshots:
            raise RuntimeError("AlertEngine(keep_snapshots=True) is required for snapshots")
        out = []
        for s in self._snapshots.get(float(e), []):
            rule = self.rules[s["rule"]]
            out.append({**s, "annotations": rule.render_annotations(s["series"], s["value"])})
        return out
