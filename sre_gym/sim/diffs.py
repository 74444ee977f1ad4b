"""Unified diffs over source trees: parse, apply with context verification, reverse and write them.

Change-delivered faults, ordinary deploys and agent patches all arrive as unified diffs (``git diff``
or ``diff -u`` output, several files allowed) against a service's source tree. ``parse_diff`` reads
them with ``sre_gym.unidiff`` (the pure text format) and raises ``PatchError`` where one does not
parse; ``apply_diff`` checks every hunk's context and raises ``PatchError`` naming the file, the hunk
and the line that do not apply; ``make_diff`` / ``tree_diff`` write diffs and ``reverse_diff`` writes
the diff that undoes one.

The text-level steps (parsing a diff, applying one file's hunks, three-way merging and writing one
file's diff) are pure functions of strings, and an episode repeats them on the same corpus changes
and files, so each keeps a bounded memo of its results (errors are not memoised).
"""

from __future__ import annotations

import difflib
import functools
import io
from collections.abc import Iterable

from sre_gym import unidiff
from sre_gym.sim.source_trees import PipelineError, Tree
from sre_gym.unidiff import DiffError, FilePatch, Hunk


class PatchError(PipelineError):
    """A diff that cannot be parsed or does not apply; the message says where and why."""


# entries per memo (each holds a source file or diff of a few kB): about half an episode's, where
# most hits come from; 1,024 kept about 13 MB in an acting process for a few percent of hits more
_MEMO = 256


def parse_diff(diff: str, *, strict: bool = False) -> list[FilePatch]:
    """Parse a unified diff with ``sre_gym.unidiff.parse_diff``; a diff that does not parse raises
    ``PatchError`` (a ``PipelineError``) with the parser's message."""
    try:
        return unidiff.parse_diff(diff, strict=strict)
    except DiffError as e:
        raise PatchError(*e.args) from None


def _eol(text: str) -> bool:
    """Does ``text`` end with a newline (an empty text counts as ending with one)?"""
    return text == "" or text.endswith("\n")


def _split(text: str) -> tuple[list[str], bool]:
    if text == "":
        return [], True
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts, _eol(text)


def _join(lines: list[str], eol: bool) -> str:
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if eol else "")


def _apply_file(path: str, text: str, hunks: Iterable[Hunk], strict: bool, notes: list[str]) -> str:
    new_text, added = _apply_hunks(path, text, tuple(hunks), strict)
    notes.extend(added)
    return new_text


@functools.lru_cache(maxsize=_MEMO)
def _apply_hunks(
    path: str, text: str, hunks: tuple[Hunk, ...], strict: bool
) -> tuple[str, tuple[str, ...]]:
    """(new text, offset notes) of applying one file's hunks to ``text``."""
    notes: list[str] = []
    src, eol = _split(text)
    out: list[str] = []
    cursor = 0
    for number, h in enumerate(hunks, 1):
        old = h.old_lines
        want = max(h.old_start - 1, 0) if h.old_len else h.old_start
        pos = _locate(src, old, want, cursor, strict)
        if pos is None:
            raise PatchError(_mismatch(path, number, h, src, want))
        if pos != want:
            notes.append(
                f"{path}: hunk {number} applied at line {pos + 1} (offset {pos - want:+d})"
            )
        out.extend(src[cursor:pos])
        out.extend(h.new_lines)
        cursor = pos + len(old)
        if cursor >= len(src):  # the hunk reaches the end of the file: it decides the final newline
            if not h.new_eof_nl:
                eol = False
            elif not h.old_eof_nl:
                eol = True
    out.extend(src[cursor:])
    return _join(out, eol), tuple(notes)


def _locate(src: list[str], old: list[str], want: int, cursor: int, strict: bool) -> int | None:
    k = len(old)
    if cursor <= want <= len(src) - k and src[want : want + k] == old:
        return want
    if strict:
        return None
    # search outward from the stated line, never before the end of the previous hunk (git apply)
    limit = max(want - cursor, len(src) - want)
    for d in range(1, limit + 1):
        for p in (want - d, want + d):
            if cursor <= p <= len(src) - k and src[p : p + k] == old:
                return p
    return None


def _mismatch(path: str, number: int, h: Hunk, src: list[str], want: int) -> str:
    old = h.old_lines
    line = want + 1
    for j, expected in enumerate(old):
        at = want + j
        if at >= len(src):
            return (
                f"{path}: hunk {number} does not apply at line {line}: the file has only "
                f"{len(src)} lines (the hunk expects {expected!r} at line {at + 1})"
            )
        if src[at] != expected:
            return (
                f"{path}: hunk {number} does not apply at line {line}: line {at + 1} is "
                f"{src[at]!r}, the hunk expects {expected!r} (and its context matches nowhere else)"
            )
    return f"{path}: hunk {number} does not apply at line {line} (overlaps the previous hunk)"


def apply_diff(
    tree: Tree, diff: str | list[FilePatch], *, reverse: bool = False, strict: bool = False
) -> tuple[dict[str, str], list[str]]:
    """Apply ``diff`` to ``tree`` and return (new tree, notes). The input tree is not modified.

    Each hunk's removed and context lines must match the file exactly. In strict mode they must
    match at the stated line and the header counts must be right (the corpus is held to this); in
    the default mode a hunk may apply at an offset (nearest exact match, as ``git apply`` does) and
    the notes say where. Raises ``PatchError`` naming the file, the hunk and the line.
    """
    patches = parse_diff(diff, strict=strict) if isinstance(diff, str) else diff
    if reverse:
        patches = [fp.reversed() for fp in patches]
    out = dict(tree)
    notes: list[str] = []
    for fp in patches:
        if fp.old_path is None:  # new file
            if fp.new_path in out:
                raise PatchError(f"{fp.new_path}: the diff creates this file but it already exists")
            h = fp.hunks[0]
            if len(fp.hunks) != 1 or h.old_lines:
                raise PatchError(f"{fp.new_path}: a new file takes exactly one hunk of added lines")
            out[fp.new_path] = _join(h.new_lines, h.new_eof_nl) if h.new_lines else ""
            continue
        if fp.old_path not in out:
            near = difflib.get_close_matches(fp.old_path, list(out), n=1)
            hint = f" (did you mean {near[0]}?)" if near else ""
            raise PatchError(f"{fp.old_path}: file not found in the source tree{hint}")
        new_text = _apply_file(fp.old_path, out[fp.old_path], fp.hunks, strict, notes)
        if fp.new_path is None:  # deletion
            if new_text != "":
                raise PatchError(
                    f"{fp.old_path}: the diff deletes this file but does not remove all of it"
                )
            del out[fp.old_path]
            continue
        if fp.new_path != fp.old_path:
            if fp.new_path in out:
                raise PatchError(f"{fp.new_path}: rename target already exists")
            del out[fp.old_path]
        out[fp.new_path] = new_text
    return out, notes


def line_edits(old: str, new: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """The line edits turning ``old`` into ``new``: (start, end, replacement) in ``old``'s line
    coordinates."""
    a, b = _split(old)[0], _split(new)[0]
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return tuple(
        (i1, i2, tuple(b[j1:j2])) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"
    )


# memoised: a corpus change's edits of its base file recur in every merge of it
_edits = functools.lru_cache(maxsize=_MEMO)(line_edits)


@functools.lru_cache(maxsize=_MEMO)
def merge3(base: str, mine: str, theirs: str) -> str | None:
    """Three-way line merge (diff3): the edits of ``mine`` and of ``theirs`` against ``base``,
    combined; None when they touch the same or adjacent lines (a conflict), unless they agree."""
    if mine in (base, theirs):
        return theirs
    if theirs == base:
        return mine
    b, b_eol = _split(base)
    m_eol, t_eol = _eol(mine), _eol(theirs)
    if clash(base, mine, theirs):
        return None
    edits = sorted({*_edits(base, mine), *_edits(base, theirs)})
    out: list[str] = []
    pos = 0
    for s, e, r in edits:
        out += b[pos:s]
        out += list(r)
        pos = max(pos, e)
    out += b[pos:]
    eol = m_eol if m_eol != b_eol else t_eol
    return _join(out, eol)


def clash(base: str, mine: str, theirs: str) -> bool:
    """Do the edits of ``mine`` and ``theirs`` against ``base`` meet (``edits_meet``)? Then a
    three-way merge of them conflicts, as in git."""
    return edits_meet(_edits(base, mine), _edits(base, theirs))


def edits_meet(ours, theirs) -> bool:
    """Do two sets of ``line_edits`` of one text touch the same or adjacent lines (and differ
    there)?"""
    for s1, e1, r1 in ours:
        for s2, e2, r2 in theirs:
            if s1 <= e2 and s2 <= e1 and (s1, e1, r1) != (s2, e2, r2):
                return True
    return False


def merge_diff(
    tree: Tree, diff: str, written_against: Tree, *, reverse: bool = False, direct: bool = True
) -> dict[str, str]:
    """Apply ``diff``, written against ``written_against``, to ``tree`` as ``git cherry-pick`` (or
    with ``reverse``, ``git revert``) does: directly where it applies, else by a three-way merge of
    its edits with what changed in ``tree`` since. Raises ``PatchError`` on a conflict.
    ``direct=False`` skips the direct attempt (for a caller that has just seen it fail)."""
    if direct:
        try:
            return apply_diff(tree, diff, reverse=reverse)[0]
        except PatchError:
            pass
    before = dict(written_against)
    after, _ = apply_diff(before, diff)
    if reverse:
        before, after = after, before
    out = dict(tree)
    for path in sorted(set(before) | set(after)):
        if before.get(path) == after.get(path):
            continue
        if path not in out or path not in before or path not in after:
            if out.get(path) != before.get(path):
                raise PatchError(f"{path}: conflicts with later changes to the file")
            if path in after:
                out[path] = after[path]
            else:
                del out[path]
            continue
        merged = merge3(before[path], out[path], after[path])
        if merged is None:
            raise PatchError(f"{path}: conflicts with later changes to the same lines")
        out[path] = merged
    return out


def merges(tree: Tree, a: str, b: str) -> bool:
    """Can diffs ``a`` and ``b`` (both written against ``tree``) stack in either order, and each
    still be reverted with the other in place? (Changes of one service that merge can be deployed,
    stacked and reverted in any order on the repository head.)"""
    try:
        ta = apply_diff(tree, a)[0]
        tb = apply_diff(tree, b)[0]
        ab = merge_diff(ta, b, tree)
        ba = merge_diff(tb, a, tree)
        if ab != ba:
            return False
        merge_diff(ab, a, tree, reverse=True)
        merge_diff(ab, b, tree, reverse=True)
    except PatchError:
        return False
    return True


def changed_files(diff: str) -> list[str]:
    return [fp.path for fp in parse_diff(diff)]


_NO_EOL = "\x00"


@functools.lru_cache(maxsize=_MEMO)
def make_diff(path: str, old: str | None, new: str | None, context: int = 3) -> str:
    """A unified diff of one file (``old`` None creates it, ``new`` None deletes it); "" if equal."""
    a_lines, a_eol = _split(old or "")
    b_lines, b_eol = _split(new or "")
    if a_lines and not a_eol:  # mark the last line so that a changed final newline is a change
        a_lines[-1] += _NO_EOL
    if b_lines and not b_eol:
        b_lines[-1] += _NO_EOL
    body = list(difflib.unified_diff(a_lines, b_lines, lineterm="", n=context))[2:]
    if not body and (old is None) == (new is None):
        return ""
    if not body:  # an empty file created or deleted
        body = ["@@ -0,0 +0,0 @@"]
    out = [f"--- {'a/' + path if old is not None else '/dev/null'}"]
    out.append(f"+++ {'b/' + path if new is not None else '/dev/null'}")
    for ln in body:
        if ln.endswith(_NO_EOL):
            out += [ln[:-1], "\\ No newline at end of file"]
        else:
            out.append(ln)
    return "\n".join(out) + "\n"


def tree_diff(old: Tree, new: Tree, context: int = 3) -> str:
    """The unified diff turning tree ``old`` into tree ``new`` (files in path order)."""
    parts = []
    for p in sorted(set(old) | set(new)):
        if old.get(p) != new.get(p):
            parts.append(make_diff(p, old.get(p), new.get(p), context))
    return "".join(parts)


def format_hunk(h: Hunk) -> str:
    """The text of one hunk, with "\\ No newline at end of file" markers where they belong."""
    out = [f"@@ -{h.old_start},{h.old_len} +{h.new_start},{h.new_len} @@"]
    last_old = max((i for i, (k, _) in enumerate(h.lines) if k != "+"), default=-1)
    last_new = max((i for i, (k, _) in enumerate(h.lines) if k != "-"), default=-1)
    for i, (k, t) in enumerate(h.lines):
        out.append(f"{k}{t}")
        if (i == last_old and not h.old_eof_nl) or (i == last_new and not h.new_eof_nl):
            out.append("\\ No newline at end of file")
    return "\n".join(out) + "\n"


def reverse_diff(diff: str) -> str:
    """The diff that undoes ``diff`` (hunks flipped; the same files)."""
    buf = io.StringIO()
    for fp in (p.reversed() for p in parse_diff(diff)):
        buf.write(f"--- {'a/' + fp.old_path if fp.old_path else '/dev/null'}\n")
        buf.write(f"+++ {'b/' + fp.new_path if fp.new_path else '/dev/null'}\n")
        for h in fp.hunks:
            buf.write(format_hunk(h))
    return buf.getvalue()
