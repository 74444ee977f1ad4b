"""The staged scorer: Marathon-Score and its companions, computed only from evidence.

Per injected fault f, in order:
- correlated: f is matched (one-to-one, maximum total credit) to a reported incident that contains an
  alert attributable to f: it started firing inside f's window plus the grace period, on an entity in
  f's affected scope;
- localized: the matched incident's final root-cause set equals f's culprits and its artifact matches
  one of f's artifact aliases (a commit may be given by any prefix of 7 or more hex digits), set
  before f's revert;
- repaired: an executed intervention that cites the matched incident and acts on f's scope, after
  which f's symptom probe is healthy and stays healthy for the hold period, all before the revert (and,
  if the probe never failed, the artifact is gone for that period too).
Credit(f) = w_c*C + w_l*C*L + w_r*C*L*R; Marathon-Score = 100 * mean credit over every scheduled fault
minus the penalty per blocked forbidden operation. Scoring evidence cut at time t gives the score as
of t, so per-step rewards (score differences) sum to the final score.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from sre_gym.bundle.evidence import Evidence
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.matching import max_weight_matching
from sre_gym.scoring.net import net
from sre_gym.scoring.rules import (
    INFRA_MECHANISMS,
    Incident,
    acts_on,
    artifact_matches,
    attributable_by_fault,
    incidents,
    names_fault,
    norm,
    scope,
)

__all__ = [
    "INFRA_MECHANISMS",
    "OUTCOMES",
    "artifact_matches",
    "marathon_score",
    "names_fault",
    "norm",
    "score",
    "scores",
]

OUTCOMES = (
    "handled",
    "repaired_not_handled",
    "acted_without_repair",
    "located_without_action",
    "correlated_only",
    "missed",
)
_Incident = Incident  # (the rules module's; kept for callers of the old private names)
_incidents = incidents


def _ceil_to(t: float, origin: float, step: float) -> float:
    return origin + math.ceil((t - origin) / step - 1e-9) * step


@dataclass
class _Stages:
    """The staged matching as of a cut: what the Marathon-Score is, and what its companions read."""

    cfg: ScoringConfig
    n_sched: int
    cut: float
    of: dict[str, list[dict]]  # the events by type, each in event order
    faults: list[dict]
    reported: list[Incident]
    interventions: list[dict]
    forbidden: list[dict]
    repairs: _Repairs
    scopes: list[set[str]]
    attr: list[dict[str, float]]  # per fault, its attributable alerts that incidents hold
    seen: list[dict[str, float]]  # per fault, its attributable alerts the agent could have seen
    C: np.ndarray
    C_t: np.ndarray
    L: np.ndarray
    R: np.ndarray
    R_t: np.ndarray
    credit: np.ndarray
    pairs: list[tuple[int, int]]
    marathon: float


def _before(
    of: dict[str, list[dict]], cut: float, type_: str, inclusive: bool = False
) -> list[dict]:
    """Events of ``type_`` up to the cut: world evidence (``inclusive``) up to and including it,
    the agent's own strictly before it."""
    es = of.get(type_, [])
    return [e for e in es if e["t"] <= cut] if inclusive else [e for e in es if e["t"] < cut]


def _stages(evidence: Evidence, cutoff: float | None, config: ScoringConfig | None) -> _Stages:
    cfg = config or ScoringConfig.from_dict(evidence.manifest["scoring"])
    man = evidence.manifest
    cut = float("inf") if cutoff is None else float(cutoff)
    tick_s = float(man["tick_s"])
    t0 = float(man["t0"])
    probe = evidence.arrays.get("probe")
    artifact = evidence.arrays.get("artifact")
    cut_tick = (
        math.floor((cut - t0) / tick_s)
        if math.isfinite(cut)
        else (probe.shape[1] - 1 if probe is not None else -1)
    )

    # one pass over the events (a reward reads the score every step), each type in event order
    of: dict[str, list[dict]] = {}
    for e in evidence.events:
        of.setdefault(e["type"], []).append(e)
    before = functools.partial(_before, of, cut)
    faults = before("injection", inclusive=True)
    alerts = {e["id"]: e for e in before("alert", inclusive=True)}
    reported = incidents(of.get("incident", []), cut)
    interventions = before("intervention")
    challenges: dict[int, list[dict]] = {}
    for e in of.get("challenge", []):
        challenges.setdefault(e["index"], []).append(e)
    repairs = _Repairs(probe, artifact, challenges, cfg, t0, tick_s, cut, cut_tick)
    by_inc: dict[str, list[dict]] = {}
    for x in interventions:
        by_inc.setdefault(x.get("incident_id") or "", []).append(x)

    nf, ni = len(faults), len(reported)
    C = np.zeros((nf, ni), dtype=bool)
    C_t = np.full((nf, ni), np.inf)
    L = np.zeros((nf, ni), dtype=bool)
    R = np.zeros((nf, ni), dtype=bool)
    R_t = np.full((nf, ni), np.inf)
    scopes = [scope(f["affected"], f["culprits"]) for f in faults]
    # each fault's attributable alerts among those incidents hold (all that C and the interventions'
    # justification read), decided once rather than once per incident holding them
    held_ids = set().union(*(inc.alerts for inc in reported))
    # and, for net_score's coverage, those the agent could have seen: started an invocation
    # before the cut (they reached an observation) or held. One pass serves both: an alert's
    # attribution does not depend on the other alerts given
    horizon = cut - cfg.invocation_s
    seen = attributable_by_fault(
        [al for aid, al in alerts.items() if al["t"] <= horizon or aid in held_ids],
        [(f["start"], f["end"], scopes[a]) for a, f in enumerate(faults)],
        cfg.attribution_grace_s,
    )
    attr = [{k: v for k, v in d.items() if k in held_ids} for d in seen]
    for a, f in enumerate(faults):
        att = attr[a]
        for b, inc in enumerate(reported):
            held = inc.alerts.keys() & att.keys()
            if not held:
                continue
            C[a, b] = True
            C_t[a, b] = min(max(inc.alerts[aid], att[aid]) for aid in held)
            L[a, b] = names_fault(inc, f) and (
                not cfg.localize_before_revert or inc.located_at < f["end"]
            )
            if L[a, b]:
                rt = repairs.time(f, by_inc.get(inc.id, []), scopes[a])
                if rt is not None:
                    R[a, b], R_t[a, b] = True, rt
    wc, wl, wr = cfg.w_correlation, cfg.w_localization, cfg.w_repair
    credit = C * (wc + wl * L + wr * (L & R))
    pairs = max_weight_matching(np.round(credit * 1e6))
    total = sum(credit[a, b] for a, b in pairs)
    forbidden = before("forbidden")
    n_sched = int(man["n_faults"])
    marathon = (100.0 * total / n_sched if n_sched else 0.0) - cfg.forbidden_penalty * len(
        forbidden
    )
    return _Stages(
        cfg=cfg,
        n_sched=n_sched,
        cut=cut,
        of=of,
        faults=faults,
        reported=reported,
        interventions=interventions,
        forbidden=forbidden,
        repairs=repairs,
        scopes=scopes,
        attr=attr,
        seen=seen,
        C=C,
        C_t=C_t,
        L=L,
        R=R,
        R_t=R_t,
        credit=credit,
        pairs=pairs,
        marathon=float(marathon),
    )


def marathon_score(
    evidence: Evidence, cutoff: float | None = None, config: ScoringConfig | None = None
) -> float:
    """The Marathon-Score as of ``cutoff``: ``score(...)["marathon_score"]`` without the
    companions."""
    return _stages(evidence, cutoff, config).marathon


def scores(
    evidence: Evidence, cutoff: float | None = None, config: ScoringConfig | None = None
) -> dict[str, float]:
    """Both scores as of ``cutoff``, ``{"marathon_score": ..., "net_score": ...}``, as ``score``
    gives them, without the other companions (what a reward reads every step)."""
    st = _stages(evidence, cutoff, config)
    n = net(st, _degradation(evidence, st.cut))
    return {"marathon_score": st.marathon, "net_score": n.score}


def score(
    evidence: Evidence,
    cutoff: float | None = None,
    config: ScoringConfig | None = None,
    *,
    per_fault: bool = False,
) -> dict:
    """Scorecard of the evidence as of ``cutoff`` (default: everything recorded).

    World evidence (injections, alerts, probes, challenges) counts up to and including the cutoff;
    the agent's own events (reports, interventions, forbidden attempts, calls) count strictly before
    it, because an invocation starting at the cutoff belongs to the next step. With ``per_fault``
    the card also lists each injected fault's stages, times, credit and outcome under ``faults``.
    """
    st = _stages(evidence, cutoff, config)
    cfg, n_sched, of, cut = st.cfg, st.n_sched, st.of, st.cut
    ep0 = float(evidence.manifest["episode_start"])
    before = functools.partial(_before, of, cut)
    faults, reported, interventions, repairs = st.faults, st.reported, st.interventions, st.repairs
    scopes, attr, pairs, credit = st.scopes, st.attr, st.pairs, st.credit
    C, C_t, L, R, R_t = st.C, st.C_t, st.L, st.R, st.R_t
    matched = dict(pairs)
    nf, ni = len(faults), len(reported)
    forb = len(st.forbidden)
    marathon = st.marathon

    # times to each stage (medians over faults reaching it, at invocation resolution)
    ttd, ttl, ttr = [], [], []
    outcomes = dict.fromkeys(OUTCOMES, 0)
    fault_outcomes: list[str] = []
    acted = _acted(faults, interventions, scopes)
    repaired_any = [
        repairs.time(f, interventions, scopes[a]) is not None for a, f in enumerate(faults)
    ]
    for a, f in enumerate(faults):
        b = matched.get(a)
        c = b is not None and C[a, b]
        loc = c and L[a, b]
        rep = loc and R[a, b]

        def stage_time(t: float, f: dict = f) -> float:
            return _ceil_to(t, ep0, cfg.invocation_s) - f["start"]

        if c:
            ttd.append(stage_time(C_t[a, b]))
        if loc:
            ttl.append(stage_time(max(reported[b].located_at, C_t[a, b])))
        if rep:
            ttr.append(stage_time(R_t[a, b]))
        if rep:
            kind = "handled"
        elif repaired_any[a]:
            kind = "repaired_not_handled"
        elif acted[a]:
            kind = "acted_without_repair"
        elif loc:
            kind = "located_without_action"
        elif c:
            kind = "correlated_only"
        else:
            kind = "missed"
        outcomes[kind] += 1
        fault_outcomes.append(kind)
    # faults not injected by the cutoff are not outcomes yet (at the end every fault is injected)
    outcomes["missed"] += max(n_sched - nf, 0) if cutoff is None else 0

    n_corr = sum(1 for a, b in pairs if C[a, b])
    n_loc = sum(1 for a, b in pairs if L[a, b])
    n_rep = sum(1 for a, b in pairs if L[a, b] and R[a, b])
    n_int = len(interventions)
    held_by: dict[str, list[tuple[float, list[str]]]] = {}  # incident id -> (t, its alerts)
    for e in of.get("incident", []):
        held_by.setdefault(e["id"], []).append((e["t"], e["alerts"]))
    risky = sum(1 for x in interventions if not _justified(x, held_by, faults, attr, scopes))
    usage = before("usage")
    calls = before("tool_call")
    degradation = _degradation(evidence, cut)
    nt = net(st, degradation)
    net_of = dict(nt.pairs)
    unit = 100.0 / n_sched if n_sched else 100.0
    card = {
        "marathon_score": float(marathon),
        "net_score": nt.score,
        "net": {
            "credit_units": nt.gain_units,
            "grouping": (
                float(np.mean([nt.quality[a, b] for a, b in nt.pairs])) if nt.pairs else 0.0
            ),
            "false_alarms": nt.false_alarms,
            "unwarranted_interventions": nt.unwarranted,
            "out_of_scope_interventions": nt.out_of_scope,
            "costs": nt.costs(unit, cfg),
        },
        "correlation": n_corr / n_sched if n_sched else 0.0,
        "localization": n_loc / n_sched if n_sched else 0.0,
        "repair": n_rep / n_sched if n_sched else 0.0,
        "n_faults": n_sched,
        "n_injected": nf,
        "forbidden_attempts": forb,
        "interventions": n_int,
        "intervention_risk": (risky + forb) / (n_int + forb) if (n_int + forb) else 0.0,
        "incidents": ni,
        "incident_precision": len({b for a, b in pairs}) / ni if ni else 0.0,
        "mttd_s": _median(ttd),
        "mttl_s": _median(ttl),
        "mttr_s": _median(ttr),
        "outcomes": outcomes,
        "degradation": degradation,
        "cost": {
            "tool_calls": len(calls),
            "invalid_calls": sum(1 for e in calls if not e.get("ok", False)),
            "model_calls": int(sum(e.get("model_calls", 0) for e in usage)),
            "input_tokens": int(sum(e.get("input_tokens", 0) for e in usage)),
            "output_tokens": int(sum(e.get("output_tokens", 0) for e in usage)),
            "dollars": float(sum(e.get("dollars", 0.0) for e in usage)),
        },
        "scoring_version": cfg.version,
    }
    if per_fault:
        card["faults"] = [
            {
                "index": f["index"],
                "fault_id": f["fault_id"],
                "category": f.get("category"),
                "mechanism": f.get("mechanism"),
                "target": f.get("target"),
                "culprits": list(f["culprits"]),
                "probe_kind": (f.get("probe") or {}).get("kind"),
                "start": float(f["start"]),
                "end": float(f["end"]),
                "incident": reported[matched[a]].id if a in matched else None,
                "correlated_at": float(C_t[a, matched[a]])
                if a in matched and C[a, matched[a]]
                else None,
                "localized_at": float(max(reported[matched[a]].located_at, C_t[a, matched[a]]))
                if a in matched and L[a, matched[a]]
                else None,
                "repaired_at": float(R_t[a, matched[a]])
                if a in matched and L[a, matched[a]] and R[a, matched[a]]
                else None,
                "recovered_at": repairs.time(f, interventions, scopes[a]),
                "credit": float(credit[a, matched[a]]) if a in matched else 0.0,
                "net_incident": reported[net_of[a]].id if a in net_of else None,
                "grouping": float(nt.quality[a, net_of[a]]) if a in net_of else 0.0,
                "net_credit": float(nt.credit[a, net_of[a]]) if a in net_of else 0.0,
                "outcome": fault_outcomes[a],
                "interventions": [
                    {
                        "t": x["t"],
                        "tool": x["tool"],
                        "target": x.get("target"),
                        "incident_id": x.get("incident_id"),
                        "in_scope": x.get("in_scope"),
                    }
                    for x in interventions
                    if f["start"] <= x["t"] < f["end"] and _fits(x, scopes[a], f)
                ],
            }
            for a, f in enumerate(faults)
        ]
    return card


def _justified(
    x: dict,
    held_by: dict[str, list[tuple[float, list[str]]]],
    faults: list[dict],
    attr: list[dict[str, float]],
    scopes: list[set[str]],
) -> bool:
    """An intervention stays within its incident's scope if the cited incident, as it stood then,
    holds an alert attributable to a fault active at that moment, and the intervention acts on that
    fault (its workload is in the fault's scope, or it removes the fault's artifact). The scope is
    what the evidence supports, not what the agent declared: naming every workload a root cause
    widens nothing, and an incident whose faults are over justifies nothing."""
    held: set[str] = set()
    for t, ids in held_by.get(x.get("incident_id"), ()):
        if t <= x["t"]:
            held.update(ids)
    for a, f in enumerate(faults):
        if not (f["start"] <= x["t"] < f["end"]) or not _fits(x, scopes[a], f):
            continue
        if not held.isdisjoint(attr[a]):  # (attr[a]: the fault's attributable alerts)
            return True
    return False


def _median(xs: list[float]) -> float | None:
    return float(np.median(xs)) if xs else None


def _fits(x: dict, scope: set[str], f: dict) -> bool:
    """Does an intervention act on the fault: its workload is in scope, or it removes an artifact."""
    return acts_on(x.get("target"), x.get("object", ""), scope, f["artifacts"])


def _acted(faults: list[dict], interventions: list[dict], scopes: list[set[str]]) -> list[bool]:
    return [
        any(f["start"] <= x["t"] < f["end"] and _fits(x, scopes[a], f) for x in interventions)
        for a, f in enumerate(faults)
    ]


@dataclass
class _Repairs:
    """What repair checks read: probe and artifact arrays, persistence challenges, the cut."""

    probe: np.ndarray | None
    artifact: np.ndarray | None
    challenges: dict[int, list[dict]]
    cfg: ScoringConfig
    t0: float
    tick_s: float
    cut: float
    cut_tick: int

    def time(self, f: dict, xs: list[dict], scope: set[str]) -> float | None:
        """When f recovered after the first fitting intervention in ``xs`` whose repair held.

        The recovery must hold (probe healthy for the hold period and, if the probe never failed,
        the artifact gone for it) before the revert, and the orchestrator's persistence challenge after the
        hold (a restart of the service, a re-fired trigger) must have found it still holding.
        """
        if self.probe is None:
            return None
        i = f["index"]
        hold = int(math.ceil(self.cfg.repair_hold_s / self.tick_s))
        end_k = int(math.ceil((f["end"] - self.t0) / self.tick_s))  # first tick at/after revert
        start_k = int(math.ceil((f["start"] - self.t0) / self.tick_s))
        for x in sorted(xs, key=lambda x: x["t"]):
            if not (f["start"] <= x["t"] < f["end"]) or not _fits(x, scope, f):
                continue
            k = int(math.floor((x["t"] - self.t0) / self.tick_s)) + 1
            for c in self.challenges.get(i, []):
                if c["t"] > self.cut or c["outcome"] != "held" or c["recovered_at"] <= x["t"]:
                    continue
                r = int(round((c["recovered_at"] - self.t0) / self.tick_s))
                if r < k or r + hold >= end_k or r + hold > self.cut_tick:
                    continue
                ok = (self.probe[i, r : r + hold + 1] == 1).all()
                if c["route"] == "artifact":  # and the probe had never failed before it
                    ok &= (self.artifact[i, r : r + hold + 1] == 0).all() and (
                        self.probe[i, start_k:k] == 1
                    ).all()
                if ok and not self._undone(f, i, end_k):
                    return c["recovered_at"]
        return None

    def _undone(self, f: dict, i: int, end_k: int) -> bool:
        """Is the fault's artifact back in place at the end of its window (or at the cut)?

        A repair the agent itself undoes before the revert (rolling a bad revision back in) is no
        repair. Node and zone faults are exempt: no agent can bring a machine back."""
        if self.artifact is None or f.get("mechanism") in INFRA_MECHANISMS:
            return False
        k = min(end_k - 1, self.cut_tick)
        return bool(self.artifact[i, k] == 1)


def _degradation(evidence: Evidence, cut: float) -> dict | None:
    entry = evidence.arrays.get("entry")
    base = evidence.arrays.get("entry_noaction")
    if entry is None:
        return None
    man = evidence.manifest
    t0, tick_s = float(man["t0"]), float(man["tick_s"])
    k0 = int((float(man["episode_start"]) - t0) // tick_s)
    k1 = min(entry.shape[0], int((min(cut, float(man["episode_end"])) - t0) // tick_s) + 1)
    seg = entry[k0:k1]
    degraded = float((seg[:, 0] * np.minimum(1.0, seg[:, 1] + seg[:, 2])).sum() * tick_s)
    total = float(seg[:, 0].sum() * tick_s)
    out = {
        "degraded_requests": degraded,
        "requests": total,
        "share": degraded / total if total else 0.0,
        "ratio": None,
    }
    if base is not None:
        b = base[k0:k1]
        base_deg = float((b[:, 0] * np.minimum(1.0, b[:, 1] + b[:, 2])).sum() * tick_s)
        out["noaction_degraded_requests"] = base_deg
        out["ratio"] = degraded / base_deg if base_deg > 0 else None
    return out
