"""The canonical layout of a policy module (what ``hookgate fmt`` prints).

Like ``opa fmt``: tabs for indentation, one literal per line, braces around bodies, a blank line
between rules, the source's ``:=``/``=`` kept, Rego v1 keywords (``if``, ``contains``), minimal
parentheses, and every comment kept: a comment that ended a line of code ends the line that code
is printed on, a comment on its own line stays on its own line before the code that followed it.
Arrays, sets, objects and comprehensions written across several lines stay one item per line.

The output parses to the same AST as the input (``same_meaning``) and formatting it again
changes nothing; the tests check both on the default pack and the conformance modules.
"""

from __future__ import annotations

import json
import re

from hookgate.lang import ast

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Binding strength of each operator, loosest first (as in the grammar).
_KV, _IN, _REL, _OR, _AND, _ADD, _MUL, _UNARY = range(8)
_OP_PREC = {
    "==": _REL,
    "!=": _REL,
    "<": _REL,
    "<=": _REL,
    ">": _REL,
    ">=": _REL,
    "|": _OR,
    "&": _AND,
    "+": _ADD,
    "-": _ADD,
    "*": _MUL,
    "/": _MUL,
    "%": _MUL,
}

_END = ast.Loc(1 << 30, 0)

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|`[^`]*`')


def _decode(text: str) -> str | None:
    if text.startswith("`"):
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return None


def format_module(module: ast.Module, source: str) -> str:
    """``module`` (parsed from ``source``) in the canonical layout, ending with a newline."""
    return _Printer(module, source).module()


def same_meaning(a: ast.Module, b: ast.Module) -> bool:
    """Whether two modules have the same AST, locations and comments aside."""
    return _shape(a) == _shape(b)


def _shape(node: object) -> object:
    if isinstance(node, tuple):
        return tuple(_shape(n) for n in node)
    if isinstance(node, ast.Node) and not isinstance(node, ast.Loc):
        skip = ("loc", "comments", "filename")
        return (type(node).__name__,) + tuple(
            _shape(value) for name, value in ast.fields(node) if name not in skip
        )
    return node


def _before(a: ast.Loc, b: ast.Loc) -> bool:
    return (a.line, a.col) < (b.line, b.col)


def _leftmost(term: object) -> object:
    """The first primary term written in ``term`` (what its text starts with)."""
    while True:
        if isinstance(term, ast.BinOp):
            term = term.left
        elif isinstance(term, ast.Membership):
            term = term.key if term.key is not None else term.value
        elif isinstance(term, ast.Assign | ast.Unify):
            term = term.lhs
        elif isinstance(term, ast.Ref):
            term = term.head
        else:
            return term


def _starts_with_union(term: object) -> bool:
    """Whether ``term``'s text starts `x | …`, which OPA reads as a comprehension in `{`/`[`."""
    if isinstance(term, ast.Assign | ast.Unify):
        term = term.lhs
    parent = None
    while isinstance(term, ast.BinOp | ast.Membership):
        parent = term
        term = term.left if isinstance(term, ast.BinOp) else (term.key or term.value)
    return isinstance(parent, ast.BinOp) and parent.op == "|" and parent.left is term


class SourceText:
    """Literals, terms and headers of one module printed as the formatter prints them: how
    messages quote the source (``hookgate test`` shows the expression that failed) and how
    tools write Rego built from a module's pieces."""

    def __init__(self, module: ast.Module, source: str) -> None:
        self._printer = _Printer(module, source)
        self._comments = module.comments

    def literal(self, lit: ast.Literal) -> str:
        # Only the comments inside the literal may be printed with it.
        self._printer.pending = [c for c in self._comments if not _before(c.loc, lit.loc)]
        return self._printer.literal(lit, 0)

    def term(self, term: object) -> str:
        self._printer.pending = []
        return self._printer.term(term, _KV, 0)

    def package(self) -> str:
        return "package " + self._printer._path(self._printer.module_.package)

    def imports(self) -> list[str]:
        return [self._printer._import(imp) for imp in self._printer.module_.imports]


class _Printer:
    def __init__(self, module: ast.Module, source: str) -> None:
        self.module_ = module
        self.lines = source.splitlines()
        self.pending = list(module.comments)
        self.comment_cols = {c.loc.line: c.loc.col for c in module.comments}

    # ------------------------------------------------------------------ source facts

    def _line(self, n: int) -> str:
        return self.lines[n - 1] if 1 <= n <= len(self.lines) else ""

    def _is_trailing(self, comment: ast.Comment) -> bool:
        return self._line(comment.loc.line)[: comment.loc.col - 1].strip() != ""

    def _char_before(self, loc: ast.Loc) -> str:
        """The last source character before ``loc`` that is neither blank nor in a comment."""
        line, col = loc.line, loc.col - 1
        while line >= 1:
            col = min(col, self.comment_cols.get(line, col + 1) - 1)
            text = self._line(line)[: max(col, 0)].rstrip()
            if text:
                return text[-1]
            line -= 1
            col = len(self._line(line))
        return ""

    def _blank_before(self, loc: ast.Loc) -> bool:
        return loc.line > 1 and self._line(loc.line - 1).strip() == ""

    # ------------------------------------------------------------------ comments and breaks

    def _break(
        self,
        next_loc: ast.Loc,
        indent: int,
        *,
        keep_blank: bool = False,
        blank_first: bool = False,
        inner: int | None = None,
    ) -> str:
        """A line break before the node at ``next_loc``, carrying the comments before it.

        ``keep_blank`` keeps a blank source line before a comment or the node;
        ``blank_first`` forces a blank line at the first break (between rules); comments before
        a closing bracket are indented as the lines inside it (``inner``).
        """
        tab = "\t" * indent
        comment_tab = "\t" * (indent if inner is None else inner)
        out = ""
        breaks = 0

        def newline(blank: bool) -> None:
            nonlocal out, breaks
            out += "\n\n" if blank or (blank_first and breaks == 0) else "\n"
            breaks += 1

        first = True
        while self.pending and _before(self.pending[0].loc, next_loc):
            comment = self.pending.pop(0)
            text = "#" + comment.text.rstrip()
            if first and self._is_trailing(comment):
                out += " " + text
            else:
                newline(keep_blank and self._blank_before(comment.loc))
                out += comment_tab + text
            first = False
        newline(keep_blank and next_loc is not _END and self._blank_before(next_loc))
        return out + tab

    def _leading(self, next_loc: ast.Loc) -> str:
        """Comments before the first line of output (# METADATA and file headers)."""
        out = []
        while self.pending and _before(self.pending[0].loc, next_loc):
            out.append("#" + self.pending.pop(0).text.rstrip())
        return "".join(line + "\n" for line in out)

    # ------------------------------------------------------------------ module and rules

    def module(self) -> str:
        m = self.module_
        out = self._leading(m.loc) + "package " + self._path(m.package)
        for i, imp in enumerate(m.imports):
            out += self._break(imp.loc, 0, keep_blank=True, blank_first=i == 0)
            out += self._import(imp)
        for i, rule in enumerate(m.rules):
            limit = m.rules[i + 1].loc if i + 1 < len(m.rules) else _END
            out += self._break(rule.loc, 0, keep_blank=True, blank_first=True)
            out += self._rule(rule, limit)
        out += self._break(_END, 0)
        return out.rstrip("\t").rstrip("\n") + "\n"

    def _path(self, parts: tuple[str, ...]) -> str:
        out = parts[0]
        for part in parts[1:]:
            out += "." + part if _NAME.match(part) else "[" + json.dumps(part) + "]"
        return out

    def _import(self, imp: ast.Import) -> str:
        out = "import " + self._path(imp.path)
        return out + (" as " + imp.alias if imp.alias else "")

    def _rule(self, rule: ast.Rule, limit: ast.Loc) -> str:
        ref = self._path(rule.ref)
        for key in rule.path_keys:
            if isinstance(key, ast.Scalar) and isinstance(key.value, str):
                ref += self._path(("", key.value))
            else:
                ref += "[" + self.term(key, _KV, 0) + "]"
        args = "(" + ", ".join(self.term(a, _IN, 0) for a in rule.args) + ")"
        if rule.default:
            head = "default " + ref + (args if rule.kind == "function" else "")
            return head + f" {rule.assign_op} " + self.term(rule.value, _KV, 0)
        if rule.kind == "set":
            head = ref + " contains " + self.term(rule.key, _KV, 0)
        else:
            head = ref
            if rule.kind == "object":
                head += "[" + self.term(rule.key, _KV, 0) + "]"
            elif rule.kind == "function":
                head += args
            if rule.value is not None:
                head += f" {rule.assign_op} " + self.term(rule.value, _KV, 0)
        ends = [branch.loc for branch in rule.elses] + [limit]
        out = head + self._rule_body(rule.body, bool(rule.elses), ends[0])
        for branch, end in zip(rule.elses, ends[1:], strict=True):
            out += " else"
            if branch.value is not None:
                out += f" {rule.assign_op or ':='} " + self.term(branch.value, _KV, 0)
            out += self._rule_body(branch.body, branch is not rule.elses[-1], end)
        return out

    def _closing(self, body: tuple[ast.Literal, ...], limit: ast.Loc) -> ast.Loc:
        """Where the `}` closing a top-level body is: the last line before ``limit`` that
        starts with one, so that comments above it stay inside the body."""
        last = body[-1].loc.line
        stop = min(limit.line, len(self.lines))
        for n in range(stop, last, -1):
            text = self._line(n)
            if n == limit.line:
                text = text[: limit.col - 1]
            if text.strip().startswith("}"):
                return ast.Loc(n, len(text) - len(text.lstrip()) + 1)
        return _after(body)

    def _rule_body(self, body: tuple[ast.Literal, ...], force_braces: bool, limit: ast.Loc) -> str:
        if not body:
            return ""
        lit = body[0]
        braced = (
            force_braces
            or len(body) > 1
            or self._char_before(lit.loc) == "{"
            or isinstance(_leftmost(_literal_term(lit)), ast.SetTerm | ast.ObjectTerm)
            or isinstance(_leftmost(_literal_term(lit)), ast.SetCompr | ast.ObjectCompr)
        )
        if not braced:
            return " if " + self.literal(lit, 0)
        return (
            " if {" + self.body(body, 1) + self._break(self._closing(body, limit), 0, inner=1) + "}"
        )

    # ------------------------------------------------------------------ bodies

    def body(self, body: tuple[ast.Literal, ...], indent: int) -> str:
        out = ""
        for i, lit in enumerate(body):
            out += self._break(lit.loc, indent, keep_blank=i > 0)
            out += self.literal(lit, indent, first_in_braces=i == 0)
        return out

    def literal(self, lit: ast.Literal, indent: int, first_in_braces: bool = False) -> str:
        if isinstance(lit, ast.SomeDecl):
            return "some " + ", ".join(v.name for v in lit.vars)
        if isinstance(lit, ast.SomeIn):
            out = "some "
            if lit.key is not None:
                out += self.term(lit.key, _REL, indent) + ", "
            out += self.term(lit.value, _REL, indent) + " in "
            return (
                out
                + self.term(lit.collection, _REL, indent)
                + self._withs(lit.withs, indent, lit.loc)
            )
        if isinstance(lit, ast.Every):
            out = "every "
            if lit.key is not None:
                out += lit.key.name + ", "
            out += lit.value.name + " in " + self.term(lit.domain, _REL, indent) + " {"
            end = self._break(_after(lit.body), indent, inner=indent + 1)
            out += self.body(lit.body, indent + 1) + end + "}"
            return out + self._withs(lit.withs, indent, lit.loc)
        term = lit.term
        if isinstance(term, ast.Assign | ast.Unify):
            op = " := " if isinstance(term, ast.Assign) else " = "
            lhs = self.term(term.lhs, _KV, indent)
            if first_in_braces and _starts_with_union(term.lhs):
                lhs = "(" + lhs + ")"
            text = lhs + op + self.term(term.rhs, _KV, indent)
        else:
            text = self.term(term, _KV, indent)
            if first_in_braces and _starts_with_union(term):
                text = "(" + text + ")"
        return ("not " if lit.negated else "") + text + self._withs(lit.withs, indent, lit.loc)

    def _withs(self, withs: tuple[ast.With, ...], indent: int, start: ast.Loc) -> str:
        """``with`` modifiers; one written on a line of its own stays on a continuation line."""
        out = ""
        line = start.line
        for w in withs:
            if w.loc.line > line:
                out += self._break(w.loc, indent + 1).rstrip("\t") + "\t" * (indent + 1)
            else:
                out += " "
            line = w.loc.line
            out += "with " + self.term(w.target, _UNARY, indent)
            out += " as " + self.term(w.value, _KV, indent)
        return out

    # ------------------------------------------------------------------ terms

    def term(self, node: object, min_prec: int, indent: int) -> str:
        text, prec = self._term(node, indent)
        return "(" + text + ")" if prec < min_prec else text

    def _term(self, node: object, indent: int) -> tuple[str, int]:
        if isinstance(node, ast.Scalar):
            return self._scalar(node), _UNARY
        if isinstance(node, ast.Var):
            return node.name, _UNARY
        if isinstance(node, ast.Ref):
            out = self.term(node.head, _UNARY, indent)
            for elem in node.path:
                if isinstance(elem, ast.Scalar) and isinstance(elem.value, str):
                    if _NAME.match(elem.value):
                        out += "." + elem.value
                        continue
                out += "[" + self.term(elem, _KV, indent) + "]"
            return out, _UNARY
        if isinstance(node, ast.Call):
            args = ", ".join(self.term(a, _IN, indent) for a in node.args)
            return f"{node.name}({args})", _UNARY
        if isinstance(node, ast.BinOp):
            prec = _OP_PREC[node.op]
            left = self.term(node.left, prec, indent)
            right = self.term(node.right, prec + 1, indent)
            return f"{left} {node.op} {right}", prec
        if isinstance(node, ast.UnaryMinus):
            return "-" + self.term(node.term, _UNARY, indent), _UNARY
        if isinstance(node, ast.Membership):
            coll = self.term(node.collection, _REL, indent)
            if node.key is None:
                return f"{self.term(node.value, _IN, indent)} in {coll}", _IN
            key = self.term(node.key, _REL, indent)
            return f"{key}, {self.term(node.value, _REL, indent)} in {coll}", _KV
        if isinstance(node, ast.ArrayTerm):
            return self._items("[", "]", node.items, node.loc, indent), _UNARY
        if isinstance(node, ast.SetTerm):
            if not node.items:
                return "set()", _UNARY
            return self._items("{", "}", node.items, node.loc, indent), _UNARY
        if isinstance(node, ast.ObjectTerm):
            return self._object(node, indent), _UNARY
        if isinstance(node, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
            return self._compr(node, indent), _UNARY
        raise TypeError(f"cannot format {type(node).__name__}")

    def _scalar(self, node: ast.Scalar) -> str:
        if node.value is None:
            return "null"
        if node.value is True:
            return "true"
        if node.value is False:
            return "false"
        if isinstance(node.value, str):
            # Keep the string as written when that is valid (escapes are the author's choice:
            # "\u2010" says more than an invisible look-alike dash).
            written = _STRING.match(self._line(node.loc.line), node.loc.col - 1)
            if written and _decode(written.group()) == node.value:
                return written.group()
            return json.dumps(node.value, ensure_ascii=False)
        return node.text if node.text is not None else json.dumps(node.value)

    def _multiline(self, loc: ast.Loc, locs: list[ast.Loc]) -> bool:
        return any(item.line != loc.line for item in locs)

    def _items(self, open_: str, close: str, items: tuple, loc: ast.Loc, indent: int) -> str:
        multiline = self._multiline(loc, [_loc_of(i) for i in items])
        out = open_
        for i, item in enumerate(items):
            if multiline:
                out += self._break(_loc_of(item), indent + 1)
            text = self.term(item, _IN, indent + 1)
            if i == 0 and _starts_with_union(item):
                text = "(" + text + ")"  # `[x | y]` would read as a comprehension
            out += text + ("," if multiline else ", " if i + 1 < len(items) else "")
        if multiline:
            out += self._break(_after_terms(items), indent, inner=indent + 1)
        return out + close

    def _object(self, node: ast.ObjectTerm, indent: int) -> str:
        multiline = self._multiline(node.loc, [_loc_of(k) for k, _ in node.items])
        out = "{"
        for i, (key, val) in enumerate(node.items):
            if multiline:
                out += self._break(_loc_of(key), indent + 1)
            out += self.term(key, _IN, indent + 1) + ": "
            text = self.term(val, _IN, indent + 1)
            if i == 0 and _starts_with_union(val):
                text = "(" + text + ")"  # `{k: x | y}` would read as a comprehension
            out += text + ("," if multiline else ", " if i + 1 < len(node.items) else "")
        if multiline:
            last = tuple(v for _, v in node.items)
            out += self._break(_after_terms(last), indent, inner=indent + 1)
        return out + "}"

    def _compr(self, node: ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr, indent: int) -> str:
        if isinstance(node, ast.ObjectCompr):
            head = self.term(node.key, _IN, indent) + ": " + self.term(node.value, _UNARY, indent)
        else:
            head = self.term(node.term, _UNARY, indent)
        open_, close = ("[", "]") if isinstance(node, ast.ArrayCompr) else ("{", "}")
        if not self._multiline(node.loc, [lit.loc for lit in node.body]):
            body = "; ".join(self.literal(lit, indent) for lit in node.body)
            return f"{open_}{head} | {body}{close}"
        out = f"{open_}{head} |" + self.body(node.body, indent + 1)
        return out + self._break(_after(node.body), indent, inner=indent + 1) + close


def _literal_term(lit: ast.Literal) -> object:
    return lit.term if isinstance(lit, ast.Expr) else None


def _loc_of(node: object) -> ast.Loc:
    return node.loc  # type: ignore[attr-defined]


def _after(body: tuple[ast.Literal, ...]) -> ast.Loc:
    """The start of the line after a body's last literal: comments before it are printed before
    the closing bracket, later ones after it."""
    return ast.Loc(body[-1].loc.line + 1, 0)


def _after_terms(items: tuple) -> ast.Loc:
    return ast.Loc(_loc_of(items[-1]).line + 1, 0)
