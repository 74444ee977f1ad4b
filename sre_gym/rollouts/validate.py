"""Fault validation (the paper's Appendix C; Incident-Arena's oracle and no-op qualification).

Each fault is injected alone into a healthy run, twice:
- with nobody acting: its symptom probe must fail inside the window (observable) and still be failing
  when the orchestrator reverts it (doing nothing does not fix it);
- with the oracle: it must be correlated, localized and repaired, the repair holding through the hold
  period and the persistence challenge (repairable in time).
A fault that fails validation is listed in ``quarantine.yaml`` with the reason and stays out of
schedules until fixed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

# validation window: a 6-minute fault (the marathon's mean) a minute into the episode
WINDOW_S = 360
START_S = 60


@dataclass
class Verdict:
    fault_id: str
    observable: bool
    first_failure_s: float | None
    fails_until_revert: bool
    handled: bool
    stage: str  # handled / repaired_not_handled / ... (the oracle's outcome)
    reason: str

    @property
    def ok(self) -> bool:
        return self.observable and self.fails_until_revert and self.handled

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def _run(app: str, fault_id: str, agent: str, seed: int):
    from sre_gym.agents import make_agent
    from sre_gym.envs.marathon import INVOCATION_S, SREMarathonEnv

    env = SREMarathonEnv(app=app)
    ag = make_agent(agent, env=env, seed=seed)
    spec = [{"fault": fault_id, "start": START_S, "end": START_S + WINDOW_S}]
    obs, info = env.reset(seed=seed, options={"faults": spec})
    # run until the window (plus grace for late alerts) is over; the rest of the episode is quiet
    stop = START_S + WINDOW_S + env.scoring.attribution_grace_s + INVOCATION_S
    while env.invocation * INVOCATION_S < stop:
        obs, _, _, _, info = env.step(ag(obs, info))
    return env


def validate_fault(app: str, fault_id: str, seed: int = 0) -> Verdict:
    from sre_gym.scoring.scorer import score

    noop = _run(app, fault_id, "noop", seed)
    ev = noop.evidence
    (inj,) = ev.of("injection")
    t0, tick_s = ev.manifest["t0"], ev.manifest["tick_s"]
    k0 = int(math.ceil((inj["start"] - t0) / tick_s))
    k1 = int(math.ceil((inj["end"] - t0) / tick_s)) - 1
    row = ev.arrays["probe"][0, k0 : k1 + 1]
    fails = np.nonzero(row == 0)[0]
    observable = len(fails) > 0
    first = float(fails[0] * tick_s) if observable else None
    until_revert = bool(observable and row[-1] == 0)
    # each run's telemetry goes at once: a whole-catalog sweep would otherwise pile hundreds of
    # episodes' stores up until a garbage collection finds the envs' cycles
    noop.close()
    oracle = _run(app, fault_id, "oracle", seed)
    card = score(oracle.evidence, cutoff=oracle.backend.now)
    oracle.close()
    outcome = next((k for k, v in card["outcomes"].items() if v), "missed")
    handled = outcome == "handled"
    if not observable:
        reason = "probe never fails inside the window"
    elif not until_revert:
        reason = "recovers without action before the revert"
    elif not handled:
        alerts = oracle.evidence.of("alert")
        reason = f"oracle outcome {outcome}" + ("" if alerts else " (no alert fired)")
    else:
        reason = ""
    return Verdict(fault_id, observable, first, until_revert, handled, outcome, reason)


def validate(app: str, fault_ids: list[str] | None = None, seed: int = 0) -> list[Verdict]:
    from sre_gym.catalogs import load_catalog

    ids = fault_ids or [f.id for f in load_catalog(app, include_quarantined=True).faults]
    return [validate_fault(app, fid, seed) for fid in ids]


def sample(ids: list[str], n: int, seed: int = 0) -> list[str]:
    """A deterministic sample of fault ids (spread over the catalog order)."""
    if n >= len(ids):
        return list(ids)
    from sre_gym.rng import Streams

    g = Streams("validate", "sample", seed).gen("pick")
    pick = sorted(g.choice(len(ids), size=n, replace=False).tolist())
    return [ids[i] for i in pick]
