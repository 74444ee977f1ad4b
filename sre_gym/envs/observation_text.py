"""The observation's text fields: JSON with a length limit, and the alert history they send whole
every step, kept up to date from one invocation to the next; and the context budget of the text
surfaces (OpenEnv, MCP, SkyRL): what is new since the last step, fitted to a size cap.

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


# ---------------------------------------------------------------------------------- the context budget
def _dumps(x: Any) -> str:
    return json.dumps(x, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)


def shrink(x: Any, limit: int, tail: bool = False) -> Any:
    """``x`` made to fit about ``limit`` characters of JSON while staying JSON: long strings are cut,
    lists keep the items that fit (the newest ones when ``tail``) plus a note of how many were left
    out, and objects share the room among their values."""
    if isinstance(x, str):
        return x if len(x) <= limit else x[: max(limit - 40, 16)] + f"... [{len(x) - limit} more]"
    if isinstance(x, list):
        items = list(reversed(x)) if tail else list(x)
        kept, size = [], 2
        for item in items:
            room = limit - size - 80
            if room <= 0:
                break
            y = item if len(_dumps(item)) <= room else shrink(item, room, tail)
            n = len(_dumps(y)) + 1
            if size + n > limit - 80:
                break
            kept.append(y)
            size += n
        if tail:
            kept.reverse()
        more = len(x) - len(kept)
        if more:
            note = {"truncated": f"{more} more items not shown; narrow the query"}
            kept = [note, *kept] if tail else [*kept, note]
        return kept
    if isinstance(x, dict):
        share = max(limit // max(len(x), 1) - 8, 32)
        return {k: (v if len(_dumps(v)) <= share else shrink(v, share, tail)) for k, v in x.items()}
    return x


def compact_json(x: Any, limit: int, tail: bool = False) -> str:
    """Compact JSON of a tool result, at most about ``limit`` characters, still valid JSON."""
    s = _dumps(x)
    if len(s) <= limit:
        return s
    s = _dumps(shrink(x, limit, tail))
    return s if len(s) <= limit + 200 else s[:limit] + f"... [{len(s) - limit} more characters]"


# what one step's text observation may hold by default (the OpenEnv, MCP and SkyRL surfaces)
OBSERVATION_CHARS = 16_384
CONTEXTS = ("delta", "cumulative")


def check_context(context: str) -> str:
    if context not in CONTEXTS:
        raise ValueError(f"unknown context {context!r}; use one of {', '.join(CONTEXTS)}")
    return context


# labels an alert's entry already says elsewhere (its name and severity), or that every alert of
# the app carries (its namespace)
_SAID = ("alertname", "severity", "namespace")


def compact_alert(a: dict[str, Any]) -> dict[str, Any]:
    """An alert entry without what it repeats: labels that restate its name, severity or the app's
    namespace, and an ``ends_at`` that is not set. Nothing else is left out."""
    out = {k: v for k, v in a.items() if not (k == "ends_at" and v is None)}
    out["labels"] = {k: v for k, v in a["labels"].items() if k not in _SAID}
    return out


class AlertDelta:
    """The alerts an observer has not seen in their current state: new ones, and those whose state
    changed since it last looked (an alert that resolves, or fires again)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def changes(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The entries new or changed since the last call, in history order; remembers them."""
        seen = self._seen
        out = []
        for a in entries:
            if seen.get(a["id"]) != a["state"]:
                seen[a["id"]] = a["state"]
                out.append(a)
        return out


def fit(
    fields: dict[str, Any], cap: int | None, order: tuple[str, ...], fixed: int = 0
) -> tuple[dict[str, Any], dict[str, str]]:
    """``fields`` made to fit ``cap`` characters of compact JSON (with ``fixed`` more characters
    taken by the rest of the observation). Only the fields named in ``order`` are cut: the room
    they have is shared so that each small one stays whole and the large ones get equal shares
    (a list keeps its first items, other values are shrunk as ``shrink`` does). Returns the
    fields and, per cut field, a note of what was left out. ``cap=None``: no cap."""
    if cap is None or len(_dumps(fields)) + fixed <= cap:
        return fields, {}
    out = dict(fields)
    keys = [k for k in order if k in out]
    sizes = {k: len(_dumps(out[k])) for k in keys}
    rest = len(_dumps({k: v for k, v in out.items() if k not in sizes}))
    room = cap - fixed - rest - 80 * len(keys) - 16  # the notes, and the keys themselves
    # water-filling: the smallest fields first, each whole if it fits its share
    share: dict[str, int] = {}
    left, n = room, len(keys)
    for k in sorted(keys, key=sizes.__getitem__):
        fair = max(left // max(n, 1), 0)
        share[k] = sizes[k] if sizes[k] <= fair else fair
        left -= share[k]
        n -= 1
    notes: dict[str, str] = {}
    for k in keys:
        if sizes[k] <= share[k]:
            continue
        v, target = out[k], max(share[k], 2)
        if isinstance(v, list):
            kept, used = [], 2
            for item in v:
                m = len(_dumps(item)) + 1
                if used + m > target:
                    break
                kept.append(item)
                used += m
            out[k] = kept
            notes[k] = f"{len(v) - len(kept)} of {len(v)} left out"
            continue
        out[k] = shrink(v, max(target - 120, 16))
        if len(_dumps(out[k])) > target:  # still too long: its text, cut
            text = v if isinstance(v, str) else _dumps(v)
            out[k] = text[: max(target - 60, 0)] + f"... [{len(text)} characters in all]"
        notes[k] = f"cut from {sizes[k]} characters"
    return out, notes
