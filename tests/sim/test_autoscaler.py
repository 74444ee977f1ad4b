"""HorizontalPodAutoscalers (sre_gym/sim/autoscaler.py) in a running cluster."""

from __future__ import annotations

from sre_gym.sim import k8s_view


def _replicas(cl, name: str) -> int:
    return cl.world.deployment(name).replicas


def test_a_surge_scales_up_at_once_and_down_after_the_window(cl):
    assert _replicas(cl, "frontend") == 1
    hpa = next(h for h in cl.hpas if h.name == "frontend")
    cl.load_factor = 2.5
    t0 = cl.now
    cl.advance_to(t0 + 120)
    assert _replicas(cl, "frontend") > 1  # scaling up takes effect at once
    cl.advance_to(t0 + 360)
    up = _replicas(cl, "frontend")
    assert up > 1
    assert any(
        e.reason == "SuccessfulRescale" and e.kind == "HorizontalPodAutoscaler"
        for e in cl.world.events
    )
    view = {v["name"]: v for v in k8s_view.get(cl, "horizontalpodautoscalers")}["frontend"]
    assert view["replicas"] == up and view["max_pods"] == hpa.spec.max_replicas
    cl.load_factor = 1.0
    t1 = cl.now
    cl.advance_to(t1 + 180)  # inside the five-minute stabilisation window: no scale-down yet
    assert _replicas(cl, "frontend") == up
    cl.advance_to(t1 + 420)
    assert _replicas(cl, "frontend") < up


def test_the_autoscaler_leaves_a_deployment_scaled_to_zero_alone(cl):
    cl.scale("frontend", 0, cl.now + 1)
    cl.load_factor = 3.0
    cl.advance_to(cl.now + 120)
    assert _replicas(cl, "frontend") == 0


def test_a_hand_scale_outside_the_bounds_is_overridden(cl):
    cl.scale("currencyservice", 9, cl.now + 1)
    cl.advance_to(cl.now + 30)
    assert _replicas(cl, "currencyservice") <= 3  # max_replicas
