"""Reading band calibrations: the provenance fingerprint and provisional tasks."""

from __future__ import annotations

from sre_gym.catalogs.arena import load_task
from sre_gym.envs.arena_calibration import calibration_for, fingerprint


def test_a_changed_model_input_changes_the_fingerprint_and_marks_provisional():
    task = load_task("arena-009")
    changed = task.model_copy(update={"load": task.load.model_copy(update={"peak_rps": 60.0})})
    assert fingerprint(changed) != fingerprint(task)
    assert calibration_for(task)["provisional"] is False
    assert calibration_for(changed)["provisional"] is True
