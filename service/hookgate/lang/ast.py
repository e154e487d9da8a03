"""The policy language's abstract syntax tree.

The parser (``parser.py``) produces these nodes from source text, the checker (``check.py``)
validates them, the compiler (``compile.py``) turns them into evaluable closures and the
formatter (``fmt.py``) prints them back. Nodes are plain frozen dataclasses so a checked module
can be pickled into the compile cache and loaded without importing Lark.

Every node carries ``loc``: the 1-based line and column of its first character in its file.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Loc:
    line: int
    col: int


# ---------------------------------------------------------------------------------------------
# Terms (values and expressions that produce values)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scalar:
    """null, true/false, a number or a string literal (raw strings included, already unquoted).

    Numbers keep their source text in ``text`` so that big integers and decimals are exact.
    """

    value: None | bool | int | float | str
    loc: Loc
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Var:
    """A variable, ``_`` (a fresh wildcard each time), or a root such as ``input``/``data``."""

    name: str
    loc: Loc


@dataclass(frozen=True, slots=True)
class Ref:
    """``head.a[b][_]``: each path element is a term; ``.a`` is a string ``Scalar``."""

    head: Term
    path: tuple[Term, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class ArrayTerm:
    items: tuple[Term, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class SetTerm:
    """``{a, b}``; the empty set is written ``set()`` and parses to ``SetTerm(())``."""

    items: tuple[Term, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class ObjectTerm:
    items: tuple[tuple[Term, Term], ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class ArrayCompr:
    term: Term
    body: tuple[Literal, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class SetCompr:
    term: Term
    body: tuple[Literal, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class ObjectCompr:
    key: Term
    value: Term
    body: tuple[Literal, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class Call:
    """A call of a builtin (``startswith``, ``shell.commands``) or of a user function.

    ``name`` is the dotted name as written (``shell.commands``, ``data.lib.f``, ``f``); the
    checker resolves it against the module's package, imports and the builtins registry.
    """

    name: str
    args: tuple[Term, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class BinOp:
    """Infix operators.

    ``op`` is one of: ``+ - * / %`` (arithmetic, and ``-`` for set difference), ``&`` ``|``
    (set intersection/union), ``== != < <= > >=`` (comparison).
    """

    op: str
    left: Term
    right: Term
    loc: Loc


@dataclass(frozen=True, slots=True)
class UnaryMinus:
    term: Term
    loc: Loc


@dataclass(frozen=True, slots=True)
class Membership:
    """``value in collection`` or ``key, value in collection`` used as an expression."""

    key: Term | None
    value: Term
    collection: Term
    loc: Loc


@dataclass(frozen=True, slots=True)
class Assign:
    """``lhs := rhs`` (declares the variables on the left)."""

    lhs: Term
    rhs: Term
    loc: Loc


@dataclass(frozen=True, slots=True)
class Unify:
    """``lhs = rhs`` (unification)."""

    lhs: Term
    rhs: Term
    loc: Loc


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


@dataclass(frozen=True, slots=True)
class With:
    """``with target as value``; ``target`` is a ``Ref`` (``input.x``, ``data.a.b``) or a
    ``Var``/``Ref`` naming a function or builtin to replace."""

    target: Term
    value: Term
    loc: Loc


@dataclass(frozen=True, slots=True)
class Expr:
    """An expression literal, possibly negated with ``not`` and modified by ``with``."""

    term: Term
    loc: Loc
    negated: bool = False
    withs: tuple[With, ...] = ()


@dataclass(frozen=True, slots=True)
class SomeDecl:
    """``some x, y``: declares local variables."""

    vars: tuple[Var, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class SomeIn:
    """``some v in coll`` / ``some k, v in coll``; ``key``/``value`` may be patterns."""

    key: Term | None
    value: Term
    collection: Term
    loc: Loc
    withs: tuple[With, ...] = ()


@dataclass(frozen=True, slots=True)
class Every:
    """``every v in coll { body }`` / ``every k, v in coll { body }``."""

    key: Var | None
    value: Var
    domain: Term
    body: tuple[Literal, ...]
    loc: Loc
    withs: tuple[With, ...] = ()


Literal = Expr | SomeDecl | SomeIn | Every


# ---------------------------------------------------------------------------------------------
# Rules and modules
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Else:
    """``else [= value] [if] { body }``; a missing value means ``true``."""

    value: Term | None
    body: tuple[Literal, ...]
    loc: Loc


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule definition.

    ``kind``:
      - ``"complete"``: ``name := value if body`` / ``name = value`` / ``name if body``
        (value ``None`` means ``true``); ``default name := value`` sets ``default=True``.
      - ``"set"``: ``name contains key if body`` (partial set; the member is ``key``).
      - ``"object"``: ``name[key] := value if body`` (partial object; ``name[key] if body``
        has value ``None``, meaning ``true``, as in OPA v1). A constant string key is part of
        the name instead: ``p["a"] := 1`` is the complete rule ``ref=("p", "a")``.
      - ``"function"``: ``name(args) := value if body`` (value ``None`` means ``true``).

    ``ref`` is the rule name as written, split on dots (``["deny"]``, ``["a", "b"]`` for
    ``a.b contains x``); the full path is the module's package followed by ``ref``.
    ``body`` is empty for a rule without a body.
    """

    kind: str
    ref: tuple[str, ...]
    loc: Loc
    args: tuple[Term, ...] = ()
    key: Term | None = None
    value: Term | None = None
    body: tuple[Literal, ...] = ()
    elses: tuple[Else, ...] = ()
    default: bool = False
    assign_op: str | None = None  # ":=" or "=" as written in the head, None when absent


@dataclass(frozen=True, slots=True)
class Import:
    """``import data.a.b [as alias]``, ``import input.x``, ``import rego.v1``,
    ``import future.keywords[.name]``."""

    path: tuple[str, ...]
    loc: Loc
    alias: str | None = None


@dataclass(frozen=True, slots=True)
class Comment:
    text: str  # without the leading '#'
    loc: Loc


@dataclass(frozen=True, slots=True)
class Module:
    """One source file. ``metadata`` holds the parsed ``# METADATA`` block of the package
    (YAML-like ``title:``/``description:`` keys), used for provenance (``pack=<title>``)."""

    filename: str
    package: tuple[str, ...]
    loc: Loc
    imports: tuple[Import, ...] = ()
    rules: tuple[Rule, ...] = ()
    comments: tuple[Comment, ...] = field(default=(), compare=False)
    metadata: tuple[tuple[str, str], ...] = ()
