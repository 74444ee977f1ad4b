"""The subset of Go ``text/template`` used in Prometheus alert labels and annotations.

Supported: text, ``{{ $labels.x }}``, ``{{ $value }}``, ``.Labels.x``/``.Value``, pipelines with
``|``, parentheses, string/number literals, comments, ``{{-``/``-}}`` trimming, and the functions
``humanize``, ``humanize1024``, ``humanizePercentage``, ``humanizeDuration``, ``printf``,
``toUpper``, ``toLower``, ``title`` and ``index``. Anything else (``if``, ``range``, ``query``,
variables other than ``$labels``/``$value``, ...) is rejected when the template is compiled, so
rule files fail at load time rather than mid-episode. Output formatting follows Go's ``fmt``.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import Any

from .types import PromQLError


class TemplateError(PromQLError):
    """A template uses a construct outside the supported subset, or fails to parse."""


# -- Go number formatting --------------------------------------------------------------------------
def go_v(x: Any) -> str:
    """Go ``fmt`` ``%v`` of a template value."""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return _g_shortest(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, dict):
        return "map[" + " ".join(f"{k}:{v}" for k, v in sorted(x.items())) + "]"
    if x is None:
        return "<no value>"
    return str(x)


def _special(v: float) -> str | None:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    return None


def _g_shortest(v: float) -> str:
    """``strconv.FormatFloat(v, 'g', -1, 64)`` (what ``%v`` prints for a float64)."""
    sp = _special(v)
    if sp is not None:
        return sp
    if v == 0:
        return "-0" if math.copysign(1, v) < 0 else "0"
    sign, digits, exp = Decimal(repr(v)).normalize().as_tuple()
    ds = "".join(map(str, digits))
    nd = len(ds)
    dp = nd + exp  # position of the decimal point
    x = dp - 1
    neg = "-" if sign else ""
    if x < -4 or x >= 6:  # Go uses precision 6 for this decision with the shortest digits
        mant = ds[0] + ("." + ds[1:] if nd > 1 else "")
        return f"{neg}{mant}e{'+' if x >= 0 else '-'}{abs(x):02d}"
    if dp <= 0:
        return f"{neg}0.{'0' * (-dp)}{ds}"
    if dp >= nd:
        return f"{neg}{ds}{'0' * (dp - nd)}"
    return f"{neg}{ds[:dp]}.{ds[dp:]}"


def go_fmt_g(v: float, prec: int) -> str:
    """Go ``%.<prec>g`` (identical to C's except for Inf/NaN spelling)."""
    sp = _special(v)
    if sp is not None:
        return sp
    return format(v, f".{prec}g")


# -- Prometheus template functions -----------------------------------------------------------------
def _to_float(x: Any, fn: str) -> float:
    if isinstance(x, bool):
        raise TemplateError(f"{fn}: cannot convert bool to float")
    if isinstance(x, int | float):
        return float(x)
    if isinstance(x, str):
        try:
            return float(x)
        except ValueError:
            raise TemplateError(f"{fn}: cannot convert {x!r} to float") from None
    raise TemplateError(f"{fn}: cannot convert {type(x).__name__} to float")


def humanize(x: Any) -> str:
    v = _to_float(x, "humanize")
    if v == 0 or math.isnan(v) or math.isinf(v):
        return go_fmt_g(v, 4)
    if abs(v) >= 1:
        prefix = ""
        for p in ("k", "M", "G", "T", "P", "E", "Z", "Y"):
            if abs(v) < 1000:
                break
            prefix = p
            v /= 1000
        return go_fmt_g(v, 4) + prefix
    prefix = ""
    for p in ("m", "u", "n", "p", "f", "a", "z", "y"):
        if abs(v) >= 1:
            break
        prefix = p
        v *= 1000
    return go_fmt_g(v, 4) + prefix


def humanize1024(x: Any) -> str:
    v = _to_float(x, "humanize1024")
    if abs(v) <= 1 or math.isnan(v) or math.isinf(v):
        return go_fmt_g(v, 4)
    prefix = ""
    for p in ("ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"):
        if abs(v) < 1024:
            break
        prefix = p
        v /= 1024
    return go_fmt_g(v, 4) + prefix


def humanize_percentage(x: Any) -> str:
    return go_fmt_g(_to_float(x, "humanizePercentage") * 100, 4) + "%"


def humanize_duration(x: Any) -> str:
    v = _to_float(x, "humanizeDuration")
    if math.isnan(v) or math.isinf(v):
        return go_fmt_g(v, 4)
    if v == 0:
        return go_fmt_g(v, 4) + "s"
    if abs(v) >= 1:
        sign = ""
        if v < 0:
            sign = "-"
            v = -v
        d = int(v)
        seconds, minutes, hours, days = d % 60, (d // 60) % 60, (d // 3600) % 24, d // 86400
        if days:
            return f"{sign}{days}d {hours}h {minutes}m {seconds}s"
        if hours:
            return f"{sign}{hours}h {minutes}m {seconds}s"
        if minutes:
            return f"{sign}{minutes}m {seconds}s"
        return f"{sign}{go_fmt_g(v, 4)}s"
    prefix = ""
    for p in ("m", "u", "n", "p", "f", "a", "z", "y"):
        if abs(v) >= 1:
            break
        prefix = p
        v *= 1000
    return f"{go_fmt_g(v, 4)}{prefix}s"


_VERB = re.compile(r"%([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])")


def go_printf(fmt: str, *args: Any) -> str:
    """Go ``fmt.Sprintf`` for the common verbs (%s %v %d %f %e %g %q %x %%)."""
    out: list[str] = []
    pos = 0
    ai = 0
    for m in _VERB.finditer(fmt):
        out.append(fmt[pos : m.start()])
        pos = m.end()
        flags, width, prec, verb = m.group(1), m.group(2), m.group(3), m.group(4)
        if verb == "%":
            out.append("%")
            continue
        if ai >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        a = args[ai]
        ai += 1
        out.append(_fmt_one(flags, width, prec, verb, a))
    out.append(fmt[pos:])
    if ai < len(args):
        extra = ", ".join(f"{_go_type(a)}={go_v(a)}" for a in args[ai:])
        out.append(f"%!(EXTRA {extra})")
    return "".join(out)


def _go_type(a: Any) -> str:
    if isinstance(a, bool):
        return "bool"
    if isinstance(a, float):
        return "float64"
    if isinstance(a, int):
        return "int"
    if isinstance(a, dict):
        return "map[string]string"
    return "string"


def _pad(s: str, flags: str, width: str | None) -> str:
    if not width:
        return s
    w = int(width)
    return s.ljust(w) if "-" in flags else s.rjust(w)


def _fmt_one(flags: str, width: str | None, prec: str | None, verb: str, a: Any) -> str:
    spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
    if verb == "v":
        return _pad(go_v(a), flags, width)
    if verb == "s":
        if isinstance(a, str):
            s = a if prec is None else a[: int(prec or 0)]
            return _pad(s, flags, width)
        return f"%!s({_go_type(a)}={go_v(a)})"
    if verb == "q" and isinstance(a, str):
        esc = a.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
        return _pad(f'"{esc}"', flags, width)
    if verb in "dxX" and isinstance(a, int) and not isinstance(a, bool):
        return (spec + verb) % a
    if verb in "eEfFgG" and isinstance(a, float | int) and not isinstance(a, bool):
        v = float(a)
        sp = _special(v)
        if sp is not None:
            return _pad(sp, flags.replace("0", ""), width)
        if verb in "gG" and prec is None:
            s = _g_shortest(v)
            if "+" in flags and v >= 0:
                s = "+" + s
            return _pad(s.upper() if verb == "G" else s, flags, width)
        return (spec + ("f" if verb == "F" else verb)) % v
    return f"%!{verb}({_go_type(a)}={go_v(a)})"


def _title(s: Any) -> str:
    return re.sub(r"(^|[^\w'])(\w)", lambda m: m.group(1) + m.group(2).upper(), str(s))


FUNCS = {
    "humanize": humanize,
    "humanize1024": humanize1024,
    "humanizePercentage": humanize_percentage,
    "humanizeDuration": humanize_duration,
    "printf": go_printf,
    "toUpper": lambda s: str(s).upper(),
    "toLower": lambda s: str(s).lower(),
    "title": _title,
}


# -- parsing ---------------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"""\s*(?:
        (?P<str>"(?:[^"\\]|\\.)*")
      | (?P<raw>`[^`]*`)
      | (?P<num>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))
      | (?P<var>\$[A-Za-z_0-9]*(?:\.[A-Za-z_][A-Za-z_0-9]*)*)
      | (?P<field>(?:\.[A-Za-z_][A-Za-z_0-9]*)+|\.)
      | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<pipe>\|)
      | (?P<lp>\()
      | (?P<rp>\))
      | (?P<other>\S+)
    )""",
    re.VERBOSE,
)

_KEYWORDS = {
    "if",
    "else",
    "end",
    "range",
    "with",
    "define",
    "template",
    "block",
    "break",
    "continue",
    "nil",
}


def _unquote(s: str) -> str:
    import ast

    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError):
        raise TemplateError(f"bad string literal {s}") from None


class _Parser:
    def __init__(self, text: str, source: str) -> None:
        self.toks: list[tuple[str, str]] = []
        self.source = source
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                break
            pos = m.end()
            kind = m.lastgroup or "other"
            self.toks.append((kind, m.group(kind)))
        self.i = 0

    def err(self, msg: str) -> TemplateError:
        return TemplateError(f"template {self.source!r}: {msg}")

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def pipeline(self, closing: str | None = None) -> list:
        cmds = [self.command()]
        while True:
            t = self.peek()
            if t is None or (closing and t[0] == closing):
                return cmds
            if t[0] != "pipe":
                raise self.err(f"unexpected {t[1]!r}")
            self.i += 1
            cmds.append(self.command())

    def command(self) -> list:
        args: list = []
        while True:
            t = self.peek()
            if t is None or t[0] in ("pipe", "rp"):
                break
            self.i += 1
            kind, val = t
            if kind == "lp":
                sub = self.pipeline("rp")
                if self.peek() is None:
                    raise self.err("unclosed parenthesis")
                self.i += 1
                args.append(("pipe", sub))
            elif kind in ("str", "raw"):
                args.append(("const", _unquote(val) if kind == "str" else val[1:-1]))
            elif kind == "num":
                is_int = re.fullmatch(r"[-+]?\d+", val) is not None
                args.append(("const", int(val) if is_int else float(val)))
            elif kind == "var":
                args.append(("var", self._var(val)))
            elif kind == "field":
                args.append(("var", self._field(val)))
            elif kind == "ident":
                if val in _KEYWORDS:
                    raise self.err(f"unsupported template construct {val!r}")
                if val in ("true", "false"):
                    args.append(("const", val == "true"))
                elif val == "index" or val in FUNCS:
                    args.append(("func", val))
                else:
                    raise self.err(f"unsupported template function {val!r}")
            else:
                raise self.err(f"unsupported template construct {val!r}")
        if not args:
            raise self.err("empty command")
        if args[0][0] != "func" and len(args) > 1:
            raise self.err(f"can't give argument to non-function {args[0][1]!r}")
        return args

    def _var(self, val: str) -> tuple:
        parts = val.split(".")
        head, rest = parts[0], parts[1:]
        if head == "$labels":
            if len(rest) > 1:
                raise self.err(f"unsupported field chain {val!r}")
            return ("labels", rest[0] if rest else None)
        if head == "$value":
            if rest:
                raise self.err(f"can't evaluate field of a float: {val!r}")
            return ("value", None)
        if head == "$":
            return self._field("." + ".".join(rest)) if rest else ("dot", None)
        raise self.err(f"unsupported template variable {head!r}")

    def _field(self, val: str) -> tuple:
        parts = [p for p in val.split(".") if p]
        if not parts:
            return ("dot", None)
        if parts[0] == "Labels" and len(parts) <= 2:
            return ("labels", parts[1] if len(parts) == 2 else None)
        if parts == ["Value"]:
            return ("value", None)
        raise self.err(f"unsupported template field {val!r}")


_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.DOTALL)


class Template:
    """A compiled template; ``render(labels, value)`` expands it like Prometheus does."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.parts: list = []
        pos = 0
        pending_trim = False
        for m in _ACTION.finditer(text):
            lit = text[pos : m.start()]
            if pending_trim:
                lit = lit.lstrip(" \t\r\n")
            if m.group(1):
                lit = lit.rstrip(" \t\r\n")
            if lit:
                self.parts.append(("text", lit))
            pos = m.end()
            pending_trim = bool(m.group(3))
            body = m.group(2).strip()
            if body.startswith("/*"):
                if not body.endswith("*/"):
                    raise TemplateError(f"template {text!r}: unclosed comment")
                continue
            p = _Parser(body, text)
            pipe = p.pipeline()
            if p.peek() is not None:
                raise p.err(f"unexpected {p.peek()[1]!r}")  # type: ignore[index]
            self.parts.append(("pipe", pipe))
        tail = text[pos:]
        if pending_trim:
            tail = tail.lstrip(" \t\r\n")
        if "{{" in tail:
            raise TemplateError(f"template {text!r}: unclosed action")
        if tail:
            self.parts.append(("text", tail))
        self.static = all(k == "text" for k, _ in self.parts)

    def render(self, labels: dict[str, str], value: float) -> str:
        if self.static:
            return "".join(v for _, v in self.parts)
        out: list[str] = []
        for kind, v in self.parts:
            if kind == "text":
                out.append(v)
            else:
                out.append(go_v(_run(v, labels, value)))
        return "".join(out)


def _arg(a: tuple, labels: dict[str, str], value: float) -> Any:
    kind, v = a
    if kind == "const":
        return v
    if kind == "pipe":
        return _run(v, labels, value)
    if kind == "var":
        what, name = v
        if what == "value":
            return value
        if what == "labels":
            return dict(labels) if name is None else labels.get(name)
        return {"Labels": labels, "Value": value}
    raise TemplateError(f"function {v!r} used as a value")


def _run(pipe: list, labels: dict[str, str], value: float) -> Any:
    result: Any = None
    for n, cmd in enumerate(pipe):
        extra = [result] if n > 0 else []
        if cmd[0][0] == "func":
            name = cmd[0][1]
            args = [_arg(a, labels, value) for a in cmd[1:]] + extra
            if name == "index":
                if len(args) != 2 or not isinstance(args[0], dict):
                    raise TemplateError("index: expected a map and a key")
                result = args[0].get(args[1])
            else:
                try:
                    result = FUNCS[name](*args)
                except TypeError as e:
                    raise TemplateError(f"{name}: {e}") from None
        else:
            if extra:
                raise TemplateError("can't give argument to non-function")
            result = _arg(cmd[0], labels, value)
    return result


def compile_template(text: str) -> Template:
    """Parse ``text``; raises :class:`TemplateError` naming any unsupported construct."""
    return Template(text)
