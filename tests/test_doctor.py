"""`hookgate doctor`: reports the setup, and exits non-zero exactly when something is broken."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest
from sync_helpers import LiveServer, run_hookgate

from hookgate.integrations import hostconfig

EXE = str(Path(sys.executable).parent / "hookgate")


@pytest.fixture
def home(tmp_path):
    path = tmp_path / "user"
    path.mkdir()
    return path


def doctor(home):
    return run_hookgate(home, "doctor", "--project-dir", str(home), "--timeout", "2")


def test_a_fresh_machine_has_warnings_but_nothing_broken(home):
    result = doctor(home)
    assert result.returncode == 0, result.stdout
    assert "no host is wired" in result.stdout
    assert "not logged in" in result.stdout
    assert "built-in default pack" in result.stdout


def test_a_working_setup_reports_hosts_server_and_bundle(tmp_path, home):
    server = LiveServer(tmp_path / "server.db")
    try:
        assert run_hookgate(home, "install", "claude").returncode == 0
        assert run_hookgate(home, "install", "cursor").returncode == 0
        login = run_hookgate(home, "login", "--server", server.url, "--token", server.agent_token)
        assert login.returncode == 0, login.stderr

        result = doctor(home)
        assert result.returncode == 0, result.stdout
        out = result.stdout
        assert f"claude (user): {home}/.claude/settings.json runs {EXE}" in out
        assert f"cursor (user): {home}/.cursor/hooks.json runs {EXE}" in out
        assert "reachable, token accepted" in out
        assert f"revision 1 from {server.url}" in out
        from hookgate import layers

        assert f"built-in pack: hookgate-default {layers.base_version()}" in out
        assert "everything works" in out

        server.stop()
        result = doctor(home)
        assert result.returncode == 1
        assert "PROBLEM:" in result.stdout and "server unreachable" in result.stdout
        assert "revision 1" in result.stdout  # the cached bundle still serves the hooks
    finally:
        server.stop()


def test_a_settings_file_doctor_cannot_read_is_a_problem_not_a_crash(home):
    (home / ".claude" / "settings.json").mkdir(parents=True)
    result = doctor(home)
    assert result.returncode == 1, result.stderr
    assert "claude (user): cannot read" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_host_wired_to_a_missing_binary_is_a_problem(home):
    path = hostconfig.config_path("gemini", "project", home)
    path.parent.mkdir(parents=True)
    text = hostconfig.install_text(None, "gemini", "/gone/venv/bin/hookgate eval --host gemini")
    path.write_text(text)

    result = doctor(home)
    assert result.returncode == 1
    assert "gemini (project)" in result.stdout and "/gone/venv/bin/hookgate" in result.stdout
    assert "missing or not executable" in result.stdout


def test_a_launcher_whose_directories_lost_hookgate_is_a_problem(home, tmp_path):
    site = tmp_path / "site"
    (site / "hookgate").mkdir(parents=True)
    (site / "hookgate" / "launcher.py").write_text("")
    argv = hostconfig.launcher_argv(sys.executable, [str(site)])
    path = hostconfig.config_path("gemini", "project", home)
    path.parent.mkdir(parents=True)
    path.write_text(
        hostconfig.install_text(None, "gemini", hostconfig.hook_command(argv, "gemini"))
    )
    assert hostconfig.launcher_dirs(hostconfig.hook_command(argv, "gemini")) == [str(site)]
    out = doctor(home).stdout
    assert f"gemini (project): {path} runs {sys.executable}" in out
    assert "no longer installed" not in out

    (site / "hookgate" / "launcher.py").unlink()  # hookgate uninstalled from that venv
    out = doctor(home).stdout
    assert f"with hookgate from {site}, where it is no longer installed" in out
    assert "run hookgate install gemini again" in out


def test_a_corrupt_bundle_cache_is_a_problem_and_its_error_is_listed(home):
    cache = home / "cache"
    cache.mkdir(mode=0o700)
    (cache / "bundle.json").write_text('{"revision": 3, "policies"')
    # The hook notices first (and falls back to the default pack), recording an error.
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    assert run_hookgate(home, "eval", "--host", "claude", stdin=json.dumps(payload)).returncode == 0

    result = doctor(home)
    assert result.returncode == 1
    assert "unreadable or corrupt" in result.stdout
    errors = result.stdout.split("recent errors:")[1]
    assert "bundle_cache" in errors and "corrupt bundle cache" in errors


@pytest.mark.parametrize(
    "blocker", ["a directory in the file's place", "a file in the dir's place"]
)
def test_telemetry_that_cannot_be_written_is_a_problem(home, blocker):
    if blocker == "a directory in the file's place":
        target = home / "telemetry"
        target.mkdir()
    else:
        (home / "blocker").write_text("a file")
        target = home / "blocker" / "telemetry.jsonl"
    result = run_hookgate(
        home, "doctor", "--project-dir", str(home), "--timeout", "2", HOOKGATE_TELEMETRY=str(target)
    )
    assert result.returncode == 1, result.stdout
    assert "PROBLEM: telemetry cannot be written" in result.stdout
    assert "failures go unrecorded" in result.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="judges another user's writes: run as root")
def test_personal_mode_lists_what_the_agents_user_can_change(home):
    assert run_hookgate(home, "install", "claude").returncode == 0
    os.chown(home, 65534, 65534)  # the agent's home is the agent's
    result = run_hookgate(home, "doctor", "--user", "nobody", "--timeout", "0.1")
    out = result.stdout
    assert "mode: personal" in out
    listed = out.split("that nobody can change:\n", 1)[1].split("\nserver:", 1)[0]
    settings = home / ".claude" / "settings.json"
    assert f"{settings} (claude's settings): {home} is writable by the user" in listed
    for name in ("config", "cache", "state"):
        assert f"{home / name} (hookgate's {name} directory): {home} is writable" in listed
    # Personal mode promises no more: these are the deal, not problems.
    assert "PROBLEM" not in listed
    # The interpreter and code here are root's: not listed.
    assert "interpreter" not in listed and "hookgate's code" not in listed

    as_root = run_hookgate(home, "doctor", "--timeout", "0.1")
    assert "judged for root, who can change everything: give --user" in as_root.stdout


# --- POSIX ACLs: a root-owned path an ACL lets the user write is the user's to change ---------

ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ, ACL_GROUP, ACL_MASK, ACL_OTHER = 1, 2, 4, 8, 0x10, 0x20


def set_acl(path: Path, *entries: tuple[int, int, int]) -> None:
    """What ``setfacl`` writes, spelled as the kernel stores it (``system.posix_acl_access``)."""
    import struct

    ordered = sorted(entries, key=lambda e: (e[0], e[2]))  # the kernel wants them in order
    blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in ordered)
    os.setxattr(path, "system.posix_acl_access", blob)


def _acl_target(tmp_path: Path) -> Path:
    if os.geteuid() != 0:
        pytest.skip("root sets another user's ACL")
    top = tmp_path / "acl"
    top.mkdir(mode=0o755)
    target = top / "config.json"
    target.write_text("{}\n")
    target.chmod(0o644)
    try:
        set_acl(
            target,
            (ACL_USER_OBJ, 6, 0xFFFFFFFF),
            (ACL_GROUP_OBJ, 4, 0xFFFFFFFF),
            (ACL_OTHER, 4, 0xFFFFFFFF),
        )
    except OSError as exc:
        pytest.skip(f"no POSIX ACLs here: {exc}")
    return target


def test_an_acl_granting_the_user_write_counts_as_writable(tmp_path):
    from hookgate.integrations.managed import changeable_by

    target = _acl_target(tmp_path)
    nobody = (65534, {65534})
    assert changeable_by(str(target), *nobody) is None  # root 0644, ACL without extras
    u, g, o = 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF
    base = [(ACL_USER_OBJ, 6, u), (ACL_GROUP_OBJ, 4, g), (ACL_OTHER, 4, o)]
    set_acl(target, *base, (ACL_USER, 6, 65534), (ACL_MASK, 6, u))
    assert "writable by the user" in changeable_by(str(target), *nobody)
    assert changeable_by(str(target), 1234, {1234}) is None  # another user: still not
    # the mask limits a named entry: r-- mask, no write whatever the entry says
    set_acl(target, *base, (ACL_USER, 6, 65534), (ACL_MASK, 4, u))
    assert changeable_by(str(target), *nobody) is None
    # a named group the user is in
    set_acl(target, *base, (ACL_GROUP, 6, 4321), (ACL_MASK, 6, u))
    assert "writable by the user" in changeable_by(str(target), 65534, {65534, 4321})
    assert changeable_by(str(target), *nobody) is None
    # on the directory: the user can replace the file
    set_acl(target, *base)
    set_acl(
        target.parent,
        (ACL_USER_OBJ, 7, u),
        (ACL_USER, 7, 65534),
        (ACL_GROUP_OBJ, 5, g),
        (ACL_MASK, 7, u),
        (ACL_OTHER, 5, o),
    )
    assert "who can replace" in changeable_by(str(target), *nobody)


def test_an_acl_written_by_setfacl_is_read_the_same(tmp_path):
    import shutil
    import subprocess

    from hookgate.integrations.managed import changeable_by

    if shutil.which("setfacl") is None:
        pytest.skip("setfacl is not installed (apt: acl); the attribute is set directly above")
    target = _acl_target(tmp_path)
    subprocess.run(["setfacl", "-m", "u:nobody:rw", str(target)], check=True)
    assert "writable by the user" in changeable_by(str(target), 65534, {65534})
    subprocess.run(["setfacl", "-b", str(target)], check=True)
    assert changeable_by(str(target), 65534, {65534}) is None


CONFLICTING_PACK = """package hookgate.team

import rego.v1

level := "high" if input.tool_kind == "shell"

level := "low" if input.tool_name == "Bash"

deny contains {"reason": "shell calls are high risk", "pattern": "level"} if level == "high"
"""


def test_a_hook_fault_fails_doctor_naming_the_pack_and_why(home, tmp_path):
    import shutil

    policies = tmp_path / "policies"
    shutil.copytree(Path(__file__).parents[1] / "policies", policies)
    (policies / "team.rego").write_text(CONFLICTING_PACK)
    payload = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    hook = run_hookgate(
        home, "eval", "--host", "claude", "--policies", str(policies), stdin=json.dumps(payload)
    )
    assert (hook.returncode, hook.stdout.strip()) == (0, "{}")  # fail-open: the hook allowed

    result = doctor(home)
    assert result.returncode == 1, result.stdout
    faults = result.stdout.split("hook faults in the last 1d:")[1]
    assert "PROBLEM: 1 hook call(s)" in faults
    # (the message names the file:line:col, then the conflict; masking takes a random-looking
    # temporary path for a secret, and a long message is shortened)
    assert "fault in pack hookgate.team: evaluation: " in faults and ".rego:5:1:" in faults
    assert "data.hookgate.team.level; answered allow by the failure policy" in faults
    # "Recent" is a window: a fault older than --since no longer fails doctor.
    time.sleep(1.1)
    later = run_hookgate(home, "doctor", "--project-dir", str(home), "--timeout", "2",
                         "--since", "1s")  # fmt: skip
    assert later.returncode == 0, later.stdout
    assert "none in 0 recorded hook calls" in later.stdout


def test_a_recorded_limit_is_a_warning_and_calls_without_errors_are_counted(home, monkeypatch):
    from hookgate import decisionlog
    from hookgate.decision import Decision

    monkeypatch.setenv("HOOKGATE_HOME", str(home))
    limit = {"kind": "limit", "source": "evaluation", "pack": "hookgate.destructive",
             "limit": "time", "message": "evaluation time limit reached"}  # fmt: skip
    decisionlog.append(Decision("ask", errors=[limit]), None, None)
    decisionlog.append(Decision("allow"), None, None)
    result = doctor(home)
    assert result.returncode == 0, result.stdout
    assert (
        "warning: 1 hook call(s), last at " in result.stdout
        and "limit in pack hookgate.destructive: evaluation: evaluation time limit reached "
        "(limit: time); answered ask"
        in result.stdout
    )
    assert "PROBLEM" not in result.stdout


def test_a_host_wired_in_two_scopes_is_named_with_both_files(home, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    scope = ("--scope", "project", "--project-dir", str(project))
    assert run_hookgate(home, "install", "claude", *scope).returncode == 0
    assert run_hookgate(home, "install", "gemini").returncode == 0
    check = ("doctor", "--project-dir", str(project), "--timeout", "0.1")
    path = f"{Path(EXE).parent}:/usr/bin:/bin"

    result = run_hookgate(home, *check, PATH=path)
    assert result.returncode == 0, result.stdout
    shared = project / ".claude" / "settings.json"
    assert f"claude (project): {shared} runs hookgate from PATH, now {EXE}" in result.stdout
    assert "twice" not in result.stdout

    # The same host at user scope as well: it runs both.
    assert run_hookgate(home, "install", "claude").returncode == 0
    out = run_hookgate(home, *check, PATH=path).stdout
    user = home / ".claude" / "settings.json"
    assert f"warning: claude runs hookgate twice for each call, from {user} and {shared}" in out
    # Copilot runs a repository's Claude hooks as well as its own.
    assert run_hookgate(home, "install", "copilot").returncode == 0
    out = run_hookgate(home, *check, PATH=path).stdout
    copilot = home / ".copilot" / "hooks" / "hookgate.json"
    assert f"warning: copilot runs hookgate twice for each call, from {copilot} and {shared}" in out

    # Where this PATH has no hookgate, the project's hook blocks every call: a problem.
    missing = run_hookgate(home, *check, PATH="/usr/bin:/bin")
    assert missing.returncode == 1
    assert f"{shared} runs hookgate from PATH, where it is not: the hook blocks" in missing.stdout


def test_a_managed_and_a_personal_hook_of_one_host_are_named_unless_only_managed_runs(
    home, tmp_path
):
    root = tmp_path / "root"
    settings = root / "etc" / "claude-code" / "managed-settings.d" / "hookgate.json"
    settings.parent.mkdir(parents=True)
    managed = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command",
               "command": "/opt/hookgate/bin/python -I -S -c 'import sys;sys.path[3:3]=[];"
               "from hookgate.launcher import launch;launch()' eval --host claude"}]}]}}  # fmt: skip
    settings.write_text(json.dumps(managed))
    assert run_hookgate(home, "install", "claude").returncode == 0
    check = ("doctor", "--project-dir", str(home), "--timeout", "0.1", "--root", str(root))
    out = run_hookgate(home, *check).stdout
    user = home / ".claude" / "settings.json"
    final = "/etc/claude-code/managed-settings.d/hookgate.json"
    assert f"warning: claude runs hookgate twice for each call, from {final} and {user}" in out

    settings.write_text(json.dumps({**managed, "allowManagedHooksOnly": True}))
    assert "twice" not in run_hookgate(home, *check).stdout


def test_the_hooks_layers_are_composed_and_a_setting_nothing_reads_is_named(home, tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    renamed = {"hookgate": {"config": {"xpia": {"instruction_files": ["RULES.md"]}}}}
    (team / "data.json").write_text(json.dumps(renamed))
    installed = run_hookgate(home, "install", "claude", "--policies", str(team))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    out = doctor(home).stdout
    assert (
        f"warning: layers {team}: {team / 'data.json'}: data.hookgate.config.xpia."
        "instruction_files is a setting the base hookgate-default"
    ) in out
    (team / "REPLACE-BASE").write_text("")
    (team / "data.json").write_text("{}")
    out = doctor(home).stdout
    assert f"layers {team}: the built-in pack replaced ({team / 'REPLACE-BASE'})" in out
    assert "instruction_files" not in out


def test_a_layer_setting_no_guard_can_act_on_is_a_problem(home, tmp_path):
    """The wired layers' settings that RE2, the glob syntax or the guard refuses (a guard that
    then does nothing there): a problem, named by place, as ``hookgate check`` names it."""
    team = tmp_path / "team"
    team.mkdir()
    tuned = {"hookgate": {"config": {"protected_branches": ["main", "release/[0-9"],
                                     "no_verify": {"action": "block"}}}}  # fmt: skip
    (team / "data.json").write_text(json.dumps(tuned))
    installed = run_hookgate(home, "install", "claude", "--policies", str(team))
    assert installed.returncode == 1  # wired, and said at once
    assert "data.hookgate.config.no_verify.action: 'block' is not one of deny, ask" in (
        installed.stderr
    )
    result = doctor(home)
    assert result.returncode == 1
    assert (
        f"layers {team}: data.hookgate.config.protected_branches[1]: the glob syntax refuses "
        "'release/[0-9' (unclosed [ in pattern): the guards reading it would match nothing"
    ) in result.stdout
    assert (
        f"layers {team}: data.hookgate.config.no_verify.action: 'block' is not one of deny, ask: "
        "the guard reading it would not act on it"
    ) in result.stdout
    (team / "data.json").write_text(
        json.dumps({"hookgate": {"config": {"protected_branches": ["main", "release/*"]}}})
    )
    assert "protected_branches" not in doctor(home).stdout
