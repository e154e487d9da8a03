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
import os
import sys

from hookgate import jsonio

OK, REFUSED, USAGE, CONFLICT, DENIED, SERVER = 0, 1, 2, 3, 4, 5


class CommandError(Exception):
    """Stops a command with ``code`` and a message for stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


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


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", required=True, help="the central server's base URL")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")


def read_directory(directory: str) -> tuple[dict[str, str], dict[str, object]]:
    """``(policies by id, data documents by path)`` of ``directory``; ``CommandError`` naming
    the file for anything unreadable, invalid or ambiguous."""
    from hookgate.lang.errors import PolicyError
    from hookgate.sources import _read, _read_json, _walk, merge_data

    if not os.path.isdir(directory):
        raise CommandError(USAGE, f"{directory}: not a directory")
    policies: dict[str, str] = {}
    where: dict[str, str] = {}
    top: dict = {}
    nested: dict[str, dict] = {}
    try:
        for file in sorted(_walk(directory)):
            name = os.path.basename(file)
            if file.endswith(".rego"):
                if name in where:
                    raise CommandError(USAGE, f"{file}: the policy id {name} is also {where[name]}")
                where[name] = file
                policies[name] = _read(file)
                continue
            folders = os.path.relpath(os.path.dirname(file), directory)
            document = _read_json(file)
            if folders == os.curdir:
                merge_data(top, (), document, file)
            else:
                merge_data(
                    nested.setdefault("/".join(folders.split(os.sep)), {}), (), {"": document}, file
                )
    except PolicyError as exc:
        raise CommandError(USAGE, exc.render() if hasattr(exc, "render") else str(exc)) from None
    documents: dict[str, object] = dict(top)
    for path, holder in nested.items():
        if path in documents:
            raise CommandError(USAGE, f"{directory}: data path {path} is set twice")
        documents[path] = holder[""]
    return policies, documents


def request(
    method: str, server: str, path: str, body: object, timeout: float
) -> tuple[int, object]:
    """``(status, JSON answer)`` for any HTTP status; ``CommandError`` when the token is
    missing or the server unreachable."""
    import urllib.error
    import urllib.request

    token = os.environ.get("HOOKGATE_TOKEN", "").strip()
    if not token:
        raise CommandError(DENIED, "set $HOOKGATE_TOKEN to an API token (editor role to publish)")
    data = jsonio.dumps(body, ensure_ascii=False).encode("utf-8")
    url = server.rstrip("/") + path
    sent = urllib.request.Request(url, data=data, method=method)
    sent.add_header("Content-Type", "application/json")
    sent.add_header("Accept", "application/json")
    sent.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(sent, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CommandError(SERVER, f"{url}: server unreachable ({reason})") from None
    try:
        answer = jsonio.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        raise CommandError(SERVER, f"{url}: HTTP {status}, and the answer is not JSON") from None
    if status in (401, 403):
        raise CommandError(DENIED, f"{url}: HTTP {status}: {_detail(answer)}")
    return status, answer


def _detail(answer: object) -> str:
    detail = answer.get("detail") if isinstance(answer, dict) else answer
    if isinstance(detail, list):  # validation errors: name each field
        return "; ".join(f"{item.get('field')}: {item.get('msg')}" for item in detail)
    return str(detail)


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
        raise CommandError(CONFLICT, _detail(answer))
    if status not in (200, 422) or not isinstance(answer, dict) or "changes" not in answer:
        raise CommandError(SERVER, f"HTTP {status}: {_detail(answer)}")
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
            print(f"impact: not computed (HTTP {status}: {_detail(report)})")
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
