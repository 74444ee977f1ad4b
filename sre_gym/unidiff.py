"""Unified diffs as text: parse ``git diff`` or ``diff -u`` output into file patches and hunks.

Pure and standard-library only, like ``clock`` and ``rng``: the simulator's build pipeline applies,
merges and reverses the parsed patches (``sim/diffs.py``, which raises its ``PatchError`` for a diff
that does not parse), and the change stream reads which lines a corpus change edits off them
(``orchestrator/changes.py``). Parsing is memoised (an episode parses the same corpus diffs again and
again); errors are not.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath


class DiffError(ValueError):
    """A diff that cannot be parsed; the message says where and why."""


@dataclass(frozen=True)
class Hunk:
    old_start: int
    old_len: int
    new_start: int
    new_len: int
    lines: tuple[tuple[str, str], ...]  # (" " | "-" | "+", text)
    old_eof_nl: bool = True  # False when "\ No newline at end of file" follows an old-side line
    new_eof_nl: bool = True
    at: int = 0  # line of the "@@" header in the diff text (1-based), for messages

    @property
    def old_lines(self) -> list[str]:
        return [t for k, t in self.lines if k != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [t for k, t in self.lines if k != "-"]

    def reversed(self) -> Hunk:
        flip = {"+": "-", "-": "+", " ": " "}
        lines: list[tuple[str, str]] = []
        block: list[tuple[str, str]] = []
        for k, t in [*self.lines, (" ", None)]:
            if k == " ":  # flush a change block with removals first, as diff tools write them
                lines += [x for x in block if x[0] == "-"] + [x for x in block if x[0] == "+"]
                block = []
                if t is not None:
                    lines.append((k, t))
            else:
                block.append((flip[k], t))
        return Hunk(
            self.new_start,
            self.new_len,
            self.old_start,
            self.old_len,
            tuple(lines),
            self.new_eof_nl,
            self.old_eof_nl,
            self.at,
        )


@dataclass(frozen=True)
class FilePatch:
    old_path: str | None  # None for a new file (/dev/null)
    new_path: str | None  # None for a deleted file
    hunks: tuple[Hunk, ...]

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    def reversed(self) -> FilePatch:
        return FilePatch(self.new_path, self.old_path, tuple(h.reversed() for h in self.hunks))


_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _clean_path(raw: str, lineno: int) -> str | None:
    p = raw.split("\t", 1)[0].strip()
    if p.startswith('"') and p.endswith('"') and len(p) >= 2:
        p = p[1:-1]
    if p == "/dev/null":
        return None
    if not p:
        raise DiffError(f"line {lineno}: file header without a path")
    return p


def _safe_path(p: str, lineno: int) -> str:
    pp = PurePosixPath(p)
    if pp.is_absolute() or ".." in pp.parts or p.startswith("~"):
        raise DiffError(f"line {lineno}: path {p!r} must be relative to the repository root")
    return pp.as_posix()


_MEMO = 1024  # entries in the memo (each holds a parsed diff of a few kB): about two episodes


def parse_diff(diff: str, *, strict: bool = False) -> list[FilePatch]:
    """Parse a unified diff (``git diff`` or ``diff -u`` output, several files allowed).

    Lines before the first ``---`` header (``diff --git``, ``index``, a commit message) are ignored.
    With ``strict`` the hunk line counts of each ``@@`` header must match its body exactly; otherwise
    the body is authoritative (like ``git apply --recount``). ``a/`` and ``b/`` prefixes are removed.
    Raises ``DiffError`` saying where a diff does not parse.
    """
    if not isinstance(diff, str) or not diff.strip():
        raise DiffError("empty diff")
    return list(_parse_diff(diff, strict))


@functools.lru_cache(maxsize=_MEMO)
def _parse_diff(diff: str, strict: bool) -> tuple[FilePatch, ...]:
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    patches: list[FilePatch] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not (line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ ")):
            if line.startswith("@@") and not patches:
                raise DiffError(
                    f"line {i + 1}: hunk before any '--- a/<file>' / '+++ b/<file>' header"
                )
            i += 1
            continue
        old = _clean_path(line[4:], i + 1)
        new = _clean_path(lines[i + 1][4:], i + 2)
        if old is None and new is None:
            raise DiffError(f"line {i + 1}: both sides of the file header are /dev/null")
        if old is not None and new is not None and old.startswith("a/") and new.startswith("b/"):
            old, new = old[2:], new[2:]
        elif old is None and new is not None and new.startswith("b/"):
            new = new[2:]
        elif new is None and old is not None and old.startswith("a/"):
            old = old[2:]
        old = _safe_path(old, i + 1) if old is not None else None
        new = _safe_path(new, i + 2) if new is not None else None
        i += 2
        hunks: list[Hunk] = []
        while i < n and lines[i].startswith("@@"):
            hunk, i = _parse_hunk(lines, i, strict, len(hunks) + 1)
            hunks.append(hunk)
        if not hunks:
            raise DiffError(f"line {i}: file {new or old} has a header but no hunks")
        patches.append(FilePatch(old, new, tuple(hunks)))
    if not patches:
        raise DiffError(
            "no file headers found (expected '--- a/<path>' followed by '+++ b/<path>')"
        )
    seen: set[str] = set()
    for fp in patches:
        if fp.path in seen:
            raise DiffError(f"file {fp.path} appears twice in the diff")
        seen.add(fp.path)
    return tuple(patches)


def _parse_hunk(lines: list[str], i: int, strict: bool, number: int) -> tuple[Hunk, int]:
    header = lines[i]
    m = _HUNK_RE.match(header)
    if not m:
        raise DiffError(
            f"line {i + 1}: malformed hunk header {header!r} (expected '@@ -l,s +l,s @@')"
        )
    o_start, n_start = int(m.group(1)), int(m.group(3))
    o_len = int(m.group(2)) if m.group(2) is not None else 1
    n_len = int(m.group(4)) if m.group(4) is not None else 1
    at = i + 1
    i += 1
    body: list[tuple[str, str]] = []
    old_nl = new_nl = True
    o_seen = n_seen = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        done = o_seen >= o_len and n_seen >= n_len
        if line.startswith("\\"):
            if not body:
                raise DiffError(f"line {i + 1}: '\\ No newline at end of file' outside a hunk body")
            k = body[-1][0]
            if k in (" ", "-"):
                old_nl = False
            if k in (" ", "+"):
                new_nl = False
            i += 1
            continue
        if done and (strict or line == ""):
            break
        if line.startswith("@@") or line.startswith("diff --git "):
            break
        if line.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            break
        tag = line[:1] if line else " "  # an empty line is an empty context line
        if tag not in (" ", "-", "+"):
            if done:
                break
            raise DiffError(
                f"line {i + 1}: hunk {number} body line must start with ' ', '-' or '+', got {line!r}"
            )
        body.append((tag, line[1:]))
        if tag != "+":
            o_seen += 1
        if tag != "-":
            n_seen += 1
        i += 1
    if strict and (o_seen, n_seen) != (o_len, n_len):
        raise DiffError(
            f"line {at}: hunk {number} header says -{o_start},{o_len} +{n_start},{n_len} "
            f"but its body has {o_seen} old and {n_seen} new lines"
        )
    if not body:
        raise DiffError(f"line {at}: hunk {number} is empty")
    return Hunk(o_start, o_seen, n_start, n_seen, tuple(body), old_nl, new_nl, at), i
