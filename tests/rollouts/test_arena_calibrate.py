"""Band calibration runs: Arena's envelope over healthy or oracle soaks, reproducibly."""

from __future__ import annotations

from sre_gym.rollouts.arena_calibrate import calibrate


def test_healthy_bands_use_arenas_envelope_and_are_reproducible():
    a = calibrate("arena-009", seeds=(100, 101))
    b = calibrate("arena-009", seeds=(100, 101))
    assert a == b
    lane = a["bands"]["lanes"]["send"]
    g = lane["golden_peak_p99_ms"]
    assert lane["peak_p99_ms"] == round(g + max(100.0, g), 1)
    assert 300 < g < 500  # about 231 ms at p50 times the lane's tail


def test_oracle_bands_where_the_task_says_so():
    rec = calibrate("arena-014", seeds=(100,))
    assert rec["source"] == "oracle"
    # strict mode is on in the repaired soak: the send band sits above the healthy one
    assert rec["bands"]["lanes"]["send"]["golden_peak_p99_ms"] > 700
