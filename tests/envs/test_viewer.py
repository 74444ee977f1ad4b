"""The rgb_array picture (sre_gym/envs/viewer.py)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import sre_gym  # noqa: F401
from sre_gym.envs.viewer import BG, HEALTHY, HEIGHT, SEVERITY, WIDTH, layout, picture

TOPO = {
    "entrypoint": "web",
    "services": [
        {"name": "web", "calls": [{"service": "api"}, {"service": "db"}]},
        {"name": "api", "calls": [{"service": "db"}]},
        {"name": "db", "calls": []},
        {"name": "batch", "calls": []},  # out of the entry point's reach
    ],
}


def alert(sev: str, service: str, state: str = "firing", start="2026-01-01T00:10:00Z", end=None):
    return {
        "severity": sev,
        "state": state,
        "labels": {"service_name": service},
        "starts_at": start,
        "ends_at": end,
    }


def test_layout_puts_services_in_columns_by_call_depth():
    pos = layout(TOPO)
    assert pos["web"][0] < pos["api"][0] == pos["db"][0] < pos["batch"][0]
    assert pos["api"][1] < pos["db"][1]  # catalog order within a column
    assert layout(TOPO) == pos


def test_services_take_the_colour_of_their_worst_firing_alert():
    t0 = 1767225600.0
    alerts = [
        alert("warning", "api"),
        alert("critical", "api"),
        alert("critical", "db", state="resolved", end="2026-01-01T00:12:00Z"),
    ]
    img = picture(TOPO, alerts, t0, t0 + 3600, t0 + 1800)
    assert img.shape == (HEIGHT, WIDTH, 3) and img.dtype == np.uint8
    pos = layout(TOPO)
    colour = {s: tuple(int(v) for v in img[y, x]) for s, (x, y) in pos.items()}
    assert colour["api"] == SEVERITY["critical"]
    assert colour["db"] == HEALTHY and colour["web"] == HEALTHY  # resolved alerts colour nothing
    # the timeline shows all three alerts, each in its own lane, the firing ones up to now
    lanes = img[290:, : WIDTH // 2 + 5]
    for rgb in (SEVERITY["warning"], SEVERITY["critical"]):
        assert (lanes == rgb).all(axis=-1).any()
    assert not (img[290:, WIDTH // 2 + 5 :] == SEVERITY["critical"]).all(axis=-1).any()


def test_an_empty_history_is_a_green_graph():
    img = picture(TOPO, [], 0.0, 60.0, 0.0)
    x, y = layout(TOPO)["db"]
    assert tuple(img[y, x]) == HEALTHY and tuple(img[0, 0]) == BG


def test_the_env_renders_frames_for_rgb_array():
    env = gym.make("SREMarathon-v0", render_mode="rgb_array", schedule="short")
    env.reset(seed=0)
    first = env.render()
    for _ in range(8):
        env.step([])
    later = env.render()
    assert first.shape == later.shape == (HEIGHT, WIDTH, 3)
    assert not np.array_equal(first, later)  # time moved on: the now line and the alerts
    env.close()
