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

    @property
    def version(self) -> str:
        # numbers hash by value (90 and 90.0 are the same configuration)
        fields = {k: float(v) for k, v in asdict(self).items()}
        if not self.localize_before_revert:  # hashes as configurations did before the field
            del fields["localize_before_revert"]
        blob = json.dumps(fields, sort_keys=True).encode()
        return "v1-" + hashlib.sha256(blob).hexdigest()[:12]

    def to_dict(self) -> dict:
        return {**asdict(self), "version": self.version}

    @classmethod
    def from_dict(cls, d: dict) -> ScoringConfig:
        fields = {k: v for k, v in d.items() if k != "version"}
        fields.setdefault("localize_before_revert", False)  # manifests written before the field
        cfg = cls(**fields)
        if "version" in d and d["version"] != cfg.version:
            raise ValueError(
                f"scoring config version {d['version']} does not match its fields ({cfg.version})"
            )
        return cfg
