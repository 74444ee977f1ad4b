"""Seeded fault schedule and its profiles, the change stream and the open world (all pure).

The injector that applies a schedule to the simulator is ``sre_gym.sim.faults``."""

from sre_gym.orchestrator.profiles import PROFILES, ScheduleProfile, profile_from
from sre_gym.orchestrator.schedule import Schedule, ScheduledDeploy, ScheduledFault, schedule

__all__ = [
    "PROFILES",
    "Schedule",
    "ScheduleProfile",
    "ScheduledDeploy",
    "ScheduledFault",
    "profile_from",
    "schedule",
]
