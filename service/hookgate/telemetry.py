"""Telemetry: one JSON line per event in ``$HOOKGATE_TELEMETRY`` (default: the user's state
directory). A failure is never silent, so every fail-open answer writes an ``error`` record here.

Records carry the event, time, host, session and message; an ``error`` record also says its
``kind`` (``fault``: hookgate or its host failed, the failure policy applied; ``limit``: a bound
reached judging agent-controlled content, ``limit`` naming it), its ``source`` (payload,
evaluation, pull, …) and the guard ``pack`` that failed alone. Never the raw payload, which may
hold secrets. Writing telemetry must never break a hook: every OS error is swallowed
after one attempt, and the file is rotated once it passes ``MAX_BYTES``.
"""

from __future__ import annotations

import os
import time

from hookgate import jsonio

MAX_BYTES = 5 * 1024 * 1024
MAX_MESSAGE = 500


def telemetry_path() -> str:
    """The telemetry file: ``$HOOKGATE_TELEMETRY``, else ``<state dir>/telemetry.jsonl``."""
    configured = os.environ.get("HOOKGATE_TELEMETRY")
    if configured:
        return configured
    from hookgate.paths import state_dir

    return os.path.join(state_dir(), "telemetry.jsonl")


def record(event: str, **fields: object) -> None:
    """Append one record; ``fields`` must already be free of payload content."""
    entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "event": event}
    for key, value in fields.items():
        if value is not None:
            entry[key] = value[:MAX_MESSAGE] if isinstance(value, str) else value
    # ASCII (non-ASCII as JSON escapes): a lone surrogate in a message cannot fail the write.
    line = jsonio.dumps(entry, default=str) + "\n"
    try:
        path = telemetry_path()
        os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
        _rotate_if_large(path)
        append_line(path, line.encode("ascii"))
    except OSError:
        pass


def append_line(path: str | os.PathLike, line: bytes) -> None:
    """Append one newline-terminated record to a JSON-lines file in one ``write``, starting a
    new line first when the file ends in a torn record (a writer killed mid-line, a full disk,
    junk), which would otherwise swallow this one. Raises ``OSError``.

    O_APPEND keeps concurrent writers' lines whole; 0600 because records name local paths and
    commands; O_NONBLOCK because a FIFO in the file's place must not hang the hook.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o600)
    try:
        size = os.fstat(fd).st_size
        torn = size and os.pread(fd, 1, size - 1) != b"\n"
        os.write(fd, b"\n" + line if torn else line)
    finally:
        os.close(fd)


def read_records(limit: int = 50) -> list[dict]:
    """The last ``limit`` well-formed records; corrupt lines (a torn write, a disk error) are
    skipped rather than trusted."""
    from hookgate.files import read_file

    try:
        # files.read_file: a FIFO or a link in the file's place must not hang the reader either.
        raw = read_file(telemetry_path(), 4 * MAX_BYTES)
    except OSError:
        return []
    lines = (raw or b"").decode("utf-8", "replace").splitlines()
    records = []
    for line in lines:
        try:
            entry = jsonio.loads(line)
        except (ValueError, RecursionError):  # junk, or junk nested too deeply to parse
            continue
        if isinstance(entry, dict):
            records.append(entry)
    return records[-limit:]


def _rotate_if_large(path: str) -> None:
    try:
        if os.path.getsize(path) > MAX_BYTES:
            os.replace(path, path + ".1")
    except OSError:
        pass
