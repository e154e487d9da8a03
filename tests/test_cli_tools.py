"""`hookgate check`, `hookgate fmt` and `hookgate test` end to end (through the CLI entry point)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate.cli import main
from hookgate.commands.test import _report_coverage
from hookgate.lang.parser import parse_module
from hookgate.lang.testing import coverable_lines
from hookgate.layers import base_version

POLICIES = Path(__file__).parent.parent / "policies"

GOOD = 'package p\n\nimport rego.v1\n\nallow if input.user == "admin"\n'


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# `check` names the base layer its paths are laid over first (issue 31).
BASE = f"base: hookgate-default {base_version()} (the built-in pack)\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# --------------------------------------------------------------------------------- check


def test_check_clean(tmp_path, capsys):
    write(tmp_path, {"a.rego": GOOD, "sub/b.rego": "package q\n\nx := 1\n"})
    code, out, _ = cli(capsys, "check", str(tmp_path))
    assert code == 0
    assert out == f"{BASE}2 files checked, no problems\n"


def test_check_reports_each_error_with_position_source_and_caret(tmp_path, capsys):
    write(
        tmp_path,
        {
            "calls.rego": 'package q\n\nx := startwith("a", "b")\ny := count()\n',
            "lib.rego": "package lib\n\nf(x) := x\n",
        },
    )
    code, out, _ = cli(capsys, "check", str(tmp_path))
    assert code == 1
    calls = str(tmp_path / "calls.rego")
    assert out == (
        f"{BASE}{calls}:3:6: unknown function startwith\n"
        '    x := startwith("a", "b")\n'
        "         ^\n"
        "    hint: did you mean startswith?\n"
        f"{calls}:4:6: wrong number of arguments: count takes 1, got 0\n"
        "    y := count()\n"
        "         ^\n"
        "2 files checked, 2 errors\n"
    )


def test_check_reports_parse_errors_without_follow_on_errors(tmp_path, capsys):
    # lib.rego does not parse, so the call to lib.f is not reported as unknown as well
    write(
        tmp_path,
        {
            "lib.rego": "package lib\n\nf(x) {\n\tx\n}\n",
            "main.rego": "package main\n\nimport data.lib\n\ny := lib.f(1)\n",
        },
    )
    code, out, _ = cli(capsys, "check", str(tmp_path))
    assert code == 1
    assert out.startswith(f"{BASE}{tmp_path / 'lib.rego'}:3:6: unsupported: Rego v0 syntax")
    assert "    f(x) {\n         ^\n" in out
    assert "main.rego" not in out
    assert out.endswith("2 files checked, 1 error\n")


def test_check_surfaces_compiler_errors(tmp_path, capsys):
    # an unsafe variable is found by the compiler, after parsing and the static checks
    write(tmp_path, {"a.rego": "package p\n\nallow if {\n\tx > 1\n}\n"})
    code, out, _ = cli(capsys, "check", str(tmp_path))
    assert code == 1
    assert f"{tmp_path / 'a.rego'}:4:" in out and "x" in out


def test_check_strict_turns_warnings_into_errors(tmp_path, capsys):
    write(tmp_path, {"a.rego": "package p\n\nimport data.lib\n\nx := 1\n"})
    code, out, _ = cli(capsys, "check", str(tmp_path))
    assert code == 0
    assert "3:1: warning: import data.lib is unused" in out
    assert out.rstrip().endswith("1 file checked, 1 warning")
    code, out, _ = cli(capsys, "check", "--strict", str(tmp_path))
    assert code == 1
    assert "3:1: import data.lib is unused" in out


def test_check_json_format(tmp_path, capsys):
    write(tmp_path, {"a.rego": "package p\nx := nope(1)\n"})
    code, out, _ = cli(capsys, "check", "--format", "json", str(tmp_path / "a.rego"))
    assert code == 1
    report = json.loads(out)
    assert report["files"] == 1 and report["errors"] == 1
    (diag,) = report["diagnostics"]
    assert (diag["line"], diag["col"], diag["message"]) == (2, 6, "unknown function nope")


def test_check_missing_path(tmp_path, capsys):
    code, _, err = cli(capsys, "check", str(tmp_path / "nope"))
    assert code == 2 and "no such file or directory" in err


def test_check_default_pack_is_clean(capsys):
    code, out, _ = cli(capsys, "check", str(POLICIES))
    assert code == 0, out


# --------------------------------------------------------------------------------- fmt


UGLY = "package p\nimport rego.v1\nallow if { input.a; input.b }\n"
PRETTY = "package p\n\nimport rego.v1\n\nallow if {\n\tinput.a\n\tinput.b\n}\n"


def test_fmt_prints_formatted_text(tmp_path, capsys):
    write(tmp_path, {"a.rego": UGLY})
    code, out, _ = cli(capsys, "fmt", str(tmp_path / "a.rego"))
    assert (code, out) == (0, PRETTY)
    assert (tmp_path / "a.rego").read_text() == UGLY


def test_fmt_check_diff_and_write(tmp_path, capsys):
    write(tmp_path, {"a.rego": UGLY, "b.rego": PRETTY})
    path = str(tmp_path / "a.rego")
    code, out, _ = cli(capsys, "fmt", "--check", str(tmp_path))
    assert code == 1 and out == f"{path}: not formatted\n"
    code, out, _ = cli(capsys, "fmt", "--diff", str(tmp_path))
    assert code == 0
    assert f"--- a/{path}" in out and "-allow if { input.a; input.b }\n" in out
    assert "+\tinput.b\n" in out
    code, _, err = cli(capsys, "fmt", "-w", str(tmp_path))
    assert code == 0 and f"formatted {path}" in err
    assert (tmp_path / "a.rego").read_text() == PRETTY
    assert cli(capsys, "fmt", "--check", str(tmp_path))[0] == 0


def test_fmt_parse_error(tmp_path, capsys):
    write(tmp_path, {"a.rego": "package p\nx := \n"})
    code, _, err = cli(capsys, "fmt", "-w", str(tmp_path))
    assert code == 1 and "a.rego:2:5: unexpected end of file" in err
    assert (tmp_path / "a.rego").read_text() == "package p\nx := \n"


# --------------------------------------------------------------------------------- test


POLICY = """package app

import rego.v1

allow if input.user in data.app.admins

greeting := sprintf("hello %s", [input.user])
"""

POLICY_TEST = """package app_test

import rego.v1

test_admin_allowed if {
	data.app.allow with input as {"user": "ann"}
}

test_other_denied if {
	not data.app.allow with input as {"user": "bob"}
}

test_admins_overridden if {
	data.app.allow with input as {"user": "bob"} with data.app.admins as ["bob"]
}

test_wrong_greeting if {
	print("greeting was", data.app.greeting) with input as {"user": "cy"}
	data.app.greeting == "hi cy" with input as {"user": "cy"}
}

conflict := v if {
	some v in [1, 2]
}

test_error if {
	conflict == 1
}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "app.rego": POLICY,
            "app_test.rego": POLICY_TEST,
            "app/data.json": json.dumps({"admins": ["ann"]}),
        },
    )


def test_test_runs_every_test(suite, capsys):
    code, out, _ = cli(capsys, "test", "-v", str(suite))
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == f"{suite / 'app_test.rego'}:"
    results = {
        line.split(": ")[0]: line.split(": ")[1].split(" ")[0]
        for line in lines[1:]
        if line.startswith("data.")
    }
    assert results == {
        "data.app_test.test_admin_allowed": "PASS",
        "data.app_test.test_other_denied": "PASS",
        "data.app_test.test_admins_overridden": "PASS",
        "data.app_test.test_wrong_greeting": "FAIL",
        "data.app_test.test_error": "ERROR",
    }
    # the failing test shows its print() output
    assert "    greeting was hello cy" in lines
    assert lines[-3:] == ["PASS: 3/5", "FAIL: 1/5", "ERROR: 1/5"]
    # without -v, as opa test: only the tests that did not pass, then the summary
    code, out, _ = cli(capsys, "test", str(suite))
    assert code == 1
    listed = [line.split(":")[0] for line in out.splitlines() if line.startswith("data.")]
    assert listed == ["data.app_test.test_wrong_greeting", "data.app_test.test_error"]
    assert out.splitlines()[-3:] == ["PASS: 3/5", "FAIL: 1/5", "ERROR: 1/5"]


def test_test_run_filter_and_verbose(suite, capsys):
    code, out, _ = cli(capsys, "test", "-v", "--run", "admin", str(suite))
    assert code == 0
    assert out.count(": PASS (") == 2 and out.rstrip().endswith("PASS: 2/2")


def test_test_without_tests(tmp_path, capsys):
    write(tmp_path, {"a.rego": GOOD})
    code, _, err = cli(capsys, "test", str(tmp_path))
    assert code == 1 and "no tests found" in err


def test_test_policy_error_is_reported(tmp_path, capsys):
    write(tmp_path, {"a_test.rego": "package p\ntest_x if {\n\tnope()\n}\n"})
    code, _, err = cli(capsys, "test", str(tmp_path))
    assert code == 1 and "a_test.rego:3:2: unknown function nope" in err


def test_test_data_files_conflict(tmp_path, capsys):
    write(
        tmp_path,
        # Two files of one depth: neither overrides the other (a deeper one would).
        {
            "a_test.rego": "package p\ntest_x := true\n",
            "data.json": '{"a": 1}',
            "b.json": '{"a": 2}',
        },
    )
    code, _, err = cli(capsys, "test", str(tmp_path))
    assert code == 2 and "data.a is already defined by another data file" in err


def test_default_pack_tests_pass(capsys):
    code, out, _ = cli(capsys, "test", str(POLICIES))
    assert code == 0, out
    assert "FAIL" not in out and "ERROR" not in out


def test_coverage_report_counts_rule_and_literal_lines(capsys):
    module = parse_module("package p\n\nallow if {\n\tinput.a\n\tinput.b\n}\n\nx := 1\n", "p.rego")
    assert coverable_lines(module) == {3, 4, 5, 8}
    percent = _report_coverage([module], {("p.rego", 3), ("p.rego", 4), ("p.rego", 8)})
    assert percent == 75.0
    out = capsys.readouterr().out
    assert "p.rego: 75.0% (3/4 lines), not covered: 5" in out


def test_console_script_runs_check():
    proc = subprocess.run(
        [sys.executable, "-m", "hookgate.cli", "check", str(POLICIES)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\d+ files checked, (no problems|\d+ warnings?)\n\Z", proc.stdout)


def test_test_names_with_keys_that_are_not_names(tmp_path, capsys):
    write(tmp_path, {"a_test.rego": 'package a["b-c"]\n\ntest_one if true\n'})
    code, out, _ = cli(capsys, "test", "-v", str(tmp_path))
    assert code == 0
    assert 'data.a["b-c"].test_one: PASS (' in out


def test_test_coverage_reports_lines_evaluation_reached(tmp_path, capsys):
    write(
        tmp_path,
        {
            "p.rego": (
                "package p\n\nimport rego.v1\n\n"
                'allow if {\n\tinput.user == "admin"\n}\n\n'
                'deny if {\n\tinput.user == "guest"\n\tinput.write\n}\n'
            ),
            "p_test.rego": (
                "package p_test\n\nimport rego.v1\n\n"
                'test_admin if data.p.allow with input as {"user": "admin"}\n'
            ),
        },
    )
    code, out, _ = cli(capsys, "test", "--coverage", str(tmp_path))
    assert code == 0
    report = str(tmp_path / "p.rego")
    # allow's head and literal ran; deny (lines 9-11) was never evaluated.
    assert f"{report}: 40.0% (2/5 lines), not covered: 9-11" in out
    code, out, _ = cli(capsys, "test", "--coverage", "--threshold", "80", str(tmp_path))
    assert code == 1
    assert "coverage 40.0% is below the threshold 80%" in out
