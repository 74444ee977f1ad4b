"""``rollout``: one agent over many (app, seed) pairs, serially or fanned out with Ray.

Serial (no Ray imported) when ``workers`` is None or 1, no ``address`` is given and no Ray session is
already initialised in this process (then Ray is used, even for one worker). Otherwise one Ray
task per (app, seed): at most ``workers`` tasks in flight (``ray.wait``), each retried by Ray when its
worker dies (``max_retries``) and re-submitted by the driver if it still comes back as
``WorkerCrashedError`` (``max_resubmits``). Results are appended to ``out`` as each episode finishes,
so a rerun with the same ``out`` skips finished work; episodes are deterministic, so the Ray path
returns exactly the serial path's records. ``address="auto"`` joins a running Ray cluster; without an
address a private local instance with ``workers`` CPUs is started and shut down afterwards (an
already initialised Ray session is used as it is).

To pin rollouts to the Ray nodes that drive one Kubernetes cluster (live backends), label those nodes
``sre-gym/cluster=<name>`` (``ray start --labels``) and pass ``cluster="<name>"``, or give any
``label_selector=`` / custom ``resources=`` (``ray start --resources='{"cluster-a": 100}'``); they
are passed to ``.options(...)`` of every task.
"""

from __future__ import annotations

import functools
import os
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

from sre_gym.rollouts.episode import AgentSpec, agent_label, run_episode
from sre_gym.rollouts.results import RolloutResults, open_store, record_key

CLUSTER_LABEL = "sre-gym/cluster"


class RolloutError(RuntimeError):
    """A rollout task failed for good (finished episodes are already saved in ``out``)."""


# ---------------------------------------------------------------------- inputs
def parse_seeds(spec: str | int | Iterable[int]) -> list[int]:
    """Seeds from ``7``, ``range(5)``, ``[1, 2]``, ``"0-19"`` or ``"0,3,5-7"`` (order kept, no repeats)."""
    if isinstance(spec, int):
        items: list[int] = [spec]
    elif isinstance(spec, str):
        items = []
        for part in spec.replace(" ", "").split(","):
            if not part:
                continue
            lo, sep, hi = part.partition("-")
            try:
                a = int(lo)
                b = int(hi) if sep else a
            except ValueError:
                raise ValueError(f"bad seed range {part!r}; use e.g. 0-19 or 0,3,5-7") from None
            if b < a:
                raise ValueError(f"bad seed range {part!r}: {b} < {a}")
            items += range(a, b + 1)
    else:
        items = [int(s) for s in spec]
    return list(dict.fromkeys(items))


def parse_apps(apps: str | Iterable[str]) -> list[str]:
    """App names from ``"a"``, ``"a,b"`` or a list; each must be in ``sre_gym.catalogs.APPS``."""
    from sre_gym.catalogs import APPS

    items = [a for a in apps.split(",") if a] if isinstance(apps, str) else list(apps)
    items = [a.strip() for a in items]
    unknown = [a for a in items if a not in APPS]
    if unknown:
        raise ValueError(f"unknown app(s) {', '.join(unknown)}; known apps: {', '.join(APPS)}")
    if not items:
        raise ValueError("no apps given")
    return list(dict.fromkeys(items))


def task_options(
    *,
    max_retries: int = 3,
    resources: dict[str, float] | None = None,
    label_selector: dict[str, str] | None = None,
    cluster: str | None = None,
) -> dict[str, Any]:
    """The ``.options(...)`` of every rollout task (one CPU each; pinned by resource or label)."""
    opts: dict[str, Any] = {"num_cpus": 1, "max_retries": int(max_retries)}
    if resources:
        opts["resources"] = {str(k): float(v) for k, v in resources.items()}
    selector = dict(label_selector or {})
    if cluster is not None:
        selector[CLUSTER_LABEL] = str(cluster)
    if selector:
        opts["label_selector"] = selector
    return opts


# ---------------------------------------------------------------------- progress
class Progress:
    """A plain-text progress bar on stderr (redrawn in place on a terminal, a line a second otherwise)."""

    def __init__(
        self, total: int, label: str, stream: TextIO | None = None, enabled: bool = True
    ) -> None:
        self.total, self.label, self.done = total, label, 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.t0 = time.monotonic()
        self._last = -1.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def line(self) -> str:
        el = time.monotonic() - self.t0
        frac = self.done / self.total if self.total else 1.0
        bar = "#" * int(20 * frac) + "." * (20 - int(20 * frac))
        eta = el / self.done * (self.total - self.done) if self.done else float("nan")
        eta_s = f"eta {eta:.0f}s" if self.done else "eta ?"
        return f"{self.label} [{bar}] {self.done}/{self.total} {100 * frac:3.0f}% {el:.0f}s {eta_s}"

    def update(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        final = self.done >= self.total
        if self._tty:
            self.stream.write("\r" + self.line() + ("\n" if final else ""))
        elif final or now - self._last >= 1.0:
            self.stream.write(self.line() + "\n")
            self._last = now
        self.stream.flush()


# ---------------------------------------------------------------------- execution
def _call(fn: Callable[..., Any], args: tuple) -> Any:
    return fn(*args)


@functools.cache
def _remote() -> Any:
    import ray

    return ray.remote(_call)


def _describe(job: tuple) -> str:
    """A job's plain arguments (app, seed, ...) for error messages."""
    plain = [repr(x) for x in job if isinstance(x, str | int) and not isinstance(x, bool)]
    return "job (" + ", ".join(plain) + ")"


RESUBMIT_ERRORS = ("WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError")


def wants_ray(workers: int | None, address: str | None, pinned: bool = False) -> bool:
    """Whether to fan out with Ray: an address, more than one worker, pinning options, or a Ray
    session the caller already initialised (looked up without importing Ray)."""
    ray = sys.modules.get("ray")
    running = ray is not None and bool(getattr(ray, "is_initialized", lambda: False)())
    return address is not None or (workers is not None and workers > 1) or pinned or running


def map_tasks(
    fn: Callable[..., Any],
    jobs: Sequence[tuple],
    on_result: Callable[[int, Any], None],
    *,
    workers: int | None = None,
    address: str | None = None,
    options: dict[str, Any] | None = None,
    max_resubmits: int = 3,
    use_ray: bool | None = None,
) -> None:
    """Call ``fn(*jobs[i])`` for every i, serially or as Ray tasks; ``on_result(i, value)`` as each
    finishes (in completion order). ``fn`` must be importable (a module-level function)."""
    if use_ray is None:
        use_ray = wants_ray(workers, address)
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    if not use_ray:
        for i, args in enumerate(jobs):
            on_result(i, fn(*args))
        return
    import ray
    import ray.exceptions as rex

    resubmit = tuple(getattr(rex, n) for n in RESUBMIT_ERRORS if hasattr(rex, n))
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(address="local", num_cpus=workers, include_dashboard=False)
        else:
            ray.init(address=address)
        started = True
    refs: dict[Any, int] = {}
    try:
        in_flight = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        task = _remote().options(**(options or {}))
        pending = deque(range(len(jobs)))
        crashes: Counter[int] = Counter()
        while pending or refs:
            while pending and len(refs) < in_flight:
                i = pending.popleft()
                refs[task.remote(fn, jobs[i])] = i
            ready, _ = ray.wait(list(refs), num_returns=1)
            for ref in ready:
                i = refs.pop(ref)
                try:
                    value = ray.get(ref)
                except resubmit as e:
                    crashes[i] += 1
                    if crashes[i] > max_resubmits:
                        raise RolloutError(
                            f"{_describe(jobs[i])} lost its worker {crashes[i]} times: {e}"
                        ) from e
                    pending.appendleft(i)
                    continue
                except rex.RayTaskError as e:
                    raise RolloutError(f"{_describe(jobs[i])} failed: {e}") from e
                on_result(i, value)
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def rollout(
    agent: AgentSpec,
    apps: str | Iterable[str],
    seeds: str | int | Iterable[int],
    workers: int | None = None,
    address: str | None = None,
    out: str | os.PathLike | None = None,
    bundle_dir: str | os.PathLike | None = None,
    *,
    agent_name: str | None = None,
    cluster: str | None = None,
    resources: dict[str, float] | None = None,
    label_selector: dict[str, str] | None = None,
    max_retries: int = 3,
    max_resubmits: int = 3,
    progress: bool = True,
    progress_stream: TextIO | None = None,
    schedule: Any = None,
    evaluation_key: str | None = None,
    agent_options: dict[str, Any] | None = None,
    env_options: dict[str, Any] | None = None,
    reward: str = "net",
) -> RolloutResults:
    """Run ``agent`` on every (app, seed) and return the records (see the module docstring).

    ``agent`` is a baseline name or a picklable factory (optionally taking ``env=``/``seed=``) that
    returns a policy ``policy(obs, info) -> action``. ``out`` (``.jsonl`` or ``.parquet``) keeps the
    results and lets a rerun skip finished (app, seed) pairs of the same agent, release and schedule
    profile (``schedule``: a name, dict or ``ScheduleProfile``; the marathon by default).
    ``evaluation_key`` (default: the ``SRE_GYM_EVALUATION_KEY`` environment variable) runs every
    episode in evaluation mode; keep one results file per key (the key is never written).
    ``agent_options`` go to ``make_agent`` with a baseline name (an LLM agent's model, endpoint
    and prices; each worker builds its own client). ``env_options`` go to ``gym.make`` in every
    worker: ``{"backend": "live", "kubeconfig": ..., "prometheus_url": ...}`` runs on a live
    cluster, and ``resources={"cluster-a": 1}`` (with ``ray start --resources='{"cluster-a": 1}'``
    on the machine that reaches it) pins each episode to that cluster, one at a time
    (docs/live.md). Live and simulated records of one results file are kept apart. ``reward``
    ("net", the default, or "paper") is the score each episode's rewards pay, so its ``return``;
    every record's scorecard holds both scores.
    """
    from sre_gym.catalogs import RELEASE
    from sre_gym.envs.marathon import evaluation_key_from, reward_key
    from sre_gym.orchestrator.profiles import schedule_profile_from, schedule_profile_key

    key = evaluation_key_from(evaluation_key)
    evaluation = key is not None
    reward_key(reward)  # an unknown choice fails here, not in every worker
    env_options = {**(env_options or {}), "reward": reward}

    prof = schedule_profile_from(schedule)
    sched = schedule_profile_key(prof)

    t0 = time.monotonic()
    app_list, seed_list = parse_apps(apps), parse_seeds(seeds)
    name = agent_label(agent, agent_name)
    keys = [(a, s) for a in app_list for s in seed_list]
    store = open_store(out) if out is not None else None
    done: dict[tuple[str, int], dict[str, Any]] = {}
    backend = str((env_options or {}).get("backend", "sim"))
    if store is not None:
        for rec in store.load():
            k = record_key(rec)
            same = k[0] == RELEASE and k[1] == name and k[4] == sched and k[5] == evaluation
            # (records from before the choice paid the Marathon-Score)
            same = same and rec.get("reward", "paper") == reward
            if same and rec.get("backend", "sim") == backend:
                done[(k[2], k[3])] = rec
    todo = [k for k in keys if k not in done]
    bdir = None if bundle_dir is None else str(bundle_dir)
    jobs = [
        (agent, app, seed, bdir, name, prof, key, agent_options, env_options) for app, seed in todo
    ]
    use_ray = wants_ray(workers, address, bool(cluster or resources or label_selector))
    bar = Progress(
        len(todo),
        f"rollout {name}" + (f" ({workers} workers)" if use_ray and workers else ""),
        progress_stream,
        progress,
    )

    def finished(i: int, rec: dict[str, Any]) -> None:
        app, seed = todo[i]
        done[(app, seed)] = rec
        if store is not None:
            store.append(rec)
        bar.update()

    map_tasks(
        run_episode,
        jobs,
        finished,
        workers=workers,
        address=address,
        options=task_options(
            max_retries=max_retries,
            resources=resources,
            label_selector=label_selector,
            cluster=cluster,
        ),
        max_resubmits=max_resubmits,
        use_ray=use_ray,
    )
    return RolloutResults(
        records=[done[k] for k in keys],
        executed=len(todo),
        skipped=len(keys) - len(todo),
        elapsed_s=time.monotonic() - t0,
        out=None if out is None else str(out),
    )
