"""Arena baselines and qualification policies."""

from __future__ import annotations

from sre_gym.agents.arena import (
    DECLARE,
    RandomArena,
    half_fixes,
    harmless_drift,
    make_agent,
    policies,
    wrong_report,
)
from sre_gym.catalogs.arena import load_task


def test_half_fixes_are_every_proper_subset_of_the_legs():
    hf = half_fixes(load_task("arena-011"))
    assert set(hf) == {f"half_fix_{s}" for s in ("A", "B", "C", "A+B", "A+C", "B+C")}
    assert all(c[-1] == DECLARE for c in hf.values())
    assert half_fixes(load_task("arena-008")) == {}


def test_must_pass_variants_keep_the_oracle_fix():
    task = load_task("arena-013")
    oracle = policies(task)["oracle"][0]
    assert harmless_drift(task)[1:] == oracle
    assert [c for c in wrong_report(task) if c["tool"] != "submit_incident_report"] == oracle
    assert policies(task)["harmless_drift"][1] == "pass"


def test_the_matrix_has_the_runtime_only_fix_the_over_repair_and_the_reported_rows():
    from sre_gym.agents.arena import fix_calls, over_repair, runtime_only

    task = load_task("arena-001")
    rt = runtime_only(task)
    assert rt is not None and all(c["args"].get("op") != "config_rewrite" for c in rt)
    task8 = load_task("arena-008")
    assert runtime_only(task8)[0]["args"]["body"]["persist"] is False
    assert runtime_only(load_task("arena-009")) is None  # switches live in the config broker
    ov = over_repair(load_task("arena-016"))
    assert ov[: len(fix_calls(load_task("arena-016")))] == fix_calls(load_task("arena-016"))
    pol = policies(task)
    assert pol["fix_and_declare_at_once"][1] == "info" and pol["fix_and_wait_600s"][1] == "pass"
    assert pol["runtime_only_fix"][1] == "fail" and pol["over_repair_after_fix"][1] == "fail"


def test_random_agent_is_seeded():
    a = [RandomArena("arena-009", 3).act() for _ in range(1)]
    r1, r2 = RandomArena("arena-009", 3), RandomArena("arena-009", 3)
    assert [r1.act() for _ in range(30)] == [r2.act() for _ in range(30)] and a


def test_the_plausible_agent_plays_one_seeded_attempt():
    a, b = make_agent("plausible", "arena-000", 2), make_agent("plausible", "arena-000", 2)
    assert a.calls == b.calls and a.calls != make_agent("plausible", "arena-000", 3).calls


def test_make_agent():
    assert make_agent("noop", "arena-008", 0).act() == DECLARE
    assert make_agent("never", "arena-008", 0).act()["tool"] == "wait"
