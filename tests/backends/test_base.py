"""The Backend protocol and its capabilities: who has what, and that the tools ask for nothing else.

``SimBackend`` has the protocol and every capability; ``LiveBackend`` has the protocol and none of
the capabilities yet. The tool layer's calls on its backend are read off the source with ``ast``, so
a call to a method no protocol declares fails here, as does a capability checked with ``hasattr``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sre_gym.backends.base import (
    CAPABILITIES,
    Backend,
    FlagBackend,
    GroundTruthBackend,
    OrchestratedBackend,
    PipelineBackend,
    RevertBackend,
    SourceBackend,
    TraceBackend,
)
from sre_gym.backends.sim import SimBackend

TOOLS_DIR = Path(__file__).resolve().parents[2] / "sre_gym" / "tools"
PROTOCOLS = (Backend, *CAPABILITIES)


def members(proto: type) -> set[str]:
    """The names a protocol declares: its methods and properties, and its annotated attributes."""
    return {n for n in vars(proto) if not n.startswith("_")} | set(
        vars(proto).get("__annotations__", {})
    )


def unimplemented(cls: type, proto: type) -> set[str]:
    """Members of ``proto`` that ``cls`` does not define itself: missing, or only the protocol's stub
    (a class that subclasses a protocol inherits its ``...`` bodies). Annotated attributes, which
    instances set, are left to ``isinstance``."""
    out = set()
    for name in {n for n in vars(proto) if not n.startswith("_")}:
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or owner in PROTOCOLS:
            out.add(name)
    return out


def test_the_capabilities_are_runtime_checkable_and_disjoint():
    assert set(CAPABILITIES) == {
        SourceBackend,
        PipelineBackend,
        RevertBackend,
        TraceBackend,
        FlagBackend,
        OrchestratedBackend,
        GroundTruthBackend,
    }
    for proto in PROTOCOLS:
        assert getattr(proto, "_is_runtime_protocol", False), proto.__name__
        assert members(proto), proto.__name__
    seen: set[str] = set()
    for proto in PROTOCOLS:
        assert not members(proto) & seen, proto.__name__
        seen |= members(proto)


# ---------------------------------------------------------------------------------------- simulator
def test_sim_backend_is_a_backend_with_every_capability():
    for proto in PROTOCOLS:
        assert proto in SimBackend.__mro__, proto.__name__  # declared: a nominal subclass
        assert unimplemented(SimBackend, proto) == set(), proto.__name__


@pytest.fixture(scope="module")
def sim():
    return SimBackend("online-boutique", 0)


def test_a_sim_backend_instance_passes_every_isinstance_check(sim):
    for proto in PROTOCOLS:
        assert isinstance(sim, proto), proto.__name__
    for name in Backend.__annotations__:
        assert hasattr(sim, name), name


# ---------------------------------------------------------------------------------------- live
# no source, pipeline, traces, flag owners or ground truth; its fault driver follows interventions
LIVE_LACKS = set(CAPABILITIES) - {OrchestratedBackend}


def _live_class():
    pytest.importorskip("kubernetes", reason="needs the live extra: pip install 'sre_gym[live]'")
    pytest.importorskip("prometheus_api_client", reason="needs the live extra")
    from sre_gym.backends.live import LiveBackend

    return LiveBackend


def test_live_backend_implements_the_protocol_and_follows_interventions_only():
    live = _live_class()
    assert Backend in live.__mro__  # declared (issubclass refuses protocols with attributes)
    assert unimplemented(live, Backend) == set()
    assert OrchestratedBackend in live.__mro__  # its fault driver follows repairs
    for proto in CAPABILITIES:
        want = set() if proto is OrchestratedBackend else members(proto)
        assert unimplemented(live, proto) == want, proto.__name__


@pytest.fixture
def live(request):
    _live_class()
    return request.getfixturevalue("backend")  # tests/backends/conftest.py: on a fake cluster


def test_a_live_backend_instance_is_a_backend_without_the_capabilities(live):
    assert isinstance(live, Backend)
    assert {p for p in CAPABILITIES if not isinstance(live, p)} == LIVE_LACKS


# ---------------------------------------------------------------------------------------- the tools
def _is_backend(node: ast.AST, names: set[str]) -> bool:
    """``self.b``, ``self.backend``, ``backend``, or a local bound to one of them."""
    if isinstance(node, ast.Name):
        return node.id in names
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
        and node.attr in ("b", "backend")
    )


def backend_uses(tree: ast.AST) -> tuple[set[str], set[str], list[tuple[str, str]]]:
    """What the code does with its backend: (attributes it reads, attributes it probes with
    ``hasattr``/``getattr``, and (capability, method) pairs of ``if not isinstance(b, P): raise
    self._missing("method", ...)`` refusals)."""
    names = {"backend"}
    for node in ast.walk(tree):  # locals bound to the backend (``b = self.b``)
        if isinstance(node, ast.Assign) and _is_backend(node.value, names):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    read, probed, refusals = set(), set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_backend(node.value, names):
            read.add(node.attr)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("hasattr", "getattr")
            and node.args
            and _is_backend(node.args[0], names)
        ):
            arg = node.args[1] if len(node.args) > 1 else None
            probed.add(arg.value if isinstance(arg, ast.Constant) else ast.unparse(node))
        elif (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.UnaryOp)
            and isinstance(node.test.op, ast.Not)
            and isinstance(node.test.operand, ast.Call)
            and isinstance(node.test.operand.func, ast.Name)
            and node.test.operand.func.id == "isinstance"
        ):
            proto = ast.unparse(node.test.operand.args[1])
            for sub in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                if (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "_missing"
                ):
                    refusals.append((proto, sub.args[0].value))  # type: ignore[attr-defined]
    return read, probed, refusals


def _tool_sources() -> dict[str, ast.AST]:
    return {p.name: ast.parse(p.read_text()) for p in sorted(TOOLS_DIR.glob("*.py"))}


def test_every_backend_call_of_the_tools_is_declared():
    declared = set().union(*(members(p) for p in PROTOCOLS))
    used: dict[str, set[str]] = {}
    for name, tree in _tool_sources().items():
        read, _, _ = backend_uses(tree)
        if read:
            used[name] = read
    # the reader sees the calls (a reader that finds nothing would pass vacuously)
    assert {"alerts", "runbook", "traces", "list_source", "note_intervention", "flag_owner"} <= (
        used.get("dispatch.py", set())
    )
    assert {n: sorted(r - declared) for n, r in used.items() if r - declared} == {}


def test_capabilities_are_checked_with_isinstance_not_hasattr():
    by_name = {p.__name__: p for p in PROTOCOLS}
    found = []
    for name, tree in _tool_sources().items():
        _, probed, refusals = backend_uses(tree)
        assert probed == set(), name
        for proto, method in refusals:
            assert proto in by_name and method in members(by_name[proto]), (name, proto, method)
        found += refusals
    assert {p for p, _ in found} == {"SourceBackend", "PipelineBackend", "TraceBackend"}


def test_the_reader_catches_an_undeclared_call_and_a_probe():
    src = (
        "class T:\n"
        "    def f(self):\n"
        "        b = self.b\n"
        "        if hasattr(self.b, 'flags'):\n"
        "            return b.warp_drive(), self.b.alerts(0)\n"
    )
    read, probed, _ = backend_uses(ast.parse(src))
    assert read == {"warp_drive", "alerts"} and probed == {"flags"}
