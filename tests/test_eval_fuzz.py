"""Fuzzing the installed ``hookgate eval`` (a real process per example, as a host runs it) and
properties of the shell analysis.

Whatever a host pipes in (any bytes, or its own payload shape with fields of the wrong type),
the hook exits 0 with one valid response object for that host on stdout, never a traceback,
and the payload's content (a marker secret placed where no policy quotes it) appears in
nothing it writes: stdout, stderr, telemetry and every file under its home.

In-process properties of the same path are in test_eval_properties.py; this file adds what
only the process shows (argument handling, stdin reading, the fail-open writer, telemetry).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookgate.builtins.shell import commands, normalize_option, without_flags

HOOKGATE = str(Path(sys.executable).parent / "hookgate")
DATA = Path(__file__).parent / "data" / "hosts"
SECRET = "sk-live-FUZZ-marker-9f8e7d6c5b4a"
HOSTS = ["claude", "codex", "copilot", "gemini", "cursor", "amplifier"]
BYTES_EXAMPLES = 40  # per host
STRUCTURED_EXAMPLES = 40  # per host


def fuzz_settings(examples: int) -> settings:
    """A real process per example: no deadline, and slow data generation is expected."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


# Each host's example payloads (stdin as the host writes it), the fuzzing seeds.
EXAMPLES = {
    host: [
        json.loads(path.read_text())
        for path in sorted((DATA / "payloads").glob("*.json"))
        if path.name.startswith(host) and path.name != "amplifier-native-tool-pre.json"
    ]
    for host in HOSTS
}
# Top-level keys each host's response may carry (codex is checked against its schemas).
RESPONSE_KEYS = {
    "claude": {"hookSpecificOutput", "decision", "reason"},
    "copilot": {
        "permissionDecision",
        "permissionDecisionReason",
        "modifiedArgs",
        "additionalContext",
    },
    "gemini": {"decision", "reason", "systemMessage", "hookSpecificOutput"},
    "cursor": {
        "permission",
        "user_message",
        "agent_message",
        "updated_input",
        "additional_context",
    },
    "amplifier": {"decision", "reason", "contextInjection"},
}
VERDICTS = {
    "claude": ("hookSpecificOutput", "permissionDecision", {"allow", "deny", "ask"}),
    "copilot": (None, "permissionDecision", {"allow", "deny", "ask"}),
    "gemini": (None, "decision", {"allow", "deny"}),
    "cursor": (None, "permission", {"allow", "deny", "ask"}),
    "amplifier": (None, "decision", {"block"}),
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """One hookgate home for every example, so the compile cache stays warm."""
    root = tmp_path_factory.mktemp("fuzz")
    environ = dict(os.environ)
    environ.update(HOOKGATE_HOME=str(root / "home"), HOOKGATE_TELEMETRY=str(root / "tel.jsonl"))
    environ.pop("HOOKGATE_FAILURE_POLICY", None)
    return root, environ


def codex_schema(event: str) -> dict:
    name = "post-tool-use" if event == "PostToolUse" else "pre-tool-use"
    return json.loads((DATA / "codex" / f"{name}.command.output.schema.json").read_text())


def assert_valid_response(host: str, stdout: bytes) -> None:
    lines = stdout.decode().splitlines()
    assert len(lines) == 1, "exactly one JSON line on stdout"
    response = json.loads(lines[0])
    assert isinstance(response, dict)
    if host == "codex":
        event = response.get("hookSpecificOutput", {}).get("hookEventName", "PreToolUse")
        jsonschema.validate(response, codex_schema(event))
        return
    assert set(response) <= RESPONSE_KEYS[host]
    nest, key, allowed = VERDICTS[host]
    holder = response.get(nest, {}) if nest else response
    if key in holder:
        assert holder[key] in allowed
    if host == "cursor" and response:
        assert "permission" in response or set(response) == {"additional_context"}


def run_and_check(home: tuple[Path, dict], host: str, stdin: bytes) -> None:
    root, environ = home
    result = subprocess.run(
        [HOOKGATE, "eval", "--host", host],
        input=stdin,
        capture_output=True,
        env=environ,
        timeout=60,
    )
    assert result.returncode == 0
    assert b"Traceback" not in result.stderr
    assert_valid_response(host, result.stdout)
    assert SECRET.encode() not in result.stdout + result.stderr
    for path in root.rglob("*"):  # telemetry, the decision log, the compile cache
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path.name


# -- any bytes ------------------------------------------------------------------------------


def with_secret(payload: dict) -> bytes:
    """``payload`` carrying the marker under a key no policy reads or quotes."""
    return json.dumps({"x_marker": SECRET, **payload}).encode()


@st.composite
def any_stdin(draw: st.DrawFn, host: str) -> bytes:
    """Random bytes around the marker, or one of the host's payloads cut short and followed
    by random bytes (the marker stays where no policy quotes it)."""
    noise = st.binary(max_size=120)
    if draw(st.booleans()):
        return draw(noise) + SECRET.encode() + draw(noise)
    text = with_secret(draw(st.sampled_from(EXAMPLES[host])))
    cut = draw(st.integers(min_value=0, max_value=len(text)))
    return text[:cut] + draw(noise)


@pytest.mark.parametrize("host", HOSTS)
def test_any_bytes_on_stdin_get_a_valid_answer_and_leak_nothing(home, host):
    @fuzz_settings(BYTES_EXAMPLES)
    @given(stdin=any_stdin(host))
    def check(stdin: bytes) -> None:
        run_and_check(home, host, stdin)

    check()


# -- each host's shape, fields of any type -----------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def fuzzed_payload(draw: st.DrawFn, host: str) -> bytes:
    """One of the host's payloads with some fields (top level or in ``data``/``tool_input``)
    given values of any JSON type, and some dropped."""

    def mutate(value: dict) -> dict:
        out = {}
        for key, field in value.items():
            choice = draw(st.sampled_from(["keep", "keep", "retype", "drop"]))
            if choice == "retype":
                out[key] = draw(json_values)
            elif choice == "keep":
                out[key] = mutate(field) if isinstance(field, dict) else field
        return out

    return with_secret(mutate(draw(st.sampled_from(EXAMPLES[host]))))


@pytest.mark.parametrize("host", HOSTS)
def test_each_host_shape_with_fuzzed_field_types_gets_a_valid_answer(home, host):
    @fuzz_settings(STRUCTURED_EXAMPLES)
    @given(stdin=fuzzed_payload(host))
    def check(stdin: bytes) -> None:
        run_and_check(home, host, stdin)

    check()


def test_every_host_has_example_payloads():
    assert all(EXAMPLES[host] for host in HOSTS)


# -- shell analysis properties -------------------------------------------------------------

FLAGS = ["-f", "--force", "-n"]
# Option words, some carrying a flag to remove (alone, bundled, --flag=value), some not.
OPTIONS = ["-f", "--force", "--force=x", "-n", "-fu", "-uf", "-nf", "-u", "--verbose", "-q"]
# Operand words, quoted or not (a quoted option is still an option once unquoted).
OPERANDS = ["origin", "main", "'a b'", '"-f"', "'--force'", "x/y", "$HOME", "''"]
SEPARATORS = [" ; ", " && ", " || ", " | ", "\n", " & "]


@st.composite
def command_lines(draw: st.DrawFn) -> str:
    parts = []
    for i in range(draw(st.integers(min_value=1, max_value=4))):
        if i:
            parts.append(draw(st.sampled_from(SEPARATORS)))
        name = draw(st.sampled_from(["git push", "rm", "cmd", "ls"]))
        words = draw(st.lists(st.sampled_from(OPTIONS + OPERANDS), max_size=6))
        if draw(st.booleans()):
            words += ["--", *draw(st.lists(st.sampled_from(OPTIONS), max_size=2))]
        gaps = [draw(st.sampled_from([" ", "  ", "\t"])) for _ in words]
        parts.append(name + "".join(gap + word for gap, word in zip(gaps, words, strict=True)))
    return "".join(parts)


def expected_argv(argv: list[str], flags: list[str]) -> list[str]:
    """``argv`` with ``flags`` removed the way ``without_flags`` documents it."""
    shorts = {f[1] for f in flags if len(f) == 2}
    out, ended = [argv[0]], False
    for word in argv[1:]:
        option = normalize_option(word)
        if ended or option == "-" or not option.startswith("-"):
            out.append(word)
        elif option == "--":
            ended = True
            out.append(word)
        elif any(option == f or (f.startswith("--") and option.startswith(f + "=")) for f in flags):
            continue
        elif option.startswith("--"):
            out.append(word)
        else:
            kept = "".join(ch for ch in option[1:] if ch not in shorts)
            if kept:
                out.append("-" + kept)
    return out


def is_subsequence(short: str, long: str) -> bool:
    chars = iter(long)
    return all(ch in chars for ch in short)


@settings(max_examples=300, deadline=None)
@given(line=command_lines(), flags=st.lists(st.sampled_from(FLAGS), min_size=1, unique=True))
def test_without_flags_removes_exactly_the_flags(line, flags):
    result = without_flags(line, flags)
    # Only deletions: every character kept is the original's, in order.
    assert is_subsequence(result, line)
    before, after = commands(line), commands(result)
    assert [c["name"] for c in after] == [c["name"] for c in before]
    for old, new in zip(before, after, strict=True):
        assert new["argv"] == expected_argv(old["argv"], flags)


words = st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"))


@settings(max_examples=300, deadline=None)
@given(
    argv=st.lists(words, min_size=1, max_size=4),
    before=st.sampled_from(["", "a | ", "cd x && ", "(", "sudo "]),
)
def test_quoted_words_come_back_unquoted(argv, before):
    line = before + "cmd " + " ".join(shlex.quote(word) for word in argv)
    line += ")" if before == "(" else ""
    (command,) = [c for c in commands(line) if c["name"] == "cmd"]
    assert command["argv"] == ["cmd", *argv]
