"""Static checks over parsed modules: each problem its own message at its own position."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hookgate.lang import PolicyError, load
from hookgate.lang.check import check_modules
from hookgate.lang.parser import parse_module


def check(*sources: str, strict: bool = False) -> list[tuple[str, int, int, str, str]]:
    modules = [parse_module(src, f"m{i}.rego") for i, src in enumerate(sources)]
    return [
        (d.file, d.line, d.col, d.severity, d.message)
        for d in check_modules(modules, strict=strict)
    ]


def errors(*sources: str, strict: bool = False) -> list[tuple[int, int, str]]:
    return [
        (line, col, msg)
        for _, line, col, sev, msg in check(*sources, strict=strict)
        if sev == "error"
    ]


def test_clean_policy_has_no_diagnostics():
    src = (
        "package hookgate.t\nimport rego.v1\nimport data.lib\n"
        "deny contains msg if {\n"
        "  some c in lib.words(input.cmd)\n"
        '  startswith(c, "rm")\n'
        '  msg := sprintf("no %s", [c])\n'
        "}\n"
    )
    lib = 'package lib\nwords(s) := split(s, " ")\n'
    assert check(src, lib) == []


def test_unknown_function_with_suggestion():
    diags = check('package p\nx := startwith("a", "b")\n')
    assert diags == [("m0.rego", 2, 6, "error", "unknown function startwith")]
    modules = [parse_module('package p\nx := startwith("a", "b")\n')]
    assert check_modules(modules)[0].hint == "did you mean startswith?"


def test_unsupported_opa_builtin_is_named_as_such():
    # http.send is an OPA builtin that a local hook never gets (no network from a policy)
    assert errors("package p\nx := http.send({})\n") == [(2, 6, "unsupported: builtin http.send")]


def test_wrong_arity_of_builtin_and_user_function():
    assert errors("package p\nx := count()\n") == [
        (2, 6, "wrong number of arguments: count takes 1, got 0")
    ]
    src = "package p\nf(a, b) := a + b\ny := f(1)\n"
    assert errors(src) == [(3, 6, "wrong number of arguments: f takes 2, got 1")]


def test_extra_argument_receives_the_result():
    # Rego allows f(x, out): the last argument is unified with the result
    assert errors("package p\nf(a) := a\ny if { count([1], n); f(1, m); n == m }\n") == []


def test_calls_through_imports_and_data():
    lib = "package lib\nimport rego.v1\nvalue := 1\ndouble(x) := 2 * x\n"
    assert (
        errors(lib, "package r\nimport data.lib\nx := lib.double(2)\ny := data.lib.double(1)\n")
        == []
    )
    assert errors(lib, "package r\nimport data.lib\nx := lib.missing(1)\n") == [
        (3, 6, "unknown function data.lib.missing")
    ]
    assert errors(lib, "package r\nimport data.lib\nx := lib.value(1)\n") == [
        (3, 6, "data.lib.value is a rule, not a function")
    ]


def test_calling_a_variable():
    assert errors("package p\nx if { f := 1; f(2) }\n") == [
        (2, 16, "f is a variable, not a function")
    ]


def test_unused_import_is_a_warning_and_an_error_when_strict():
    src = "package p\nimport data.lib\nimport input.tool\nx := tool.name\n"
    assert check(src) == [("m0.rego", 2, 1, "warning", "import data.lib is unused")]
    assert errors(src) == []
    assert errors(src, strict=True) == [(2, 1, "import data.lib is unused")]


def test_duplicate_import():
    src = "package p\nimport data.a.lib\nimport data.b.lib\nx := lib.y\n"
    assert errors(src) == [(3, 1, "import lib shadows an earlier import on line 2")]


def test_conflicting_rule_kinds_and_defaults():
    src = (
        "package p\ndefault a := 1\ndefault a := 2\ns contains 1\ns := 2\nf(x) := x\nf(x, y) := x\n"
    )
    assert errors(src) == [
        (3, 1, "multiple default rules data.p.a (the first at m0.rego:2)"),
        (
            5,
            1,
            "rule data.p.s conflicts with m0.rego:4: a single-value rule here, "
            "a multi-value rule (contains) there",
        ),
        (7, 1, "function data.p.f has 2 arguments here and 1 at m0.rego:6"),
    ]


def test_rule_defined_inside_a_single_value_rule():
    src = 'package p\na := {"b": 1}\na.c := 2\n'
    assert errors(src) == [(3, 1, "rule data.p.a.c conflicts with data.p.a at m0.rego:2")]


def test_recursion_is_reported_once_with_its_chain():
    src = "package test\na = b\nb = c\nc = a\nd = 1\n"
    assert errors(src) == [
        (2, 1, "recursion: data.test.a → data.test.b → data.test.c → data.test.a")
    ]


def test_recursion_across_packages_and_through_functions():
    a = "package a\nx := data.b.y\n"
    b = "package b\nimport data.a\ny := f(1)\nf(n) := a.x + n\n"
    assert errors(a, b) == [(2, 1, "recursion: data.a.x → data.b.y → data.b.f → data.a.x")]


def test_no_false_recursion_through_local_names_or_sibling_rules():
    src = (
        "package test\n"
        "a.b.c = 1\n"
        "a.b.d = a.b.e\n"
        "a.b.e = a.b.c\n"
        "f(a) := a + 1\n"
        "g if { a := 2; a > 1 }\n"
    )
    assert errors(src) == []


def test_assignment_redeclared_in_the_same_body():
    src = "package p\nx if {\n  v := 1\n  v := 2\n}\nf(a) := b if { a := 1; b := 2 }\n"
    assert errors(src) == [
        (4, 3, "var v assigned above (line 3)"),
        (6, 16, "var a assigned above (line 6)"),
    ]


def test_assignment_may_not_shadow_an_enclosing_body():
    # engines disagree on `[v | v := 2]` under an outer `v` (shadow or unify): refuse it
    assert errors("package p\nx if { v := 1; y := [v | v := 2]; y }\n") == [
        (2, 26, "var v assigned above (line 2)")
    ]
    assert errors("package p\nx if { every v in [1] { v := 2 } }\n") == [
        (2, 25, "var v assigned above (line 2)")
    ]
    assert errors("package p\nx if { some v; v := 1 }\n") == [
        (2, 16, "var v assigned above (line 2)")
    ]
    # sibling comprehensions are separate scopes
    assert (
        errors("package p\nx := [a | a := 1] + [a | a := 2]\ny := [v | v := 1; w := [v | true]]\n")
        == []
    )


def test_shadowing_input_is_an_error():
    assert errors("package p\nx if { input := 1 }\n") == [(2, 8, "variables must not shadow input")]


def test_unused_assignment_is_a_strict_error():
    src = "package p\nx if { v := 1; true }\n"
    assert check(src) == [("m0.rego", 2, 8, "warning", "assigned var v unused")]
    assert errors(src, strict=True) == [(2, 8, "assigned var v unused")]


def test_with_targets():
    lib = "package lib\nf(x) := x\n"
    ok = "package p\nimport data.lib\nx if { true with input.a as 1 with data.q as 2 with lib.f as count }\n"
    assert errors(lib, ok) == []
    bad = "package p\ny := 1\nx if { true with y as 2 }\n"
    assert errors(bad) == [(3, 13, "with target y must be input, data or a function")]


def test_diagnostics_are_sorted_by_position():
    src = "package p\nb := nope2()\na := nope1()\n"
    assert [line for line, _, _ in errors(src)] == [2, 3]


def test_default_values_must_be_constants():
    assert errors("package p\ndefault a := x\n") == [
        (2, 14, "illegal default rule (value cannot contain var)")
    ]
    assert errors("package p\ndefault a := {1} | {2}\n") == [
        (2, 14, "illegal default rule (value cannot contain call)")
    ]
    assert errors("package p\ndefault a := [x | x := input.y]\n") == []
    assert errors("package p\ndefault f(x, x) := 1\n") == [
        (2, 14, "illegal default rule (arguments cannot be repeated x)")
    ]


# ------------------------------------------------------------ fuzz: parse + check + compile

_PACK = {
    path.name: path.read_text()
    for path in sorted((Path(__file__).parent.parent / "policies").glob("*.rego"))
}
_TOKENS = (
    "package",
    "import",
    "default",
    "if",
    "else",
    "contains",
    "some",
    "every",
    "in",
    "not",
    "with",
    "as",
    "input",
    "data",
    "x",
    "y",
    "p",
    "f",
    "count",
    "sprintf",
    "1",
    "-2.5",
    '"s"',
    "`r`",
    "true",
    "null",
    ":=",
    "=",
    "==",
    "!=",
    "<",
    "+",
    "*",
    "|",
    "&",
    ",",
    ";",
    ":",
    ".",
    "_",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "\n",
    "#c\n",
)


def _assert_clean(exc: PolicyError, sources: dict[str, str]) -> None:
    assert exc.diagnostics
    for diag in exc.diagnostics:
        assert diag.file in sources and diag.message
        lines = sources[diag.file].splitlines() or [""]
        assert 1 <= diag.line <= len(lines) + 1 and diag.col >= 1
        assert f"{diag.file}:{diag.line}:{diag.col}: " in str(exc)


def _load_or_clean_error(sources: dict[str, str], strict: bool) -> None:
    try:
        load(sources, strict=strict)
    except PolicyError as exc:  # anything else (an internal exception) fails the test
        _assert_clean(exc, sources)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), strict=st.booleans())
def test_mutated_pack_modules_load_or_fail_with_diagnostics(data, strict):
    """One module of the default pack with tokens inserted, deleted or swapped: the whole pack
    goes through parse, check and compile to a policy set or to diagnostics at line:col, never
    an internal exception."""
    name = data.draw(st.sampled_from(sorted(_PACK)))
    src = _PACK[name]
    for _ in range(data.draw(st.integers(1, 4))):
        pos = data.draw(st.integers(0, len(src)))
        cut = data.draw(st.integers(0, 6))
        src = src[:pos] + data.draw(st.sampled_from(_TOKENS)) + " " + src[pos + cut :]
    _load_or_clean_error({**_PACK, name: src}, strict)


@settings(max_examples=200, deadline=None)
@given(
    tokens=st.lists(st.sampled_from(_TOKENS), max_size=40),
    strict=st.booleans(),
)
def test_token_soup_loads_or_fails_with_diagnostics(tokens, strict):
    _load_or_clean_error({"soup.rego": "package soup\n" + " ".join(tokens)}, strict)
