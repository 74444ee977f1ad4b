"""The twin: a batched, fixed-shape array engine of the SREMarathon world (``SREMarathonTwin-v0``).

It shares the full simulator's catalogs, compiled topology, schedule, open-world and noise plans,
noise streams, alert rule pack and scoring rules, and ports its array kernels (dynamics, pod
lifecycle, metric values, probes, controller, autoscaler) over pod *slots* with a leading episode
axis. It is for training and sweeps; evaluation figures always come from the full simulator
(docs/twin.md says where the two differ).

Nothing is imported here: ``import sre_gym`` never loads the twin, and ``gym.make`` loads it only
through its entry-point strings.
"""
