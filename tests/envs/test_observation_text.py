"""The observation's text fields: limits, and the alert history kept from one read to the next."""

from __future__ import annotations

import json

from sre_gym.envs.observation_text import (
    ALERT_KEYS,
    ALERTS_CHARS,
    AlertHistory,
    _carry,
    dump,
    truncate,
)


def test_truncate_keeps_short_text_and_says_how_much_it_cut():
    assert truncate("abc", 100) == "abc"
    cut = truncate("x" * 500, 200)
    assert len(cut) <= 200 + 40 and cut.startswith("x" * 100)
    assert "[truncated 364 characters]" in cut


def test_dump_is_compact_key_sorted_json():
    assert dump({"b": 1, "a": [1.5, None]}, 100) == '{"a":[1.5,null],"b":1}'


def test_carry_takes_over_results_of_the_same_objects_at_the_same_places():
    a, b, c = {"k": 1}, {"k": 2}, {"k": 3}
    made: list = []

    def make(x):
        made.append(x)
        return x["k"] * 10

    first = _carry([a, b], ([], []), make)
    assert first == [10, 20] and made == [a, b]
    made.clear()
    b2 = {"k": 5}  # b replaced by a new view; c appended
    assert _carry([a, b2, c], ([a, b], first), make) == [10, 50, 30]
    assert made == [b2, c]
    made.clear()
    # an equal but new object is worked out again: only identity carries a result over
    assert _carry([dict(a)], ([a], [99]), make) == [10] and len(made) == 1


def _view(aid: str, state: str, t: float) -> dict:
    return {
        "id": aid,
        "name": "HighErrorRate",
        "severity": "critical",
        "state": state,
        "labels": {"service": "cart"},
        "starts_at": f"t{t}",
        "ends_at": None if state == "firing" else f"t{t + 60}",
        "summary": "errors",
        "description": "not shown in the observation",
    }


class _Listing:
    """A backend's listing as the simulator keeps it (views shared between reads and replaced
    when an alert's state changes), or, with ``fresh``, as a live backend gives it (new views
    on every read)."""

    def __init__(self, fresh: bool = False) -> None:
        self.views: list[dict] = []
        self.now = 1e9
        self.fresh = fresh

    def alert_listing(self, t: float) -> list[dict]:
        return [dict(v) for v in self.views] if self.fresh else list(self.views)


def _want(views: list[dict]) -> list[dict]:
    return [{k: v[k] for k in ALERT_KEYS} for v in views]


def test_the_history_follows_new_alerts_and_changed_states_on_either_kind_of_listing():
    for fresh in (False, True):
        b, h = _Listing(fresh), AlertHistory()
        for t in range(12):
            b.views.append(_view(f"ALR-{t:04d}", "firing", t))
            if t % 3 == 2:  # an earlier alert resolves: its view is replaced
                b.views[t - 2] = _view(b.views[t - 2]["id"], "resolved", t - 2)
            entries = h.entries(b, float(t))
            assert entries == _want(b.views)
            text = h.text(b, float(t))
            assert text == dump(_want(b.views), ALERTS_CHARS)
            assert json.loads(text) == _want(b.views)
            assert "description" not in text


def test_the_history_is_built_once_per_time_and_shared():
    b, h = _Listing(), AlertHistory()
    b.views.append(_view("ALR-0001", "firing", 0))
    first = h.entries(b, 0.0)
    assert h.entries(b, 0.0) is first  # the world has run past t: as of t nothing changes
    b.views.append(_view("ALR-0002", "firing", 1))
    assert len(h.entries(b, 1.0)) == 2
    b.now = 0.0  # a live world that has not reached t yet: read again next time
    assert h.entries(b, 5.0) is not h.entries(b, 5.0)
