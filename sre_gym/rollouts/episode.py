"""One episode of one agent on one (app, seed): the unit of work that rollouts fan out.

An agent is given as a baseline name (``"runbook"``) or as a picklable factory: a callable that returns
a policy ``policy(obs, info) -> action``. The factory may take ``env`` and/or ``seed`` keyword
arguments (the oracle needs the env); it is called inside the worker, after the env is made, so no env
or agent ever crosses a process boundary. Everything here is deterministic: the same (agent, app,
seed) gives the same record on every machine and in every process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

AgentSpec = str | Callable[..., Any]
ENV_ID = "SREMarathon-v0"
_FACTORY_ARGS = ("env", "seed")


def agent_label(agent: AgentSpec, name: str | None = None) -> str:
    """The name results are filed under: ``name`` if given, else the baseline or factory name."""
    if name:
        return str(name)
    if isinstance(agent, str):
        return agent
    for attr in ("name", "__name__"):
        v = getattr(agent, attr, None)
        if isinstance(v, str) and v and v != "<lambda>":
            return v
    func = getattr(agent, "func", None)  # functools.partial
    if func is not None:
        return agent_label(func)
    return type(agent).__name__


def build_agent(
    agent: AgentSpec,
    env: Any,
    seed: int,
    evaluation: bool = False,
    options: dict[str, Any] | None = None,
) -> Callable[[Any, Any], Any]:
    """The policy for one episode: ``make_agent(name, env, seed)`` or ``factory([env=][, seed=])``.

    In evaluation mode a factory gets neither: the env leads to the hidden schedule and the seed
    rebuilds it, so a factory that requires them is refused. Baselines by name keep their own
    channels (the oracle reads ground truth by design; ``random`` seeds only its own draws)."""
    if isinstance(agent, str):
        from sre_gym.agents import make_agent

        return make_agent(agent, env=env, seed=seed, **(options or {}))
    if options:
        raise TypeError("agent options (model, endpoint) go with a baseline name, not a factory")
    if not callable(agent):
        raise TypeError(
            f"agent must be a baseline name or a factory returning a policy, got {type(agent).__name__}"
        )
    kwargs: dict[str, Any] = {}
    try:
        params = inspect.signature(agent).parameters
    except (TypeError, ValueError):  # some builtins have no signature: call with no arguments
        params = {}
    var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    required = [
        n
        for n, p in params.items()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]
    unknown = [n for n in required if n not in _FACTORY_ARGS]
    if evaluation and any(n in _FACTORY_ARGS for n in required):
        raise TypeError(
            f"in evaluation mode an agent factory gets neither env= nor seed= (they expose the "
            f"hidden schedule); {agent_label(agent)} requires "
            f"{', '.join(n for n in required if n in _FACTORY_ARGS)}"
        )
    if unknown:
        raise TypeError(
            f"an agent factory may take only env= and seed= arguments; {agent_label(agent)} "
            f"requires {', '.join(unknown)} (pass a factory that returns the policy, not the policy)"
        )
    if not evaluation and ("env" in params or var_kw):
        kwargs["env"] = env
    if not evaluation and ("seed" in params or var_kw):
        kwargs["seed"] = seed
    policy = agent(**kwargs)
    if not callable(policy):
        raise TypeError(
            f"the agent factory {agent_label(agent)} returned {type(policy).__name__}, not a policy "
            "callable(obs, info) -> action"
        )
    return policy


def play(env: Any, policy: Callable[[Any, Any], Any], seed: int) -> tuple[dict[str, Any], float]:
    """Run ``policy`` on ``env`` for one full episode; returns (final info, sum of rewards).

    The policy sees each observation and ``agent_info(info)``: never the seed or the score."""
    from sre_gym.envs.marathon import agent_info

    obs, info = env.reset(seed=int(seed))
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(policy(obs, agent_info(info)))
        total += float(reward)
        if terminated or truncated:
            return info, total


def run_episode(
    agent: AgentSpec,
    app: str,
    seed: int,
    bundle_dir: str | None = None,
    agent_name: str | None = None,
    schedule: Any = None,
    evaluation_key: str | None = None,
    agent_options: dict[str, Any] | None = None,
    env_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play one episode and return its record: agent, app, seed, release, schedule (the profile's
    ``schedule_profile_key``), evaluation (whether a key was in force), reward (the score the
    rewards paid: ``"net"`` or ``"paper"``), scorecard (both scores), return, bundle.
    ``schedule`` is the env's schedule profile; ``evaluation_key`` (default: the
    ``SRE_GYM_EVALUATION_KEY`` environment variable) turns on evaluation mode; ``agent_options`` go to
    ``make_agent`` (an LLM agent's model and endpoint); ``env_options`` go to ``gym.make`` (a live
    cluster's ``backend``, ``kubeconfig``, ``prometheus_url``, ...; the record then says
    ``backend: "live"``)."""
    import gymnasium as gym

    import sre_gym  # noqa: F401  (registers the env in this process, e.g. a Ray worker)
    from sre_gym.catalogs import RELEASE
    from sre_gym.orchestrator.profiles import schedule_profile_key

    seed = int(seed)
    env = gym.make(
        ENV_ID,
        app=app,
        bundle_dir=bundle_dir,
        schedule=schedule,
        evaluation_key=evaluation_key,
        **(env_options or {}),
    )
    try:
        evaluation = bool(env.unwrapped.evaluation)
        reward = env.unwrapped.reward
        policy = build_agent(agent, env, seed, evaluation=evaluation, options=agent_options)
        info, total = play(env, policy, seed)
        sched = schedule_profile_key(env.unwrapped.schedule_profile)
    finally:
        env.close()
    return {
        "agent": agent_label(agent, agent_name),
        "app": app,
        "seed": seed,
        "release": RELEASE,
        "schedule": sched,
        "evaluation": evaluation,
        "reward": reward,
        "scorecard": info["scorecard"],
        "return": total,
        **({"backend": "live"} if (env_options or {}).get("backend") == "live" else {}),
        "bundle": info.get("bundle"),
    }
