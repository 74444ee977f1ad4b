"""Rollouts: many seeds and apps per agent, serially or fanned out with Ray; results and resume.

``rollout(agent, apps, seeds, workers=None, address=None, out=None, bundle_dir=None)`` returns a
``RolloutResults`` (``.to_pandas()`` gives one row per (app, seed) with every scorecard key);
``qualify(apps, seeds)`` checks that a release is fair (oracle >= 90, no-op == 0 on every seed) and
explains every fault the oracle missed. Importing this package imports neither ray nor pandas.
"""

from __future__ import annotations

from sre_gym.rollouts.episode import agent_label, build_agent, run_episode
from sre_gym.rollouts.qualify import NOOP_MAX, ORACLE_MIN, fault_report, qualify, qualify_seed
from sre_gym.rollouts.results import RolloutResults, flatten, load_results, open_store
from sre_gym.rollouts.runner import (
    CLUSTER_LABEL,
    RolloutError,
    parse_apps,
    parse_seeds,
    rollout,
    task_options,
)

__all__ = [
    "CLUSTER_LABEL",
    "NOOP_MAX",
    "ORACLE_MIN",
    "RolloutError",
    "RolloutResults",
    "agent_label",
    "build_agent",
    "fault_report",
    "flatten",
    "load_results",
    "open_store",
    "parse_apps",
    "parse_seeds",
    "qualify",
    "qualify_seed",
    "rollout",
    "run_episode",
    "task_options",
]
