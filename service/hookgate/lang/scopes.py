"""Comprehension scopes, as OPA has them: a variable a comprehension declares (``:=``,
``some``) is its own, even where the enclosing body has one of the same name
(``x := 2; xs := [x | x := 1]`` gives ``[1]``; OPA rewrites the inner ``x`` to a fresh local).

``scope_module`` renames each such variable inside its comprehension to a name no source can
write (``x'``), so the checker and the compiler need no notion of shadowing. It runs after
parsing for checking and compiling only: the formatter prints the tree as written.
"""

from __future__ import annotations

from hookgate.lang import ast
from hookgate.lang.errors import Diagnostic
from hookgate.records import set_field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_COMPREHENSIONS = (ast.ArrayCompr, ast.SetCompr, ast.ObjectCompr)
_BODIES = (*_COMPREHENSIONS, ast.Rule, ast.Else, ast.Every)
_ROOTS = ("input", "data", "_")


def scope_module(module: ast.Module) -> ast.Module:
    counter = [0]

    def fresh(name: str) -> str:
        counter[0] += 1
        return f"{name}'{counter[0]}"

    def visit(node: Any) -> Any:
        if isinstance(node, _COMPREHENSIONS):
            for name in _declared(node.body):
                node = _rename(node, name, fresh(name))
        if isinstance(node, _BODIES):
            node = _with_field(node, "body", _scope_body(node.body, fresh))
        return node

    return _map(module, visit, descend_comprehensions=True)


def _scope_body(body: tuple, fresh: Any) -> tuple:
    """A comprehension that uses a name the body declares only later (``y := {x | xs[x]};
    x := count(y)``) has a variable of its own: renamed there."""
    out = []
    for i, lit in enumerate(body):
        later = set(_declared(body[i:])) - set(_declared(body[:i]))
        if later:

            def visit(node: Any, later: set = later) -> Any:
                for name in later:
                    node = _rename(node, name, fresh(name))
                return node

            lit = _map_top_comprehensions(lit, visit)
        out.append(lit)
    return tuple(out)


def _map_top_comprehensions(node: Any, fn: Any) -> Any:
    """``node`` with ``fn`` applied to each outermost comprehension in it."""
    if isinstance(node, _COMPREHENSIONS):
        return fn(node)
    if isinstance(node, tuple | list):
        items = [_map_top_comprehensions(x, fn) for x in node]
        if all(a is b for a, b in zip(items, node, strict=True)):
            return node
        return type(node)(items)
    if not isinstance(node, ast.Node) or isinstance(node, ast.Loc | ast.Scalar | ast.Every):
        return node
    for name in node.__slots__:
        value = getattr(node, name)
        mapped = _map_top_comprehensions(value, fn)
        if mapped is not value:
            node = _with_field(node, name, mapped)
    return node


def _with_field(node: Any, field: str, value: Any) -> Any:
    if getattr(node, field) is value:
        return node
    copy = object.__new__(type(node))
    for name in node.__slots__:
        set_field(copy, name, value if name == field else getattr(node, name))
    return copy


def source_names(diag: Diagnostic) -> Diagnostic:
    """``diag`` naming variables as written (``x'3`` → ``x``)."""
    if "'" not in diag.message and "'" not in (diag.hint or ""):
        return diag

    def clean(text: str | None) -> str | None:
        if text is None:
            return None
        out = []
        i = 0
        while i < len(text):
            j = i + 1
            while j < len(text) and text[j].isdigit():
                j += 1
            renamed = (
                text[i] == "'" and j > i + 1 and i and (text[i - 1].isalnum() or text[i - 1] == "_")
            )
            out.append("" if renamed else text[i:j] if text[i] == "'" else text[i])
            i = j if text[i] == "'" else i + 1
        return "".join(out)

    return Diagnostic(
        diag.file,
        diag.line,
        diag.col,
        clean(diag.message),
        clean(diag.hint),
        diag.source_line,
        diag.severity,
    )


def _declared(body: tuple) -> list[str]:
    names: list[str] = []
    for lit in body:
        found: list[ast.Var] = []
        if isinstance(lit, ast.Expr) and isinstance(lit.term, ast.Assign) and not lit.negated:
            found = _vars(lit.term.lhs)
        elif isinstance(lit, ast.SomeDecl):
            found = list(lit.vars)
        elif isinstance(lit, ast.SomeIn):
            found = [v for part in (lit.key, lit.value) if part is not None for v in _vars(part)]
        for var in found:
            if var.name not in _ROOTS and var.name not in names:
                names.append(var.name)
    return names


def _vars(term: Any) -> list[ast.Var]:
    out: list[ast.Var] = []

    def visit(node: Any) -> Any:
        if isinstance(node, ast.Var):
            out.append(node)
        return node

    _map(term, visit, descend_comprehensions=True)
    return out


def _rename(node: Any, old: str, new: str) -> Any:
    def visit(n: Any) -> Any:
        if isinstance(n, ast.Var) and n.name == old:
            return ast.Var(new, n.loc)
        return n

    return _map(node, visit, descend_comprehensions=True)


def _map(node: Any, fn: Any, *, descend_comprehensions: bool = False) -> Any:
    """``node`` rebuilt bottom-up with ``fn`` applied to every comprehension (by default) or
    to every node (``descend_comprehensions``)."""
    if isinstance(node, tuple | list):
        items = [_map(x, fn, descend_comprehensions=descend_comprehensions) for x in node]
        if all(a is b for a, b in zip(items, node, strict=True)):
            return node
        return type(node)(items)
    if not isinstance(node, ast.Node) or isinstance(node, ast.Loc | ast.Scalar):
        return node
    changed = False
    values = []
    for name in node.__slots__:
        value = getattr(node, name)
        mapped = _map(value, fn, descend_comprehensions=descend_comprehensions)
        changed = changed or mapped is not value
        values.append(mapped)
    if changed:
        copy = object.__new__(type(node))
        for name, value in zip(node.__slots__, values, strict=True):
            set_field(copy, name, value)
        node = copy
    if descend_comprehensions or isinstance(node, _COMPREHENSIONS):
        return fn(node)
    return node
