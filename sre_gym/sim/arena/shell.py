"""The shell-visible surface: narrowly scoped, read-only commands in the pods a task opens.

A pod shows its service's configuration file, its log file (the whole run so far, background
volume and distractors included) and the operator notes shipped in its image. The commands are
the read-only handful an operator uses to look around (``ls``, ``cat``, ``head``, ``tail``, ``grep``,
``wc -l``, ``ps``); there are no pipes, no writes and no other pods.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

import yaml

MAX_LINES = 200
MAX_CHARS = 16000


class ShellError(ValueError):
    """A command the pod's shell refuses."""


def pods(world: Any) -> list[str]:
    out = []
    for svc in world.task.shell:
        n = max(1, int(world.config.get(f"{svc}.replicas", 1)))
        out += [f"{svc}-{i}" for i in range(n)]
    return out


def files(world: Any, pod: str) -> dict[str, Any]:
    """Path -> text, or a callable giving it (the log is generated when read)."""
    svc = pod.rsplit("-", 1)[0]
    cfg = {k[len(svc) + 1 :]: v for k, v in sorted(world.config.items()) if k.startswith(svc + ".")}
    cfg = {k: v for k, v in cfg.items() if f"{svc}.{k}" not in world.sub.hidden_keys}
    out: dict[str, Any] = {
        f"/etc/{svc}/config.yaml": yaml.safe_dump(cfg, sort_keys=True),
        f"/var/log/{svc}/app.log": lambda: "\n".join(world.log_stream(svc, 0, world.now)) + "\n",
    }
    for path, text in world.sub.pod_files.get(svc, {}).items():
        out[path] = text
    return out


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _cut(lines: list[str]) -> str:
    out = "\n".join(lines[-MAX_LINES:])
    return out[-MAX_CHARS:]


def run(world: Any, pod: str, command: str) -> dict[str, Any]:
    if pod not in pods(world):
        opened = ", ".join(pods(world)) or "none"
        raise ShellError(f"no shell on pod {pod!r}; this task opens: {opened}")
    if any(c in command for c in "|;&><`$"):
        raise ShellError("pipes, redirections and substitutions are not available here")
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ShellError(f"cannot parse the command: {e}") from None
    if not argv:
        raise ShellError("empty command")
    fs = files(world, pod)

    def text(path: str) -> str:
        if path not in fs:
            raise ShellError(f"{argv[0]}: {path}: No such file or directory")
        v = fs[path]
        return v() if callable(v) else v

    cmd, args = argv[0], argv[1:]
    if cmd == "ls":
        root = args[0].rstrip("/") if args else "/"
        hits = sorted(p for p in fs if p.startswith(root + "/") or root == "/")
        if not hits:
            raise ShellError(f"ls: {root}: No such file or directory")
        return {"output": "\n".join(hits)}
    if cmd == "ps":
        return {"output": "\n".join(world.sub.pod_processes.get(pod.rsplit("-", 1)[0], []))}
    if cmd == "cat" and len(args) == 1:
        return {"output": _cut(_lines(text(args[0])))}
    if cmd in ("head", "tail"):
        n = 10
        if len(args) == 3 and args[0] == "-n" and args[1].isdigit():
            n, args = int(args[1]), args[2:]
        if len(args) != 1:
            raise ShellError(f"usage: {cmd} [-n N] FILE")
        lines = _lines(text(args[0]))
        return {"output": _cut(lines[:n] if cmd == "head" else lines[-n:])}
    if cmd == "wc" and len(args) == 2 and args[0] == "-l":
        return {"output": f"{len(_lines(text(args[1])))} {args[1]}"}
    if cmd == "grep":
        flags = [a for a in args if a.startswith("-")]
        rest = [a for a in args if not a.startswith("-")]
        if len(rest) != 2 or set("".join(f[1:] for f in flags)) - set("icn"):
            raise ShellError("usage: grep [-i] [-c] [-n] PATTERN FILE")
        opts = "".join(f[1:] for f in flags)
        try:
            rx = re.compile(rest[0], re.I if "i" in opts else 0)
        except re.error as e:
            raise ShellError(f"grep: bad pattern: {e}") from None
        lines = _lines(text(rest[1]))
        hits = [(k + 1, ln) for k, ln in enumerate(lines) if rx.search(ln)]
        if "c" in opts:
            return {"output": str(len(hits))}
        return {"output": _cut([f"{k}:{ln}" if "n" in opts else ln for k, ln in hits])}
    raise ShellError(f"{cmd}: not available (ls, cat, head, tail, grep, wc -l, ps)")
