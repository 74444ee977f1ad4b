"""The versioned scoring configuration (stored in every bundle manifest)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ScoringConfig:
    """Weights and windows of the staged score. Changing any field changes ``version``."""

    w_correlation: float = 1 / 3
    w_localization: float = 1 / 3
    w_repair: float = 1 / 3
    attribution_grace_s: int = 180  # an alert may start firing this long after the fault's revert
    repair_hold_s: int = 60  # the probe must stay healthy this long, before the revert
    persistence_s: int = 120  # after a restart (and trigger re-fire) the repair must hold this long
    forbidden_penalty: float = 1.0  # Marathon-Score points per blocked forbidden operation
    invocation_s: int = 120  # resolution of MTTD / MTTL / MTTR
    # the final culprit and artifact must be set before the fault's revert: the orchestrator's revert
    # shows in list_changes and names the bad change, so a claim made after it proves nothing
    localize_before_revert: bool = True
    # net_score (docs/scoring.md gives the reason for each value). Costs in fault units (a whole
    # fault's credit, 100 / n_faults points) per incident matched to no fault, per intervention
    # acting on no active fault, per intervention its cited incident does not justify:
    w_false_alarm: float = 0.25
    w_unwarranted: float = 0.15
    w_out_of_scope: float = 0.05
    w_degradation: float = 1.0  # points per percentage point of requests degraded beyond no-action
    net_floor: float = -100.0  # net_score is at least this (a bounded reward)

    def _fields(self) -> dict[str, float]:
        # numbers hash by value (90 and 90.0 are the same configuration)
        fields = {k: float(v) for k, v in asdict(self).items()}
        if not self.localize_before_revert:  # hashes as configurations did before the field
            del fields["localize_before_revert"]
        return fields

    @property
    def version(self) -> str:
        """Every field, the net score's included."""
        return "v2-" + _digest(self._fields())

    @property
    def paper_version(self) -> str:
        """The Marathon-Score's fields only: the version manifests recorded before net_score."""
        return "v1-" + _digest({k: v for k, v in self._fields().items() if k not in NET_FIELDS})

    def to_dict(self) -> dict:
        return {**asdict(self), "version": self.version}

    @classmethod
    def from_dict(cls, d: dict) -> ScoringConfig:
        fields = {k: v for k, v in d.items() if k != "version"}
        fields.setdefault("localize_before_revert", False)  # manifests written before the field
        cfg = cls(**fields)
        # a manifest from before net_score names the paper's fields only; the net score's weights
        # are then the defaults, and the card's version says so
        legacy = not any(k in d for k in NET_FIELDS)
        want = cfg.paper_version if legacy else cfg.version
        if "version" in d and d["version"] != want:
            raise ValueError(
                f"scoring config version {d['version']} does not match its fields ({want})"
            )
        return cfg


NET_FIELDS = frozenset(
    {"w_false_alarm", "w_unwarranted", "w_out_of_scope", "w_degradation", "net_floor"}
)


def _digest(fields: dict[str, float]) -> str:
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
