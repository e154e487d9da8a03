"""The package's layers: every import, function-level and type-only ones included, goes down the
declared order or stays within its layer, and no modules import each other in a circle.

The order is the flow of a decision (payload → normalize → input document → evaluate → decision
→ render), with what every stage shares below it and the programs that drive it above it. A new
module has to be placed in a layer here before the test passes, so where it sits is a decision,
not an accident. ``docs/design/architecture.md`` shows the same layers with a line per module.

Imports are read from the source (``ast``), not from a running interpreter, so the ones inside
functions count: a lazy import kept for the hook's speed is still a dependency. Names imported
by string at run time (the CLI's command table, the builtin families the registry loads) are
not read: they point down the order by construction (``cli`` names ``commands``, the registry
names ``builtins`` modules).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "service"

# Lowest first. A module belongs to the layer of the most specific pattern matching it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "foundation: files, JSON, paths, records, the value model and the builtins' contract",
        (
            "hookgate",
            "hookgate.jsonio",
            "hookgate.anchors",
            "hookgate.paths",
            "hookgate.files",
            "hookgate.records",
            "hookgate.recorded",
            "hookgate.config",
            "hookgate.bundle_format",
            "hookgate.masking",
            "hookgate.telemetry",
            "hookgate.session",
            "hookgate.sources",
            "hookgate.modes",
            "hookgate.layers",
            "hookgate.progress",
            "hookgate.lang.errors",
            "hookgate.lang.values",
            "hookgate.lang.numbers",
            "hookgate.lang.operators",
            "hookgate.builtins.registry",
        ),
    ),
    ("shell model: lexer, parser, analysis, git, PowerShell", ("hookgate.shell*",)),
    ("effects: what a call does to files, from every channel", ("hookgate.effects*",)),
    ("builtins: the functions policies call, one family a module", ("hookgate.builtins*",)),
    ("language: parse, check, compile, run, cache, test", ("hookgate.lang*",)),
    (
        "host I/O and the decision: payload, normalize, decision, render",
        ("hookgate.hostio*", "hookgate.decision"),
    ),
    (
        "engine: evaluate a policy set on an input document",
        ("hookgate.engine", "hookgate.impact", "hookgate.packcheck"),
    ),
    (
        "machine: which policies this machine runs, the bundle client, the decision log",
        ("hookgate.active", "hookgate.sync", "hookgate.decisionlog"),
    ),
    (
        "server: the central policy server and its console (`hookgate serve` starts it)",
        ("hookgate.server*",),
    ),
    (
        "entry points: the hook's process, the CLI and its commands, host integrations",
        (
            "hookgate.warm",
            "hookgate.deadline",
            "hookgate.launcher",
            "hookgate.cli",
            "hookgate.commands*",
            "hookgate.integrations*",
            "hookgate.refdocs",
        ),
    ),
]

# The one circle kept on purpose: ``Decision.render`` (public, documented) hands the decision to
# the renderer, and the renderer names the Decision type for type checkers only.
EXCEPTION = ("hookgate.hostio.render", "hookgate.decision")


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module under ``root`` by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_only_lines(tree: ast.Module) -> set[int]:
    """Lines of imports inside ``if TYPE_CHECKING:`` blocks."""
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for inner in node.body:
                for sub in ast.walk(inner):
                    if isinstance(sub, ast.Import | ast.ImportFrom):
                        lines.add(sub.lineno)
    return lines


def import_edges(modules: dict[str, Path]) -> dict[str, dict[str, bool]]:
    """module → {imported module: whether every import of it is type-only}, for imports of
    modules in ``modules``. ``from pkg import name`` is an import of ``pkg.name`` when that is a
    module, else of ``pkg``."""
    edges: dict[str, dict[str, bool]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        type_only = _type_only_lines(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: dict[str, bool] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                wanted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                wanted = [f"{base}.{alias.name}" for alias in node.names]
                wanted = [w if w in modules else base for w in wanted]
            else:
                continue
            for target in wanted:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if not target or target == name:
                    continue
                only = node.lineno in type_only
                targets[target] = targets.get(target, True) and only
        edges[name] = targets
    return edges


def circles(edges: dict[str, dict[str, bool]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion: the graph is a few hundred modules deep at most, but the stack is cheap)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, iter(edges[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
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
    return found


def without_exception(edges: dict[str, dict[str, bool]]) -> dict[str, dict[str, bool]]:
    """``edges`` less the named exception's edge, if (and only if) it is type-only."""
    source, target = EXCEPTION
    pruned = {name: dict(targets) for name, targets in edges.items()}
    if pruned.get(source, {}).get(target):
        del pruned[source][target]
    return pruned


def layer_of(module: str) -> int | None:
    """The index of the layer whose most specific pattern matches ``module``."""
    best: tuple[int, int] | None = None  # (specificity, layer)
    for number, (_, patterns) in enumerate(LAYERS):
        for pattern in patterns:
            if fnmatch.fnmatchcase(module, pattern) or (
                pattern.endswith("*") and module == pattern.rstrip("*").rstrip(".")
            ):
                specificity = len(pattern.rstrip("*")) + (0 if pattern.endswith("*") else 1000)
                if best is None or specificity > best[0]:
                    best = (specificity, number)
    return None if best is None else best[1]


MODULES = module_files()
EDGES = import_edges(MODULES)


def test_every_module_has_a_layer_and_every_pattern_a_module():
    assert [m for m in MODULES if layer_of(m) is None] == []
    patterns = [pattern for _, patterns in LAYERS for pattern in patterns]
    assert [p for p in patterns if not any(fnmatch.fnmatchcase(m, p) for m in MODULES)] == []


def test_no_import_circles_but_the_named_exception():
    assert circles(without_exception(EDGES)) == []
    # The exception holds only while it stays type-only (and it is still there to name).
    assert EDGES[EXCEPTION[0]].get(EXCEPTION[1]) is True


def test_imports_go_down_the_layers():
    upward = [
        f"{source} (layer {layer_of(source)}) imports {target} (layer {layer_of(target)})"
        for source, targets in without_exception(EDGES).items()
        for target in targets
        if (layer_of(target) or 0) > (layer_of(source) or 0)
    ]
    assert upward == []


def test_no_module_imports_its_own_package_face():
    """A face re-exports its modules, so a module importing it imports itself in a circle that
    only the order of execution keeps from failing."""
    inward = [
        f"{source} imports {target}"
        for source, targets in EDGES.items()
        for target in targets
        if source.startswith(target + ".") and target != "hookgate"
    ]
    assert inward == []


@pytest.mark.parametrize("name", [m for m, p in MODULES.items() if p.name == "__init__.py"])
def test_package_faces_only_re_export(name):
    """``__init__.py``: a docstring, imports and ``__all__``; code lives in named modules."""
    tree = ast.parse(MODULES[name].read_text())
    rooms = []
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {getattr(t, "id", None) for t in targets}
            # __all__, the version, and the hot path's TYPE_CHECKING = False spelling
            if names <= {"__all__", "__version__", "TYPE_CHECKING"}:
                continue
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            if all(isinstance(inner, ast.Import | ast.ImportFrom) for inner in node.body):
                continue
        rooms.append(f"line {node.lineno}: {type(node).__name__}")
    assert rooms == []


def test_no_module_is_over_a_thousand_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > 1000}
    assert long == {}


# -- the checks themselves fail when they should


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return module_files(tmp_path)


def test_a_circle_added_through_a_function_level_import_is_found(tmp_path):
    modules = _package(
        tmp_path,
        {
            "pkg/__init__.py": '"""face"""\n',
            "pkg/a.py": "from pkg.b import thing\n",
            "pkg/b.py": "def thing():\n    from pkg import c\n    return c\n",
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from pkg import a\n",
        },
    )
    assert circles(import_edges(modules)) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_a_circle_added_to_the_real_graph_is_found_and_an_upward_import_is_named():
    edges = {name: dict(targets) for name, targets in EDGES.items()}
    edges["hookgate.jsonio"]["hookgate.engine"] = False  # jsonio reaching up to the engine
    assert any({"hookgate.jsonio", "hookgate.engine"} <= set(c) for c in circles(edges))
    assert layer_of("hookgate.engine") > layer_of("hookgate.jsonio")


def test_relative_and_type_only_imports_are_read(tmp_path):
    modules = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from .b import B\n",
            "pkg/b.py": "from . import a\n",
        },
    )
    edges = import_edges(modules)
    assert edges["pkg.a"] == {"pkg.b": True}
    assert edges["pkg.b"] == {"pkg.a": False}
    assert circles(edges) == [["pkg.a", "pkg.b"]]


def test_the_architecture_page_has_a_line_for_every_module_and_no_other():
    """``docs/design/architecture.md``: a new engineer finds every module there, by its path
    under ``service/hookgate/`` (package faces and schema revisions aside), and no path the code
    no longer has."""
    page = (ROOT.parent / "docs" / "design" / "architecture.md").read_text()
    named = set(re.findall(r"`((?:[a-z_]+/)*[a-z_0-9]+\.py)`", page))
    paths = {
        str(path.relative_to(ROOT / "hookgate"))
        for name, path in MODULES.items()
        if path.name != "__init__.py" and ".migrations.versions." not in name
    }
    assert sorted(paths - named) == []
    stale = [p for p in named - paths if "/" in p and not (ROOT.parent / p).exists()]
    assert stale == []
