"""``hookgate eval``: the hook itself. One payload on stdin, the host's response on stdout.

This is the hot path of every tool call, so it imports only what evaluation needs, and it never
breaks the agent: a fault (a bug in hookgate, a malformed payload) answers the failure policy
(fail-open by default), with the failure recorded in telemetry. What the agent can cause never
fails open (``hookgate.deadline``): a file hookgate reads that is not a regular file, a module
that does not import, or the process's deadline passing answer the limit action. Nothing read
from the payload is ever executed or handed to a shell.

The answer is written, flushed and stdout and stderr closed before the work that follows it (the
decision log, the session's memory of written files, telemetry), so a host waiting for the end
of the hook's output never waits for that work.
"""

from __future__ import annotations

import gc
import os
import sys

from hookgate import deadline, jsonio
from hookgate.hostio.payload import MAX_PAYLOAD_BYTES, read_payload

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from hookgate.decision import Decision
    from hookgate.engine import Engine

HOSTS = ("auto", "claude", "codex", "copilot", "gemini", "cursor", "amplifier")


# The options, declared once: ``add_arguments`` builds the argparse parser from them (help,
# errors) and ``parse`` reads a well-formed command line without importing argparse, which costs
# the hook more than a tenth of its run (it imports gettext, locale and shutil).
# name -> (dest, choices or None, action, metavar, help)
OPTIONS: dict[str, tuple[str, tuple[str, ...] | None, str, str | None, str]] = {
    "--policies": (
        "policies",
        None,
        "append",
        "PATH",
        "policy files or directories (repeatable), laid in order over the built-in default "
        "pack; default: the pulled bundle, else the built-in default pack",
    ),
    "--no-default-pack": (
        "no_default_pack",
        None,
        "store_true",
        None,
        "with --policies: the policies replace the built-in pack instead of adding to it",
    ),
    "--host": ("host", HOSTS, "store", None, "the calling host"),
    "--explain": (
        "explain",
        None,
        "store_true",
        None,
        "write which policies ran, which rules fired and print() output to stderr",
    ),
    "--failure-policy": (
        "failure_policy",
        ("open", "closed"),
        "store",
        None,
        "what to answer if hookgate fails (default: $HOOKGATE_FAILURE_POLICY, else open)",
    ),
}
DEFAULTS = {
    "policies": None,
    "no_default_pack": False,
    "host": "auto",
    "explain": False,
    "failure_policy": None,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for name, (dest, choices, action, metavar, help_) in OPTIONS.items():
        kwargs: dict = {"dest": dest, "action": action, "help": help_, "default": DEFAULTS[dest]}
        if choices is not None:
            kwargs["choices"] = choices
        if metavar is not None:
            kwargs["metavar"] = metavar
        parser.add_argument(name, **kwargs)


class Options:
    """Parsed options, as argparse's ``Namespace`` holds them (``types`` is another import)."""

    def __init__(self, **values: object) -> None:
        self.__dict__.update(values)


def parse(argv: list[str]) -> Options | None:
    """``argv`` read without argparse, or None for anything but well-formed options (help,
    an unknown option, a bad choice…), which argparse then handles."""
    args = Options(**DEFAULTS)
    words = iter(argv)
    for word in words:
        name, eq, value = word.partition("=")
        spec = OPTIONS.get(name)
        if spec is None:
            return None
        dest, choices, action, _, _ = spec
        if action == "store_true":
            if eq:
                return None
            setattr(args, dest, True)
            continue
        if not eq:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
        if choices is not None and value not in choices:
            return None
        if action == "append":
            setattr(args, dest, [*(getattr(args, dest) or []), value])
        else:
            setattr(args, dest, value)
    return args


def run(args: argparse.Namespace) -> int:
    # A hook lives for milliseconds and leaves no garbage cycles worth finding, yet collection
    # passes over the compiled policies' objects (and the one at interpreter exit) cost it
    # 3-5 ms: no collection while it runs, and what exists at its end is frozen, out of the
    # collector's sight.
    gc.disable()
    own = sys.argv[1:2] == ["eval"] and not DEFER  # the hook's process (not a warm child, a test)
    deadline.STATE.explain = bool(args.explain)
    if own:
        deadline.arm(None if args.host == "auto" else args.host)
    try:
        code = _run(args)
    finally:
        gc.freeze()
        gc.enable()
    if not DEFER:
        finish(close=own)
    return code


# Set by a warm process's child: it sends the answer itself, then calls ``finish``.
DEFER = False
# The work that follows the answer (decision log, session memory, telemetry), run by ``finish``.
AFTER: list[Callable[[], None]] = []


def finish(close: bool) -> None:
    """Close stdout and stderr (``close``: they are the host's pipes), then do the work that
    follows the answer. None of it may fail the hook: its answer is out."""
    if close:
        _close_output()
    while AFTER:
        try:
            AFTER.pop(0)()
        except Exception:
            pass
    if close:
        deadline.disarm()


def _close_output() -> None:
    """Point fds 1 and 2 at /dev/null: the host's pipes close, and a stray write later fails
    nowhere."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.close(null)
    except OSError:
        pass


# With --explain: the trace to add to the decision's explanation once the answer is written.
TRACE: list[Callable[[], None]] = []


def _run(args: argparse.Namespace) -> int:
    host = None if args.host == "auto" else args.host
    revision = None
    try:
        decision, revision = _decide(args, host)
    except Exception as exc:  # the last line of defence
        decision = _unexpected(exc, host)
    return _answer(decision, host, args.explain, revision)


def _unexpected(exc: Exception, host: str | None) -> Decision:
    """What an exception that escaped the decision answers: the limit action when the agent
    can cause it (a file hookgate will not read, a module that does not import), else a fault
    that fails open (the agent's tool call must go on when hookgate has a bug)."""
    found = deadline.classify(exc)
    if found is not None:
        detail = deadline.detail_of(exc)
        return deadline.limit_decision(*found, deadline.STATE.payload, host, detail=detail)
    from hookgate.decision import Decision

    return Decision.failure("internal", f"{type(exc).__name__}: {exc}", False, host=host)


def _decide(args: argparse.Namespace, host: str | None) -> tuple[Decision, int | None]:
    """The decision, and the revision of the pulled bundle that made it (None: not a bundle)."""
    from hookgate.active import local_engine
    from hookgate.config import ConfigError, failure_policy
    from hookgate.decision import Decision

    payload = read_payload()
    deadline.set_payload(payload)
    try:
        closed = failure_policy(None, args.failure_policy) == "closed"
    except ConfigError as exc:
        return Decision.failure("config", str(exc), False, host=host), None
    if len(payload) > MAX_PAYLOAD_BYTES:
        message = f"payload larger than {MAX_PAYLOAD_BYTES} bytes"
        return Decision.failure("payload", message, closed, host=host), None
    try:
        engine, revision = local_engine(args.policies, base=not args.no_default_pack)
    except Exception as exc:
        found = deadline.classify(exc)
        if found is not None:
            return deadline.limit_decision(
                *found, payload, host, detail=deadline.detail_of(exc)
            ), None
        from hookgate.lang.errors import PolicyError

        message = exc.diagnostics[0].headline() if isinstance(exc, PolicyError) else str(exc)
        return Decision.failure("policy", message, closed, host=host), None
    deadline.STATE.policy_action = engine.limit_action
    # An Engine traces --explain after the answer (``Engine.trace``); what stands in for one
    # when the configuration cannot be trusted has nothing to trace.
    later = getattr(engine, "trace", None) if args.explain else None
    extra = {"trace": False} if later is not None else {}
    decision = engine.evaluate(
        payload, host, explain=args.explain, failure=args.failure_policy, **extra
    )
    if args.explain and decision.explain is not None:
        decision.explain["commands"] = _commands_seen(engine, decision.input_document)
        if later is not None:
            TRACE.append(lambda: later(decision))
    return decision, revision


def _commands_seen(engine: Engine, document: object) -> list[dict] | None:
    """For --explain: each command the guards saw (``data.hookgate.lib.commands``, when the
    policies have the default pack's lib), as bash would run it: its expanded argv, each word
    it could not know marked ``{"word", "unknown": kind}``, and what it runs under."""
    try:
        seen = engine.query("data.hookgate.lib.commands", input=document)
    except Exception:  # explain never changes the answer
        return None
    if not isinstance(seen, list):
        return None
    out = []
    for c in seen:
        kinds = c.get("kinds") or [None] * len(c.get("argv", []))
        argv = [
            a if k is None else {"word": a, "unknown" if k.startswith("unknown") else "yields": k}
            for a, k in zip(c.get("argv", []), kinds, strict=False)
        ]
        out.append({"name": c.get("name"), "argv": argv, "via": c.get("via"), "cwd": c.get("cwd")})
    return out


def _answer(decision: Decision, host: str | None, explain: bool, revision: int | None) -> int:
    """Write the host's response, then record failures and log the decision."""
    try:
        response = decision.response(host)
        stdout = _json_line(response.stdout)
    except Exception as exc:  # a renderer bug must not block the agent either
        from hookgate.decision import Decision

        decision = Decision.failure("render", f"{type(exc).__name__}: {exc}", False, host=host)
        response = decision.response(host)
        stdout = _json_line(response.stdout)
    deadline.writing()
    if stdout is not None:
        sys.stdout.write(stdout)
    if response.stderr:
        sys.stderr.write(response.stderr + "\n")
    if explain and getattr(decision, "explain", None):
        import json

        # The answer is out (flushed; the deadline waits until ``answered``): only now the
        # trace of --explain, whose first build compiles the policies once more.
        sys.stdout.flush()
        while TRACE:
            TRACE.pop(0)()

        sys.stderr.write(json.dumps(decision.explain, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    deadline.answered(response.exit_code)
    AFTER.append(lambda: _record(decision, revision))
    return response.exit_code


def _record(decision: Decision, revision: int | None) -> None:
    """After the answer: failures to telemetry, the decision to the log, the files it lets the
    session write to the session's memory."""
    if decision.errors:
        from hookgate import telemetry

        for error in decision.errors:
            telemetry.record("error", host=decision.host, hook_event=decision.event, **error)
    from hookgate import decisionlog, session

    decisionlog.append(decision, decision.input_document, revision)
    session.remember(decision.input_document, decision.outcome, _shell_writes(decision))


def _shell_writes(decision: Decision) -> list[str]:
    """The files a shell line let through writes by redirection (``cat > w.py <<EOF``), as
    absolute paths: the session's memory keeps them as it keeps a file tool's writes, so that a
    later ``python3 w.py`` is judged by what w.py holds."""
    document = decision.input_document
    if decision.outcome == "deny" or not isinstance(document, dict):
        return []
    cwd = document.get("cwd")
    cwd = cwd if isinstance(cwd, str) and cwd.startswith("/") else None
    lines = [
        e["command"]
        for e in document.get("effects") or ()
        if isinstance(e, dict)
        and e.get("kind") == "run"
        and e.get("dialect") == "sh"
        and isinstance(e.get("command"), str)
    ]
    if not lines:
        return []
    from hookgate.shell.analysis import analyse

    found = []
    for line in lines:
        try:
            commands = analyse(line, None, cwd)
        except Exception:  # a limit or a line the model cannot read: nothing to remember
            continue
        for cmd in commands:
            # the directory the command runs in: the line's own `cd`, relative to the call's
            base = os.path.join(cwd or "", cmd.cwd or "") or None
            for target in (*cmd.writes, *cmd.appends):
                if target.startswith("/"):
                    found.append(os.path.normpath(target))
                elif base is not None and base.startswith("/"):
                    found.append(os.path.normpath(os.path.join(base, target)))
    return found


def _json_line(document: dict | None) -> str | None:
    """The response as the host reads it; ``ValueError`` for what JSON cannot carry (NaN).
    ASCII, escapes included: a lone surrogate from the payload (``"\\ud800"``) or a stdout
    whose encoding is not UTF-8 could not write anything else."""
    return None if document is None else jsonio.dumps(document) + "\n"
