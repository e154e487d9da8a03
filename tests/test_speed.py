"""What the hook's speed work must keep: a warm `hookgate eval` imports none of the modules it
was freed from (pathlib, json and re, typing…) and leaves the collector as it found it, and
policy files keep the names pathlib gave them now that the hot path reads them with os.path
(tests/test_jsonio.py: the JSON it reads and writes without json)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap

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
    "joserfc",
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
