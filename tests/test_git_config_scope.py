"""git config changes to core.hooksPath judged by git's effective configuration: a change in a
scope git reads before the one whose value decides (local wins over global) changes nothing,
checked against what real git reads before and after."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")
pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    for d in (".husky", ".githooks"):
        (proj / d).mkdir()
        (proj / d / "pre-commit").write_text("#!/bin/sh\nmake test\n")
    return tmp_path


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run([GIT, *args], cwd=cwd, capture_output=True, text=True, check=False)
    return done.stdout.strip()


# (git config commands that prepare the scopes, the command judged, its outcome)
CASES = [
    # the repository's own setting decides: a global change leaves it in force
    (
        (["--global", "core.hooksPath", ".githooks"], ["core.hooksPath", ".husky"]),
        "git config --global --unset core.hooksPath",
        "allow",
    ),
    ((["core.hooksPath", ".husky"],), "git config --global core.hooksPath /dev/null", "allow"),
    ((["core.hooksPath", ".husky"],), "git config --global --unset-all core.hooksPath", "allow"),
    # the changed scope is the one that decides
    (
        (["--global", "core.hooksPath", ".githooks"],),
        "git config --global --unset core.hooksPath",
        "deny",
    ),
    ((["core.hooksPath", ".husky"],), "git config --unset core.hooksPath", "deny"),
    ((["core.hooksPath", ".husky"],), "git config --local core.hooksPath /dev/null", "deny"),
    # the repository includes the global file: the value that decides lives in the file the
    # global change writes
    (
        (["--global", "core.hooksPath", ".githooks"], ["include.path", "~/.gitconfig"]),
        "git config --global --unset core.hooksPath",
        "deny",
    ),
]


@pytest.mark.parametrize(("setup", "command", "outcome"), CASES)
def test_a_change_is_judged_by_the_effective_value(engine, home, setup, command, outcome):
    proj = home / "proj"
    for args in setup:
        git(proj, "config", *args)
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(proj),
    }
    assert engine.evaluate(payload).outcome == outcome
    before = git(proj, "config", "--get", "core.hooksPath")
    subprocess.run(command, shell=True, cwd=proj, check=False, capture_output=True)
    after = git(proj, "config", "--get", "core.hooksPath")
    assert (before == after) == (outcome == "allow"), (before, after)
