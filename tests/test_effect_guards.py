"""Every guard on every channel besides a host's own shell line: file tools, Codex apply_patch
(as a tool and inside a shell command), MCP tools and PowerShell (tests/data/effects/cases.json;
counts per channel in docs/reference/effects.md)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "data" / "effects" / "cases.json").read_text())
PACK_NAMES = {"no-verify", "force-push", "destructive", "self-protect", "xpia", "main-branch"}


@pytest.fixture(autouse=True)
def machine(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", "/home/u")
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))


def ids(case: dict) -> str:
    return f"{case['channel']}-{case['guard']}-{case['expect']}"


@pytest.mark.parametrize("case", CASES, ids=[ids(c) for c in CASES])
def test_case(engine, case):
    decision = engine.evaluate(case["payload"])
    assert not decision.errors
    assert decision.outcome == case["expect"], decision.reasons
    if case["expect"] in ("deny", "ask") and case["guard"] in PACK_NAMES:
        assert any(f"[pack={case['guard']}," in r for r in decision.reasons), decision.reasons


def test_every_channel_has_cases_for_every_guard_both_ways():
    seen = Counter((c["channel"], c["guard"]) for c in CASES)
    for channel in ("file-tool", "apply_patch", "mcp", "powershell"):
        guards = {g for (ch, g) in seen if ch == channel}
        assert {"destructive", "no-verify", "self-protect", "xpia"} <= guards, channel
        assert any(c["expect"] == "allow" for c in CASES if c["channel"] == channel), channel


def test_a_tree_delete_of_the_directory_git_runs_hooks_from(engine, tmp_path):
    """core.hooksPath names where git runs the hooks from: deleting that directory, or one that
    holds it, with everything under it switches them off, whatever its name; the same tree is
    everyday work once the configuration no longer names it."""
    import subprocess

    repo = tmp_path / "repo"
    (repo / "tools" / "hooks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "config", "core.hooksPath", "tools/hooks"], check=True)

    def outcome(tool: str, command: str) -> str:
        payload = {
            "hook_event_name": "PreToolUse",
            "cwd": str(repo),
            "tool_name": tool,
            "tool_input": {"command": command},
        }
        decision = engine.evaluate(payload)
        assert not decision.errors, decision.errors
        if decision.outcome == "deny":
            assert any("[pack=no-verify, pattern=hooks-dir-deleted" in r for r in decision.reasons)
        return decision.outcome

    for tool, command in [
        ("Bash", "rm -rf tools"),
        ("Bash", "rm -r tools/hooks/"),
        ("Bash", "npx rimraf ./tools"),
        ("PowerShell", "Remove-Item -Recurse -Force tools"),
    ]:
        assert outcome(tool, command) == "deny", command
    for command in ("rm -rf tools/other", "rm -rf build", "rm -rf tools/hooks-old"):
        assert outcome("Bash", command) == "allow", command
    subprocess.run(["git", "-C", str(repo), "config", "--unset", "core.hooksPath"], check=True)
    assert outcome("Bash", "rm -rf tools") == "allow"


def _entered(engine, payload: dict) -> tuple[set[str], object]:
    """The generated functions of the pack one decision enters, and the decision."""
    import sys

    names: set[str] = set()

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == "<hookgate policies>":
            names.add(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        decision = engine.evaluate(payload)
    finally:
        sys.setprofile(None)
    return names, decision


def _file_call(tool: str, tool_input: dict) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "cwd": "/home/u/proj",
        "session_id": "s",
        "tool_name": tool,
        "tool_input": tool_input,
    }


def test_a_file_tool_edit_runs_no_rule_it_cannot_concern(engine):
    """An edit by a file tool overwrites nothing in destructive's sense and changes no protected
    path nor makes an instruction file of text it does not show: destructive's rules,
    self-protect's deny and ask and the unknown-instructions rule are not run for it (their
    first tests are facts lang/relevance.py reads: an effect's op, tool or source, the kinds of
    self-protect's matches). A write outside the project, a truncate, an edit of a protected
    file and a link made an instruction file still run them and are stopped."""
    groups = {g.name: g for g in engine.policy_set._tree.groups}

    def defs(*names: str) -> set[str]:
        return {d.__name__ for n in names for d in groups[f"data.hookgate.{n}"].defs}

    skipped = defs(
        "destructive.violations",
        "destructive.deny",
        "destructive.ask",
        "self_protect.deny",
        "self_protect.ask",
        "xpia.unknown_instructions",
    )
    edit = {"file_path": "/home/u/proj/src/app.py", "old_string": "a = 1", "new_string": "a = 2"}
    entered, decision = _entered(engine, _file_call("Edit", edit))
    assert decision.outcome == "allow", decision.reasons
    assert not entered & skipped, sorted(entered & skipped)

    for payload, pack, outcome in (
        (_file_call("Write", {"file_path": "/etc/hosts", "content": ""}), "destructive", "deny"),
        (_file_call("Bash", {"command": "truncate -s 0 /etc/hosts"}), "destructive", "deny"),
        (
            _file_call("Edit", {**edit, "file_path": "/home/u/.claude/settings.json"}),
            "self-protect",
            "deny",
        ),
        (_file_call("Bash", {"command": "ln -sf /tmp/evil.md CLAUDE.md"}), "xpia", "ask"),
    ):
        entered, decision = _entered(engine, payload)
        assert decision.outcome == outcome, (payload, decision.reasons)
        assert any(f"[pack={pack}," in r for r in decision.reasons), decision.reasons
        assert entered & skipped
