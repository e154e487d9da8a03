"""``hookgate doctor``: what this machine's hookgate setup looks like, and whether it works.

Reports the hosts wired (and to which binary), the server login and its reachability, the
bundle's revision and age, the local caches, the decision log and the last errors from
telemetry. Exits 1 when something is broken (so it can run from a login script), 0 otherwise;
warnings (a stale bundle, no host wired) do not fail it.

A hook call that hit a fault in the last ``--since`` (default 24 hours: ``RECENT``) is broken:
its answer was the failure policy's, not the policies'. Doctor names the pack and the message,
from the local decision log. A limit (the limit action answered) is a warning.
"""

from __future__ import annotations

import argparse
import os
import stat
import time
from pathlib import Path

RECENT = 24 * 3600  # seconds: how far back a hook's fault makes doctor fail, unless --since
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class _Report:
    def __init__(self) -> None:
        self.problems = 0

    def line(self, text: str) -> None:
        print(f"  {text}")

    def problem(self, text: str) -> None:
        self.problems += 1
        print(f"  PROBLEM: {text}")

    def warning(self, text: str) -> None:
        print(f"  warning: {text}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project-dir", type=Path, help="also check this project's hook files (default: cwd)"
    )
    parser.add_argument(
        "--timeout", type=float, default=3.0, help="seconds to wait for the server (default 3)"
    )
    parser.add_argument(
        "--root",
        default="/",
        help="the root the managed files are under (a staging root given to install --root)",
    )
    parser.add_argument(
        "--since",
        type=_duration,
        default=RECENT,
        metavar="DURATION",
        help="how far back hook faults count, e.g. 30m, 2h, 1d (default 24h)",
    )
    parser.add_argument(
        "--user",
        help="the agent's user, whose writes are judged (default: you, or SUDO_USER under sudo)",
    )


def run(args: argparse.Namespace) -> int:
    from hookgate.commands import doctor_modes

    report = _Report()
    print("hosts:")
    personal = _hosts(report, args.project_dir or Path.cwd())
    try:
        user = doctor_modes.agent_user(args.user)
    except LookupError as exc:
        report.problem(str(exc))
        user = None
    print("managed:")
    managed = doctor_modes.managed_hosts(report, os.path.abspath(args.root))
    doctor_modes.mode(report, personal, managed)
    doctor_modes.integrity(report, os.path.abspath(args.root))
    _twice(report, args.project_dir or Path.cwd(), managed, os.path.abspath(args.root))
    if user is not None:
        print(f"what the hook depends on that {user.name} can change:")
        doctor_modes.changeable(report, user, personal, managed, os.path.abspath(args.root))
    print("server:")
    login = _server(report, args.timeout)
    print("bundle:")
    _bundle(report, login)
    print("local files:")
    _files(report)
    print("recent errors:")
    _errors(report)
    print(f"hook faults in the last {_ago(args.since)}:")
    _hook_faults(report, args.since)
    verdict = f"{report.problems} problem(s) found" if report.problems else "everything works"
    print(verdict)
    return 1 if report.problems else 0


def _hosts(report: _Report, project_dir: Path) -> list[tuple[str, Path, str]]:
    """Report each personal (user or project) wiring; ``(host, settings file, command)``."""
    from hookgate.integrations import hostconfig

    wired = 0
    found = []
    for host in hostconfig.HOSTS:
        for scope in hostconfig.SCOPES:
            path = hostconfig.config_path(host, scope, project_dir)
            try:
                text = path.read_text(encoding="utf-8")
                commands = hostconfig.installed_commands(text, host, str(path))
            except (FileNotFoundError, NotADirectoryError):
                continue
            except (OSError, UnicodeDecodeError, hostconfig.HostConfigError) as exc:
                # A settings file the user cannot read (or reach) may still be one the host reads.
                report.problem(f"{host} ({scope}): cannot read {path}: {exc}")
                continue
            for command in sorted(set(commands)):
                wired += 1
                found.append((host, path, command))
                binary = hostconfig.command_words(command)[0]
                where = f"{host} ({scope}): {path} runs {binary}"
                dirs = hostconfig.launcher_dirs(command)
                if "/" not in binary:  # a project's portable command: from PATH
                    _from_path(report, where, binary)
                elif not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
                    report.problem(f"{where}, which is missing or not executable")
                elif dirs is not None and not _launches_hookgate(dirs, command):
                    report.problem(
                        f"{where} with hookgate from {', '.join(dirs)}, where it is no longer "
                        f"installed; run hookgate install {host} again"
                    )
                else:
                    report.line(where)
            if commands:
                _host_runs_hooks(report, host, scope, path, project_dir)
    if not wired:
        report.warning(
            "no host is wired in your own settings; run hookgate install "
            "claude|codex|copilot|cursor|gemini"
        )
    _layers(report, [command for _, _, command in found])
    return found


def _layers(report: _Report, commands: list[str]) -> None:
    """The ``--policies`` layers the wired hooks run, composed as the hook composes them: their
    base (or the REPLACE-BASE file that drops it), every setting nothing reads, which changes
    nothing (a key the pack renamed, a typo), and every setting a guard cannot act on
    (``packcheck.setting_problems``: a refused pattern, an unknown action)."""
    from hookgate import layers, packcheck
    from hookgate.integrations import hostconfig
    from hookgate.lang.errors import PolicyError

    seen = set()
    for command in commands:
        words = hostconfig.command_words(command)
        paths = tuple(words[i + 1] for i, word in enumerate(words[:-1]) if word == "--policies")
        base = "--no-default-pack" not in words
        if not paths or (paths, base) in seen:
            continue
        seen.add((paths, base))
        where = f"layers {' '.join(paths)}"
        try:
            composed = layers.compose(list(paths), base=base)
        except PolicyError as exc:
            report.problem(f"{where}: {exc}")
            continue
        if composed.replaced_by:
            report.line(f"{where}: the built-in pack replaced ({composed.replaced_by})")
        for line in layers.unread_lines(composed):
            report.warning(f"{where}: {line}")
        for problem in packcheck.setting_problems(composed.data):
            report.problem(f"{where}: {problem['input']}: {problem['message']}")


def _from_path(report: _Report, where: str, binary: str) -> None:
    """A command that finds hookgate on PATH: where this PATH finds it (the host's PATH may
    differ: it is the one the host was started with)."""
    import shutil

    found = shutil.which(binary)
    if found:
        report.line(f"{where} from PATH, now {found}")
    else:
        report.problem(f"{where} from PATH, where it is not: the hook blocks every call")


def _twice(report: _Report, project_dir: Path, managed: list, root: str) -> None:
    """Warn when a host would run hookgate more than once for one call: from its user and its
    project settings, from another host's file it also reads (Copilot runs a repository's
    Claude hooks), or from a managed file and a personal one while the host still runs
    personal hooks. Both run and any deny wins, but every call is judged and logged twice."""
    from hookgate.integrations import hostconfig

    for host in hostconfig.HOSTS:
        files = [str(path) for _, _, path in hostconfig.wired_files(host, project_dir)]
        admin = [m.path for m in managed if m.host == host]
        if admin and files and not _managed_only(host, root):
            files = admin + files
        if len(files) > 1:
            report.warning(
                f"{host} runs hookgate twice for each call, from {' and '.join(files)}; keep one "
                f"(hookgate uninstall {host} --scope user|project)"
            )


def _managed_only(host: str, root: str) -> bool:
    """Whether the host's administrator settings turn off user and project hooks."""
    import json

    from hookgate.integrations import hostconfig, managed

    spec = hostconfig.MANAGED[host]
    if not (spec.only_file and spec.only_key):
        return False
    try:
        text = Path(managed.staged(root, spec.only_file)).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if spec.only_file.endswith(".toml"):
        import tomllib

        try:
            value: object = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return False
    else:
        try:
            value = json.loads(text)
        except ValueError:
            return False
    return isinstance(value, dict) and value.get(spec.only_key) is True


def _launches_hookgate(dirs: list[str], command: str) -> bool:
    """Whether the launcher's directories hold the hookgate module its code imports."""
    module = "launcher.py" if "hookgate.launcher" in command else "cli.py"
    return any(os.path.isfile(os.path.join(d, "hookgate", module)) for d in dirs)


def _host_runs_hooks(report: _Report, host: str, scope: str, path: Path, project: Path) -> None:
    """Whether the host will actually call the hooks in ``path`` (trust, events)."""
    from hookgate.integrations import trust

    try:
        found = trust.problems(host, scope, path, project)
    except trust.TrustError as exc:
        report.problem(f"{host} ({scope}): {exc}")
        return
    for problem in found:
        report.problem(f"{host} ({scope}): {problem}")


def _server(report: _Report, timeout: float) -> object:
    import os

    from hookgate import anchors, sync

    if anchors.present() and os.geteuid() != 0:
        # The token is root's alone: a user sees the anchors, root's pull talks to the server.
        try:
            config = anchors.load()
        except anchors.AnchorError as exc:
            report.problem(f"managed configuration: {exc} (every hook asks until it is fixed)")
            return None
        server = config.server or "no server (the built-in pack, compiled by root's pull)"
        report.line(f"managed: {server}; pulled by root (hookgate-pull.timer or cron)")
        return None
    try:
        login = sync.load_login()
    except sync.SyncError as exc:
        report.problem(str(exc))
        return None
    if login is None:
        report.line("not logged in (local policies only)")
        return None
    report.line(f"{login.server}, pinned bundle key {login.key_id}")
    try:
        _, key_id = sync.fetch_key(login.server, login.token, timeout)
        sync.http_json(
            "GET", login.server + "/v1/bundle", login.token, headers=_etag(), timeout=timeout
        )
    except sync.SyncError as exc:
        report.problem(str(exc))
        return login
    if key_id != login.key_id:
        report.problem(
            f"the server now signs with key {key_id}: pulls are refused until you run "
            "hookgate pull --force-key-rotation (only if the rotation was deliberate)"
        )
    else:
        report.line("reachable, token accepted")
    return login


def _etag() -> dict[str, str]:
    from hookgate import sync

    bundle = sync.active_bundle()
    return {"If-None-Match": f'"{bundle.digest}"'} if bundle else {}


def _bundle(report: _Report, login: object) -> None:
    from hookgate import layers, sync

    # What a team's layers go over, and what a bug report should name.
    report.line(f"built-in pack: {layers.BASE_NAME} {layers.base_version()}")
    path = sync.bundle_path()
    bundle = sync.active_bundle()
    if bundle is None:
        if os.path.exists(path):
            report.problem(f"{path} is unreadable or corrupt; run hookgate pull")
        elif login is not None:
            report.problem("no bundle pulled yet (the default pack is in use); run hookgate pull")
        else:
            report.line("none: hooks use the built-in default pack")
        return
    interval = sync.refresh_interval()
    # Only a signed freshness statement proves the server still holds this revision as
    # current; an unsigned answer (a 304 from anything on the way) proves nothing.
    proven = None if bundle.proven_at is None else time.time() - bundle.proven_at
    freshness = "never proven" if proven is None else f"proven current {_ago(proven)} ago"
    report.line(
        f"revision {bundle.revision} from {bundle.server}, {freshness} by the server's "
        f"signed freshness statement ({len(bundle.policies)} policies; refreshed in the "
        f"background after {_ago(interval)})"
    )
    if login is not None and bundle.server != login.server:
        report.warning(f"the bundle came from {bundle.server}, not from {login.server}")
    if proven is None or proven > max(interval * 12, 86400):
        report.warning("the server has not proven this bundle current for a long time")


def _files(report: _Report) -> None:
    from hookgate import decisionlog, paths, sync

    for name, directory in (("config", paths.config_dir()), ("cache", paths.cache_dir())):
        if not os.path.exists(directory):
            report.line(f"{name}: {directory} (not created yet)")
            continue
        mode = os.stat(directory).st_mode
        if mode & (stat.S_IWGRP | stat.S_IWOTH):
            report.problem(f"{name}: {directory} is writable by other users; chmod 700 it")
        else:
            report.line(f"{name}: {directory}")
    compiled = paths.compiled_dir()
    if os.path.exists(compiled) and os.stat(compiled).st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        report.problem(f"compile cache {compiled} is writable by other users; delete it")
    login_file = sync.login_path()
    if os.path.exists(login_file) and os.stat(login_file).st_mode & 0o077:
        report.problem(f"{login_file} holds a token but is readable by others; chmod 600 it")
    report.line(f"decision log: {decisionlog.pending_count()} decisions waiting for upload")
    _warm(report)


def _warm(report: _Report) -> None:
    from hookgate import warm

    if not warm.idle_seconds():
        report.line(
            "warm processes: off (HOOKGATE_WARM), or not on Linux: every hook starts from scratch"
        )
        return
    running = warm.processes()
    if not running:
        report.line("warm processes: none running (the next wired hook call starts one)")
    for pid, calls, argv in running:
        report.line(f"warm process {pid}: {' '.join(argv)} ({calls} calls served)")


def _errors(report: _Report) -> None:
    from hookgate import telemetry

    unwritable = _unwritable(telemetry.telemetry_path())
    if unwritable:
        report.problem(f"telemetry cannot be written ({unwritable}): failures go unrecorded")
    errors = [r for r in telemetry.read_records(500) if r.get("event") == "error"][-5:]
    if not errors and not unwritable:
        report.line("none")
    for record in errors:
        source = record.get("source") or record.get("host") or "error"
        pack = f" [pack={record['pack']}]" if record.get("pack") else ""
        kind = f"limit {record.get('limit')}" if record.get("kind") == "limit" else "fault"
        report.line(
            f"{record.get('time', '?')}{pack} {source}: {record.get('message', '')} ({kind})"
        )


def _duration(text: str) -> float:
    """``30m``, ``2h``, ``1d``, ``90s`` or plain seconds, for ``--since``."""
    unit = _UNITS.get(text[-1:], None)
    try:
        value = float(text[:-1] if unit else text) * (unit or 1)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a duration such as 30m, 2h or 1d")
    return value


def _hook_faults(report: _Report, since: float) -> None:
    """Faults and limits the hook recorded in the last ``since`` seconds, grouped by pack and
    message. A fault is a problem: the failure policy answered (under an open policy, an
    allow) where the policies should have. A limit is a warning: the limit action answered."""
    from hookgate import decisionlog

    try:
        records, total = decisionlog.recent_errors(since)
    except OSError as exc:
        report.problem(f"cannot read the decision log {decisionlog.log_dir()}: {exc}")
        return
    # (kind, pack, source, limit, message) -> [count, last time, outcomes]
    groups: dict[tuple, list] = {}
    for record in records:
        for error in record.get("errors") or []:
            if not isinstance(error, dict):
                continue
            key = tuple(
                str(error.get(name) or "")
                for name in ("kind", "pack", "source", "limit", "message")
            )
            group = groups.setdefault(key, [0, "", set()])
            group[0] += 1
            group[1] = max(group[1], str(record.get("time") or ""))
            group[2].add(str(record.get("outcome")))
    if not groups:
        report.line(f"none in {total} recorded hook calls")
        return
    for (kind, pack, source, limit, message), (count, last, outcomes) in groups.items():
        where = f"pack {pack}" if pack else "the whole evaluation"
        text = (
            f"{count} hook call(s), last at {last}: {kind} in {where}: {source}: {message}"
            f"{f' (limit: {limit})' if limit else ''}; answered {', '.join(sorted(outcomes))}"
        )
        if kind == "limit":
            report.warning(text)
        else:
            report.problem(text + " by the failure policy, not by the policies")


def _unwritable(path: str) -> str | None:
    """Why a record could not be appended to ``path`` (None when it could), without writing."""
    if os.path.lexists(path):
        if not os.path.isfile(path):
            return f"{path} is not a regular file"
        return None if os.access(path, os.W_OK) else f"{path} is not writable"
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(parent):  # the first existing ancestor: the rest can be created
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        return f"{parent} is not a directory"
    return None if os.access(parent, os.W_OK | os.X_OK) else f"{parent} is not writable"


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"
