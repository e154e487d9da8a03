"""Source text → ``ast.Module``: Lark (LALR, contextual lexer) plus a transformer.

The grammar (``grammar/policy.lark``, shipped as ``hookgate.grammar``) describes the syntax; this
module adds what an LALR grammar cannot say on its own: which tokens touch (a reference or call
may not contain whitespace), where a body's literals are separated (a newline or ``;``), and the
checks that make a module we accept mean what it means in OPA. Anything outside the subset is a
``PolicyError`` with an ``unsupported: <feature>`` diagnostic at its line:col; a Lark exception
never escapes.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from hookgate.lang import ast
from hookgate.lang.errors import Diagnostic, PolicyError, with_source

# Terminals after which a touching `[` / `(` continues a term instead of starting a new one.
_TERM_END = frozenset({"NAME", "RSQB", "RPAR", "RBRACE", "STRING", "RAW_STRING", "NUMBER"})
_TERM_END |= {"TRUE", "FALSE", "NULL"}

# The keywords of Rego v1; never a variable, rule or import alias name.
KEYWORDS = frozenset(
    "package import as default contains if else not some every with in true false null".split()
)

# `not` is importable too (OPA reserves it for negated bodies, `not { … }`; plain `not expr`
# needs no import).
FUTURE_KEYWORDS = frozenset({"in", "every", "contains", "if", "not"})

# Keywords that can never be a name outside a reference's `.key`.
_RESERVED = KEYWORDS - {"contains"}

_ROOTS = ("data", "input", "future", "rego")

_DISPLAY = {
    "NAME": "a name",
    "NUMBER": "a number",
    "STRING": "a string",
    "RAW_STRING": "a string",
    "REL_OP": "a comparison",
    "REF_LSQB": "'['",
    "CALL_LPAR": "'('",
    "BODY_LBRACE": "'{'",
    "$END": "end of file",
}


class _Fail(Exception):
    """Raised inside the transformer; turned into a PolicyError by ``parse_module``."""

    def __init__(self, message: str, line: int, col: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col
        self.hint = hint


def _fail_at(node: Any, message: str, hint: str | None = None) -> _Fail:
    loc = node.loc if hasattr(node, "loc") else ast.Loc(node.line, node.column)
    return _Fail(message, loc.line, loc.col, hint)


# ---------------------------------------------------------------------------------------------
# Lark plumbing (imported lazily: the hot path never parses)
# ---------------------------------------------------------------------------------------------

_state = threading.local()  # per-thread comment buffer filled by the post-lexer
_LARK: Any = None
_LOCK = threading.Lock()


class _PostLex:
    """Retypes context-dependent tokens and takes comments out of the token stream."""

    always_accept = ("LSQB", "LPAR", "LBRACE", "COMMENT")

    def process(self, stream: Any) -> Any:
        prev = None
        comments = _state.comments
        candidates = _state.candidates  # tokens a retry may read the other way (parse_module)
        exempt = _state.exempt
        for tok in stream:
            kind = tok.type
            if kind == "COMMENT":
                comments.append(tok)
                continue
            if kind == "NAME" and tok.value in _RESERVED and (prev is None or prev.type != "DOT"):
                # A keyword where the grammar has no place for it: the contextual lexer read it
                # as a name. Rego v1 reserves keywords (only `contains` is also a builtin).
                negated = prev is not None and prev.type == "NOT"
                what = (
                    f"illegal negation of '{tok.value}'"
                    if negated
                    else f"unexpected keyword '{tok.value}'"
                )
                raise _fail_at(tok, what)
            touching = prev is not None and prev.end_pos == tok.start_pos
            if kind == "LSQB" and touching and prev.type in _TERM_END:
                tok = tok.new_borrow_pos("REF_LSQB", tok.value, tok)
            elif kind == "LPAR" and touching and prev.type in ("NAME", "RSQB"):
                # `f(x)`, and `a["b"](x)`: a function named by a ref with a string key
                tok = tok.new_borrow_pos("CALL_LPAR", tok.value, tok)
            elif kind == "LBRACE" and prev is not None and prev.type == "IF":
                candidates.append(tok.start_pos)
                if tok.start_pos not in exempt:
                    tok = tok.new_borrow_pos("BODY_LBRACE", tok.value, tok)
            elif kind == "PIPE":
                candidates.append(tok.start_pos)
                if tok.start_pos in exempt:
                    tok = tok.new_borrow_pos("UNION_PIPE", tok.value, tok)
            prev = tok
            yield tok


def _lark() -> Any:
    global _LARK
    if _LARK is None:
        with _LOCK:
            if _LARK is None:
                from lark import Lark

                _LARK = Lark(
                    grammar_text(),
                    parser="lalr",
                    lexer="contextual",
                    postlex=_PostLex(),
                    propagate_positions=True,
                    maybe_placeholders=False,
                )
    return _LARK


def grammar_text() -> str:
    """The grammar's source (part of the compile cache key)."""
    from importlib.resources import files

    return files("hookgate.grammar").joinpath("policy.lark").read_text("utf-8")


# ---------------------------------------------------------------------------------------------
# Public entry point
# ---------------------------------------------------------------------------------------------


def parse_module(source: str, filename: str = "<policy>") -> ast.Module:
    """Parse one policy file; raises ``PolicyError`` with file:line:col diagnostics."""
    # OPA's parser backtracks in two places an LALR parser cannot: `p if { x | … }` and
    # `[x | y, z]` read as a term / an array when the other reading fails. We parse the usual
    # reading first and, on an error, retry with the nearest such `{` or `|` read the other
    # way; the first error is the one reported if no reading works.
    try:
        return _parse_readings(source, filename)
    except PolicyError as exc:
        # `import rego.v2` changes the syntax (`and`, `or`, `not { … }`), so a v2 module
        # usually fails to parse before its import is read: name the import, not the symptom.
        at = _rego_v2_import(source)
        diag = exc.diagnostics[0]
        if at is None or at > (diag.line, diag.col):
            raise
        raise _error(filename, source, *at, _REGO_V2, _REGO_V2_HINT) from None


_REGO_V2 = "unsupported: import rego.v2 (OPA's preview of Rego v2: `and`, `or`, `not { … }`)"
_REGO_V2_HINT = "write the module in Rego v1 (`import rego.v1` or no import)"


def _rego_v2_import(source: str) -> tuple[int, int] | None:
    """The line:col of `import rego.v2` among the module's leading package and import lines
    (a rule ends them, so a raw string's line never counts), or None."""
    for number, text in enumerate(source.split("\n"), 1):
        words = text.split("#", 1)[0].split()
        if words[:2] == ["import", "rego.v2"] and len(words) == 2:
            return number, len(text) - len(text.lstrip()) + 1
        if words and words[0] not in ("package", "import"):
            return None
    return None


def _parse_readings(source: str, filename: str) -> ast.Module:
    exempt: frozenset[int] = frozenset()
    first: PolicyError | None = None
    for _ in range(3):
        try:
            return _parse_once(source, filename, exempt)
        except _Retryable as exc:
            first = first or exc.error
            retry = [
                p
                for p in exc.candidates
                if p <= exc.pos and p not in exempt and _may_reread(source, p, exc.pos)
            ]
            if not retry:
                break
            exempt = exempt | {max(retry)}
        except PolicyError:
            if first is None:
                raise
            break
    assert first is not None
    raise first


def _may_reread(source: str, pos: int, error_pos: int) -> bool:
    """Whether a failed reading may be retried with the token at ``pos`` read the other way.
    A `|` becomes a union only when a `,` followed it, as in OPA (which falls back to an
    array or set when the comprehension's body stops at a comma)."""
    return source[pos] != "|" or "," in source[pos : error_pos + 1]


class _Retryable(Exception):
    def __init__(self, error: PolicyError, pos: int, candidates: list[int]) -> None:
        self.error = error
        self.pos = pos
        self.candidates = candidates


def _parse_once(source: str, filename: str, exempt: frozenset[int]) -> ast.Module:
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, VisitError

    parser = _lark()
    _state.comments = []
    _state.candidates = []
    _state.exempt = exempt
    try:
        tree = parser.parse(source)
        comments = tuple(
            ast.Comment(str(tok)[1:], ast.Loc(tok.line, tok.column)) for tok in _state.comments
        )
        try:
            module = _builder(filename).transform(tree)
        except VisitError as exc:  # Lark wraps what the transformer raises
            raise exc.orig_exc from None
    except RecursionError:
        message = "unsupported: expressions nested too deeply"
        raise _error(filename, source, 1, 1, message, "split the term into smaller rules") from None
    except UnexpectedCharacters as exc:
        char = source[exc.pos_in_stream] if exc.pos_in_stream < len(source) else ""
        message, hint = _bad_character(char)
        raise _error(filename, source, exc.line, exc.column, message, hint) from None
    except UnexpectedEOF as exc:
        line, col = _end_position(source)
        message = "unexpected end of file" + _expected(exc.expected)
        raise _error(filename, source, line, col, message, None) from None
    except UnexpectedInput as exc:  # UnexpectedToken
        error = _unexpected_token(filename, source, exc)
        raise _Retryable(error, exc.token.start_pos or 0, _state.candidates) from None
    except _Fail as exc:
        error = _error(filename, source, exc.line, exc.col, exc.message, exc.hint)
        pos = _offset(source, exc.line, exc.col)
        raise _Retryable(error, pos, _state.candidates) from None
    finally:
        _state.comments = []
        _state.candidates = []
    metadata = _package_metadata(comments, module.loc.line)
    return ast.Module(
        filename,
        module.package,
        module.loc,
        module.imports,
        module.rules,
        comments,
        metadata,
    )


def _offset(source: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line - 1):
        pos = source.index("\n", pos) + 1
    return pos + col - 1


def _error(
    filename: str, source: str, line: int, col: int, message: str, hint: str | None
) -> PolicyError:
    diag = Diagnostic(filename, line, col, message, hint)
    return PolicyError([with_source(diag, source)])


def _end_position(source: str) -> tuple[int, int]:
    """Just after the last non-blank character: where the missing text should have been."""
    lines = source.rstrip().split("\n")
    return len(lines), len(lines[-1]) + 1


def _bad_character(char: str) -> tuple[str, str | None]:
    if char == "$":
        return 'unsupported: template strings ($"...")', "build the string with sprintf or concat"
    if char == '"':
        return (
            "unterminated string",
            "a string ends on the line where it starts (use `...` for multi-line text)",
        )
    if char == "`":
        return "unterminated raw string", None
    shown = char if char.isprintable() and not char.isspace() else repr(char)
    return f"unexpected character {shown}", None


def _describe(kind: str) -> str:
    if kind in _DISPLAY:
        return _DISPLAY[kind]
    for term in _lark().terminals:
        if term.name == kind and term.pattern.type == "str":
            return f"'{term.pattern.value}'"
    return kind.lower()


def _expected(kinds: Any) -> str:
    names = sorted({_describe(k) for k in kinds if k not in ("COMMENT",)})
    if not names or len(names) > 8:  # a long list (anything may start a new literal) helps no one
        return ""
    return "; expected " + (names[0] if len(names) == 1 else "one of " + ", ".join(names))


def _unexpected_token(filename: str, source: str, exc: Any) -> PolicyError:
    tok = exc.token
    expected = set(exc.expected) | set(getattr(exc, "accepts", None) or ())
    if tok.type == "$END":
        line, col = _end_position(source)
        return _error(
            filename, source, line, col, "unexpected end of file" + _expected(expected), None
        )
    line, col = tok.line, tok.column
    if tok.type in ("LBRACE", "BODY_LBRACE") and "IF" in expected:
        return _error(
            filename,
            source,
            line,
            col,
            "unsupported: Rego v0 syntax (a rule body without `if`)",
            "write `name if { ... }` (and `name contains x if { ... }` for a partial set)",
        )
    shown = "'" + str(tok) + "'" if tok.type != "STRING" else "string"
    return _error(filename, source, line, col, f"unexpected {shown}" + _expected(expected), None)


# ---------------------------------------------------------------------------------------------
# Tree → AST
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Lit:
    """A body literal with the line its last token is on (to check literal separators)."""

    node: ast.Literal
    end_line: int


@dataclass(frozen=True, slots=True)
class _Args:
    terms: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class _Body:
    literals: tuple[ast.Literal, ...]


def _split_head(head: _Head) -> tuple[_Head, tuple[Any, ...]]:
    """A rule name split at its first key that is not a constant string: the constant prefix
    (where the rule's document is rooted) and the key terms after it (strings as scalars)."""
    for i, elem in enumerate(head.elems):
        if not isinstance(elem, str):
            keys = tuple(
                ast.Scalar(e, head.loc) if isinstance(e, str) else e for e in head.elems[i:]
            )
            return _Head(head.name, head.elems[:i], head.loc), keys
    return head, ()


@dataclass(frozen=True, slots=True)
class _Head:
    name: str
    elems: tuple[Any, ...]  # str (a ref element) or an ast term in brackets
    loc: ast.Loc


def _loc(meta: Any) -> ast.Loc:
    return ast.Loc(meta.line, meta.column)


def _tok_loc(tok: Any) -> ast.Loc:
    return ast.Loc(tok.line, tok.column)


def _is_token(x: Any, kind: str | None = None) -> bool:
    return hasattr(x, "type") and hasattr(x, "start_pos") and (kind is None or x.type == kind)


def _terms(children: list[Any]) -> tuple[Any, ...]:
    return tuple(c for c in children if not _is_token(c))


_PRIMARY = (
    ast.Scalar,
    ast.Var,
    ast.Ref,
    ast.ArrayTerm,
    ast.SetTerm,
    ast.ObjectTerm,
    ast.ArrayCompr,
    ast.SetCompr,
    ast.ObjectCompr,
    ast.Call,
)


def _make_builder() -> type:
    from lark import Transformer, v_args

    @v_args(meta=True)
    class Builder(Transformer):
        def __init__(self, filename: str) -> None:
            super().__init__()
            self.filename = filename

        # ------------------------------------------------------------------ module structure

        def start(self, meta: Any, children: list[Any]) -> ast.Module:
            package, loc = children[0]
            imports = tuple(c for c in children[1:] if isinstance(c, ast.Import))
            rules = tuple(c for c in children[1:] if isinstance(c, ast.Rule))
            return ast.Module(self.filename, package, loc, imports, rules)

        def package(self, meta: Any, children: list[Any]) -> tuple[tuple[str, ...], ast.Loc]:
            return children[1], _tok_loc(children[0])

        def import_(self, meta: Any, children: list[Any]) -> ast.Import:
            path = children[1]
            alias = str(children[3]) if len(children) > 2 else None
            loc = _tok_loc(children[0])
            problem = _import_problem(path, alias)
            if problem is not None:
                raise _Fail(problem[0], loc.line, loc.col, problem[1])
            return ast.Import(path, loc, alias)

        def path(self, meta: Any, children: list[Any]) -> tuple[str, ...]:
            return (str(children[0]), *children[1:])

        def dot_elem(self, meta: Any, children: list[Any]) -> str:
            return str(children[1])

        def str_elem(self, meta: Any, children: list[Any]) -> str:
            return _string_value(children[1])

        # ------------------------------------------------------------------ rules

        def head(self, meta: Any, children: list[Any]) -> _Head:
            return _Head(str(children[0]), tuple(children[1:]), _tok_loc(children[0]))

        def bracket_elem(self, meta: Any, children: list[Any]) -> Any:
            term = children[1]
            if isinstance(term, ast.Scalar) and isinstance(term.value, str):
                return term.value
            return term

        def fn_args(self, meta: Any, children: list[Any]) -> _Args:
            return _Args(_terms(children))

        def braced_body(self, meta: Any, children: list[Any]) -> _Body:
            body = children[2]
            _check_not_comprehension(body, children[1])
            return _Body(body)

        def literal_body(self, meta: Any, children: list[Any]) -> _Body:
            node = children[1].node
            if isinstance(node, ast.Expr) and isinstance(node.term, ast.SetTerm):
                # Only a retry reads `{` after `if` as a term; a set there is a body in OPA.
                raise _fail_at(node, "unexpected set literal as a rule body")
            return _Body((node,))

        def else_braced_body(self, meta: Any, children: list[Any]) -> _Body:
            return _Body(children[2])

        def else_literal_body(self, meta: Any, children: list[Any]) -> _Body:
            node = children[1].node
            if isinstance(node, ast.Expr) and _starts_with_brace(node):
                # only a retry reads this `{` as a term, and OPA never does after `else … if`
                raise _fail_at(node, "unexpected '{' term as the body of else")
            return _Body((node,))

        def else_(self, meta: Any, children: list[Any]) -> ast.Else:
            parts = _RuleParts(children[1:])
            return ast.Else(parts.value, parts.body, _tok_loc(children[0]))

        def assign_op(self, meta: Any, children: list[Any]) -> Any:
            return children[0]

        def default_rule(self, meta: Any, children: list[Any]) -> ast.Rule:
            head: _Head = children[1]
            parts = _RuleParts(children[2:])
            ref = self._complete_ref(head, "a default rule")
            return ast.Rule(
                "function" if parts.is_function else "complete",
                ref,
                _tok_loc(children[0]),
                args=parts.args,
                value=parts.value,
                default=True,
                assign_op=parts.op,
            )

        def set_rule(self, meta: Any, children: list[Any]) -> ast.Rule:
            head: _Head = children[0]
            parts = _RuleParts(children[3:])
            static, keys = _split_head(head)
            ref = self._complete_ref(static, "a multi-value (contains) rule")
            return ast.Rule("set", ref, head.loc, key=children[2], body=parts.body, path_keys=keys)

        def value_rule(self, meta: Any, children: list[Any]) -> ast.Rule:
            head: _Head = children[0]
            p = _RuleParts(children[1:])
            if p.elses and not p.body:
                raise _fail_at(p.elses[0], "`else` needs a rule with a body before it")
            if p.is_function:
                ref = self._complete_ref(head, "a function")
                return ast.Rule(
                    "function",
                    ref,
                    head.loc,
                    args=p.args,
                    value=p.value,
                    body=p.body,
                    elses=p.elses,
                    assign_op=p.op,
                )
            return self._value_rule(head, p.op, p.value, p.body, p.elses)

        def _value_rule(
            self,
            head: _Head,
            op: str | None,
            value: Any,
            body: tuple[ast.Literal, ...],
            elses: tuple[ast.Else, ...],
        ) -> ast.Rule:
            static, keys = _split_head(head)
            if keys:
                # `p[k] := v`, `p.q[a].r[b] := v` (or `… if …`, value true): one key path of
                # a partial object rooted at the name's constant prefix.
                ref = self._complete_ref(static, "a rule")
                if elses:
                    raise _fail_at(
                        elses[0], "else keyword cannot be used on rules with variables in head"
                    )
                return ast.Rule(
                    "object",
                    ref,
                    head.loc,
                    key=keys[-1],
                    value=value,
                    body=body,
                    assign_op=op,
                    path_keys=keys[:-1],
                )
            ref = self._complete_ref(head, "a rule")
            return ast.Rule(
                "complete", ref, head.loc, value=value, body=body, elses=elses, assign_op=op
            )

        def _complete_ref(self, head: _Head, what: str) -> tuple[str, ...]:
            for elem in head.elems:
                if not isinstance(elem, str):
                    raise _fail_at(
                        elem,
                        f"unsupported: a variable or non-string key inside the name of {what}",
                        "only the last [key] of a rule name may be a variable (p[k] := v)",
                    )
            if head.name in ("input", "data"):
                raise _Fail(f"a rule cannot be named {head.name}", head.loc.line, head.loc.col)
            return (head.name, *head.elems)

        # ------------------------------------------------------------------ bodies

        def query(self, meta: Any, children: list[Any]) -> tuple[ast.Literal, ...]:
            literals: list[ast.Literal] = []
            prev: _Lit | None = None
            separated = True
            for child in children:
                if _is_token(child, "SEMI"):
                    separated = True
                    continue
                if prev is not None and not separated and child.node.loc.line <= prev.end_line:
                    loc = child.node.loc
                    raise _Fail(
                        f"unexpected {_first_word(child.node)}: expected a newline or ; between expressions",
                        loc.line,
                        loc.col,
                    )
                literals.append(child.node)
                prev = child
                separated = False
            return tuple(literals)

        def expr_lit(self, meta: Any, children: list[Any]) -> _Lit:
            negated = _is_token(children[0], "NOT")
            rest = children[1:] if negated else children
            term = rest[0]
            withs = tuple(c for c in rest[1:] if isinstance(c, ast.With))
            others = [c for c in rest[1:] if not isinstance(c, ast.With)]
            if others:
                op, rhs = others
                loc = _node_loc(term)
                if str(op) == ":=":
                    term = ast.Assign(term, rhs, loc)
                else:
                    term = ast.Unify(term, rhs, loc)
            return _Lit(ast.Expr(term, _loc(meta), negated, withs), meta.end_line)

        def some_lit(self, meta: Any, children: list[Any]) -> _Lit:
            loc = _loc(meta)
            items = [c for c in children[1:] if not _is_token(c) and not isinstance(c, ast.With)]
            withs = tuple(c for c in children if isinstance(c, ast.With))
            last = items[-1]
            if isinstance(last, ast.Membership) and last.key is None:
                if len(items) > 2:
                    raise _fail_at(items[0], "expected `some x in xs` or `some k, v in xs`")
                key = items[0] if len(items) == 2 else None
                for item in (key, last.value):
                    if isinstance(item, ast.Membership):
                        raise _fail_at(item, "illegal domain of some")
                node = ast.SomeIn(key, last.value, last.collection, loc, withs)
            else:
                for item in items:
                    if not isinstance(item, ast.Var):
                        raise _fail_at(item, "expected a variable name after `some`")
                if withs:
                    raise _fail_at(withs[0], "`with` cannot modify a `some` declaration")
                node = ast.SomeDecl(tuple(items), loc)
            return _Lit(node, meta.end_line)

        def every_lit(self, meta: Any, children: list[Any]) -> _Lit:
            loc = _loc(meta)
            items = [c for c in children[1:] if not _is_token(c) and not isinstance(c, ast.With)]
            body = items.pop()  # the query
            withs = tuple(c for c in children if isinstance(c, ast.With))
            last = items[-1]
            if not isinstance(last, ast.Membership) or last.key is not None:
                raise _fail_at(
                    last, "expected `every x in xs { ... }` or `every k, v in xs { ... }`"
                )
            key = items[0] if len(items) == 2 else None
            if key is not None and not isinstance(key, ast.Var):
                raise _fail_at(key, "the key of `every` must be a variable")
            if not isinstance(last.value, ast.Var):
                raise _fail_at(last.value, "the value of `every` must be a variable")
            node = ast.Every(key, last.value, last.collection, body, loc, withs)
            return _Lit(node, meta.end_line)

        def with_(self, meta: Any, children: list[Any]) -> ast.With:
            target = children[1]
            if not isinstance(target, (ast.Var, ast.Ref)) or (
                isinstance(target, ast.Ref) and not isinstance(target.head, ast.Var)
            ):
                raise _fail_at(
                    target, "expected a path after `with` (input.x, data.x or a function)"
                )
            return ast.With(target, children[3], _tok_loc(children[0]))

        # ------------------------------------------------------------------ terms

        def kv_membership(self, meta: Any, children: list[Any]) -> ast.Membership:
            key, _, value, _, coll = children
            return ast.Membership(key, value, coll, _node_loc(key))

        def membership(self, meta: Any, children: list[Any]) -> ast.Membership:
            value, _, coll = children
            return ast.Membership(None, value, coll, _node_loc(value))

        def binop(self, meta: Any, children: list[Any]) -> ast.BinOp:
            left, op, right = children
            return ast.BinOp(str(op), left, right, _node_loc(left))

        def negative(self, meta: Any, children: list[Any]) -> ast.Scalar:
            minus, term = children
            if isinstance(term, ast.Scalar) and term.text is not None and _is_token(minus):
                if not term.text.startswith("-"):
                    return ast.Scalar(-term.value, _tok_loc(minus), "-" + term.text)
            raise _fail_at(
                minus,
                "unsupported: unary minus on a non-number",
                "OPA only reads `-` before a number literal; write `0 - x`",
            )

        def var(self, meta: Any, children: list[Any]) -> ast.Var:
            tok = children[0]
            return ast.Var(str(tok), _tok_loc(tok))

        def paren(self, meta: Any, children: list[Any]) -> Any:
            return children[1]

        def ref_dot(self, meta: Any, children: list[Any]) -> ast.Ref:
            head, _, name = children
            return _extend(head, ast.Scalar(str(name), _tok_loc(name)))

        def ref_bracket(self, meta: Any, children: list[Any]) -> ast.Ref:
            head, _, elem, _ = children
            return _extend(head, elem)

        def call(self, meta: Any, children: list[Any]) -> Any:
            target = children[0]
            args = _terms(children[1:])
            name = _dotted_name(target)
            if name is None:
                raise _fail_at(target, "unsupported: calling something other than a function name")
            if name == "set" and not args:
                return ast.SetTerm((), _node_loc(target))
            return ast.Call(name, args, _node_loc(target))

        def array(self, meta: Any, children: list[Any]) -> ast.ArrayTerm:
            return ast.ArrayTerm(_terms(children), _loc(meta))

        def set(self, meta: Any, children: list[Any]) -> ast.SetTerm:
            return ast.SetTerm(_terms(children), _loc(meta))

        def object(self, meta: Any, children: list[Any]) -> ast.ObjectTerm:
            return ast.ObjectTerm(tuple(c for c in children if isinstance(c, tuple)), _loc(meta))

        def pair(self, meta: Any, children: list[Any]) -> tuple[Any, Any]:
            return (children[0], children[2])

        def array_compr(self, meta: Any, children: list[Any]) -> ast.ArrayCompr:
            return ast.ArrayCompr(children[1], children[3], _loc(meta))

        def set_compr(self, meta: Any, children: list[Any]) -> ast.SetCompr:
            return ast.SetCompr(children[1], children[3], _loc(meta))

        def object_compr(self, meta: Any, children: list[Any]) -> ast.ObjectCompr:
            return ast.ObjectCompr(children[1], children[3], children[5], _loc(meta))

        def scalar(self, meta: Any, children: list[Any]) -> ast.Scalar:
            tok = children[0]
            loc = _tok_loc(tok)
            kind = tok.type
            if kind == "TRUE":
                return ast.Scalar(True, loc)
            if kind == "FALSE":
                return ast.Scalar(False, loc)
            if kind == "NULL":
                return ast.Scalar(None, loc)
            if kind == "NUMBER":
                return ast.Scalar(_number(tok), loc, str(tok))
            return ast.Scalar(_string_value(tok), loc)

    return Builder


_BUILDER: type | None = None


def _builder(filename: str) -> Any:
    """A transformer for one file (its class is made once, on first use: it needs Lark)."""
    global _BUILDER
    if _BUILDER is None:
        _BUILDER = _make_builder()
    return _BUILDER(filename)


# ---------------------------------------------------------------------------------------------
# Helpers of the transformer
# ---------------------------------------------------------------------------------------------


def _node_loc(node: Any) -> ast.Loc:
    return node.loc


def _import_problem(path: tuple[str, ...], alias: str | None) -> tuple[str, str | None] | None:
    """What is wrong with ``import <path> [as alias]`` (message, hint), or None."""
    shown = ".".join(path)
    if path[0] not in _ROOTS:
        return f"unexpected import path {shown}, must begin with one of: {', '.join(_ROOTS)}", None
    if path[0] == "rego":
        if path == ("rego", "v2"):
            return _REGO_V2, _REGO_V2_HINT
        if path != ("rego", "v1"):
            return f"unknown import {shown}", "did you mean `import rego.v1`?"
        if alias is not None:
            return "`import rego.v1` cannot be aliased", None
    if path[0] == "future":
        keyword_ok = len(path) == 2 or (len(path) == 3 and path[2] in FUTURE_KEYWORDS)
        if path[:2] != ("future", "keywords") or not keyword_ok:
            return f"unknown future keyword import {shown}", None
        if alias is not None:
            return "future keyword imports cannot be aliased", None
    if alias is not None:
        if alias in KEYWORDS:
            return f"unexpected import alias, must not be a keyword: {alias}", None
        if alias in ("input", "data"):
            return f"import alias cannot be {alias}", None
    elif path[-1] in KEYWORDS and path[0] != "future":
        hint = "import a different path or use an alias"
        return f"unexpected import path, must not end with a keyword: {path[-1]}", hint
    return None


class _RuleParts:
    """The optional parts of a rule head and body, in grammar order: fn_args, ``:=``/``=``
    and a value, a body, else branches."""

    def __init__(self, children: list[Any]) -> None:
        self.args: tuple[Any, ...] = ()
        self.op: str | None = None
        self.value: Any = None
        self.body: tuple[ast.Literal, ...] = ()
        self.elses: tuple[ast.Else, ...] = ()
        rest = list(children)
        self.is_function = bool(rest) and isinstance(rest[0], _Args)
        if self.is_function:
            self.args = rest.pop(0).terms
        if rest and _is_token(rest[0]):
            self.op = str(rest.pop(0))
            self.value = rest.pop(0)
        if rest and isinstance(rest[0], _Body):
            self.body = rest.pop(0).literals
        self.elses = tuple(rest)


def _first_word(node: Any) -> str:
    if isinstance(node, ast.SomeDecl | ast.SomeIn):
        return "some"
    if isinstance(node, ast.Every):
        return "every"
    if isinstance(node, ast.Expr) and node.negated:
        return "not"
    return "expression"


def _extend(head: Any, elem: Any) -> ast.Ref:
    if isinstance(head, ast.Ref):
        return ast.Ref(head.head, (*head.path, elem), head.loc)
    if isinstance(head, ast.Scalar):
        raise _fail_at(head, f"illegal ref (head cannot be {_type_name(head.value)})")
    if not isinstance(head, _PRIMARY):
        raise _fail_at(head, "unsupported: a reference into a parenthesized expression")
    return ast.Ref(head, (elem,), head.loc)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, str):
        return "string"
    return "number"


def _dotted_name(target: Any) -> str | None:
    if isinstance(target, ast.Var):
        return target.name
    if isinstance(target, ast.Ref) and isinstance(target.head, ast.Var):
        parts = [target.head.name]
        for elem in target.path:
            if not (isinstance(elem, ast.Scalar) and isinstance(elem.value, str)):
                return None
            parts.append(elem.value)
        return ".".join(parts)
    return None


def _number(tok: Any) -> Any:
    text = str(tok)
    digits = text.split(".")[0].split("e")[0].split("E")[0]
    if len(digits) > 1 and digits[0] == "0":
        raise _fail_at(tok, "expected number without leading zero")
    if "." in text or "e" in text or "E" in text:
        from hookgate.lang.numbers import NumberError, literal

        try:
            return literal(text)
        except NumberError as exc:
            raise _fail_at(tok, str(exc)) from None
    try:
        return int(text)
    except ValueError:  # Python's limit on decimal digits (4300)
        raise _fail_at(tok, "number too big (too many digits)") from None


def _string_value(tok: Any) -> str:
    text = str(tok)
    if text.startswith("`"):
        return text[1:-1]
    if "\\" not in text:
        return text[1:-1]
    try:
        value = json.loads(text)
    except ValueError:
        raise _fail_at(tok, "illegal string literal (bad escape sequence)") from None
    try:
        value.encode("utf-8")  # a decision holding it could never be written out as JSON
    except UnicodeEncodeError:
        raise _fail_at(tok, "illegal string literal (\\u escape of a lone surrogate)") from None
    return value


def _starts_with_brace(lit: ast.Expr) -> bool:
    """Whether the literal's text starts with a set, object or comprehension's `{`."""
    term: Any = lit.term
    while isinstance(term, ast.BinOp | ast.Membership | ast.Assign | ast.Unify | ast.Ref):
        if isinstance(term, ast.BinOp):
            term = term.left
        elif isinstance(term, ast.Membership):
            term = term.key or term.value
        elif isinstance(term, ast.Ref):
            term = term.head
        else:
            term = term.lhs
    braced = (ast.SetTerm, ast.ObjectTerm, ast.SetCompr, ast.ObjectCompr)
    return isinstance(term, braced) and term.loc == lit.loc


def _check_not_comprehension(body: tuple[ast.Literal, ...], lbrace: Any) -> None:
    """OPA reads `p if { x | y }` as a set comprehension, not a body: refuse the ambiguity."""
    first = body[0]
    if not isinstance(first, ast.Expr) or first.negated:
        return
    term = first.term
    if isinstance(term, ast.Assign | ast.Unify):
        term = term.lhs
    parent = None
    while isinstance(term, ast.BinOp | ast.Membership):
        parent = term
        term = term.left if isinstance(term, ast.BinOp) else (term.key or term.value)
    if (
        isinstance(parent, ast.BinOp)
        and parent.op == "|"
        and parent.left is term
        and term.loc == first.loc
    ):
        raise _fail_at(
            lbrace,
            "unsupported: `if { x | ... }` reads as a set comprehension in OPA",
            "put the first expression in parentheses, or write the body on separate lines",
        )


# ---------------------------------------------------------------------------------------------
# # METADATA
# ---------------------------------------------------------------------------------------------


def _package_metadata(
    comments: tuple[ast.Comment, ...], package_line: int
) -> tuple[tuple[str, str], ...]:
    """The ``# METADATA`` block that ends right above the package (or says scope: package)."""
    blocks: list[list[ast.Comment]] = []
    current: list[ast.Comment] | None = None
    for comment in comments:
        if comment.text.strip() == "METADATA" and comment.loc.col == 1:
            current = [comment]
            blocks.append(current)
        elif (
            current is not None
            and comment.loc.col == 1
            and comment.loc.line == current[-1].loc.line + 1
        ):
            current.append(comment)
        else:
            current = None
    for block in blocks:
        pairs = _yaml_pairs([c.text[1:] if c.text.startswith(" ") else c.text for c in block[1:]])
        above_package = block[-1].loc.line == package_line - 1
        if above_package or dict(pairs).get("scope") == "package":
            return tuple(pairs)
    return ()


def _yaml_pairs(lines: list[str]) -> list[tuple[str, str]]:
    """Top-level ``key: value`` pairs of a YAML-ish block; `>`/`|` blocks are joined."""
    pairs: list[tuple[str, str]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line[0] in " \t" or ":" not in line:
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if value in ("", ">", "|", ">-", "|-"):
            block: list[str] = []
            while i < len(lines) and (not lines[i].strip() or lines[i][0] in " \t"):
                block.append(lines[i].strip())
                i += 1
            joiner = "\n" if value.startswith("|") else " "
            value = joiner.join(b for b in block if b) if block else ""
        elif len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        pairs.append((key.strip(), value))
    return pairs
