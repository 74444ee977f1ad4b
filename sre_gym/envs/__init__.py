"""Environments: SREMarathon-v0 (``marathon``)."""
