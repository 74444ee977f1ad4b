"""SREMarathon-v0: one seeded marathon of continuous, overlapping, change-driven faults."""

from __future__ import annotations

import json
import os
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym.backends.sim import SimBackend
from sre_gym.bundle.evidence import Evidence
from sre_gym.catalogs import APPS, RELEASE
from sre_gym.clock import EPISODE_S, EPOCH, INVOCATION_S
from sre_gym.envs.actions import parse_action
from sre_gym.envs.live import live_backend, live_config
from sre_gym.envs.live import noaction_entry as live_noaction
from sre_gym.envs.noaction import noaction_entry
from sre_gym.envs.observation_text import ALERTS_CHARS, AlertHistory, dump
from sre_gym.envs.spaces import ToolCalls, text
from sre_gym.envs.viewer import picture
from sre_gym.orchestrator.open_world import NoiseProfile, noise_profile_from
from sre_gym.orchestrator.profiles import ScheduleProfile, schedule_profile_from
from sre_gym.orchestrator.schedule import custom_schedule, schedule
from sre_gym.rng import world_seed
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import score, scores
from sre_gym.sim.cluster import WARMUP_S
from sre_gym.tools.dispatch import RESULT_CHARS, Invalid, Toolbox, short
from sre_gym.tools.policy import DEFAULT_PROFILE, check_profile
from sre_gym.tools.specs import BUDGET_S

# 45 in the marathon profile; an env's own count is env.n_invocations
N_INVOCATIONS = EPISODE_S // INVOCATION_S
MAX_CALLS = 64
RESULTS_CHARS = 1 << 21
INCIDENTS_CHARS = 1 << 20
NOTES_CHARS = 1 << 16
EVALUATION_KEY_ENV = "SRE_GYM_EVALUATION_KEY"
# info keys an evaluated agent must never see: the seed rebuilds the schedule from public code, and
# the running score is an online oracle for guess-and-check localization
HIDDEN_INFO = ("seed", "score", "scores", "scorecard", "bundle")
# reward="net" pays increments of net_score (the default), "paper" those of the Marathon-Score
REWARDS = {"net": "net_score", "paper": "marathon_score"}


def reward_key(reward: str) -> str:
    """The scorecard key a reward choice pays the increments of; ValueError on an unknown one."""
    if reward not in REWARDS:
        raise ValueError(f"unknown reward {reward!r}; use one of {', '.join(map(repr, REWARDS))}")
    return REWARDS[reward]


def agent_info(info: dict[str, Any]) -> dict[str, Any]:
    """What an evaluated agent may see of a step's ``info``: everything but ``HIDDEN_INFO``."""
    return {k: v for k, v in info.items() if k not in HIDDEN_INFO}


class Secret(str):
    """A string that does not show itself in reprs (error messages, logs, progress lines)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'<secret>'"


def evaluation_key_from(key: str | None) -> str | None:
    """The evaluation key in force: ``key``, else the ``SRE_GYM_EVALUATION_KEY`` environment
    variable, else None (training mode). An empty key is an error, not a silent training run."""
    if key is None:
        key = os.environ.get(EVALUATION_KEY_ENV)
        if key is None:
            return None
    if not isinstance(key, str) or not key.strip():
        raise ValueError("evaluation_key must be a non-empty string")
    return Secret(key.strip())


class SREMarathonEnv(gym.Env):
    """
    ## Description

    An SRE agent operates a microservice application (Online Boutique, Train Ticket or Astronomy Shop)
    on a simulated Kubernetes cluster for a 90-minute marathon. A seeded orchestrator injects about
    sixty overlapping faults over the first 60 minutes with increasing intensity (bad commits and
    config changes through the build pipeline, resource, network, dependency and node trouble), each
    active for 4-12 minutes unless repaired; the last 30 minutes bring no new faults. The agent never learns when a fault starts: it
    sees alerts that Prometheus rules raise from telemetry, and must group them into incidents, name the
    root-cause service and responsible artifact, and repair through guarded tools.

    ## Action Space

    `ToolCalls`: one step is one agent invocation, and the action is the list of tool calls made in it,
    `[{"tool": "get_alerts", "args": {}}, ...]` (or the same as a JSON string, or
    `{"calls": [...], "notes": "...", "usage": {...}}`). Calls run in order on the simulated clock within
    a 110 s budget (each tool has a duration); interventions take effect when they run. The 19 tools
    and their JSON Schemas are in `sre_gym.tools.TOOLS` (`sre-gym tools` lists them). A malformed call
    gets an error result and changes nothing; the step never raises on it. Wrappers in
    `sre_gym.wrappers` offer one call per step (ReAct), chat messages with OpenAI tool calls, and
    numeric observations with discrete remedies for classic RL.

    ## Observation Space

    `Dict` of `time` (simulated unix seconds), `invocation` (0-45 in a marathon), and printable-ASCII
    JSON text: `alerts` (cumulative alert history: id, name, severity, state, labels, starts/ends,
    summary), `tool_results` (results of the previous step's calls, in order), `incidents` (open incidents the
    agent reported) and `notes` (the agent's persistent workspace: whatever the last action's `"notes"`
    said, JSON-escaped to printable ASCII and kept up to 65536 characters, returned in every
    observation until the agent rewrites it; the env never reads it). Nothing in it names a fault.

    ## Rewards

    The increment of `net_score` since the previous step (`reward="net"`, the default): per fault,
    staged credit for correlation (1/3 times how well the matched incident's alerts agree with the
    fault's: precision and coverage), localization (1/3, named before the fault is reverted) and
    repair (1/3, held before the revert), minus costs for incidents matched to no fault, for
    interventions on workloads no active fault affects or that their incident does not justify, for
    users degraded beyond the no-action run and for blocked forbidden operations; x100 / scheduled
    faults, at least -100. `reward="paper"` pays the increments of the paper's Marathon-Score instead
    (1/3 per stage for any correlated incident, minus 1 per forbidden operation). Rewards of an
    episode sum to the chosen final score; the scorecard always holds both (docs/scoring.md has
    every rule). In evaluation mode (`evaluation_key`) every reward is 0 until the last step, which
    pays the whole score, so the reward cannot be probed for guess-and-check localization.

    ## Starting State

    A healthy application after a 10-minute warm-up (so rate windows and `for:` clauses have data).

    ## Episode End

    Terminates after 45 invocations (90 simulated minutes; `env.n_invocations` under another schedule
    profile). There is no truncation. The last step's `info["scorecard"]` holds every metric; with
    `bundle_dir` set, `info["bundle"]` is the sealed bundle.

    ## Arguments

    `app` ("online-boutique"), `bundle_dir` (write a sealed evidence bundle there), `render_mode`
    ("ansi", text; "rgb_array", a picture of the service graph coloured by firing alerts above the
    alert timeline, drawn from what the observation holds; or None), `scoring` (a
    `ScoringConfig`), `profile` (the access profile: "confined",
    "shell-visible", "build-capable" or the default "full"; see `sre_gym.tools.policy`; a tool outside
    it is refused, not penalised; recorded in the bundle manifest), `schedule` (the schedule profile:
    "marathon", the default; "short", 30 minutes with 6-8 faults at an even rate; "single", one fault in
    20 minutes; or a dict of `sre_gym.orchestrator.ScheduleProfile` fields such as
    `{"profile": "short", "categories": ["code"], "n_faults": [3, 3]}` or `{"split": "train"}`, the
    training part of the held-out fault split; recorded in the manifest). Evaluation mode draws from
    the held-out part unless the profile names a split.
    `reset(options={"faults": [...]})` replaces the seeded schedule with hand-placed faults.
    `noise` (the noise profile: "production", the default, the open world of benign anomalies a
    real namespace shows with no fault behind them, plus load noise; "quiet", load noise only;
    "off"; or a dict of `sre_gym.orchestrator.open_world.NoiseProfile` fields; recorded in the
    manifest).
    `reward` ("net", the default: increments of `net_score`; "paper": of the Marathon-Score;
    recorded in the manifest).
    `backend` ("sim", the default; or "live": a real Kubernetes cluster and Prometheus, with
    `kubeconfig`, `context`, `namespace`, `prometheus_url`, `clock` and the other
    `sre_gym.envs.live.LIVE_ARGS`; docs/live.md).
    `counterfactual` (True; False skips simulating the no-action run at the end of an episode that
    intervened, about a fifth of an acting episode's cost: observations and the Marathon-Score are
    the same, the scorecard's degradation ratio is None and net_score charges no degradation cost;
    training mode only; recorded in the manifest).
    `evaluation_key` (a secret string; default: the `SRE_GYM_EVALUATION_KEY` environment variable,
    else off) turns on evaluation mode: the schedule, the benign deploys, the commit shas and all
    telemetry noise are drawn from (key, seed), so public code cannot rebuild the run from the seed;
    faults come from the held-out part of the fault split (unless the schedule profile names one);
    rewards are held back until the last step; `info` carries neither `seed` nor `score`. The bundle
    manifest records `"evaluation": true`, never the key, and re-scores offline without it.

    ## Information

    `info` has `time` and `invocation` (of the next invocation) and, after a step, `budget_used_s`.
    In training mode it also has `seed`, `score` (the rewarded score so far: the sum of the rewards)
    and `scores` (both scores so far, `{"net_score": ..., "marathon_score": ...}`): conveniences for
    training and debugging that an evaluated agent must not see (`HIDDEN_INFO`;
    `sre_gym.envs.marathon.agent_info` removes them, and `sre-gym run`, `rollout` and `qualify`
    pass agents only that). The last step adds `scorecard` (every metric) and, with `bundle_dir`,
    `bundle` (the sealed bundle's path).

    ## Invocation API

    `step(action)` is `begin_invocation()`, `call(c)` for each call, then `end_invocation()`. The
    wrappers use the three directly to run one call at a time inside the current invocation without
    re-running anything; `budget_left` says how much of the 110 s remains.

    ## Version History

    * v0, release `sre-marathon-r2`: an open, slow, honest world. Rollouts take the catalog's
      scheduling, pull, boot, probe and warm-up times; symptom probes read one-minute windows a
      scrape late; selector chaos re-attaches to replacement pods; benign anomalies (third-party
      timeouts, side-workload OOMs, manual edits, node flaps, surges, HPA scaling) arrive with no
      fault behind them; deploys fail at a 15 % change-failure rate with per-episode titles and HEAD
      builds that keep defects; evaluation mode seals the schedule and holds rewards back. Every
      score of `sre-marathon-r1` changes. Revised after its first landing: a service that takes
      requests but fails most of them (pods that take traffic before they listen, such as a JVM
      booting behind no readiness probe) fails every symptom probe read on it, so recoveries are
      credited once the service answers again; this changed the r2 scores of runs that repair.
    * v0, release `sre-marathon-r1`: first release.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        app: str = "online-boutique",
        bundle_dir: str | None = None,
        render_mode: str | None = None,
        scoring: ScoringConfig | None = None,
        profile: str = DEFAULT_PROFILE,
        schedule: str | dict | ScheduleProfile | None = None,
        evaluation_key: str | None = None,
        noise: str | dict | NoiseProfile | None = None,
        backend: str = "sim",
        counterfactual: bool = True,
        reward: str = "net",
        **live: Any,
    ) -> None:
        self.live = live_config(backend, live)  # None: the simulator (envs/live.py)
        if app not in APPS:
            raise ValueError(f"unknown app {app!r}; known apps: {', '.join(APPS)}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"unsupported render_mode {render_mode!r}; use 'ansi', 'rgb_array' or None"
            )
        self.app = app
        self.reward = reward
        self._reward_key = reward_key(reward)
        self.release = RELEASE
        self.bundle_dir = bundle_dir
        self.render_mode = render_mode
        self.scoring = scoring or ScoringConfig()
        self.profile = check_profile(profile)
        self.schedule_profile = schedule_profile_from(schedule)
        self.n_invocations = self.schedule_profile.invocations
        self._evaluation_key = evaluation_key_from(evaluation_key)
        if self._evaluation_key is not None and self.schedule_profile.split is None:
            # an evaluated agent meets faults no training schedule draws (orchestrator/split.py)
            self.schedule_profile = self.schedule_profile.model_copy(update={"split": "heldout"})
        if not counterfactual and self._evaluation_key is not None:
            raise ValueError(
                "counterfactual=False is for training: an evaluated run is scored whole"
            )
        self.counterfactual = bool(counterfactual)
        self.noise_profile = noise_profile_from(noise)
        self.action_space = ToolCalls(MAX_CALLS)
        self.observation_space = spaces.Dict(
            {
                "time": spaces.Box(
                    low=EPOCH,
                    high=EPOCH + WARMUP_S + self.schedule_profile.duration_s + 1200
                    if self.live is None
                    else 2**40,  # a live run's clock is the wall clock
                    shape=(),
                    dtype=np.int64,
                ),
                "invocation": spaces.Discrete(self.n_invocations + 1),
                "alerts": text(ALERTS_CHARS),
                "tool_results": text(RESULTS_CHARS),
                "incidents": text(INCIDENTS_CHARS),
                "notes": text(NOTES_CHARS),
            }
        )
        self.backend: Any = None
        self._history = AlertHistory()
        self._open: dict[str, Any] | None = None

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        super().reset(seed=seed)
        run_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self.run_seed = run_seed
        # the world (schedule, deploys, shas, noise) is drawn from this; in evaluation mode it
        # comes from the key too, and it is never shown or recorded
        self._world_seed = world = world_seed(
            self.release, self.app, run_seed, self._evaluation_key
        )
        prof = self.schedule_profile
        custom = custom_schedule(self.app, world, self.release, (options or {}).get("faults"), prof)
        # the previous episode ends: a live one's injections are reverted, a simulated one's
        # telemetry is let go (its pages serve this episode's)
        self.close()
        if self.live is not None:
            self.live_profile = prof
            self.backend = b = live_backend(self, world, prof, custom)
            prof = self.live_profile
        else:
            sched = custom if custom is not None else schedule(self.app, world, self.release, prof)
            self.backend = b = SimBackend(
                self.app,
                world,
                release=self.release,
                scoring=self.scoring,
                sched=sched,
                noise=self.noise_profile,
            )
        b.advance_to(b.episode_start)
        from sre_gym import __version__

        self.evidence = Evidence(
            manifest={
                "format": "sre_gym.bundle/1",
                "release": self.release,
                "app": self.app,
                "seed": run_seed,
                "package_version": __version__,
                "env": {
                    "id": "SREMarathon-v0",
                    "invocation_s": INVOCATION_S,
                    "budget_s": BUDGET_S,
                    "invocations": self.n_invocations,
                    "profile": self.profile,
                    "schedule_profile": prof.model_dump(mode="json"),
                    "noise_profile": self.noise_profile.model_dump(mode="json"),
                    **({} if self.counterfactual else {"counterfactual": False}),
                    "reward": self.reward,
                },
                "scoring": self.scoring.to_dict(),
                "t0": b.t0,
                "tick_s": b.tick_s,
                "episode_start": b.episode_start,
                "episode_end": b.episode_end,
                "inject_end": b.episode_start + b.schedule.inject_s,
                "n_faults": len(b.schedule.faults),
                "schedule": "custom" if custom is not None else "seeded",
                "evaluation": self.evaluation,
                **({"backend": "live", "noaction": None} if self.live is not None else {}),
            }
        )
        self._drain()
        self.toolbox = Toolbox(b, self.evidence, profile=self.profile)
        self._open = None
        self.invocation = 0
        self.notes = ""
        self._history = AlertHistory()  # (alert ids restart every episode)
        self.last_results: list[dict] = []
        self.score_now = 0.0
        self.scores_now = {"marathon_score": 0.0, "net_score": 0.0}
        self._acted = False
        self.scorecard: dict | None = None
        self.bundle_path: str | None = None
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        calls, notes, usage, err = parse_action(action)
        if self._open is None:
            self.begin_invocation(n_calls=len(calls))
        if err is not None:
            self._open["results"].append({"ok": False, "error": err})
        if usage is not None:
            self.record_usage(usage)
        if notes is not None:
            self.set_notes(notes)
        for c in calls[:MAX_CALLS]:
            self.call(c)
        if len(calls) > MAX_CALLS:
            self._open["results"].append(
                {
                    "ok": False,
                    "error": f"only the first {MAX_CALLS} calls of an invocation run; {len(calls) - MAX_CALLS} were dropped",
                }
            )
        return self.end_invocation()

    # ------------------------------------------------------------------ invocation API
    def _check_running(self) -> None:
        if getattr(self, "backend", None) is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.invocation >= self.n_invocations:
            raise gym.error.ResetNeeded("the episode is over; call reset()")

    def begin_invocation(self, n_calls: int | None = None) -> None:
        """Open the current invocation (recorded as evidence). ``n_calls`` is how many calls the
        action holds; without it the calls are counted as they are made."""
        self._check_running()
        if self._open is not None:
            raise RuntimeError("an invocation is already open; call end_invocation() first")
        t_start = self.backend.episode_start + INVOCATION_S * self.invocation
        ev = self.evidence.add("invocation", t_start, n=self.invocation, calls=n_calls or 0)
        self._open = {
            "t_start": t_start,
            "cursor": t_start,
            "results": [],
            "event": ev,
            "count": n_calls is None,
        }

    @property
    def invocation_open(self) -> bool:
        """Whether an invocation has begun and not yet ended."""
        return getattr(self, "_open", None) is not None

    @property
    def budget_left(self) -> float:
        """Seconds of the current invocation's budget that remain (the full budget if none is open)."""
        if self._open is None:
            return float(BUDGET_S)
        return float(self._open["t_start"] + BUDGET_S - self._open["cursor"])

    @property
    def clock(self) -> float:
        """Simulated time at which the next call of the current invocation would run."""
        if self._open is not None:
            return float(self._open["cursor"])
        return float(self.backend.episode_start + INVOCATION_S * self.invocation)

    @property
    def invocation_results(self) -> list[dict]:
        """Results so far in the open invocation (or of the last one), in order."""
        return list(self._open["results"]) if self._open is not None else list(self.last_results)

    def call(self, call: Any) -> dict[str, Any]:
        """Run one tool call at the current point of the open invocation; returns its result."""
        if self._open is None:
            self.begin_invocation()
        op = self._open
        if op["count"]:
            op["event"]["calls"] += 1
        self.backend.advance_to(op["cursor"])
        out, dur = self.toolbox.execute(
            call, op["cursor"], self.invocation, op["t_start"] + BUDGET_S - op["cursor"]
        )
        op["cursor"] += dur
        if isinstance(call, Invalid):
            name = call.tool if isinstance(call.tool, str) else None
        else:
            name = (
                call.get("tool")
                if isinstance(call, dict) and isinstance(call.get("tool"), str)
                else None
            )
        result = {"tool": name[:64] if name else None, **out}
        op["results"].append(result)
        return result

    def set_notes(self, notes: str) -> None:
        """Rewrite the persistent workspace (shown back in every observation)."""
        self.notes = str(notes)[:NOTES_CHARS]

    def record_usage(self, usage: Any) -> str | None:
        """Record model usage for the cost metrics; returns an error message if it is malformed."""
        self._check_running()
        t = (
            self._open["t_start"]
            if self._open is not None
            else self.backend.episode_start + INVOCATION_S * self.invocation
        )
        err = None
        if not isinstance(usage, dict):
            err = '"usage" must be an object'
        else:
            u = {
                k: usage.get(k, 0)
                for k in ("model_calls", "input_tokens", "output_tokens", "dollars")
            }
            if all(
                isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                for v in u.values()
            ):
                self.evidence.add("usage", t, **u)
            else:
                err = '"usage" values must be non-negative numbers'
        if err is not None and self._open is not None:
            self._open["results"].append({"ok": False, "error": err})
        return err

    def record_model(self, exchanges: list[dict[str, Any]]) -> None:
        """Keep an LLM agent's model exchanges of this invocation in the evidence (the bundle's
        transcript; scoring never reads them). Each must be a JSON object."""
        self._check_running()
        t = (
            self._open["t_start"]
            if self._open is not None
            else self.backend.episode_start + INVOCATION_S * self.invocation
        )
        for x in exchanges:
            if not isinstance(x, dict):
                raise TypeError(f"a model exchange must be a dict, got {type(x).__name__}")
            self.evidence.add("model", t, invocation=self.invocation, **x)

    def end_invocation(self) -> tuple[dict, float, bool, bool, dict]:
        """Close the invocation: advance the world to the next one, score, and observe."""
        if self._open is None:
            self.begin_invocation(n_calls=0)
        op, self._open = self._open, None
        b = self.backend
        self.last_results = op["results"]
        self.invocation += 1
        t_end = op["t_start"] + INVOCATION_S
        b.advance_to(t_end)
        self._drain()
        terminated = self.invocation >= self.n_invocations
        if terminated:
            self._finish()
        else:
            self._counterfactual()
        now = None  # both scores as of t_end, where this step pays them
        if terminated:
            self.scorecard = score(self.evidence, cutoff=t_end, config=self.scoring)
            now = {k: self.scorecard[k] for k in REWARDS.values()}
            if self.bundle_dir is not None:
                from sre_gym.bundle import write_bundle

                self.bundle_path = str(write_bundle(self.evidence, self.bundle_dir))
        elif not self.evaluation:
            # evaluation mode pays the whole score at the last step: no online oracle to probe
            now = scores(self.evidence, cutoff=t_end, config=self.scoring)
        reward = 0.0
        if now is not None:
            self.scores_now = now
            reward = now[self._reward_key] - self.score_now
            self.score_now = now[self._reward_key]
        info = self._info()
        info["budget_used_s"] = float(op["cursor"] - op["t_start"])
        return self._obs(), float(reward), terminated, False, info

    def alerts_text(self) -> str:
        """``alerts_view()`` as the observation's JSON text."""
        return self._history.text(self.backend, self._invocation_start())

    def alerts_view(self, copy: bool = True) -> list[dict[str, Any]]:
        """The alert history as the observation shows it (as of the current invocation's start).
        ``copy=False`` hands out the env's own list, to read and not to change: the numeric
        wrappers read it several times a step, and Train Ticket's history reaches 3,000 alerts."""
        shown = self._history.entries(self.backend, self._invocation_start())
        return [dict(a) for a in shown] if copy else shown

    def _invocation_start(self) -> float:
        return self.backend.episode_start + INVOCATION_S * self.invocation

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None or self.backend is None:
            return None
        if self.render_mode == "rgb_array":
            b = self.backend
            now = b.episode_start + INVOCATION_S * self.invocation
            return picture(b.topology(), self.alerts_view(), b.episode_start, b.episode_end, now)
        alerts = self.backend.alerts(self.backend.now)
        firing = [a for a in alerts if a["state"] == "firing"]
        head = f"SREMarathon-v0 {self.app} invocation {self.invocation}/{self.n_invocations}"
        if not self.evaluation:
            head += f" seed={self.run_seed} score={self.score_now:.2f}"
        lines = [
            head,
            f"alerts: {len(firing)} firing, {len(alerts)} in history; open incidents: {len(self.toolbox.open_incidents())}",
        ]
        lines += [
            f"  {a['id']} {a['name']} {json.dumps(a['labels'], sort_keys=True)}"
            for a in firing[:20]
        ]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
        self.backend = None
        self._history = AlertHistory()  # (it holds the backend: let the episode go)

    # ------------------------------------------------------------------ helpers
    def _drain(self) -> None:
        for e in self.backend.drain_evidence():
            self.evidence.add(
                e["type"], e["t"], **{k: v for k, v in e.items() if k not in ("type", "t")}
            )
        self.evidence.arrays.update(self.backend.evidence_arrays())

    def _counterfactual(self, final: bool = False) -> None:
        """Attach the no-action run's entry traffic once the run has intervened (net_score's
        degradation cost reads it at every step from then on; before, the run is its own).
        ``final``: the episode is over, so a run that never intervened is its own no-action run."""
        ev = self.evidence
        if not self.counterfactual:
            return  # the trainer asked for none: the degradation ratio and its cost are None
        acted = self._acted or any(e["type"] == "intervention" for e in ev.events)
        self._acted = acted
        if self.live is not None and self.live.get("noaction_bundle"):
            # read once the run acts, and again at the end (the recorded run padded to full length)
            if final or (acted and "entry_noaction" not in ev.arrays):
                n = len(ev.arrays["entry"])
                ev.arrays["entry_noaction"], ev.manifest["noaction"] = live_noaction(
                    self.live, ev.manifest, n
                )
        elif self.live is not None and acted:
            pass  # no recorded no-op run named: no counterfactual (the degradation ratio is None)
        elif acted:
            if "entry_noaction" not in ev.arrays:
                ev.arrays["entry_noaction"] = noaction_entry(
                    self.release,
                    self.app,
                    self._world_seed,
                    self.backend.schedule,
                    self.noise_profile,
                )
        elif final:
            ev.arrays["entry_noaction"] = ev.arrays["entry"].copy()

    def _finish(self) -> None:
        """Attach the no-action counterfactual; a run without executed interventions is its own."""
        self._counterfactual(final=True)

    def _obs(self) -> dict[str, Any]:
        b = self.backend
        now = b.episode_start + INVOCATION_S * self.invocation
        alerts = self.alerts_text()
        return {
            "time": np.array(int(now), dtype=np.int64),
            "invocation": int(self.invocation),
            "alerts": alerts,
            "tool_results": results_text(self.last_results),
            "incidents": self.incidents_text(),
            "notes": self.notes_text(),
        }

    def incidents_text(self) -> str:
        """The open incidents as the observation shows them."""
        return dump(
            self.toolbox.open_incidents() if hasattr(self, "toolbox") else [], INCIDENTS_CHARS
        )

    def notes_text(self) -> str:
        """The persistent notes as the observation shows them (printable ASCII)."""
        return json.dumps(self.notes, ensure_ascii=True)[1:-1][:NOTES_CHARS]

    @property
    def evaluation(self) -> bool:
        """Whether the env runs in evaluation mode (an evaluation key is in force)."""
        return self._evaluation_key is not None

    def info_at(self, t: float) -> dict[str, Any]:
        """The ``info`` of a step ending at ``t``: time and invocation, plus in training mode the
        seed and the score so far (never in evaluation mode; see ``HIDDEN_INFO``)."""
        info: dict[str, Any] = {"time": int(t), "invocation": int(self.invocation)}
        if not self.evaluation:
            info["score"] = float(self.score_now)
            info["scores"] = {k: float(v) for k, v in self.scores_now.items()}
            info["seed"] = int(self.run_seed)
        return info

    def _info(self) -> dict[str, Any]:
        b = self.backend
        info = self.info_at(b.episode_start + INVOCATION_S * self.invocation)
        if self.scorecard is not None:
            info["scorecard"] = json.loads(json.dumps(self.scorecard))
        if self.bundle_path is not None:
            info["bundle"] = self.bundle_path
        return info


def results_text(results: list[dict]) -> str:
    """Tool results as the observation shows them: JSON, each result's payload cut to RESULT_CHARS."""
    shown = [
        r
        if len(json.dumps(r, default=str)) <= RESULT_CHARS
        else {
            **{k: v for k, v in r.items() if k != "result"},
            "result": short(r.get("result"), RESULT_CHARS),
        }
        for r in results
    ]
    return dump(shown, RESULTS_CHARS)
