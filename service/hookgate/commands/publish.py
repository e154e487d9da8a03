"""``hookgate publish DIR --server URL --message TEXT``: make the server's team layer equal to
a directory (policies and data: additions, changes, deletions) as one change set. The layer
composes over the built-in pack (the base layer) the server runs, as ``--policies DIR`` does
locally: a directory of only the team's guards and the data keys it changes keeps every default
guard. ``--replace-base`` (or a ``REPLACE-BASE`` file in DIR, which ``hookgate export`` writes
for such a server) states that the layer is the whole set instead, as ``--no-default-pack``
does locally; ``--dry-run`` always shows that statement.

The directory is read as ``hookgate test`` reads it: every ``.rego`` file (test modules
included, so the server runs them) is a policy whose id is its file name; a ``.json`` file at
the top holds data documents by their top-level key (``data.json`` with ``{"hookgate": …}`` is
the document ``hookgate``), one under ``a/b/`` is the document at path ``a/b``. A file or
document the same as the base's is no change (a copy of ``policies/`` publishes nothing).

The token comes from ``$HOOKGATE_TOKEN`` (an editor's; never on the command line, where the
process list would show it). Exit codes, for CI:

- 0: published, nothing to change, or a dry-run whose check passed
- 1: refused: the set does not compile or a test fails (diagnostics on stderr)
- 2: usage, or the directory cannot be read
- 3: ``--expect-revision`` is not the server's revision (it moved): read it again
- 4: the token is missing, unknown, or its role is too low
- 5: the server is unreachable or answered an error
- 7: refused as weaker: the change removes a guard (a guard's package gone, the base's guards
  among them when the base is replaced, or newly named in ``data.hookgate.disabled``), puts a
  built-in guard into a looser mode (``data.hookgate.modes``: enforce → warn → audit) or turns
  recorded deny/ask decisions into allows (the impact of
  the newest ``--impact-limit`` records); ``--allow-weaker`` publishes it anyway. Checked on a
  dry-run too, so CI sees it before merging.
"""

from __future__ import annotations

import argparse
import sys

from hookgate import layers, modes, progress
from hookgate.commands.client import (
    CONFLICT,
    OK,
    REFUSED,
    SERVER,
    WEAKER,
    CommandError,
    add_server_arguments,
    detail,
    fetch_base,
    fetch_set,
    read_directory,
    request,
)
from hookgate.impact import weakening


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
        help="replay the newest N recorded decisions to find weakened ones (default 1000)",
    )
    parser.add_argument(
        "--replace-base",
        action="store_true",
        help="the directory is the whole set: the built-in pack is not composed under it (as "
        f"--no-default-pack locally; a {layers.REPLACE_BASE_FILE} file in DIR says the same)",
    )
    parser.add_argument(
        "--allow-weaker",
        action="store_true",
        help="publish even if the change removes a guard or turns recorded denies/asks into "
        "allows (otherwise refused, exit 7)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        return _publish(args)
    except CommandError as exc:
        print(f"hookgate publish: {exc}", file=sys.stderr)
        return exc.code


def _publish(args: argparse.Namespace) -> int:
    policies, documents = read_directory(args.directory)
    args.replace_base = args.replace_base or layers.replaces_base(args.directory)
    weaker = None
    if not args.dry_run:
        # Before anything is written: the impact replays the draft, then the guards compare.
        report = _impact(args, policies, documents)
        if report is None:
            return REFUSED
        weaker = _weaker(args, policies, documents, report)
        if weaker and not args.allow_weaker:
            return _refuse_weaker(weaker)
    body = {
        "policies": policies,
        "data": documents,
        "replace_base": args.replace_base,
        "message": args.message,
        "expect_revision": args.expect_revision,
        "dry_run": args.dry_run,
    }
    verb = "checking" if args.dry_run else "publishing"
    with progress.Progress(f"{verb} the change set on the server", ticking=True):
        status, answer = request("POST", args.server, "/v1/changesets", body, args.timeout)
    if status == 412:
        raise CommandError(CONFLICT, detail(answer))
    if status not in (200, 422) or not isinstance(answer, dict) or "changes" not in answer:
        raise CommandError(SERVER, f"HTTP {status}: {detail(answer)}")
    if args.dry_run:
        from hookgate.commands.impact import disabled_statement

        for change in answer["changes"]:
            sys.stdout.write(change["diff"])
        if args.replace_base:
            print(_REPLACED)
        off = disabled_statement(documents)
        if off:
            print(f"guards turned off (data.hookgate.disabled): {', '.join(off)}")
        relaxed = modes.statement(layers.place_documents(documents))
        if relaxed:
            print(relaxed)
    _print_changes(answer)
    _print_check(answer)
    if args.dry_run:
        from hookgate.commands.impact import print_report, replay

        impact_body = {"policies": policies, "data": documents, "complete": True}
        impact_body["replace_base"] = args.replace_base
        impact_body["limit"] = args.impact_limit
        status, report = replay(args.server, impact_body, args.timeout)
        if status == 200 and isinstance(report, dict):
            print_report(report)
            weaker = _weaker(args, policies, documents, report)
        else:
            print(f"impact: not computed (HTTP {status}: {detail(report)})")
    if not answer["ok"]:
        print("refused: nothing was changed", file=sys.stderr)
        return REFUSED
    if args.dry_run and weaker and not args.allow_weaker:
        return _refuse_weaker(weaker)
    if weaker:
        _print_weaker(weaker, "allowed by --allow-weaker: ")
    if args.dry_run:
        print(f"dry-run: nothing was changed (server at revision {answer['revision']})")
    elif answer["applied"]:
        print(f"published bundle revision {answer['revision']} (was {answer['base_revision']})")
    else:
        print(f"nothing to change: the server already has this set (revision {answer['revision']})")
    return OK


_REPLACED = (
    f"base {layers.BASE_NAME} replaced (--replace-base or {layers.REPLACE_BASE_FILE}): the "
    "directory is the whole set"
)


def _print_changes(answer: dict) -> None:
    signs = {"add": "+", "change": "~", "delete": "-"}
    prefixes = {"policy": "", "data": "data/", "base": "base "}
    for change in answer["changes"]:
        name = prefixes.get(change["kind"], "") + change["id"]
        revision = f" (revision {change['revision']})" if change.get("revision") else ""
        print(f"{signs[change['op']]} {name}{revision}")


def _print_check(answer: dict) -> None:
    tests = answer["tests"]
    for diagnostic in answer["diagnostics"]:
        print(diagnostic["text"], file=sys.stderr)
    for warning in answer.get("warnings") or []:  # a setting nothing reads changes nothing
        print(f"warning: {warning}", file=sys.stderr)
    verdict = "ok" if answer["ok"] else "FAILED"
    print(f"check: {verdict}; tests: {tests['passed']} passed, {len(tests['failed'])} failed")


def _impact(args: argparse.Namespace, policies: dict, documents: dict) -> dict | None:
    """The impact report of the draft, or None after printing why the draft is refused."""
    from hookgate.commands.impact import replay

    body = {"policies": policies, "data": documents, "complete": True, "limit": args.impact_limit}
    body["replace_base"] = args.replace_base
    status, report = replay(args.server, body, args.timeout)
    if status == 422 and isinstance(report, dict):
        for diagnostic in report.get("diagnostics") or []:
            print(diagnostic.get("text", diagnostic), file=sys.stderr)
        print("refused: nothing was changed", file=sys.stderr)
        return None
    if status != 200 or not isinstance(report, dict):
        raise CommandError(SERVER, f"impact: HTTP {status}: {detail(report)}")
    return report


def _weaker(args: argparse.Namespace, policies: dict, documents: dict, report: dict) -> dict:
    """What the change weakens: ``{"removed": [guard…], "disabled": [guard…], "decisions":
    n, "transitions": {...}}``, empty when nothing. Guards are compared by name
    (``layers.guard_names``) over the composed sets: the server's team layer (read as
    ``hookgate export`` reads it) and base guards, against the directory's layer and the same
    base unless it is replaced."""
    with progress.Progress("reading the server's active set", ticking=True):
        old_policies, old_documents = fetch_set(args.server, args.timeout)
        base = fetch_base(args.server, args.timeout)
    base_guards = set(base["guards"])
    before = layers.guard_names(old_policies) | (set() if base["replaced"] else base_guards)
    after = layers.guard_names(policies) | (set() if args.replace_base else base_guards)
    was_off = set(layers.disabled_guards(layers.place_documents(old_documents)))
    now_off = set(layers.disabled_guards(layers.place_documents(documents)))
    found: dict = {}
    removed = sorted(before - after)
    disabled = sorted((now_off - was_off) & before)
    transitions = weakening(report.get("transitions", {}))
    if removed:
        found["removed"] = removed
    if disabled:
        found["disabled"] = disabled
    # A built-in guard put into warn or audit mode (a team's own guard is the team's call).
    relaxed = modes.relaxed(
        layers.place_documents(old_documents),
        layers.place_documents(documents),
        set() if args.replace_base else base_guards & after,
    )
    if relaxed:
        found["relaxed"] = relaxed
    if transitions:
        found["decisions"] = sum(transitions.values())
        found["transitions"] = transitions
    return found


def _print_weaker(weaker: dict, lead: str = "") -> None:
    if weaker.get("removed"):
        print(f"{lead}weaker: guards removed: {', '.join(weaker['removed'])}")
    if weaker.get("disabled"):
        names = ", ".join(weaker["disabled"])
        print(f"{lead}weaker: guards turned off (data.hookgate.disabled): {names}")
    if weaker.get("relaxed"):
        names = ", ".join(weaker["relaxed"])
        print(f"{lead}weaker: guards not enforced (data.hookgate.modes): {names}")
    if weaker.get("decisions"):
        how = ", ".join(f"{name}: {n}" for name, n in weaker["transitions"].items())
        print(f"{lead}weaker: {weaker['decisions']} recorded decisions would become allows ({how})")


def _refuse_weaker(weaker: dict) -> int:
    _print_weaker(weaker)
    print(
        "refused: this change weakens protection; nothing was changed (publish with "
        "--allow-weaker to publish it anyway)",
        file=sys.stderr,
    )
    return WEAKER
