"""The no-action counterfactual: the same run (same schedule and noise) with nobody acting.

The scorer's degradation compares an episode's entry-point traffic with this run's. Simulating it
costs about as much as the episode's own world, so it is cached: in each process, a bounded LRU of
the last ``NOACTION_CACHE_SIZE`` runs; and, when ``SRE_GYM_NOACTION_CACHE`` names a directory, on
disk too, shared by every process that points at it (the workers of a vector env, later training
runs). A disk entry is keyed by everything the run depends on: release, app, seed, schedule, noise
profile and a digest of the package's own code and catalogs, so that an edited simulator never reads
a stale run. Each entry is one ``.npy`` file of about 10 kB, written atomically; past
``NOACTION_DISK_MAX`` files the oldest go. An entry that cannot be read is reported in a warning and
simulated again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np

from sre_gym.backends.sim import SimBackend
from sre_gym.orchestrator.open_world import NoiseProfile, noise_profile_from
from sre_gym.orchestrator.schedule import Schedule, schedule

CACHE_DIR_ENV = "SRE_GYM_NOACTION_CACHE"
# bounded: a training process visits many seeds, and each entry is a few kilobytes
NOACTION_CACHE_SIZE = 512
NOACTION_DISK_MAX = 20_000  # files (about 200 MB)
_NOACTION_CACHE: OrderedDict[tuple[str, str, int, str, str], np.ndarray] = OrderedDict()
_PACKAGE = Path(__file__).resolve().parents[1]


def noaction_entry(
    release: str,
    app: str,
    seed: int,
    sched: Schedule | None = None,
    noise: NoiseProfile | None = None,
) -> np.ndarray:
    """Entry-point traffic of the same run (same schedule and noise) with nobody acting, one row
    per tick: (requests per second, failed share, slow share). Cached as the module says."""
    sched = sched if sched is not None else schedule(app, seed, release)
    noise = noise_profile_from(noise)
    key = (release, app, int(seed), sched.to_json(), noise.model_dump_json())
    arr = _NOACTION_CACHE.get(key)
    if arr is not None:
        _NOACTION_CACHE.move_to_end(key)
        return arr
    folder = os.environ.get(CACHE_DIR_ENV)
    path = Path(folder) / f"{_disk_key(key)}.npy" if folder else None
    arr = _load(path) if path is not None else None
    if arr is None:
        b = SimBackend(app, seed, release=release, sched=sched, noise=noise)
        b.cluster.entry_only = True  # no telemetry: nothing in a no-action world reads it
        b.advance_to(b.episode_end)
        arr = b.cluster.rec_entry.copy()
        if path is not None:
            _store(path, arr)
    _NOACTION_CACHE[key] = arr
    while len(_NOACTION_CACHE) > NOACTION_CACHE_SIZE:
        _NOACTION_CACHE.popitem(last=False)
    return arr


@functools.cache
def code_digest() -> str:
    """SHA-256 over the package's Python sources and catalog files (paths and bytes, in path
    order): what a cached run was simulated with."""
    h = hashlib.sha256()
    files = sorted(
        p
        for p in _PACKAGE.rglob("*")
        if p.suffix in (".py", ".yaml", ".yml", ".json") and "__pycache__" not in p.parts
    )
    for p in files:
        h.update(p.relative_to(_PACKAGE).as_posix().encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _disk_key(key: tuple[str, str, int, str, str]) -> str:
    text = json.dumps([*key, code_digest()], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _load(path: Path) -> np.ndarray | None:
    """The cached run at ``path``; None when there is none, or when it is unreadable (warned)."""
    try:
        arr = np.load(path, allow_pickle=False)
    except (FileNotFoundError, NotADirectoryError):
        return None  # not cached (yet)
    except (OSError, ValueError, EOFError) as e:
        warnings.warn(
            f"sre_gym: no-action cache entry {path} is unreadable ({e}); simulating the run again",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    if arr.dtype != np.float64 or arr.ndim != 2 or arr.shape[1] != 3:
        warnings.warn(
            f"sre_gym: no-action cache entry {path} holds a {arr.dtype} array of shape "
            f"{arr.shape}, not (ticks, 3) float64; simulating the run again",
            RuntimeWarning,
            stacklevel=3,
        )
        return None
    return arr


def _store(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` to ``path`` atomically (concurrent workers may write the same run), then
    keep the directory under ``NOACTION_DISK_MAX`` files. A directory that cannot be written gives
    a warning and nothing else: the caller still has the run."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npy")
        try:
            with os.fdopen(fd, "wb") as f:
                np.save(f, arr, allow_pickle=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _prune(path.parent)
    except OSError as e:
        warnings.warn(
            f"sre_gym: cannot write the no-action cache entry {path} ({e}); continuing without it",
            RuntimeWarning,
            stacklevel=3,
        )


def _prune(folder: Path) -> None:
    entries = [p for p in folder.glob("*.npy") if not p.name.startswith(".tmp-")]
    if len(entries) <= NOACTION_DISK_MAX:
        return

    def age(p: Path) -> tuple[int, str]:
        try:
            return (p.stat().st_mtime_ns, p.name)
        except FileNotFoundError:  # another worker pruned it first
            return (-1, p.name)

    # oldest first; the name breaks ties so that the order never depends on the listing
    entries.sort(key=age)
    for p in entries[: len(entries) - NOACTION_DISK_MAX]:
        p.unlink(missing_ok=True)
