"""Policy tests, as ``opa test`` runs them: find the ``test_*`` rules of a policy set, evaluate
each (a test passes when its value is ``true``; undefined, any other value or a run-time error
fails it), and measure which lines of the policies the tests reached (coverage).

``hookgate test`` prints the results; ``hookgate.packcheck`` turns failing tests into problems
that keep a policy set from being activated.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from hookgate.lang import ast
from hookgate.lang.errors import EvalError, PolicyError
from hookgate.lang.policyset import PolicySet


@dataclass(frozen=True, slots=True)
class Test:
    name: str  # data.pkg.test_x
    file: str
    line: int


@dataclass
class Result:
    test: Test
    outcome: str  # PASS, FAIL or ERROR
    seconds: float
    prints: list[str]
    error: str | None = None


@dataclass(frozen=True, slots=True)
class FileCoverage:
    filename: str
    lines: frozenset[int]  # the lines evaluation can reach
    ran: frozenset[int]  # those it reached


def discover(modules: list[ast.Module]) -> list[Test]:
    """Every ``test_*`` rule (one per name), in file and line order."""
    tests: dict[str, Test] = {}
    for module in modules:
        for rule in module.rules:
            if rule.kind == "complete" and rule.ref[-1].startswith("test_"):
                name = _ref_text((*module.package, *rule.ref))
                tests.setdefault(name, Test(name, module.filename, rule.loc.line))
    return sorted(tests.values(), key=lambda t: (t.file, t.line))


def _ref_text(path: tuple[str, ...]) -> str:
    """``data.a.b``, with ``["…"]`` for keys that are not names (``data.a["b-c"]``)."""
    out = "data"
    for key in path:
        out += f".{key}" if key.isidentifier() else "[" + json.dumps(key) + "]"
    return out


def run_test(ps: PolicySet, test: Test, timeout: float | None = None) -> Result:
    """Evaluate one test; its ``print()`` lines are kept in the result."""
    prints: list[str] = []
    start = time.perf_counter()
    try:
        value = ps.query(test.name, prints=prints, timeout=timeout)
    except (EvalError, PolicyError) as exc:
        return Result(test, "ERROR", time.perf_counter() - start, prints, str(exc))
    outcome = "PASS" if value is True else "FAIL"
    return Result(test, outcome, time.perf_counter() - start, prints)


def coverable_lines(module: ast.Module) -> set[int]:
    """The lines of a module that evaluation can reach: rule heads and body literals."""
    from hookgate.lang.check import walk

    lines: set[int] = set()
    for rule in module.rules:
        for node in walk(rule):
            if isinstance(node, ast.Rule | ast.Else | ast.Expr | ast.SomeIn | ast.Every):
                lines.add(node.loc.line)
    return lines


def coverage(modules: list[ast.Module], covered: set) -> list[FileCoverage]:
    """The line coverage of each non-test module, by file name. ``covered`` holds the
    ``(filename, line)`` pairs the evaluator reported (``PolicySet.coverage``)."""
    out = []
    for module in sorted(modules, key=lambda m: m.filename):
        if module.filename.endswith("_test.rego"):
            continue
        lines = coverable_lines(module)
        ran = {line for line in lines if (module.filename, line) in covered}
        out.append(FileCoverage(module.filename, frozenset(lines), frozenset(ran)))
    return out
