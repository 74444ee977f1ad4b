"""Message topics (Kafka): producers publish per request served, consumer groups drain at a rate.

Lag per consumer group grows when publishing outpaces consumption and never goes below zero. A broker
without ready pods accepts nothing and delivers nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sre_gym.sim.topology import Topology


@dataclass
class QueueState:
    names: list[tuple[str, str]]  # (topic, consumer group) per lag entry
    lag: np.ndarray


def init(topo: Topology) -> QueueState:
    names = [(q.name, c) for q in topo.app.queues for c in q.consumers]
    return QueueState(names, np.zeros(len(names)))


def step(
    topo: Topology,
    st: QueueState,
    dt: float,
    served: np.ndarray,
    ready: np.ndarray,
    publish_extra: np.ndarray,
    consume_ms: np.ndarray,
) -> None:
    """Advance lag by one tick. ``ready`` counts ready pods per serving service."""
    i = 0
    for q in topo.app.queues:
        up = ready[topo.index[q.broker]] > 0
        rate = 0.0
        if up:
            for svc, per_req in q.producers.items():
                s = topo.index[svc]
                rate += served[s] * per_req * (1.0 + publish_extra[s])
        for svc, per_pod in q.consumers.items():
            s = topo.index[svc]
            per_msg_s = 1.0 / per_pod + consume_ms[s] / 1000.0
            cap = ready[s] / per_msg_s if up else 0.0
            st.lag[i] = max(0.0, st.lag[i] + (rate - cap) * dt)
            i += 1
