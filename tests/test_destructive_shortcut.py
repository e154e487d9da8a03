"""destructive's inside-project shortcut (``destructive.project_prefix``, ``inside_project``)
changes no answer: every path of a cross product of working directories, path spellings and
writers (shell lines and file tools) gets the same ``destructive.violations`` with the shortcut
as with it turned off (``project_prefix`` replaced by a prefix no path has).

The whole product runs here, once per test run; ``policies/destructive_test.rego`` keeps a
sample of it, so that the pack's own tests (which run on every publish) stay quick.
"""

from __future__ import annotations

import pytest

from hookgate.lang import load
from hookgate.sources import default_pack_sources

CWDS = ["/home/u/proj", "/home/u/proj/", "/home/u", "/srv", "/root", "/Users/me/app", "/tmp/w"]
PATHS = ["src/a.py", "", "*", "./a", "a/.", "a/..", "../x", "a//b", "a/", ".git", "a/../../x", "{}"]
PATHS += ["~/x", "$HOME/a", "a b", "-rf", "src/*.py", "..", ".", "./", "a/b/../../.."]
LINES = [
    "rm -rf {}",
    "rm {}",
    "echo x > {}",
    "chmod -R 777 {}",
    "find {} -delete",
    "mv {} /tmp/y",
    "cp /dev/null {}",
    "ssh h rm -rf {}",
    "cd {} && rm -rf .",
    "rsync -a --delete /tmp/e/ {}",
    "truncate -s 0 {}",
    "git clean -fdx {}",
]
TOOLS = {"Write": "write", "Delete": "delete", "Edit": "edit", "Move": "move"}


def _inputs() -> list[dict]:
    found = []
    for cwd in CWDS:
        for rel in PATHS:
            path = cwd.rstrip("/") + "/" + rel
            for line in LINES:
                found.append(
                    {
                        "hook_event_name": "PreToolUse",
                        "tool_kind": "shell",
                        "tool_input": {"command": line.format(path)},
                        "cwd": cwd,
                    }
                )
            for tool, kind in TOOLS.items():
                effect = {"kind": kind, "path": path, "tool": tool, "content": "x", "to": "/etc/y"}
                found.append(
                    {
                        "hook_event_name": "PreToolUse",
                        "tool_name": tool,
                        "tool_kind": "edit",
                        "tool_input": {},
                        "cwd": cwd,
                        "effects": [effect],
                    }
                )
    return found


@pytest.fixture(scope="module")
def pack():
    sources, data = default_pack_sources()
    return load(sources, data=data)


def test_the_inside_project_shortcut_changes_no_answer(pack) -> None:
    rule = "data.hookgate.destructive.violations"
    off = {"data.hookgate.destructive.project_prefix": "<none>"}
    inputs = _inputs()
    taken = 0
    for doc in inputs:
        fast = pack.query(rule, input=doc)
        assert fast == pack.query(rule, input=doc, data_overrides=off), doc
        prefix = pack.query("data.hookgate.destructive.project_prefix", input=doc)
        taken += isinstance(prefix, str)
    assert len(inputs) > 2000
    assert taken > len(inputs) // 2  # the shortcut is there to be taken, not only turned off
    # and the comparison can fail: a prefix every path has takes it where it must not
    wrong = {"data.hookgate.destructive.project_prefix": "/"}
    assert any(
        pack.query(rule, input=d) != pack.query(rule, input=d, data_overrides=wrong) for d in inputs
    )
