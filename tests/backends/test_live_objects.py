"""The live backend's pure readers of Kubernetes objects and log lines (no extra, no cluster)."""

from __future__ import annotations

from sre_gym.backends.live_objects import log_level, pod_status


def test_log_levels_are_inferred_from_common_formats():
    assert log_level('{"level":50,"msg":"x"}') == "error"
    assert log_level('{"level":40,"msg":"x"}') == "warning"
    assert log_level('{"severity":"info","message":"error budget ok"}') == "info"
    assert log_level("2026-01-01 00:00:00,000 - emailservice - ERROR - boom") == "error"
    assert log_level("fail: cartservice.cartstore.RedisCartStore[0] x") == "error"
    assert log_level('ts=1 level=warn msg="slow"') == "warning"
    assert log_level("2026-01-01T00:00:00Z WARN [main] x") == "warning"
    assert log_level("GET /cart 200") == "info"


def test_pod_status_helper():
    assert (
        pod_status({"metadata": {"deletionTimestamp": "x"}, "status": {"phase": "Running"}})
        == "Terminating"
    )
    assert pod_status({"status": {"phase": "Pending", "containerStatuses": [
        {"state": {"waiting": {"reason": "ImagePullBackOff"}}}]}}) == "ImagePullBackOff"  # fmt: skip
