"""The policy language's abstract syntax tree.

The parser (``parser.py``) produces these nodes from source text, the checker (``check.py``)
validates them, the compiler (``compile.py``) turns them into Python code and the formatter
(``fmt.py``) prints them back. Nodes are small immutable classes with ``__slots__`` that compare
by value, like frozen dataclasses, but written out by hand: creating some thirty dataclasses (and
importing ``dataclasses``) costs more than it brings. ``fields(node)`` lists a node's fields, in
order. A warm ``hookgate eval`` never imports this module: the compile cache holds the compiled
code, not the tree.

Every node carries ``loc``: the 1-based line and column of its first character in its file.
"""

from __future__ import annotations

from collections.abc import Iterator

from hookgate.records import Frozen
from hookgate.records import set_field as _set

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Node(Frozen):
    """Base of every node: immutable, compared and hashed by value (see ``hookgate.records``)."""

    __slots__ = ()


def fields(node: Node) -> Iterator[tuple[str, Any]]:
    """``(name, value)`` of each field of ``node``, in declaration order."""
    for name in node.__slots__:
        yield name, getattr(node, name)


class Loc(Node):
    line: int
    col: int

    __slots__ = ("line", "col")

    def __init__(self, line: int, col: int) -> None:
        _set(self, "line", line)
        _set(self, "col", col)


# ---------------------------------------------------------------------------------------------
# Terms (values and expressions that produce values)
# ---------------------------------------------------------------------------------------------


class Scalar(Node):
    """null, true/false, a number or a string literal (raw strings included, already unquoted).

    Numbers keep their source text in ``text`` so that big integers and decimals are exact.
    """

    value: None | bool | int | float | str
    loc: Loc
    text: str | None

    __slots__ = ("value", "loc", "text")

    def __init__(
        self,
        value: None | bool | int | float | str,
        loc: Loc,
        text: str | None = None,
    ) -> None:
        _set(self, "value", value)
        _set(self, "loc", loc)
        _set(self, "text", text)


class Var(Node):
    """A variable, ``_`` (a fresh wildcard each time), or a root such as ``input``/``data``."""

    name: str
    loc: Loc

    __slots__ = ("name", "loc")

    def __init__(self, name: str, loc: Loc) -> None:
        _set(self, "name", name)
        _set(self, "loc", loc)


class Ref(Node):
    """``head.a[b][_]``: each path element is a term; ``.a`` is a string ``Scalar``."""

    head: Term
    path: tuple[Term, ...]
    loc: Loc

    __slots__ = ("head", "path", "loc")

    def __init__(self, head: Term, path: tuple[Term, ...], loc: Loc) -> None:
        _set(self, "head", head)
        _set(self, "path", path)
        _set(self, "loc", loc)


class ArrayTerm(Node):
    items: tuple[Term, ...]
    loc: Loc

    __slots__ = ("items", "loc")

    def __init__(self, items: tuple[Term, ...], loc: Loc) -> None:
        _set(self, "items", items)
        _set(self, "loc", loc)


class SetTerm(Node):
    """``{a, b}``; the empty set is written ``set()`` and parses to ``SetTerm(())``."""

    items: tuple[Term, ...]
    loc: Loc

    __slots__ = ("items", "loc")

    def __init__(self, items: tuple[Term, ...], loc: Loc) -> None:
        _set(self, "items", items)
        _set(self, "loc", loc)


class ObjectTerm(Node):
    items: tuple[tuple[Term, Term], ...]
    loc: Loc

    __slots__ = ("items", "loc")

    def __init__(self, items: tuple[tuple[Term, Term], ...], loc: Loc) -> None:
        _set(self, "items", items)
        _set(self, "loc", loc)


class ArrayCompr(Node):
    term: Term
    body: tuple[Literal, ...]
    loc: Loc

    __slots__ = ("term", "body", "loc")

    def __init__(self, term: Term, body: tuple[Literal, ...], loc: Loc) -> None:
        _set(self, "term", term)
        _set(self, "body", body)
        _set(self, "loc", loc)


class SetCompr(Node):
    term: Term
    body: tuple[Literal, ...]
    loc: Loc

    __slots__ = ("term", "body", "loc")

    def __init__(self, term: Term, body: tuple[Literal, ...], loc: Loc) -> None:
        _set(self, "term", term)
        _set(self, "body", body)
        _set(self, "loc", loc)


class ObjectCompr(Node):
    key: Term
    value: Term
    body: tuple[Literal, ...]
    loc: Loc

    __slots__ = ("key", "value", "body", "loc")

    def __init__(self, key: Term, value: Term, body: tuple[Literal, ...], loc: Loc) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "body", body)
        _set(self, "loc", loc)


class Call(Node):
    """A call of a builtin (``startswith``, ``shell.commands``) or of a user function.

    ``name`` is the dotted name as written (``shell.commands``, ``data.lib.f``, ``f``); the
    checker resolves it against the module's package, imports and the builtins registry.
    """

    name: str
    args: tuple[Term, ...]
    loc: Loc

    __slots__ = ("name", "args", "loc")

    def __init__(self, name: str, args: tuple[Term, ...], loc: Loc) -> None:
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "loc", loc)


class BinOp(Node):
    """Infix operators.

    ``op`` is one of: ``+ - * / %`` (arithmetic, and ``-`` for set difference), ``&`` ``|``
    (set intersection/union), ``== != < <= > >=`` (comparison).
    """

    op: str
    left: Term
    right: Term
    loc: Loc

    __slots__ = ("op", "left", "right", "loc")

    def __init__(self, op: str, left: Term, right: Term, loc: Loc) -> None:
        _set(self, "op", op)
        _set(self, "left", left)
        _set(self, "right", right)
        _set(self, "loc", loc)


class UnaryMinus(Node):
    term: Term
    loc: Loc

    __slots__ = ("term", "loc")

    def __init__(self, term: Term, loc: Loc) -> None:
        _set(self, "term", term)
        _set(self, "loc", loc)


class Membership(Node):
    """``value in collection`` or ``key, value in collection`` used as an expression."""

    key: Term | None
    value: Term
    collection: Term
    loc: Loc

    __slots__ = ("key", "value", "collection", "loc")

    def __init__(self, key: Term | None, value: Term, collection: Term, loc: Loc) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "collection", collection)
        _set(self, "loc", loc)


class Assign(Node):
    """``lhs := rhs`` (declares the variables on the left)."""

    lhs: Term
    rhs: Term
    loc: Loc

    __slots__ = ("lhs", "rhs", "loc")

    def __init__(self, lhs: Term, rhs: Term, loc: Loc) -> None:
        _set(self, "lhs", lhs)
        _set(self, "rhs", rhs)
        _set(self, "loc", loc)


class Unify(Node):
    """``lhs = rhs`` (unification)."""

    lhs: Term
    rhs: Term
    loc: Loc

    __slots__ = ("lhs", "rhs", "loc")

    def __init__(self, lhs: Term, rhs: Term, loc: Loc) -> None:
        _set(self, "lhs", lhs)
        _set(self, "rhs", rhs)
        _set(self, "loc", loc)


Term = (
    Scalar
    | Var
    | Ref
    | ArrayTerm
    | SetTerm
    | ObjectTerm
    | ArrayCompr
    | SetCompr
    | ObjectCompr
    | Call
    | BinOp
    | UnaryMinus
    | Membership
    | Assign
    | Unify
)


# ---------------------------------------------------------------------------------------------
# Body literals (one per line or ``;``-separated query element)
# ---------------------------------------------------------------------------------------------


class With(Node):
    """``with target as value``; ``target`` is a ``Ref`` (``input.x``, ``data.a.b``) or a
    ``Var``/``Ref`` naming a function or builtin to replace."""

    target: Term
    value: Term
    loc: Loc

    __slots__ = ("target", "value", "loc")

    def __init__(self, target: Term, value: Term, loc: Loc) -> None:
        _set(self, "target", target)
        _set(self, "value", value)
        _set(self, "loc", loc)


class Expr(Node):
    """An expression literal, possibly negated with ``not`` and modified by ``with``."""

    term: Term
    loc: Loc
    negated: bool
    withs: tuple[With, ...]

    __slots__ = ("term", "loc", "negated", "withs")

    def __init__(
        self,
        term: Term,
        loc: Loc,
        negated: bool = False,
        withs: tuple[With, ...] = (),
    ) -> None:
        _set(self, "term", term)
        _set(self, "loc", loc)
        _set(self, "negated", negated)
        _set(self, "withs", withs)


class SomeDecl(Node):
    """``some x, y``: declares local variables."""

    vars: tuple[Var, ...]
    loc: Loc

    __slots__ = ("vars", "loc")

    def __init__(self, vars: tuple[Var, ...], loc: Loc) -> None:
        _set(self, "vars", vars)
        _set(self, "loc", loc)


class SomeIn(Node):
    """``some v in coll`` / ``some k, v in coll``; ``key``/``value`` may be patterns."""

    key: Term | None
    value: Term
    collection: Term
    loc: Loc
    withs: tuple[With, ...]

    __slots__ = ("key", "value", "collection", "loc", "withs")

    def __init__(
        self,
        key: Term | None,
        value: Term,
        collection: Term,
        loc: Loc,
        withs: tuple[With, ...] = (),
    ) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "collection", collection)
        _set(self, "loc", loc)
        _set(self, "withs", withs)


class Every(Node):
    """``every v in coll { body }`` / ``every k, v in coll { body }``."""

    key: Var | None
    value: Var
    domain: Term
    body: tuple[Literal, ...]
    loc: Loc
    withs: tuple[With, ...]

    __slots__ = ("key", "value", "domain", "body", "loc", "withs")

    def __init__(
        self,
        key: Var | None,
        value: Var,
        domain: Term,
        body: tuple[Literal, ...],
        loc: Loc,
        withs: tuple[With, ...] = (),
    ) -> None:
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "domain", domain)
        _set(self, "body", body)
        _set(self, "loc", loc)
        _set(self, "withs", withs)


Literal = Expr | SomeDecl | SomeIn | Every


# ---------------------------------------------------------------------------------------------
# Rules and modules
# ---------------------------------------------------------------------------------------------


class Else(Node):
    """``else [= value] [if] { body }``; a missing value means ``true``."""

    value: Term | None
    body: tuple[Literal, ...]
    loc: Loc

    __slots__ = ("value", "body", "loc")

    def __init__(self, value: Term | None, body: tuple[Literal, ...], loc: Loc) -> None:
        _set(self, "value", value)
        _set(self, "body", body)
        _set(self, "loc", loc)


class Rule(Node):
    """One rule definition.

    ``kind``:
      - ``"complete"``: ``name := value if body`` / ``name = value`` / ``name if body``
        (value ``None`` means ``true``); ``default name := value`` sets ``default=True``.
      - ``"set"``: ``name contains key if body`` (partial set; the member is ``key``).
      - ``"object"``: ``name[key] := value if body`` (partial object; ``name[key] if body``
        has value ``None``, meaning ``true``, as in OPA v1). A constant string key is part of
        the name instead: ``p["a"] := 1`` is the complete rule ``ref=("p", "a")``.
      - ``"function"``: ``name(args) := value if body`` (value ``None`` means ``true``).

    A name with a variable (or non-string key) anywhere is rooted at its constant prefix
    (``ref``); the keys from there on are ``path_keys`` then ``key``: ``p.q[a].r[b] := v`` is
    the object rule ``ref=("p", "q")``, ``path_keys=(a, "r")``, ``key=b``, and
    ``p.q[a].r contains x`` the set rule ``ref=("p", "q")``, ``path_keys=(a, "r")``, ``key=x``
    (a partial object whose leaves are sets).

    ``ref`` is the rule name as written, split on dots (``["deny"]``, ``["a", "b"]`` for
    ``a.b contains x``); the full path is the module's package followed by ``ref``.
    ``body`` is empty for a rule without a body.
    """

    kind: str
    ref: tuple[str, ...]
    loc: Loc
    args: tuple[Term, ...]
    key: Term | None
    value: Term | None
    body: tuple[Literal, ...]
    elses: tuple[Else, ...]
    default: bool
    assign_op: str | None  # ":=" or "=" as written in the head, None when absent
    path_keys: tuple[Term, ...]

    __slots__ = (
        "kind",
        "ref",
        "loc",
        "args",
        "key",
        "value",
        "body",
        "elses",
        "default",
        "assign_op",
        "path_keys",
    )

    def __init__(
        self,
        kind: str,
        ref: tuple[str, ...],
        loc: Loc,
        args: tuple[Term, ...] = (),
        key: Term | None = None,
        value: Term | None = None,
        body: tuple[Literal, ...] = (),
        elses: tuple[Else, ...] = (),
        default: bool = False,
        assign_op: str | None = None,
        path_keys: tuple[Term, ...] = (),
    ) -> None:
        _set(self, "kind", kind)
        _set(self, "ref", ref)
        _set(self, "loc", loc)
        _set(self, "args", args)
        _set(self, "key", key)
        _set(self, "value", value)
        _set(self, "body", body)
        _set(self, "elses", elses)
        _set(self, "default", default)
        _set(self, "assign_op", assign_op)
        _set(self, "path_keys", path_keys)

    @property
    def doc_kind(self) -> str:
        """The kind of document the rule defines at ``ref``: a set rule with key terms in its
        name defines an object (of sets)."""
        return "object" if self.path_keys else self.kind


class Import(Node):
    """``import data.a.b [as alias]``, ``import input.x``, ``import rego.v1``,
    ``import future.keywords[.name]``."""

    path: tuple[str, ...]
    loc: Loc
    alias: str | None

    __slots__ = ("path", "loc", "alias")

    def __init__(self, path: tuple[str, ...], loc: Loc, alias: str | None = None) -> None:
        _set(self, "path", path)
        _set(self, "loc", loc)
        _set(self, "alias", alias)


class Comment(Node):
    text: str  # without the leading '#'
    loc: Loc

    __slots__ = ("text", "loc")

    def __init__(self, text: str, loc: Loc) -> None:
        _set(self, "text", text)
        _set(self, "loc", loc)


class Module(Node):
    """One source file. ``metadata`` holds the parsed ``# METADATA`` block of the package
    (YAML-like ``title:``/``description:`` keys), used for provenance (``pack=<title>``)."""

    filename: str
    package: tuple[str, ...]
    loc: Loc
    imports: tuple[Import, ...]
    rules: tuple[Rule, ...]
    comments: tuple[Comment, ...]
    metadata: tuple[tuple[str, str], ...]

    __slots__ = ("filename", "package", "loc", "imports", "rules", "comments", "metadata")
    _compare = ("filename", "package", "loc", "imports", "rules", "metadata")

    def __init__(
        self,
        filename: str,
        package: tuple[str, ...],
        loc: Loc,
        imports: tuple[Import, ...] = (),
        rules: tuple[Rule, ...] = (),
        comments: tuple[Comment, ...] = (),
        metadata: tuple[tuple[str, str], ...] = (),
    ) -> None:
        _set(self, "filename", filename)
        _set(self, "package", package)
        _set(self, "loc", loc)
        _set(self, "imports", imports)
        _set(self, "rules", rules)
        _set(self, "comments", comments)
        _set(self, "metadata", metadata)


def is_constant(t: Any) -> bool:
    """A term of literals only (scalars, and arrays, sets and objects of them)."""
    if isinstance(t, Scalar):
        return True
    if isinstance(t, ArrayTerm | SetTerm):
        return all(is_constant(x) for x in t.items)
    if isinstance(t, ObjectTerm):
        return all(is_constant(k) and is_constant(v) for k, v in t.items)
    return False
