"""``hookgate eval``: the hook itself. One payload on stdin, the host's response on stdout.

This is the hot path of every tool call, so it imports only what evaluation needs, and it never
breaks the agent: whatever happens, a fail-open answer is written and the exit code is 0 (unless
the failure policy is ``closed``), with the failure recorded in telemetry. Nothing read from the
payload is ever executed or handed to a shell.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookgate.decision import Decision

HOSTS = ("auto", "claude", "codex", "copilot", "gemini", "cursor", "amplifier")
MAX_PAYLOAD_BYTES = 4 * 1024 * 1024


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--policies",
        action="append",
        metavar="PATH",
        help="policy files or directories (repeatable); default: the pulled bundle, else the "
        "built-in default pack",
    )
    parser.add_argument("--host", choices=HOSTS, default="auto", help="the calling host")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="write which policies ran, which rules fired and print() output to stderr",
    )
    parser.add_argument(
        "--failure-policy",
        choices=("open", "closed"),
        help="what to answer if hookgate fails (default: $HOOKGATE_FAILURE_POLICY, else open)",
    )


def run(args: argparse.Namespace) -> int:
    host = None if args.host == "auto" else args.host
    revision = None
    try:
        decision, revision = _decide(args, host)
    except Exception as exc:  # the last line of defence: the agent's tool call must go on
        from hookgate.decision import Decision

        decision = Decision.failure("internal", f"{type(exc).__name__}: {exc}", False, host=host)
    return _answer(decision, host, args.explain, revision)


def _decide(args: argparse.Namespace, host: str | None) -> tuple[Decision, int | None]:
    """The decision, and the revision of the pulled bundle that made it (None: not a bundle)."""
    from hookgate.config import ConfigError, failure_policy
    from hookgate.decision import Decision
    from hookgate.engine import Engine

    payload = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    try:
        closed = failure_policy(None, args.failure_policy) == "closed"
    except ConfigError as exc:
        return Decision.failure("config", str(exc), False, host=host), None
    if len(payload) > MAX_PAYLOAD_BYTES:
        message = f"payload larger than {MAX_PAYLOAD_BYTES} bytes"
        return Decision.failure("payload", message, closed, host=host), None
    try:
        engine, revision = Engine.local(args.policies)
    except Exception as exc:
        from hookgate.lang.errors import PolicyError

        message = exc.diagnostics[0].headline() if isinstance(exc, PolicyError) else str(exc)
        return Decision.failure("policy", message, closed, host=host), None
    decision = engine.evaluate(payload, host, explain=args.explain, failure=args.failure_policy)
    return decision, revision


def _answer(decision: Decision, host: str | None, explain: bool, revision: int | None) -> int:
    """Write the host's response, then record failures and log the decision."""
    try:
        response = decision.response(host)
    except Exception as exc:  # a renderer bug must not block the agent either
        from hookgate.decision import Decision

        decision = Decision.failure("render", f"{type(exc).__name__}: {exc}", False, host=host)
        response = decision.response(host)
    if decision.errors:
        from hookgate import telemetry

        for error in decision.errors:
            telemetry.record("error", host=decision.host, hook_event=decision.event, message=error)
    if response.stdout is not None:
        sys.stdout.write(json.dumps(response.stdout, ensure_ascii=False) + "\n")
    if response.stderr:
        sys.stderr.write(response.stderr + "\n")
    if explain and getattr(decision, "explain", None):
        sys.stderr.write(json.dumps(decision.explain, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    from hookgate import decisionlog

    decisionlog.append(decision, decision.input_document, revision)
    return response.exit_code
