"""What an agent may send as an action (sre_gym/envs/actions.py)."""

from __future__ import annotations

import numpy as np

from sre_gym.envs.actions import parse_action


def test_every_form_of_action_reads_into_calls_notes_and_usage():
    call = {"tool": "get_alerts", "args": {}}
    assert parse_action([call]) == ([call], None, None, None)
    assert parse_action(call) == ([call], None, None, None)
    assert parse_action('[{"tool": "get_alerts", "args": {}}]')[0] == [call]
    assert parse_action(b"[]") == ([], None, None, None)
    assert parse_action({"calls": [call], "notes": "n", "usage": {"model_calls": 1}}) == (
        [call],
        "n",
        {"model_calls": 1},
        None,
    )
    assert parse_action(np.array([call], dtype=object))[0] == [call]


def test_bad_actions_are_errors_not_exceptions():
    for bad, why in [
        (b"\xff", "not UTF-8"),
        ("{", "not valid JSON"),
        ({"calls": [], "oops": 1}, "unexpected keys in action: oops"),
        ({"notes": 3}, '"notes" must be a string'),
        ({"usage": []}, '"usage" must be an object'),
        (42, "an action is a list of tool calls, got int"),
        (None, "got None (send [] for none)"),
    ]:
        calls, _, _, err = parse_action(bad)
        assert calls == [] and why in err
