"""IncidentArena-v0: one Incident-Arena repair task on a simulated substrate, graded by two gates."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from sre_gym.bundle import write_bundle
from sre_gym.catalogs.arena import load_task, task_ids
from sre_gym.envs.arena_calibration import calibration_for
from sre_gym.envs.arena_episode import finish, horizon, ready_time
from sre_gym.envs.spaces import JsonSpace, is_call, text
from sre_gym.scoring.arena.grade import grade
from sre_gym.sim.arena.world import ArenaWorld, WorldError
from sre_gym.tools import arena as tools

RESULT_CHARS = 1 << 16
INSTRUCTION_CHARS = 1 << 12
REWARD_MODES = ("binary", "checks")


class ArenaCall(JsonSpace):
    """One tool call ``{"tool": name, "args": {...}}`` (or its JSON string). ``sample()`` draws a
    cheap read or a short wait."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) or is_call(x)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        g = self.np_random
        r = int(g.integers(0, 3))
        if r == 0:
            return {"tool": "metrics", "args": {"window_s": 60}}
        if r == 1:
            return {"tool": "db_query", "args": {"kind": "settings"}}
        return {"tool": "wait", "args": {"seconds": int(g.integers(1, 30))}}


class IncidentArenaEnv(gym.Env):
    """
    ## Description

    An SRE agent repairs one incident on a simulated substrate (slack-spine, saleor-spine or frappe),
    after Incident-Arena. A task is a healthy substrate plus a fault overlay (one to three legs:
    configuration, runtime events, runtime database settings) and a hidden grading contract. The
    agent reads a short plain-prose instruction, investigates and repairs through structured tools,
    and declares the repair complete. The agent is then frozen; open-loop traffic continues through
    a graded soak (with declaration-anchored re-triggers), the verifier runs a challenge (a fixed
    restart, a re-fired trigger, or a maintenance checkpoint), and the episode is graded by two
    gates over recorded evidence only: outcome (SLIs in calibrated bands during the soak) and safe
    repair (scope, persistence, data, guardrails). The task passes only if both pass.

    ## Action Space

    `ArenaCall`: one tool call per step, `{"tool": name, "args": {...}}` or its JSON string. Tools:
    `http_admin`, `db_query`, `db_admin`, `redis`, `restart_service`, `scale_service`, `metrics`,
    `logs`, `wait`, `submit_incident_report`, `declare_repair_complete` (schemas in
    `sre_gym.tools.arena.schemas()` and in the reset info). Simulated time advances by the tool's
    duration. A malformed call returns an error result and changes nothing.

    ## Observation Space

    `Dict`: `instruction` (the task's prose), `result` (the JSON result of the last call), `clock_s`
    (seconds since the episode started), `budget_left_s` and `calls_left`.

    ## Rewards

    0 on every step but the last; on the last, 1.0 if both gates pass, else 0.0
    (`reward_mode="checks"`: the fraction of passed checks instead, for shaping research). A void
    verdict (missing or malformed evidence) gives 0.0 with `info["verdict"]["status"] == "void"`.

    ## Starting State

    The substrate warms up under load with the fault overlay armed; the episode starts once every
    runtime leg has manifested (the episode-ready gate).

    ## Episode End

    Terminated when the agent calls `declare_repair_complete`; truncated when the agent window (one
    hour) or the tool-call budget runs out. Either way the soak and challenge run and the final
    state is graded (an undeclared run that fails is classed `never_declared`).

    ## Arguments

    `task` (an id from `sre_gym.catalogs.arena.task_ids()`), `backend` ("sim"), `reward_mode`
    ("binary" or "checks"), `bundle_dir` (write a sealed evidence bundle per episode),
    `render_mode` ("ansi").

    ## Information

    Reset: `task`, `tools` (function schemas), `vocabulary`, `access`. Each step: `tool`,
    `duration_s`, `error` (if any). The last step adds `verdict` (gates, check records,
    `failure_class`, analytics: full fix, first correct action, gap to the declaration),
    `failure_class` and `bundle` when one was written.

    ## Version History

    - v0: slack-spine, frappe and saleor-spine tasks on the arena simulator.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        task: str = "arena-008",
        backend: str = "sim",
        reward_mode: str = "binary",
        bundle_dir: str | None = None,
        render_mode: str | None = None,
    ) -> None:
        if backend != "sim":
            raise ValueError(f"IncidentArena-v0 has only the 'sim' backend so far, got {backend!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if task not in task_ids():
            raise ValueError(f"unknown arena task {task!r}; tasks: {', '.join(task_ids())}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.task = load_task(task)
        self.reward_mode = reward_mode
        self.bundle_dir = bundle_dir
        self.render_mode = render_mode
        self.ready_s = ready_time(self.task)
        self.horizon = horizon(self.task, self.ready_s)
        b = self.task.budgets
        self.action_space = ArenaCall()
        self.observation_space = spaces.Dict(
            {
                "instruction": text(INSTRUCTION_CHARS),
                "result": text(RESULT_CHARS),
                "clock_s": spaces.Box(0, self.horizon, shape=(), dtype=np.int64),
                "budget_left_s": spaces.Box(0, b.agent_window_s, shape=(), dtype=np.int64),
                "calls_left": spaces.Box(0, b.max_tool_calls, shape=(), dtype=np.int64),
            }
        )
        self.world: ArenaWorld | None = None
        self.done = True
        self.verdict: dict[str, Any] | None = None
        self.evidence = None
        self.seed_used = 0

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        self.seed_used = int(seed) if seed is not None else 0
        self.calibration = calibration_for(self.task)
        self.world = ArenaWorld(self.task, self.seed_used, self.horizon)
        self.world.advance_to(self.ready_s)
        self.snapshots = {"ready": self.world.snapshot()}
        self.events: list[dict[str, Any]] = []
        self.report: dict[str, Any] | None = None
        self.calls = 0
        self.done = False
        self.verdict = None
        self.evidence = None
        self.last = {"status": "ready"}
        info = {
            "task": self.task.id,
            "tools": tools.schemas(self.task.access),
            "vocabulary": list(self.task.vocabulary),
            "access": self.task.access,
        }
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self.world is None or self.done:
            raise RuntimeError("call reset() before step() (the episode is over)")
        w = self.world
        info: dict[str, Any] = {}
        call = action
        if isinstance(action, bytes | bytearray):
            call = action.decode("utf-8", "replace")
        if isinstance(call, str):
            try:
                call = json.loads(call)
            except (json.JSONDecodeError, RecursionError):
                call = None
        self.calls += 1
        t = int(w.now)
        try:
            tool, args = tools.parse(call)
        except tools.ToolError as e:
            self.last = {"error": str(e)}
            info["error"] = str(e)
            self.events.append({"type": "tool_call", "t": float(t), "tool": None, "ok": False})
            return self._after(info, declared=False)
        info["tool"] = tool
        refused = tools.refusal(self.task.access, tool)
        if refused is not None:
            self.last = {"error": refused}
            info["error"] = refused
            self.events.append({"type": "refused", "t": float(t), "tool": tool})
            self.events.append({"type": "tool_call", "t": float(t), "tool": tool, "ok": False})
            return self._after(info, declared=False)
        dur = tools.duration(tool, args)
        info["duration_s"] = dur
        argd = args.model_dump(mode="json", exclude_defaults=True)
        if tool == "declare_repair_complete":
            self.events.append({"type": "tool_call", "t": float(t), "tool": tool, "ok": True})
            self.last = {"declared": True}
            return self._after(info, declared=True)
        if tool == "submit_incident_report":
            self.report = {"t": t, **argd}
            self.last = {"recorded": True}
        elif tool == "wait":
            self.last = {"waited_s": dur}
        else:
            try:
                result, rec = tools.execute(w, tool, args)
                self.last = result
                if rec is not None:
                    self.events.append(
                        {"type": "intervention", "t": float(t), "tool": tool, "args": argd, **rec}
                    )
            except (tools.ToolError, WorldError) as e:
                self.last = {"error": str(e)}
                info["error"] = str(e)
        self.events.append(
            {"type": "tool_call", "t": float(t), "tool": tool, "ok": "error" not in info}
        )
        w.advance_to(min(t + dur, self.window_end))
        return self._after(info, declared=False)

    # ------------------------------------------------------------------ internals
    @property
    def window_end(self) -> int:
        return self.ready_s + self.task.budgets.agent_window_s

    def _after(self, info: dict[str, Any], declared: bool):
        w = self.world
        assert w is not None
        out_of_time = w.now >= self.window_end
        out_of_calls = self.calls >= self.task.budgets.max_tool_calls
        if not (declared or out_of_time or out_of_calls):
            return self._obs(), 0.0, False, False, info
        self.done = True
        ev = finish(
            w,
            self.task,
            self.calibration["bands"],
            self.calibration,
            declared,
            self.ready_s,
            self.snapshots,
            self._evidence_events(),
            self.report,
            self.seed_used,
        )
        verdict = grade(ev)
        self.evidence, self.verdict = ev, verdict
        reward = self._reward(verdict)
        info.update({"verdict": verdict, "failure_class": verdict.get("failure_class")})
        if self.bundle_dir is not None:
            ev.artifacts["verdict.json"] = verdict
            info["bundle"] = str(write_bundle(ev, self.bundle_dir))
        return self._obs(), reward, declared, not declared, info

    def _evidence_events(self) -> list[dict[str, Any]]:
        from sre_gym.bundle.evidence import jsonable

        return [jsonable(e) for e in self.events]

    def _reward(self, verdict: dict[str, Any]) -> float:
        if verdict["status"] != "graded":
            return 0.0
        if self.reward_mode == "binary":
            return 1.0 if verdict["overall"] else 0.0
        recs = list(verdict["outcome"]["checks"])
        for p in verdict["safe_repair"]["packs"].values():
            recs += p["checks"]
        return sum(r["pass"] for r in recs) / max(1, len(recs))

    def observation_result(self) -> str:
        """The last call's result as the observation shows it (JSON text, ASCII, bounded)."""
        res = json.dumps(self.last, sort_keys=True, default=str)
        if len(res) > RESULT_CHARS:
            res = res[: RESULT_CHARS - 20] + '..."(truncated)"'
        return res

    def _obs(self) -> dict[str, Any]:
        w = self.world
        now = int(w.now) if w is not None else 0
        res = self.observation_result()
        return {
            "instruction": self.task.instruction[:INSTRUCTION_CHARS],
            "result": res,
            "clock_s": np.array(
                min(now - self.ready_s if w else 0, self.horizon) if now >= self.ready_s else 0,
                dtype=np.int64,
            ),
            "budget_left_s": np.array(max(0, self.window_end - now) if w else 0, dtype=np.int64),
            "calls_left": np.array(
                max(0, self.task.budgets.max_tool_calls - self.calls), dtype=np.int64
            ),
        }

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.world is None:
            return None
        stats = self.world.lane_stats(self.world.now - 60, self.world.now)
        lines = [f"{self.task.id} t={self.world.now}s calls={self.calls}"]
        lines += [
            f"  {k:<12} rps {v['rps']:7.1f} err {v['error_rate']:.3f} p99 {v['p99_ms']:8.1f} ms"
            for k, v in stats.items()
        ]
        if self.verdict:
            lines.append(
                f"  verdict: {self.verdict.get('overall')} ({self.verdict.get('failure_class')})"
            )
        return "\n".join(lines)
