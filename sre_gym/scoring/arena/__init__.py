"""Incident-Arena grading: checks, materializers, the verdict (docs/arena.md)."""
