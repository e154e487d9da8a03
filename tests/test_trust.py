"""Whether the hosts will run the hooks hookgate installed: Codex's hook trust, Copilot's trusted
folders, Claude's events (`hookgate doctor`, `hookgate install`, `install --trust`). What the real
hosts do with each setup: tests/hosts/test_host_setup.py."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
from sync_helpers import run_hookgate

from hookgate.integrations import trust

# Codex 0.171.0's own `hooks/list` (app-server) for this hooks.json entry: currentHash.
CODEX_COMMAND = "/work/wt/i18/.venv/bin/hookgate eval --host codex"
CODEX_PRE_HASH = "sha256:b9c4b64966df7790d6c2a1e482774b5d1f3db66559e4a84a58a9943741453317"
CODEX_POST_HASH = "sha256:d69c1ab376523cb91089c0a203018c8d8e13335bb73e1e8dbfb7ba60e18cf4c9"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "user"
    path.mkdir()
    return path


def test_codex_hook_hash_is_the_one_codex_computes() -> None:
    handler = {"type": "command", "command": CODEX_COMMAND, "timeout": 30}
    assert trust.codex_hook_hash("pre_tool_use", "*", handler) == CODEX_PRE_HASH
    assert trust.codex_hook_hash("post_tool_use", "*", handler) == CODEX_POST_HASH
    # Whatever changes what runs changes the hash (so a trusted entry edited later is caught).
    assert trust.codex_hook_hash("pre_tool_use", "*", {**handler, "timeout": 31}) != CODEX_PRE_HASH
    assert trust.codex_hook_hash("pre_tool_use", None, handler) != CODEX_PRE_HASH


def test_doctor_on_an_unprotected_codex_says_what_to_do_and_trust_fixes_it(home: Path) -> None:
    assert run_hookgate(home, "install", "codex", "--no-trust").returncode == 0
    result = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert result.returncode == 1
    hooks_json = home / ".codex" / "hooks.json"
    assert result.stdout.count("PROBLEM: codex (user): Codex will not run hookgate") == 2
    assert f"{hooks_json}:pre_tool_use:0:0 is not trusted" in result.stdout
    assert "hookgate install codex --scope user --trust" in result.stdout

    installed = run_hookgate(home, "install", "codex", "--trust")
    assert installed.returncode == 0 and "NOT PROTECTED" not in installed.stdout
    states = tomllib.loads((home / ".codex" / "config.toml").read_text())["hooks"]["state"]
    assert set(states) == {f"{hooks_json}:pre_tool_use:0:0", f"{hooks_json}:post_tool_use:0:0"}
    result = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert "codex" in result.stdout and "PROBLEM" not in result.stdout, result.stdout

    # The hook edited after it was trusted: Codex would skip it again.
    hooks_json.write_text(hooks_json.read_text().replace('"timeout": 30', '"timeout": 9'))
    result = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert "changed since it was trusted" in result.stdout


def test_installing_codex_at_user_scope_trusts_the_hook_and_no_trust_opts_out(
    home: Path,
) -> None:
    # Installing is the user's own act: without trust Codex would skip the hook without a word.
    installed = run_hookgate(home, "install", "codex")
    assert installed.returncode == 0 and "NOT PROTECTED" not in installed.stdout
    assert "trusted hookgate's Codex hooks" in installed.stdout
    hooks_json = home / ".codex" / "hooks.json"
    config = tomllib.loads((home / ".codex" / "config.toml").read_text())
    for key, current in trust.codex_entries(hooks_json):
        assert config["hooks"]["state"][key]["trusted_hash"] == current
    doctor = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert "codex (user)" in doctor.stdout and "PROBLEM" not in doctor.stdout, doctor.stdout

    other = home / "other"
    other.mkdir()
    untrusted = run_hookgate(other, "install", "codex", "--no-trust")
    assert untrusted.returncode == 0
    assert not (other / ".codex" / "config.toml").exists()
    assert untrusted.stdout.count("NOT PROTECTED YET: Codex will not run hookgate") == 2
    # A project's hooks are the project's: installing them there trusts nothing by default.
    project = home / "project"
    project.mkdir()
    args = ("install", "codex", "--scope", "project", "--project-dir", str(project))
    before = (home / ".codex" / "config.toml").read_text()
    assert run_hookgate(home, *args).returncode == 0
    assert (home / ".codex" / "config.toml").read_text() == before


def test_codex_trust_keeps_the_rest_of_config_toml(home: Path) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "x"\n\n[projects."/p"]\ntrust_level = "trusted"\n')
    assert run_hookgate(home, "install", "codex", "--trust").returncode == 0
    assert run_hookgate(home, "install", "codex", "--trust").returncode == 0  # idempotent
    value = tomllib.loads(config.read_text())
    assert value["model"] == "x" and value["projects"] == {"/p": {"trust_level": "trusted"}}
    assert len(value["hooks"]["state"]) == 2


def test_codex_trust_edits_only_the_trust_key_and_never_enables_a_disabled_hook(
    home: Path,
) -> None:
    assert run_hookgate(home, "install", "codex").returncode == 0
    pre = f"{home / '.codex' / 'hooks.json'}:pre_tool_use:0:0"
    config = home / ".codex" / "config.toml"
    # As a user (or Codex's /hooks) leaves it: the hook switched off, a stale hash, a comment;
    # the header quoted with single quotes, as TOML allows.
    config.write_text(
        f"model = \"x\"\n\n[hooks.state.'{pre}']\n# off while I debug\nenabled = false\n"
        'trusted_hash = "sha256:old"\n\n[projects."/p"]\ntrust_level = "trusted"\n'
    )
    installed = run_hookgate(home, "install", "codex", "--trust")
    assert installed.returncode == 0, installed.stderr
    text = config.read_text()
    value = tomllib.loads(text)
    state = value["hooks"]["state"][pre]
    assert state["enabled"] is False and state["trusted_hash"].startswith("sha256:")
    assert state["trusted_hash"] != "sha256:old" and "# off while I debug" in text
    assert value["model"] == "x" and value["projects"] == {"/p": {"trust_level": "trusted"}}
    assert len(value["hooks"]["state"]) == 2
    result = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert f"Codex has the hook {pre} disabled" in result.stdout
    assert "is not trusted" not in result.stdout and "changed since" not in result.stdout


def test_install_says_when_a_copilot_project_is_not_trusted(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    args = ("install", "copilot", "--scope", "project", "--project-dir", str(project))
    installed = run_hookgate(home, *args)
    assert installed.returncode == 0
    assert (
        f"NOT PROTECTED YET: Copilot CLI loads {project}/.github/hooks/hookgate.json only in a trusted folder"
        in installed.stdout
    )
    result = run_hookgate(home, "doctor", "--project-dir", str(project), "--timeout", "0.1")
    assert "PROBLEM: copilot (project)" in result.stdout and "--trust" in result.stdout

    assert run_hookgate(home, *args, "--trust").returncode == 0
    config = json.loads((home / ".copilot" / "config.json").read_text())
    assert config["trustedFolders"] == [str(project)]
    # The project's command runs hookgate from PATH: this developer has it there.
    on_path = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
    result = run_hookgate(
        home, "doctor", "--project-dir", str(project), "--timeout", "0.1", PATH=on_path
    )
    assert "PROBLEM" not in result.stdout, result.stdout


def test_doctor_names_claude_events_the_hook_misses(home: Path) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    command = f"{home}/venv/bin/hookgate eval --host claude"
    hook = {"matcher": "*", "hooks": [{"type": "command", "command": command}]}
    # What an older hookgate installed: no PostToolUseFailure.
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [hook], "PostToolUse": [hook]}}))
    result = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert "does not call hookgate on PostToolUseFailure" in result.stdout
