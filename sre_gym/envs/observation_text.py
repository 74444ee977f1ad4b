"""The observation's text fields: JSON with a length limit, and the alert history they send whole
every step, kept up to date from one invocation to the next.

The history reaches thousands of alerts on Train Ticket, but between two invocations most of it is
as it was: only new alerts and changed states need work. An alert's entry depends only on its id
and state, so each is built and encoded once per state.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

ALERTS_CHARS = 1 << 21
# what the observation shows of each alert (get_alerts also gives the description)
ALERT_KEYS = ("id", "name", "severity", "state", "labels", "starts_at", "ends_at", "summary")


def truncate(s: str, limit: int) -> str:
    if len(s) > limit:
        s = s[: limit - 64] + f'..."[truncated {len(s) - limit + 64} characters]"'
    return s


def dump(x: Any, limit: int) -> str:
    """Compact, key-sorted JSON of ``x``, truncated to ``limit`` characters."""
    s = json.dumps(x, sort_keys=True, ensure_ascii=True, default=str, separators=(",", ":"))
    return truncate(s, limit)


def _carry(items: list, last: tuple[list, list], make: Callable[[Any], Any]) -> list:
    """``[make(x) for x in items]``, taking over the result of each item that is the same object
    at the same place as in ``last`` (the previous call's items and results)."""
    before, done = last
    n = len(before)
    return [done[i] if i < n and before[i] is x else make(x) for i, x in enumerate(items)]


class AlertHistory:
    """One episode's alert history as the observation shows it. It reads the backend's
    ``alert_listing``, whose views are replaced, never changed, when an alert's state changes: a
    view that is the same object as at the last read gives the same entry and text as then."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], dict[str, Any]] = {}  # (id, state) -> entry
        self._json: dict[tuple[str, str], str] = {}
        self._views: tuple[list, list] = ([], [])  # the backend's views, and their entries
        self._parts: tuple[list, list] = ([], [])  # entries, and their JSON
        self._memo: tuple[Any, float, list[dict[str, Any]]] | None = None

    def entries(self, backend: Any, t: float) -> list[dict[str, Any]]:
        """Every alert listed as of ``t``, with the observation's keys: shared, to read and not
        to change. Built once per time: once the world has run to ``t``, the history as of then no
        longer changes."""
        memo = self._memo
        if memo is not None and memo[0] is backend and memo[1] == t:
            return memo[2]
        shown = self._entries

        def entry(a: dict[str, Any]) -> dict[str, Any]:
            key = (a["id"], a["state"])
            if key not in shown:
                shown[key] = {k: a[k] for k in ALERT_KEYS}
            return shown[key]

        listing = backend.alert_listing(t)
        out = _carry(listing, self._views, entry)
        self._views = (listing, out)
        if backend.now >= t:  # (a live world's clock may not have reached it yet)
            self._memo = (backend, t, out)
        return out

    def text(self, backend: Any, t: float) -> str:
        """``entries`` as JSON text (the same bytes as encoding the whole list at once)."""
        cache = self._json

        def encode(a: dict[str, Any]) -> str:
            key = (a["id"], a["state"])
            if key not in cache:
                cache[key] = dump(a, ALERTS_CHARS)
            return cache[key]

        shown = self.entries(backend, t)
        parts = _carry(shown, self._parts, encode)
        self._parts = (shown, parts)
        return truncate("[" + ",".join(parts) + "]", ALERTS_CHARS)
