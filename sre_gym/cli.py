"""The ``sre-gym`` command: run episodes, print schedules, score and verify bundles."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

# Modules that add subcommands: each exposes ``register(subparsers)`` (imported only by the CLI).
PLUGINS: tuple[str, ...] = (
    "sre_gym.rollouts.catalog_cli",
    "sre_gym.scoring.cli",
    "sre_gym.rollouts.cli",
    "sre_gym.rollouts.arena_cli",
    "sre_gym.tools.cli",
    "sre_gym.serve.cli",
    "sre_gym.backends.live_cli",
)

SCORECARD_ROWS = (
    ("net_score", "net_score", "{:.2f}"),
    ("marathon_score", "Marathon-Score (paper)", "{:.2f}"),
    ("correlation", "correlated (share of faults)", "{:.3f}"),
    ("localization", "localized", "{:.3f}"),
    ("repair", "repaired", "{:.3f}"),
    ("n_faults", "faults scheduled", "{}"),
    ("incidents", "incidents reported", "{}"),
    ("incident_precision", "incident precision", "{:.3f}"),
    ("interventions", "interventions", "{}"),
    ("intervention_risk", "intervention risk", "{:.3f}"),
    ("forbidden_attempts", "forbidden attempts", "{}"),
    ("mttd_s", "MTTD (s)", "{:.0f}"),
    ("mttl_s", "MTTL (s)", "{:.0f}"),
    ("mttr_s", "MTTR (s)", "{:.0f}"),
)


def format_scorecard(card: dict[str, Any], reward: str | None = None) -> str:
    """The scorecard as text; ``reward`` ("net" or "paper") marks the score the rewards paid."""
    from sre_gym.envs.marathon import REWARDS

    paid = REWARDS.get(reward or "")
    lines = []
    for key, label, fmt in SCORECARD_ROWS:
        v = card.get(key)
        mark = "  (the reward)" if key == paid else ""
        lines.append(f"  {label:<30} {'-' if v is None else fmt.format(v)}{mark}")
    net = card.get("net")
    if isinstance(net, dict):
        costs = net.get("costs") or {}
        lines.append(
            "  net_score costs (points): "
            + ", ".join(f"{k}={'-' if v is None else f'{v:.2f}'}" for k, v in costs.items())
        )
    deg = card.get("degradation")
    if isinstance(deg, dict):
        ratio = deg.get("ratio")
        lines.append(f"  {'degraded requests (share)':<30} {deg['share']:.3f}")
        lines.append(
            f"  {'degradation vs no-action':<30} {'-' if ratio is None else f'{ratio:.3f}'}"
        )
    outcomes = card.get("outcomes", {})
    lines.append("  outcomes: " + ", ".join(f"{k}={v}" for k, v in outcomes.items()))
    cost = card.get("cost", {})
    lines.append("  cost: " + ", ".join(f"{k}={v}" for k, v in cost.items()))
    return "\n".join(lines)


def add_model_args(p: argparse.ArgumentParser) -> None:
    from sre_gym.agents.llm import LLM_AGENTS

    g = p.add_argument_group(f"LLM agents ({', '.join(LLM_AGENTS)})")
    g.add_argument("--model", default=None, help="model name at the endpoint")
    g.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint, e.g. .../v1")
    g.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="VAR",
        help="environment variable holding the API key (default OPENAI_API_KEY; none is fine "
        "for local servers)",
    )
    g.add_argument(
        "--price",
        default=None,
        metavar="IN,OUT",
        help="dollars per million input and output tokens, for the scorecard's cost",
    )


def llm_options(a: argparse.Namespace, agent: str | None = None) -> dict[str, Any]:
    """make_agent options of an LLM agent (``agent``, default ``--agent``) from the command line
    ({} for the baselines)."""
    import os

    from sre_gym.agents.llm import LLM_AGENTS

    agent = a.agent if agent is None else agent
    if agent not in LLM_AGENTS:
        return {}
    if not a.model:
        raise SystemExit(
            f"error: --agent {agent} needs --model (and --base-url for a local server)"
        )
    out: dict[str, Any] = {"model": a.model, "base_url": a.base_url}
    out["api_key"] = os.environ.get(a.api_key_env) or None
    if a.price:
        try:
            p_in, p_out = (float(x) for x in a.price.split(","))
        except ValueError:
            raise SystemExit(
                f"error: --price takes IN,OUT dollars per million tokens, got {a.price!r}"
            ) from None
        out["price"] = (p_in, p_out)
    return out


def evaluation_key_arg(path: str | None) -> str | None:
    """The evaluation key in a file (``--evaluation-key-file``), else the environment's
    ``SRE_GYM_EVALUATION_KEY``, else None. A missing or empty file is an error."""
    from sre_gym.envs.marathon import evaluation_key_from

    if path is None:
        return evaluation_key_from(None)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit(
            f"error: cannot read the evaluation key file {path}: {e.strerror}"
        ) from None
    if not text.strip():
        raise SystemExit(f"error: the evaluation key file {path} is empty")
    return evaluation_key_from(text)


def add_evaluation_key(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--evaluation-key-file",
        default=None,
        metavar="F",
        help="run in evaluation mode with the secret key in F (default: $SRE_GYM_EVALUATION_KEY)",
    )


def _run(a: argparse.Namespace) -> int:
    import gymnasium as gym

    import sre_gym  # noqa: F401  (registers the env)
    from sre_gym.agents import make_agent
    from sre_gym.envs.marathon import agent_info

    key = evaluation_key_arg(a.evaluation_key_file)
    env = gym.make(
        "SREMarathon-v0",
        app=a.app,
        bundle_dir=a.bundle_dir,
        schedule=a.schedule,
        evaluation_key=key,
        reward=a.reward,
    )
    agent = make_agent(a.agent, env=env, seed=a.seed, **llm_options(a))
    obs, info = env.reset(seed=a.seed)
    total = 0.0
    while True:
        obs, reward, terminated, truncated, info = env.step(agent(obs, agent_info(info)))
        total += reward
        if a.verbose:
            shown = f"  score {info['score']:7.3f}" if "score" in info else ""
            print(
                f"invocation {info['invocation']:2d}  reward {reward:+7.3f}{shown}", file=sys.stderr
            )
        if terminated or truncated:
            break
    card = info["scorecard"]
    if a.json:
        print(
            json.dumps(
                {
                    "app": a.app,
                    "seed": a.seed,
                    "agent": a.agent,
                    "evaluation": key is not None,
                    "reward": a.reward,
                    "return": total,
                    "scorecard": card,
                    "bundle": info.get("bundle"),
                },
                sort_keys=True,
            )
        )
    else:
        mode = "  (evaluation mode)" if key is not None else ""
        print(f"SREMarathon-v0  app={a.app}  seed={a.seed}  agent={a.agent}{mode}")
        print(format_scorecard(card, a.reward))
        print(f"  {'sum of rewards':<30} {total:.2f}")
        if info.get("bundle"):
            print(f"  bundle: {info['bundle']}")
    return 0


def _schedule(a: argparse.Namespace) -> int:
    from sre_gym.catalogs import load_catalog
    from sre_gym.orchestrator import schedule

    if a.stats:
        return _schedule_stats(a)
    sched = schedule(a.app, a.seed, profile=a.schedule)
    if a.json:
        print(sched.to_json())
        return 0
    faults = {f.id: f for f in load_catalog(a.app).faults}
    conc = sched.concurrency()
    print(
        f"schedule  app={a.app}  seed={a.seed}  profile={sched.profile}  faults={len(sched.faults)}  deploys={len(sched.deploys)}  "
        f"mean concurrency={conc.mean():.2f}  peak={conc.max()}  (ground truth: never shown to agents)"
    )
    for sf in sched.faults:
        f = faults[sf.fault_id]
        print(
            f"  {sf.start:5d}s-{sf.end:5d}s  {f.category:<14} {f.delivery:<7} {f.mechanism:<20} {f.target:<22} {sf.fault_id}"
        )
    return 0


def profile_arg(spec: str) -> Any:
    """A schedule profile from the command line: a name, or a JSON object of its fields."""
    from sre_gym.orchestrator.profiles import schedule_profile_from

    try:
        return schedule_profile_from(json.loads(spec) if spec.lstrip().startswith("{") else spec)
    except ValueError as e:  # JSONDecodeError is one too
        raise argparse.ArgumentTypeError(str(e)) from None


def _schedule_stats(a: argparse.Namespace) -> int:
    import numpy as np

    from sre_gym.orchestrator import schedule
    from sre_gym.rollouts.runner import parse_seeds

    try:
        seeds = parse_seeds(a.seeds)
    except ValueError as e:
        raise SystemExit(f"error: {e}") from None
    n, avg, peak, dur = [], [], [], []
    for s in seeds:
        sc = schedule(a.app, s, profile=a.schedule)
        c = sc.concurrency()
        n.append(len(sc.faults))
        avg.append(float(c.mean()))
        peak.append(int(c.max()))
        dur += [f.duration for f in sc.faults]
    stats = {
        "app": a.app,
        "seeds": f"{seeds[0]}-{seeds[-1]}"
        if seeds == list(range(seeds[0], seeds[-1] + 1))
        else a.seeds,
        "faults_per_run_mean": float(np.mean(n)),
        "faults_per_run_min": int(min(n)),
        "faults_per_run_max": int(max(n)),
        "window_s_min": int(min(dur)),
        "window_s_max": int(max(dur)),
        "mean_simultaneous": float(np.mean(avg)),
        "median_peak": float(np.median(peak)),
    }
    if a.json:
        print(json.dumps(stats, sort_keys=True))
    else:
        print(
            f"{a.app} seeds {stats['seeds']}: faults/run {stats['faults_per_run_mean']:.1f} "
            f"({stats['faults_per_run_min']}-{stats['faults_per_run_max']}), windows "
            f"{stats['window_s_min'] // 60}-{stats['window_s_max'] // 60} min, mean simultaneous "
            f"{stats['mean_simultaneous']:.2f}, median peak {stats['median_peak']:.0f}"
        )
    return 0


def _score(a: argparse.Namespace) -> int:
    from sre_gym.bundle import BundleError, read_bundle
    from sre_gym.envs.marathon import REWARDS
    from sre_gym.scoring import score

    try:
        ev = read_bundle(a.bundle)  # (verifies the seal first)
        card = score(ev, cutoff=float(ev.manifest["episode_end"]))  # = score_bundle(a.bundle)
        # the score the run's rewards summed to: the manifest's choice (runs from before the
        # choice existed paid the Marathon-Score), unless --reward asks for the other
        reward = a.reward or (ev.manifest.get("env") or {}).get("reward", "paper")
    except BundleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if reward not in REWARDS:
        print(f"error: the bundle names an unknown reward {reward!r}", file=sys.stderr)
        return 2
    out = {"reward": reward, "score": card[REWARDS[reward]], "scorecard": card}
    print(json.dumps(out, sort_keys=True, indent=None if a.json else 2))
    return 0


def add_reward(p: argparse.ArgumentParser, default: str | None = "net") -> None:
    p.add_argument(
        "--reward",
        choices=("net", "paper"),
        default=default,
        help="the score the rewards pay the increments of: net (net_score, the default) or paper "
        "(the Marathon-Score); the scorecard always holds both",
    )


def _verify(a: argparse.Namespace) -> int:
    from sre_gym.bundle import BundleError, verify

    try:
        digest = verify(a.bundle)
    except BundleError as e:
        print(f"INVALID: {e}", file=sys.stderr)
        return 1
    print(f"OK {digest}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from sre_gym.catalogs import APPS

    p = argparse.ArgumentParser(
        prog="sre-gym", description="SRE-Marathon environments: run, inspect and score."
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one episode with a baseline agent and print its scorecard")
    r.add_argument("--app", default="online-boutique", choices=APPS)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--agent", default="runbook")
    r.add_argument("--bundle-dir", default=None, help="write a sealed evidence bundle here")
    r.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields",
    )
    add_evaluation_key(r)
    add_reward(r)
    add_model_args(r)
    r.add_argument("--json", action="store_true", help="print the scorecard as JSON")
    r.add_argument(
        "-v", "--verbose", action="store_true", help="print per-invocation rewards to stderr"
    )
    r.set_defaults(fn=_run)
    s = sub.add_parser("schedule", help="print the fault schedule of a seed (ground truth)")
    s.add_argument("--app", default="online-boutique", choices=APPS)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--json", action="store_true")
    s.add_argument("--stats", action="store_true", help="calibration figures over --seeds")
    s.add_argument("--seeds", default="0-49", help="seed range for --stats, e.g. 0-49")
    s.add_argument(
        "--schedule",
        type=profile_arg,
        default="marathon",
        help="schedule profile: marathon, short, single, or a JSON object of its fields "
        "(as for run; --profile is the access profile elsewhere)",
    )
    s.set_defaults(fn=_schedule)
    sc = sub.add_parser(
        "score",
        help="verify a bundle and re-score it offline: the rewarded score and the scorecard",
    )
    sc.add_argument("bundle")
    sc.add_argument("--json", action="store_true", help="one-line JSON")
    add_reward(sc, default=None)
    sc.set_defaults(fn=_score)
    v = sub.add_parser("verify", help="check a bundle's seal; exit 1 if anything changed")
    v.add_argument("bundle")
    v.set_defaults(fn=_verify)
    for mod in PLUGINS:
        importlib.import_module(mod).register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
