"""Issue 31 part 8: the worked examples under ``examples/`` are tested policies, layered over the
built-in pack, and docs/guides/examples.md shows each one's files verbatim (docs and code cannot drift).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from sync_helpers import run_hookgate

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DOC = ROOT / "docs" / "guides" / "examples.md"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())


def hookgate(tmp_path: Path, *argv: str, stdin: str = ""):
    return run_hookgate(tmp_path / "home", *argv, stdin=stdin)


def test_the_examples_the_issue_asks_for_are_there():
    assert NAMES == [
        "block_writes",
        "issue_key",
        "mcp_allowlist",
        "release_branches",
        "remote_scope",
        "team_override",
    ]


@pytest.mark.parametrize("name", NAMES)
def test_each_example_passes_its_tests_over_the_built_in_pack(tmp_path, name):
    test = hookgate(tmp_path, "test", "-v", str(EXAMPLES / name))
    assert test.returncode == 0, test.stdout + test.stderr
    passed = re.search(r"PASS: (\d+)/(\d+)", test.stdout)
    assert passed and passed.group(1) == passed.group(2) and int(passed.group(1)) >= 2
    check = hookgate(tmp_path, "check", str(EXAMPLES / name))
    assert check.returncode == 0, check.stdout + check.stderr
    # The tests depend on the example's data: without it they fail (they assert something).
    bare = tmp_path / name
    shutil.copytree(EXAMPLES / name, bare, ignore=shutil.ignore_patterns("data.json"))
    assert hookgate(tmp_path, "test", str(bare)).returncode == 1


def _payload(tool: str, tool_input: dict, cwd: str) -> str:
    return json.dumps(
        {
            "session_id": "s",
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
        }
    )


@pytest.mark.parametrize(
    ("name", "tool", "tool_input", "expected"),
    [
        ("block_writes", "Write", {"file_path": "infra/prod/main.tf", "content": "x"}, "deny"),
        ("block_writes", "Write", {"file_path": "src/app.py", "content": "x"}, "allow"),
        ("block_writes", "Bash", {"command": "echo x > infra/prod/main.tf"}, "deny"),
        ("issue_key", "Bash", {"command": "git commit -m 'fix the login'"}, "deny"),
        ("issue_key", "Bash", {"command": "git commit -m 'PAY-9 fix the login'"}, "allow"),
        ("mcp_allowlist", "mcp__slack__post_message", {"text": "hi"}, "deny"),
        ("mcp_allowlist", "mcp__github__get_issue", {"number": 1}, "allow"),
        ("team_override", "Bash", {"command": "git push -f origin feature"}, "deny"),
    ],
)
def test_examples_decide_real_host_payloads_through_the_hook(
    tmp_path, name, tool, tool_input, expected
):
    # The guards read the input document the hook builds (tool_kind, effects, commands) from a
    # host's own payload, not only the shapes their tests write by hand.
    proc = hookgate(
        tmp_path,
        "eval",
        "--host",
        "claude",
        "--policies",
        str(EXAMPLES / name),
        stdin=_payload(tool, tool_input, str(tmp_path)),
    )
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout or "{}").get("hookSpecificOutput", {})
    assert answer.get("permissionDecision", "allow") == expected, answer
    if expected == "deny" and name != "team_override":
        assert "pack=" + name.replace("_", "-") in answer["permissionDecisionReason"]


def test_the_docs_show_every_example_file_verbatim():
    doc = DOC.read_text()
    shown = set(re.findall(r"^`(examples/[^`]+)`:$", doc, re.MULTILINE))
    files = {p.relative_to(ROOT).as_posix() for p in EXAMPLES.rglob("*") if p.is_file()}
    assert shown == files
    for relative in files:
        text = (ROOT / relative).read_text()
        lang = "rego" if relative.endswith(".rego") else "json"
        block = f"`{relative}`:\n\n```{lang}\n{text.rstrip(chr(10))}\n```\n"
        assert block in doc, f"docs/guides/examples.md does not show {relative} as it is"


def test_the_readme_links_the_examples():
    assert "(docs/guides/examples.md)" in (ROOT / "README.md").read_text()
