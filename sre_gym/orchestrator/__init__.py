"""Seeded fault schedule (pure), its profiles, and the injector that applies it to a backend."""

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
