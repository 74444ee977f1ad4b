"""The backend-neutral fault driver (sre_gym/orchestrator/faults.py), with a toy mechanism."""

from __future__ import annotations

import numpy as np

from sre_gym.catalogs import load_catalog
from sre_gym.orchestrator.faults import (
    POLICY_NAMES,
    PROBE_TAIL_S,
    FaultDriver,
    Injection,
    aliases,
    key_aliases,
    policy_aliases,
    policy_name,
)
from sre_gym.orchestrator.schedule import Schedule, ScheduledFault

APP = "online-boutique"


class Toggle:
    """A world of one flag per fault: inject sets it, revert clears it."""

    def __init__(self, always: bool = False) -> None:
        self.always = always
        self.reverted: list[int] = []

    def inject(self, drv, inj: Injection, t: float) -> None:
        drv.world[inj.index] = True
        inj.artifacts = aliases(f"Flag/{inj.index}", f"flag/{inj.index}")
        inj.detail["at"] = t

    def present(self, drv, inj: Injection) -> bool:
        return drv.world.get(inj.index, False)

    def revert(self, drv, inj: Injection, t: float) -> None:
        drv.world[inj.index] = False
        self.reverted.append(inj.index)

    def always_revert(self, drv, inj: Injection) -> bool:
        return self.always


class Driver(FaultDriver):
    def __init__(self, sched: Schedule, mech: Toggle) -> None:
        super().__init__(sched, 1000.0, 100)
        self.mech = mech
        self.world: dict[int, bool] = {}

    def mechanism_of(self, f):
        return self.mech


def _sched() -> Schedule:
    from sre_gym.catalogs import load_catalog

    ids = [f.id for f in load_catalog(APP).faults[:2]]
    faults = (ScheduledFault(0, ids[0], 60, 420), ScheduledFault(1, ids[1], 120, 480))
    return Schedule("r", APP, 0, faults, (), 1800, 1200, "test")


def test_inject_records_the_evidence_of_the_mechanisms_injection():
    drv = Driver(_sched(), Toggle())
    inj = drv.inject(0, 1060.0)
    assert drv.world == {0: True}
    assert inj.start == 1060.0 and inj.end == 1000.0 + 420
    assert inj.culprits == list(inj.fault.culprits)
    (rec,) = drv.records
    assert rec["type"] == "injection" and rec["t"] == 1060.0
    assert rec["artifacts"] == ["flag/0"] and rec["fault_id"] == inj.fault.id
    assert "at" not in rec  # the mechanism's detail stays hidden


def test_revert_undoes_only_an_artifact_still_in_place_once():
    mech = Toggle()
    drv = Driver(_sched(), mech)
    drv.inject(0, 1060.0)
    drv.inject(1, 1120.0)
    drv.world[1] = False  # the agent repaired fault 1
    drv.revert(0, 1420.0)
    drv.revert(1, 1480.0)
    drv.revert(1, 1490.0)  # a second revert does nothing
    assert mech.reverted == [0]
    assert [(r["index"], r["acted"]) for r in drv.records if r["type"] == "revert"] == [
        (0, True),
        (1, False),
    ]


def test_always_revert_reverts_an_artifact_already_gone():
    mech = Toggle(always=True)
    drv = Driver(_sched(), mech)
    drv.inject(0, 1060.0)
    drv.world[0] = False
    drv.revert(0, 1420.0)
    assert mech.reverted == [0]
    assert drv.records[-1]["acted"] is False


def test_a_fault_never_injected_is_not_reverted():
    mech = Toggle()
    drv = Driver(_sched(), mech)
    drv.revert(0, 1420.0)
    assert mech.reverted == [] and drv.records == []


def test_record_tick_reads_probes_through_the_tail_and_artifacts_in_the_window():
    drv = Driver(_sched(), Toggle())
    inj = drv.inject(0, 1060.0)
    assert drv.active(1060.0) == [inj]
    drv.record_tick(5, 1075.0, drv.active(1075.0), lambda i: 0)
    assert drv.probe[0, 5] == 0 and drv.artifact[0, 5] == 1
    after = inj.end + 15
    drv.record_tick(40, after, drv.active(after), lambda i: 1)
    assert drv.probe[0, 40] == 1 and drv.artifact[0, 40] == -1  # past the end: not read
    drv.record_tick(41, after, drv.active(after), lambda i: 1, artifacts_past_end=True)
    assert drv.artifact[0, 41] == 1
    assert drv.active(inj.end + PROBE_TAIL_S + 1) == []
    assert np.all(drv.probe[1] == -1)  # fault 1 was never injected


def test_aliases_normalise_and_keep_first_occurrences():
    assert aliases(" A ", "a", "", "B") == ["a", "b"]
    assert key_aliases("cart", "env.REDIS_ADDR")[-2:] == ["REDIS_ADDR", "cart/REDIS_ADDR"]
    assert policy_aliases("Deny")[0] == "deny" and "netpol/deny" in policy_aliases("deny")


def test_policy_names_are_the_catalogs_or_a_stable_pick():
    f = next(
        f for f in load_catalog("online-boutique").faults if f.mechanism == "network_partition"
    )
    auto = f.model_copy(update={"params": {**f.params, "policy": "auto"}})
    picks = {policy_name(auto, seed) for seed in range(40)}
    assert picks <= {p.format(src=f.target) for p in POLICY_NAMES} and len(picks) > 1
    assert policy_name(auto, 7) == policy_name(auto, 7)
    named = f.model_copy(update={"params": {**f.params, "policy": "team-egress"}})
    assert policy_name(named, 7) == "team-egress"
