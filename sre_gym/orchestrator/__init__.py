"""Seeded fault schedule (pure) and the injector that applies it to a backend."""

from sre_gym.orchestrator.schedule import Schedule, ScheduledDeploy, ScheduledFault, schedule

__all__ = ["Schedule", "ScheduledDeploy", "ScheduledFault", "schedule"]
