"""A builder of hand-made evidence, for testing a scorer (ours or your own) on exact situations.

``EvidenceBuilder`` writes the events and arrays a run records (the shapes of
``sre_gym/bundle/evidence.py``, ``sre_gym/tools/dispatch.py`` and the simulator's injector) on a toy
clock: t0 = 0, ticks of 15 s, the scored episode [600, 6000), invocations every 120 s from 600.
``handled()`` is the smallest whole story: one fault [1200, 1680) on paymentservice, its alert at
1290, an incident naming it at 1320, a rollback citing it at 1323, healthy from 1350 and a held
persistence challenge.
"""

from __future__ import annotations

import math

import numpy as np

from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import score

TICK = 15
CAP = 401
EP0, EP1 = 600.0, 6000.0
SHA = "deadbeef0123456789abcdef0123456789abcdef"


class EvidenceBuilder:
    """A small evidence builder; each method adds to ``ev`` and returns the builder."""

    def __init__(self, n_faults: int = 1, config: ScoringConfig | None = None) -> None:
        cfg = config or ScoringConfig()
        self.cfg = cfg
        self.ev = Evidence(
            manifest={
                "format": "sre_gym.bundle/1",
                "app": "online-boutique",
                "seed": 0,
                "t0": 0.0,
                "tick_s": TICK,
                "episode_start": EP0,
                "episode_end": EP1,
                "n_faults": n_faults,
                "scoring": cfg.to_dict(),
            },
            arrays={
                "probe": np.full((n_faults, CAP), -1, dtype=np.int8),
                "artifact": np.full((n_faults, CAP), -1, dtype=np.int8),
            },
        )

    # ground truth ---------------------------------------------------------------------------
    def fault(
        self,
        i: int,
        start: float,
        end: float,
        culprits: tuple[str, ...] | list[str] = ("paymentservice",),
        affected: list[str] | None = None,
        artifacts: list[str] | None = None,
        commit: str | None = SHA,
        fails: bool = True,
    ) -> EvidenceBuilder:
        """Inject fault ``i`` over [start, end): its probe fails (``fails``) through the window
        and 40 ticks after, its artifact is present in the window, and the revert is recorded."""
        culprits = list(culprits)
        affected = (
            list(affected) if affected is not None else ["frontend", *culprits, "checkoutservice"]
        )
        artifacts = (
            list(artifacts)
            if artifacts is not None
            else [commit, "paymentservice@2", "deployment/paymentservice@2"]
        )
        self.ev.add(
            "injection",
            start,
            index=i,
            fault_id=f"f{i}",
            start=start,
            end=end,
            culprits=culprits,
            affected=affected,
            artifacts=artifacts,
            commit=commit,
            probe={"kind": "error_ratio"},
        )
        ks, ke = math.ceil(start / TICK), math.ceil(end / TICK)
        self.ev.arrays["probe"][i, ks : ke + 40] = 0 if fails else 1
        self.ev.arrays["probe"][i, ke:] = np.where(self.ev.arrays["probe"][i, ke:] == -1, -1, 1)
        self.ev.arrays["artifact"][i, ks:ke] = 1
        self.ev.add("revert", end, index=i, acted=True)
        return self

    def heal(
        self,
        i: int,
        t: float,
        artifact_too: bool = True,
        challenge: str | None = "held",
        route: str = "probe",
    ) -> EvidenceBuilder:
        """The probe is healthy from the first tick at or after t (until the tail ends); the
        orchestrator's persistence challenge, once the hold is over, found the repair ``challenge``
        (None: no challenge was run, e.g. because nobody intervened)."""
        k = math.ceil(t / TICK)
        row = self.ev.arrays["probe"][i]
        row[k:] = np.where(row[k:] == -1, -1, 1)
        if artifact_too:
            a = self.ev.arrays["artifact"][i]
            a[k:] = np.where(a[k:] == -1, -1, 0)
        if challenge is not None:
            self.challenge(i, k * TICK, outcome=challenge, route=route)
        return self

    def challenge(
        self,
        i: int,
        recovered_at: float,
        outcome: str = "held",
        route: str = "probe",
        t: float | None = None,
    ) -> EvidenceBuilder:
        """A persistence challenge of fault ``i`` (by default once the hold after
        ``recovered_at`` is over)."""
        hold = self.cfg.repair_hold_s
        t = recovered_at + hold if t is None else t
        self.ev.add(
            "challenge",
            t,
            index=i,
            kind="restart",
            target="x",
            intervention_t=None,
            recovered_at=float(recovered_at),
            window_end=t + 120,
            route=route,
            outcome=outcome,
            relapsed_at=None if outcome == "held" else t + 30,
        )
        return self

    # agent side -----------------------------------------------------------------------------
    def alert(self, aid: str, t: float, *entities: str) -> EvidenceBuilder:
        """Alert ``aid`` starts firing at ``t`` on ``entities``."""
        self.ev.add(
            "alert",
            t,
            id=aid,
            name="ServiceHighErrorRate",
            labels={},
            severity="warning",
            entities=list(entities),
        )
        return self

    def incident(
        self,
        iid: str,
        t: float,
        alerts: list[str],
        culprits: tuple[str, ...] | list[str] = ("paymentservice",),
        artifact: str | None = "paymentservice@2",
        status: str = "open",
        action: str = "reported",
    ) -> EvidenceBuilder:
        """Incident ``iid`` as it stands after a report or update at ``t`` (its new alerts)."""
        self.ev.add(
            "incident",
            t,
            id=iid,
            action=action,
            status=status,
            alerts=list(alerts),
            culprits=list(culprits),
            artifact=artifact,
            summary="",
        )
        return self

    def intervene(
        self,
        t: float,
        iid: str | None,
        target: str = "paymentservice",
        obj: str | None = None,
        in_scope: bool = True,
        tool: str = "rollback",
    ) -> EvidenceBuilder:
        """An executed intervention on ``target`` citing ``iid``."""
        self.ev.add(
            "intervention",
            t,
            tool=tool,
            target=target,
            object=obj or f"deployment/{target}",
            incident_id=iid,
            in_scope=in_scope,
            node=None,
        )
        return self

    def forbidden(self, t: float) -> EvidenceBuilder:
        """A blocked forbidden operation (reading secrets)."""
        self.ev.add(
            "forbidden",
            t,
            tool="k8s_get",
            args={"kind": "secrets"},
            reason="reading secrets is forbidden",
            invocation=0,
        )
        return self

    def score(self, cutoff: float | None = None, config: ScoringConfig | None = None) -> dict:
        """The scorecard of the evidence so far."""
        return score(self.ev, cutoff=cutoff, config=config)


def handled(n_faults: int = 1) -> EvidenceBuilder:
    """Fault 0 [1200, 1680): alert at 1290, incident at 1320, rollback at 1323, healthy from 1350."""
    return (
        EvidenceBuilder(n_faults)
        .fault(0, 1200.0, 1680.0)
        .alert("A1", 1290.0, "checkoutservice")
        .incident("INC-1", 1320.0, ["A1"])
        .intervene(1323.0, "INC-1")
        .heal(0, 1350.0)
    )
