"""Static checks over a set of parsed modules (what `opa check` reports before evaluation).

``check_modules`` looks at every module together, because names resolve across packages: calls
to unknown functions and wrong arities, unsupported OPA builtins, duplicate and unused imports,
rules that conflict with each other, recursion through rules and functions, ``:=`` redeclaring a
variable, and ``with`` targets that cannot be replaced. Unsafe variables are the compiler's to
report (it orders bodies). Each problem is one ``Diagnostic``, sorted by position; warnings
(unused imports and assignments) become errors with ``strict=True``, like ``opa check --strict``.
The diagnostics carry no source line: callers that hold the source add it (``with_source``).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from hookgate.builtins import opa_builtins
from hookgate.lang import ast
from hookgate.lang.errors import Diagnostic


@dataclass(frozen=True, slots=True)
class _Def:
    """One rule of the module set, with where it is."""

    path: tuple[str, ...]  # full data path: package + rule ref
    rule: ast.Rule
    module: ast.Module


@dataclass
class _Index:
    """Every rule of the module set by full path, and every package path."""

    rules: dict[tuple[str, ...], list[_Def]] = field(default_factory=dict)
    packages: set[tuple[str, ...]] = field(default_factory=set)
    # every proper prefix of a rule path → the rule paths below it
    below: dict[tuple[str, ...], list[tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def build(cls, modules: list[ast.Module]) -> _Index:
        index = cls()
        for module in modules:
            index.packages.add(module.package)
            for rule in module.rules:
                path = module.package + rule.ref
                if path not in index.rules:
                    for n in range(len(path)):
                        index.below.setdefault(path[:n], []).append(path)
                index.rules.setdefault(path, []).append(_Def(path, rule, module))
        return index

    def under(self, path: tuple[str, ...]) -> list[tuple[str, ...]]:
        """Rule paths that a reference to ``path`` reads: the rule it is in or is (``p.a``
        reads rule p), and the rules inside it (``data.pkg`` reads every rule of pkg)."""
        found = [path[:n] for n in range(1, len(path) + 1) if path[:n] in self.rules]
        return found + self.below.get(path, [])


def check_modules(modules: list[ast.Module], *, strict: bool = False) -> list[Diagnostic]:
    """Static problems of ``modules`` taken together, sorted by file, line and column."""
    from hookgate.builtins import full_registry

    index = _Index.build(modules)
    registry = full_registry()
    diags: list[Diagnostic] = []
    for module in modules:
        checker = _ModuleChecker(module, index, registry)
        checker.run()
        diags.extend(checker.diags)
    diags.extend(_rule_conflicts(index))
    diags.extend(_recursion(modules, index))
    if strict:
        diags = [_as_error(d) for d in diags]
    unique = {(d.file, d.line, d.col, d.message): d for d in diags}
    return sorted(unique.values(), key=lambda d: (d.file, d.line, d.col, d.message))


def _as_error(diag: Diagnostic) -> Diagnostic:
    if diag.severity == "error":
        return diag
    return Diagnostic(
        diag.file, diag.line, diag.col, diag.message, diag.hint, diag.source_line, "error"
    )


def _diag(
    module: ast.Module, loc: ast.Loc, message: str, hint: str | None = None, warning: bool = False
) -> Diagnostic:
    severity = "warning" if warning else "error"
    return Diagnostic(module.filename, loc.line, loc.col, message, hint, None, severity)


def _data(path: tuple[str, ...]) -> str:
    return ".".join(("data", *path))


def _where(d: _Def) -> str:
    return f"{d.module.filename}:{d.rule.loc.line}"


# ---------------------------------------------------------------------------------------------
# Walking the AST
# ---------------------------------------------------------------------------------------------


def _rule_children(r: ast.Rule) -> tuple:
    parts = tuple(x for x in (r.key, r.value) if x is not None)
    return (*r.args, *r.path_keys, *parts, *r.body, *r.elses)


def _optional(*nodes: object) -> tuple:
    return tuple(n for n in nodes if n is not None)


# The direct sub-nodes of each node type, in source order.
_CHILDREN: dict[type, Callable[[Any], tuple]] = {
    ast.Scalar: lambda n: (),
    ast.Var: lambda n: (),
    ast.Ref: lambda n: (n.head, *n.path),
    ast.ArrayTerm: lambda n: n.items,
    ast.SetTerm: lambda n: n.items,
    ast.ObjectTerm: lambda n: tuple(x for pair in n.items for x in pair),
    ast.ArrayCompr: lambda n: (n.term, *n.body),
    ast.SetCompr: lambda n: (n.term, *n.body),
    ast.ObjectCompr: lambda n: (n.key, n.value, *n.body),
    ast.Call: lambda n: n.args,
    ast.BinOp: lambda n: (n.left, n.right),
    ast.UnaryMinus: lambda n: (n.term,),
    ast.Membership: lambda n: (*_optional(n.key), n.value, n.collection),
    ast.Assign: lambda n: (n.lhs, n.rhs),
    ast.Unify: lambda n: (n.lhs, n.rhs),
    ast.With: lambda n: (n.target, n.value),
    ast.Expr: lambda n: (n.term, *n.withs),
    ast.SomeDecl: lambda n: n.vars,
    ast.SomeIn: lambda n: (*_optional(n.key), n.value, n.collection, *n.withs),
    ast.Every: lambda n: (*_optional(n.key), n.value, n.domain, *n.body, *n.withs),
    ast.Else: lambda n: (*_optional(n.value), *n.body),
    ast.Rule: _rule_children,
}


def children(node: object) -> tuple:
    """The direct sub-nodes of any AST node (terms, literals, withs, else branches)."""
    return _CHILDREN[type(node)](node)


def walk(node: object) -> Iterator[object]:
    """``node`` and every node below it, depth first, in source order."""
    yield node
    for child in children(node):
        yield from walk(child)


def _vars_in(term: object) -> Iterator[ast.Var]:
    for node in walk(term):
        if isinstance(node, ast.Var):
            yield node


def _declared_names(rule: ast.Rule) -> set[str]:
    """Names a rule declares locally (arguments, ``some``, ``:=``, ``every``): those shadow
    rules and imports of the same name."""
    names = {v.name for arg in rule.args for v in _vars_in(arg)}
    for node in walk(rule):
        if isinstance(node, ast.SomeDecl):
            names.update(v.name for v in node.vars)
        elif isinstance(node, ast.SomeIn):
            for part in (node.key, node.value):
                if part is not None:
                    names.update(v.name for v in _vars_in(part))
        elif isinstance(node, ast.Assign):
            names.update(v.name for v in _vars_in(node.lhs))
        elif isinstance(node, ast.Every):
            names.update(v.name for v in (node.key, node.value) if v is not None)
    return names


def _const_path(ref: ast.Ref) -> tuple[str, ...]:
    """The leading string elements of a reference's path (``a.b[x].c`` → ``("b",)``)."""
    out: list[str] = []
    for elem in ref.path:
        if not (isinstance(elem, ast.Scalar) and isinstance(elem.value, str)):
            break
        out.append(elem.value)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Name resolution (shared by the call checks and the dependency graph)
# ---------------------------------------------------------------------------------------------


def _import_names(module: ast.Module) -> dict[str, tuple[str, ...]]:
    """Name usable in the module → the document it imports (``("data", "lib")``)."""
    names: dict[str, tuple[str, ...]] = {}
    for imp in module.imports:
        if imp.path[0] in ("data", "input"):
            names[imp.alias or imp.path[-1]] = imp.path
    return names


def resolve(
    module: ast.Module, index: _Index, parts: tuple[str, ...], local: set[str]
) -> tuple[str, ...] | None:
    """The data path a name (``f``, ``lib.f``, ``data.a.f`` split on dots) refers to, or
    None when it is a local variable, ``input`` or not a document of the module set."""
    head = parts[0]
    if head in local:
        return None
    if head == "data":
        return parts[1:]
    imports = _import_names(module)
    if head in imports:
        target = imports[head]
        return target[1:] + parts[1:] if target[0] == "data" else None
    if head == "input":
        return None
    path = module.package + parts
    if index.under(module.package + (head,)):
        return path
    return None


# ---------------------------------------------------------------------------------------------
# Per-module checks
# ---------------------------------------------------------------------------------------------


# What a default rule's value may not contain, by node type.
_NOT_CONSTANT = {
    ast.Var: "var",
    ast.Ref: "ref",
    ast.Call: "call",
    ast.BinOp: "call",
    ast.Membership: "call",
    ast.UnaryMinus: "call",
}


class _ModuleChecker:
    def __init__(self, module: ast.Module, index: _Index, registry: dict) -> None:
        self.module = module
        self.index = index
        self.registry = registry
        self.diags: list[Diagnostic] = []
        self.imports = _import_names(module)

    def error(self, loc: ast.Loc, message: str, hint: str | None = None) -> None:
        self.diags.append(_diag(self.module, loc, message, hint))

    def warn(self, loc: ast.Loc, message: str, hint: str | None = None) -> None:
        self.diags.append(_diag(self.module, loc, message, hint, warning=True))

    def run(self) -> None:
        self.check_imports()
        for rule in self.module.rules:
            if rule.default:
                self.check_default(rule)
            local = _declared_names(rule)
            for node in walk(rule):
                if isinstance(node, ast.Call):
                    self.check_call(node, local)
                elif isinstance(node, ast.With):
                    self.check_with(node, local)
            self.check_assignments(rule)

    # ------------------------------------------------------------------ defaults

    def check_default(self, rule: ast.Rule) -> None:
        """A default value is a constant (OPA: no variables, references or calls, operators
        included; comprehensions aside) and a default function's arguments are distinct
        variables."""
        stack = [rule.value]
        while stack:
            node = stack.pop()
            what = _NOT_CONSTANT.get(type(node))
            if what is not None:
                self.error(node.loc, f"illegal default rule (value cannot contain {what})")
                return
            if not isinstance(node, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
                stack.extend(reversed(children(node)))
        seen: set[str] = set()
        for arg in rule.args:
            if not isinstance(arg, ast.Var):
                self.error(arg.loc, "illegal default rule (arguments must be variables)")
            elif arg.name != "_" and arg.name in seen:
                self.error(
                    arg.loc, f"illegal default rule (arguments cannot be repeated {arg.name})"
                )
            else:
                seen.add(arg.name)

    # ------------------------------------------------------------------ imports

    def check_imports(self) -> None:
        seen: dict[str, ast.Import] = {}
        for imp in self.module.imports:
            if imp.path[0] not in ("data", "input"):
                continue
            name = imp.alias or imp.path[-1]
            if name in seen:
                self.error(
                    imp.loc,
                    f"import {name} shadows an earlier import on line {seen[name].loc.line}",
                    "remove one of the imports or give it an alias",
                )
            seen[name] = imp
        used = self.used_names()
        for name, imp in seen.items():
            if name not in used:
                self.warn(imp.loc, f"import {'.'.join(imp.path)} is unused")

    def used_names(self) -> set[str]:
        used: set[str] = set()
        for rule in self.module.rules:
            for node in walk(rule):
                if isinstance(node, ast.Var):
                    used.add(node.name)
                elif isinstance(node, ast.Call):
                    used.add(node.name.split(".")[0])
        return used

    # ------------------------------------------------------------------ calls

    def check_call(self, call: ast.Call, local: set[str]) -> None:
        parts = tuple(call.name.split("."))
        arity = self.function_arity(call, parts, local)
        if arity is None:
            return
        n = len(call.args)
        # Rego lets a call take one extra argument, which receives the result: f(x, out).
        if arity >= 0 and n not in (arity, arity + 1):
            self.error(
                call.loc,
                f"wrong number of arguments: {call.name} takes {arity}, got {n}",
            )

    def function_arity(self, call: ast.Call, parts: tuple[str, ...], local: set[str]) -> int | None:
        """The arity of the function ``call`` names (-1: any); None after reporting a problem."""
        if parts[0] in local:
            self.error(call.loc, f"{parts[0]} is a variable, not a function")
            return None
        path = resolve(self.module, self.index, parts, set())
        if path is not None and path in self.index.rules:
            defs = self.index.rules[path]
            functions = [d for d in defs if d.rule.kind == "function"]
            if not functions:
                self.error(call.loc, f"{_data(path)} is a rule, not a function")
                return None
            return len(functions[0].rule.args)
        if parts[0] == "data" or parts[0] in self.imports:
            shown = _data(path) if path is not None else call.name
            self.error(
                call.loc, f"unknown function {shown}", "no rule of the policy set defines it"
            )
            return None
        builtin = self.registry.get(call.name)
        if builtin is not None:
            return builtin.arity
        if call.name in opa_builtins():
            self.error(call.loc, f"unsupported: builtin {call.name}")
            return None
        known = [*self.registry, *self.local_functions()]
        close = difflib.get_close_matches(call.name, known, n=1)
        self.error(
            call.loc,
            f"unknown function {call.name}",
            f"did you mean {close[0]}?" if close else None,
        )
        return None

    def local_functions(self) -> list[str]:
        return [".".join(rule.ref) for rule in self.module.rules if rule.kind == "function"]

    # ------------------------------------------------------------------ with

    def check_with(self, node: ast.With, local: set[str]) -> None:
        target = node.target
        head = target.head if isinstance(target, ast.Ref) else target
        if not isinstance(head, ast.Var):
            return
        if head.name in ("input", "data"):
            return
        parts = [head.name]
        if isinstance(target, ast.Ref):
            parts.extend(_const_path(target))
        name = ".".join(parts)
        if parts[0] in self.imports:  # an alias of an input or data document
            return
        path = resolve(self.module, self.index, tuple(parts), local)
        if path is not None and path in self.index.rules:
            if any(d.rule.kind == "function" for d in self.index.rules[path]):
                return
        elif name in self.registry:
            return
        elif name in opa_builtins():
            self.error(node.loc, f"unsupported: with target {name} (a builtin hookgate lacks)")
            return
        self.error(
            node.loc,
            f"with target {name} must be input, data or a function",
            "write `with input.x as …`, `with data.x as …` or name a function or builtin",
        )

    # ------------------------------------------------------------------ assignments

    def check_assignments(self, rule: ast.Rule) -> None:
        """``:=`` may not redeclare a variable of its body or of an enclosing one (arguments,
        ``some``, an earlier ``:=``, the body around a comprehension or ``every``): engines
        disagree on what that means, so it is refused, as OPA does."""
        declared = {v.name: v for arg in rule.args for v in _vars_in(arg) if v.name != "_"}
        for part in (*rule.path_keys, rule.key, rule.value):
            if part is not None:
                self.check_nested(part, declared)
        self.check_body(rule.body, dict(declared))
        for branch in rule.elses:
            if branch.value is not None:
                self.check_nested(branch.value, declared)
            self.check_body(branch.body, dict(declared))
        self.check_unused_assignments(rule)

    def check_nested(self, node: object, declared: dict[str, ast.Var]) -> None:
        """The bodies nested in ``node`` (comprehensions, ``every``), each its own scope."""
        for child in children(node):
            if isinstance(child, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
                self.check_body(child.body, dict(declared))
            elif not isinstance(child, ast.Every):
                self.check_nested(child, declared)

    def check_body(self, body: tuple[ast.Literal, ...], declared: dict[str, ast.Var]) -> None:
        for lit in body:
            self.check_nested(lit, declared)
            new: list[ast.Var] = []
            if isinstance(lit, ast.Expr) and isinstance(lit.term, ast.Assign):
                new = [v for v in _vars_in(lit.term.lhs) if v.name != "_"]
                for var in new:
                    if var.name in ("input", "data"):
                        self.error(var.loc, f"variables must not shadow {var.name}")
                    elif var.name in declared:
                        self.error(
                            var.loc,
                            f"var {var.name} assigned above (line {declared[var.name].loc.line})",
                            "use a new name, or `=` / `==` to compare with the existing value",
                        )
            elif isinstance(lit, ast.SomeDecl):
                new = list(lit.vars)
            elif isinstance(lit, ast.SomeIn):
                new = [
                    v
                    for part in (lit.key, lit.value)
                    if part is not None
                    for v in _vars_in(part)
                    if v.name != "_"
                ]
            elif isinstance(lit, ast.Every):
                inner = dict(declared)
                for var in (lit.key, lit.value):
                    if var is not None and var.name != "_":
                        inner[var.name] = var
                self.check_body(lit.body, inner)
            for var in new:
                declared.setdefault(var.name, var)

    def check_unused_assignments(self, rule: ast.Rule) -> None:
        counts: dict[str, int] = {}
        for node in walk(rule):
            if isinstance(node, ast.Var):
                counts[node.name] = counts.get(node.name, 0) + 1
        for node in walk(rule):
            if isinstance(node, ast.Assign):
                for var in _vars_in(node.lhs):
                    if var.name != "_" and counts.get(var.name) == 1:
                        self.warn(var.loc, f"assigned var {var.name} unused")


# ---------------------------------------------------------------------------------------------
# Checks across modules
# ---------------------------------------------------------------------------------------------

_KIND_NAMES = {
    "complete": "a single-value rule",
    "set": "a multi-value rule (contains)",
    "object": "a partial object rule (p[k] := v)",
    "function": "a function",
}


def _rule_conflicts(index: _Index) -> Iterator[Diagnostic]:
    for path, defs in index.rules.items():
        first = defs[0]
        for d in defs[1:]:
            if d.rule.doc_kind != first.rule.doc_kind:
                yield _diag(
                    d.module,
                    d.rule.loc,
                    f"rule {_data(path)} conflicts with {_where(first)}: "
                    f"{_KIND_NAMES[d.rule.doc_kind]} here, "
                    f"{_KIND_NAMES[first.rule.doc_kind]} there",
                )
        functions = [d for d in defs if d.rule.kind == "function"]
        for d in functions[1:]:
            if len(d.rule.args) != len(functions[0].rule.args):
                yield _diag(
                    d.module,
                    d.rule.loc,
                    f"function {_data(path)} has {len(d.rule.args)} arguments here and "
                    f"{len(functions[0].rule.args)} at {_where(functions[0])}",
                )
        defaults = [d for d in defs if d.rule.default]
        for d in defaults[1:]:
            yield _diag(
                d.module,
                d.rule.loc,
                f"multiple default rules {_data(path)} (the first at {_where(defaults[0])})",
            )
        # A single-value rule (or a function or a set) is a leaf: nothing may be defined inside it.
        if first.rule.doc_kind != "object":
            for other in index.rules:
                if len(other) > len(path) and other[: len(path)] == path:
                    inner = index.rules[other][0]
                    yield _diag(
                        inner.module,
                        inner.rule.loc,
                        f"rule {_data(other)} conflicts with {_data(path)} at {_where(first)}",
                        f"{_data(path)} is {_KIND_NAMES[first.rule.kind]}; "
                        "a rule cannot be defined inside it",
                    )
            for package in index.packages:
                if len(package) > len(path) and package[: len(path)] == path:
                    yield _diag(
                        first.module,
                        first.rule.loc,
                        f"rule {_data(path)} conflicts with package {_data(package)}",
                    )


def _recursion(modules: list[ast.Module], index: _Index) -> Iterator[Diagnostic]:
    graph: dict[tuple[str, ...], set[tuple[str, ...]]] = {path: set() for path in index.rules}
    for module in modules:
        for rule in module.rules:
            local = _declared_names(rule)
            deps = graph[module.package + rule.ref]
            for target in _references(module, rule, local):
                path = resolve(module, index, target, local)
                if path is not None:
                    deps.update(index.under(path))
    reported: set[frozenset[tuple[str, ...]]] = set()
    for cycle in _cycles(graph):
        key = frozenset(cycle)
        if key in reported:
            continue
        reported.add(key)
        start = index.rules[cycle[0]][0]
        chain = " → ".join(_data(p) for p in (*cycle, cycle[0]))
        yield _diag(
            start.module,
            start.rule.loc,
            f"recursion: {chain}",
            "Rego rules and functions cannot depend on themselves",
        )


def _references(module: ast.Module, rule: ast.Rule, local: set[str]) -> Iterator[tuple[str, ...]]:
    """Every document name the rule reads, as dotted parts (``("lib", "f")``, ``("p",)``);
    ``with`` targets are replaced, not read, so they do not count."""

    def visit(node: object) -> Iterator[tuple[str, ...]]:
        if isinstance(node, ast.With):
            yield from visit(node.value)
            return
        if isinstance(node, ast.Call):
            yield tuple(node.name.split("."))
        elif isinstance(node, ast.Ref) and isinstance(node.head, ast.Var):
            yield (node.head.name, *_const_path(node))
            for elem in node.path:
                yield from visit(elem)
            return
        elif isinstance(node, ast.Var) and node.name not in local:
            yield (node.name,)
        for child in children(node):
            yield from visit(child)

    return visit(rule)


def _cycles(graph: dict[tuple[str, ...], set[tuple[str, ...]]]) -> Iterator[list[tuple[str, ...]]]:
    """One cycle through each strongly connected part of the graph, starting at its first path
    in source order, found by depth-first search."""
    state: dict[tuple[str, ...], int] = {}  # 1: on the stack, 2: done
    stack: list[tuple[str, ...]] = []

    def visit(node: tuple[str, ...]) -> Iterator[list[tuple[str, ...]]]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                yield stack[stack.index(nxt) :]
            elif nxt not in state:
                yield from visit(nxt)
        stack.pop()
        state[node] = 2

    for node in graph:
        if node not in state:
            yield from visit(node)
