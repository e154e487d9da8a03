"""The local decision log: one JSON line per hook decision, bounded, rotated, uploaded in batches.

Layout of ``<state>/decisions/``:

- ``current.jsonl``: the segment hooks append to (under ``lock``, one ``write`` per record).
- ``<time_ns>.jsonl``: sealed segments waiting for upload; sealed when ``current`` passes
  ``SEGMENT_BYTES`` or when an upload starts.
- ``<time_ns>.jsonl.sent``: sealed segments the server has fully accepted (kept as local history
  until the size bound drops them).
- ``cursor.json``: ``{"segment", "offset"}``, how far into the oldest pending segment the server
  has accepted.
- ``chain``: ``<seq> <hash>``, the last record's sequence number and hash (the chain's head).

Each record carries ``stream`` (this machine and user: ``<machine id>:<uid>``), ``seq`` (1, 2, …
within the stream) and ``prev``, the :func:`chain_hash` of the record before it. The server
computes each record's hash itself from the bytes it receives, so it reports a gap in ``seq``
(a record removed, or dropped by the size bound) and a record whose ``prev`` is not the hash of
the record it holds before it (an uploaded record rewritten, or an edit that broke the chain).
There is no secret in the chain: the agent's user can rewrite records not yet uploaded, chain
and all. What the chain proves is that what the server already holds was not changed and that
nothing between two records it holds went missing. The log is never read to decide a call: it
is written after the answer, and read only by uploads.

Nothing is lost while the server is down: records stay in pending segments until a batch is
acknowledged, and the cursor moves only after the acknowledgement. Nothing is uploaded twice:
the cursor skips acknowledged records, and a batch re-sent after a crash between the server's
answer and the cursor write is recognised by its ``decision_id`` (the server is idempotent). The
bound (``MAX_BYTES`` / ``MAX_SEGMENTS``) drops the oldest segments first, sent ones before
pending ones since they are older; dropping pending records is recorded in telemetry.
"""

from __future__ import annotations

import os
import time

from hookgate import anchors, jsonio, paths, telemetry
from hookgate.files import FileLock, atomic_write, read_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from hookgate.decision import Decision

SEGMENT_BYTES = 1024 * 1024
MAX_BYTES = 16 * 1024 * 1024
MAX_SEGMENTS = 64
BATCH_SIZE = 200  # records per upload (the server takes at most 1000)
BATCH_BYTES = 256 * 1024  # per upload (the server's default body limit is 1 MiB)
MAX_COMMAND = 8192  # characters of masked command kept per record
MAX_MATCHES = 100
MAX_ERRORS = 20  # errors kept per record (a decision has one per failed pack at most)
MAX_ERROR_MESSAGE = 1000
MAX_WOULD = 20  # would-be answers kept per record (guards in warn or audit mode)
CURRENT = "current.jsonl"
PENDING = ".jsonl"
SENT = ".jsonl.sent"

_masker = None


class RecordsRefused(Exception):
    """What an upload's ``post`` raises when the server refuses a batch of records as invalid
    (422): some record in it is malformed, and the batch is sent again one record at a time."""


def log_dir() -> str:
    """``<state>/decisions``; in managed mode ``/var/lib/hookgate/spool/<uid>``, the user's own
    directory in root's spool (mode 1733: each user creates one, none lists or changes
    another's), where root's ``hookgate pull`` finds it to upload."""
    if anchors.present():
        return os.path.join(anchors.spool_dir(), str(os.getuid()))
    return os.path.join(paths.state_dir(), "decisions")


def _own_dir(directory: str) -> str:
    """``directory``, created 0700 if missing; ``OSError`` unless it is a real directory of
    this user's (in root's shared spool another user could have made one under this uid's
    name)."""
    paths.private_dir(directory)
    st = os.lstat(directory)
    if st.st_mode & 0o170000 != 0o040000 or st.st_uid != os.getuid():
        raise OSError(f"{directory}: not a directory of uid {os.getuid()}'s; not logging there")
    return directory


def chain_hash(record: dict) -> str:
    """The SHA-256 (hex) of a record's canonical bytes: its JSON with sorted keys, no spaces,
    ASCII, as the server recomputes it from the record it receives."""
    from hookgate.bundle_format import sha256

    return sha256(jsonio.dumps(record, sort_keys=True, compact=True).encode("ascii")).hexdigest()


_stream: list[str] = []


def stream_id() -> str:
    """This machine and user: ``/etc/machine-id`` (else the host name) and the uid. Computed,
    never stored, so that a log the agent deletes starts again at seq 1 of the same stream,
    which the server reports."""
    if not _stream:
        try:
            with open("/etc/machine-id", "rb") as handle:
                machine = handle.read(64).decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            machine = ""
        machine = machine or os.uname().nodename
        uid = os.getuid() if hasattr(os, "getuid") else 0
        _stream.append(f"{machine[:100]}:{uid}")
    return _stream[0]


def _chain_next(directory: str, line: bytes) -> bytes:
    """``line`` (a record without chain fields) as the next record of the chain, and the
    chain's head moved to it. Called with the lock held. The head moves before the record is
    written: a record lost in between is a gap the server reports, never a reused seq."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(os.path.join(directory, "chain"), flags, 0o600)
    try:
        if os.fstat(fd).st_mode & 0o170000 != 0o100000:
            raise OSError(f"{directory}/chain is not a regular file")
        try:
            seq_text, prev = os.pread(fd, 128, 0).decode("ascii").split()
            seq = int(seq_text)
        except (ValueError, UnicodeDecodeError):  # new, or damaged: a restart the server sees
            seq, prev = 0, ""
        record = jsonio.loads(line.decode("ascii"))
        record.update(stream=stream_id(), seq=seq + 1, prev=prev or None)
        head = f"{seq + 1} {chain_hash(record)}\n".encode("ascii")
        os.pwrite(fd, head, 0)
        os.ftruncate(fd, len(head))
    finally:
        os.close(fd)
    return (jsonio.dumps(record) + "\n").encode("ascii")


def record_for(decision: Decision, document: dict | None, bundle_revision: int | None) -> dict:
    """The stored (and uploaded) form of one decision: who, what, the outcome, the matches, the
    command masked, and the input document the policies saw, masked and bounded (see
    ``hookgate.recorded``; replayed by ``POST /v1/impact``). Strings are cut to the server's
    limits so that no record can make a batch unacceptable."""
    from hookgate import recorded

    document = document if isinstance(document, dict) else {}
    kept, truncated = recorded.keep(document or None, _mask)
    tool_input = document.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    matches = [
        {key: _clip(match.get(key), 255) for key in ("pack", "pattern", "rule")}
        for match in (decision.matches or [])[:MAX_MATCHES]
        if isinstance(match, dict)
    ]
    return {
        "decision_id": _uuid4(),
        "time": _now_iso(),
        "host": _clip(decision.host, 64),
        "event": _clip(decision.event, 64),
        "session_id": _clip(document.get("session_id"), 255),
        "tool_name": _clip(decision.tool_name, 255),
        "outcome": decision.outcome,
        "matches": matches,
        # A fault or limit behind the outcome: an allow that the failure policy gave is not
        # an allow the policies gave, and the console and doctor must tell them apart.
        "errors": _errors(decision.errors),
        # What guards in warn or audit mode would have answered: apart from the outcome.
        "would": _would(decision.would),
        "bundle_revision": bundle_revision,
        # Masked before it is cut, so that a cut cannot leave half a secret unmasked.
        "command": _clip(_mask(command), MAX_COMMAND) if isinstance(command, str) else None,
        "input": kept,
        "input_truncated": truncated,
    }


def _errors(errors: list[dict] | None) -> list[dict]:
    """``Decision.errors`` as recorded: kind, source, pack, limit and the message, masked (a
    limit's message may quote what the agent sent) and cut to the server's limits."""
    kept = []
    for error in (errors or [])[:MAX_ERRORS]:
        if not isinstance(error, dict):
            continue
        kind = error.get("kind")
        message = error.get("message")
        kept.append(
            {
                "kind": kind if kind in ("fault", "limit") else "fault",
                "source": _clip(error.get("source"), 64) or "unknown",
                "pack": _clip(error.get("pack"), 255),
                "limit": _clip(error.get("limit"), 64),
                "message": _clip(_mask(message) if isinstance(message, str) else message,
                                 MAX_ERROR_MESSAGE) or "",
            }
        )  # fmt: skip
    return kept


def _would(would: list[dict] | None) -> list[dict]:
    """``Decision.would`` as recorded: the reason masked and cut as an error's message is, the
    rewrite it would have made masked and bounded as the input document is."""
    from hookgate import recorded

    kept = []
    for entry in (would or [])[:MAX_WOULD]:
        reason = entry.get("reason")
        rewrite, _ = recorded.keep(entry.get("rewrite"), _mask)
        kept.append(
            {
                **{key: _clip(entry.get(key), 255) for key in ("would", "mode", "guard", "pack", "pattern")},
                "reason": _clip(_mask(reason) if isinstance(reason, str) else reason, MAX_ERROR_MESSAGE) or "",
                "rewrite": rewrite,
            }
        )  # fmt: skip
    return kept


def _clip(value: object, limit: int) -> str | None:
    return None if value is None else str(value)[:limit]


def append(
    decision: Decision, hook_input_document: dict | None, bundle_revision: int | None
) -> None:
    """Log one decision. Never raises: a failure to log is recorded in telemetry instead."""
    try:
        record = record_for(decision, hook_input_document, bundle_revision)
        # ASCII (non-ASCII as JSON escapes): a command with a lone surrogate ("\\udc80", which
        # JSON text may carry) has no UTF-8 form, and its record must still be written.
        line = (jsonio.dumps(record, default=str) + "\n").encode("ascii")
        directory = _own_dir(log_dir())
        with FileLock(os.path.join(directory, "lock")):
            line = _chain_next(directory, line)
            current = os.path.join(directory, CURRENT)
            try:
                size = os.stat(current).st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(line) > SEGMENT_BYTES:
                _seal(directory)
            telemetry.append_line(current, line)
    except Exception as exc:  # logging must never break the hook
        message = f"{type(exc).__name__}: {exc}"
        telemetry.record("error", kind="fault", source="decision_log", message=message)


def upload(post: Callable[[list[dict]], dict]) -> int:
    """Send every pending record, oldest first, in batches of ``BATCH_SIZE`` through
    ``post(records) -> {"accepted", "duplicates"}``; returns the number of records sent.

    ``post`` raising stops the upload where it is; the next upload resumes from the cursor.
    The caller serializes uploads (``hookgate pull`` holds the refresh lock).
    """
    directory = log_dir()
    if not os.path.isdir(directory):
        return 0
    with FileLock(os.path.join(directory, "lock")):
        _seal(directory)
    sent = 0
    cursor = _read_cursor(directory)
    for name in _segments(directory, PENDING):
        segment = os.path.join(directory, name)
        offset = cursor["offset"] if cursor["segment"] == name else 0
        for records, end in _batches(segment, offset):
            if records:
                answer = _post(post, records)
                counted = int(answer.get("accepted", 0)) + int(answer.get("duplicates", 0))
                if counted != len(records):
                    raise ValueError(
                        f"the server acknowledged {counted} of {len(records)} decisions"
                    )
                sent += len(records)
            _write_cursor(directory, name, end)
        try:
            os.rename(segment, os.path.join(directory, name[: -len(PENDING)] + SENT))
        except FileNotFoundError:  # dropped by the size bound meanwhile
            pass
    return sent


def _post(post: Callable[[list[dict]], dict], records: list[dict]) -> dict:
    """``post(records)``; when the server refuses the batch as invalid, each record alone, so
    one bad record (a revision out of range, …) is skipped, with a telemetry record, instead of
    blocking every later one. Skipped records count as accepted."""
    try:
        return post(records)
    except RecordsRefused:
        pass
    accepted = duplicates = 0
    for record in records:
        try:
            answer = post([record])
        except RecordsRefused as exc:
            message = f"decision {record.get('decision_id')} refused by the server, skipped: {exc}"
            telemetry.record("error", kind="fault", source="decision_log", message=message)
            accepted += 1
            continue
        accepted += int(answer.get("accepted", 0))
        duplicates += int(answer.get("duplicates", 0))
    return {"accepted": accepted, "duplicates": duplicates}


def pending_count() -> int:
    """How many records are waiting for upload (for ``hookgate doctor``)."""
    directory = log_dir()
    if not os.path.isdir(directory):
        return 0
    cursor = _read_cursor(directory)
    total = 0
    for name in [*_segments(directory, PENDING), CURRENT]:
        offset = cursor["offset"] if cursor["segment"] == name else 0
        try:
            total += (_read_log(os.path.join(directory, name)) or b"")[offset:].count(b"\n")
        except OSError:  # not a segment hookgate wrote (a FIFO, a link): doctor shows the rest
            pass
    return total


def recent_errors(seconds: float) -> tuple[list[dict], int]:
    """The records logged in the last ``seconds`` (by their ``time``) that carry errors, oldest
    first, and how many records that window holds in all (for ``hookgate doctor``). Reads the
    segments newest first and stops at the first one that starts before the window. A segment
    that is not a regular file, or a damaged line, is skipped: the agent's user can rewrite
    this log, so what it holds informs a person; it never decides a call."""
    directory = log_dir()
    if not os.path.isdir(directory):
        return [], 0
    cutoff = _iso(time.time() - seconds)
    # Newest first: current, then sealed segments by their time-stamped names, sent or not.
    sealed = _segments(directory, PENDING) + _segments(directory, SENT)
    names = [CURRENT, *sorted(sealed, reverse=True)]
    found: list[dict] = []
    total = 0
    for name in names:
        try:
            content = _read_log(os.path.join(directory, name)) or b""
        except OSError:
            continue
        older = False
        for line in reversed(content.splitlines()):
            try:
                record = jsonio.loads(line.decode("utf-8"))
                when = record["time"]
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                continue
            if not isinstance(when, str) or when < cutoff:
                older = True
                continue
            total += 1
            if record.get("errors"):
                found.append(record)
        if older:  # segments are in time order: the older ones hold nothing newer
            break
    found.reverse()
    return found, total


def _read_log(path: str) -> bytes | None:
    """A log file's bytes (``files.read_file``: a FIFO or link planted among them is refused
    with ``UnsafeFile`` instead of hanging the reader); None when it does not exist."""
    return read_file(path, MAX_BYTES)


def _batches(segment: str, offset: int) -> Iterator[tuple[list[dict], int]]:
    """``(records, end offset)`` batches of the complete lines after ``offset``. A damaged line
    (a torn write) is skipped with a telemetry record rather than blocking every later one."""
    try:
        content = _read_log(segment)
    except OSError as exc:
        telemetry.record("error", kind="fault", source="decision_log", message=str(exc))
        return
    if content is None:
        return
    content = content[offset:]
    records: list[dict] = []
    position, size = offset, 0
    for line in content.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # sealed segments end with a newline; anything after is an unfinished write
        if records and size + len(line) > BATCH_BYTES:
            yield records, position
            records, size = [], 0
        position += len(line)
        size += len(line)
        try:
            record = jsonio.loads(line.decode("utf-8"))
            if not isinstance(record, dict):
                raise ValueError("not an object")
            records.append(record)
        except ValueError as exc:
            message = f"{os.path.basename(segment)}: {exc}"
            telemetry.record("error", kind="fault", source="decision_log", message=message)
        if len(records) >= BATCH_SIZE:
            yield records, position
            records, size = [], 0
    if records or position > offset:
        yield records, position


def _seal(directory: str) -> None:
    """Turn a non-empty ``current.jsonl`` into a pending segment, then apply the size bound.
    Called with the lock held."""
    current = os.path.join(directory, CURRENT)
    try:
        if os.stat(current).st_size == 0:
            return
    except FileNotFoundError:
        return
    name = f"{time.time_ns():020d}{PENDING}"
    os.rename(current, os.path.join(directory, name))
    _prune(directory)


def _prune(directory: str) -> None:
    names = sorted(n for n in os.listdir(directory) if n.endswith((PENDING, SENT)) and n != CURRENT)
    sizes = {name: os.stat(os.path.join(directory, name)).st_size for name in names}
    total = sum(sizes.values())
    dropped = 0
    while names and (total > MAX_BYTES or len(names) > MAX_SEGMENTS):
        oldest = names.pop(0)
        if oldest.endswith(PENDING):
            try:
                dropped += (_read_log(os.path.join(directory, oldest)) or b"").count(b"\n")
            except OSError:
                pass
        os.unlink(os.path.join(directory, oldest))
        total -= sizes[oldest]
    if dropped:
        telemetry.record("decision_log", action="dropped", records=dropped)


def _segments(directory: str, suffix: str) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(suffix) and n != CURRENT)


def _read_cursor(directory: str) -> dict:
    try:
        raw = read_file(os.path.join(directory, "cursor.json"), 4096) or b"{}"
        cursor = jsonio.loads(raw.decode("utf-8"))
        if isinstance(cursor.get("segment"), str) and isinstance(cursor.get("offset"), int):
            return cursor
    except (OSError, ValueError, AttributeError):
        pass
    return {"segment": "", "offset": 0}


def _write_cursor(directory: str, segment: str, offset: int) -> None:
    document = jsonio.dumps({"segment": segment, "offset": offset}).encode()
    atomic_write(os.path.join(directory, "cursor.json"), document, 0o600)


def _mask(command: str) -> str:
    global _masker
    if _masker is None:
        from hookgate.masking import masker_from_env

        _masker = masker_from_env()
    return _masker.mask(command)


def _uuid4() -> str:
    # The uuid module costs milliseconds to import (it loads `platform`); this is the hook's path.
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _now_iso() -> str:
    return _iso(time.time())


def _iso(when: float) -> str:
    # Fixed width, so records' times compare as strings.
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{int(when % 1 * 1000):03d}Z"
