"""Linters: the checks of the build pipeline's ``lint`` stage, one linter per file type.

``lint_file`` checks a file with the linter of its type (``linter_of``): a parser for Python, JSON,
YAML, XML and TOML, a bracket-and-literal lexer for the brace languages, and for every type the two
common checks (no merge-conflict markers, a final newline). ``LINTERS`` names them all.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import yaml

if TYPE_CHECKING:
    from sre_gym.sim.source_trees import Tree

_CONFLICT_RE = re.compile(r"^(?:<{7}(?: .*)?|={7}|>{7}(?: .*)?)$", re.M)


@dataclass(frozen=True)
class LintIssue:
    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


@dataclass(frozen=True)
class _Syntax:
    """Lexical rules of a brace language, enough to find brackets outside strings and comments."""

    line_comments: tuple[str, ...] = ("//",)
    block_comments: tuple[tuple[str, str], ...] = (("/*", "*/"),)
    nested_block_comments: bool = False  # Rust, Kotlin
    strings: tuple[str, ...] = ('"',)  # single-line quoted strings with backslash escapes
    multiline_strings: tuple[str, ...] = ()  # quoted strings that may span lines (with escapes)
    raw_strings: tuple[str, ...] = ()  # strings without escapes that may span lines (Go `...`)
    char_quote: bool = False  # '...' is a character literal (one char or an escape)
    triple_quotes: bool = False  # """ text blocks / raw strings (Java 15+, Kotlin)
    template_literal: bool = False  # JS/TS `...${expr}...`
    rust_lifetimes: bool = False  # 'a is a lifetime unless it closes as a char literal
    cpp_raw: bool = False  # R"delim( ... )delim"
    csharp_verbatim: bool = False  # @"..." and $@"..." with "" escapes
    hash_comment_not_interp: bool = False  # Ruby/PHP/nginx '#' comments (Ruby '#{' only in strings)


SYNTAX: dict[str, _Syntax] = {
    "go": _Syntax(strings=('"',), raw_strings=("`",), char_quote=True),
    "java": _Syntax(strings=('"',), char_quote=True, triple_quotes=True),
    "groovy": _Syntax(strings=('"', "'"), triple_quotes=True),
    "kotlin": _Syntax(
        strings=('"',), char_quote=True, triple_quotes=True, nested_block_comments=True
    ),
    "js": _Syntax(strings=('"', "'"), template_literal=True),
    "ts": _Syntax(strings=('"', "'"), template_literal=True),
    "csharp": _Syntax(strings=('"',), char_quote=True, csharp_verbatim=True),
    "cpp": _Syntax(strings=('"',), char_quote=True, cpp_raw=True),
    "rust": _Syntax(
        strings=(), multiline_strings=('"',), rust_lifetimes=True, nested_block_comments=True
    ),
    "php": _Syntax(line_comments=("//", "#"), strings=(), multiline_strings=('"', "'")),
    "ruby": _Syntax(
        line_comments=("#",), block_comments=(), strings=(), multiline_strings=('"', "'")
    ),
    "nginx": _Syntax(
        line_comments=("#",), block_comments=(), strings=(), multiline_strings=('"', "'")
    ),
}
_PAIRS = {")": "(", "]": "[", "}": "{"}


def _brackets(path: str, text: str, syn: _Syntax) -> list[LintIssue]:
    """Balanced (), [] and {} outside string literals and comments, and terminated literals."""
    issues: list[LintIssue] = []
    stack: list[tuple[str, int, int, str]] = []  # (bracket, line, col, kind) kind: code|tmpl
    i, n = 0, len(text)
    line, col0 = 1, 0  # col0 = index of the current line's first char

    def pos(k: int) -> tuple[int, int]:
        return line, k - col0 + 1

    def newline_at(k: int) -> None:
        nonlocal line, col0
        line += 1
        col0 = k + 1

    def scan_string(k: int, quote: str, multiline: bool, escapes: bool = True) -> int:
        """Index after the closing quote of the literal opening at ``k`` (or -1 if unterminated)."""
        start_line, start_col = pos(k)
        j = k + len(quote)
        while j < n:
            c = text[j]
            if escapes and c == "\\":
                if j + 1 < n and text[j + 1] == "\n":
                    newline_at(j + 1)
                j += 2
                continue
            if text.startswith(quote, j):
                return j + len(quote)
            if c == "\n":
                if not multiline:
                    issues.append(
                        LintIssue(
                            path, start_line, start_col, f"unterminated string literal {quote}"
                        )
                    )
                    return -1
                newline_at(j)
            j += 1
        issues.append(
            LintIssue(path, start_line, start_col, f"unterminated string literal {quote}")
        )
        return -1

    while i < n:
        c = text[i]
        if c == "\n":
            newline_at(i)
            i += 1
            continue
        # template literal continuation: `}` closing a ${ ... } expression resumes the template
        if syn.template_literal and c == "}" and stack and stack[-1][3] == "tmpl":
            stack.pop()
            j = _scan_template(text, i + 1, issues, path, pos(i), newline_at, stack)
            if j < 0:
                return issues
            i = j
            continue
        if any(text.startswith(lc, i) for lc in syn.line_comments):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        opened = next((bc for bc in syn.block_comments if text.startswith(bc[0], i)), None)
        if opened:
            start = pos(i)
            depth, j = 1, i + len(opened[0])
            while j < n and depth:
                if text.startswith(opened[1], j):
                    depth -= 1
                    j += len(opened[1])
                    continue
                if syn.nested_block_comments and text.startswith(opened[0], j):
                    depth += 1
                    j += len(opened[0])
                    continue
                if text[j] == "\n":
                    newline_at(j)
                j += 1
            if depth:
                issues.append(LintIssue(path, *start, "unterminated block comment"))
                return issues
            i = j
            continue
        if syn.triple_quotes and text.startswith('"""', i):
            j = scan_string(i, '"""', True)
            if j < 0:
                return issues
            i = j
            continue
        if syn.cpp_raw and c == "R" and i + 1 < n and text[i + 1] == '"':
            m = re.compile(r'R"([^()\\\s]{0,16})\(').match(text, i)
            if m:
                end = text.find(")" + m.group(1) + '"', m.end())
                if end < 0:
                    issues.append(LintIssue(path, *pos(i), "unterminated raw string literal"))
                    return issues
                for k in range(i, end):
                    if text[k] == "\n":
                        newline_at(k)
                i = end + len(m.group(1)) + 2
                continue
        if syn.csharp_verbatim and (
            text.startswith('@"', i) or text.startswith('$@"', i) or text.startswith('@$"', i)
        ):
            j = text.index('"', i) + 1
            start = pos(i)
            while j < n:
                if text[j] == '"':
                    if j + 1 < n and text[j + 1] == '"':
                        j += 2
                        continue
                    break
                if text[j] == "\n":
                    newline_at(j)
                j += 1
            if j >= n:
                issues.append(LintIssue(path, *start, "unterminated verbatim string"))
                return issues
            i = j + 1
            continue
        if syn.template_literal and c == "`":
            j = _scan_template(text, i + 1, issues, path, pos(i), newline_at, stack)
            if j < 0:
                return issues
            i = j
            continue
        if c in syn.strings or c in syn.multiline_strings:
            j = scan_string(i, c, c in syn.multiline_strings)
            if j < 0:
                return issues
            i = j
            continue
        if c in syn.raw_strings:
            j = scan_string(i, c, True, escapes=False)
            if j < 0:
                return issues
            i = j
            continue
        if c == "'" and (syn.char_quote or syn.rust_lifetimes):
            m = re.compile(
                r"'(?:\\(?:u\{[0-9a-fA-F]{1,6}\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[0-7]{1,3}|.)|[^\\'\n])'"
            ).match(text, i)
            if m:
                i = m.end()
                continue
            if syn.rust_lifetimes:  # a lifetime or loop label: 'a, 'static
                i += 1
                continue
            issues.append(LintIssue(path, *pos(i), "malformed character literal"))
            return issues
        if c in "([{":
            stack.append((c, *pos(i), "code"))
        elif c in ")]}":
            if not stack:
                issues.append(LintIssue(path, *pos(i), f"unmatched '{c}'"))
                return issues
            top = stack.pop()
            if top[0] != _PAIRS[c]:
                want = {"(": ")", "[": "]", "{": "}"}[top[0]]
                issues.append(
                    LintIssue(
                        path,
                        *pos(i),
                        f"'{c}' does not close '{top[0]}' opened at line {top[1]} col {top[2]} (expected '{want}')",
                    )
                )
                return issues
        i += 1
    for b, ln, cl, kind in stack[-1:]:  # the innermost unclosed bracket
        what = "template expression '${'" if kind == "tmpl" else f"'{b}'"
        issues.append(LintIssue(path, ln, cl, f"{what} is never closed"))
    return issues


def _scan_template(text, j, issues, path, start, newline_at, stack) -> int:
    """Scan a JS template literal body from ``j``; return the index after its closing backtick,
    or after a ``${`` (pushing a template frame), or -1 when unterminated."""
    n = len(text)
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "`":
            return j + 1
        if text.startswith("${", j):
            stack.append(("{", start[0], start[1], "tmpl"))
            return j + 2
        if c == "\n":
            newline_at(j)
        j += 1
    issues.append(LintIssue(path, start[0], start[1], "unterminated template literal"))
    return -1


def _lint_python(path: str, text: str) -> list[LintIssue]:
    try:
        ast.parse(text, filename=path)
    except SyntaxError as e:
        return [LintIssue(path, e.lineno or 1, e.offset or 1, f"SyntaxError: {e.msg}")]
    return []


def _lint_json(path: str, text: str) -> list[LintIssue]:
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        return [LintIssue(path, e.lineno, e.colno, f"invalid JSON: {e.msg}")]
    return []


def _lint_yaml(path: str, text: str) -> list[LintIssue]:
    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        ln, cl = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        msg = getattr(e, "problem", None) or str(e).splitlines()[0]
        return [LintIssue(path, ln, cl, f"invalid YAML: {msg}")]
    return []


def _lint_xml(path: str, text: str) -> list[LintIssue]:
    try:
        ET.fromstring(text)
    except ET.ParseError as e:
        ln, cl = e.position
        return [LintIssue(path, ln, cl + 1, f"invalid XML: {e}")]
    return []


def _lint_toml(path: str, text: str) -> list[LintIssue]:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+), column (\d+)", str(e))
        ln, cl = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        return [LintIssue(path, ln, cl, f"invalid TOML: {e}")]
    return []


LINTERS: dict[str, str] = {
    "python": "ast.parse: any Python syntax error",
    "json": "json.loads: any JSON syntax error",
    "yaml": "yaml.safe_load_all: any YAML syntax error (all documents of the file)",
    "xml": "xml.etree parse: malformed XML (.csproj, .xml)",
    "toml": "tomllib: malformed TOML (Cargo.toml, pyproject.toml)",
    **{k: "balanced brackets outside strings/comments, terminated literals" for k in SYNTAX},
    "text": "conflict markers and final newline only",
}

_EXT: dict[str, str] = {
    ".py": "python",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".xml": "xml",
    ".csproj": "xml",
    ".toml": "toml",
    ".go": "go",
    ".java": "java",
    ".gradle": "groovy",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".ts": "ts",
    ".tsx": "ts",
    ".cs": "csharp",
    ".cpp": "cpp",
    ".cc": "cpp",
    ".h": "cpp",
    ".hpp": "cpp",
    ".rs": "rust",
    ".php": "php",
    ".rb": "ruby",
    ".conf": "nginx",
}


def linter_of(path: str) -> str:
    """The linter that checks ``path`` (by file type; nginx for ``*.conf`` and ``*.conf.template``)."""
    name = PurePosixPath(path).name
    if name.endswith(".conf.template") or name == "nginx.conf":
        return "nginx"
    return _EXT.get(PurePosixPath(path).suffix, "text")


def lint_file(path: str, text: str) -> list[LintIssue]:
    """Lint one file with the linter of its type. Every linter also rejects merge-conflict markers
    and a missing final newline.

    What each linter catches:

    - ``python``: any syntax error (``ast.parse``), e.g. bad indentation, an unclosed bracket.
    - ``json`` / ``yaml`` / ``xml`` / ``toml``: any parse error of the format (``json.loads``,
      ``yaml.safe_load_all``, ``xml.etree``, ``tomllib``), e.g. a trailing comma in JSON or a tab
      indent in YAML.
    - ``go``, ``java``, ``groovy``, ``kotlin``, ``js``, ``ts``, ``csharp``, ``cpp``, ``rust``, ``php``, ``ruby``,
      ``nginx``: brackets ``()[]{}`` balanced and properly nested outside string literals and
      comments, and every string, character literal and block comment terminated. The lexer knows
      each language's comments (``//``, ``/* */`` nested in Rust/Kotlin, ``#`` in PHP/Ruby/nginx),
      quotes (Go raw strings, Java/Kotlin text blocks, JS template literals with ``${}`` nesting,
      C# verbatim strings, C++ raw strings, Rust lifetimes versus char literals).
    - ``text`` (anything else): only the two common checks.

    Limits: these are not compilers. Brace linters do not see type errors, undefined names, a
    missing semicolon or a wrong keyword; Ruby ``do/end`` blocks, ``%w[]`` literals and heredocs,
    JS regex literals containing unbalanced brackets and JSX text with apostrophes are not modelled
    (the shipped trees avoid them).
    """
    kind = linter_of(path)
    issues: list[LintIssue] = []
    for m in _CONFLICT_RE.finditer(text):
        ln = text.count("\n", 0, m.start()) + 1
        issues.append(LintIssue(path, ln, 1, "merge conflict marker"))
    if text and not text.endswith("\n"):
        issues.append(LintIssue(path, text.count("\n") + 1, 1, "no newline at end of file"))
    if issues:
        return issues
    if kind == "python":
        return _lint_python(path, text)
    if kind == "json":
        return _lint_json(path, text)
    if kind == "yaml":
        return _lint_yaml(path, text)
    if kind == "xml":
        return _lint_xml(path, text)
    if kind == "toml":
        return _lint_toml(path, text)
    if kind in SYNTAX:
        return _brackets(path, text, SYNTAX[kind])
    return []


def lint_tree(tree: Tree, paths: Iterable[str] | None = None) -> list[LintIssue]:
    out: list[LintIssue] = []
    for p in sorted(paths if paths is not None else tree):
        if p in tree:
            out.extend(lint_file(p, tree[p]))
    return out
