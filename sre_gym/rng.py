"""Counter-based random streams.

Every random draw in a run comes from a stream keyed by (release, app, seed, stream name) and indexed
by a counter (usually the tick). A stream is a Philox bit generator whose key is a hash of the key
tuple and whose counter is set explicitly, so a draw depends only on its key and index: the order in
which code asks for randomness, or whether a read-only tool asked at all, never changes a result.
"""

from __future__ import annotations

import hashlib
import hmac

import numpy as np


def key_of(*parts: object) -> np.ndarray:
    """128-bit Philox key from a tuple of printable parts (stable across machines and runs)."""
    h = hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=16).digest()
    return np.frombuffer(h, dtype=np.uint64).copy()


def stable_hash(*parts: object, digits: int = 16) -> str:
    """Hex digest of printable parts, for deterministic identifiers (commit shas, pod suffixes)."""
    return hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=32).hexdigest()[
        :digits
    ]


def stable_unit(*parts: object) -> float:
    """A float in [0, 1) from printable parts."""
    h = hashlib.blake2b("\x1f".join(str(p) for p in parts).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") / 2**64


def world_seed(release: str, app: str, seed: int, evaluation_key: str | None = None) -> int:
    """The seed a run's world is drawn from: the public ``seed`` itself, or, in evaluation mode, a
    63-bit number derived from (key, release, app, seed) with HMAC-SHA256. Everything random in a
    run (schedule, benign deploys, commit shas, telemetry noise) is keyed by it, so without the key
    public code cannot rebuild an evaluated run from its seed."""
    if evaluation_key is None:
        return int(seed)
    msg = "\x1f".join((release, app, str(int(seed)))).encode()
    digest = hmac.new(evaluation_key.encode(), msg, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "little") & (2**63 - 1)


class Streams:
    """Factory of counter-indexed generators for one run."""

    def __init__(self, release: str, app: str, seed: int) -> None:
        self.release, self.app, self.seed = release, app, int(seed)
        self._keys: dict[str, np.ndarray] = {}

    def key(self, stream: str) -> np.ndarray:
        k = self._keys.get(stream)
        if k is None:
            k = self._keys[stream] = key_of(self.release, self.app, self.seed, stream)
        return k

    def gen(self, stream: str, index: int = 0) -> np.random.Generator:
        """Generator for draw block ``index`` of ``stream``; the same (stream, index) always gives the same draws."""
        counter = np.array([0, 0, 0, int(index)], dtype=np.uint64)
        return np.random.Generator(np.random.Philox(key=self.key(stream), counter=counter))
