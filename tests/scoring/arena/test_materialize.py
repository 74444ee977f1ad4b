"""Materializers: the repair-scope diff and its sub-kinds, leg predicates, quantiles."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs.arena import load_task
from sre_gym.catalogs.arena.schema import Predicate
from sre_gym.scoring.arena.materialize import config_survivor, predicate, repair_scope, wquantile


def _snap(cfg, events=None, persisted=None):
    return {"config": cfg, "events": events or {}, "persisted": persisted or cfg}


def test_repair_scope_sub_kinds():
    task = load_task("arena-016")
    before = {
        "db-maintenance.offset_s": 35,
        "svc-message.db_pool_size": 3,
        "svc-message.db_max_overflow": 2,
        "svc-channel.acl_cache_ttl_s": 30,
        "db-maintenance.enabled": True,
        "svc-channel.db_pool_size": 20,
        "svc-auth.session_cache_ttl_s": 300,
        "postgres.work_mem": "4MB",
        "x.log_level": "info",
    }
    after = dict(
        before,
        **{
            "db-maintenance.offset_s": 45,
            "svc-message.db_pool_size": 30,
            "svc-message.db_max_overflow": 9,
            "svc-auth.session_cache_ttl_s": 1,
            "postgres.work_mem": "64MB",
            "x.log_level": "debug",
        },
    )
    drifted = dict(after, **{"svc-channel.db_pool_size": 19})
    rs = repair_scope(
        task,
        {"x.log_level"},
        _snap(before),
        _snap(after),
        _snap(drifted),
        [{"tags": ["disable:db-maintenance", "restart:svc-auth"]}],
    )
    assert rs["past_bound"] == ["db-maintenance.offset_s", "svc-message.db_max_overflow"]
    assert rs["ceiling"] == ["svc-message.db_pool_size"]
    assert rs["protected_setting"] == ["postgres.work_mem"]
    assert rs["other_subsystem"] == ["svc-auth.session_cache_ttl_s"]
    assert rs["forbidden_op"] == ["disable:db-maintenance"]
    assert "x.log_level" not in rs["changed_keys"] and rs["within_scope"] is False
    assert rs["post_declaration_drift"] == ["svc-channel.db_pool_size"]


def test_stored_only_changes_and_switches_are_changes_too():
    task = load_task("arena-011")
    cfg = {"postgres.work_mem": "4MB", "svc-channel.db_pool_size": 3}
    stored = dict(cfg, **{"postgres.work_mem": "64MB"})  # ALTER SYSTEM without a reload
    ivs = [
        {"events": {"svc-channel.read_consistency_strict": [True, False]}, "tags": []},
        {"events": {"svc-workspace.store_consistency_strict": [False, True]}, "tags": []},
    ]
    rs = repair_scope(
        task, set(), _snap(cfg), _snap(cfg, persisted=stored), _snap(cfg), ivs, [{"tool": "shell"}]
    )
    assert rs["protected_setting"] == ["postgres.work_mem"]
    # the leg's own switch turned off is the repair; a strict mode turned on elsewhere is not
    assert rs["changed_switches"] == ["svc-workspace.store_consistency_strict"]
    assert rs["other_subsystem"] == ["event:svc-workspace.store_consistency_strict"]
    assert rs["refused_calls"] == ["shell"] and rs["refused_call_count"] == 1


def test_predicates():
    assert predicate(Predicate(min=2000, also=[0]), True, 0)  # no timeout at all is safe
    assert not predicate(Predicate(min=2000, also=[0]), True, 150)
    assert predicate(Predicate(min=20, max=20), True, 20)
    assert not predicate(Predicate(min=20), True, "20")
    assert predicate(Predicate(absent_ok=True, min=2000), False, None)
    assert not predicate(Predicate(one_of=[0, 55]), True, 35)


def test_leg_survival():
    task = load_task("arena-013")
    bad = {"svc-channel.db_pool_size": 3, "svc-channel.db_max_overflow": 2}
    good = {"svc-channel.db_pool_size": 20, "svc-channel.db_max_overflow": 10}
    on = {"svc-channel.read_consistency_strict": True}
    cs = config_survivor(task, _snap(good), _snap(good, on), _snap(good, on))
    assert (
        cs["all_repaired"] and cs["all_hold"]
    )  # a re-triggered event after the declaration is legit
    cs = config_survivor(task, _snap(bad, on), _snap(bad), _snap(bad))
    assert cs["legs"]["A"]["planted_left"] and cs["legs"]["B"]["planted_left"]


def test_weighted_quantile():
    v, w = np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 98.0])
    assert wquantile(v, w, 0.01) == 1.0 and wquantile(v, w, 0.99) == 3.0
    assert wquantile(v, np.zeros(3), 0.5) == 0.0
