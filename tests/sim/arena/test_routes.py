"""svc-message's sequencer helper and runtime control: running vs stored, hidden from listings."""

from __future__ import annotations

import pytest

from sre_gym.catalogs.arena import load_task
from sre_gym.sim.arena.routes import admin_routes
from sre_gym.sim.arena.world import ArenaWorld


def test_a_put_runs_and_persist_stores():
    w = ArenaWorld(load_task("arena-019"), 0, 400)
    r = admin_routes(w, "svc-message")
    assert r["/admin/runtime"].hidden and not r["/admin/sequencer"].hidden
    assert r["/admin/runtime"].get()["mode"] == "pinned"
    r["/admin/runtime"].put({"mode": "request"}, False)
    assert w.config["svc-message.runtime_mode"] == "request"
    assert w.persisted["svc-message.runtime_mode"] == "pinned"
    w.restart("svc-message")
    assert w.config["svc-message.runtime_mode"] == "pinned"  # the restart reads the stored mode
    res, _ = r["/admin/runtime"].put({"mode": "request"}, True)
    assert res["stored"] == "request" and res["generation"] == 2
    with pytest.raises(ValueError):
        r["/admin/runtime"].put({"mode": "fast"}, True)
    assert admin_routes(w, "svc-auth") == {}
