"""The builtins the compiler computes inline (``terms._INLINE``) give what the builtin gives,
for every operand their guard admits; any other operand still takes the call and its error."""

from __future__ import annotations

import itertools

import pytest

from hookgate.builtins import full_registry
from hookgate.lang import UNDEFINED, EvalError, LimitError, load
from hookgate.lang.compile import Program
from hookgate.lang.documents import GENERATED_CODE_NAMESPACE
from hookgate.lang.policyset import parse_and_check
from hookgate.lang.runtime import MAX_OUTPUT
from hookgate.lang.terms import _INLINE
from hookgate.lang.values import RegoSet

OPERANDS = [
    "",
    "a",
    "ab",
    "AbC/",
    "/tmp/x/",
    "é/ß",
    "İ",
    0,
    1.5,
    True,
    None,
    [],
    ["a"],
    {},
    {"a": 1},
    {"a": 1.5, "é/ß": ["x"]},
]
OPERANDS.append(RegoSet._from_dict({"a": "a"}))


class _Ctx:
    mocks = None


@pytest.mark.parametrize("name", sorted(_INLINE))
def test_inline_expression_is_the_builtin(name):
    guard, fast = _INLINE[name]
    builtin = full_registry()[name]
    arity = builtin.arity
    names = [f"v{i}" for i in range(arity)]
    checked = 0
    for values in itertools.product(OPERANDS, repeat=arity):
        scope = dict(GENERATED_CODE_NAMESPACE)
        scope.update(ctx=_Ctx(), **dict(zip(names, values, strict=True)))
        if not eval("ctx.mocks is None" + guard.format(*names, t="t"), scope):
            continue
        assert eval(fast.format(*names, t="t"), scope) == builtin.func(*values), (name, values)
        checked += 1
    assert checked >= 3  # the guard admits the usual operands


SOURCE = """
package p

import rego.v1

r := [startswith(input.a, input.b), endswith(input.a, input.b), contains(input.a, input.b),
	is_string(input.a), count(input.a), trim_suffix(input.a, input.b), lower(input.a),
	split(input.a, input.b)]

joined := array.concat(input.x, input.y)

glued := concat(input.d, [input.a, input.b])

glued_set := concat("/", {input.a, input.b})

mocked if {
	startswith("abc", "x") with startswith as fake
}

fake(_, _) := true

literal := [x | x := endswith(1, "")]

literals := [lower(1), split(1, "/"), trim_suffix(2, "/"), array.concat(1, []), concat("", [1])]
"""


def test_policies_get_the_same_answers_and_errors():
    ps = load({"p.rego": SOURCE})
    answers = [True, False, True, True, 3, "abc", "abc", ["", "c"]]
    assert ps.query("data.p.r", input={"a": "abc", "b": "ab"}) == answers
    assert ps.query("data.p.literal", input={}) == []  # compiles: (1).endswith
    assert ps.query("data.p.literals", input={}) is UNDEFINED
    assert ps.query("data.p.mocked", input={}) is True  # a mock still replaces the builtin
    with pytest.raises(EvalError, match="startswith: operand 1 must be string"):
        ps.query("data.p.r", input={"a": 1, "b": "x"}, strict_builtin_errors=True)


def test_a_result_over_the_output_limit_still_reaches_the_limit():
    ps = load({"p.rego": SOURCE})
    half = [0] * (MAX_OUTPUT // 2)
    assert len(ps.query("data.p.joined", input={"x": half, "y": half})) == MAX_OUTPUT
    with pytest.raises(LimitError, match="result over"):
        ps.query("data.p.joined", input={"x": half, "y": [*half, 1]})
    slashes = "/" * MAX_OUTPUT  # splits into one part more than the limit
    with pytest.raises(LimitError, match="split: result over"):
        ps.query("data.p.r", input={"a": slashes, "b": "/"})
    big = "x" * (MAX_OUTPUT + 1)
    with pytest.raises(LimitError, match="trim_suffix: result over"):
        ps.query("data.p.r", input={"a": big, "b": "/"})
    # concat of a list: the delimiter counts once per item in the guard, the call decides
    half = "x" * (MAX_OUTPUT // 2)
    glued = {"a": half, "b": half[:-1], "d": "/"}
    assert len(ps.query("data.p.glued", input=glued)) == MAX_OUTPUT
    with pytest.raises(LimitError, match="concat: result over"):
        ps.query("data.p.glued", input={**glued, "b": half})


def test_object_get_inline_keeps_paths_floats_and_mocks():
    source = """
package g

import rego.v1

v := object.get(input.o, input.k, "none")

w := x if {
	x := object.get(input.o, input.k, "none") with object.get as fake
}

fake(_, _, _) := "mocked"
"""
    ps = load({"g.rego": source})
    o = {"a": {"b": 2}, "f": 1.5, "s": "x"}
    assert [ps.query("data.g.v", input={"o": o, "k": k}) for k in ("s", "f", "zz")] == [
        "x",
        1.5,
        "none",
    ]
    assert ps.query("data.g.v", input={"o": o, "k": ["a", "b"]}) == 2  # a path
    assert ps.query("data.g.v", input={"o": "text", "k": "s"}) is UNDEFINED  # not an object
    with pytest.raises(EvalError, match="object.get: operand 1 must be object"):
        ps.query("data.g.v", input={"o": "text", "k": "s"}, strict_builtin_errors=True)
    assert ps.query("data.g.w", input={"o": o, "k": "s"}) == "mocked"


def test_concat_of_a_list_joins_what_the_builtin_joins():
    ps = load({"p.rego": SOURCE})
    assert ps.query("data.p.glued", input={"a": "/tmp", "b": "x", "d": "/"}) == "/tmp/x"
    assert ps.query("data.p.glued_set", input={"a": "b", "b": "a"}) == "a/b"  # sorted
    assert ps.query("data.p.glued", input={"a": "a", "b": 1, "d": ""}) is UNDEFINED
    with pytest.raises(EvalError, match="concat: operand 2 must be"):
        ps.query("data.p.glued", input={"a": "a", "b": 1, "d": ""}, strict_builtin_errors=True)


def test_concat_of_an_array_written_out_adds_what_the_builtin_joins():
    """``concat`` of a literal delimiter and an array written out is compiled as its strings
    added (``TermCompiler._concat_items``): every pair of operands gives the builtin's answer,
    a non-string its error, the output limit its limit, a mock its own answer."""
    from hookgate.builtins import BuiltinError

    source = """
package c

import rego.v1

plain := concat("", [input.a, "/", input.b])

dashed := concat("-", [input.a, input.b])

mocked := x if {
	x := concat("", [input.a, "x"]) with concat as fake
}

fake(_, _) := "mocked"
"""
    ps = load({"c.rego": source})
    program = Program(parse_and_check({"c.rego": source}))
    assert "set(map(type" not in program.source  # the arrays written out are not built
    concat = full_registry()["concat"].func
    for a, b in itertools.product(OPERANDS, repeat=2):
        got = ps.query("data.c", input={"a": a, "b": b})
        for name, delim, items in [("plain", "", [a, "/", b]), ("dashed", "-", [a, b])]:
            try:
                want = concat(delim, items)
            except BuiltinError:
                want = UNDEFINED
            assert got.get(name, UNDEFINED) == want, (name, a, b)
        assert got["mocked"] == "mocked"
    with pytest.raises(EvalError, match="concat: operand 2 must be"):
        ps.query("data.c.dashed", input={"a": "a", "b": 1}, strict_builtin_errors=True)
    assert ps.query("data.c.plain", input={"b": "x"}) is UNDEFINED  # an item undefined
    half = "x" * (MAX_OUTPUT // 2)
    assert len(ps.query("data.c.dashed", input={"a": half, "b": half[:-2]})) == MAX_OUTPUT - 1
    with pytest.raises(LimitError, match="concat: result over"):
        ps.query("data.c.dashed", input={"a": half, "b": half})


COMPARISONS = ["==", "!=", "<", "<=", ">", ">="]
COMPARED = [*OPERANDS, 2, -1, 10**30, 2.0, False, "b", "B", "ab\x00", ["b"], {"a": 2}]


def test_comparisons_inline_answer_as_the_operators():
    """``!=``, ``<``, ``<=``, ``>``, ``>=`` (and ``==``) of two strings or two ints are compared
    inline (``TermCompiler._binop``), against a string literal too; every other pair takes the
    operator function (``operators.BINOPS``): the answers are the operator's for every pair."""
    from hookgate.builtins import BuiltinError
    from hookgate.lang.operators import BINOPS

    rules = []
    for i, op in enumerate(COMPARISONS):
        rules.append(f"v{i} := input.a {op} input.b")
        rules.append(f'l{i} := input.a {op} "b"')
        rules.append(f'r{i} := "b" {op} input.a')
    ps = load({"c.rego": "package c\n\nimport rego.v1\n\n" + "\n\n".join(rules) + "\n"})
    for a in COMPARED:
        for b in COMPARED:
            got = ps.query("data.c", input={"a": a, "b": b})
            for i, op in enumerate(COMPARISONS):
                for name, x, y in [(f"v{i}", a, b), (f"l{i}", a, "b"), (f"r{i}", "b", a)]:
                    try:
                        want = BINOPS[op](x, y)
                    except BuiltinError:
                        want = UNDEFINED
                    assert got.get(name, UNDEFINED) == want, (op, x, y)
                    assert type(got.get(name, UNDEFINED)) is type(want), (op, x, y)


def test_equality_with_a_literal_answers_as_the_operators():
    """``x == literal`` and ``x != literal`` (either side) of a string, null, boolean or int
    literal are compiled without ``equal`` (``terms._equal_literal``): for every value the
    answer is the operator's (``1 == 1.0``, ``true != 1``, ``null`` only itself)."""
    from hookgate.lang.operators import BINOPS

    literals = {'"b"': "b", "null": None, "true": True, "false": False, "0": 0, "2": 2, "1.5": 1.5}
    rules = []
    for i, text in enumerate(literals):
        for j, op in enumerate(("==", "!=")):
            rules.append(f"l{i}_{j} := input.a {op} {text}")
            rules.append(f"r{i}_{j} := {text} {op} input.a")
    ps = load({"e.rego": "package e\n\nimport rego.v1\n\n" + "\n\n".join(rules) + "\n"})
    for a in [*COMPARED, 0.0, 2.0, 0, 1, -0.0]:
        got = ps.query("data.e", input={"a": a})
        for i, value in enumerate(literals.values()):
            for j, op in enumerate(("==", "!=")):
                for name, x, y in [(f"l{i}_{j}", a, value), (f"r{i}_{j}", value, a)]:
                    want = BINOPS[op](x, y)
                    assert got[name] is want, (op, x, y)


def test_membership_inline_answers_as_membership():
    """``x in c`` of a string in a list or set is answered inline (``TermCompiler._term``);
    every pair of values gives what ``runtime.membership`` gives."""
    from hookgate.lang.runtime import membership

    ps = load({"m.rego": "package m\n\nimport rego.v1\n\nr := input.a in input.b\n"})
    collections = [
        ["a", 1, "ab"],
        [["a"], {"a": 1}, 1.0, True, None],
        RegoSet(["a", 1, ("x",)]),
        RegoSet([["a"], "é/ß"]),
        {"k": "a", "j": 1},
        "a",
        [],
    ]
    checked = 0
    for b in [*OPERANDS, *collections]:
        for a in [*OPERANDS, 1.0, ["a"], "é/ß"]:
            got = ps.query("data.m.r", input={"a": a, "b": b})
            assert got == membership(a, b), (a, b)
            checked += got is True
    assert checked >= 8
