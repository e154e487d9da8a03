"""`hookgate install` / `uninstall` round trips on realistic copies of each host's settings."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate import cli
from hookgate.integrations import hostconfig, jsonc

DATA = Path(__file__).parent / "data" / "hostconfigs"
EXE = str(Path(sys.executable).parent / "hookgate")

# (host, scope, sample file, where it lives relative to HOME or the project)
CASES = [
    ("claude", "user", "claude-settings.json", ".claude/settings.json"),
    ("claude", "project", "claude-settings-jsonc.json", ".claude/settings.json"),
    ("codex", "user", "codex-hooks.json", ".codex/hooks.json"),
    ("copilot", "project", "copilot-hookgate.json", ".github/hooks/hookgate.json"),
    ("cursor", "user", "cursor-hooks.json", ".cursor/hooks.json"),
    ("gemini", "user", "gemini-settings.json", ".gemini/settings.json"),
]


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOOKGATE_HOME", str(tmp_path / "hookgate"))
    return home


def hookgate(*argv: str) -> int:
    return cli.main(list(argv))


def target(home: Path, scope: str, relative: str) -> Path:
    return (home if scope == "user" else home / "project") / relative


def scope_args(home: Path, scope: str) -> list[str]:
    return (
        ["--scope", "project", "--project-dir", str(home / "project")] if scope == "project" else []
    )


def without_hookgate(value: dict, spec: hostconfig.HostSpec) -> dict:
    """The settings value with hookgate's handlers, and the containers they alone filled,
    taken out (computed on the parsed value: an oracle independent of the text edits)."""
    value = copy.deepcopy(value)
    hooks = value["hooks"]
    for event in spec.events:
        kept = []
        for item in hooks[event]:
            if spec.nested:
                handlers = [h for h in item["hooks"] if not is_ours(h)]
                if handlers:
                    kept.append({**item, "hooks": handlers})
            elif not is_ours(item):
                kept.append(item)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks:
        del value["hooks"]
    return value


def is_ours(handler: dict) -> bool:
    return any(hostconfig.is_hookgate_command(handler.get(k)) for k in ("command", "bash"))


def comments(text: str) -> list[str]:
    return re.findall(r"//[^\n]*|/\*.*?\*/", text)


@pytest.mark.parametrize(("host", "scope", "sample", "relative"), CASES)
def test_install_merges_and_uninstall_restores_exactly(home, capsys, host, scope, sample, relative):
    path = target(home, scope, relative)
    path.parent.mkdir(parents=True)
    original = (DATA / sample).read_text()
    path.write_text(original)

    assert hookgate("install", host, *scope_args(home, scope)) == 0
    installed = path.read_text()
    doc = jsonc.parse(installed)
    command = f"{EXE} eval --host {host}"
    if scope == "project":
        command = hostconfig.project_command(host, relative)
    spec = hostconfig.SPECS[host]
    for event in spec.events:
        handlers = doc.root.value["hooks"][event]
        ours = [
            h
            for group in handlers
            for h in (group["hooks"] if spec.nested else [group])
            if hostconfig.is_hookgate_command(h.get(spec.command_key))
        ]
        assert [h[spec.command_key] for h in ours] == [command], event
    # Everything else is still there, comments included.
    assert without_hookgate(doc.root.value, spec) == jsonc.parse(original).root.value
    assert comments(installed) == comments(original)
    assert hostconfig.installed_commands(installed, host) == [command] * len(spec.events)
    backups = list(path.parent.glob(path.name + ".bak-*"))
    assert [b.read_text() for b in backups] == [original]

    # Idempotent: a second install changes nothing and backs nothing up.
    assert hookgate("install", host, *scope_args(home, scope)) == 0
    assert path.read_text() == installed
    assert len(list(path.parent.glob(path.name + ".bak-*"))) == 1
    assert "already installed" in capsys.readouterr().out

    assert hookgate("uninstall", host, *scope_args(home, scope)) == 0
    assert path.read_text() == original


@pytest.mark.parametrize("host", hostconfig.HOSTS)
def test_install_into_a_missing_file_and_uninstall(home, host):
    path = hostconfig.config_path(host, "user")
    assert not path.exists()
    assert hookgate("install", host) == 0
    value = jsonc.parse(path.read_text()).root.value
    assert set(value["hooks"]) == set(hostconfig.SPECS[host].events)
    if host in ("copilot", "cursor"):
        assert value["version"] == 1
    assert not list(path.parent.glob("*.bak-*"))  # nothing existed, nothing to back up

    assert hookgate("uninstall", host) == 0
    if host == "copilot":  # hookgate's own file goes away with its hooks
        assert not path.exists()
    else:
        assert "hooks" not in jsonc.parse(path.read_text()).root.value


def test_dry_run_prints_the_diff_and_changes_nothing(home, capsys):
    path = target(home, "user", ".codex/hooks.json")
    path.parent.mkdir(parents=True)
    shutil.copy(DATA / "codex-hooks.json", path)
    before = path.read_text()

    assert hookgate("install", "codex", "--dry-run") == 0
    out = capsys.readouterr().out
    assert out.startswith(f"--- {path}\n+++ {path}\n")
    added = [line for line in out.splitlines() if line.startswith("+") and "eval --host" in line]
    assert len(added) == 2 and all(EXE in line for line in added)
    assert path.read_text() == before
    assert not list(path.parent.glob("*.bak-*"))


def test_codex_install_says_the_hook_must_be_trusted(home, capsys):
    assert hookgate("install", "codex", "--no-trust") == 0
    assert "/hooks" in capsys.readouterr().out


def test_install_replaces_an_entry_of_another_hookgate_binary(home):
    path = hostconfig.config_path("claude", "user")
    stale = hostconfig.install_text(None, "claude", "/old/venv/bin/hookgate eval --host claude")
    path.parent.mkdir(parents=True)
    path.write_text(stale)

    assert hookgate("install", "claude") == 0
    commands = hostconfig.installed_commands(path.read_text(), "claude")
    assert commands == [f"{EXE} eval --host claude"] * 3  # pre, post, post-failure


def test_uninstall_keeps_other_handlers_sharing_a_group(home):
    mine = f"{EXE} eval --host claude"
    text = (
        '{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": ['
        '{"type": "command", "command": "./audit.sh"}, '
        f'{{"type": "command", "command": "{mine}"}}]}}]}}}}\n'
    )
    path = hostconfig.config_path("claude", "user")
    path.parent.mkdir(parents=True)
    path.write_text(text)

    assert hookgate("uninstall", "claude") == 0
    value = jsonc.parse(path.read_text()).root.value
    assert value == {
        "hooks": {
            "PreToolUse": [
                {"matcher": "*", "hooks": [{"type": "command", "command": "./audit.sh"}]}
            ]
        }
    }


def test_uninstall_refuses_to_drop_a_comment(home, capsys):
    path = hostconfig.config_path("gemini", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "theme": "GitHub"\n}\n')
    assert hookgate("install", "gemini") == 0
    # The user annotates hookgate's entry; removing the entry would take the comment with it.
    annotated = path.read_text().replace(
        '"theme": "GitHub",', '"theme": "GitHub", // hookgate below: installed by IT'
    )
    path.write_text(annotated)

    assert hookgate("uninstall", "gemini") == 1
    err = capsys.readouterr().err
    assert str(path) in err and "comment" in err
    assert path.read_text() == annotated


def test_a_malformed_file_is_named_with_line_and_column_and_left_alone(home, capsys):
    path = hostconfig.config_path("cursor", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{\n  "version": 1,\n  "hooks": {\n    "stop": [}\n}\n')

    assert hookgate("install", "cursor") == 1
    assert f"{path}:4:14:" in capsys.readouterr().err
    assert path.read_text().startswith('{\n  "version": 1')


def test_jsonc_edits_keep_inline_style_and_trailing_commas():
    doc = jsonc.parse('{"a": [1, 2,], "b": {}}')
    array = doc.root.get("a")
    text = jsonc.append(doc, array, None, 3)
    assert text == '{"a": [1, 2, 3,], "b": {}}'
    doc = jsonc.parse(text)
    assert jsonc.remove(doc, doc.root.get("a"), 2) == '{"a": [1, 2,], "b": {}}'
    doc = jsonc.parse('{"a": [1, 2,], "b": {}}')
    assert jsonc.parse(jsonc.append(doc, doc.root.get("b"), "k", [True])).root.value == {
        "a": [1, 2],
        "b": {"k": [True]},
    }


PAYLOADS = Path(__file__).parent / "data" / "hosts" / "payloads"
HOST_PAYLOADS = {
    "claude": "claude-pre-bash.json",
    "codex": "codex-pre-bash.json",
    "copilot": "copilot-pre-bash.json",
    "cursor": "cursor-pre-tool.json",
    "gemini": "gemini-before-tool.json",
}


def test_each_installed_command_answers_its_host(home):
    """Run each installed pre-tool command the way its host does (a shell command line)."""
    for host in hostconfig.HOSTS:
        assert hookgate("install", host) == 0
        path = hostconfig.config_path(host, "user")
        command = hostconfig.installed_commands(path.read_text(), host)[0]
        result = subprocess.run(
            ["sh", "-c", command],
            input=(PAYLOADS / HOST_PAYLOADS[host]).read_text(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, (host, result.stderr)
        response = json.loads(result.stdout)
        assert isinstance(response, dict), host
        if host == "cursor":  # Cursor blocks a preToolUse answer without a permission
            assert response["permission"] in ("allow", "deny", "ask")


def test_a_symlinked_settings_file_stays_a_symlink(home):
    dotfiles = home / "dotfiles" / "claude.json"
    dotfiles.parent.mkdir()
    shutil.copy(DATA / "claude-settings.json", dotfiles)
    path = hostconfig.config_path("claude", "user")
    path.parent.mkdir()
    path.symlink_to(dotfiles)

    assert hookgate("install", "claude") == 0
    assert path.is_symlink()
    assert hostconfig.installed_commands(dotfiles.read_text(), "claude")
    assert hookgate("uninstall", "claude") == 0
    assert path.is_symlink()
    assert dotfiles.read_text() == (DATA / "claude-settings.json").read_text()


def test_a_file_with_windows_line_endings_keeps_them(home):
    path = hostconfig.config_path("cursor", "user")
    path.parent.mkdir()
    original = (DATA / "cursor-hooks.json").read_text().replace("\n", "\r\n")
    path.write_bytes(original.encode())

    assert hookgate("install", "cursor") == 0
    installed = path.read_bytes().decode()
    assert "\n" not in installed.replace("\r\n", "")
    assert hookgate("uninstall", "cursor") == 0
    assert path.read_bytes().decode() == original


def _sh(command: str, payload: str, path: str) -> subprocess.CompletedProcess:
    """Run a hook command as a host does (a shell command line) with only ``path`` on PATH."""
    env = {"PATH": path, "HOME": os.environ["HOME"], "HOOKGATE_HOME": os.environ["HOOKGATE_HOME"]}
    return subprocess.run(
        ["sh", "-c", command], input=payload, capture_output=True, text=True, env=env, timeout=60
    )


@pytest.mark.parametrize("host", hostconfig.HOSTS)
def test_a_project_install_is_portable_and_blocks_with_a_message_without_hookgate(
    home, tmp_path, host
):
    project = home / "project"
    assert hookgate("install", host, "--scope", "project", "--project-dir", str(project)) == 0
    path = hostconfig.config_path(host, "project", project)
    text = path.read_text()
    # Nothing of this machine's: no home, no venv, no interpreter, no absolute path at all.
    for local in (str(home), str(tmp_path), sys.prefix, sys.executable, EXE):
        assert local not in text
    (command,) = set(hostconfig.installed_commands(text, host))
    assert hostconfig.command_words(command) == ["hookgate", "eval", "--host", host]
    payload = (PAYLOADS / HOST_PAYLOADS[host]).read_text()

    # With hookgate on PATH (another developer's own install), the hook answers.
    found = _sh(command, payload, f"{Path(EXE).parent}:/usr/bin:/bin")
    assert found.returncode == 0, found.stderr
    assert isinstance(json.loads(found.stdout), dict)
    # Without it: exit 2, which each host takes as a block with the text as its reason, naming
    # the file; not the shell's 127, which Claude, Codex and Cursor let through.
    missing = _sh(command, payload, "/usr/bin:/bin")
    assert missing.returncode == 2 and missing.stdout == ""
    relative = hostconfig.project_relative(host)
    assert f"hookgate: {relative} runs hookgate on every tool call" in missing.stderr
    assert "not on your PATH, so this call is blocked" in missing.stderr

    # Installing again changes nothing; uninstall takes it out.
    assert hookgate("install", host, "--scope", "project", "--project-dir", str(project)) == 0
    assert path.read_text() == text
    assert hookgate("uninstall", host, "--scope", "project", "--project-dir", str(project)) == 0
    assert not path.exists() or not hostconfig.installed_commands(path.read_text(), host)


def test_a_project_install_warns_when_this_path_has_no_hookgate(home, capsys, monkeypatch):
    scope = ("--scope", "project", "--project-dir", str(home / "project"))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert hookgate("install", "claude", *scope) == 0
    assert "warning: hookgate is not on your PATH" in capsys.readouterr().out
    monkeypatch.setenv("PATH", f"{Path(EXE).parent}:/usr/bin:/bin")
    assert hookgate("install", "gemini", *scope) == 0
    assert "not on your PATH" not in capsys.readouterr().out


def test_the_user_scope_keeps_the_personal_launcher(home):
    assert hookgate("install", "claude") == 0
    command = hostconfig.installed_commands(
        hostconfig.config_path("claude", "user").read_text(), "claude"
    )[0]
    assert command == f"{EXE} eval --host claude" or hostconfig.launcher_dirs(command)


def test_installing_a_second_scope_says_the_host_now_runs_hookgate_twice(home, capsys):
    project = home / "project"
    assert hookgate("install", "claude") == 0
    assert "twice" not in capsys.readouterr().out
    assert hookgate("install", "claude", "--scope", "project", "--project-dir", str(project)) == 0
    out = capsys.readouterr().out
    user, shared = hostconfig.config_path("claude", "user"), project / ".claude/settings.json"
    assert f"warning: claude now runs hookgate twice, from {user} and {shared}" in out
