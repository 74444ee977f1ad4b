"""Seeded fault schedule and its profiles, the change stream and the open world (all pure).

The injector that applies a schedule to the simulator is ``sre_gym.sim.faults``."""

from sre_gym.orchestrator.profiles import SCHEDULE_PROFILES, ScheduleProfile, schedule_profile_from
from sre_gym.orchestrator.schedule import Schedule, ScheduledDeploy, ScheduledFault, schedule

__all__ = [
    "SCHEDULE_PROFILES",
    "Schedule",
    "ScheduleProfile",
    "ScheduledDeploy",
    "ScheduledFault",
    "schedule_profile_from",
    "schedule",
]
