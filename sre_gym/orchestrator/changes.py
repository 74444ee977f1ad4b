"""The change stream: which benign changes deploy when, and how every deploy presents itself.

Production namespaces deploy all the time and most deploys are harmless: change-failure rates in
industry surveys sit around 5-20 % (DORA, *Accelerate State of DevOps* 2019-2023: elite and high
performers 0-15 %, medium 16-30 %). So in the injection window the benign deploys are as many as the
profile's ``change_failure_rate`` (default 15 %) asks for against the change-delivered faults there,
drawn with the same ramp as the faults (the share of faulty deploys is then the same early and late),
and they keep arriving at the window's mean rate until five minutes before the end. Each benign deploy
takes a corpus change not deployed yet in the episode (no title repeats), of a kind drawn with the
faulty changes' kind mix, that merges with the benign changes already picked for its service (they
all stack on one repository head); benign deploys land on faulted services too, except that a code
or image deploy waits out a bad-image fault on its service (a new build would replace the bad tag).

How a deploy presents itself is drawn per episode for faulty and benign deploys alike: one of the
change's wordings, a title style with a ticket id of the owning team's project (numbered in deploy
order) or a PR number, and an author from the team. A title memorised from another seed therefore
names no change; the kind, size and wording of a change remain (docs/scoring.md, Known limits).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sre_gym.catalogs import load_catalog
from sre_gym.catalogs.schema import AppCatalog, Change
from sre_gym.rng import Streams
from sre_gym.unidiff import parse_diff

TAIL_S = 300  # no deploy starts in the last five minutes of a run
BAD_IMAGE_GAP_S = 120  # a code or image deploy keeps this far from a bad-image fault's window
STYLES = (
    "{text} ({key}-{n})",
    "[{key}-{n}] {text}",
    "{key}-{n}: {text}",
    "{text} (#{pr})",
    "{text}",
    "{key}-{n} {text}",
)


def kind_of(c: Change) -> str:
    """The kind a deploy shows: code, config, image, or flags (a config change of flagd's file)."""
    return "flags" if c.flags else c.kind


def benign_changes(app: str) -> list[Change]:
    """Changes no fault names and that carry no defect: the ordinary deploys of the corpus."""
    cat = load_catalog(app, include_quarantined=True)
    named = {f.change for f in cat.faults if f.change}
    return [c for c in cat.changes if c.id not in named and c.defect is None]


@functools.cache
def kind_weights(app: str) -> dict[str, float]:
    """The faulty changes' kind mix (benign deploys are drawn with it)."""
    cat = load_catalog(app, include_quarantined=True)
    by_id = {c.id: c for c in cat.changes}
    kinds = [kind_of(by_id[f.change]) for f in cat.faults if f.change]
    if not kinds:
        return {"code": 1.0}
    return {k: kinds.count(k) / len(kinds) for k in sorted(set(kinds))}


def _footprint(c: Change) -> frozenset[tuple[str, int]]:
    """(file, base line) pairs a change edits, widened by a line each side; created files and
    flag names count whole; a change that only sets env vars is an edit of those settings (the
    pipeline re-applies it to any head). Two changes whose footprints meet do not stack."""
    if c.env_only:
        return frozenset((f"env:{c.service}:{k}", -1) for k in c.env)
    out: set[tuple[str, int]] = set()
    for fp in parse_diff(c.diff):
        if fp.old_path is None or fp.new_path is None or fp.old_path != fp.new_path:
            out.add((fp.path, -1))
            continue
        for h in fp.hunks:
            line = h.old_start
            for kind, _ in h.lines:
                if kind == " ":
                    line += 1
                    continue
                out.update((fp.path, x) for x in (line - 1, line, line + 1))
                if kind == "-":
                    line += 1
    out.update((f"flag:{name}", -1) for name in c.flags)
    return frozenset(out)


@functools.cache
def conflicts(app: str) -> dict[str, frozenset[str]]:
    """Benign change id -> the benign changes of its service it does not stack with."""
    by_svc: dict[str, list[Change]] = {}
    for c in benign_changes(app):
        by_svc.setdefault(c.service, []).append(c)
    out: dict[str, frozenset[str]] = {}
    for cs in by_svc.values():
        foot = {c.id: _footprint(c) for c in cs}
        for c in cs:
            out[c.id] = frozenset(o.id for o in cs if o.id != c.id and foot[c.id] & foot[o.id])
    return out


def benign_times(
    k: int, rate: float, power: float, offset: float, inject: int, episode: int, g
) -> np.ndarray:
    """Deploy times: ``k`` in the injection window with the faults' ramp, then the window's mean
    rate (deploys/s ``rate``) until ``TAIL_S`` before the end; on the 15 s tick grid."""
    u = (np.arange(k) + g.random(k)) / max(k, 1)
    lo, hi = offset ** (power + 1), (offset + 1) ** (power + 1)
    inside = ((lo + u * (hi - lo)) ** (1 / (power + 1)) - offset) * inject
    rest = max(0, episode - TAIL_S - inject)
    m = int(round(rate * rest))
    after = inject + (np.arange(m) + g.random(m)) / max(m, 1) * rest
    times = np.concatenate([inside, after]) if m else inside
    return np.minimum(times // 15 * 15, episode - TAIL_S).astype(int)


def pick_benign(
    app: str, times: np.ndarray, blocked: list[tuple[int, int, str]], g
) -> list[tuple[int, str]]:
    """(time, change id) for each deploy time: a kind drawn with the faulty mix, then a change of
    that kind not used yet that stacks with the ones picked for its service. ``blocked`` holds
    (start, end, service) windows in which code and image deploys may not land on the service."""
    pool = benign_changes(app)
    if not pool:
        return []
    weights = kind_weights(app)
    by_kind: dict[str, list[Change]] = {}
    for c in pool:
        by_kind.setdefault(kind_of(c), []).append(c)
    kinds = [k for k in weights if by_kind.get(k)] or sorted(by_kind)
    w = np.array([weights.get(k, 0.0) for k in kinds]) + 1e-12
    cum = np.cumsum(w / w.sum())
    clash = conflicts(app)
    windows: dict[str, list[tuple[int, int]]] = {}
    for s, e, svc in blocked:
        windows.setdefault(svc, []).append((s, e))
    # per kind, which changes are not used yet and stack with every one used (both only shrink as
    # changes are used): a mask per kind, cleared where a used change and its clashes sit
    alive = {k: np.ones(len(cs), dtype=bool) for k, cs in by_kind.items()}
    where = {c.id: (k, i) for k, cs in by_kind.items() for i, c in enumerate(cs)}
    service = {k: np.array([c.service for c in cs]) for k, cs in by_kind.items()}
    out: list[tuple[int, str]] = []
    draws = g.random((len(times), 2))
    for t, (r_kind, r_pick) in zip(times, draws, strict=True):
        first = int(np.searchsorted(cum, r_kind, side="right"))
        closed = {
            svc
            for svc, ws in windows.items()
            if any(s - BAD_IMAGE_GAP_S <= t < e + BAD_IMAGE_GAP_S for s, e in ws)
        }
        for j in range(len(kinds)):  # the drawn kind first, then the others in order
            kind = kinds[(min(first, len(kinds) - 1) + j) % len(kinds)]
            ok = alive[kind]
            if closed and kind in ("code", "image"):
                ok = ok & ~np.isin(service[kind], sorted(closed))
            idx = np.flatnonzero(ok)
            if len(idx):
                c = by_kind[kind][int(idx[int(r_pick * len(idx))])]
                # conflicts are symmetric: drop the change and every change it clashes with
                for gid in clash.get(c.id, frozenset()) | {c.id}:
                    if gid in where:
                        k, i = where[gid]
                        alive[k][i] = False
                out.append((int(t), c.id))
                break
    return out


# ------------------------------------------------------------------------------ presentation
@dataclass(frozen=True)
class Presentation:
    """How one deploy shows in ``list_changes``: its title and author."""

    title: str
    author: str

    def __deepcopy__(self, memo: dict | None = None) -> Presentation:
        return self  # frozen strings: copies of the world share it


def present(
    cat: AppCatalog, streams: Streams, deliveries: list[tuple[float, str, Change]]
) -> dict[str, Presentation]:
    """Title and author of every delivery (time, slot key, change), drawn per episode. Ticket
    numbers of a team's project and PR numbers count up in delivery order, so no two titles of an
    episode are equal and neither the numbers nor the form tell faulty deploys from benign ones."""
    g = streams.gen("change-presentation")
    team_base: dict[str, int] = {}
    team_n: dict[str, int] = {}
    pr = 2000 + int(g.integers(0, 18000))
    out: dict[str, Presentation] = {}
    for i, (_, slot, ch) in enumerate(sorted(deliveries, key=lambda d: (d[0], d[1]))):
        team = cat.team(ch.service)
        if team.key not in team_base:
            team_base[team.key] = 100 + int(
                streams.gen("ticket-base", _stable(team.key)).integers(0, 8800)
            )
        n = team_base[team.key] + team_n.get(team.key, 0)
        team_n[team.key] = team_n.get(team.key, 0) + 1
        r = streams.gen("change-presentation", i + 1).random(3)
        words = ch.wordings
        text = words[int(r[0] * len(words))]
        style = STYLES[int(r[1] * len(STYLES))]
        author = team.members[int(r[2] * len(team.members))]
        out[slot] = Presentation(style.format(text=text, key=team.key, n=n, pr=pr + i), author)
    return out


def _stable(s: str) -> int:
    return int.from_bytes(s.encode()[:8].ljust(8, b"\0"), "little") & 0xFFFFFFFF
