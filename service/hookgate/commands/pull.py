"""``hookgate pull [--background]``: fetch, verify, compile and install the central bundle, then
upload pending decisions. ``--background`` is the detached refresh a stale hook starts: it prints
nothing and leaves failures to telemetry.

In managed mode (``/etc/hookgate/config.json``) it runs as root, from ``deploy/``'s systemd timer
or cron line, with the server, key and token of that file, and writes root's cache under
``/var/lib/hookgate``; run by anyone else it refuses. There it also writes the hook's module
file (``launcher.write_modules``), which the agent's hooks read and cannot write."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookgate.sync import RefreshReport


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--background", action="store_true", help="quiet mode for the hook's detached refresh"
    )
    parser.add_argument(
        "--force-key-rotation",
        action="store_true",
        help="re-pin the server's current bundle key before pulling (personal mode; a managed "
        "install's key is changed in /etc/hookgate/config.json)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")


def run(args: argparse.Namespace) -> int:
    from hookgate import progress, sync

    if args.background:
        progress.silence()
    try:
        if args.force_key_rotation:
            login = sync.rotate_key(timeout=args.timeout)
            if not args.background:
                print(f"pinned bundle key {login.key_id} of {login.server}")
        report = sync.refresh(timeout=args.timeout)
    except sync.SyncError as exc:
        if not args.background:
            print(f"hookgate pull: {exc}", file=sys.stderr)
        return 1
    modules = _managed_modules(args.background)
    if args.background:
        return 0 if report.ok else 1
    code = print_report(report)
    if modules:
        print(f"hook modules: {modules}")
    return code


def _managed_modules(quiet: bool) -> str | None:
    """Root's pull in managed mode: the hook's module file, written again (it follows the
    installed code and the compiled pack). Only saves the hooks time: a failure is reported,
    the pull's outcome stands."""
    import os

    from hookgate import anchors

    if not anchors.present() or os.geteuid() != anchors.ROOT_UID:
        return None
    try:
        return write_hook_modules()
    except (OSError, RuntimeError) as exc:
        if not quiet:
            print(f"hookgate pull: hook modules not written: {exc}", file=sys.stderr)
        return None


SAMPLE_CALL = {
    "session_id": "hookgate-pull",
    "cwd": "/",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git status && ls -la"},
}


def write_hook_modules() -> str:
    """Write the managed hook's module file, in a process started as the hook starts (this
    interpreter, ``-I -S``, hookgate's directory and this environment's site-packages ahead of
    nothing else), so that its modules are the files the hook imports; returns its path.
    ``RuntimeError`` naming what failed."""
    import json
    import os
    import subprocess
    import sysconfig

    import hookgate
    from hookgate import anchors

    top = os.path.dirname(os.path.dirname(os.path.abspath(hookgate.__file__)))
    site = sysconfig.get_paths()
    dirs = list(dict.fromkeys([top, site["purelib"], site["platlib"]]))
    code = (
        f"import sys;sys.path[3:3]={json.dumps(dirs)};from hookgate import anchors;"
        "anchors.CONFIG,anchors.STATE=sys.argv[1:3];from hookgate.launcher import write_modules;"
        "print(write_modules(sys.stdin.buffer.read()))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOOKGATE_", "PYTHON"))}
    env["HOOKGATE_WARM"] = "0"
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", code, anchors.CONFIG, anchors.STATE],
        input=json.dumps(SAMPLE_CALL).encode(),
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:]
        raise RuntimeError(f"{sys.executable} exited {done.returncode}: {' '.join(tail)}")
    return done.stdout.decode().strip()


def print_report(report: RefreshReport) -> int:
    """Print a refresh's outcome for a person; the exit code (1 when anything failed)."""
    if report.pulled is not None:
        verb = "installed" if report.pulled.status == "updated" else "unchanged:"
        print(f"bundle {verb} revision {report.pulled.revision}")
    if report.pull_error:
        print(
            f"hookgate pull: {report.pull_error} (the last good bundle stays in use)",
            file=sys.stderr,
        )
    if report.uploaded:
        print(f"uploaded {report.uploaded} decisions")
    if report.upload_error:
        print(
            f"hookgate pull: decision upload: {report.upload_error} (kept for the next pull)",
            file=sys.stderr,
        )
    return 0 if report.ok else 1
