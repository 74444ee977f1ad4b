"""The embedded simulator: cluster state, traffic dynamics, pods, rollouts, telemetry writers (metrics,
logs and traces, generated from the per-tick records) and the fault machinery (``faults/``)."""
