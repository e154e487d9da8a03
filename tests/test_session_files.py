"""Files a session's file tools wrote are read when a later call of that session runs them:
Write x.sh, then bash x.sh, is judged as the line `cat > x.sh …; bash x.sh` would be."""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys

import pytest

from hookgate import session

HOOKGATE = os.path.join(os.path.dirname(sys.executable), "hookgate")


@pytest.fixture
def env(tmp_path):
    environ = dict(os.environ, HOOKGATE_HOME=str(tmp_path / "home"))
    environ.pop("HOOKGATE_FAILURE_POLICY", None)
    return environ


def call(env: dict, session_id: str, cwd, tool: str, tool_input: dict) -> dict:
    payload = {
        "session_id": session_id,
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    run = subprocess.run(
        [HOOKGATE, "eval", "--host", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=60,
        check=True,
    )
    return json.loads(run.stdout).get("hookSpecificOutput", {})


def write(env, session_id, project, name, text):
    """The Write call, then the write itself, as the host does after an allow."""
    path = project / name
    answer = call(env, session_id, project, "Write", {"file_path": str(path), "content": text})
    if answer.get("permissionDecision") != "deny":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return answer


@pytest.mark.parametrize(
    ("script", "run"),
    [
        ("git push --force origin main\n", "bash push.sh"),
        ("#!/bin/sh\nrm -rf ~\n", "chmod +x push.sh && ./push.sh"),
        ("git commit --no-verify -m wip\n", "source ./push.sh"),
        ("rm -rf ~\n", "sh < push.sh"),
    ],
)
def test_a_script_written_in_an_earlier_call_is_read_when_run(env, tmp_path, script, run):
    project = tmp_path / "proj"
    project.mkdir()
    assert write(env, "s-1", project, "push.sh", script) == {}
    answer = call(env, "s-1", project, "Bash", {"command": run})
    assert answer.get("permissionDecision") == "deny", answer
    # another session did not write it: its text is not known there
    assert call(env, "s-2", project, "Bash", {"command": run}) == {}


def test_the_text_is_the_one_on_disk_when_the_line_runs(env, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    write(env, "s-1", project, "run.sh", "echo ok\n")
    assert call(env, "s-1", project, "Bash", {"command": "bash run.sh"}) == {}
    (project / "run.sh").write_text("rm -rf ~\n")  # changed since (by an Edit, say)
    answer = call(env, "s-1", project, "Bash", {"command": "bash run.sh"})
    assert answer.get("permissionDecision") == "deny"


def test_a_denied_write_is_not_remembered(env, tmp_path, monkeypatch):
    project = tmp_path / "proj"
    project.mkdir()
    answer = write(env, "s-1", project, ".git/hooks/pre-commit", "exit 0\n")
    assert answer.get("permissionDecision") == "deny"
    monkeypatch.setenv("HOOKGATE_HOME", env["HOOKGATE_HOME"])
    assert session.written("s-1") == []


def test_paths_are_bounded_and_the_newest_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "home"))
    for n in range(session.MAX_FILES + 5):
        session.record("abc", [f"/p/{n}.sh", "relative.sh", "/p/bad\nname"])
    kept = session.written("abc")
    assert len(kept) == session.MAX_FILES
    assert kept[-1] == f"/p/{session.MAX_FILES + 4}.sh" and "/p/0.sh" not in kept
    session.record("abc", ["/p/10.sh"])  # written again: the newest
    assert session.written("abc")[-1] == "/p/10.sh"


def test_a_session_id_names_no_other_file(tmp_path, monkeypatch):
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "home"))
    session.record("../../etc/x", ["/p/a.sh"])
    assert session.written("../../etc/x") == ["/p/a.sh"]
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(tmp_path) for f in fs)
    sessions = str(tmp_path / "home" / "state" / "sessions")
    assert files == [os.path.join(sessions, "etcx"), os.path.join(sessions, "etcx.lock")]
    assert session.written("") == [] and session.written("///") == []


@pytest.mark.parametrize(
    "session_id",
    [
        "3f2a9c1e-7b4d-4e8a-9f01-2c3d4e5f6a7b",
        "a_b-C9",
        "x" * 200,
        "-_-",
        "ab.c",
        "é1",
        "ａbc",  # a full-width letter is not ASCII: left out
        "a b/c\n",
        "٣4",  # an Arabic-Indic digit: isalnum, not ASCII
    ],
)
def test_the_memory_file_name_keeps_ascii_letters_digits_dash_underscore(
    tmp_path, monkeypatch, session_id
):
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path))
    kept = "".join(c for c in session_id if c in string.ascii_letters + string.digits + "-_")
    path = session._file(session_id)
    assert path == os.path.join(str(tmp_path), "state", "sessions", kept[:96])
