"""Band calibration and its provenance fingerprint."""

from __future__ import annotations

from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena_calibration import calibrate, calibration_for, fingerprint


def test_a_changed_model_input_changes_the_fingerprint_and_marks_provisional():
    task = load_task("arena-009")
    changed = task.model_copy(update={"load": task.load.model_copy(update={"peak_rps": 60.0})})
    assert fingerprint(changed) != fingerprint(task)
    assert calibration_for(task)["provisional"] is False
    assert calibration_for(changed)["provisional"] is True


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
