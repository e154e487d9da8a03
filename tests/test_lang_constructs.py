"""The constructs issue 19 names, each with the answer OPA gives (OPA's own case files cover
most of them too: tests/test_opa_cases.py)."""

import pytest

from hookgate.lang import load
from hookgate.lang.errors import EvalError
from hookgate.lang.values import RegoSet

CASES = [
    # `x, y in xs` chained with `in`: (1, 2 in [2]) is false, and false is in [false, true]
    ("p := 1, 2 in [2] in [false, true]", "p", True),
    # a function with a ref head
    ('a["b"](x) := x + 1\np := a.b(2)', "p", 3),
    # `some` with a composite pattern skips the items it cannot match
    ('p contains x if some {"k": x} in [{"k": 1}, {"j": 2}, {"k": 3}]', "p", RegoSet([1, 3])),
    # `with f as g` where g calls f: inside g, f is the original
    ("f(x) := x * 10\ng(x) := f(x) + 1\np := y if y := f(1) with f as g", "p", 11),
    # a comprehension variable reused by a later `:=`
    ('xs := {"a", "b"}\np := x if {\n\ty := {x | xs[x]}\n\tx := count(y)\n}', "p", 2),
    # a `:=` inside a comprehension declares its own variable (OPA's scoping)
    ("p := xs if {\n\tx := 2\n\txs := [x | x := 1]\n}", "p", [1]),
    # a partial set looked up by a composite key with a variable in it
    (
        "s contains [1, 2]\ns contains [1, 3]\ns contains [2, 4]\np contains x if s[[1, x]]",
        "p",
        RegoSet([2, 3]),
    ),
    # numbers: exact integers from exponent literals, `%` on integral floats, exact decimals
    (
        "p := [1e30 + 1, 4.0 % 3, 0.1234567890123456789 > 0.1234567890123456788]",
        "p",
        [10**30 + 1, 1, True],
    ),
    # ref heads with variables anywhere: one object, every rule under its root adds to it
    (
        "p.q[a].r[b] := a + b if {\n\tsome a in [1, 2]\n\tb := 10\n}\np.q.z := 5\n"
        'p.w contains 1\np[k] contains 2 if k := "w"',
        "p",
        {"q": {1: {"r": {10: 11}}, 2: {"r": {10: 12}}, "z": 5}, "w": RegoSet([1, 2])},
    ),
    # multi-value rules nested, at two roots; queried through a variable path
    (
        'o.sub[x][x] contains x if some x in ["a", "b"]\no[x][x] contains x if x := "c"\n'
        "p := {x | x := o.sub[_][_][_]}",
        "p",
        RegoSet(["a", "b"]),
    ),
    # walk's value assigned to a pattern: one binding per node
    ('p := {v | [path, v] := walk({"a": [1]}); count(path) == 2}', "p", RegoSet([1])),
    # OPA's operator names as functions
    ("p := [plus(1, 2), lt(1, 2), equal([1], [1.0])]", "p", [3, True, True]),
]


@pytest.mark.parametrize(("source", "rule", "want"), CASES, ids=[c[0][:40] for c in CASES])
def test_construct(source, rule, want):
    assert load({"p.rego": f"package t\n\n{source}\n"}).query(f"data.t.{rule}") == want


@pytest.mark.parametrize(
    "source",
    [
        'p[x] := 1 if x := "a"\np.a := 2',  # a key a variable gives, defined by another rule
        'p[x].b := 1 if x := "a"\np[y] := 2 if y := "a"',  # a value where keys go on
        'p[x][y] := y if {\n\tx := "a"\n\tsome y in [1, 2]\n\ty > 5\n}\np.a[1] := 3\n'
        'p[x][1] := 4 if x := "a"',  # two values at one key path
    ],
)
def test_ref_head_conflicts_are_errors(source):
    """Two rules giving one place of the object different values: OPA's eval_conflict_error."""
    with pytest.raises(EvalError, match="object keys must be unique"):
        load({"p.rego": f"package t\n\n{source}\n"}).query("data.t.p")
