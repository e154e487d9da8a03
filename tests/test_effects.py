"""hookgate.effects: every host's tool call in one vocabulary (the input document's effects)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hookgate.effects import effects, patch, resolve
from hookgate.hostio.normalize import normalize

PAYLOADS = Path(__file__).parent / "data" / "hosts" / "payloads"
HOME = os.path.expanduser("~")


def kinds(name: str, tool_input: dict, cwd: str | None = "/p", kind: str | None = None) -> list:
    return [
        {k: v for k, v in e.items() if k != "tool"} for e in effects(name, kind, tool_input, cwd)
    ]


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        ("Bash", {"command": "ls"}, [{"kind": "run", "dialect": "sh", "command": "ls"}]),
        (
            "run_shell_command",
            {"command": "ls"},
            [{"kind": "run", "dialect": "sh", "command": "ls"}],
        ),
        ("exec_command", {"cmd": "ls -l"}, [{"kind": "run", "dialect": "sh", "command": "ls -l"}]),
        (
            "shell",
            {"command": ["bash", "-lc", "git push -f"]},
            [{"kind": "run", "dialect": "sh", "command": "git push -f"}],
        ),
        (
            "local_shell",
            {"command": ["rm", "-rf", "my dir"]},
            [{"kind": "run", "dialect": "sh", "command": "rm -rf 'my dir'"}],
        ),
        (
            "powershell",
            {"command": "Remove-Item -Recurse $HOME"},
            [{"kind": "run", "dialect": "powershell", "command": "Remove-Item -Recurse $HOME"}],
        ),
        (
            "shell",
            {"command": ["pwsh", "-Command", "rm -r x"]},
            [{"kind": "run", "dialect": "powershell", "command": "rm -r x"}],
        ),
        (  # pwsh's own parameters before the script, whichever spelling
            "shell",
            {"command": ["pwsh.exe", "-nop", "-ExecutionPolicy", "Bypass", "-c", "rm", "-r", "x"]},
            [{"kind": "run", "dialect": "powershell", "command": "rm -r x"}],
        ),
        (
            "Write",
            {"file_path": "/p/a.txt", "content": ""},
            [{"kind": "write", "path": "/p/a.txt", "content": "", "empty": True}],
        ),
        (
            "write_file",
            {"file_path": "b/../c.txt", "content": "x"},
            [{"kind": "write", "path": "/p/c.txt", "content": "x", "empty": False}],
        ),
        (
            "create",
            {"path": "new.md", "file_text": "hi"},
            [{"kind": "write", "path": "/p/new.md", "content": "hi", "empty": False}],
        ),
        (
            "Edit",
            {"file_path": "/p/a", "old_string": "x", "new_string": "y"},
            [{"kind": "edit", "path": "/p/a", "old_text": "x", "new_text": "y"}],
        ),
        (
            "replace",
            {"file_path": "a", "old_string": "x", "new_string": "y", "instruction": "i"},
            [{"kind": "edit", "path": "/p/a", "old_text": "x", "new_text": "y"}],
        ),
        (
            "str_replace_editor",
            {"command": "str_replace", "path": "a", "old_str": "x", "new_str": "y"},
            [{"kind": "edit", "path": "/p/a", "old_text": "x", "new_text": "y"}],
        ),
        (
            "str_replace_editor",
            {"command": "create", "path": "a", "file_text": ""},
            [{"kind": "write", "path": "/p/a", "content": "", "empty": True}],
        ),
        (
            "str_replace_editor",
            {"command": "view", "path": "a"},
            [{"kind": "read", "path": "/p/a"}],
        ),
        (
            "edit",
            {"path": "a", "old_str": "x", "new_str": "y"},
            [{"kind": "edit", "path": "/p/a", "old_text": "x", "new_text": "y"}],
        ),
        (
            "MultiEdit",
            {
                "file_path": "/p/a",
                "edits": [
                    {"old_string": "1", "new_string": "2"},
                    {"old_string": "3", "new_string": "4"},
                ],
            },
            [
                {"kind": "edit", "path": "/p/a", "old_text": "1", "new_text": "2"},
                {"kind": "edit", "path": "/p/a", "old_text": "3", "new_text": "4"},
            ],
        ),
        (
            "NotebookEdit",
            {"notebook_path": "/p/n.ipynb", "new_source": "print(1)", "edit_mode": "replace"},
            [{"kind": "edit", "path": "/p/n.ipynb", "old_text": "", "new_text": "print(1)"}],
        ),
        ("Delete", {"file_path": "x"}, [{"kind": "delete", "path": "/p/x"}]),
        ("Read", {"file_path": "/etc/hosts"}, [{"kind": "read", "path": "/etc/hosts"}]),
        (
            "read_many_files",
            {"paths": ["a", "/b"]},
            [{"kind": "read", "path": "/p/a"}, {"kind": "read", "path": "/b"}],
        ),
        (
            "Grep",
            {"pattern": "ignore previous", "path": "src"},
            [{"kind": "search", "query": "ignore previous", "path": "/p/src"}],
        ),
        (
            "WebFetch",
            {"url": "https://x.test/a", "prompt": "summarise"},
            [{"kind": "fetch", "url": "https://x.test/a", "prompt": "summarise"}],
        ),
        (
            "google_web_search",
            {"query": "ChatML tokens"},
            [{"kind": "search", "query": "ChatML tokens", "path": None}],
        ),
        (
            "Task",
            {"prompt": "review it", "description": "review"},
            [
                {"kind": "prompt", "to": "agent", "text": "review it"},
                {"kind": "prompt", "to": "agent", "text": "review"},
            ],
        ),
        (
            "Skill",
            {"skill": "pdf", "args": "x.pdf"},
            [{"kind": "prompt", "to": "skill", "text": "x.pdf"}],
        ),
    ],
)
def test_each_hosts_tool(name, tool_input, expected):
    assert kinds(name, tool_input) == expected


def test_effects_name_their_tool_and_events_without_a_tool_have_none():
    assert effects("Bash", "shell", {"command": "ls"}, None)[0]["tool"] == "Bash"
    assert effects(None, None, None, None) == []
    assert effects("Bash", "shell", "not an object", "/p") == []


PATCH = """*** Begin Patch
*** Add File: .git/hooks/pre-commit
+#!/bin/sh
+exit 0
*** Update File: src/a.py
*** Move to: src/b.py
@@ def f():
-    return 1
+    return 2
*** Delete File: old.txt
*** End Patch"""


def test_apply_patch_every_operation():
    assert kinds("apply_patch", {"command": PATCH}) == [
        {
            "kind": "write",
            "path": "/p/.git/hooks/pre-commit",
            "content": "#!/bin/sh\nexit 0",
            "empty": False,
        },
        {
            "kind": "edit",
            "path": "/p/src/a.py",
            "old_text": "    return 1",
            "new_text": "    return 2",
        },
        {"kind": "move", "path": "/p/src/a.py", "to": "/p/src/b.py", "content": "    return 2"},
        {"kind": "delete", "path": "/p/old.txt"},
    ]


def test_apply_patch_inside_a_shell_command():
    command = "apply_patch <<'EOF'\n" + PATCH + "\nEOF"
    out = kinds("Bash", {"command": command})
    assert out[0] == {"kind": "run", "dialect": "sh", "command": command}
    assert [e["kind"] for e in out[1:]] == ["write", "edit", "move", "delete"]


def test_patch_parser_is_lenient_like_codex():
    ops = patch.parse("*** Begin Patch\n  *** Add File:  a b.txt \n+x\n")  # no End Patch
    assert ops == [{"op": "add", "path": "a b.txt", "lines": ["x"], "removed": [], "to": None}]
    assert patch.parse("no patch here") == []
    assert patch.parse("*** Begin Patch\n*** Move to: x\n*** End Patch") == []  # no Update


def test_mcp_arguments_are_read_by_what_they_hold():
    out = kinds(
        "mcp__fs__move_file",
        {"source": "~/.claude/settings.json", "destination": "/tmp/x"},
        kind="mcp",
    )
    assert {"kind": "move", "path": HOME + "/.claude/settings.json", "to": "/tmp/x"} in out
    out = kinds("mcp__srv__do", {"args": {"cmd": "rm -rf ~"}, "note": "hello"}, kind="mcp")
    assert {"kind": "run", "dialect": "sh", "command": "rm -rf ~"} in out
    assert {"kind": "prompt", "to": "mcp", "text": "hello"} in out
    out = kinds("mcp__srv__tool", {"text": "git push --force origin main"}, kind="mcp")
    assert {"kind": "run", "dialect": "sh", "command": "git push --force origin main"} in out
    out = kinds("mcp__fs__write_file", {"path": ".git/config", "content": "x"}, kind="mcp")
    assert {"kind": "write", "path": "/p/.git/config", "content": "x", "empty": False} in out
    out = kinds("mcp__fs__read_text_file", {"path": "/etc/passwd"}, kind="mcp")
    assert {"kind": "read", "path": "/etc/passwd"} in out
    out = kinds("mcp__web__fetch", {"url": "https://x.test/?k=1"}, kind="mcp")
    assert {"kind": "fetch", "url": "https://x.test/?k=1", "prompt": None} in out
    # A tool that does not say what it does with a path may change it.
    out = kinds("mcp__x__frobnicate", {"target": "/home/u/.bashrc"}, kind="mcp")
    assert {"kind": "write", "path": "/home/u/.bashrc", "content": "", "empty": True} in out


def test_mcp_arguments_are_bounded():
    huge = {f"k{i}": f"value {i}" for i in range(5000)}
    assert len(effects("mcp__a__b", "mcp", huge, "/p")) == 256


@pytest.mark.parametrize(
    ("cwd", "path", "expected"),
    [
        ("/p/q", "../x", "/p/x"),
        ("/p", "/etc/../etc/passwd", "/etc/passwd"),
        (None, "rel/a", "rel/a"),
        ("/p", "~/.bashrc", HOME + "/.bashrc"),
        ("/p", "$HOME/.bashrc", HOME + "/.bashrc"),
        ("/p", "//x", "/x"),
        ("C:\\proj", "sub\\a.txt", "C:/proj/sub/a.txt"),
        ("/p", "c:\\Users\\x\\.claude\\settings.json", "C:/Users/x/.claude/settings.json"),
        ("/p", "$env:USERPROFILE\\.gitconfig", HOME + "/.gitconfig"),
        ("/p", "%USERPROFILE%\\.gitconfig", HOME + "/.gitconfig"),
        ("/p", "${HOME}/.ssh/config", HOME + "/.ssh/config"),
        ("/p", "~", HOME),
        ("/p", "~user/x", "/p/~user/x"),
        ("/p", "$HOMER/x", "/p/$HOMER/x"),
        ("/p/q", "sub\\a.txt", "/p/q/sub\\a.txt"),
    ],
)
def test_resolve(cwd, path, expected):
    assert resolve(cwd, path) == expected


def test_the_input_document_carries_effects_for_every_sample_payload():
    for f in sorted(PAYLOADS.glob("*.json")):
        doc = normalize(json.loads(f.read_text())).document()
        assert isinstance(doc["effects"], list), f.name
        if doc["tool_kind"] == "shell":
            assert doc["effects"][0]["kind"] == "run", f.name
    codex = normalize(json.loads((PAYLOADS / "codex-pre-apply-patch.json").read_text()))
    assert codex.document()["effects"] == [
        {
            "kind": "edit",
            "path": "/home/u/proj/src/a.py",
            "old_text": "x = 1",
            "new_text": "x = 2",
            "tool": "apply_patch",
        }
    ]
