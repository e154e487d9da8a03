"""``hookgate impact DIR --server URL``: what the policies and data in DIR would change, replayed
on the decisions the server recorded (their masked input documents), before they are enforced.

DIR is read as ``hookgate publish`` reads it and compared with the server's active set. The
token comes from ``$HOOKGATE_TOKEN``, of the role the server lets read recorded data (editor
unless ``hookgate serve --recorded-data-role`` names another). Exit codes, for CI:

- 0: no recorded decision would change
- 1: the draft does not compile
- 2: usage, or the directory cannot be read
- 4: the token is missing, unknown, or its role is too low
- 5: the server is unreachable or answered an error
- 6: some recorded decisions would change (the report says which)
"""

from __future__ import annotations

import argparse
import sys
import unicodedata

from hookgate import layers, progress
from hookgate.commands.client import (
    DENIED,
    OK,
    REFUSED,
    SERVER,
    CommandError,
    add_server_arguments,
    detail,
    read_directory,
    request,
)

CHANGED = 6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", help="the draft policies and data")
    add_server_arguments(parser)
    parser.add_argument("--limit", type=int, default=1000, help="the newest N decisions (≤ 10000)")
    parser.add_argument("--since", help="decision time ≥ this (ISO 8601)")
    parser.add_argument("--until", help="decision time < this (ISO 8601)")
    parser.add_argument("--host", help="only decisions of this host (claude, codex, …)")
    parser.add_argument("--pack", help="only decisions a pack of this name matched")
    parser.add_argument("--outcome", choices=("deny", "ask", "rewrite", "allow"))
    parser.add_argument("--session", help="only decisions of this session id")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def run(args: argparse.Namespace) -> int:
    try:
        return _impact(args)
    except CommandError as exc:
        print(f"hookgate impact: {exc}", file=sys.stderr)
        return exc.code


def _impact(args: argparse.Namespace) -> int:
    policies, documents = read_directory(args.directory)
    body = {"policies": policies, "data": documents, "complete": True, "limit": args.limit}
    # The directory is a team layer, over the base unless it says it replaces it (as publish).
    body["replace_base"] = layers.replaces_base(args.directory)
    filters = {
        "since": args.since,
        "until": args.until,
        "host": args.host,
        "pack": args.pack,
        "outcome": args.outcome,
        "session_id": args.session,
    }
    body.update({key: value for key, value in filters.items() if value is not None})
    status, report = replay(args.server, body, args.timeout)
    if status == 422 and isinstance(report, dict) and report.get("diagnostics"):
        for diagnostic in report["diagnostics"]:
            print(diagnostic["text"], file=sys.stderr)
        return REFUSED
    if status != 200 or not isinstance(report, dict):
        code = DENIED if status in (401, 403) else SERVER
        raise CommandError(code, f"HTTP {status}: {detail(report)}")
    off = disabled_statement(documents)
    if args.json:
        import json

        report["disabled"] = off
        # ASCII escapes: raw C1 controls (U+009B is a terminal's CSI) and line separators in a
        # recorded command would otherwise reach the terminal inside the JSON strings.
        print(json.dumps(report, indent=2, ensure_ascii=True))
    else:
        if off:
            print(f"guards turned off (data.hookgate.disabled): {', '.join(off)}")
        print_report(report)
    return CHANGED if report["changed"] else OK


def replay(server: str, body: dict, timeout: float) -> tuple[int, object]:
    """``POST /v1/impact``: the server replays up to ``body["limit"]`` recorded decisions, which
    takes it seconds; a terminal sees the wait."""
    label = f"impact: replaying up to {body['limit']} recorded decisions on the server"
    with progress.Progress(label, ticking=True):
        return request("POST", server, "/v1/impact", body, timeout)


def disabled_statement(documents: dict) -> list[str]:
    """The guards the draft's data turns off (``data.hookgate.disabled``), to show them."""
    from hookgate import layers

    return layers.disabled_guards(layers.place_documents(documents))


# Characters a terminal or a CI log acts on: controls (ESC, CR, C1's CSI), format characters
# (bidirectional overrides that reorder what is shown), line and paragraph separators.
_UNPRINTED = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}
# CI log commands: GitHub Actions reads ``::name ...::`` at a line's start after its leading
# blanks, Azure Pipelines reads ``##vso[`` and ``##[`` anywhere in a line.
_CI_COMMANDS = (("::", "\\x3a:"), ("##vso[", "\\x23#vso["), ("##[", "\\x23#["))


def shown(text: object) -> str:
    """``text`` (agent-controlled: commands, reasons, hosts) as one inert line: characters a
    terminal or a CI runner acts on become visible ``\\xNN``/``\\uNNNN`` escapes, so a recorded
    command can neither forge report lines nor run terminal or CI log commands."""
    out = []
    for char in str(text):
        if unicodedata.category(char) in _UNPRINTED:
            code = ord(char)
            escape = "\\x%02x" if code < 0x100 else "\\u%04x" if code < 0x10000 else "\\U%08x"
            out.append(escape % code)
        else:
            out.append(char)
    line = "".join(out)
    for command, escaped in _CI_COMMANDS:
        line = line.replace(command, escaped)
    return line


def print_report(report: dict) -> None:
    """The impact report for a person: counts, transitions, packs and patterns, examples. Every
    text the report carries came from recorded decisions, so it is printed through ``shown``."""
    print(
        f"impact: {report['changed']} of {report['replayed']} replayed decisions would change "
        f"(considered {report['considered']}, {report['skipped_without_input']} without a "
        f"recorded input, {report['truncated_inputs']} with a cut input; active set at "
        f"revision {shown(report['bundle_revision'])})"
    )
    if report.get("drifted"):
        print(
            f"  note: {report['drifted']} replays on the active set differ from what was "
            "recorded (an older bundle, or a fact about the machine the replay lacks)"
        )
    for title, counts in (
        ("by transition", report["transitions"]),
        ("by pack", report["by_pack"]),
        ("by pattern", report["by_pattern"]),
    ):
        if counts:
            print(f"  {title}:")
            for name, count in counts.items():
                print(f"    {count:6d}  {shown(name)}")
    if report["examples"]:
        print("  examples:")
    for example in report["examples"]:
        what = example["command"] or example["tool_name"] or "?"
        print(
            f"    {shown(example['before'])}→{shown(example['after'])}  {shown(example['host'])}  "
            f"{shown(example['time'])}  {shown(what[:120])}"
        )
        for reason in example["reasons_after"][:2]:
            print(f"        {shown(reason[:160])}")
