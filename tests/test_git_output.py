"""Git commands whose output option writes a file (``git diff --output=F``, ``git archive -o
F``): the git argv model names the file, checked against what real git writes, and the pack
judges it as a write effect wherever git is reached (the shell, mcp-server-git's git_diff)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from hookgate.shell.git.argv import output_files, parse_argv

ROOT = Path(__file__).resolve().parent.parent
GIT = shutil.which("git")

# (argv after git, the files the model says it writes, relative to the repository)
CASES = [
    (["diff", "--output=a.diff"], ["a.diff"]),
    (["diff", "--output", "b.diff", "HEAD"], ["b.diff"]),
    (["log", "-1", "-p", "--output=c.txt"], ["c.txt"]),
    (["show", "--output", "d.txt", "HEAD"], ["d.txt"]),
    (["diff-index", "-p", "--output=e.diff", "HEAD"], ["e.diff"]),
    (["archive", "-of.tar", "HEAD"], ["f.tar"]),
    (["archive", "--output", "g.tar", "HEAD"], ["g.tar"]),
    (["diff", "HEAD", "--", "--output=h.diff"], []),  # a path after --, no option
    (["diff", "--stat"], []),
]


@pytest.fixture()
def repo(tmp_path):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args: str) -> None:
        subprocess.run([GIT, *args], cwd=tmp_path, env=env, check=False, capture_output=True)

    git("init", "-q")
    (tmp_path / "f.txt").write_text("one\n")
    git("add", "f.txt")
    git("-c", "user.email=a@b.test", "-c", "user.name=a", "commit", "-qm", "first")
    (tmp_path / "f.txt").write_text("two\n")
    return tmp_path, git


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.parametrize(("args", "files"), CASES)
def test_output_files_are_what_git_writes(repo, args, files):
    path, git = repo
    before = set(p.name for p in path.iterdir())
    git(*args)
    written = sorted(set(p.name for p in path.iterdir()) - before)
    assert written == sorted(files)
    assert output_files(args[0], args[1:]) == files
    assert parse_argv(["git", *args], {}, None)["writes"] == files


def _payload(tool: str, tool_input: dict) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "cwd": "/home/u/proj",
    }


@pytest.mark.parametrize(
    ("command", "outcome"),
    [
        ("git diff --output=.git/hooks/pre-commit", "deny"),
        ("git -C web diff --output ../.git/hooks/pre-push HEAD", "deny"),
        ("git log -p --output=.claude/settings.json", "deny"),
        ("git archive -o .git/hooks/post-merge HEAD", "deny"),
        ("git diff --output=changes.diff main", "allow"),
        ("git -C web diff --output=../review/web.diff", "allow"),
        ("git diff -- --output=.git/hooks/pre-commit", "allow"),
    ],
)
def test_an_output_option_is_a_write_effect(engine, command, outcome):
    assert engine.evaluate(_payload("Bash", {"command": command})).outcome == outcome
