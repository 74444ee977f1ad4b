"""Incidents and interventions as the toolbox records them, and what the scorer counts of them.

Ports the incident store of ``tools/dispatch.py:Toolbox`` (report, update, resolve; an intervention
must cite an open incident) and the evidence rules of ``scoring/rules.py``: an alert is
*attributable* to a fault when it started firing in the fault's window plus the grace, on an
entity in its scope; an intervention *acts on* a fault when its workload is in the fault's scope
or the object it names is one of the fault's artifacts. Counts the scorer needs are kept as alerts
are held (``Agent.k_held``) rather than recomputed from an event log.

Differs from the full simulator: an incident names one root cause (the discrete remedies never
name more), and its alerts are the log's alerts (``Agent.holders``, at most four incidents per
alert).
"""

from __future__ import annotations

import numpy as np

from sre_gym.twin.state import TwinParams, TwinState


def attributable(prm: TwinParams, s: TwinState, rows, alert) -> np.ndarray:
    """[P, F] bool: is logged alert ``alert`` [P] of each row attributable to each fault?"""
    fs, al = s.faults, s.alerts
    grace = prm.scoring.attribution_grace_s
    t = al.fired[rows, alert][:, None]
    inwin = fs.injected[rows] & (fs.start[rows] <= t) & (t <= fs.end[rows] + grace)
    scope = scope_of(prm, s, rows)  # [P, F, U]
    ent = al.ent[rows, alert]  # [P, 2]
    hit = np.zeros(inwin.shape, dtype=bool)
    for j in range(ent.shape[1]):
        e = ent[:, j]
        on = e >= 0
        hit |= on[:, None] & scope[np.arange(len(rows)), :, np.maximum(e, 0)]
    return inwin & hit


def scope_of(prm: TwinParams, s: TwinState, rows) -> np.ndarray:
    """[P, F, U] bool: each fault's scope (affected services and culprits)."""
    from sre_gym.twin.tables import tables

    ft = tables(prm.layout).faults
    cat = s.faults.cat[rows]
    cul = ft.culprits[np.maximum(cat, 0)] & (cat >= 0)[..., None]
    return s.faults.affected[rows] | cul


def held_mask(s: TwinState, rows, iid) -> np.ndarray:
    """[P, A] bool: alerts incident ``iid`` [P] holds."""
    return (s.agent.holders[rows] == iid[:, None, None]).any(axis=2)


def hold(prm: TwinParams, s: TwinState, rows, iid, alerts: np.ndarray) -> None:
    """Incident ``iid`` [P] holds the alerts of ``alerts`` [P, A] from now on (new ones only)."""
    ag = s.agent
    new = alerts & ~held_mask(s, rows, iid)
    r, a = np.nonzero(new)
    if not len(r):
        return
    rr = rows[r]
    slot = (ag.holders[rr, a] >= 0).sum(axis=1)
    if (slot >= ag.holders.shape[2]).any():
        raise RuntimeError("an alert is held by more incidents than the twin keeps (4)")
    was = (ag.holders[rr, a] >= 0).any(axis=1)
    ag.holders[rr, a, slot] = iid[r]
    np.add.at(ag.n_held, (rr, iid[r]), 1)
    att = attributable(prm, s, rr, a).astype(np.int32)  # [P', F]
    F = att.shape[1]
    np.add.at(ag.k_held, (rr[:, None], np.arange(F)[None, :], iid[r][:, None]), att)
    fresh = ~was & ~ag.seen[rr, a]
    if fresh.any():  # a held alert counts among the seen ones whenever it fired
        ag.seen[rr[fresh], a[fresh]] = True
        np.add.at(ag.n_seen, rr[fresh], att[fresh])


def see(prm: TwinParams, s: TwinState, horizon: np.ndarray) -> None:
    """Count the alerts that started by ``horizon`` [E] among those the agent could have seen."""
    al, ag = s.alerts, s.agent
    n = np.arange(al.col.shape[1])[None, :] < al.n[:, None]
    new = n & ~ag.seen & (al.fired <= horizon[:, None])
    r, a = np.nonzero(new)
    if not len(r):
        return
    ag.seen[r, a] = True
    np.add.at(ag.n_seen, r, attributable(prm, s, r, a).astype(np.int64))


def acts_on(prm: TwinParams, s: TwinState, rows, target, obj) -> np.ndarray:
    """[P, F] bool: does an intervention on entity ``target`` [P] (-1 none) naming artifact code
    ``obj`` [P] act on each fault (``scoring.rules.acts_on``)?"""
    scope = scope_of(prm, s, rows)
    on = target >= 0
    by_scope = on[:, None] & scope[np.arange(len(rows)), :, np.maximum(target, 0)]
    by_obj = (s.faults.alias[rows] == obj[:, None, None]).any(axis=2) & (obj != 0)[:, None]
    return by_scope | by_obj
