"""Shared fixtures: cached full episodes of the baselines (they are the expensive part)."""

from __future__ import annotations

import ctypes
import functools
import gc
import os
import resource
import threading

import gymnasium as gym
import pytest

import sre_gym  # noqa: F401
from sre_gym.agents import make_agent


def play_episode(
    agent: str, seed: int, bundle_dir: str | None = None, app: str = "online-boutique"
) -> dict:
    """One full episode; returns rewards, observations, final info and the unwrapped env."""
    env = gym.make("SREMarathon-v0", app=app, bundle_dir=bundle_dir)
    ag = make_agent(agent, env=env, seed=seed)
    obs, info = env.reset(seed=seed)
    rewards, observations = [], [obs]
    while True:
        obs, r, terminated, truncated, info = env.step(ag(obs, info))
        rewards.append(r)
        observations.append(obs)
        if terminated or truncated:
            break
    return {"rewards": rewards, "obs": observations, "info": info, "env": env.unwrapped}


# An ended env holds its whole telemetry (about 45 MB for Online Boutique): a worker keeps the few
# episodes its current test files share, not every episode it has played.
run_episode = functools.lru_cache(maxsize=8)(play_episode)


@pytest.fixture(scope="session")
def episode():
    return run_episode


@functools.cache
def final_info(agent: str, seed: int, app: str = "online-boutique") -> dict:
    """The final ``info`` (scorecard included) of one full episode, without keeping the env: what
    tests of scores need, in a few kB."""
    ep = play_episode(agent, seed, app=app)
    ep["env"].close()
    return ep["info"]


@pytest.fixture(scope="session")
def episode_info():
    return final_info


# Peak resident memory of every test process, printed at the end of the session like the
# durations, so that growth shows (the bound is 2 GB for the whole session). With pytest-xdist
# each worker reports its own peak to the controller when it finishes.
_PEAKS_MB: dict[str, float] = {}


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim`` (None elsewhere)."""
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


@pytest.fixture(scope="module", autouse=True)
def _return_freed_memory():
    """After each test file, collect what its cycles hold and hand the freed heap back to the
    system: the allocator otherwise keeps, fragmented, the high-water mark of every file a
    worker has run (a fuzz test's envs leave ~240 MB of freed heap behind), and the peaks
    printed below would be those of the worker's whole history rather than of its files."""
    yield
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports kB


def _proportional_kb(pid: int) -> int:
    """A process's proportional set size (its resident pages, each page shared with k processes
    counted 1/k), so that processes sharing libraries or forked pages add up to what the machine
    holds; its resident set where the kernel gives no ``smaps_rollup``."""
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path) as f:
                return next((int(ln.split()[1]) for ln in f if ln.startswith(key)), 0)
        except OSError:
            continue
    return 0


def _tree_memory_mb(root: int) -> dict[str, float]:
    """Memory (proportional set size, MB) of ``root`` and each of its descendants now, keyed by
    pid and command name (Linux /proc)."""
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    # the fields after the command name, which may hold spaces or parentheses
                    parent[int(entry)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    children: dict[int, list[int]] = {}
    for pid, ppid in parent.items():
        children.setdefault(ppid, []).append(pid)
    out: dict[str, float] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        out[f"{pid} {cmd[:70]}"] = _proportional_kb(pid) / 1024
    return out


class _TreeSampler(threading.Thread):
    """Samples the memory of the whole test session (this process, its xdist workers and whatever
    they spawn: CLI runs, Prometheus, MCP servers) twice a second and keeps the moment of the
    highest total: the figure the 2 GB bound is about, which the per-process peaks do not give."""

    def __init__(self) -> None:
        super().__init__(name="memory-sampler", daemon=True)
        self.peak: dict[str, float] = {}
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            try:
                now = _tree_memory_mb(os.getpid())
            except Exception:  # (a reading /proc refuses is a sample missed, not a failed session)
                now = {}
            if sum(now.values()) > sum(self.peak.values()):
                self.peak = now
            self._done.wait(0.5)

    def stop(self) -> dict[str, float]:
        self._done.set()
        self.join()
        return self.peak


_SAMPLER: list[_TreeSampler] = []


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput") and os.path.isdir("/proc/self"):
        _SAMPLER.append(_TreeSampler())
        _SAMPLER[0].start()


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = getattr(session.config, "workeroutput", None)
    if out is not None:  # an xdist worker: hand the figure to the controller
        out["peak_rss_mb"] = _peak_rss_mb()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    peak = getattr(node, "workeroutput", {}).get("peak_rss_mb")
    if peak is not None:
        _PEAKS_MB[node.gateway.id] = peak


def pytest_terminal_summary(terminalreporter) -> None:
    peaks = {"controller": _peak_rss_mb(), **dict(sorted(_PEAKS_MB.items()))}
    terminalreporter.write_sep("=", "peak resident memory")
    for who, mb in peaks.items():
        terminalreporter.write_line(f"{who:>12}: {mb:8.1f} MB")
    terminalreporter.write_line(
        f"{'sum':>12}: {sum(peaks.values()):8.1f} MB (an upper bound on the session at any time)"
    )
    if _SAMPLER:
        peak = _SAMPLER[0].stop()
        terminalreporter.write_line(
            f"{'together':>12}: {sum(peak.values()):8.1f} MB (the highest total of the session's "
            "processes and their children, proportional set sizes sampled every 0.5 s), of which:"
        )
        for who, mb in sorted(peak.items(), key=lambda kv: -kv[1])[:8]:
            terminalreporter.write_line(f"{mb:21.1f} MB  {who}")
