"""Tests for rule loading, Prometheus-style templates and the alert ``for:`` state machine."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sre_gym.telemetry.promql import Engine
from sre_gym.telemetry.promql.templates import (
    TemplateError,
    compile_template,
    go_printf,
    go_v,
    humanize,
    humanize1024,
    humanize_duration,
    humanize_percentage,
)
from sre_gym.telemetry.rules import AlertEngine, RuleError, load_rules, parse_duration
from sre_gym.telemetry.tsdb import TSDB


def make_db(series: dict[str, list[float | None]], n_ticks: int | None = None) -> TSDB:
    """``x{svc=<key>}`` per key with one value per 15 s tick (None = no sample)."""
    n = n_ticks if n_ticks is not None else max(len(v) for v in series.values())
    db = TSDB(tick_s=15, capacity=max(n, 1) + 40)
    fam = db.family("x", ("svc",))
    for svc, vals in series.items():
        r = fam.row((svc,))
        fam.data[r, : len(vals)] = [math.nan if v is None else v for v in vals]
    if n:
        db.commit(n - 1)
    return db


def rules_yaml(*rules: str, group: str = "g") -> str:
    body = "".join(rules)
    return f"groups:\n  - name: {group}\n    rules:\n{body}"


def rule(name: str, expr: str, for_: str = "0s", labels: str = "", annotations: str = "") -> str:
    out = f"      - alert: {name}\n        expr: '{expr}'\n        for: {for_}\n"
    if labels:
        out += f"        labels: {labels}\n"
    if annotations:
        out += f"        annotations: {annotations}\n"
    return out


def engine_for(db: TSDB, *rules: str, **kw) -> AlertEngine:
    return AlertEngine(load_rules(rules_yaml(*rules)), Engine(db), 30, **kw)


def states(trs: list[dict]) -> list[tuple]:
    return [
        (tr["t"], tr["alert"], tr["labels"].get("svc"), tr["from"], tr["to"], tr["id"])
        for tr in trs
    ]


OFF4_ON = [0.0] * 4 + [1.0] * 16  # condition true from t = 60 s


# -- state machine ---------------------------------------------------------------------------------
def test_for_zero_fires_in_the_same_evaluation():
    ae = engine_for(make_db({"a": OFF4_ON}), rule("A", "x > 0"))
    trs = ae.evaluate_until(90)
    assert states(trs) == [
        (60.0, "A", "a", "inactive", "pending", None),
        (60.0, "A", "a", "pending", "firing", "ALR-0001"),
    ]
    (rec,) = ae.alerts_fired_until(90)
    assert rec["active_at"] == rec["fired_at"] == 60.0 and rec["state"] == "firing"
    assert rec["value"] == 1.0 and rec["resolved_at"] is None


@pytest.mark.parametrize(
    ("for_", "fires_at"), [("30s", 90.0), ("45s", 120.0), ("1m", 120.0), ("2m", 180.0)]
)
def test_for_durations(for_, fires_at):
    ae = engine_for(make_db({"a": OFF4_ON}), rule("A", "x > 0", for_))
    trs = ae.evaluate_until(285)
    firing = [tr for tr in trs if tr["to"] == "firing"]
    assert [tr["t"] for tr in firing] == [fires_at]
    assert [tr["t"] for tr in trs if tr["to"] == "pending"] == [60.0]
    assert ae.alerts_fired_until(fires_at - 1) == []


def test_pending_alert_that_disappears_is_dropped():
    vals = [0.0] * 4 + [1.0, 1.0] + [0.0] * 10  # true at 60 and 75 only
    ae = engine_for(make_db({"a": vals}), rule("A", "x > 0", "1m"))
    assert states(ae.evaluate_until(225)) == [
        (60.0, "A", "a", "inactive", "pending", None),
        (90.0, "A", "a", "pending", "inactive", None),
    ]
    assert ae.alerts_fired_until(225) == []


def test_resolution_and_reappearance_make_a_new_alert():
    vals = (
        [0.0] * 4 + [1.0] * 4 + [None] * 2 + [1.0] * 6
    )  # firing 60..105, gone 120..135, back at 150
    ae = engine_for(make_db({"a": vals}), rule("A", "x > 0"))
    trs = ae.evaluate_until(225)
    assert states(trs) == [
        (60.0, "A", "a", "inactive", "pending", None),
        (60.0, "A", "a", "pending", "firing", "ALR-0001"),
        (120.0, "A", "a", "firing", "resolved", "ALR-0001"),
        (150.0, "A", "a", "inactive", "pending", None),
        (150.0, "A", "a", "pending", "firing", "ALR-0002"),
    ]
    hist = ae.alerts_fired_until(225)
    assert [(h["id"], h["state"], h["resolved_at"]) for h in hist] == [
        ("ALR-0001", "resolved", 120.0),
        ("ALR-0002", "firing", None),
    ]
    # State as of an earlier time: the first alert was still firing at 100.
    assert [(h["id"], h["state"]) for h in ae.alerts_fired_until(100)] == [("ALR-0001", "firing")]
    assert [h["id"] for h in ae.firing_at(130)] == []
    assert ae.history is not None and [h["id"] for h in ae.history(225)] == ["ALR-0001", "ALR-0002"]
    # the records of chosen alerts are those of the whole history
    assert ae.fired_records({"ALR-0002"}, 225) == hist[1:]
    assert ae.fired_records({"ALR-0002"}, 100) == []


def test_ids_follow_eval_time_then_rule_order_then_labels():
    db = make_db({"b": OFF4_ON, "a": OFF4_ON, "c": [1.0] * 20})
    ae = engine_for(db, rule("Second", "x > 0"), rule("First", "x > 0.5", "30s"))
    ae.evaluate_until(150)
    order = [
        (h["id"], h["name"], h["labels"]["svc"], h["fired_at"]) for h in ae.alerts_fired_until(150)
    ]
    assert order == [
        ("ALR-0001", "Second", "c", 0.0),
        ("ALR-0002", "First", "c", 30.0),
        ("ALR-0003", "Second", "a", 60.0),
        ("ALR-0004", "Second", "b", 60.0),
        ("ALR-0005", "First", "a", 90.0),
        ("ALR-0006", "First", "b", 90.0),
    ]


def test_alert_labels_and_annotations():
    ae = engine_for(
        make_db({"a": [2.5] * 4}),
        rule(
            "A",
            "x * 1000 > 1",
            labels='{severity: page, team: "{{ $labels.svc }}-oncall", svc: "override", empty: ""}',
            annotations='{summary: "{{ $labels.svc }} at {{ $value | humanize }}", raw: "{{ $value }}"}',
        ),
    )
    ae.evaluate_until(45)
    (rec,) = ae.alerts_fired_until(45)
    assert rec["labels"] == {
        "svc": "override",
        "severity": "page",
        "team": "a-oncall",
        "alertname": "A",
    }
    assert rec["severity"] == "page"
    # Annotations see the series labels (before rule labels are applied) and the value.
    assert rec["annotations"] == {"summary": "a at 2.5k", "raw": "2500"}


def test_name_is_dropped_and_kept_in_template_data():
    ae = engine_for(
        make_db({"a": [1.0] * 4}), rule("A", "x > 0", annotations='{m: "{{ $labels.__name__ }}"}')
    )
    ae.evaluate_until(0)
    (rec,) = ae.alerts_fired_until(0)
    assert "__name__" not in rec["labels"] and rec["annotations"] == {"m": "x"}


def test_duplicate_alert_labels_are_an_evaluation_error():
    db = make_db({"a": [1.0] * 8, "b": [1.0] * 8})
    ae = engine_for(db, rule("A", "x > 0", labels="{svc: same}"))
    assert ae.evaluate_until(60) == []
    assert len(ae.errors) == 3 and "same labelset" in ae.errors[0]["error"]
    strict = engine_for(db, rule("A", "x > 0", labels="{svc: same}"), strict=True)
    with pytest.raises(RuleError, match="same labelset"):
        strict.evaluate_until(60)


def test_query_errors_are_recorded_per_evaluation_time():
    db = make_db({"a": [1.0] * 8, "b": [1.0] * 8})
    # Many-to-many only while both series exist on the right-hand side.
    fam = db.families["x"]
    fam.data[1, 4:] = math.nan
    ae = engine_for(db, rule("A", 'x{svc="a"} + on() x'))
    trs = ae.evaluate_until(105)
    assert [e["t"] for e in ae.errors] == [0.0, 30.0]
    assert [tr["t"] for tr in trs if tr["to"] == "firing"] == [60.0]


def test_rules_sharing_a_query_share_one_evaluation_and_keep_their_own_state():
    db = make_db({"a": OFF4_ON})
    warn, crit = rule("A", "x > 0", "30s"), rule("A", "x > 0", "1m")
    ae = engine_for(db, warn, crit, rule("B", "x > 0.5"))
    calls = []
    real = ae.engine.eval
    ae.engine.eval = lambda plan, times, **kw: calls.append(plan.query) or real(plan, times, **kw)
    trs = ae.evaluate_until(285)
    assert calls == ["x > 0", "x > 0.5"]  # one batch: the twin rule reused the first result
    firing = [(tr["t"], tr["alert"]) for tr in trs if tr["to"] == "firing"]
    assert firing == [(60.0, "B"), (90.0, "A"), (120.0, "A")]
    alone = [engine_for(make_db({"a": OFF4_ON}), r) for r in (warn, crit)]
    assert [tr["t"] for a in alone for tr in a.evaluate_until(285) if tr["to"] == "firing"] == [
        90.0,
        120.0,
    ]


def test_a_shared_query_error_is_recorded_for_every_rule():
    db = make_db({"a": [1.0] * 8, "b": [1.0] * 8})
    db.families["x"].data[1, 4:] = math.nan
    q = 'x{svc="a"} + on() x'
    ae = engine_for(db, rule("A", q), rule("A2", q, "1m"))
    ae.evaluate_until(105)
    assert [(e["t"], e["alert"]) for e in ae.errors] == [
        (0.0, "A"),
        (30.0, "A"),
        (0.0, "A2"),
        (30.0, "A2"),
    ]


def test_scalar_expression_fires_without_labels():
    ae = engine_for(
        make_db({"a": [1.0] * 2}), rule("Always", "1 > bool 0"), rule("Vec", "vector(1)")
    )
    ae.evaluate_until(15)
    assert [(h["name"], h["labels"]) for h in ae.alerts_fired_until(15)] == [
        ("Always", {"alertname": "Always"}),
        ("Vec", {"alertname": "Vec"}),
    ]


def test_only_final_data_is_evaluated_and_batches_match_single_steps():
    vals = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    db = make_db({"a": vals, "b": vals[::-1]})
    db.n_ticks = 5  # only ticks 0..4 (t <= 60) are final
    ae = engine_for(db, rule("A", "x > 0", "30s"))
    first = ae.evaluate_until(1000)
    assert ae.last_eval == 60.0
    db.commit(len(vals) - 1)
    rest = ae.evaluate_until(1000)
    assert ae.last_eval == 150.0
    one_by_one = engine_for(make_db({"a": vals, "b": vals[::-1]}), rule("A", "x > 0", "30s"))
    steps = []
    for t in range(0, 1000, 30):
        steps += one_by_one.evaluate_until(t)
    assert first + rest == steps
    assert ae.alerts_fired_until(1000) == one_by_one.alerts_fired_until(1000)


def test_group_interval_and_active_alerts():
    yaml_text = (
        "groups:\n  - name: slow\n    interval: 1m\n    rules:\n"
        + rule("Slow", "x > 0")
        + "  - name: fast\n    rules:\n"
        + rule("Fast", "x > 0", "1m")
    )
    ae = AlertEngine(load_rules(yaml_text), Engine(make_db({"a": OFF4_ON})), 30)
    trs = ae.evaluate_until(90)
    assert {(tr["alert"], tr["t"]) for tr in trs} == {("Slow", 60.0), ("Fast", 60.0)}
    assert ae.due_times(200) == [120.0, 150.0, 180.0]
    active = ae.active_alerts()
    assert [(a["name"], a["state"]) for a in active] == [("Slow", "firing"), ("Fast", "pending")]


def test_firing_snapshot_uses_the_value_of_each_evaluation():
    vals = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    ae = engine_for(
        make_db({"a": vals}),
        rule("A", "x > 0", annotations='{v: "{{ $value }}"}'),
        keep_snapshots=True,
    )
    ae.evaluate_until(90)
    assert [s["annotations"]["v"] for e in (0, 30, 60, 90) for s in ae.firing_snapshot(e)] == [
        "1",
        "3",
        "5",
        "7",
    ]
    assert ae.alerts_fired_until(90)[0]["annotations"] == {"v": "1"}  # value at firing
    with pytest.raises(RuntimeError):
        engine_for(make_db({"a": vals}), rule("A", "x > 0")).firing_snapshot(0)


def test_evaluation_is_deterministic():
    db_vals = {"a": OFF4_ON, "b": [1.0, 0.0] * 10, "c": [0.5] * 20}
    runs = []
    for _ in range(2):
        ae = engine_for(make_db(db_vals), rule("A", "x > 0.2", "30s"), rule("B", "x == 1"))
        runs.append((ae.evaluate_until(300), ae.alerts_fired_until(300)))
    assert runs[0] == runs[1]


# -- loading ---------------------------------------------------------------------------------------
def test_load_rules_parses_fields():
    (r,) = load_rules(
        rules_yaml(rule("A", "up == 0", "2m", "{severity: page}", '{summary: "down"}'))
    )
    assert (r.name, r.expr, r.for_s, r.labels, r.annotations, r.group) == (
        "A",
        "up == 0",
        120.0,
        {"severity": "page"},
        {"summary": "down"},
        "g",
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up\n",
            "recording rules are not supported",
        ),
        (rules_yaml(rule("A", "up", "5x")), "not a valid duration"),
        (rules_yaml(rule("A", "up", "0s", annotations='{s: "{{ if $value }}x{{ end }}"}')), "'if'"),
        (rules_yaml(rule("A", "up", "0s", annotations='{s: "{{ query \\"up\\" }}"}')), "'query'"),
        (
            rules_yaml(rule("A", "up", "0s", labels='{s: "{{ $externalLabels.x }}"}')),
            "externalLabels",
        ),
        (rules_yaml(rule("A", "sum(", "0s")), "could not parse expression"),
        (rules_yaml(rule("A", "up")) + "  - name: g\n    rules: []\n", "repeated"),
        (rules_yaml(rule("A", "up", "0s", labels='{"bad-name": x}')), "invalid label name"),
        ("groups:\n  - name: g\n    rules:\n      - expr: up\n", "alert name missing"),
        (rules_yaml(rule("A", "up") + "        keep_firing_for: 1m\n"), "unsupported keys"),
        ("nope: 1", "groups"),
    ],
)
def test_load_rules_errors(text, message):
    with pytest.raises(RuleError, match=message):
        load_rules(text)


def test_unsupported_function_in_rule_fails_at_engine_creation():
    rules = load_rules(rules_yaml(rule("A", "holt_winters(x[5m], 0.5, 0.5)")))
    with pytest.raises(RuleError, match='unsupported function "holt_winters"'):
        AlertEngine(rules, Engine(make_db({"a": [1.0]})))


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("0", 0.0),
        ("0s", 0.0),
        ("90s", 90.0),
        ("1h30m", 5400.0),
        ("1d", 86400.0),
        ("500ms", 0.5),
        ("1w", 604800.0),
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["1.5m", "", "m", "1m1h", "10"])
def test_parse_duration_rejects(text):
    with pytest.raises(RuleError):
        parse_duration(text)


# -- templates -------------------------------------------------------------------------------------
def render(text: str, value: float = 0.0, **labels: str) -> str:
    return compile_template(text).render(labels, value)


def test_template_values_and_labels():
    assert (
        render("{{ $labels.a }}/{{ .Labels.a }}/{{ $labels.missing }}", a="x") == "x/x/<no value>"
    )
    assert render("{{ $value }}", 0.1) == "0.1"
    assert render("{{ $value }}", 1e6) == "1e+06"
    assert render("{{ $value }}", 123456.0) == "123456"
    assert render("{{ $value }}", 1e-5) == "1e-05"
    assert render("{{ .Value }}", math.inf) == "+Inf"
    assert render("{{ $value }}", math.nan) == "NaN"
    assert render("a {{/* comment */}}b") == "a b"
    assert render("a  {{- $labels.x }} {{ $labels.x -}}  b", x="1") == "a1 1b"
    assert render('{{ index $labels "a" }}', a="y") == "y"
    assert render("{{ $labels.a | toUpper }}", a="up") == "UP"


def test_template_functions():
    assert humanize(0) == "0" and humanize(1234567) == "1.235M" and humanize(0.000123) == "123u"
    assert humanize(-2500) == "-2.5k" and humanize(math.inf) == "+Inf"
    assert humanize1024(2048) == "2ki" and humanize1024(0.5) == "0.5"
    assert humanize_percentage(0.09090909) == "9.091%"
    assert humanize_duration(90061) == "1d 1h 1m 1s"
    assert humanize_duration(3725) == "1h 2m 5s"
    assert humanize_duration(65) == "1m 5s"
    assert humanize_duration(12.3456) == "12.35s"
    assert humanize_duration(0.5) == "500ms"
    assert humanize_duration(0) == "0s"
    assert go_printf("%.2f|%5.1f|%d|%s|%v|%%", 3.14159, 2.25, 7, "x", 0.5) == "3.14|  2.2|7|x|0.5|%"
    assert go_printf("%d", 1.5) == "%!d(float64=1.5)"
    assert go_printf("%.1f", math.inf) == "+Inf"
    assert go_printf("%g", 123456789.0) == "1.23456789e+08"
    assert go_v(3) == "3" and go_v({"b": "2", "a": "1"}) == "map[a:1 b:2]"
    assert render('{{ printf "%.1f%%" $value }}', 12.34) == "12.3%"
    assert render('{{ $value | printf "%.3f" }}', 2.0) == "2.000"
    assert render("{{ humanizePercentage $value }}", 0.5) == "50%"
    assert render("{{ $value | humanizeDuration }}", 42.0) == "42s"


@pytest.mark.parametrize(
    "text",
    [
        "{{ if 1 }}x{{ end }}",
        "{{ range $labels }}{{ end }}",
        "{{ $x := 1 }}",
        "{{ $value",
        "{{ .Foo }}",
        "{{ nope }}",
    ],
)
def test_template_rejects_unsupported_constructs(text):
    with pytest.raises(TemplateError):
        compile_template(text)


def test_template_rendering_is_cheap_for_static_text():
    t = compile_template("plain text")
    assert t.static and t.render({}, 0.0) == "plain text"
    assert np.isclose(float(render("{{ $value }}", 0.30000000000000004)), 0.3)
