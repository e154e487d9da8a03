"""Failures the agent can cause, answered as limits: the hook's whole-process deadline, and the
limit answer for a file it will not read or a module that does not import.

The agent runs as the hook's user. It can plant a FIFO where the hook reads a file, hold a lock
the hook waits for, stop the warm process's children, delete or edit a module hookgate imports.
Each would otherwise hang the hook past its host's timeout, or crash it: either way every host
then lets the call through. So none of them is a fault (which follows the failure policy and by
default fails open); each answers the limit action (``ask``, or ``deny`` by
``$HOOKGATE_LIMIT_ACTION`` or the policies' ``limits.action``), with a reason naming it.

- ``arm`` starts one interval timer for the whole process (``$HOOKGATE_DEADLINE``, 10 s) when the
  hook starts: no cost on the way, and it interrupts a blocking ``open``, ``read`` or ``flock``
  too. When it fires before the answer is out, the handler writes the limit answer and ends the
  process with ``os._exit``; after the answer, it only ends the process.
- ``classify`` tells an exception the agent can cause (``files.UnsafeFile``, an ``ImportError``,
  a ``SyntaxError``, anything raised while a module's body runs) from a bug, which stays a fault.
- ``limit_decision`` is the decision for either.

An entry-point module: it renders a ``Decision``, and the launcher and ``hookgate eval`` use it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hookgate.decision import Decision


class _State:
    armed = False
    answered = False  # the answer is out: a deadline now only ends the process
    seconds = 0.0
    host: str | None = None  # --host, None for auto
    payload: bytes | None = None  # once read: the host, event and tool of the limit answer
    policy_action: str | None = None  # the loaded policies' limits.action
    exit_code = 0
    explain = False  # --explain: a limit answer prints what was reached, too
    # Where the answer goes: the hook's own stdout/stderr, or the warm process's connection.
    emit: Callable[[int, bytes, bytes], None] | None = None


STATE = _State()


def arm(host: str | None, seconds: float | None = None) -> None:
    """Start the process's deadline (once): past it, the limit answer and the end."""
    if STATE.armed:
        return
    import _signal  # not ``signal``: it imports enum, which the hook's path otherwise avoids

    if seconds is None:
        from hookgate.config import deadline_seconds

        seconds = deadline_seconds()
    STATE.armed, STATE.seconds, STATE.host = True, seconds, host
    _signal.signal(_signal.SIGALRM, _fire)
    _signal.setitimer(_signal.ITIMER_REAL, seconds)


def writing() -> None:
    """The answer is being written: the deadline waits until ``answered`` (one answer, whole)."""
    if STATE.armed:
        import _signal

        _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGALRM})


def answered(code: int) -> None:
    """The answer is out: a deadline from now on ends the process without another one."""
    STATE.answered, STATE.exit_code = True, code
    if STATE.armed:
        import _signal

        _signal.pthread_sigmask(_signal.SIG_UNBLOCK, {_signal.SIGALRM})


def disarm() -> None:
    """The work after the answer is done: stop the timer. What remains is the interpreter's
    teardown (the console script's), which resets signal handlers first: a deadline firing
    there would kill the process by SIGALRM, an exit status hosts read as a failed hook,
    whatever the answer on stdout said."""
    if STATE.armed:
        import _signal

        _signal.setitimer(_signal.ITIMER_REAL, 0)


def _fire(signum: int, frame: object) -> None:
    if STATE.answered:
        os._exit(STATE.exit_code)  # work after the answer ran out of time: drop it
    detail: dict = {"deadline_seconds": STATE.seconds}
    detail["set_by"] = "$HOOKGATE_DEADLINE" if os.environ.get("HOOKGATE_DEADLINE") else "default"
    code = getattr(frame, "f_code", None)
    if code is not None:  # where the hook was when time ran out (a read of which file…)
        detail["waiting_in"] = f"{code.co_filename}:{frame.f_lineno} ({code.co_name})"
    answer_limit(
        "deadline",
        "deadline",
        f"hookgate did not answer within its deadline of {STATE.seconds:g} s",
        detail,
    )


def answer_limit(source: str, limit: str, message: str, detail: dict | None = None) -> None:
    """Write the limit answer where the hook's answer goes and end the process."""
    try:
        code, out, err = limit_response(source, limit, message, detail)
    except BaseException:  # nothing renders: the one answer every host reads as a block
        code, out, err = 2, b"", f"hookgate: {source}: {message} (limit: {limit})\n".encode()
    STATE.answered = True
    try:
        (STATE.emit or _write)(code, out, err)
        if STATE.emit is None:  # the host's pipes: closed before the telemetry record
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.dup2(null, 2)
    except BaseException:
        pass
    try:
        from hookgate import telemetry

        telemetry.record("error", kind="limit", source=source, limit=limit, message=message)
    except BaseException:
        pass
    os._exit(code)


def _write(code: int, out: bytes, err: bytes) -> None:
    for fd, data in ((1, out), (2, err)):
        try:
            while data:
                data = data[os.write(fd, data) :]
        except OSError:
            pass


def limit_response(
    source: str, limit: str, message: str, detail: dict | None = None
) -> tuple[int, bytes, bytes]:
    """``(exit code, stdout, stderr)`` of the limit answer, for the host and event of the
    payload read (Claude Code's PreToolUse when none was); with ``--explain``, the decision's
    explanation follows on stderr, as ``hookgate eval`` prints it."""
    from hookgate import jsonio

    decision = limit_decision(source, limit, message, STATE.payload, STATE.host, detail=detail)
    response = decision.response(STATE.host)
    out = b"" if response.stdout is None else (jsonio.dumps(response.stdout) + "\n").encode()
    err = (response.stderr + "\n").encode() if response.stderr else b""
    if STATE.explain:
        import json

        err += (json.dumps(decision.explain, indent=2, ensure_ascii=False) + "\n").encode()
    return response.exit_code, out, err


def limit_decision(
    source: str,
    limit: str,
    message: str,
    payload: bytes | None,
    host: str | None,
    policy_action: str | None = None,
    detail: dict | None = None,
) -> Decision:
    """The decision for a limit the agent can cause outside the policies' evaluation: the limit
    action, its reason naming what was wrong, and an ``errors`` entry of kind ``limit``; its
    ``explain`` (printed by ``--explain``) says which limit, what was wrong (``detail``: the
    file and why, the module, the deadline) and where the limit action came from."""
    from hookgate.config import limit_action
    from hookgate.decision import Decision
    from hookgate.hostio import hosts

    where: dict = {"event": hosts.PRE_TOOL_USE, "host": host or hosts.CLAUDE}
    if payload is not None:
        try:
            from hookgate.hostio.normalize import normalize

            hook_input = normalize(payload, host or "auto")
            where = {
                "event": hook_input.event,
                "host": hook_input.host,
                "host_event": hook_input.host_event,
                "tool_name": hook_input.tool_name,
            }
        except Exception:  # unreadable payload: Claude Code's shape, as for a fault
            pass
    action = limit_action(policy_action or STATE.policy_action)
    verb = "asked about" if action == "ask" else "denied"
    reason = (
        f"hookgate reached a limit before it could judge this call ({source}: {message}), so it "
        f"cannot be checked and is {verb} [pack=hookgate, pattern=limit-{limit}]"
    )
    error = {"kind": "limit", "source": source, "pack": None, "limit": limit, "message": message}
    explain = {
        "decided": "before the policies were evaluated: a limit the agent can cause",
        "limit": limit,
        "source": source,
        "message": message,
        **(detail or {}),
        "limit_action": action,
        "limit_action_from": _action_source(policy_action or STATE.policy_action),
    }
    return Decision(outcome=action, reasons=[reason], errors=[error], explain=explain, **where)


def _action_source(policy_action: str | None) -> str:
    if os.environ.get("HOOKGATE_LIMIT_ACTION", "").strip().lower() == "deny":
        return "$HOOKGATE_LIMIT_ACTION"
    if policy_action == "deny":
        return "the policies' limits.action"
    return "default (ask)"


def detail_of(exc: BaseException) -> dict:
    """For ``--explain``: what a failure the agent can cause was (the file and why it was not
    read, or the module that did not import and where)."""
    from hookgate.files import UnsafeFile

    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, UnsafeFile):
            return {"file": cause.path, "why": cause.why, "file_problem": cause.kind}
        cause = cause.__cause__
    found: dict = {"exception": f"{type(exc).__name__}: {exc}"}
    if isinstance(exc, ImportError) and exc.name:
        found["module"] = exc.name
    filename = getattr(exc, "filename", None)
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if isinstance(filename, str):
        found["file"] = filename
    elif tb is not None:
        found["file"] = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
    return found


def classify(exc: BaseException) -> tuple[str, str, str] | None:
    """``(source, limit, message)`` when ``exc`` is a failure the agent can cause, else None
    (``files.agent_caused``)."""
    from hookgate.files import agent_caused

    found = agent_caused(exc)
    return None if found is None else (found[0], found[0], found[1])


def host_from_argv(argv: list[str]) -> str | None:
    """The ``--host`` of a hook's command line (None: auto), read without parsing it."""
    for i, word in enumerate(argv):
        if word == "--host" and i + 1 < len(argv):
            value = argv[i + 1]
        elif word.startswith("--host="):
            value = word.partition("=")[2]
        else:
            continue
        return None if value == "auto" else value
    return None


def set_payload(payload: bytes) -> None:
    STATE.payload = payload


__all__ = ["STATE", "answer_limit", "answered", "arm", "classify", "limit_decision"]
