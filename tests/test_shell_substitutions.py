"""Known-safe command substitutions (``shell.substitutions`` in the pack's data) and the kind of
each word ``shell.commands`` reports: what the line shows, what a known-safe command yields, and
what stays unknown (issue 16 part 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.builtins.registry import BuiltinError
from hookgate.builtins.shell import commands, commands_with
from hookgate.shell.expansion import compile_substitutions, is_unknown, known_substitution

ROOT = Path(__file__).resolve().parents[1]
TABLE = json.loads((ROOT / "policies" / "data.json").read_text())["hookgate"]["config"]["shell"][
    "substitutions"
]


def words(cmdline: str, name: str, table=TABLE) -> list[tuple[str, str | None]]:
    cmd = [c for c in commands_with(cmdline, table) if c["name"] == name][-1]
    return list(zip(cmd["argv"], cmd["kinds"], strict=True))


def test_the_pack_table_is_valid_and_each_command_is_one_simple_command():
    table = compile_substitutions(TABLE)
    for entry in TABLE:
        [cmd] = commands(entry["command"])
        assert cmd["argv"] == entry["command"].split(), entry
        # every entry is found for its own command (a '*' word for a sample word)
        argv = [w[:-1] + "x" if w.endswith("*") else w for w in cmd["argv"]]
        assert known_substitution(table, argv) is not None, entry
        assert not is_unknown(entry["yields"])


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ("x", "must be an array"),
        ([1], r"shell.substitutions\[0\] must be an object"),
        ([{"command": "", "yields": "text"}], r"\[0\].command"),
        ([{"command": "pwd", "yields": "unknown-output"}], r"\[0\].yields"),
        ([{"command": "pwd", "yields": "cwd", "text": "a b"}], r"\[0\].text must be one word"),
    ],
)
def test_a_malformed_table_is_an_error_naming_the_entry(entries, message):
    with pytest.raises(BuiltinError, match=message):
        commands_with("true", entries)


@pytest.mark.parametrize(
    ("cmdline", "name", "expected"),
    [
        ('TMP=$(mktemp -d); rm -rf "$TMP"', "rm", ("$TMPDIR/tmp.hookgate", "temp")),
        ('rm -rf "$(pwd)/dist"', "rm", ("$PWD/dist", "cwd")),
        ('R=$(git rev-parse --show-toplevel); rm -rf "$R/b"', "rm", ("$PWD/b", "toplevel")),
        ("git push origin $(git branch --show-current)", "git", (None, "branch")),
        ("git push origin `git rev-parse --abbrev-ref HEAD`", "git", (None, "branch")),
        ("make -j$(nproc)", "make", ("-j$(nproc)", "number")),
        ('tar czf "out-$(date +%F).tgz" src', "tar", ("out-$(date +%F).tgz", "text")),
        # not in the table: unknown, as written
        ('rm -rf "$(cat f)"', "rm", ("$(cat f)", "unknown-file")),
        ("rm -rf $(< f)", "rm", ("$(< f)", "unknown-file")),
        ('rm -rf "$(curl -s x)"', "rm", ("$(curl -s x)", "unknown-output")),
        ('rm -rf "$HOME"', "rm", ("$HOME", "unknown-variable")),
        ('rm -rf "$UNKNOWN"/', "rm", ("$UNKNOWN/", "unknown-variable")),
        ("rm -rf $((1+1))", "rm", ("2", None)),  # computed from the line
        ("rm -rf $((N+1))", "rm", ("$((N+1))", "unknown-number")),
        # a known command with an unknown word is not the known command
        ('rm -rf "$(mktemp -d "$X")"', "rm", ('$(mktemp -d "$X")', "unknown-output")),
        # what the line shows is text
        ("v=-f; rm $v x", "rm", ("-f", None)),
    ],
)
def test_each_word_has_its_kind(cmdline, name, expected):
    text, kind = expected
    found = words(cmdline, name)
    assert any((text is None or t == text) and k == kind for t, k in found), found


def test_without_the_table_substitutions_are_unknown():
    [rm] = [c for c in commands('TMP=$(mktemp -d); rm -rf "$TMP"') if c["name"] == "rm"]
    assert rm["argv"][-1] == "$(mktemp -d)" and rm["kinds"][-1] == "unknown-output"


def test_a_team_adds_its_own():
    table = [{"command": "scripts/tmpdir", "yields": "temp", "text": "$TMPDIR/ci"}]
    assert words('rm -rf "$(scripts/tmpdir)/x"', "rm", table)[-1] == ("$TMPDIR/ci/x", "temp")


def decide(engine, command: str) -> str:
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": "/home/dev/project",
        "session_id": "t",
    }
    return engine.evaluate(payload, host="claude").outcome


@pytest.mark.parametrize(
    "cmdline",
    [
        'TMP=$(mktemp -d); cp -r src "$TMP" && rm -rf "$TMP"',
        'rm -rf "$(pwd)/dist"',
        'ROOT=$(git rev-parse --show-toplevel); rm -rf "$ROOT/build"',
        'cd "$(git rev-parse --show-toplevel)" && rm -rf build',
        "d=`mktemp -d`; rm -rf $d",
        'export T="$(mktemp)"; rm -rf "$T"',
        'cd "$PWD" && rm -rf build',
    ],
)
def test_known_safe_substitutions_are_left_alone(engine, cmdline):
    assert decide(engine, cmdline) == "allow"


@pytest.mark.parametrize(
    "cmdline",
    [
        'rm -rf "$HOME"',
        'rm -rf "$UNKNOWN"/',
        'rm -rf "$(cat f)"',
        'rm -rf "$(pwd)"',
        'rm -rf "$(pwd)/.."',
        'ROOT=$(git rev-parse --show-toplevel); rm -rf "$ROOT"',
        'TMP=$(mktemp -d); rm -rf "$TMP/.."',
        'TMPDIR=/home/dev; T=$(mktemp -d); rm -rf "$T"',
        'cd "$(git rev-parse --show-toplevel)/.." && rm -rf project',
        "rm -rf ${X:-/}",
        "rm -rf ${X:-$HOME}",
    ],
)
def test_unsafe_targets_stay_denied(engine, cmdline):
    assert decide(engine, cmdline) == "deny"
