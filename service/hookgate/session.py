"""The files a session's file tools wrote, remembered between that session's hook calls.

A ``Write`` of ``x.sh`` in one call and ``bash x.sh`` in the next are judged as if the line had
written the script itself: a line that runs one of these files runs what it holds (the
``hookgate.session_files`` builtin hands this memory to the shell model, which reads a file
when a line runs it).

Each file is kept by identity as well as by the path it was written at: its device, inode,
size and SHA-256, so that a later spelling finds it whatever its name (``mv w.sh x.sh``, a hard
link, a copy, a symlink, ``../``). The identity is not known when the call that writes is
judged (the host writes after the answer): the entry waits ("pending", the content hash of a
``Write`` known from its payload) and is settled (stat and hash of the path) by a later call of
the session, after its answer. The memory keeps the last ``MAX_FILES``; what falls out of it
(its identity, path, size and hash), and the content a remembered file held before it was
rewritten (size and hash), go to a fixed-size digest (a Bloom filter of ``DIGEST_BITS`` bits),
so that a line running a forgotten file, or a copy of what it held, asks instead of running it
unread. The digest can be wrong one way
only: a file never written may look forgotten (the more forgotten, the likelier; about 0.1% a
key at 200 forgotten files), never the other.

One file a session in the state directory (which self-protect covers), read with
``files.read_file``: a planted one (a link, a FIFO, too large, malformed) is a limit.
"""

from __future__ import annotations

import os

from hookgate import paths

MAX_FILES = 64
DIGEST_BITS = 16384  # 2 KiB: 4 KiB of hex in the memory file
_PROBES = 4
MAX_PATH = 4096  # PATH_MAX: a longer path is no file the OS opens
MAX_BYTES = MAX_FILES * (MAX_PATH + 128) + DIGEST_BITS // 4 + 64  # what save can write
MAX_HASHED = 64 * 1024  # a file larger than a script the shell model reads is not hashed
HEADER = "hookgate-session 2"
_HEX = "0123456789abcdef"

try:  # the C module behind hashlib.sha256, without hashlib's OpenSSL start-up cost
    from _sha256 import sha256  # Python 3.11
except ImportError:  # pragma: no cover - renamed in 3.12
    try:
        from _sha2 import sha256
    except ImportError:
        from hashlib import sha256


class Entry:
    """One remembered file: the path it was written at and, once settled, its identity (None
    fields: not known yet)."""

    __slots__ = ("path", "dev", "ino", "size", "sha256")

    def __init__(
        self,
        path: str,
        dev: int | None = None,
        ino: int | None = None,
        size: int | None = None,
        digest: str | None = None,
    ) -> None:
        self.path, self.dev, self.ino, self.size, self.sha256 = path, dev, ino, size, digest

    def keys(self) -> list[str]:
        """What the forgotten digest holds of this entry."""
        found = ["p:" + self.path]
        if self.dev is not None:
            found.append(f"i:{self.dev}:{self.ino}")
        if self.size is not None:
            found.append(f"s:{self.size}")
        if self.sha256 is not None:
            found.append("h:" + self.sha256)
        return found

    def line(self) -> str:
        fields = (self.dev, self.ino, self.size, self.sha256)
        return " ".join("-" if v is None else str(v) for v in fields) + " " + self.path


class Memory:
    """What a session wrote: its entries, oldest first, and the digest of what it forgot."""

    __slots__ = ("entries", "forgotten", "bits")

    def __init__(self, entries: list[Entry], forgotten: int = 0, bits: bytearray | None = None):
        self.entries = entries
        self.forgotten = forgotten
        self.bits = bits if bits is not None else bytearray(DIGEST_BITS // 8)

    def forget(self, entry: Entry, content_only: bool = False) -> None:
        """Add ``entry`` to the digest: all it was (it falls out of the memory), or only its
        content (``content_only``: the file is still remembered, rewritten since; a copy made of
        what it held before is what the digest is to catch). Fewer keys, fewer false matches."""
        self.forgotten += 1
        keys = entry.keys()
        if content_only:
            keys = [k for k in keys if k.startswith(("h:", "s:"))]
        for key in keys:
            for n in probes(key):
                self.bits[n >> 3] |= 1 << (n & 7)

    def value(self) -> dict:
        """As ``value`` gives it (the rows a memory file of this would hold)."""
        return {
            "files": [e.line().split(" ", 4) for e in self.entries],
            "forgotten": {
                "count": self.forgotten,
                "digest": self.bits.hex() if self.forgotten else "",
            },
        }


def probes(key: str) -> list[int]:
    """The digest's bits for ``key`` (shell.files.SessionFiles reads them the same way)."""
    raw = sha256(key.encode("utf-8", "surrogateescape")).digest()
    return [int.from_bytes(raw[4 * k : 4 * k + 4], "big") % DIGEST_BITS for k in range(_PROBES)]


def _file(session_id: str) -> str | None:
    if session_id.isascii() and session_id.replace("-", "").replace("_", "").isalnum():
        name = session_id[:96]  # the usual id (a UUID) as it is: every shell call asks
    else:
        name = "".join(c for c in session_id if c.isascii() and (c.isalnum() or c in "-_"))[:96]
    return os.path.join(paths.state_dir(), "sessions", name) if name else None


def _malformed(path: str, number: int, why: str) -> OSError:
    from hookgate.files import UnsafeFile

    return UnsafeFile(path, f"line {number}: {why} (not a memory hookgate wrote)", "content")


def rows(session_id: str) -> tuple[list[list[str]], int, bytes]:
    """This session's memory as read on every shell call: its entries as the file holds them,
    ``[dev, ino, size, sha256, path]`` strings (``-``: not known yet), oldest first; how many
    files it forgot; the digest. A memory file that is not a regular file, a link, larger than
    hookgate writes, unreadable or malformed raises ``files.UnsafeFile``: the agent planted
    it, and reading it as "nothing written" would let a script it wrote run unread (the hook
    answers the limit action)."""
    from hookgate.files import read_file

    path = _file(session_id)
    data = None if path is None else read_file(path, MAX_BYTES)
    if data is None:
        return [], 0, b""
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    if lines[0] != HEADER:  # the first format: one absolute path a line, none settled
        return [["-", "-", "-", "-", p] for p in lines if p.startswith("/")][-MAX_FILES:], 0, b""
    found: list[list[str]] = []
    forgotten, bits = 0, b""
    for number, line in enumerate(lines[1:], 2):
        if not line:
            continue
        fields = line.split(" ", 4)
        if len(fields) == 5 and fields[4][:1] == "/":
            dev, ino, size, digest, _ = fields
            # every shell call of the session reads this: plain checks, the row kept as read
            if not (
                (dev == ino == "-" or (dev.isdigit() and ino.isdigit()))
                and (size == "-" or size.isdigit())
                and (digest == "-" or (len(digest) == 64 and not digest.strip(_HEX)))
            ):
                raise _malformed(path, number, "an entry hookgate does not write")  # type: ignore[arg-type]
            found.append(fields)
        elif fields[0] == "forgotten" and len(fields) == 3 and fields[1].isdigit():
            forgotten = int(fields[1])
            try:
                bits = bytes.fromhex(fields[2])
            except ValueError:
                bits = b""
            if len(bits) != DIGEST_BITS // 8:
                raise _malformed(path, number, "a digest of the wrong size")  # type: ignore[arg-type]
        else:
            raise _malformed(path, number, "an entry hookgate does not write")  # type: ignore[arg-type]
    if len(found) > MAX_FILES:
        raise _malformed(path, 1, f"more than {MAX_FILES} files")  # type: ignore[arg-type]
    return found, forgotten, bits


def value(session_id: str) -> dict | list:
    """What ``hookgate.session_files`` gives the policies (``shell.commands_with`` reads it):
    ``{"files": rows, "forgotten": {"count", "digest"}}`` (``rows``; the digest in hex)."""
    found, forgotten, bits = rows(session_id)
    if not found and not forgotten:
        return []  # most calls: a session that wrote nothing (the first form, as cheap as it was)
    return {
        "files": found,
        "forgotten": {"count": forgotten, "digest": bits.hex() if forgotten else ""},
    }


def load(session_id: str) -> Memory:
    """This session's memory, to change it (``rows``; after the answer)."""
    found, forgotten, bits = rows(session_id)

    def number(text: str) -> int | None:
        return None if text == "-" else int(text)

    entries = [
        Entry(p, number(d), number(i), number(n), None if h == "-" else h)
        for d, i, n, h, p in found
    ]
    return Memory(entries, forgotten, bytearray(bits) if forgotten else None)


def written(session_id: str) -> list[str]:
    """The absolute paths this session's file tools wrote, oldest first (``load``)."""
    return [e.path for e in load(session_id).entries]


def identity(path: str) -> Entry | None:
    """``path``'s entry as it is on the disk now (the link followed, as a shell running it
    would): None when it is not a regular file that can be read."""
    import stat

    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a device is never opened
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        digest = None
        if st.st_size <= MAX_HASHED:
            digest = sha256(os.read(fd, MAX_HASHED + 1)).hexdigest()
        return Entry(path, st.st_dev, st.st_ino, st.st_size, digest)
    except OSError:
        return None
    finally:
        os.close(fd)


def save(session_id: str, memory: Memory) -> None:
    path = _file(session_id)
    if path is None:
        return
    while len(memory.entries) > MAX_FILES:
        memory.forget(memory.entries.pop(0))
    lines = [HEADER]
    if memory.forgotten:  # a session that forgot nothing reads no digest on every call
        lines.append(f"forgotten {memory.forgotten} {memory.bits.hex()}")
    lines += [e.line() for e in memory.entries]
    directory = paths.private_dir(os.path.dirname(path))
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with open(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def settle(memory: Memory, keep: frozenset[str] = frozenset()) -> bool:
    """Fill in the identity of each pending entry (but those at ``keep``, written by the call
    being answered: the host has not written them yet) from the disk as it is now; a content
    hash it had (a ``Write``'s) that the disk no longer shows goes to the digest (a copy made
    of it is then a forgotten file, not an unknown one). Settled entries are not read again:
    one open of each file a call wrote, not of every file on every call. Whether anything
    changed."""
    changed = False
    for n, entry in enumerate(memory.entries):
        if entry.path in keep or entry.dev is not None:
            continue
        now = identity(entry.path)
        if now is None:
            continue  # not written yet (refused by the user, say), or gone: keep what is known
        if (now.dev, now.ino, now.size, now.sha256) == (
            entry.dev,
            entry.ino,
            entry.size,
            entry.sha256,
        ):
            continue
        # what the entry knew that the disk no longer shows (a pending entry knows no inode)
        if entry.sha256 is not None and entry.sha256 != now.sha256:
            memory.forget(entry, content_only=True)
        memory.entries[n] = now
        changed = True
    return changed


def record(
    session_id: str, written_paths: list[str], contents: dict[str, str] | None = None
) -> None:
    """Add ``written_paths`` (absolute) to what this session wrote (``contents``: the text a
    path is written with, where the payload shows it), settling earlier entries; never raises
    (the hook's answer is already out when this runs)."""
    new = [
        p
        for p in written_paths
        if p.startswith("/")
        and "\n" not in p
        and len(p.encode("utf-8", "surrogateescape")) <= MAX_PATH
    ]
    path = _file(session_id)
    if path is None:
        return
    from hookgate.files import FileLock

    try:
        # parallel tool calls of one session are answered by parallel hooks: one at a time
        # here, or the last to save would drop what the others wrote
        with FileLock(path + ".lock", wait=2.0):
            _record(session_id, new, contents)
    except (OSError, ValueError):
        pass


def _record(session_id: str, new: list[str], contents: dict[str, str] | None) -> None:
    memory = load(session_id)
    changed = settle(memory, frozenset(new))
    if new:
        kept = []
        for e in memory.entries:
            if e.path not in new:
                kept.append(e)
            elif e.sha256 is not None:  # rewritten: what it held may have been copied
                memory.forget(e, content_only=True)
        for p in dict.fromkeys(new):
            entry = Entry(p)
            text = (contents or {}).get(p)
            if text is not None:
                data = text.encode("utf-8", "surrogateescape")
                entry.size, entry.sha256 = len(data), sha256(data).hexdigest()
            kept.append(entry)
        memory.entries = kept
    if new or changed:
        save(session_id, memory)


def remember(document: object, outcome: str, also: list[str] | tuple[str, ...] = ()) -> None:
    """Record the files that a ``PreToolUse`` call let through writes with a file tool (its
    effects: a write's or an edit's path, a move's destination) and ``also`` (absolute paths
    its shell line writes by redirection); on any other call of a session
    that remembers files, settle what earlier calls wrote (the host has written it since)."""
    if not isinstance(document, dict):
        return
    session_id = document.get("session_id")
    if not isinstance(session_id, str):
        return
    found: list[str] = []
    contents: dict[str, str] = {}
    if document.get("hook_event_name") == "PreToolUse" and outcome != "deny":
        tool_input = document.get("tool_input")
        content = tool_input.get("content") if isinstance(tool_input, dict) else None
        for e in document.get("effects") or ():
            if isinstance(e, dict) and e.get("kind") in ("write", "edit", "move"):
                path = e.get("to") if e.get("kind") == "move" else e.get("path")
                if isinstance(path, str):
                    found.append(path)
                    if e.get("kind") == "write" and isinstance(content, str):
                        contents[path] = content
                    elif e.get("kind") == "edit" and isinstance(tool_input, dict):
                        edited = _edited(path, tool_input)
                        if edited is not None:
                            contents[path] = edited
    if outcome != "deny":
        found.extend(p for p in also if p not in found)  # what a shell line wrote (eval's)
    if found:
        record(session_id, found, contents)
        return
    path = _file(session_id)
    if path is not None and os.path.exists(path):  # a session that wrote nothing pays nothing
        record(session_id, [])


def _edited(path: str, tool_input: dict) -> str | None:
    """What an ``Edit`` (``old_string``, ``new_string``, ``replace_all``) or a ``MultiEdit``
    (``edits``) makes of ``path``, as the host applies it to the file as it is now (the answer
    is out, the host has not written yet): its hash finds a copy made before a later call
    settles the file. None where that is not known (the old text is not in the file)."""
    edits = tool_input.get("edits")
    if not isinstance(edits, list):
        edits = [tool_input]
    entry = identity(path)
    if entry is None or entry.size is None or entry.size > MAX_HASHED:
        return None
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read(MAX_HASHED + 1)
    except OSError:
        return None
    for edit in edits:
        old = edit.get("old_string") if isinstance(edit, dict) else None
        new = edit.get("new_string") if isinstance(edit, dict) else None
        if not isinstance(old, str) or not isinstance(new, str) or not old or old not in text:
            return None
        text = text.replace(old, new, -1 if edit.get("replace_all") is True else 1)
    return text
