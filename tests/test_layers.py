"""The architecture, checked (docs/architecture.md): imports point down the layers only,
features reach each other only where declared, the protocol imports nothing else of wwm, the
client and the store never import the server (they meet it through the protocol), nothing
imports the command line, and no two modules import each other, even through others or inside
a function."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# Lowest first. A module may import its own package and anything in a lower layer.
LAYERS: list[set[str]] = [
    {"wwm.protocol"},
    {"wwm.targets", "wwm.registry", "wwm._moved", "wwm.paths"},
    {"wwm.commands"},                  # the registry of commands and the helpers they share
    {"wwm.server"},
    {"wwm.store"},
    {"wwm.client"},
    {"wwm.kit"},
    {"wwm.selection", "wwm.lambdastar", "wwm.tileworld", "wwm.acl", "wwm.meta", "wwm.portal", "wwm.search",
     "wwm.gym", "wwm.mcp", "wwm.people", "wwm.tyrrell", "wwm.soccer", "wwm.a2a"},
    {"wwm.cli"},
]
# A feature that uses another as a library, declared here rather than found by accident.
BETWEEN_FEATURES = {
    ("wwm.lambdastar", "wwm.acl"),       # the ACL collective of Λ* speaks the ACL
    ("wwm.search", "wwm.selection"),     # a search space names AS methods
    ("wwm.search", "wwm.portal"),        # a search records its candidates as portal combinations
    ("wwm.portal", "wwm.lambdastar"),    # the portal offers the Λ* test as a challenge
    ("wwm.gym", "wwm.tileworld"),        # PettingZoo over the shared T-World, episode after episode
    ("wwm.tyrrell", "wwm.selection"),    # Tyrrell's world benchmarks the AS methods
    ("wwm.tileworld", "wwm.people"),     # a person drives a Tileworld robot from the person's page
}
# The package's front door: what users import as ``wwm``.
ROOT_IMPORTS = {"wwm.protocol", "wwm._moved", "wwm.client"}
# Lower, but out of bounds all the same: the client and the store speak to servers through the
# protocol (the access-token item, the current server, the run records live there), so either
# runs without the server package (issue 30).
APART = {("wwm.client", "wwm.server"), ("wwm.store", "wwm.server")}


def modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The wwm modules ``name`` imports, anywhere in the file; ``from pkg import mod`` counts as
    an import of ``pkg.mod`` when that is a module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known}
    return {t for t in found if t == "wwm" or t.startswith("wwm.")} - {name}


def parse(path: Path, tries: int = 5) -> ast.Module:
    """The module's syntax tree. CPython 3.11 counts the depth of every AST it builds in one
    counter per interpreter, so a tree built at the same moment in another thread of this test
    process can fail ours with "AST constructor recursion depth mismatch" (python/cpython#106905,
    seen once in CI): the same source parses on the next try."""
    for attempt in range(tries):
        try:
            return ast.parse(path.read_text())
        except SystemError:
            if attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) & set(mods) for name, path in mods.items()}


def top(name: str) -> str:
    return ".".join(name.split(".")[:2])


def layer(name: str) -> int:
    return next(i for i, group in enumerate(LAYERS) if top(name) in group)


def test_every_package_has_a_layer():
    unplaced = {top(name) for name in modules()} - set().union(*LAYERS) - {"wwm"}
    assert not unplaced, f"put these packages in a layer of tests/test_layers.py: {sorted(unplaced)}"


def wrong_imports(edges: dict[str, set[str]]) -> list[str]:
    """The imports of ``edges`` that break a rule, each "source -> target (why)"."""
    wrong = []
    for source, targets in edges.items():
        for target in targets:
            if source == "wwm":
                if top(target) not in ROOT_IMPORTS:
                    wrong.append(f"{source} -> {target} (not the front door's)")
                continue
            if top(source) == "wwm.protocol" and top(target) != "wwm.protocol":
                wrong.append(f"{source} -> {target} (the protocol imports nothing else of wwm)")
                continue
            if target == "wwm" or top(source) == top(target):
                continue
            up = layer(target) > layer(source)
            sideways = layer(target) == layer(source) and (top(source), top(target)) not in BETWEEN_FEATURES
            if up or sideways:
                wrong.append(f"{source} -> {target} ({'up' if up else 'sideways'})")
            elif (top(source), top(target)) in APART:
                wrong.append(f"{source} -> {target} (through the protocol, not the server)")
    return sorted(wrong)


def test_imports_point_down_and_features_meet_only_where_declared():
    wrong = wrong_imports(graph())
    assert not wrong, "imports that break the layers:\n" + "\n".join(wrong)


def test_nothing_outside_the_command_line_imports_it():
    wrong = [f"{s} -> {t}" for s, ts in graph().items() for t in ts
             if top(t) == "wwm.cli" and top(s) != "wwm.cli"]
    assert not wrong, "\n".join(wrong)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_no_circles():
    # a package's __init__ re-exporting its modules is not a circle with them
    edges = {s: {t for t in ts if not s.startswith(t + ".")} for s, ts in graph().items()}
    found = cycles(edges)
    assert not found, "modules that import each other:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_check_sees_a_wrong_import():
    """The checks above can fail: a circle and each kind of wrong import, planted in a made-up
    graph, are found; the imports that keep the rules are not."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer("wwm.cli.run") > layer("wwm.kit.grid") > layer("wwm.protocol.errors")
    planted = {
        "wwm.protocol.queries": {"wwm.protocol.errors", "wwm.server.access"},  # up
        "wwm.protocol.context": {"wwm"},                                       # the root: all of wwm
        "wwm.client.remote": {"wwm.protocol.context", "wwm.server.trail"},     # down, but apart
        "wwm.store.pgtemp": {"wwm.server.process"},                            # down, but apart
        "wwm.server.dispatch": {"wwm.protocol.context", "wwm.client.remote"},  # up
        "wwm.kit.grid": {"wwm.server", "wwm.client.remote", "wwm.selection"},  # up (the last)
        "wwm.tileworld.app": {"wwm.acl"},                                      # sideways, undeclared
        "wwm.lambdastar.team": {"wwm.acl.agent"},                              # declared
        "wwm": {"wwm.client.remote", "wwm.server"},                            # the front door
    }
    assert wrong_imports(planted) == [
        "wwm -> wwm.server (not the front door's)",
        "wwm.client.remote -> wwm.server.trail (through the protocol, not the server)",
        "wwm.kit.grid -> wwm.selection (up)",
        "wwm.protocol.context -> wwm (the protocol imports nothing else of wwm)",
        "wwm.protocol.queries -> wwm.server.access (the protocol imports nothing else of wwm)",
        "wwm.server.dispatch -> wwm.client.remote (up)",
        "wwm.store.pgtemp -> wwm.server.process (through the protocol, not the server)",
        "wwm.tileworld.app -> wwm.acl (sideways)",
    ]


def test_no_module_is_over_600_lines():
    """A module past 600 lines is doing two jobs (docs/architecture.md): split it by job."""
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > 600}
    assert not long, long
