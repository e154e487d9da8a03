"""``hookgate test`` explains a failure as pytest explains a failed assert: the literal that had
no solution at its file:line:col, as written, and the values of its terms; ``-v`` lists every
test with its time and outcome (issue 31, part 5)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hookgate.cli import main
from hookgate.lang import load
from hookgate.lang import testing as lang_testing
from hookgate.lang.testing import discover, explain, run_test

LIB = """package lib

import rego.v1

deny contains "no" if input.x == 1

inc(x) := x + 1
"""

TESTS = """package lib_test

import rego.v1

import data.lib

test_equal if {
	x := 1 + 1
	x == 3
}

test_call if {
	s := "hello"
	startswith(s, concat("", ["x", "y"]))
}

test_not if {
	not lib.deny["no"] with input as {"x": 1}
}

test_some_in if {
	some y in [1, 2]
	lib.inc(y) == 7
}

test_every if {
	pairs := [[1, 2], [2, 3], [3, 5]]
	every pair in pairs {
		lib.inc(pair[0]) == pair[1]
	}
}

test_undefined_key if {
	xs := {"a": 1}
	xs.b == 1
}

test_value := 3

test_nested if {
	count([v | some v in [1, 2, 3]; v > 1]) == 3
}

test_passes if {
	print("ran")
	lib.inc(1) == 2
}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "lib.rego").write_text(LIB)
    (tmp_path / "lib_test.rego").write_text(TESTS)
    return tmp_path


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["test", *argv])
    return code, capsys.readouterr().out


def _block(out: str, name: str) -> str:
    """The lines printed for one test, up to the next test or the summary."""
    start = out.index(f"data.lib_test.{name}: ")
    rest = out[start:].splitlines()[1:]
    end = next((i for i, line in enumerate(rest) if line.startswith(("data.", "---"))), len(rest))
    return "\n".join(rest[:end])


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


@pytest.mark.parametrize("verbose", [False, True])
def test_each_failure_shows_location_expression_and_values(suite, capsys, verbose):
    code, out = _run(capsys, *(["-v"] if verbose else []), str(suite))
    assert code == 1
    file = suite / "lib_test.rego"

    block = _block(out, "test_equal")
    assert f"test at {file}:{_line_of(TESTS, 'test_equal')}:1" in block
    assert f"{file}:{_line_of(TESTS, 'x == 3')}:2: failed:\n    x == 3\n" in block
    assert "    x = 2" in block

    block = _block(out, "test_call")
    # the call's result and each operand that is not a constant
    assert 'startswith(s, concat("", ["x", "y"])) = false' in block
    assert '    s = "hello"' in block
    assert 'concat("", ["x", "y"]) = "xy"' in block

    block = _block(out, "test_not")
    # what `not` negated, under the literal's own `with`
    assert 'not lib.deny.no with input as {"x": 1}' in block
    assert '    lib.deny.no = "no"' in block

    block = _block(out, "test_some_in")
    assert "lib.inc(y) = 2" in block and "    y = 1" in block
    assert "each of the 2 solutions of the lines before it" in block

    block = _block(out, "test_every")
    assert f"{file}:{_line_of(TESTS, 'every pair')}:2: failed:" in block
    assert "pairs = [[1, 2], [2, 3], [3, 5]]" in block
    assert "pair = [3, 5]  (the item the body fails for)" in block
    # and, for that item, the body's literal that failed with its terms' values
    inner = _line_of(TESTS, "lib.inc(pair[0]) == pair[1]")
    assert f"{file}:{inner}:3: for that item, the body failed at:" in block
    assert "      lib.inc(pair[0]) = 4\n      pair[0] = 3\n" in block
    assert "      pair[1] = 5" in block
    assert block.count("      pair = [3, 5]") == 1  # a variable written twice is shown once

    block = _block(out, "test_undefined_key")
    assert "xs.b = undefined" in block and 'xs = {"a": 1}' in block

    block = _block(out, "test_value")
    assert "test_value := 3" in block and "the test's value is 3, not true" in block

    block = _block(out, "test_nested")
    assert "count([v | some v in [1, 2, 3]; v > 1]) = 2" in block
    assert "[v | some v in [1, 2, 3]; v > 1] = [2, 3]" in block

    assert out.splitlines()[-2:] == ["PASS: 1/9", "FAIL: 8/9"]


def test_verbose_lists_every_test_with_time_and_outcome(suite, capsys):
    _, out = _run(capsys, "-v", str(suite))
    listed = re.findall(
        r"^data\.lib_test\.(\w+): (PASS|FAIL|ERROR) \((\d+(?:\.\d+)?(?:µs|ms|s))\)$", out, re.M
    )
    assert [name for name, _, _ in listed] == [
        "test_equal",
        "test_call",
        "test_not",
        "test_some_in",
        "test_every",
        "test_undefined_key",
        "test_value",
        "test_nested",
        "test_passes",
    ]
    assert dict((n, o) for n, o, _ in listed)["test_passes"] == "PASS"
    assert "    ran" in _block(out, "test_passes")  # a passing test's print() output, with -v
    _, out = _run(capsys, str(suite))
    assert "test_passes" not in out and "ran" not in out


def test_probes_leave_the_tests_own_results_alone(suite):
    sources = {str(p): p.read_text() for p in sorted(suite.iterdir())}
    ps = load(sources)
    results = [run_test(ps, t) for t in discover(ps.modules)]
    before = [(r.test.name, r.outcome, r.prints) for r in results]
    explain(ps, results)
    assert [(r.test.name, r.outcome, r.prints) for r in results] == before
    assert all(r.failures for r in results if r.outcome == "FAIL")
    assert not any(r.failures for r in results if r.outcome == "PASS")
    # the policy set answers as before: no probe rule was added to it
    assert ps.query("data.lib_test.test_passes") is True
    assert not any("hookgate_probe" in key for key in ps.query("data.lib_test"))


def test_a_probe_that_does_not_compile_still_names_the_literal(suite, capsys, monkeypatch):
    from hookgate.lang import ast

    # A term naming a variable nothing binds: the values cannot be probed, the literal can.
    monkeypatch.setattr(lang_testing, "_shown_terms", lambda lit: [ast.Var("nowhere", lit.loc)])
    monkeypatch.setattr(lang_testing, "_vars", lambda term: set())
    code, out = _run(capsys, "--run", "test_equal", str(suite))
    assert code == 1
    block = _block(out, "test_equal")
    assert f":{_line_of(TESTS, 'x == 3')}:2: failed:\n    x == 3" in block
    assert "where" not in block


def test_errors_keep_their_message_and_the_test_location(tmp_path, capsys):
    (tmp_path / "e_test.rego").write_text(
        "package e\n\nimport rego.v1\n\nc := v if {\n\tsome v in [1, 2]\n}\n\n"
        "test_conflict if {\n\tc == 1\n}\n"
    )
    code, out = _run(capsys, str(tmp_path))
    assert code == 1
    assert "data.e.test_conflict: ERROR (" in out
    assert f"test at {tmp_path / 'e_test.rego'}:9:1" in out
    # the error names the rule whose definitions disagree, at its file:line:col
    assert f"error: {tmp_path / 'e_test.rego'}:5:1: conflicting values for data.e.c" in out
