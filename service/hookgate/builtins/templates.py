"""``strings.render_template``: the part of Go's ``text/template`` that policies use to build
messages — fields (``{{.a.b}}``), variables (``{{$x}}``), ``{{if}}``/``{{else}}``/``{{end}}``,
``{{range}}`` over arrays and objects (with ``$i, $v :=``) and ``{{-``/``-}}`` trimming. A
missing field prints ``<undefined>``, as in OPA. Anything else Go's templates offer
(functions, pipelines, ``with``, ``define``) is refused as ``unsupported:``, never rendered
differently.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_object, want_str
from hookgate.lang.values import RegoSet, sorted_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NAME = "strings.render_template"
_MISSING = object()


def _unsupported(what: str) -> BuiltinError:
    return BuiltinError(f"unsupported: {_NAME} with {what}")


def _lex(text: str) -> list[tuple[str, str]]:
    """("text", s) and ("action", body) pieces, trim markers applied."""
    out: list[tuple[str, str]] = []
    i = 0
    while True:
        j = text.find("{{", i)
        if j < 0:
            out.append(("text", text[i:]))
            return out
        end = text.find("}}", j + 2)
        if end < 0:
            raise BuiltinError(f"{_NAME}: unclosed action")
        body = text[j + 2 : end]
        literal = text[i:j]
        if body.startswith("- "):
            literal = literal.rstrip()
            body = body[2:]
        i = end + 2
        if body.endswith(" -"):
            body = body[:-2]
            rest = text[i:]
            i += len(rest) - len(rest.lstrip())
        out.append(("text", literal))
        out.append(("action", body.strip()))


def _parse(pieces: list, pos: int, stop: tuple[str, ...]) -> tuple[list, int, str]:
    """Nodes up to one of the ``stop`` keywords; returns (nodes, next position, the keyword)."""
    nodes: list = []
    while pos < len(pieces):
        kind, body = pieces[pos]
        pos += 1
        if kind == "text":
            if body:
                nodes.append(("text", body))
            continue
        word = body.split(None, 1)[0] if body else ""
        if word in stop:
            return nodes, pos, word
        if word == "if":
            then, pos, ended = _parse(pieces, pos, ("else", "end"))
            orelse: list = []
            if ended == "else":
                orelse, pos, _ = _parse(pieces, pos, ("end",))
            nodes.append(("if", body[2:].strip(), then, orelse))
        elif word == "range":
            loop, pos, ended = _parse(pieces, pos, ("else", "end"))
            if ended == "else":
                raise _unsupported("{{range}} … {{else}}")
            nodes.append(("range", body[5:].strip(), loop))
        elif word.startswith((".", "$")) and " " not in body:
            nodes.append(("print", body))
        elif body.startswith("/*"):
            continue
        else:
            raise _unsupported(f"the action {{{{{body}}}}}")
    if stop:
        raise BuiltinError(f"{_NAME}: missing {{{{end}}}}")
    return nodes, pos, ""


def _value(expr: str, dot: Any, env: dict) -> Any:
    if expr.startswith("$"):
        name, _, path = expr.partition(".")
        if name not in env:
            raise BuiltinError(f"{_NAME}: undefined variable {name}")
        v = env[name]
        fields = path.split(".") if path else []
    else:
        v = dot
        fields = [f for f in expr.split(".") if f]
    for f in fields:
        if type(v) is not dict:
            return _MISSING
        v = v.get(f, _MISSING)
        if v is _MISSING:
            return _MISSING
    return v


def _truth(v: Any) -> bool:
    """Go's template truth: false, 0, nil, empty and missing are false."""
    if v is _MISSING or v is None or v is False:
        return False
    t = type(v)
    if t is int or t is float:
        return v != 0
    if t is str or t is list or t is dict or t is RegoSet:
        return len(v) > 0
    return True


def _text(v: Any) -> str:
    t = type(v)
    if v is _MISSING:
        return "<undefined>"
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or (t is float and v.is_integer() and abs(v) < 2**53):
        return str(int(v))
    raise _unsupported(f"printing a {'number' if t is float else 'composite value'}")


def _render(nodes: list, dot: Any, env: dict, out: list) -> None:
    for node in nodes:
        kind = node[0]
        if kind == "text":
            out.append(node[1])
        elif kind == "print":
            out.append(_text(_value(node[1], dot, env)))
        elif kind == "if":
            _, cond, then, orelse = node
            if " " in cond:
                raise _unsupported(f"the condition {cond!r}")
            _render(then if _truth(_value(cond, dot, env)) else orelse, dot, env, out)
        else:
            _range(node[1], node[2], dot, env, out)


def _range(spec: str, body: list, dot: Any, env: dict, out: list) -> None:
    names: list[str] = []
    if ":=" in spec:
        left, _, spec = spec.partition(":=")
        names = [n.strip() for n in left.split(",")]
        if not 1 <= len(names) <= 2 or not all(n.startswith("$") for n in names):
            raise _unsupported(f"the range {spec!r}")
        spec = spec.strip()
    if " " in spec:
        raise _unsupported(f"the range {spec!r}")
    coll = _value(spec, dot, env)
    t = type(coll)
    if t is list:
        items = list(enumerate(coll))
    elif t is dict:
        items = sorted_items(coll)
    elif t is RegoSet or coll is _MISSING or coll is None:
        items = [] if t is not RegoSet else None
        if items is None:
            raise _unsupported("a range over a set")
    else:
        raise BuiltinError(f"{_NAME}: range can't iterate over {coll!r}")
    for k, v in items:
        inner = dict(env)
        if len(names) == 2:
            inner[names[0]], inner[names[1]] = k, v
        elif names:
            inner[names[0]] = v
        _render(body, v, inner, out)


@builtin("strings.render_template", "strings", 2)
def render_template(template: Any, variables: Any) -> str:
    """``template`` (Go ``text/template`` syntax: ``{{.field}}``, ``{{$var}}``, ``{{if}}``,
    ``{{else}}``, ``{{range $i, $v := .list}}``, ``{{end}}``) rendered with the object
    ``variables``; a missing field prints ``<undefined>``."""
    text = want_str(_NAME, 1, template)
    data = want_object(_NAME, 2, variables)
    nodes, _, _ = _parse(_lex(text), 0, ())
    out: list[str] = []
    _render(nodes, data, {"$": data}, out)
    return "".join(out)
