"""SREMarathon-v0: one seeded marathon of continuous, overlapping, change-driven faults."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym.backends.sim import SimBackend
from sre_gym.bundle.evidence import Evidence
from sre_gym.catalogs import APPS, RELEASE
from sre_gym.envs.spaces import ToolCalls, text
from sre_gym.scoring.config import ScoringConfig
from sre_gym.scoring.scorer import score
from sre_gym.sim.cluster import EPISODE_S
from sre_gym.sim.state import EPOCH
from sre_gym.tools.dispatch import RESULT_CHARS, Toolbox, short
from sre_gym.tools.specs import BUDGET_S

INVOCATION_S = 120
N_INVOCATIONS = EPISODE_S // INVOCATION_S  # 45
MAX_CALLS = 64
ALERTS_CHARS = 1 << 21
RESULTS_CHARS = 1 << 21
INCIDENTS_CHARS = 1 << 20
NOTES_CHARS = 1 << 16
_NOACTION_CACHE: dict[tuple[str, str, int], np.ndarray] = {}


def noaction_entry(release: str, app: str, seed: int) -> np.ndarray:
    """Entry-point traffic of the same marathon with nobody acting (cached per process)."""
    key = (release, app, int(seed))
    arr = _NOACTION_CACHE.get(key)
    if arr is None:
        b = SimBackend(app, seed, release=release)
        b.advance_to(b.episode_end)
        arr = _NOACTION_CACHE[key] = b.cluster.rec_entry.copy()
    return arr


def parse_action(action: Any) -> tuple[list[Any], str | None, dict | None, str | None]:
    """(calls, notes, usage, error) from any action the agent sends."""
    if isinstance(action, bytes | bytearray):
        try:
            action = action.decode("utf-8")
        except UnicodeDecodeError:
            return [], None, None, "the action is bytes that are not UTF-8 text"
    if isinstance(action, str):
        if len(action) > 1_000_000:
            return (
                [],
                None,
                None,
                f"the action is {len(action)} characters long; the limit is 1000000",
            )
        try:
            action = json.loads(action)
        except (json.JSONDecodeError, RecursionError) as e:
            return [], None, None, f"the action is not valid JSON: {str(e)[:200]}"
    notes = usage = None
    if isinstance(action, dict):
        if "tool" in action:
            action = [action]
        else:
            unknown = set(action) - {"calls", "notes", "usage"}
            if unknown:
                return (
                    [],
                    None,
                    None,
                    f"unexpected keys in action: {', '.join(sorted(str(k)[:32] for k in unknown))} (use calls, notes, usage)",
                )
            notes = action.get("notes")
            usage = action.get("usage")
            if notes is not None and not isinstance(notes, str):
                return [], None, None, '"notes" must be a string'
            if usage is not None and not isinstance(usage, dict):
                return [], None, None, '"usage" must be an object'
            action = action.get("calls", [])
    if action is None:
        return [], notes, usage, None
    if isinstance(action, tuple | np.ndarray):
        action = list(action)
    if not isinstance(action, list):
        return [], notes, usage, f"an action is a list of tool calls, got {type(action).__name__}"
    return action, notes, usage, None


class SREMarathonEnv(gym.Env):
    """
    ## Description

    An SRE agent operates a microservice application (Online Boutique) on a simulated Kubernetes cluster
    for a 90-minute marathon. A seeded orchestrator injects about sixty overlapping faults over the
    first 60 minutes with increasing intensity (bad commits and config changes through the build
    pipeline, resource, network, dependency and node trouble), each active for 4-12 minutes unless
    repaired; the last 30 minutes bring no new faults. The agent never learns when a fault starts: it
    sees alerts that Prometheus rules raise from telemetry, and must group them into incidents, name the
    root-cause service and responsible artifact, and repair through guarded tools.

    ## Action Space

    `ToolCalls`: one step is one agent invocation, and the action is the list of tool calls made in it,
    `[{"tool": "get_alerts", "args": {}}, ...]` (or the same as a JSON string, or
    `{"calls": [...], "notes": "...", "usage": {...}}`). Calls run in order on the simulated clock within
    a 110 s budget (each tool has a duration); interventions take effect when they run. The 16 tools
    and their JSON Schemas are in `sre_gym.tools.TOOLS`. A malformed call gets an error result and
    changes nothing; the step never raises on it.

    ## Observation Space

    `Dict` of `time` (simulated unix seconds), `invocation` (0-45), and printable-ASCII JSON text:
    `alerts` (cumulative alert history: id, name, severity, state, labels, starts/ends, summary),
    `tool_results` (results of the previous step's calls, in order), `incidents` (open incidents the
    agent reported) and `notes` (the agent's persistent workspace). Nothing in it names a fault.

    ## Rewards

    The increment of the Marathon-Score since the previous step: per fault, credit 1/3 each for
    correlation, localization and repair (staged), averaged over every scheduled fault, x100, minus 1 per
    blocked forbidden operation. Rewards of an episode sum to its final Marathon-Score.

    ## Starting State

    A healthy application after a 10-minute warm-up (so rate windows and `for:` clauses have data).

    ## Episode End

    Terminates after 45 invocations (90 simulated minutes). There is no truncation. The last step's
    `info["scorecard"]` holds every metric; with `bundle_dir` set, `info["bundle"]` is the sealed bundle.

    ## Arguments

    `app` ("online-boutique"), `bundle_dir` (write a sealed evidence bundle there), `render_mode`
    ("ansi" or None), `scoring` (a `ScoringConfig`).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        app: str = "online-boutique",
        bundle_dir: str | None = None,
        render_mode: str | None = None,
        scoring: ScoringConfig | None = None,
    ) -> None:
        if app not in APPS:
            raise ValueError(f"unknown app {app!r}; known apps: {', '.join(APPS)}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"unsupported render_mode {render_mode!r}; use 'ansi' or None")
        self.app = app
        self.release = RELEASE
        self.bundle_dir = bundle_dir
        self.render_mode = render_mode
        self.scoring = scoring or ScoringConfig()
        self.action_space = ToolCalls(MAX_CALLS)
        self.observation_space = spaces.Dict(
            {
                "time": spaces.Box(low=EPOCH, high=EPOCH + 7200, shape=(), dtype=np.int64),
                "invocation": spaces.Discrete(N_INVOCATIONS + 1),
                "alerts": text(ALERTS_CHARS),
                "tool_results": text(RESULTS_CHARS),
                "incidents": text(INCIDENTS_CHARS),
                "notes": text(NOTES_CHARS),
            }
        )
        self.backend: SimBackend | None = None

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict, dict]:
        super().reset(seed=seed)
        run_seed = int(seed) if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        self.run_seed = run_seed
        self.backend = b = SimBackend(self.app, run_seed, release=self.release)
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
                    "invocations": N_INVOCATIONS,
                },
                "scoring": self.scoring.to_dict(),
                "t0": b.t0,
                "tick_s": b.tick_s,
                "episode_start": b.episode_start,
                "episode_end": b.episode_end,
                "n_faults": len(b.schedule.faults),
            }
        )
        self._drain()
        self.toolbox = Toolbox(b, self.evidence)
        self.invocation = 0
        self.notes = ""
        self.last_results: list[dict] = []
        self.score_now = 0.0
        self.scorecard: dict | None = None
        self.bundle_path: str | None = None
        return self._obs(), self._info()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.backend is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self.invocation >= N_INVOCATIONS:
            raise gym.error.ResetNeeded("the episode is over; call reset()")
        b, ev = self.backend, self.evidence
        t_start = b.episode_start + INVOCATION_S * self.invocation
        calls, notes, usage, err = parse_action(action)
        ev.add("invocation", t_start, n=self.invocation, calls=len(calls))
        results: list[dict] = []
        if err is not None:
            results.append({"ok": False, "error": err})
        if usage is not None:
            u = {
                k: usage.get(k, 0)
                for k in ("model_calls", "input_tokens", "output_tokens", "dollars")
            }
            if all(
                isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
                for v in u.values()
            ):
                ev.add("usage", t_start, **u)
            else:
                results.append(
                    {"ok": False, "error": '"usage" values must be non-negative numbers'}
                )
        if notes is not None:
            self.notes = notes[:NOTES_CHARS]
        cursor = t_start
        for call in calls[:MAX_CALLS]:
            b.advance_to(cursor)
            out, dur = self.toolbox.execute(
                call, cursor, self.invocation, t_start + BUDGET_S - cursor
            )
            cursor += dur
            name = (
                call.get("tool")
                if isinstance(call, dict) and isinstance(call.get("tool"), str)
                else None
            )
            results.append({"tool": name[:64] if name else None, **out})
        if len(calls) > MAX_CALLS:
            results.append(
                {
                    "ok": False,
                    "error": f"only the first {MAX_CALLS} calls of an invocation run; {len(calls) - MAX_CALLS} were dropped",
                }
            )
        self.last_results = results
        self.invocation += 1
        t_end = t_start + INVOCATION_S
        b.advance_to(t_end)
        self._drain()
        terminated = self.invocation >= N_INVOCATIONS
        if terminated:
            self._finish()
        card = score(self.evidence, cutoff=t_end, config=self.scoring)
        reward = card["marathon_score"] - self.score_now
        self.score_now = card["marathon_score"]
        if terminated:
            self.scorecard = card
            if self.bundle_dir is not None:
                from sre_gym.bundle import write_bundle

                self.bundle_path = str(write_bundle(self.evidence, self.bundle_dir))
        info = self._info()
        info["budget_used_s"] = float(cursor - t_start)
        return self._obs(), float(reward), terminated, False, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.backend is None:
            return None
        alerts = self.backend.alerts(self.backend.now)
        firing = [a for a in alerts if a["state"] == "firing"]
        lines = [
            f"SREMarathon-v0 {self.app} seed={self.run_seed} invocation {self.invocation}/{N_INVOCATIONS} "
            f"score={self.score_now:.2f}",
            f"alerts: {len(firing)} firing, {len(alerts)} in history; open incidents: {len(self.toolbox.open_incidents())}",
        ]
        lines += [
            f"  {a['id']} {a['name']} {json.dumps(a['labels'], sort_keys=True)}"
            for a in firing[:20]
        ]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        self.backend = None

    # ------------------------------------------------------------------ helpers
    def _drain(self) -> None:
        for e in self.backend.drain_evidence():
            self.evidence.add(
                e["type"], e["t"], **{k: v for k, v in e.items() if k not in ("type", "t")}
            )
        self.evidence.arrays.update(self.backend.evidence_arrays())

    def _finish(self) -> None:
        """Attach the no-action counterfactual; a run without executed interventions is its own."""
        ev = self.evidence
        if any(e["type"] == "intervention" for e in ev.events):
            ev.arrays["entry_noaction"] = noaction_entry(self.release, self.app, self.run_seed)
        else:
            ev.arrays["entry_noaction"] = ev.arrays["entry"].copy()

    def _obs(self) -> dict[str, Any]:
        b = self.backend
        now = b.episode_start + INVOCATION_S * self.invocation
        alerts = [
            {
                k: a[k]
                for k in (
                    "id",
                    "name",
                    "severity",
                    "state",
                    "labels",
                    "starts_at",
                    "ends_at",
                    "summary",
                )
            }
            for a in b.alerts(now)
        ]
        results = [
            r
            if len(json.dumps(r, default=str)) <= RESULT_CHARS
            else {
                **{k: v for k, v in r.items() if k != "result"},
                "result": short(r.get("result"), RESULT_CHARS),
            }
            for r in self.last_results
        ]
        return {
            "time": np.array(int(now), dtype=np.int64),
            "invocation": int(self.invocation),
            "alerts": _dump(alerts, ALERTS_CHARS),
            "tool_results": _dump(results, RESULTS_CHARS),
            "incidents": _dump(
                self.toolbox.open_incidents() if hasattr(self, "toolbox") else [], INCIDENTS_CHARS
            ),
            "notes": json.dumps(self.notes, ensure_ascii=True)[1:-1][:NOTES_CHARS],
        }

    def _info(self) -> dict[str, Any]:
        b = self.backend
        info: dict[str, Any] = {
            "time": int(b.episode_start + INVOCATION_S * self.invocation),
            "invocation": int(self.invocation),
            "score": float(self.score_now),
            "seed": int(self.run_seed),
        }
        if self.scorecard is not None:
            info["scorecard"] = json.loads(json.dumps(self.scorecard))
        if self.bundle_path is not None:
            info["bundle"] = self.bundle_path
        return info


def _dump(x: Any, limit: int) -> str:
    s = json.dumps(x, sort_keys=True, ensure_ascii=True, default=str, separators=(",", ":"))
    if len(s) > limit:
        s = s[: limit - 64] + f'..."[truncated {len(s) - limit + 64} characters]"'
    return s
