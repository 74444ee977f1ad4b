"""Artifacts as integer codes: what an incident names and what a fault's aliases list.

``orchestrator/faults.py`` gives each fault its artifact aliases as strings (a commit, ``svc@7``,
``pod/<name>``, ``deployment/svc``, ``node/<name>``, ``env.KEY``, ``flags.<name>`` ...), and the
scorer matches the string an incident names against them (``scoring/rules.py:artifact_matches``).
The twin's remedies name only a few kinds of artifact, so both sides are integers here: a kind and
up to two small numbers (a change record, a deployment and a revision, a slot and its pod's
incarnation, a node, a policy, an env key). Equal codes are equal strings.

Differs from the full simulator: a commit named by a hex prefix shorter than its sha has no code
(the remedies always name whole shas).
"""

from __future__ import annotations

import numpy as np

(
    SHA,  # a change record (its commit)
    DEPREV,  # "<svc>@<revision>"
    POD,  # "pod/<name>" or "pods/<name>": (slot, incarnation)
    DEPLOYMENT,  # "deployment/<svc>"
    NODE,  # "node/<name>"
    NODENAME,  # "<node>"
    NETPOL,  # "networkpolicy/<name>"
    ENV,  # "env.<KEY>"
    DEPKEY,  # "<svc>/env.<KEY>", "<svc>/resources.limits.cpu" ... (key ids past the env keys)
    FLAG,  # "flags.<name>"
    FLAGD,  # "flagd/flags.<name>"
    ZONE,  # "<zone>", "zone/<zone>"
    SOURCE,  # "source/<svc>" (a patch's object; no fault lists it)
) = range(1, 14)
NONE = 0


def code(kind: int, a, b=0) -> np.ndarray:
    """The code of an artifact (vectorised over ``a`` and ``b``)."""
    return (
        (np.int64(kind) << 48)
        | (np.asarray(a, dtype=np.int64) << 24)
        | np.asarray(b, dtype=np.int64)
    )


def kind_of(c) -> np.ndarray:
    return np.asarray(c, dtype=np.int64) >> 48
