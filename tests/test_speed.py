"""What the hook's speed work must keep: a warm `hookgate eval` leaves pathlib (and what it pulls
in) unimported and the collector as it found it, and policy files keep the names pathlib gave
them now that the hot path reads them with os.path."""

from __future__ import annotations

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

# In this venv the editable install's import hook loads pathlib before hookgate runs: the probe
# forgets it (and urllib, which pathlib imports) so that a hot path importing it shows.
PROBE = textwrap.dedent(
    """
    import gc, json, sys
    for name in [m for m in sys.modules if m == "pathlib" or m.split(".")[0] == "urllib"]:
        del sys.modules[name]
    from hookgate import cli
    code = cli.main(["eval", "--host", "claude"])
    print(json.dumps({"code": code, "pathlib": "pathlib" in sys.modules,
                      "urllib": "urllib.parse" in sys.modules, "gc": gc.isenabled()}))
    """
)


def test_warm_eval_imports_no_pathlib_and_leaves_the_collector_on(tmp_path):
    env = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    env["HOOKGATE_TELEMETRY"] = str(tmp_path / "telemetry.jsonl")
    env.pop("HOOKGATE_FAILURE_POLICY", None)
    stdin = json.dumps(PAYLOAD)
    runs = [
        subprocess.run(
            [sys.executable, "-c", PROBE], input=stdin, env=env, capture_output=True, text=True
        )
        for _ in range(2)  # the first run compiles the default pack, the second is warm
    ]
    response, report = runs[1].stdout.strip().splitlines()
    assert json.loads(response)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert json.loads(report) == {"code": 0, "pathlib": False, "urllib": False, "gc": True}
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
