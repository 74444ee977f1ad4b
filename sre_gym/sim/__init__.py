"""The embedded simulator: cluster state, traffic dynamics, pods, rollouts and telemetry writers."""
