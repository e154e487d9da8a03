"""``hookgate pull [--background]``: fetch, verify, compile and install the central bundle, then
upload pending decisions. ``--background`` is the detached refresh a stale hook starts: it prints
nothing and leaves failures to telemetry.

In managed mode (``/etc/hookgate/config.json``) it runs as root, from ``deploy/``'s systemd timer
or cron line, with the server, key and token of that file, and writes root's cache under
``/var/lib/hookgate``; run by anyone else it refuses."""

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
    from hookgate import sync

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
    if args.background:
        return 0 if report.ok else 1
    return print_report(report)


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
