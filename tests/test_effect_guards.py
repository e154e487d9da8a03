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
