"""``hookgate login --server URL --token T``: store the server and token (0600), pin the bundle
key, and pull the first bundle. Personal mode only: in managed mode the server, the pinned key
and the token's file are root's, in ``/etc/hookgate/config.json``, and login refuses."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, help="the central server's base URL")
    parser.add_argument(
        "--token",
        required=True,
        help="an API token; `-` reads it from stdin (keeps it out of the process list)",
    )
    parser.add_argument(
        "--force-key-rotation",
        action="store_true",
        help="accept a bundle key different from the one pinned for this server",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="allow plain http:// to a server other than this machine (loopback is always allowed)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")


def run(args: argparse.Namespace) -> int:
    from hookgate import sync

    token = sys.stdin.readline().strip() if args.token == "-" else args.token
    if not token:
        print("hookgate login: --token: empty token", file=sys.stderr)
        return 2
    try:
        login = sync.login(
            args.server,
            token,
            force_key_rotation=args.force_key_rotation,
            insecure=args.insecure,
            timeout=args.timeout,
        )
    except sync.SyncError as exc:
        print(f"hookgate login: {exc}", file=sys.stderr)
        return 1
    print(f"logged in to {login.server}; pinned bundle key {login.key_id}")
    print(f"credentials stored in {sync.login_path()} (readable only by you)")
    from hookgate.commands.pull import print_report

    return print_report(sync.refresh(timeout=args.timeout))
