"""``hookgate token``: create, list and revoke the server's API tokens, directly in its
database (so the first tokens need no running server).

A token is printed once, at creation: only its hash is stored.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="create a token and print it (once)")
    create.add_argument(
        "--role", required=True, choices=("agent", "viewer", "editor", "admin"), help="its role"
    )
    create.add_argument("--name", help="who or what it is for (default: the role)")
    listing = actions.add_parser("list", help="list tokens (names, roles; never the tokens)")
    revoke = actions.add_parser("revoke", help="revoke a token by its id")
    revoke.add_argument("id", type=int)
    for sub in (create, listing, revoke):
        sub.add_argument("--db", metavar="URL", help="the server's database (as for serve)")


def run(args: argparse.Namespace) -> int:
    import sys

    import sqlalchemy

    from hookgate.commands.serve import open_store
    from hookgate.server.store import StoreError

    try:
        store = open_store(args.db)
        if args.action == "create":
            print(store.create_token(args.role, args.name or args.role))
        elif args.action == "list":
            for t in store.list_tokens():
                state = f"revoked {t['revoked_at']:%Y-%m-%d}" if t["revoked_at"] else "active"
                print(f"{t['id']}\t{t['role']}\t{t['name']}\t{state}")
        else:
            store.revoke_token(args.id)
    except StoreError as exc:
        print(f"hookgate token: {exc.message}", file=sys.stderr)
        return 1
    except sqlalchemy.exc.SQLAlchemyError as exc:
        print(f"hookgate token: database error: {type(exc).__name__}", file=sys.stderr)
        return 1
    return 0
