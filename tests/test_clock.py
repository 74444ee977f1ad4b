from __future__ import annotations

import pytest

from sre_gym.clock import EPISODE_S, EPOCH, INJECT_S, INVOCATION_S, TICK_S, parse_time, rfc3339


def test_cadence_divides_the_run():
    # an episode is a whole number of invocations, and an invocation of scrape ticks
    assert EPISODE_S % INVOCATION_S == 0 and INVOCATION_S % TICK_S == 0 and INJECT_S < EPISODE_S


def test_rfc3339_formats_whole_seconds_or_kubelet_nanoseconds():
    assert rfc3339(EPOCH) == "2026-01-01T00:00:00Z"
    assert rfc3339(EPOCH + 3661.9) == "2026-01-01T01:01:01Z"
    assert rfc3339(EPOCH - 30) == "2025-12-31T23:59:30Z"
    assert rfc3339(EPOCH + 5.25, nanos=True) == "2026-01-01T00:00:05.250000000Z"


def test_parse_time_reads_any_fraction_and_offset_and_refuses_the_rest():
    assert parse_time("2026-01-01T00:00:05.123456789Z") == pytest.approx(EPOCH + 5.123456789)
    assert parse_time("2026-01-01T01:00:00+01:00") == EPOCH
    assert parse_time("2026-01-01T01:00:00+0100") == EPOCH
    assert parse_time(rfc3339(EPOCH + 61)) == EPOCH + 61
    for bad in ("not a time", "", None, 12, "2026-01-01 00:00:00"):
        assert parse_time(bad) is None
