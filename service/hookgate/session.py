"""The files a session's file tools wrote, remembered between that session's hook calls.

A ``Write`` of ``x.sh`` in one call and ``bash x.sh`` in the next are judged as if the line had
written the script itself: a line that runs one of these files runs what it holds (the
``hookgate.session_files`` builtin gives the paths to the shell model, which reads a file when a
line runs it). Only paths are kept, one file a session in the state directory (which
self-protect covers), the last ``MAX_FILES`` of them.
"""

from __future__ import annotations

import os

from hookgate import paths

MAX_FILES = 32


def _file(session_id: str) -> str | None:
    name = "".join(c for c in session_id if c.isascii() and (c.isalnum() or c in "-_"))[:96]
    return os.path.join(paths.state_dir(), "sessions", name) if name else None


MAX_BYTES = MAX_FILES * 4096


def written(session_id: str) -> list[str]:
    """The absolute paths this session's file tools wrote, oldest first. A memory file that is
    not a regular file, a link, larger than hookgate writes or unreadable raises
    ``files.UnsafeFile``: the agent planted it, and reading it as "nothing written" would let a
    script it wrote run unread (the hook answers the limit action)."""
    from hookgate.files import read_file

    path = _file(session_id)
    if path is None:
        return []
    data = read_file(path, MAX_BYTES)
    if data is None:
        return []
    text = data.decode("utf-8", "replace")
    return [line for line in text.split("\n") if line.startswith("/")][-MAX_FILES:]


def record(session_id: str, written_paths: list[str]) -> None:
    """Add ``written_paths`` (absolute) to what this session wrote; never raises (the hook's
    answer is already out when this runs)."""
    path = _file(session_id)
    new = [p for p in written_paths if p.startswith("/") and "\n" not in p]
    if path is None or not new:
        return
    try:
        kept = [p for p in written(session_id) if p not in new] + new
        directory = paths.private_dir(os.path.dirname(path))
        tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("\n".join(kept[-MAX_FILES:]) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def remember(document: object, outcome: str) -> None:
    """Record the files that a ``PreToolUse`` call let through writes with a file tool (its
    effects: a write's or an edit's path, a move's destination)."""
    if not isinstance(document, dict) or outcome == "deny":
        return
    session_id = document.get("session_id")
    if document.get("hook_event_name") != "PreToolUse" or not isinstance(session_id, str):
        return
    found = []
    for e in document.get("effects") or ():
        if isinstance(e, dict) and e.get("kind") in ("write", "edit", "move"):
            path = e.get("to") if e.get("kind") == "move" else e.get("path")
            if isinstance(path, str):
                found.append(path)
    if found:
        record(session_id, found)
