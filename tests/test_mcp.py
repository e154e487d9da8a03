"""MCP tools by schema: the table of well-known servers (service/hookgate/data/mcp_tools.json),
each server's real tool names and argument shapes (from its own source, cited in the table) read
into effects, and the decision the default pack makes on them through each host's payload.

Tool names and arguments below are the servers' own; the payload envelopes are the real hosts'
(tests/data/hosts/real), with the host's MCP tool naming: Claude and Codex ``mcp__<server>__<tool>``,
Gemini ``mcp_<server>_<tool>`` with ``mcp_context``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate.effects import effects, mcp_table
from hookgate.hostio.normalize import normalize

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "tests" / "data" / "hosts" / "real"
TABLE = json.loads(Path(mcp_table.TABLE_PATH).read_text())
HOOKGATE = str(Path(sys.executable).parent / "hookgate")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """A project on main and one on a feature branch, each with a commit."""
    root = tmp_path_factory.mktemp("mcp")
    made = {}
    for name, branch in (("main", "main"), ("feature", "feat/login")):
        repo = root / name / "proj"
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", branch)
        git(
            repo,
            "-c",
            "user.email=a@b",
            "-c",
            "user.name=a",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "0",
        )
        made[name] = str(repo)
    return made


@pytest.fixture(autouse=True)
def machine(monkeypatch, tmp_path):
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))


def kinds(name: str, tool_input: dict, cwd: str = "/home/u/proj", server: str | None = None):
    """The effects of an MCP call, without the prompt effects and the tool name."""
    return [
        {k: v for k, v in e.items() if k != "tool"}
        for e in effects(name, "mcp", tool_input, cwd, server)
        if e["kind"] != "prompt"
    ]


# ---- the table itself -------------------------------------------------------------------------


def test_table_names_its_sources_and_servers_the_brief_asks_for():
    ids = {s["id"] for s in TABLE["servers"]}
    assert {"filesystem", "git", "github", "fetch", "memory", "everything", "jetbrains"} <= ids
    assert {"desktop-commander", "serena", "mcp-shell-server", "mcp-shell"} <= ids
    for server in TABLE["servers"]:
        assert server["source"] and server["version"], server["id"]
    # a shell server taking a command string and one taking an argument vector
    shells = [t for s in TABLE["servers"] for t in s["tools"].values() if t["effects"]]
    assert any(e["kind"] == "run" for t in shells for e in t["effects"])
    assert any(
        e["kind"] == "argv" and isinstance(e["argv"], str) for t in shells for e in t["effects"]
    )


def test_the_shipped_table_parses():
    index = mcp_table.parse(TABLE)
    assert "git_status" in index and "push_files" in index and "longrunningoperation" in index


@pytest.mark.parametrize(
    ("where", "change", "message"),
    [
        ("version", lambda d: d.update(version=2), "version must be 1"),
        (
            "args type",
            lambda d: d["servers"][1]["tools"]["git_status"]["args"].update(repo_path="str"),
            "servers[1].tools.git_status.args",
        ),
        (
            "required",
            lambda d: d["servers"][1]["tools"]["git_commit"]["required"].append("nope"),
            "servers[1].tools.git_commit.required",
        ),
        (
            "kind",
            lambda d: d["servers"][0]["tools"]["write_file"]["effects"][0].update(kind="scribble"),
            "servers[0].tools.write_file.effects[0].kind",
        ),
        (
            "argument",
            lambda d: d["servers"][0]["tools"]["write_file"]["effects"][0].update(content="body"),
            "servers[0].tools.write_file.effects[0].content",
        ),
        (
            "argv word",
            lambda d: d["servers"][1]["tools"]["git_commit"]["effects"][0]["argv"].append(
                {"arg": "msg"}
            ),
            "servers[1].tools.git_commit.effects[0].argv[2].arg",
        ),
        ("source", lambda d: d["servers"][2].pop("source"), "servers[2].source"),
        (
            "delete flag",
            lambda d: d["servers"][3]["tools"]["delete_branch"]["effects"][0].update(delete="yes"),
            "servers[3].tools.delete_branch.effects[0].delete must be true or false",
        ),
    ],
)
def test_a_bad_table_is_refused_naming_the_field(where, change, message):
    doc = copy.deepcopy(TABLE)
    change(doc)
    with pytest.raises(mcp_table.TableError, match=message.replace("[", r"\[").replace("]", r"\]")):
        mcp_table.parse(doc)


# ---- each server's real tools → effects -------------------------------------------------------

P = "/home/u/proj"

SERVER_CASES = [
    # modelcontextprotocol/servers git: every call names the repository; none writes it
    (
        "mcp__git__git_status",
        {"repo_path": P},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} status"}],
    ),
    (
        "mcp__git__git_diff",
        {"repo_path": P, "target": "main"},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} diff main"}],
    ),
    (
        "mcp__git__git_log",
        {"repo_path": P, "max_count": 5},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} log"}],
    ),
    (
        "mcp__git__git_add",
        {"repo_path": P, "files": ["a.py", "b c.py"]},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} add -- a.py 'b c.py'"}],
    ),
    (
        "mcp__git__git_commit",
        {"repo_path": P, "message": "fix: it's done"},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": f"git -C {P} commit -m 'fix: it'\"'\"'s done'",
            }
        ],
    ),
    (
        "mcp__git__git_create_branch",
        {"repo_path": P, "branch_name": "feat/x", "base_branch": None},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} branch feat/x"}],
    ),
    (
        "mcp__git__git_branch",
        {"repo_path": P, "branch_type": "remote", "contains": "abc123"},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} branch -r --contains abc123"}],
    ),
    # cyanheads/git-mcp-server: force, noVerify, amend, reset modes, clean
    (
        "mcp__git__git_push",
        {"path": P, "remote": "origin", "branch": "main", "force": True},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} push --force origin main"}],
    ),
    (
        "mcp__git__git_push",
        {"branch": "feat", "remoteBranch": "main", "forceWithLease": True},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": "git push --force-with-lease origin feat:main",
            }
        ],
    ),
    (
        "mcp__git__git_commit",
        {"path": ".", "message": "wip", "noVerify": True, "amend": True},
        [{"kind": "run", "dialect": "sh", "command": "git commit --amend --no-verify -m wip"}],
    ),
    (
        "mcp__git__git_reset",
        {"path": P, "mode": "hard", "target": "HEAD~2"},
        [{"kind": "run", "dialect": "sh", "command": f"git -C {P} reset --hard 'HEAD~2'"}],
    ),
    (
        "mcp__git__git_clean",
        {"force": True, "directories": True},
        [{"kind": "run", "dialect": "sh", "command": "git clean -f -d"}],
    ),
    (
        "mcp__git__git_checkout",
        {"target": "feat/y", "createBranch": True},
        [{"kind": "run", "dialect": "sh", "command": "git checkout -b feat/y"}],
    ),
    (
        "mcp__git__git_branch",
        {"operation": "rename", "name": "dev", "newName": "main", "force": True},
        [{"kind": "run", "dialect": "sh", "command": "git branch --move --force dev main"}],
    ),
    (
        "mcp__git__git_merge",
        {"path": P, "branch": "feat", "noFastForward": True, "message": "merge feat"},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": f"git -C {P} merge --no-ff -m 'merge feat' feat",
            }
        ],
    ),
    (
        "mcp__git__git_remote",
        {"mode": "set-url", "name": "origin", "url": "git@example.com:a/b.git", "push": True},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": "git remote set-url --push origin git@example.com:a/b.git",
            }
        ],
    ),
    # filesystem
    (
        "mcp__filesystem__write_file",
        {"path": "notes.md", "content": "x"},
        [{"kind": "write", "path": f"{P}/notes.md", "content": "x", "empty": False}],
    ),
    (
        "mcp__filesystem__edit_file",
        {
            "path": "a.py",
            "edits": [{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}],
        },
        [
            {"kind": "edit", "path": f"{P}/a.py", "old_text": "a", "new_text": "b"},
            {"kind": "edit", "path": f"{P}/a.py", "old_text": "c", "new_text": "d"},
        ],
    ),
    (
        "mcp__filesystem__edit_file",
        {"path": "a.py", "edits": [{"oldText": "a", "newText": "b"}], "dryRun": True},
        [],
    ),
    (
        "mcp__filesystem__move_file",
        {"source": "a", "destination": "/tmp/b"},
        [{"kind": "move", "path": f"{P}/a", "to": "/tmp/b"}],
    ),
    (
        "mcp__filesystem__read_multiple_files",
        {"paths": ["a", "/etc/hosts"]},
        [{"kind": "read", "path": f"{P}/a"}, {"kind": "read", "path": "/etc/hosts"}],
    ),
    (
        "mcp__filesystem__create_directory",
        {"path": "build/out"},
        [{"kind": "run", "dialect": "sh", "command": "mkdir -p -- build/out"}],
    ),
    ("mcp__filesystem__directory_tree", {"path": P}, [{"kind": "read", "path": P}]),
    # GitHub (github-mcp-server): commits on a named branch of a remote repository
    (
        "mcp__github__create_or_update_file",
        {
            "owner": "o",
            "repo": "r",
            "path": "README.md",
            "content": "x",
            "message": "m",
            "branch": "main",
        },
        [{"kind": "commit", "branch": "main", "repository": "o/r"}],
    ),
    (
        "mcp__github__push_files",
        {
            "owner": "o",
            "repo": "r",
            "branch": "feat",
            "files": [{"path": "a", "content": "b"}],
            "message": "m",
        },
        [{"kind": "commit", "branch": "feat", "repository": "o/r"}],
    ),
    (
        "mcp__github__delete_branch",
        {"owner": "o", "repo": "r", "branch": "main"},
        [{"kind": "push", "branch": "main", "repository": "o/r", "delete": True}],
    ),
    # a merge commits on the pull request's base branch, which the call does not name
    (
        "mcp__github__merge_pull_request",
        {"owner": "o", "repo": "r", "pullNumber": 7},
        [{"kind": "commit", "branch": None, "repository": "o/r"}],
    ),
    (
        "mcp__github__merge_pull_request",
        {"owner": "o", "repo": "r", "pull_number": 7},
        [{"kind": "commit", "branch": None, "repository": "o/r"}],
    ),  # the archived server's spelling
    (
        "mcp__git__git_cherry_pick",
        {"path": "/r", "commits": ["a1", "b2"], "signoff": True, "strategy": "ort"},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": "git -C /r cherry-pick --signoff --strategy ort a1 b2",
            }
        ],
    ),
    (
        "mcp__git__git_cherry_pick",
        {"path": "/r", "commits": ["a1"], "abort": True},
        [{"kind": "run", "dialect": "sh", "command": "git -C /r cherry-pick --abort"}],
    ),
    (
        "mcp__git__git_pull",
        {"path": "/r", "branch": "main", "rebase": True},
        [{"kind": "run", "dialect": "sh", "command": "git -C /r pull --rebase origin main"}],
    ),
    (
        "mcp__git__git_rebase",
        {"path": "/r", "upstream": "main", "onto": "v2", "interactive": True},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": "git -C /r rebase --interactive --onto v2 main",
            }
        ],
    ),
    (
        "mcp__git__git_rebase",
        {"path": "/r", "mode": "continue"},
        [{"kind": "run", "dialect": "sh", "command": "git -C /r rebase --continue"}],
    ),
    # fetch, memory, everything
    (
        "mcp__fetch__fetch",
        {"url": "https://example.com/a", "max_length": 5000},
        [{"kind": "fetch", "url": "https://example.com/a", "prompt": None}],
    ),
    ("mcp__memory__delete_entities", {"entityNames": ["/home/u/proj", "Alice"]}, []),
    (
        "mcp__memory__create_relations",
        {"relations": [{"from": "/tmp/a", "to": "/tmp/b", "relationType": "knows"}]},
        [],
    ),
    (
        "mcp__everything__zip",
        {"files": {"a.txt": "https://example.com/a.txt"}},
        [{"kind": "fetch", "url": "https://example.com/a.txt", "prompt": None}],
    ),
    # JetBrains: paths relative to the project the call names
    (
        "mcp__jetbrains__create_new_file",
        {"pathInProject": "src/a.kt", "text": "x", "projectPath": "/work/app"},
        [{"kind": "write", "path": "/work/app/src/a.kt", "content": "x", "empty": False}],
    ),
    (
        "mcp__jetbrains__replace_text_in_file",
        {"pathInProject": "b.kt", "oldText": "x", "newText": "y"},
        [{"kind": "edit", "path": f"{P}/b.kt", "old_text": "x", "new_text": "y"}],
    ),
    (
        "mcp__jetbrains__execute_terminal_command",
        {"command": "npm test", "projectPath": "/work/app"},
        [{"kind": "run", "dialect": "sh", "command": "cd -- /work/app && npm test"}],
    ),
    # Desktop Commander
    (
        "mcp__desktop-commander__write_file",
        {"path": "log.txt", "content": "x", "mode": "append"},
        [{"kind": "edit", "path": f"{P}/log.txt", "old_text": "", "new_text": "x"}],
    ),
    (
        "mcp__desktop-commander__start_process",
        {"command": "rm -rf ~", "timeout_ms": 1000},
        [{"kind": "run", "dialect": "sh", "command": "rm -rf ~"}],
    ),
    (
        "mcp__desktop-commander__edit_block",
        {"file_path": "a.py", "old_string": "a", "new_string": "b"},
        [{"kind": "edit", "path": f"{P}/a.py", "old_text": "a", "new_text": "b"}],
    ),
    (
        "mcp__desktop-commander__read_file",
        {"path": "https://example.com/x", "isUrl": True},
        [{"kind": "fetch", "url": "https://example.com/x", "prompt": None}],
    ),
    (
        "mcp__desktop-commander__start_process",
        {
            "command": "Get-ChildItem",
            "timeout_ms": 1000,
            "shell": "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
        },
        [{"kind": "run", "dialect": "powershell", "command": "Get-ChildItem"}],
    ),
    # Serena: paths relative to the project
    (
        "mcp__serena__create_text_file",
        {"relative_path": "src/x.py", "content": "y"},
        [{"kind": "write", "path": f"{P}/src/x.py", "content": "y", "empty": False}],
    ),
    (
        "mcp__serena__replace_content",
        {"relative_path": "x.py", "needle": "a", "repl": "b", "mode": "literal"},
        [{"kind": "edit", "path": f"{P}/x.py", "old_text": "a", "new_text": "b"}],
    ),
    (
        "mcp__serena__execute_shell_command",
        {"command": "pytest -q", "cwd": "tests"},
        [{"kind": "run", "dialect": "sh", "command": "cd -- tests && pytest -q"}],
    ),
    (
        "mcp__serena__write_memory",
        {"memory_file_name": "style", "content": "tabs"},
        [
            {
                "kind": "write",
                "path": f"{P}/.serena/memories/style.md",
                "content": "tabs",
                "empty": False,
            }
        ],
    ),
    # shell servers: a command string, and an argument vector (one argv, never split again)
    (
        "mcp__shell__shell_exec",
        {"command": "ls -la"},
        [{"kind": "run", "dialect": "sh", "command": "ls -la"}],
    ),
    (
        "mcp__shell__execute",
        {"command": ["git", "commit", "-m", "a b; rm -rf ~"], "directory": "/tmp"},
        [
            {
                "kind": "run",
                "dialect": "sh",
                "command": "cd -- /tmp && git commit -m 'a b; rm -rf ~'",
            }
        ],
    ),
    (
        "mcp__shell__execute",
        {"command": ["bash", "-c", "git push -f"]},
        [{"kind": "run", "dialect": "sh", "command": "git push -f"}],
    ),
    (
        "mcp__commands__run_process",
        {"mode": "executable", "argv": ["rm", "-rf", "/"]},
        [{"kind": "run", "dialect": "sh", "command": "rm -rf /"}],
    ),
    ("mcp__commands__run_process", {"mode": "shell", "command_line": "make", "dry_run": True}, []),
]


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    SERVER_CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(SERVER_CASES)],
)
def test_server_tool_effects(name, tool_input, expected):
    assert kinds(name, tool_input) == expected


def test_every_string_argument_of_a_table_tool_is_still_text_for_the_server():
    out = effects("mcp__git__git_commit", "mcp", {"repo_path": P, "message": "hello"}, P)
    assert {"kind": "prompt", "to": "mcp", "text": "hello", "tool": "mcp__git__git_commit"} in out


# ---- matching: names, shapes, hints ----------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "mcp__git__git_status",
        "mcp_git_git_status",
        "mcp__my-repo-tools__git_status",
        "MCP:git_status",
        "git__git_status",
        "mcp__plugin_x_git__git_status",
        "git_status",
    ],
)
def test_every_host_spelling_of_a_tool_name_matches(name):
    assert kinds(name, {"repo_path": P}) == [
        {"kind": "run", "dialect": "sh", "command": f"git -C {P} status"}
    ]


# Copilot CLI names an MCP tool <server-key>-<tool> (its config's key, then the tool), with no
# mcp prefix; none of its own tools has a hyphen. Payloads in Copilot's shape (toolName,
# toolArgs), judged end to end.
@pytest.mark.parametrize(
    ("tool", "args", "outcome"),
    [
        (
            "filesystem-write_file",
            {"path": "/home/u/proj/.git/hooks/pre-commit", "content": "exit 0\n"},
            "deny",
        ),
        ("github-mcp-server-push_files", {"owner": "o", "repo": "r", "branch": "main"}, None),
        (
            "git-git_diff",
            {"repo_path": "/home/u/proj", "target": "--output=.git/hooks/pre-push"},
            "deny",
        ),
        (
            "filesystem-write_file",
            {"path": "/home/u/proj/src/app.py", "content": "x = 1\n"},
            "allow",
        ),
        ("github-get_file_contents", {"owner": "o", "repo": "r", "path": "README.md"}, "allow"),
        ("git-git_diff", {"repo_path": "/home/u/proj", "target": "main"}, "allow"),
    ],
)
def test_copilot_names_an_mcp_tool_server_dash_tool(engine, tool, args, outcome):
    payload = {"sessionId": "s", "timestamp": 1, "cwd": "/home/u/proj", "toolName": tool}
    payload["toolArgs"] = args
    assert normalize(payload).tool_kind == "mcp"
    if outcome is not None:
        assert engine.evaluate(payload).outcome == outcome


def test_a_hyphen_makes_an_mcp_tool_on_copilot_only():
    assert normalize({"tool_name": "github-get_file_contents", "tool_input": {}}).host == "claude"
    assert normalize({"tool_name": "github-get_file_contents", "tool_input": {}}).tool_kind == (
        "other"
    )
    for own in ("bash", "view", "str_replace_editor", "apply_patch", "report_intent"):
        payload = {"sessionId": "s", "timestamp": 1, "toolName": own, "toolArgs": {}}
        assert normalize(payload).tool_kind != "mcp", own


def test_the_server_name_breaks_ties_and_is_never_required():
    call = {"path": "/home/u/x"}
    # filesystem and Desktop Commander both have read_file(path): either way a read
    assert (
        mcp_table.match("mcp__desktop-commander__read_file", call, None).server
        == "desktop-commander"
    )
    assert mcp_table.match("mcp__fs__read_file", call, None).server == "filesystem"
    assert (
        mcp_table.match("mcp__anything__read_file", call, "desktop-commander").server
        == "desktop-commander"
    )
    # Serena's read_file takes relative_path: the shape decides whatever the server is called
    assert (
        mcp_table.match("mcp__filesystem__read_file", {"relative_path": "a"}, None).server
        == "serena"
    )


def test_a_call_without_a_required_argument_is_an_unknown_tool():
    assert mcp_table.match("mcp__git__git_commit", {"repo_path": P}, None) is None
    assert mcp_table.match("mcp__shell__execute", {"directory": P}, None) is None


def test_an_extra_argument_does_not_hide_a_table_tool():
    # pydantic and zod drop arguments a tool does not take and run the call: a commit with a
    # made-up argument is still a commit (on main: denied), not an unknown tool naming the repo
    call = {"repo_path": P, "message": "x", "sneaky": True}
    assert kinds("mcp__git__git_commit", call) == [
        {"kind": "run", "dialect": "sh", "command": f"git -C {P} commit -m x"}
    ]
    # of two tools of one name, the one that takes more of the call's arguments
    assert (
        mcp_table.match(
            "mcp__x__git_commit", {"path": P, "message": "m", "noVerify": True}, None
        ).server
        == "cyanheads-git"
    )
    assert (
        mcp_table.match("mcp__x__git_commit", {"repo_path": P, "message": "m"}, None).server
        == "git"
    )


def test_tools_that_fit_a_call_alike_are_each_the_call(engine):
    """repo_path is the reference server's, noVerify cyanheads': the call fits both as well, and
    hookgate cannot tell which server gets it, so it is judged as both (a commit that may skip
    the hooks). The server name still decides when it names one of them."""
    call = {"repo_path": P, "message": "m", "noVerify": True}
    tied = mcp_table.matches("mcp__x__git_commit", call, None)
    assert [t.server for t in tied] == ["git", "cyanheads-git"]
    assert kinds("mcp__x__git_commit", call) == [
        {"kind": "run", "dialect": "sh", "command": f"git -C {P} commit -m m"},
        {"kind": "run", "dialect": "sh", "command": "git commit --no-verify -m m"},
    ]
    assert [t.server for t in mcp_table.matches("mcp__x__git_commit", call, "git-mcp-server")] == [
        "cyanheads-git"
    ]
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__git__git_commit",
        "tool_input": call,
        "cwd": P,
    }
    decision = engine.evaluate(payload, host="claude")
    assert decision.outcome == "deny" and any("no-verify" in m["pattern"] for m in decision.matches)


@pytest.mark.parametrize("value", [True, "true", "True", "1", 1, "yes", "on"])
def test_a_flag_is_set_as_the_servers_read_it(value):
    out = kinds("mcp__git__git_push", {"path": P, "branch": "feat", "force": value})
    assert out == [
        {"kind": "run", "dialect": "sh", "command": f"git -C {P} push --force origin feat"}
    ]


@pytest.mark.parametrize("value", [False, "false", "0", 0, None, "no"])
def test_a_flag_that_is_not_set(value):
    out = kinds(
        "mcp__filesystem__edit_file",
        {"path": "a", "edits": [{"oldText": "x", "newText": "y"}], "dryRun": value},
    )
    assert out == [{"kind": "edit", "path": f"{P}/a", "old_text": "x", "new_text": "y"}]


def test_naming_the_repository_is_not_writing_it_for_unknown_tools_either():
    # an unknown tool given only the project (or a parent of it): read, not written
    assert kinds("mcp__vcs__snapshot", {"workspace": P}) == [{"kind": "read", "path": P}]
    assert kinds("mcp__vcs__index", {"root_path": "/home/u"}) == [
        {"kind": "read", "path": "/home/u"}
    ]
    # a path inside it keeps today's reading (written when the name does not say), and a tool
    # that says it deletes or moves keeps its verb on the project itself
    assert kinds("mcp__vcs__stamp", {"file_path": "VERSION"})[0]["kind"] == "write"
    assert kinds("mcp__vcs__delete_tree", {"path": P}) == [{"kind": "delete", "path": P}]
    assert kinds("mcp__vcs__sync", {"path": P, "command": "git push -f"}) == [
        {"kind": "read", "path": P},
        {"kind": "run", "dialect": "sh", "command": "git push -f"},
    ]


def test_payload_server_fields_are_hints(engine):
    hook = {
        "hook_event_name": "PreToolUse",
        "cwd": P,
        "tool_name": "mcp__x__read_file",
        "tool_input": {"path": "a"},
        "mcp_server": "desktop-commander",
    }
    from hookgate.hostio.normalize import normalize

    doc = normalize(hook).document()
    assert [e["kind"] for e in doc["effects"]][:1] == ["read"]
    gemini = {
        "hook_event_name": "BeforeTool",
        "cwd": P,
        "tool_name": "mcp_x_read_file",
        "tool_input": {"path": "a"},
        "mcp_context": {"server_name": "desktop-commander"},
    }
    assert normalize(gemini).document()["effects"][0]["kind"] == "read"


# ---- decisions through each host's real payload envelope -------------------------------------


def envelope(host: str, server: str, tool: str, tool_input: dict, cwd: str) -> dict:
    """A real captured PreToolUse payload of ``host`` with an MCP call in its naming."""
    files = {
        "claude": "claude-2.1.332/claude-c-1-PreToolUse.json",
        "codex": "codex-0.171.0/codex-c-1-PreToolUse.json",
        "gemini": "gemini-0.61.0/gemini-c-1-BeforeTool.json",
    }
    payload = json.loads((REAL / files[host]).read_text())
    payload["cwd"] = cwd
    payload["tool_input"] = tool_input
    if host == "gemini":
        payload["tool_name"] = f"mcp_{server}_{tool}"
        payload["mcp_context"] = {"server_name": server, "tool_name": tool}
    else:
        payload["tool_name"] = f"mcp__{server}__{tool}"
    return payload


HOSTS = ["claude", "codex", "gemini"]

# (server, tool, arguments with {main}/{feature} for the repositories, expected, guard pattern)
DECISIONS = [
    ("git", "git_status", {"repo_path": "{main}"}, "allow", None),
    ("git", "git_log", {"repo_path": "{main}", "max_count": 3}, "allow", None),
    ("git", "git_diff_staged", {"repo_path": "{main}"}, "allow", None),
    ("git", "git_add", {"repo_path": "{feature}", "files": ["src/app.py"]}, "allow", None),
    (
        "git",
        "git_create_branch",
        {"repo_path": "{main}", "branch_name": "feat/parser"},
        "allow",
        None,
    ),
    ("git", "git_commit", {"repo_path": "{feature}", "message": "feat: parser"}, "allow", None),
    (
        "git",
        "git_commit",
        {"repo_path": "{main}", "message": "straight to main"},
        "deny",
        "commit-on-protected-branch",
    ),
    (
        "git",
        "git_commit",
        {"path": "{feature}", "message": "skip checks", "noVerify": True},
        "deny",
        "git-no-verify",
    ),
    (
        "git",
        "git_push",
        {"path": "{feature}", "branch": "feat/login", "force": True},
        "deny",
        "force-push",
    ),
    (
        "git",
        "git_push",
        {"path": "{feature}", "branch": "feat/login", "forceWithLease": True},
        "deny",
        "force-push",
    ),
    (
        "git",
        "git_push",
        {"path": "{feature}", "branch": "feat/login", "setUpstream": True},
        "allow",
        None,
    ),
    (
        "github",
        "create_or_update_file",
        {
            "owner": "o",
            "repo": "r",
            "path": "a.md",
            "content": "x",
            "message": "m",
            "branch": "main",
        },
        "deny",
        "commit-on-protected-branch",
    ),
    (
        "github",
        "push_files",
        {
            "owner": "o",
            "repo": "r",
            "branch": "feat/a",
            "files": [{"path": "a", "content": "b"}],
            "message": "m",
        },
        "allow",
        None,
    ),
    (
        "github",
        "delete_branch",
        {"owner": "o", "repo": "r", "branch": "master"},
        "deny",
        "delete-protected-branch",
    ),
    (
        "filesystem",
        "write_file",
        {"path": "{feature}/.claude/settings.json", "content": "{}"},
        "deny",
        None,
    ),
    (
        "filesystem",
        "write_file",
        {"path": "{feature}/src/new.py", "content": "print(1)\n"},
        "allow",
        None,
    ),
    (
        "filesystem",
        "move_file",
        {"source": "{feature}", "destination": "/tmp/gone"},
        "deny",
        "delete-path",  # the project moved away: deleted where it was
    ),
    ("shell", "execute", {"command": ["rm", "-rf", "{feature}"]}, "deny", None),
    ("shell", "execute", {"command": ["pytest", "-q"], "directory": "{feature}"}, "allow", None),
    (
        "jetbrains",
        "execute_terminal_command",
        {"command": "git commit --no-verify -m x", "projectPath": "{feature}"},
        "deny",
        "git-no-verify",
    ),
    ("serena", "execute_shell_command", {"command": "git status"}, "allow", None),
]


def fill(value, repos):
    if isinstance(value, str):
        return value.replace("{main}", repos["main"]).replace("{feature}", repos["feature"])
    if isinstance(value, list):
        return [fill(v, repos) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, repos) for k, v in value.items()}
    return value


@pytest.mark.parametrize("host", HOSTS)
@pytest.mark.parametrize(
    "row", DECISIONS, ids=[f"{r[1]}-{r[3]}-{i}" for i, r in enumerate(DECISIONS)]
)
def test_decision_through_the_hosts_payload(engine, repos, host, row):
    server, tool, args, expected, pattern = row
    payload = envelope(host, server, tool, fill(args, repos), repos["feature"])
    decision = engine.evaluate(payload)
    assert not [e for e in decision.errors if e.get("kind") == "fault"], decision.errors
    assert decision.outcome == expected, decision.reasons
    if pattern:
        assert any(pattern in r for r in decision.reasons), decision.reasons


def test_the_hook_answers_each_host_in_its_own_shape(repos, tmp_path):
    """The installed console script, on real envelopes: a git_status allowed, a forced push
    denied in each host's answer format."""
    env = dict(
        os.environ, HOOKGATE_HOME=str(tmp_path / "h"), HOOKGATE_TELEMETRY=str(tmp_path / "t")
    )
    env.pop("HOOKGATE_FAILURE_POLICY", None)
    for host in HOSTS:
        status = envelope(host, "git", "git_status", {"repo_path": repos["main"]}, repos["main"])
        push = envelope(
            host, "git", "git_push", {"path": repos["feature"], "force": True}, repos["feature"]
        )
        answers = []
        for payload in (status, push):
            out = subprocess.run(
                [HOOKGATE, "eval"],
                input=json.dumps(payload).encode(),
                capture_output=True,
                env=env,
                timeout=60,
            )
            assert out.returncode == 0, out.stderr
            answers.append(json.loads(out.stdout) if out.stdout.strip() else {})
        if host == "gemini":
            assert answers[0].get("decision", "allow") == "allow", answers
            assert answers[1]["decision"] == "deny", answers
        else:
            assert (
                answers[0].get("hookSpecificOutput", {}).get("permissionDecision", "allow")
                == "allow"
            ), answers
            assert answers[1]["hookSpecificOutput"]["permissionDecision"] == "deny", answers


def test_a_double_underscore_name_is_an_mcp_tool_whatever_the_host_called_its_kind():
    out = effects("git__git_status", "other", {"repo_path": P}, P)
    assert out[0] == {
        "kind": "run",
        "dialect": "sh",
        "command": f"git -C {P} status",
        "tool": "git__git_status",
    }


@pytest.mark.parametrize(
    ("name", "tool_input"),
    [
        ("mcp__git__git_commit", {"repo_path": "/home/u/proj", "message": "fix: parser"}),
        ("mcp__notes__archive", {"repo": "/home/u/proj"}),
    ],
)
def test_the_examples_in_docs_effects_are_what_the_code_gives(name, tool_input):
    text = (ROOT / "docs" / "reference" / "effects.md").read_text()
    blocks = [json.loads(b.split("```")[0]) for b in text.split("```json\n")[1:]]
    assert effects(name, "mcp", tool_input, "/home/u/proj") in blocks


def test_a_payload_naming_an_mcp_server_is_an_mcp_call_under_a_bare_tool_name():
    # Gemini shows an MCP tool by its bare name when no other tool has it; mcp_context names
    # the server. Serena's read_file is not Gemini's own read_file(file_path).
    out = effects("read_file", "read", {"relative_path": "src/a.py"}, P, "serena")
    assert out[0] == {"kind": "read", "path": f"{P}/src/a.py", "tool": "read_file"}
    assert (
        effects("execute_shell_command", "other", {"command": "git push -f"}, P, "serena")[0][
            "kind"
        ]
        == "run"
    )


def test_an_empty_server_field_leaves_a_host_tool_alone():
    out = effects("Write", "edit", {"file_path": "/home/u/.bashrc", "content": ""}, P, "")
    assert out == [
        {"kind": "write", "path": "/home/u/.bashrc", "content": "", "empty": True, "tool": "Write"}
    ]
