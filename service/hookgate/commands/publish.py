"""``hookgate publish DIR --server URL --message TEXT``: make the server's active set equal to a
directory (policies and data: additions, changes, deletions) as one change set.

The directory is read as ``hookgate test`` reads it: every ``.rego`` file (test modules
included, so the server runs them) is a policy whose id is its file name; a ``.json`` file at
the top holds data documents by their top-level key (``data.json`` with ``{"hookgate": …}`` is
the document ``hookgate``), one under ``a/b/`` is the document at path ``a/b``.

The token comes from ``$HOOKGATE_TOKEN`` (an editor's; never on the command line, where the
process list would show it). Exit codes, for CI:

- 0: published, nothing to change, or a dry-run whose check passed
- 1: refused: the set does not compile or a test fails (diagnostics on stderr)
- 2: usage, or the directory cannot be read
- 3: ``--expect-revision`` is not the server's revision (it moved): read it again
- 4: the token is missing, unknown, or its role is too low
- 5: the server is unreachable or answered an error
"""

from __future__ import annotations

import argparse
import sys

from hookgate.commands.client import (
    CONFLICT,
    OK,
    REFUSED,
    SERVER,
    CommandError,
    add_server_arguments,
    detail,
    read_directory,
    request,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="policies and data to publish")
    add_server_arguments(parser)
    parser.add_argument("--message", "-m", required=True, help="why; kept with every revision")
    parser.add_argument(
        "--expect-revision",
        type=int,
        metavar="N",
        help="refuse (exit 3) unless the server's bundle revision is N",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the per-file diff, the check result and the impact; change nothing",
    )
    parser.add_argument(
        "--impact-limit",
        type=int,
        default=1000,
        metavar="N",
        help="with --dry-run: replay the newest N recorded decisions (default 1000)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _publish(args)
    except CommandError as exc:
        print(f"hookgate publish: {exc}", file=sys.stderr)
        return exc.code


def _publish(args: argparse.Namespace) -> int:
    policies, documents = read_directory(args.directory)
    body = {
        "policies": policies,
        "data": documents,
        "message": args.message,
        "expect_revision": args.expect_revision,
        "dry_run": args.dry_run,
    }
    status, answer = request("POST", args.server, "/v1/changesets", body, args.timeout)
    if status == 412:
        raise CommandError(CONFLICT, detail(answer))
    if status not in (200, 422) or not isinstance(answer, dict) or "changes" not in answer:
        raise CommandError(SERVER, f"HTTP {status}: {detail(answer)}")
    if args.dry_run:
        for change in answer["changes"]:
            sys.stdout.write(change["diff"])
    _print_changes(answer)
    _print_check(answer)
    if args.dry_run:
        from hookgate.commands.impact import print_report

        impact_body = {"policies": policies, "data": documents, "complete": True}
        impact_body["limit"] = args.impact_limit
        status, report = request("POST", args.server, "/v1/impact", impact_body, args.timeout)
        if status == 200 and isinstance(report, dict):
            print_report(report)
        else:
            print(f"impact: not computed (HTTP {status}: {detail(report)})")
    if not answer["ok"]:
        print("refused: nothing was changed", file=sys.stderr)
        return REFUSED
    if args.dry_run:
        print(f"dry-run: nothing was changed (server at revision {answer['revision']})")
    elif answer["applied"]:
        print(f"published bundle revision {answer['revision']} (was {answer['base_revision']})")
    else:
        print(f"nothing to change: the server already has this set (revision {answer['revision']})")
    return OK


def _print_changes(answer: dict) -> None:
    signs = {"add": "+", "change": "~", "delete": "-"}
    for change in answer["changes"]:
        name = change["id"] if change["kind"] == "policy" else f"data/{change['id']}"
        revision = f" (revision {change['revision']})" if change.get("revision") else ""
        print(f"{signs[change['op']]} {name}{revision}")


def _print_check(answer: dict) -> None:
    tests = answer["tests"]
    for diagnostic in answer["diagnostics"]:
        print(diagnostic["text"], file=sys.stderr)
    verdict = "ok" if answer["ok"] else "FAILED"
    print(f"check: {verdict}; tests: {tests['passed']} passed, {len(tests['failed'])} failed")
