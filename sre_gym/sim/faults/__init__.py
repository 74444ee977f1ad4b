"""The simulator's fault machinery: what applies an orchestrator schedule to a simulated cluster.

``injector.py`` injects each scheduled fault through ordinary operations (a commit through the build
pipeline, a NetworkPolicy, a stressed pod, a node that stops reporting), reverts it at its window
end, deploys the ordinary changes and records per-tick fault evidence; ``persistence.py`` challenges
a repair that has held in a fork of the world; ``noise.py`` adds the seeded benign noise (CPU bursts,
latency blips, noisy neighbours) that fires alerts with no fault behind it. The schedule itself, its
schedule profiles, the change stream and the open world are pure and stay in ``sre_gym.orchestrator``.
"""
