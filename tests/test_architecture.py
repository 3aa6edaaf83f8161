"""The package's architecture, checked statically from the source (AST only: nothing is imported,
so the whole file runs in well under a second).

(a) No import cycle among retrologic's modules. An edge is every `import` / `from ... import`
    at any level (module, function, `if TYPE_CHECKING:`), relative ones resolved, where
    `from retrologic.x import y` is an edge to retrologic.x.y when that is a module, else to
    retrologic.x; plus the modules named by the importlib registries (certificate.CHECKERS,
    questions.KINDS) and any `importlib.import_module("...")` with a literal name. Importing a
    submodule's parent package implicitly (Python runs its __init__ first) is not an edge.
(b) Each checker module imports only what its rule (the first paragraphs of its docstring) says,
    as tabled in CHECKER_RULES.
(c) No module is over MAX_LINES lines unless the first paragraph of its docstring has a line
    starting with LONG_MARKER ("Long because:") giving the reason.
(d) Subpackage __init__ files import nothing (start-up stays fast; the modules say what they
    need); the questions registry may import the standard library, and types for type checking.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "retrologic"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE
MAX_LINES = 600
LONG_MARKER = "Long because:"
STDLIB = frozenset(sys.stdlib_module_names) | {"__future__"}

# checker module -> what it may import besides the standard library (its docstring's rule):
# retrologic modules by name, third-party packages by top-level name.
CHECKER_RULES: dict[str, frozenset[str]] = {
    # the cage checker reuses the retraction generator, never the cage search, library or rules;
    # it reads a question's restrictions with cages.question (the constraint language's parser)
    "retrologic.cages.checker": frozenset({
        "chess", "retrologic.certformat", "retrologic.cages.question", "retrologic.errors",
        "retrologic.position", "retrologic.retract", "retrologic.schema"}),
    "retrologic.cages.question": frozenset({"chess", "retrologic.constraints",
                                            "retrologic.errors"}),
    # the SAT cage checker rebuilds the CNF (cages.sat_encode), checks the DRUP proofs with our
    # checker and embedded history facts with the deduce checker; never the engine or a solver
    "retrologic.cages.sat_checker": frozenset({
        "chess", "retrologic.certformat", "retrologic.cages.sat_encode", "retrologic.history.drup",
        "retrologic.history.checker", "retrologic.cages.question"}),
    # the last-move checker re-runs the candidate generation (retract) and requires its own
    # brute-force retractions (lastmove.unmoves) among them, re-derives static rules
    # (legality.rules), verifies cage leaves again with the cage verifier and replays the games
    # of possible candidates with the legal-game checker
    "retrologic.lastmove.checker": frozenset({
        "chess", "retrologic.certformat", "retrologic.errors", "retrologic.position",
        "retrologic.retract", "retrologic.legality.rules", "retrologic.cages.search",
        "retrologic.legalgame.checker", "retrologic.lastmove.unmoves"}),
    # the last-move checker's brute-force retractions: python-chess alone, never retract
    "retrologic.lastmove.unmoves": frozenset({"chess"}),
    # the legal-game checker: python-chess and the proof-game checker's SAN text, never the
    # finder or the proof-game analysis
    "retrologic.legalgame.checker": frozenset({"chess", "retrologic.certformat",
                                               "retrologic.spg.checker"}),
    # the deduce checker rebuilds the CNF (model, query, clauses) and checks the proof with drup
    "retrologic.history.checker": frozenset({
        "chess", "retrologic.certformat", "retrologic.errors", "retrologic.position",
        "retrologic.history.clauses", "retrologic.history.drup", "retrologic.history.model",
        "retrologic.history.query"}),
    # our own DRUP checker: nothing but the error messages
    "retrologic.history.drup": frozenset({"retrologic.errors"}),
    # the proof-game checker: python-chess alone
    "retrologic.spg.checker": frozenset({"chess", "retrologic.certformat", "retrologic.errors"}),
    # the proof-game listing checker: the CNF encoding (trusted), our DRUP checker, python-chess,
    # and the size caps it unpacks under (certsize: the `--certificate-mib` knob alone)
    "retrologic.spg.proof_checker": frozenset({
        "chess", "retrologic.certformat", "retrologic.history.drup", "retrologic.spg.checker",
        "retrologic.spg.cnf", "retrologic.certsize"}),
    # the table check: python-chess moves against the stored table, never tablebase.moves
    "retrologic.tablebase.checker": frozenset({
        "chess", "numpy", "retrologic.tablebase.table", "retrologic.tablebase.index",
        "retrologic.tablebase.retrograde"}),
    # the puzzle checker: python-chess alone, its own board parser
    "retrologic.puzzle4x4.checker": frozenset({"chess", "retrologic.certformat",
                                               "retrologic.errors"}),
}
# the registries whose string values name modules imported through importlib
REGISTRIES = {"retrologic.certificate": "CHECKERS", "retrologic.questions": "KINDS"}
# a subpackage __init__ that may import (the standard library, and types under TYPE_CHECKING)
REGISTRY_PACKAGES = {"retrologic.questions"}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    typing_only: bool = False     # inside `if TYPE_CHECKING:`

    def where(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line})"


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in MODULES.items()}


def _typing_only_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside `if TYPE_CHECKING:` blocks."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else \
                test.attr if isinstance(test, ast.Attribute) else None
            if name == "TYPE_CHECKING":
                for child in node.body:
                    out.update(id(n) for n in ast.walk(child))
    return out


def _resolve(module: str, node: ast.ImportFrom) -> str:
    """The absolute module name of a `from ... import`."""
    if not node.level:
        return node.module or ""
    package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
    base = package.split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _nearest_module(name: str) -> str | None:
    """`name` if it is a module of the package, else its nearest enclosing one (an attribute
    import such as retrologic.x.CONST counts as an edge to retrologic.x)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def raw_imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported name, line, typing only) for every import statement of a module: for
    `from m import n`, m.n when that is a module of the package, else m."""
    tree = TREES[module]
    typing_only = _typing_only_nodes(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                out.append((alias.name, node.lineno, id(node) in typing_only))
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, node)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.append((full if full in MODULES else base, node.lineno, id(node) in typing_only))
    return out


def _registry_targets(module: str) -> list[tuple[str, int]]:
    """Modules a registry (CHECKERS: 'module:function'; KINDS: (module, help)) names, and the
    literal arguments of importlib.import_module calls."""
    out = []
    for node in ast.walk(TREES[module]):
        target = value = None
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            target, value = node.target.id, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        if target is not None and target == REGISTRIES.get(module) and value is not None:
            for entry in ast.literal_eval(value).values():
                name = entry[0] if isinstance(entry, tuple) else entry.split(":")[0]
                out.append((name, getattr(node, "lineno", 0)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "import_module" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.append((node.args[0].value, node.lineno))
    return out


def edges() -> list[Edge]:
    """Every import edge between modules of the package (self-references dropped)."""
    out = []
    for module in MODULES:
        found = [(name, line, typing) for name, line, typing in raw_imports(module)]
        found += [(name, line, False) for name, line in _registry_targets(module)]
        for name, line, typing in found:
            if not (name == PACKAGE or name.startswith(PACKAGE + ".")):
                continue
            target = _nearest_module(name)
            if target is not None and target != module:
                out.append(Edge(module, target, line, typing))
    return out


def components(graph: list[Edge]) -> list[set[str]]:
    """The strongly connected components of more than one module (each holds a cycle)."""
    succ: dict[str, list[Edge]] = {}
    for e in graph:
        succ.setdefault(e.source, []).append(e)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    counter = 0
    for root in sorted(MODULES):          # iterative Tarjan: no recursion limit to worry about
        if root in index:
            continue
        work = [(root, iter(succ.get(root, [])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                t = nxt.target
                if t not in index:
                    index[t] = low[t] = counter
                    counter += 1
                    stack.append(t)
                    on_stack.add(t)
                    work.append((t, iter(succ.get(t, []))))
                elif t in on_stack:
                    low[node] = min(low[node], index[t])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.add(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    found.append(comp)
    return found


def cycles(graph: list[Edge]) -> list[list[Edge]]:
    """One shortest cycle through each strongly connected component with more than one module."""
    succ: dict[str, list[Edge]] = {}
    for e in graph:
        succ.setdefault(e.source, []).append(e)
    out = []
    for comp in components(graph):
        start = min(comp)
        # breadth-first within the component: the shortest way from `start` back to itself
        previous: dict[str, Edge] = {}
        frontier = [start]
        closing: Edge | None = None
        while frontier and closing is None:
            nxt_frontier = []
            for node in frontier:
                for e in succ.get(node, []):
                    if e.target not in comp:
                        continue
                    if e.target == start:
                        closing = e
                        break
                    if e.target not in previous:
                        previous[e.target] = e
                        nxt_frontier.append(e.target)
                if closing:
                    break
            frontier = nxt_frontier
        assert closing is not None
        path = [closing]
        while path[0].source != start:
            path.insert(0, previous[path[0].source])
        out.append(path)
    return out


def _docstring_paragraphs(module: str) -> list[str]:
    doc = ast.get_docstring(TREES[module]) or ""
    return [p for p in doc.split("\n\n") if p.strip()]


# --- the tests --------------------------------------------------------------------------------

def test_no_import_cycle() -> None:
    graph = edges()
    found = cycles(graph)
    text = "\n".join(f"cycle: {'; '.join(e.where() for e in path)}\n  (in a knot of "
                     f"{len(comp)} modules: {', '.join(sorted(comp))})"
                     for path, comp in zip(found, components(graph)))
    assert not found, f"{len(found)} import knot(s), each with at least this cycle:\n{text}"


@pytest.mark.parametrize("checker", sorted(CHECKER_RULES))
def test_checker_imports_only_what_its_rule_allows(checker: str) -> None:
    if checker not in MODULES:
        pytest.fail(f"{checker} does not exist (a checker module of its own is required)")
    allowed = CHECKER_RULES[checker]
    bad = []
    for name, line, _ in raw_imports(checker):
        if name.startswith(PACKAGE + ".") or name == PACKAGE:
            got = _nearest_module(name) or name
        else:
            got = name.split(".")[0]
            if got in STDLIB:
                continue
        if got not in allowed:
            bad.append(f"{got} (line {line})")
    assert not bad, f"{checker} imports what its rule does not allow: {', '.join(bad)}"
    rule = " ".join(_docstring_paragraphs(checker)[:2])
    assert "import" in rule, f"{checker}: its docstring's first paragraphs state no import rule"


def test_long_modules_say_why() -> None:
    long = []
    for module, path in MODULES.items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines <= MAX_LINES:
            continue
        first = (_docstring_paragraphs(module) or [""])[0]
        if not any(line.strip().startswith(LONG_MARKER) for line in first.splitlines()):
            long.append(f"{module} ({lines} lines)")
    assert not long, (f"modules over {MAX_LINES} lines without a line starting {LONG_MARKER!r} "
                      f"in their docstring's first paragraph: {', '.join(long)}")


def test_subpackage_inits_import_nothing() -> None:
    bad = []
    for module, path in MODULES.items():
        if path.name != "__init__.py" or module == PACKAGE:
            continue
        for name, line, typing_only in raw_imports(module):
            if module in REGISTRY_PACKAGES and (typing_only or name.split(".")[0] in STDLIB):
                continue
            bad.append(f"{module} imports {name} (line {line})")
    assert not bad, "; ".join(bad)


# --- the scan itself, on made-up modules ------------------------------------------------------

def test_the_scan_resolves_relative_function_level_and_registry_imports(monkeypatch) -> None:
    sources = {
        "retrologic.a": "def f():\n    from .b import thing\n",
        "retrologic.b": "from retrologic import c\n",
        "retrologic.c": "import importlib\nimportlib.import_module('retrologic.sub.d')\n",
        "retrologic.sub": '"""a package"""\n',
        "retrologic.sub.d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                            "    from ..a import g\n",
        "retrologic.e": "from retrologic.sub import d as dd, CONST\n",
    }
    paths = {n: Path(n.replace(".", "/") + ("/__init__.py" if n == "retrologic.sub" else ".py"))
             for n in sources}
    monkeypatch.setattr(sys.modules[__name__], "MODULES", paths)
    monkeypatch.setattr(sys.modules[__name__], "TREES", {n: ast.parse(s) for n, s in sources.items()})
    graph = edges()
    pairs = {(e.source, e.target) for e in graph}
    assert pairs == {("retrologic.a", "retrologic.b"), ("retrologic.b", "retrologic.c"),
                     ("retrologic.c", "retrologic.sub.d"), ("retrologic.sub.d", "retrologic.a"),
                     ("retrologic.e", "retrologic.sub.d"), ("retrologic.e", "retrologic.sub")}
    found = cycles(graph)
    assert [[e.source for e in path] for path in found] == [
        ["retrologic.a", "retrologic.b", "retrologic.c", "retrologic.sub.d"]]
