"""Elementary functions from IEEE arithmetic alone (sre_gym/fmath.py), and a world whose bits do not
depend on the CPU's kernels."""

from __future__ import annotations

import math
import os
import platform
import subprocess
import sys

import numpy as np

from sre_gym import fmath


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(np.asarray(a, dtype=float).view(np.int64) - np.asarray(b).view(np.int64))


RNG = np.random.default_rng(7)


def test_exp_is_within_one_ulp_of_the_c_library():
    x = np.concatenate(
        [RNG.normal(0, 5, 50_000), RNG.uniform(-745, 709, 20_000), RNG.normal(0, 1e-9, 500)]
    )
    ref = np.array([math.exp(v) for v in x.tolist()])
    assert ulps(fmath.exp(x), ref).max() <= 1
    special = fmath.exp(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 710.0, -746.0]))
    assert special[:4].tolist() == [1.0, 1.0, math.inf, 0.0]
    assert np.isnan(special[4]) and special[5] == math.inf and special[6] == 0.0


def test_log_is_within_one_ulp_of_the_c_library():
    x = np.concatenate([np.abs(RNG.normal(0, 5, 50_000)), np.exp(RNG.uniform(-700, 700, 20_000))])
    x = np.append(x, [1.0, 2.0, 0.5, 5e-324, 1.7e308])
    ref = np.array([math.log(v) for v in x.tolist()])
    assert ulps(fmath.log(x), ref).max() <= 1
    assert fmath.log(np.array([1.0]))[0] == 0.0
    special = fmath.log(np.array([0.0, np.inf, -1.0, np.nan]))
    assert special[0] == -math.inf and special[1] == math.inf
    assert np.isnan(special[2:]).all()


def test_log1p_is_within_two_ulps_and_exact_for_tiny_arguments():
    x = np.concatenate(
        [-RNG.uniform(0, 1 - 1e-12, 50_000), RNG.normal(0, 1e-6, 5_000), RNG.uniform(0, 50, 5_000)]
    )
    ref = np.array([math.log1p(v) for v in x.tolist()])
    assert ulps(fmath.log1p(x), ref).max() <= 2
    assert fmath.log1p(np.array([1e-20]))[0] == 1e-20  # 1 + x rounds to 1: x itself
    assert fmath.log1p(np.array([-1.0]))[0] == -math.inf


def test_ipow_multiplies_in_turn():
    b = RNG.uniform(0, 1, 1000)
    k = RNG.integers(0, 7, 1000)
    want = np.ones(1000)
    for i in range(1000):
        for _ in range(int(k[i])):
            want[i] *= b[i]
    assert np.array_equal(fmath.ipow(b, k), want)
    assert fmath.ipow(np.array([0.5]), np.array([0]))[0] == 1.0


_PROBE = """
import hashlib, json, subprocess, sys, tempfile
import numpy as np
from sre_gym import fmath
x = np.random.default_rng(3).normal(0, 4, 10_000)
h = hashlib.sha256()
for f in (fmath.exp, fmath.log, fmath.log1p):
    h.update(f(np.abs(x) if f is fmath.log else np.maximum(x, -0.99)).tobytes())
with tempfile.TemporaryDirectory() as d:
    run = subprocess.run(
        [sys.executable, "-m", "sre_gym.cli", "run", "--app", "train-ticket", "--seed", "1",
         "--agent", "runbook", "--schedule", "short", "--json", "--bundle-dir", d],
        capture_output=True, text=True, check=True,
    )
    out = json.loads(run.stdout)
    name = out["bundle"].rsplit("/", 1)[-1]
print(json.dumps({"fmath": h.hexdigest(), "bundle": name, "net": out["scorecard"]["net_score"]}))
"""


def _probe(env: dict[str, str]) -> str:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.strip().splitlines()[-1]


def test_the_world_does_not_depend_on_the_cpus_kernels():
    """A run on this machine and one with numpy's CPU-specific kernels switched off (every
    dispatch target above the build's baseline: AVX2 and AVX-512 on x86) and OpenBLAS told it runs
    on an older core give the same bundle, bit for bit: nothing in the world goes through
    numpy's SIMD transcendental kernels, BLAS or LAPACK."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__

    other = {"NPY_DISABLE_CPU_FEATURES": " ".join(__cpu_dispatch__)}
    if platform.machine() in ("x86_64", "AMD64"):
        other["OPENBLAS_CORETYPE"] = "Sandybridge"
    assert _probe({}) == _probe(other)
