"""verifiers 0.4's OpenEnv taskset against ``sre-gym openenv``, with a scripted stand-in model.

verifiers 0.4.0 pins ``mcp==2.0.0`` and ``openai<3``, which the project's ``mcp`` and ``llm``
extras cannot share a virtualenv with, so this script makes a second virtualenv for it
(``--venv``, created once with ``pip install 'verifiers[openenv]==0.4.0'``) and drives the check
from there, as a trainer would: ``sre-gym openenv`` serves on 127.0.0.1 (this virtualenv), the
stand-in model is ``ScriptedChatServer`` on 127.0.0.1, and ``vf-eval`` runs verifiers' own
``openenv`` taskset (``verifiers/v1/tasksets/openenv``) against both.

The stand-in first sends replies that are not valid actions (the project's own ``{"tool",
"args"}`` form, a bare list, prose with embedded JSON, an unknown tool), then plays a simple
policy (marathon: report the first new firing alert's workload, end the invocation; arena: the
task's oracle calls, then declare). It prints, per episode: the steps, the reward verifiers
recorded and the sealed bundle's score (or verdict), the whole episode's prompt size (the
characters of every chat request's messages; tokens estimated at 4 characters each) and the
largest single observation verifiers sent.

    python benchmarks/verifiers_openenv.py                         # both envs, context delta
    python benchmarks/verifiers_openenv.py --env SREMarathon-v0 --context cumulative \\
        --observation-chars 0                                       # the cumulative form
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VERIFIERS = "verifiers[openenv]==0.4.0"
BAD_REPLIES = (
    '{"tool": "get_alerts", "args": {"state": "firing"}}',  # the project's own call form
    '[{"tool_name": "get_alerts", "arguments": {}}]',  # a bare list
    'Let me look at the alerts first: {"tool_name": "get_alerts", "arguments": {}}',  # prose
    '{"type": "call_tool", "tool_name": "drop_tables", "arguments": {}}',  # an unknown tool
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_venv(path: Path) -> Path:
    """The second virtualenv with verifiers 0.4.0 and openenv (made once)."""
    vf = path / "bin" / "vf-eval"
    if not vf.exists():
        subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
        pip = [str(path / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--upgrade", "pip"], check=True)
        subprocess.run([*pip, VERIFIERS], check=True)
    return vf


class StandIn:
    """A scripted model for verifiers' OpenEnv taskset: it reads the observation verifiers sends
    (``{"observation": ..., "action_schema": ...}``) and replies with one action as text."""

    def __init__(self, env: str, task: str, bad: bool = True) -> None:
        self.env, self.task = env, task
        self.bad = BAD_REPLIES if bad else ()
        self.sizes: list[int] = []  # each observation verifiers sent, in characters
        self.reset()

    def reset(self) -> None:
        self.n = 0
        self.reported: set[str] = set()
        self.pending: list[dict[str, Any]] = []
        if self.env == "IncidentArena-v0":
            from sre_gym.agents.arena import oracle_calls
            from sre_gym.catalogs.arena import load_task

            self.pending = list(oracle_calls(load_task(self.task)))

    def __call__(self, req: dict[str, Any]) -> dict[str, Any]:
        msgs = req.get("messages", [])
        users = [m for m in msgs if m.get("role") == "user"]
        if len(users) == 1 and self.n > 0:  # a new episode's first turn
            self.reset()
        text = users[-1]["content"] if users else "{}"
        if isinstance(text, list):
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        self.sizes.append(len(text))
        self.n += 1
        if self.n <= len(self.bad):
            return {"content": self.bad[self.n - 1]}
        obs = json.loads(text).get("observation", {})
        return {"content": json.dumps(self._act(obs))}

    def _act(self, obs: dict[str, Any]) -> dict[str, Any]:
        if self.env == "IncidentArena-v0":
            if self.pending:
                c = self.pending.pop(0)
                return {"type": "call_tool", "tool_name": c["tool"], "arguments": c["args"]}
            return {"type": "call_tool", "tool_name": "declare_repair_complete", "arguments": {}}
        from sre_gym.testing.scripted_model import _workload

        alerts = obs.get("alerts", [])
        if isinstance(alerts, str):  # an earlier server sent the history as JSON text
            alerts = json.loads(alerts)
        if obs.get("tool_name") != "report_incident":
            for a in alerts:
                w = _workload(a.get("labels", {}))
                if a.get("state") == "firing" and w and w not in self.reported:
                    self.reported.add(w)
                    args = {"alert_ids": [a["id"]], "root_cause_services": [w]}
                    return {"type": "call_tool", "tool_name": "report_incident", "arguments": args}
        return {"type": "call_tool", "tool_name": "end_invocation", "arguments": {}}


def run(a: argparse.Namespace, env: str, vf: Path, work: Path) -> dict[str, Any]:
    from sre_gym.testing.scripted_model import ScriptedChatServer

    port = _free_port()
    bundles = work / f"bundles-{env}"
    cmd = [
        sys.executable,
        "-m",
        "sre_gym.cli",
        "openenv",
        "--env",
        env,
        "--schedule",
        "short",
        "--task",
        a.task,
        "--port",
        str(port),
        "--bundle-dir",
        str(bundles),
        "--context",
        a.context,
        "--observation-chars",
        str(a.observation_chars),
    ]
    server_env = dict(os.environ)
    if a.server_src is not None:
        # an earlier tree of sre_gym (say, main before the context budget), with the options it
        # had: a marathon, its schedule, port and bundle directory
        cmd = [*cmd[:4], "--schedule", "short", "--port", str(port), "--bundle-dir", str(bundles)]
        server_env["PYTHONPATH"] = str(a.server_src)
    server = subprocess.Popen(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=server_env, cwd=work
    )
    model = StandIn(env, a.task, bad=not a.well_formed)
    try:
        deadline = time.monotonic() + 120
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(
                    "the OpenEnv server did not start: " + server.stderr.read().decode()
                )
            time.sleep(0.3)
        with ScriptedChatServer(model) as chat:
            out = work / f"out-{env}"
            cfg = work / f"{env}.toml"
            cfg.write_text(vf_config(chat.base_url, f"http://127.0.0.1:{port}", a.seed, out))
            t0 = time.monotonic()
            proc = subprocess.run(
                [str(vf), "@", str(cfg), "--no-rich"],
                env={**os.environ, "SCRIPTED_KEY": "none"},
                capture_output=True,
                text=True,
                timeout=1800,
            )
            wall = time.monotonic() - t0
            requests = list(chat.requests)
    finally:
        server.terminate()
        server.wait(timeout=120)
    if proc.returncode != 0:
        raise SystemExit(
            f"vf-eval failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    traces = [json.loads(line) for p in out.rglob("traces.jsonl") for line in p.open()]
    if os.environ.get("SRE_GYM_TRACES_TO"):  # keep verifiers' traces to read
        Path(os.environ["SRE_GYM_TRACES_TO"]).write_text("\n".join(map(json.dumps, traces)))
    return summarize(env, traces, requests, model.sizes, model.bad, bundles, wall)


def vf_config(model_url: str, env_url: str, seed: int, out: Path) -> str:
    """The vf-eval config: verifiers' built-in openenv taskset on our server, one episode; the
    player runs on this machine (a subprocess runtime: no sandbox service, no tunnel)."""
    return f"""model = "scripted"
num_rollouts = 1
push = false

output_dir = "{out}"

[client]
base_url = "{model_url}"
api_key_var = "SCRIPTED_KEY"

[env.player.runtime]
type = "subprocess"

[env.taskset]
id = "openenv"
base_url = "{env_url}"
resets = [{{ seed = {seed} }}]
"""


def summarize(
    env: str,
    traces: list,
    requests: list,
    sizes: list[int],
    model_bad: tuple,
    bundles: Path,
    wall: float,
) -> dict[str, Any]:
    from sre_gym.bundle import read_bundle

    # what the model reads: every message's text, in every request (verifiers sends the whole
    # conversation each turn)
    prompt = sum(len(_text(m.get("content"))) for r in requests for m in r.get("messages", []))
    rewards = [_reward(t) for t in traces]
    found = sorted(bundles.iterdir()) if bundles.exists() else []
    sealed = None
    if found:
        ev = read_bundle(found[-1])
        if env == "IncidentArena-v0":
            verdict = ev.artifacts.get("verdict.json", {})
            sealed = {
                "overall": verdict.get("overall"),
                "failure_class": verdict.get("failure_class"),
            }
        else:
            from sre_gym.scoring.scorer import score

            card = score(ev)
            sealed = {"net_score": card["net_score"], "marathon_score": card["marathon_score"]}
    return {
        "env": env,
        "episodes": len(traces),
        "model_calls": len(requests),
        "invalid_replies_sent": min(len(model_bad), len(requests)),
        "reward_recorded": rewards,
        "sealed_bundle": sealed,
        "prompt_chars": prompt,
        "prompt_tokens_est": prompt // 4,
        "largest_observation_chars": max(sizes, default=0),
        "wall_s": round(wall, 1),
    }


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _reward(trace: dict[str, Any]) -> Any:
    """The summed OpenEnv rewards verifiers recorded on the episode's trace."""
    for tr in trace.get("traces", []):
        r = (tr.get("rewards") or {}).get("openenv_reward")
        if isinstance(r, dict):
            return r.get("score")
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", choices=("SREMarathon-v0", "IncidentArena-v0", "both"), default="both")
    ap.add_argument("--task", default="arena-008")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--context", default="delta", choices=("delta", "cumulative"))
    ap.add_argument("--observation-chars", type=int, default=16_384)
    ap.add_argument("--venv", type=Path, default=ROOT / ".venv-verifiers")
    ap.add_argument(
        "--server-src",
        type=Path,
        default=None,
        help="serve from this sre_gym tree instead (an earlier version, for a before/after)",
    )
    ap.add_argument(
        "--well-formed", action="store_true", help="the stand-in sends only valid actions"
    )
    a = ap.parse_args(argv)
    vf = ensure_venv(a.venv)
    envs = ["SREMarathon-v0", "IncidentArena-v0"] if a.env == "both" else [a.env]
    with tempfile.TemporaryDirectory() as tmp:
        for env in envs:
            print(json.dumps(run(a, env, vf, Path(tmp)), sort_keys=True), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
