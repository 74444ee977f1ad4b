"""``net_score``: the staged score that pays for skill (docs/scoring.md, "net_score").

It keeps the paper's stages (correlation, then localization, then repair, each with its evidence
rule) and changes two things:

- **Correlation measures grouping.** A matched incident earns its fault's correlation weight times
  the agreement (F1) between the incident's alerts and the fault's attributable alerts: precision
  (how many of the incident's alerts are the fault's) and coverage (how many of the fault's alerts
  the incident holds). An alert attributable to several faults counts for each. The fault's
  alerts are those the agent could have seen: started an invocation before the cut, or held by an
  incident.
- **What harms costs.** In *fault units* (one unit is a whole fault's credit, 100 / n_faults
  points): every incident matched to no fault (a false alarm), every intervention acting on no
  active fault (an unneeded change), every intervention acting on an active fault that its cited
  incident does not justify (out of scope). In points: user-facing degradation beyond the no-action
  run (per percentage point of the run's requests), and the paper's forbidden-attempt penalty.

Faults and incidents are matched one to one for the largest total net credit (its own matching:
the paper's stays as it is). net_score = 100 * (sum of net credits - costs in units) / n_faults -
points costs, at least ``net_floor``. No incidents and no interventions: exactly 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from sre_gym.scoring.matching import max_weight_matching
from sre_gym.scoring.rules import acts_on

if TYPE_CHECKING:
    from sre_gym.scoring.scorer import _Stages


def grouping(held: set[str], fault_alerts: set[str]) -> float:
    """Agreement (F1) between an incident's alerts and a fault's: 2|I & A| / (|I| + |A|)."""
    k = len(held & fault_alerts)
    return 2.0 * k / (len(held) + len(fault_alerts)) if k else 0.0


@dataclass
class Net:
    """net_score as of a cut, and what made it."""

    score: float
    gain_units: float  # sum over matched faults of their net credit
    credit: np.ndarray  # [faults, incidents] net credit of each pair
    quality: np.ndarray  # [faults, incidents] grouping agreement of each pair
    pairs: list[tuple[int, int]]
    false_alarms: int
    unwarranted: int
    out_of_scope: int
    degradation_cost: float | None  # points; None without a no-action run to compare with
    forbidden_cost: float

    def costs(self, unit: float, cfg) -> dict[str, float | None]:
        """Each cost in points."""
        return {
            "false_alarms": unit * cfg.w_false_alarm * self.false_alarms,
            "unwarranted_interventions": unit * cfg.w_unwarranted * self.unwarranted,
            "out_of_scope_interventions": unit * cfg.w_out_of_scope * self.out_of_scope,
            "degradation": self.degradation_cost,
            "forbidden": self.forbidden_cost,
        }


def net(st: _Stages, degradation: dict | None) -> Net:
    """net_score of the stages ``st`` (the paper's matching inputs as of a cut) and the
    degradation summary of the same cut (``scorer._degradation``)."""
    cfg, faults, reported = st.cfg, st.faults, st.reported
    nf, ni = len(faults), len(reported)
    seen = [set(d) for d in st.seen]  # (started an invocation before the cut, or held)
    quality = np.zeros((nf, ni))
    for a in range(nf):
        for b in np.flatnonzero(st.C[a]):
            quality[a, b] = grouping(set(reported[b].alerts), seen[a])
    wc, wl, wr = cfg.w_correlation, cfg.w_localization, cfg.w_repair
    credit = st.C * (wc * quality + wl * st.L + wr * (st.L & st.R))
    pairs = max_weight_matching(np.round(credit * 1e6))
    gain = float(sum(credit[a, b] for a, b in pairs))
    false_alarms = ni - len({b for _, b in pairs})
    unwarranted, out_of_scope = _judge(st)
    deg = _degradation_cost(degradation, cfg.w_degradation, bool(st.interventions))
    forbidden = cfg.forbidden_penalty * len(st.forbidden)
    unit = 100.0 / st.n_sched if st.n_sched else 100.0
    units = (
        gain
        - cfg.w_false_alarm * false_alarms
        - cfg.w_unwarranted * unwarranted
        - cfg.w_out_of_scope * out_of_scope
    )
    value = max(cfg.net_floor, unit * units - (deg or 0.0) - forbidden)
    return Net(
        score=float(value),
        gain_units=gain,
        credit=credit,
        quality=quality,
        pairs=pairs,
        false_alarms=false_alarms,
        unwarranted=unwarranted,
        out_of_scope=out_of_scope,
        degradation_cost=deg,
        forbidden_cost=forbidden,
    )


def _judge(st: _Stages) -> tuple[int, int]:
    """(unneeded, out of scope) interventions. An intervention is *needed* when it acts on a fault
    active at its time (its window plus the attribution grace: the agent sees alerts that late);
    a needed one is *in scope* when the incident it cites, as it stood then, holds an alert
    attributable to one of those faults."""
    grace = st.cfg.attribution_grace_s
    held_by: dict[str, list[tuple[float, list[str]]]] = {}
    for e in st.of.get("incident", []):
        held_by.setdefault(e["id"], []).append((e["t"], e["alerts"]))
    unneeded = out = 0
    for x in st.interventions:
        t = x["t"]
        active = [
            a
            for a, f in enumerate(st.faults)
            if f["start"] <= t <= f["end"] + grace
            and acts_on(x.get("target"), x.get("object", ""), st.scopes[a], f["artifacts"])
        ]
        if not active:
            unneeded += 1
            continue
        held: set[str] = set()
        for when, ids in held_by.get(x.get("incident_id") or "", ()):
            if when <= t:
                held.update(ids)
        if all(held.isdisjoint(st.attr[a]) for a in active):
            out += 1
    return unneeded, out


def _degradation_cost(deg: dict | None, weight: float, acted: bool) -> float | None:
    """Points for the requests degraded beyond the no-action run: ``weight`` per percentage point
    of the run's requests. A run without interventions is its own no-action run (0); without a
    no-action run to compare with, None (and nothing is charged)."""
    if not acted:
        return 0.0
    if deg is None or deg.get("noaction_degraded_requests") is None or not deg["requests"]:
        return None
    excess = max(0.0, deg["degraded_requests"] - deg["noaction_degraded_requests"])
    return weight * 100.0 * excess / deg["requests"]
