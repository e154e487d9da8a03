"""Arithmetic expansion ($((…))) as bash computes it: random expressions against real bash."""

from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookgate.shell.arithmetic import evaluate

OPS = ["+", "-", "*", "/", "%", "<<", ">>", "**", "==", "!=", "<", ">=", "&", "|", "^", "&&", "||"]


@st.composite
def expression(draw, depth: int = 0) -> str:
    if depth > 2 or draw(st.booleans()):
        n = draw(st.integers(-300, 300))
        form = draw(st.sampled_from(["{}", "({})", "0x{:x}", "0{:o}", "8#{:o}"]))
        return form.format(abs(n)) if form != "{}" and form != "({})" else form.format(n)
    op = draw(st.sampled_from(OPS))
    left = draw(expression(depth + 1))
    right = draw(expression(depth + 1))
    if op in ("<<", ">>", "**"):
        right = str(draw(st.integers(0, 6)))
    if op in ("/", "%"):
        right = str(draw(st.integers(1, 9)) * draw(st.sampled_from([1, -1])))
    unary = draw(st.sampled_from(["", "-", "!", "~"]))
    return f"{unary}({left} {op} {right})" if unary else f"{left} {op} {right}"


def bash(expr: str, env: str = "") -> str:
    run = subprocess.run(
        ["bash", "--norc", "-c", f"{env}echo $(({expr}))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.strip()


@settings(max_examples=150, deadline=None)
@given(expr=expression())
def test_arithmetic_agrees_with_bash(expr):
    assert str(evaluate(expr, lambda name: None)) == bash(expr), expr


@pytest.mark.parametrize(
    "expr", ["0--1", "1++2", "2--3--4", "--1", "-- 1", "++-1", "1 - - - 1", "7-+-2", "(3)--1"]
)
def test_signs_written_together_are_signs_not_increments(expr):
    # bash reads ``--``/``++`` as an increment only next to a variable's name.
    assert str(evaluate(expr, lambda name: None)) == bash(expr), expr


@pytest.mark.parametrize("expr", ["x--1", "--x", "x++", "++ _y", "x-- + 1"])
def test_an_increment_of_a_variable_is_not_computed(expr):
    assert evaluate(expr, lambda name: "5") is None


@pytest.mark.parametrize(
    ("expr", "variables"),
    [
        ("x * 2 + y", {"x": "5", "y": "-1"}),
        ("x ? y : 7", {"x": "0", "y": "3"}),
        ("z + 1", {"z": "x*3", "x": "4"}),  # a variable holding an expression
        ("e + 1", {"e": ""}),
        ("9223372036854775807 + 1", {}),
        ("2 ** 63", {}),
        ("-7 / 2 + -7 % 2", {}),
        ("1 << 64", {}),
        ("36#zz + 2#1010", {}),
    ],
)
def test_values_and_variables(expr, variables):
    env = "".join(f"{k}='{v}'; " for k, v in variables.items())
    assert str(evaluate(expr, variables.get)) == bash(expr, env)


@pytest.mark.parametrize(
    "expr", ["x + 1", "i++", "x = 3", "y += 1", "1 / 0", "5 % 0", "a[1]", "1 +"]
)
def test_what_cannot_be_computed_is_unknown(expr):
    assert evaluate(expr, {"y": "1"}.get) is None
