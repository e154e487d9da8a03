"""``hookgate doctor``'s install-mode checks: which mode this machine is in (personal, managed,
both), whether each managed host's administrator files will really be obeyed (owner and mode,
the pins beside the hooks), and every path the hook depends on that the agent's user can change.

A managed install keeps its promise only while that last list is empty; a personal install lists
its own venv, settings files and state directories there, because its user can rewrite them.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class _Report(Protocol):
    """What ``hookgate.commands.doctor`` prints through."""

    def line(self, text: str) -> None: ...
    def problem(self, text: str) -> None: ...
    def warning(self, text: str) -> None: ...


@dataclass
class AgentUser:
    name: str
    uid: int
    gids: set[int]
    home: str


def agent_user(name: str | None) -> AgentUser:
    """The user whose writes are judged: ``name``, else ``SUDO_USER`` when run through sudo,
    else whoever runs doctor."""
    import pwd

    if name is None and os.geteuid() == 0 and os.environ.get("SUDO_USER"):
        name = os.environ["SUDO_USER"]
    try:
        entry = pwd.getpwnam(name) if name else pwd.getpwuid(os.getuid())
    except KeyError:
        raise LookupError(f"--user {name}: no such user") from None
    if name is None and entry.pw_uid == os.getuid():
        gids = {os.getgid(), *os.getgroups()}
    else:
        gids = set(os.getgrouplist(entry.pw_name, entry.pw_gid))
    return AgentUser(entry.pw_name, entry.pw_uid, gids, entry.pw_dir)


@dataclass
class Managed:
    host: str
    path: str  # the administrator file, as the host reads it
    command: str


def managed_hosts(report: _Report, root: str) -> list[Managed]:
    """Report each host's administrator files: hookgate's hooks there, their owner and mode,
    the pins beside them; and say plainly where hookgate cannot be enforced."""
    from hookgate.integrations import hostconfig, managed

    found = []
    for host, spec in hostconfig.MANAGED.items():
        if spec.hooks_file is None:
            continue
        staged = managed.staged(root, spec.hooks_file)
        try:
            text = Path(staged).read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError) as exc:
            report.problem(f"{host}: cannot read {staged}: {exc}")
            continue
        try:
            value, commands = _hooks(host, text, staged)
        except ValueError as exc:
            report.problem(f"{host}: {exc}")
            continue
        if not commands:
            continue
        for command in sorted(set(commands)):
            found.append(Managed(host, spec.hooks_file, command))
            report.line(f"{host}: {staged} runs {hostconfig.command_words(command)[0]}")
            _check_command(report, host, command, root)
        files = [spec.hooks_file] + [f for f, _, _ in spec.pins if f != spec.hooks_file]
        if spec.only_file and spec.only_file not in files:
            if os.path.lexists(managed.staged(root, spec.only_file)):
                files.append(spec.only_file)
        for file in files:
            for problem in _mode_problems(root, file):
                if spec.strict_modes:
                    report.problem(f"{host}: {problem}: {host} skips the file without a word")
                else:
                    report.problem(f"{host}: {problem}: its owner can edit hookgate out")
        _check_pins(report, host, spec, value, root)
        if spec.residual:
            report.warning(f"{host}: NOT ENFORCEABLE: {spec.residual}")
    if found:
        for host, spec in hostconfig.MANAGED.items():
            if spec.hooks_file is None:
                report.line(f"{host}: NOT ENFORCEABLE: {spec.residual}")
    else:
        report.line("none (hookgate install --managed HOST… as root)")
    return found


def _hooks(host: str, text: str, name: str) -> tuple[object, list[str]]:
    """The parsed file and the hookgate commands in it."""
    import tomllib

    from hookgate.integrations import hostconfig, jsonc

    if name.endswith(".toml"):
        try:
            value = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{name}: {exc}") from None
        hooks = value.get("hooks") if isinstance(value.get("hooks"), dict) else {}
        commands = [
            handler.get("command")
            for event in hostconfig.SPECS["codex"].events
            for group in hooks.get(event) or []
            if isinstance(group, dict)
            for handler in group.get("hooks") or []
            if isinstance(handler, dict) and hostconfig.is_hookgate_command(handler.get("command"))
        ]
        return value, commands
    try:
        value = jsonc.parse(text, name).root.value
        return value, hostconfig.installed_commands(text, host, name)
    except (jsonc.JsoncError, hostconfig.HostConfigError) as exc:
        raise ValueError(str(exc)) from None


def _mode_problems(root: str, path: str) -> list[str]:
    """Owner and mode problems of ``path`` and every directory above it (up to the staging
    root: above it, the tree is not the one the hosts will read)."""
    from hookgate.integrations import managed

    found = []
    current = path
    while True:
        found += managed.mode_problems(managed.staged(root, current))
        parent = os.path.dirname(current)
        if parent == current:
            return found
        current = parent


def _check_command(report: _Report, host: str, command: str, root: str) -> None:
    from hookgate.integrations import hostconfig, managed

    words = hostconfig.command_words(command)
    python = managed.staged(root, words[0])
    if words[1:3] != ["-I", "-S"]:
        report.problem(f"{host}: the hook command does not start Python with -I -S: {words[0]}")
    dirs = hostconfig.launcher_dirs(command) or []
    if not (os.path.isfile(python) and os.access(python, os.X_OK)):
        report.problem(f"{host}: {python} is missing or not executable")
    elif not any(
        os.path.isfile(os.path.join(managed.staged(root, d), "hookgate", "launcher.py"))
        for d in dirs
    ):
        report.problem(f"{host}: hookgate is no longer installed in {', '.join(dirs)}")


def _check_pins(report: _Report, host: str, spec: object, value: object, root: str) -> None:
    from hookgate.integrations import hostconfig, managed

    if host == "claude":
        env = value.get("env") if isinstance(value, dict) else None
        missing = [
            name
            for name in hostconfig.managed_env()
            if not isinstance(env, dict) or env.get(name) != ""
        ]
        if missing:
            report.problem(
                f"claude: the managed env does not pin {', '.join(missing)}: a user settings env "
                "block reaches the managed hook; run hookgate install --managed claude again"
            )
    for file, keys, expected in spec.pins:
        text = managed._read(root, file)
        try:
            current, _ = _hooks(host, text or "{}", file) if text else ({}, [])
        except ValueError as exc:
            report.problem(f"{host}: {exc}")
            continue
        got = managed._get(current, keys)
        if got != expected:
            report.problem(
                f"{host}: {'.'.join(keys)} is not {json.dumps(expected)} in {file}: the user "
                f"can switch the managed hook off; run hookgate install --managed {host} again"
            )
    if spec.only_key:
        text = managed._read(root, spec.only_file) or "{}"
        try:
            current, _ = _hooks(host, text, spec.only_file)
        except ValueError:
            current = {}
        only = managed._get(current, (spec.only_key,)) is True
        report.line(
            f"{host}: {'only managed hooks run' if only else 'the user and project hooks run too'}"
            f" ({spec.only_key} in {spec.only_file})"
        )


def mode(report: _Report, personal: list, managed: list) -> None:
    """The install mode, from what is wired where."""
    if personal and managed:
        text = "both: managed hooks, and personal ones the user can remove"
    elif managed:
        text = "managed"
    elif personal:
        text = "personal: the agent's user can change or remove everything the hook runs"
    else:
        text = "none: no host runs hookgate"
    report.line(f"mode: {text}")


def changeable(report: _Report, user: AgentUser, personal: list, managed: list, root: str) -> None:
    """Every path the wired hooks depend on that ``user`` could change; a problem in managed
    mode (where the list must be empty), a plain line in personal mode (where it is the deal)."""
    from hookgate import paths
    from hookgate.integrations import hostconfig
    from hookgate.integrations import managed as layout

    if user.uid == 0:
        report.line("judged for root, who can change everything: give --user (the agent's user)")
        return
    depends: dict[str, str] = {}  # path -> what it is
    for host, settings, command in personal:
        depends.setdefault(str(settings), f"{host}'s settings")
        _program(depends, command, "")
    if personal:
        for name, directory in (
            ("config", paths.config_dir()),
            ("cache", paths.cache_dir()),
            ("state", paths.state_dir()),
        ):
            depends.setdefault(directory, f"hookgate's {name} directory")
    personal_depends = dict(depends)
    for entry in managed:
        spec = hostconfig.MANAGED[entry.host]
        depends.setdefault(layout.staged(root, entry.path), f"{entry.host}'s managed settings")
        if spec.only_file:
            depends.setdefault(
                layout.staged(root, spec.only_file), f"{entry.host}'s managed settings"
            )
        _program(depends, entry.command, root)
    if managed:
        depends.setdefault(layout.staged(root, layout.CONFIG_FILE), "the managed trust anchors")
        depends.setdefault(layout.staged(root, layout.STATE_DIR), "the managed bundle and caches")
        for directory in _runtime_dirs(managed[0].command, root, user):
            depends.setdefault(directory, "where the managed hook's code keeps its files")
    ours = set(depends) - set(personal_depends)
    found = [(p, why, layout.changeable_by(p, user.uid, user.gids)) for p, why in depends.items()]
    found = [(p, why, reason) for p, why, reason in found if reason]
    for path, why, reason in found:
        # What a managed hook depends on must be root's alone; a personal install's files are
        # its user's by construction, which is what personal mode promises less for.
        if path in ours:
            report.problem(f"{path} ({why}): {reason}")
        else:
            report.line(f"{path} ({why}): {reason}")
    if not found:
        report.line("none")


def _program(depends: dict[str, str], command: str, root: str) -> None:
    """The interpreter (as named and as resolved) and the import directories a command runs."""
    from hookgate.integrations import hostconfig
    from hookgate.integrations import managed as layout

    words = hostconfig.command_words(command)
    if not words:
        return
    staged = layout.staged(root, words[0]) if root else words[0]
    depends.setdefault(staged, "the hook's interpreter")
    real = os.path.realpath(staged)
    depends.setdefault(real, "the hook's interpreter, resolved")
    for directory in hostconfig.launcher_dirs(command) or []:
        depends.setdefault(layout.staged(root, directory) if root else directory, "hookgate's code")
        depends.setdefault(
            os.path.join(layout.staged(root, directory) if root else directory, "hookgate"),
            "hookgate's code",
        )


def _runtime_dirs(command: str, root: str, user: AgentUser) -> list[str]:
    """Where the managed hook's own code keeps the files it reads (asked of that code, in the
    user's environment: a runtime that keeps them under /var/lib/hookgate answers that)."""
    from hookgate.integrations import hostconfig
    from hookgate.integrations import managed as layout

    words = hostconfig.command_words(command)
    dirs = hostconfig.launcher_dirs(command) or []
    staged_dirs = json.dumps([layout.staged(root, d) for d in dirs])
    code = (
        f"import json,sys;sys.path[3:3]={staged_dirs};from hookgate import paths;"
        "print(json.dumps([paths.config_dir(),paths.cache_dir(),paths.state_dir()]))"
    )
    env = dict(os.environ)
    if user.uid != os.getuid():
        env["HOME"] = user.home
    try:
        done = subprocess.run(
            [layout.staged(root, words[0]), "-I", "-S", "-c", code],
            capture_output=True,
            text=True,
            env=env,
            timeout=30,
            check=False,
        )
        return [str(d) for d in json.loads(done.stdout)]
    except (OSError, ValueError, subprocess.SubprocessError):
        return []


def integrity(report: _Report, root: str) -> None:
    """The managed prefix against the checksums its install recorded: every file changed, added
    or removed since is a problem (the code every hook runs is no longer what was installed)."""
    from hookgate import anchors
    from hookgate.integrations import managed_deploy as deploy
    from hookgate.integrations.managed import ManagedError, staged

    try:
        found = deploy.verify(root)
    except ManagedError as exc:
        report.problem(f"code: {exc}")
        return
    if found is None:
        return
    prefix, differences = found
    record = staged(root, deploy.CHECKSUMS)
    try:
        anchors.check_root_owned(record, directory=False)
    except anchors.AnchorError as exc:
        report.problem(f"code in {prefix}: its checksums cannot be trusted: {exc}")
    for difference in differences[:_MAX_LISTED]:
        report.problem(f"code in {prefix}: {difference}")
    if len(differences) > _MAX_LISTED:
        report.problem(f"code in {prefix}: and {len(differences) - _MAX_LISTED} more differences")
    if not differences:
        report.line(f"code in {prefix}: as installed (checked against {record})")


_MAX_LISTED = 40
