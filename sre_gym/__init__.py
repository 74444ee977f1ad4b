"""sre_gym: Gymnasium environments for continuous, change-driven SRE operation.

``import sre_gym`` registers ``SREMarathon-v0``, ``SREMarathonTwin-v0`` and ``IncidentArena-v0``; it imports nothing heavy (no ray, kubernetes,
matplotlib or pandas), and the simulator loads only when an env is made.
"""

from __future__ import annotations

import gymnasium as gym

__version__ = "0.1.0"

if "SREMarathon-v0" not in gym.registry:
    gym.register(
        id="SREMarathon-v0",
        entry_point="sre_gym.envs.marathon:SREMarathonEnv",
        nondeterministic=False,
        kwargs={"app": "online-boutique"},
    )

# the twin: a batched array engine of the same world for training (sre_gym/twin; docs/twin.md);
# registered by entry-point strings only, so importing sre_gym never imports it
if "SREMarathonTwin-v0" not in gym.registry:
    gym.register(
        id="SREMarathonTwin-v0",
        entry_point="sre_gym.twin.single:TwinEnv",
        vector_entry_point="sre_gym.twin.vector_env:TwinVectorEnv",
        nondeterministic=False,
        kwargs={"app": "online-boutique"},
    )

# Incident-Arena repair tasks (sre_gym/envs/arena.py; docs/arena.md)
if "IncidentArena-v0" not in gym.registry:
    gym.register(
        id="IncidentArena-v0",
        entry_point="sre_gym.envs.arena:IncidentArenaEnv",
        nondeterministic=False,
        kwargs={"task": "arena-008"},
    )

__all__ = ["__version__"]
