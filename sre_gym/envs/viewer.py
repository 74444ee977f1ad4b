"""The ``rgb_array`` picture of a marathon: the service graph coloured by firing alerts, and the
alert timeline.

It draws only what the agent's observation holds (the topology tool's graph and the alert history),
so a frame is as safe to hand a pixel policy as the observation is. Pure numpy, no fonts: services
are squares laid out by call depth from the entry point, calls are grey lines, and each alert is a bar
on the timeline from its start to its end (or to now while it fires), coloured by severity.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

import numpy as np

from sre_gym.backends.base import alert_entities

HEIGHT, WIDTH = 400, 640
GRAPH_H = 280  # the graph's band; the timeline fills the rest
BOX = 14
ROWS = 24  # timeline lanes; alert k takes lane k mod ROWS
BG = (250, 250, 250)
EDGE = (190, 190, 190)
HEALTHY = (76, 175, 80)
AXIS = (120, 120, 120)
NOW = (33, 33, 33)
# severity -> colour, the worst first: a service takes the colour of its worst firing alert
SEVERITY = {
    "critical": (211, 47, 47),
    "warning": (245, 166, 35),
    "info": (66, 133, 244),
}


def _time(s: str | None) -> float | None:
    return None if not s else _dt.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def layout(topology: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Pixel centre of each service: columns by call depth from the entry point (BFS over the call
    graph, services out of its reach last), rows in catalog order within a column."""
    services = [s["name"] for s in topology["services"]]
    calls = {s["name"]: [c["service"] for c in s.get("calls", [])] for s in topology["services"]}
    depth = {topology["entrypoint"]: 0} if topology.get("entrypoint") in calls else {}
    frontier = list(depth)
    while frontier:
        nxt = []
        for s in frontier:
            for c in calls.get(s, []):
                if c in calls and c not in depth:
                    depth[c] = depth[s] + 1
                    nxt.append(c)
        frontier = nxt
    last = max(depth.values(), default=-1) + 1
    cols: dict[int, list[str]] = {}
    for s in services:
        cols.setdefault(depth.get(s, last), []).append(s)
    n_cols = max(cols) + 1 if cols else 1
    out = {}
    for d, names in cols.items():
        x = int((d + 0.5) * WIDTH / n_cols)
        for i, s in enumerate(names):
            out[s] = (x, int((i + 0.5) * GRAPH_H / len(names)))
    return out


def _line(img: np.ndarray, a: tuple[int, int], b: tuple[int, int], rgb: tuple[int, ...]) -> None:
    n = max(abs(b[0] - a[0]), abs(b[1] - a[1]), 1)
    xs = np.linspace(a[0], b[0], n + 1).round().astype(int)
    ys = np.linspace(a[1], b[1], n + 1).round().astype(int)
    ok = (xs >= 0) & (xs < img.shape[1]) & (ys >= 0) & (ys < img.shape[0])
    img[ys[ok], xs[ok]] = rgb


def _box(img: np.ndarray, c: tuple[int, int], half: int, rgb: tuple[int, ...]) -> None:
    x, y = c
    img[max(y - half, 0) : y + half + 1, max(x - half, 0) : x + half + 1] = rgb


def picture(
    topology: dict[str, Any],
    alerts: list[dict[str, Any]],
    start: float,
    end: float,
    now: float,
) -> np.ndarray:
    """The frame (``HEIGHT x WIDTH x 3``, uint8). ``alerts`` are alert views (``severity``,
    ``state``, ``labels``, ``starts_at``, ``ends_at``); an alert colours the services its labels
    name."""
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = BG
    pos = layout(topology)
    for s in topology["services"]:
        for c in s.get("calls", []):
            if c["service"] in pos:
                _line(img, pos[s["name"]], pos[c["service"]], EDGE)
    worst: dict[str, int] = {}
    order = list(SEVERITY)
    for a in alerts:
        if a["state"] != "firing" or a["severity"] not in SEVERITY:
            continue
        rank = order.index(a["severity"])
        for e in alert_entities(a["labels"]):
            worst[e] = min(worst.get(e, rank), rank)
    for name, c in pos.items():
        rgb = SEVERITY[order[worst[name]]] if name in worst else HEALTHY
        _box(img, c, BOX // 2, rgb)
    # the timeline: time runs left to right over the episode, now is a dark line
    top = GRAPH_H + 8
    img[top - 4, :] = AXIS
    lane_h = max((HEIGHT - top) // ROWS, 1)
    span = max(end - start, 1.0)

    def x_of(t: float) -> int:
        return int(np.clip((t - start) / span, 0.0, 1.0) * (WIDTH - 1))

    for k, a in enumerate(alerts):
        t0 = _time(a.get("starts_at"))
        if t0 is None:
            continue
        t1 = _time(a.get("ends_at")) if a["state"] != "firing" else now
        y = top + (k % ROWS) * lane_h
        rgb = SEVERITY.get(a["severity"], AXIS)
        img[y : y + max(lane_h - 1, 1), x_of(t0) : max(x_of(t1 or now), x_of(t0) + 1) + 1] = rgb
    img[top:, x_of(now)] = NOW
    return img
