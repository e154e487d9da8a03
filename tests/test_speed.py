"""What the hook's speed work must keep: a warm `hookgate eval` imports none of the modules it
was freed from (pathlib, json and re, typing…) and leaves the collector as it found it, the JSON
it reads and writes is json's, and policy files keep the names pathlib gave them now that the
hot path reads them with os.path."""

from __future__ import annotations

import ast
import json
import math
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookgate import jsonio
from hookgate.sources import load_paths

PAYLOAD = {
    "session_id": "s",
    "cwd": "/tmp",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git commit --no-verify -m wip"},
}

# Each costs a warm hook from a few hundred microseconds (types, math) to several milliseconds
# (json with re, typing, pathlib); the hook has what it needs of them without them.
AVOIDED = [
    "collections",
    "contextlib",
    "enum",
    "functools",
    "json",
    "lark",
    "math",
    "pathlib",
    "pydantic",
    "re",
    "types",
    "typing",
    "urllib.parse",
]

# In this venv the editable install's import hook loads pathlib, re and more before hookgate
# runs: the probe forgets them, so that a hot path importing one shows.
PROBE = textwrap.dedent(
    f"""
    import gc, sys
    for name in [m for m in sys.modules if m.split(".")[0] in {[m.split(".")[0] for m in AVOIDED]!r}]:
        del sys.modules[name]
    from hookgate import cli
    code = cli.main(["eval", "--host", "claude"])
    print(repr({{"code": code, "gc": gc.isenabled(),
                 "imported": [m for m in {AVOIDED!r} if m in sys.modules]}}))
    """
)


def test_warm_eval_imports_none_of_the_avoided_modules_and_leaves_the_collector_on(tmp_path):
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    env["HOOKGATE_TELEMETRY"] = str(tmp_path / "telemetry.jsonl")
    env.pop("HOOKGATE_FAILURE_POLICY", None)
    stdin = json.dumps(PAYLOAD)
    # The first run compiles the default pack (with lark, from site-packages), the second is warm.
    cold = subprocess.run(
        [sys.executable, "-c", "from hookgate import cli; cli.main(['eval', '--host', 'claude'])"],
        input=stdin,
        env=env,
        capture_output=True,
        text=True,
    )
    assert json.loads(cold.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    warm = subprocess.run(
        [sys.executable, "-c", PROBE], input=stdin, env=env, capture_output=True, text=True
    )
    response, report = warm.stdout.strip().splitlines()
    assert json.loads(response)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert ast.literal_eval(report) == {"code": 0, "gc": True, "imported": []}
    assert not os.path.exists(env["HOOKGATE_TELEMETRY"])  # no failure was recorded


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(alphabet=st.characters(codec="utf-8")),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    """Equality that takes NaN as equal to itself, as JSON text does."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES, st.booleans(), st.booleans(), st.booleans())
def test_jsonio_writes_what_json_writes(value, ensure_ascii, sort_keys, compact):
    separators = (",", ":") if compact else (", ", ": ")
    expected = json.dumps(
        value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, separators=separators
    )
    text = jsonio.dumps(value, ensure_ascii=ensure_ascii, sort_keys=sort_keys, compact=compact)
    assert text == expected
    assert _same(jsonio.loads(text), json.loads(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrulasNIy \\\t\n\x00\u00e9\ufeff', max_size=30))
def test_jsonio_reads_what_json_reads_and_fails_where_json_fails(text):
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as exc:
        with pytest.raises(jsonio.DecodeError) as raised:
            jsonio.loads(text)
        assert (raised.value.msg, raised.value.pos) == (exc.msg, exc.pos)
        assert (raised.value.lineno, raised.value.colno) == (exc.lineno, exc.colno)
    else:
        assert _same(jsonio.loads(text), expected)


def test_jsonio_refuses_what_json_refuses():
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        jsonio.dumps({"a": object()})
    assert jsonio.dumps({"a": object()}, default=lambda _: "x") == '{"a": "x"}'
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        jsonio.dumps(loop)


def test_jsonio_without_the_accelerator_is_json(monkeypatch):
    monkeypatch.setattr(jsonio, "_scan", None)
    monkeypatch.setattr(jsonio, "make_encoder", None)
    value = {"b": [1, 2.5, None, True, "é"], "a": {}}
    assert jsonio.dumps(value, sort_keys=True, compact=True, ensure_ascii=False) == (
        '{"a":{},"b":[1,2.5,null,true,"é"]}'
    )
    assert jsonio.dumps(value, ensure_ascii=True) == json.dumps(value)
    assert jsonio.loads(' [1, {"a": null}] ') == [1, {"a": None}]
    with pytest.raises(jsonio.DecodeError, match="Extra data: line 1 column 5"):
        jsonio.loads("[1] x")


def test_policy_files_are_named_as_pathlib_spells_them(tmp_path, monkeypatch):
    (tmp_path / "pol" / "team").mkdir(parents=True)
    (tmp_path / "pol" / "a.rego").write_text("package a\n")
    (tmp_path / "pol" / "a_test.rego").write_text("package a_test\n")
    (tmp_path / "pol" / "team" / "data.json").write_text('{"x": 1}')
    monkeypatch.chdir(tmp_path)
    for spelling in ("./pol//", "pol/.", "pol/"):
        assert load_paths([spelling]) == ({"pol/a.rego": "package a\n"}, {"team": {"x": 1}})
    sources, data = load_paths(["."], include_tests=True)
    assert list(sources) == ["pol/a.rego", "pol/a_test.rego"]
    assert data == {"pol": {"team": {"x": 1}}}
    assert load_paths(["./pol/team/data.json"]) == ({}, {"x": 1})
