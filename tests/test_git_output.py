"""Git commands whose output option writes a file (``git diff --output=F``, ``git archive -o
F``): the git argv model names the file, checked against what real git writes, and the pack
judges it as a write effect wherever git is reached (the shell, mcp-server-git's git_diff)."""

from __future__ import annotations

import fnmatch
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
        # where git runs: the line's cd, then -C (the path counts from there, once)
        ("cd sub && git diff --output=../.claude/settings.json", "deny"),
        ("cd .claude/agents && git diff --output=notes.md", "ask"),
        ("cd web && git diff --output=web.diff", "allow"),
        # git format-patch writes one file per commit into -o DIR (else where git runs)
        ("git format-patch -o .claude/agents HEAD~1", "ask"),
        ("git format-patch --suffix=.md --output-directory=.github/instructions -3", "ask"),
        ("cd .cursor/rules && git format-patch -1", "ask"),
        ("git -C .claude format-patch -oagents HEAD~2", "ask"),
        ("git format-patch -o .git/hooks HEAD~1", "deny"),
        ("git format-patch HEAD~3", "allow"),
        ("git format-patch -o /tmp/patches main", "allow"),
        ("git format-patch -o x -o .claude/agents -1", "allow"),  # git refuses two directories
        ("git format-patch --stdout HEAD~1 > fix.patch", "allow"),
        ("git format-patch -- -o .claude/agents", "allow"),  # after --, a path
    ],
)
def test_an_output_option_is_a_write_effect(engine, command, outcome):
    assert engine.evaluate(_payload("Bash", {"command": command})).outcome == outcome


# (argv after git format-patch, in a repository of two commits, "first one" and "second")
PATCH_CASES = [
    ["HEAD~1"],
    ["-o", "out", "HEAD~1"],
    ["-oout/", "HEAD~1"],
    ["--output-directory", "a/b", "HEAD~1"],
    ["--output-directory=out", "--cover-letter", "HEAD~1"],
    ["--numbered-files", "-o", "out", "HEAD~1"],
    ["--suffix=.md", "-o", "out", "HEAD~1"],
    ["--suffix", "", "-o", "out", "HEAD~1"],
    ["--stdout", "HEAD~1"],
    ["--output=one.txt", "HEAD~1"],
    ["-o", "x", "-o", "y", "HEAD~1"],
]


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.parametrize("args", PATCH_CASES)
def test_format_patch_files_are_what_git_writes(repo, args):
    """Every file real git format-patch writes matches one of the model's patterns, and every
    pattern names a file git wrote (the names come from the commits: a pattern per directory)."""
    path, git = repo
    git("-c", "user.email=a@b.test", "-c", "user.name=a", "commit", "-qam", "second")
    before = {p for p in path.rglob("*") if ".git" not in p.parts}
    git("format-patch", *args)
    written = sorted(
        str(p.relative_to(path))
        for p in path.rglob("*")
        if p.is_file() and ".git" not in p.parts and p not in before
    )
    patterns = output_files("format-patch", args)
    assert parse_argv(["git", "format-patch", *args], {}, None)["writes"] == patterns
    assert all(any(fnmatch.fnmatchcase(f, p) for p in patterns) for f in written), (
        written,
        patterns,
    )
    assert all(any(fnmatch.fnmatchcase(f, p) for f in written) for p in patterns), (
        written,
        patterns,
    )


@pytest.mark.parametrize(
    ("command", "outcome"),
    [
        ("git -C .claude rm settings.json", "deny"),
        ("cd sub && git -C ../.claude rm -q settings.json", "deny"),
        ("git -C .claude mv notes.json settings.json", "deny"),
        ("git -C .claude checkout HEAD~3 -- settings.json", "deny"),
        ("git -C .claude/agents mv notes.json ../settings.json", "deny"),
        ("git -C web rm -q old.js", "allow"),
        ("cd web && git rm -q old.js", "allow"),
    ],
)
def test_git_work_tree_paths_count_from_where_git_runs(engine, command, outcome):
    """git rm, mv and checkout name paths from git's own directory: the line's cd, then -C."""
    assert engine.evaluate(_payload("Bash", {"command": command})).outcome == outcome
