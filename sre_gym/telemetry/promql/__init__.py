"""Vectorised PromQL engine with Prometheus 2.42 semantics over the in-memory :mod:`tsdb`.

>>> eng = Engine(tsdb)
>>> plan = eng.compile('sum by (svc) (rate(http_requests_total[1m]))')
>>> res = eng.eval(plan, [60, 90, 120])        # one pass for all times
>>> eng.instant('up == 0', 120)                 # Prometheus /api/v1/query "data"
>>> eng.range('up', 0, 300, 15)                 # Prometheus /api/v1/query_range "data"
"""

from .engine import Engine, Plan
from .format import go_float
from .types import PromQLError, Result

__all__ = ["Engine", "Plan", "PromQLError", "Result", "go_float"]
