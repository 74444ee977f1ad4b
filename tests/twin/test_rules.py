"""The compiled rules' rings: a window the rings are too shallow for is an error, not a wrong
answer read from samples written over."""

import numpy as np
import pytest

from sre_gym.telemetry.promql import PromQLError
from sre_gym.twin.layout import layout
from sre_gym.twin.rules import TwinEngine
from sre_gym.twin.series import DEPTH


def _run(expr: str, ago: list[int]) -> None:
    eng = TwinEngine(layout("online-boutique"))
    plan = eng.compile(expr)
    rings = tuple(np.zeros((1, n, w)) for n, w in zip(eng.index.n_rows, DEPTH, strict=True))
    since = np.zeros((1, eng.index.p_restarts.size), dtype=np.int64)
    with np.errstate(all="ignore"):
        eng.run([plan], rings, 100, np.array(ago, dtype=np.int64), since)


CALLS = 'traces_span_metrics_calls_total{span_kind="SPAN_KIND_SERVER"}'


def test_the_pack_fits_its_rings_at_an_invocations_evaluations():
    _run(f"rate({CALLS}[2m] offset 10m)", [6, 4, 2, 0])
    _run(f"{CALLS} offset 10m", [6, 4, 2, 0])
    _run("max_over_time(container_memory_working_set_bytes[5m])", [6, 4, 2, 0])


@pytest.mark.parametrize(
    "expr",
    [
        f"rate({CALLS}[2m] offset 12m)",  # the oldest column read was written over
        f"{CALLS} offset 14m",
        "max_over_time(container_memory_working_set_bytes[6m])",
    ],
)
def test_a_window_deeper_than_its_ring_is_refused(expr):
    with pytest.raises(PromQLError, match="does not fit a ring"):
        _run(expr, [6, 4, 2, 0])
