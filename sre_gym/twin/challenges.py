"""Repair persistence challenges, run in forks of the challenged episodes.

Ports ``sim/faults/persistence.py:PersistenceChecker._challenge``. When a repair has held its probe
healthy for the hold (``probes.persistence_tick``), the episode is copied as it is at that moment
(``snapshot``: its arrays but the metric rings); in the copy the fault's workload is restarted
and a retry storm's trigger (a 40 ms latency blip on the callees its defect retries, for 30 s)
fires again; no new injection, deploy or benign disturbance starts and the fault itself is not
reverted; the copy then runs on for the restart's settling time plus the persistence window, and
the repair held if the fault's probe (and, on the artifact route, the artifact's absence) stayed
healthy throughout (``finish``). Forks run together as one batch (``engine.run_forks``) after an
invocation's ticks and before its score: the outcome only changes what the score credits, and a
fork never touches its episode. The vector env runs a fork only once the score can read its
outcome (an incident localized to its fault, ``readable``) and keeps the copy until then or until
the fault ends (``engine.settle_forks``); the same scores, with far fewer forks for a policy that
acts without diagnosing.

Differs from the full simulator: the forks of an invocation are stepped as one batch after its
ticks rather than each at its challenge (the same ticks of the same copies, so the same outcome);
a fork records only what the probes read (its SLI window), not the metric rings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym.clock import EPOCH, TICK_S
from sre_gym.sim.faults.persistence import TRIGGER_BLIP_MS, TRIGGER_BLIP_S, settle_s
from sre_gym.twin import controller
from sre_gym.twin import faults as F
from sre_gym.twin.episode import EV_DEPLOY, EV_INJECT, EV_NZ_START, EV_OW_START, EV_REVERT
from sre_gym.twin.score import culprits, localized
from sre_gym.twin.state import TwinParams, TwinState
from sre_gym.twin.tables import M_NODE, M_ZONE, tables

# the scheduled actions a fork leaves out (``_challenge``'s ``keep``): whatever starts later
DROPPED = (EV_INJECT, EV_DEPLOY, EV_NZ_START, EV_OW_START)
DELAY = 1  # the pod condition field of a latency blip (``faults._fields``)


# what a fork never reads (it records only its probes): the metric rings and their noise draws,
# the alerts and the agent's records; copied as empty slices ("*": every field of two axes or more)
UNREAD = {"tel": ("pod", "long", "inst"), "ep": ("noise", "unif"), "alerts": "*", "agent": "*"}


def snapshot(s: TwinState, rows: np.ndarray) -> TwinState:
    """The episodes of ``rows`` as they are, for forks (``UNREAD`` left empty)."""
    recs = {}
    for name, rec in s.records().items():
        skip = UNREAD.get(name, ())
        recs[name] = type(rec)(
            **{
                k: v[rows, :0] if (k in skip or skip == "*") and v.ndim > 1 else v[rows]
                for k, v in rec.arrays().items()
            }
        )
    return TwinState(**recs)


@dataclass
class Pending:
    """Challenges started at one tick, one per row of ``state`` (the episodes copied then)."""

    state: TwinState
    row: np.ndarray  # [C] the episode's row in the batch
    fault: np.ndarray  # [C]
    slot: np.ndarray  # [C] its challenge record (``Faults.ch_*``)
    t: np.ndarray  # [C] s the challenge's time
    route: np.ndarray  # [C] bool artifact route


@dataclass
class Fork:
    """A batch of forks under way: what ``finish`` reads, and the trigger blips to clear."""

    state: TwinState
    pending: Pending  # (all challenges of the batch, in the state's row order)
    k0: np.ndarray  # [C] first tick judged
    k1: np.ndarray  # [C] last tick judged
    clear_t: np.ndarray  # [C] s when the trigger blip ends (inf: none)
    blipped: np.ndarray  # [C, D, Cs] bool pods the blip was set on
    inc: np.ndarray  # [C, D, Cs] their incarnations then

    def due(self, s: TwinState, t: np.ndarray) -> None:
        """The blips whose 30 s are over end (``_Clear``: on the same pods, if still there)."""
        r = np.nonzero(t >= self.clear_t)[0]
        if not len(r):
            return
        self.clear_t[r] = np.inf
        p = s.pods
        mine = self.blipped[r] & p.alive[r] & (p.inc[r] == self.inc[r])
        rr, d, c = np.nonzero(mine)
        p.delay[r[rr], d, c] = 0.0


def _drop_events(s: TwinState, fault: np.ndarray) -> None:
    """Leave out of each fork's schedule what starts later and its own fault's revert."""
    ep = s.ep
    cols = [k for k in ep.arrays() if k.startswith("ev_") and getattr(ep, k).ndim == 2]
    for i in range(s.E):
        lo, hi = int(ep.ev_ptr[i]), int(ep.ev_n[i])
        kind, a = ep.ev_kind[i, lo:hi], ep.ev_a[i, lo:hi]
        keep = ~np.isin(kind, DROPPED) & ~((kind == EV_REVERT) & (a == fault[i]))
        idx = lo + np.nonzero(keep)[0]
        for k in cols:
            arr = getattr(ep, k)
            arr[i, lo : lo + len(idx)] = arr[i, idx]
        ep.ev_n[i] = lo + len(idx)


def subset(pd: Pending, keep: np.ndarray) -> Pending:
    """The challenges of ``pd`` where ``keep`` [C]."""
    i = np.nonzero(keep)[0]
    return Pending(pd.state.take(i), pd.row[i], pd.fault[i], pd.slot[i], pd.t[i], pd.route[i])


def readable(prm: TwinParams, s: TwinState, pd: Pending) -> np.ndarray:
    """[C] bool: the score can read the challenge's outcome now, i.e. an incident of its episode is
    localized to its fault (root cause its culprit, an artifact of it, set before its end: the
    score's ``lo``, which its repair credit needs)."""
    ag = s.agent
    ni = int(ag.n_inc[pd.row].max(initial=0))
    ib = np.arange(ni)[None, :]
    e, a = pd.row[:, None], pd.fault[:, None]
    lo = localized(s, culprits(prm, s), e, a, ib) & (ib < ag.n_inc[e])  # [C, I]
    return lo.any(axis=1)


def gather(pending: list[Pending]) -> Pending:
    """The challenges of several ticks as one batch."""
    if len(pending) == 1:
        return pending[0]
    cat = [np.concatenate([getattr(p, k) for p in pending]) for k in ("row", "fault", "slot", "t")]
    route = np.concatenate([p.route for p in pending])
    return Pending(TwinState.concat([p.state for p in pending]), *cat, route)


def start(prm: TwinParams, pending: Pending) -> Fork:
    """Set the forks of ``pending`` going (as ``_challenge`` does before ``advance_to``): the
    copies one tick on, persistence off, the schedule cut, the restart and the trigger; each runs
    to the end of its window or of the full simulator's run (``Episode.n_draw`` ticks)."""
    lay = prm.layout
    ft = tables(lay).faults
    s = pending.state
    C = s.E
    rows = np.arange(C)
    k = s.ep.tick.copy()  # (the copies were taken inside the tick, before its counters moved)
    s.ep.tick += 1
    s.ep.clock += 1
    s.faults.wt[:] = np.nan  # no challenges inside a challenge
    _drop_events(s, pending.fault)
    cat = s.faults.cat[rows, pending.fault]
    target = ft.target[cat]
    t = pending.t
    on_dep = ~np.isin(ft.mech[cat], (M_NODE, M_ZONE))
    if on_dep.any():  # ``fork_cl.restart(f.target, t)``
        r, d = rows[on_dep], target[on_dep]
        tpl = controller.template(s, r, d)
        tpl["rv_restart"] = np.floor(t[on_dep]).astype(np.int64)
        controller.new_revision(prm, s, r, d, tpl, t[on_dep])
        controller.reconcile_pending(prm, s)
    p = s.pods
    blipped = np.zeros(p.alive.shape, dtype=bool)
    trig = ft.retry_storm[cat] & (ft.change[cat] >= 0) & s.faults.injected[rows, pending.fault]
    for d in np.nonzero(ft.trigger[cat][trig].any(axis=0))[0].tolist():
        r = rows[trig][ft.trigger[cat[trig], d]]
        blipped[r, d] = F.set_condition(
            s, r, np.full(len(r), d), np.full(len(r), DELAY), TRIGGER_BLIP_MS
        )
    clear_t = np.where(trig, t + TRIGGER_BLIP_S, np.inf)
    settle = np.zeros(C)
    for i in np.nonzero(on_dep)[0].tolist():  # (the restarted workload's; per fork, not per tick)
        d = [int(target[i])]
        probe = (
            lay.dep_boot[d],
            lay.dep_probed[d],
            lay.dep_probe_delay[d],
            lay.dep_probe_period[d],
        )
        reps = int(s.deps.replicas[i, d[0]])
        settle[i] = settle_s(lay.topo.app, lay.dep_names[d[0]], probe, reps, TICK_S)
    until = t + settle + prm.scoring.persistence_s
    k0 = np.maximum(k + 1, np.ceil((t + settle - EPOCH) / TICK_S).astype(np.int64))
    k1 = np.minimum(np.floor((until - EPOCH) / TICK_S).astype(np.int64), s.ep.n_draw - 1)
    return Fork(s, pending, k0, k1, clear_t, blipped, p.inc.copy())


def finish(fork: Fork) -> np.ndarray:
    """[C] bool: each repair held (its probe healthy from ``k0`` to ``k1``, and on the artifact
    route its artifact gone)."""
    fs, pd = fork.state.faults, fork.pending
    held = np.ones(fork.state.E, dtype=bool)
    for i in range(fork.state.E):
        a, b = int(fork.k0[i]), int(fork.k1[i]) + 1
        ok = fs.probe[i, pd.fault[i], a:b] == 1
        if pd.route[i]:
            ok &= fs.artifact[i, pd.fault[i], a:b] == 0
        held[i] = bool(ok.all())
    return held


def ticks_left(fork: Fork) -> int:
    """Ticks until every fork has reached its last judged tick."""
    return max(0, int((fork.k1 - fork.state.ep.tick).max(initial=-1)) + 1)
