"""Self-protection end to end: every file `hookgate install` writes, hookgate's own directories
wherever its configuration puts them, through every host's tools (issue 15 part 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.integrations import hostconfig

POLICIES = Path(__file__).resolve().parent.parent / "policies"


@pytest.fixture(scope="module")
def pack():
    return Engine.from_paths([str(POLICIES)])


@pytest.fixture
def engine(pack, tmp_path, monkeypatch):
    """The pack, on a machine whose home and hookgate directories are under tmp_path
    (hookgate.paths() reads the environment on every call)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "moved-hookgate"))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(var, raising=False)
    return pack


def write_call(path: str, cwd: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": "{}"},
        "cwd": cwd,
    }


def shell_call(command: str, cwd: str) -> dict:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": cwd,
    }


@pytest.mark.parametrize("host", hostconfig.HOSTS)
@pytest.mark.parametrize("scope", ["user", "project"])
def test_every_file_install_writes_is_protected(engine, tmp_path, host, scope):
    project = tmp_path / "proj"
    path = str(hostconfig.config_path(host, scope, project))
    decision = engine.evaluate(write_call(path, str(project)))
    assert decision.outcome == "deny", path
    assert any("pack=self-protect" in r for r in decision.reasons)
    assert engine.evaluate(shell_call(f"rm -f '{path}'", str(project))).outcome == "deny"
    read = {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": path}}
    assert engine.evaluate(read).outcome == "allow"


def test_a_moved_host_home_is_protected(engine, tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-elsewhere"))
    path = str(hostconfig.config_path("codex", "user"))
    assert path.startswith(str(tmp_path / "codex-elsewhere"))
    assert engine.evaluate(write_call(path, str(tmp_path))).outcome == "deny"


def test_hookgates_own_directories_are_protected_where_its_configuration_puts_them(
    engine, tmp_path
):
    moved = tmp_path / "moved-hookgate"
    for sub in ("config/login.json", "state/telemetry.jsonl", "cache/bundle.json"):
        call = shell_call(f": > {moved / sub}", str(tmp_path))
        assert engine.evaluate(call).outcome == "deny", sub
    patch = {
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "turn_id": "t",
        "tool_input": {
            "command": f"*** Begin Patch\n*** Delete File: {moved}/cache/bundle.json\n*** End Patch"
        },
        "cwd": str(tmp_path),
    }
    assert engine.evaluate(patch).outcome == "deny"
    # the default location is not protected when the configuration moved it
    default_cache = tmp_path / "home" / ".cache" / "hookgate" / "x"
    assert engine.evaluate(shell_call(f": > {default_cache}", str(tmp_path))).outcome == "allow"


def test_mcp_and_powershell_hosts_tools(engine, tmp_path):
    mcp = {
        "hook_event_name": "PreToolUse",
        "tool_name": "mcp__filesystem__move_file",
        "tool_input": {"source": str(tmp_path / "proj/.git/hooks"), "destination": "/tmp/h"},
        "cwd": str(tmp_path / "proj"),
    }
    assert engine.evaluate(mcp).outcome == "deny"
    gemini = {
        "hook_event_name": "BeforeTool",
        "tool_name": "replace",
        "tool_input": {"file_path": "/r/.git/config", "old_string": "[core]", "new_string": "x"},
        "cwd": "/r",
    }
    assert engine.evaluate(gemini).outcome == "deny"
    copilot = {
        "toolName": "create",
        "toolArgs": json.dumps({"path": "C:\\Users\\x\\.claude\\settings.json", "file_text": ""}),
    }
    assert engine.evaluate(copilot).outcome == "deny"


def test_two_changes_of_one_protected_file_are_denied_without_a_fault(engine, tmp_path):
    """chmod then cp of one settings file: two reasons, not a failed pack (which the failure
    policy would let through)."""
    settings = tmp_path / "home" / ".claude" / "settings.json"
    line = f"chmod 600 {settings}; cp /tmp/x {settings}"
    decision = engine.evaluate(shell_call(line, str(tmp_path / "proj")))
    assert decision.outcome == "deny" and decision.errors == []
    assert sum("pack=self-protect" in r for r in decision.reasons) == 2


def test_the_protected_paths_follow_the_environment_between_calls(engine, tmp_path, monkeypatch):
    """The protected set is computed once per environment, not once per process: moving
    hookgate's directories between two calls of one engine moves the protection."""
    first, second = tmp_path / "first", tmp_path / "second"
    cwd = str(tmp_path / "proj")
    monkeypatch.setenv("HOOKGATE_HOME", str(first))
    assert engine.evaluate(write_call(f"{first}/config/x.json", cwd)).outcome == "deny"
    monkeypatch.setenv("HOOKGATE_HOME", str(second))
    assert engine.evaluate(write_call(f"{first}/config/x.json", cwd)).outcome == "allow"
    assert engine.evaluate(write_call(f"{second}/config/x.json", cwd)).outcome == "deny"
    monkeypatch.setenv("CODEX_HOME", str(first / "codex"))
    assert engine.evaluate(write_call(f"{first}/codex/hooks.json", cwd)).outcome == "deny"


def test_the_program_is_the_installed_package_not_a_source_checkout(monkeypatch):
    from hookgate import paths
    from hookgate.builtins import hookgate as hookgate_builtins

    installed = "/opt/venv/lib/python3.11/site-packages/hookgate"
    monkeypatch.setattr(paths, "__file__", installed + "/paths.py")
    assert hookgate_builtins._installed_program() == installed
    monkeypatch.setattr(paths, "__file__", "/home/u/src/hookgate/service/hookgate/paths.py")
    assert hookgate_builtins._installed_program() is None
