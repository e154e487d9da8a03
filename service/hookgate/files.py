"""Private files hookgate writes for itself: atomic replacement and exclusive locks.

Shared by the bundle client (``sync``), the decision log and ``hookgate install``. Light to import (``os``, ``time``,
``hookgate.paths``): the hook takes a lock, and may write a file, on every call.
"""

from __future__ import annotations

import os
import time


def open_private(path: str) -> int:
    """``path`` opened for reading and writing, created 0600 (and its directory 0700)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:  # the first time only: create the directory
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def atomic_write(path: str | os.PathLike, data: bytes, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data``: write a temporary file beside it, fsync, rename, fsync
    the directory. Readers see the old or the new content, never a mix."""
    directory, name = os.path.split(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    _remove_orphaned_temporaries(directory, name)
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.fchmod(fd, mode)  # O_CREAT's mode is masked by the umask
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _remove_orphaned_temporaries(directory: str, name: str) -> None:
    """Delete the temporary files of writers of ``name`` that were killed before their rename
    (their process no longer exists), so that killed pulls do not pile up files."""
    prefix, suffix = f".{name}.", ".tmp"
    for entry in os.listdir(directory):
        pid = entry[len(prefix) : -len(suffix)]
        if not (entry.startswith(prefix) and entry.endswith(suffix) and pid.isdigit()):
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            try:
                os.unlink(os.path.join(directory, entry))
            except FileNotFoundError:
                pass
        except (OSError, OverflowError):  # alive, owned by someone else, or out of range
            pass


class FileLock:
    """An exclusive ``flock`` on ``path`` (created 0600, with its directory) for the length of a
    ``with``, waiting up to ``wait`` seconds (None: as long as it takes) before raising
    ``busy``. A class, not ``@contextmanager``: contextlib and what it imports would cost every
    hook a millisecond."""

    def __init__(self, path: str, wait: float | None = None, busy: Exception | None = None) -> None:
        self.path, self.wait, self.fd = path, wait, -1
        self.busy = busy if busy is not None else TimeoutError(f"{path} is locked")

    def __enter__(self) -> None:
        import fcntl

        fd = open_private(self.path)
        try:
            if self.wait is None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            else:
                deadline = time.monotonic() + self.wait
                while not try_flock(fd):
                    if time.monotonic() >= deadline:
                        raise self.busy
                    time.sleep(0.05)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def __exit__(self, *exc_info: object) -> None:
        os.close(self.fd)


def try_flock(fd: int) -> bool:
    """Take an exclusive ``flock`` on ``fd`` without waiting; False when another holds it."""
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


# --- reading -------------------------------------------------------------------------------------
#
# Every file the hook reads goes through ``read_file``. The agent runs as the hook's user and can
# put anything where a file is expected: a FIFO (an ``open`` that never returns), a socket, a
# device (a read that never ends), a directory, a huge file, a link to somewhere else. None of
# them may block the hook, and none may be read as "nothing here": ``read_file`` returns None
# only for a file that does not exist, and raises ``UnsafeFile`` (naming the path and what was
# wrong) for everything else it will not read.
#
# What each reader does with ``UnsafeFile`` (a limit: the hook answers ``limits.action``, ask by
# default; "rebuild": the file only saves time, is checked before use and is written again):
#
# | file                                          | links    | cap    | on UnsafeFile          |
# |-----------------------------------------------|----------|--------|------------------------|
# | compile cache entry, files stamp (lang.cache) | refused  | 64 MiB | limit                  |
# | launcher's module file (modules-*.code)       | refused  | 64 MiB | limit                  |
# | pulled bundle (sync)                          | refused  | 64 MiB | limit                  |
# | bundle.checked (sync: skips hashing)          | refused  | 512 B  | rebuild: hash again    |
# | login.json (sync, read by pull only)          | refused  | 1 MiB  | pull refuses, naming it|
# | session memory (sessions/<id>)                | refused  | 268 KiB| limit                  |
# | policies given by --policies (sources)        | followed | 16 MiB | limit                  |
# | git configuration, repo files (repo.read_file)| refused  | 1 MiB  | "skipped" (git model)  |
# | .claude agent/skill files (builtins/host)     | refused  | 1 MiB  | not an agent           |
# | warm lock records, decision log, telemetry    | refused  | varies | ignored: read after the|
# |   (after the answer, or by doctor and pull)   |          |        | answer, never to decide|
#
# A regular file whose *content* is bad (a torn cache entry, a checksum that does not match)
# is the reader's business: caches rebuild, the bundle falls back as ``sync`` documents.

MiB = 1 << 20


class UnsafeFile(OSError):
    """A file hookgate needs that it will not read: not a regular file, a link where none is
    followed, larger than its cap, or unreadable. An ``OSError`` so that readers which treat
    any OS error alike keep working; the hook answers it as a limit (the agent can cause it)."""

    def __init__(self, path: str, why: str, kind: str = "type") -> None:
        super().__init__(f"{path}: {why}")
        # kind: "link" (not followed), "type" (not a regular file), "size", "unreadable"
        self.path, self.why, self.kind = path, why, kind


def _kind(mode: int) -> str:
    import stat

    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def read_file(path: str, max_bytes: int, *, follow: bool = False) -> bytes | None:
    """The whole content of the regular file ``path``, or None when it does not exist (see
    ``read_file_stat``)."""
    found = read_file_stat(path, max_bytes, follow=follow)
    return None if found is None else found[0]


def read_file_stat(
    path: str, max_bytes: int, *, follow: bool = False
) -> tuple[bytes, os.stat_result] | None:
    """The content of the regular file ``path`` and its ``fstat``, or None when it does not
    exist.

    Opened ``O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY`` (a FIFO opens at once instead of
    waiting for a writer; a terminal never becomes the process's), plus ``O_NOFOLLOW`` unless
    ``follow`` (a link in the last component is refused, not followed; a followed link's target
    is checked before it is opened, so a device it names is never opened), then ``fstat`` on the
    descriptor: anything but a regular file of at most
    ``max_bytes`` bytes raises ``UnsafeFile``, as does any error but "no such file". The read is
    bounded by the size ``fstat`` gave (plus one byte, to see a file that grew)."""
    import errno
    import stat

    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    flags |= 0 if follow else os.O_NOFOLLOW
    try:
        if follow:
            target = os.stat(path).st_mode
            if not stat.S_ISREG(target):
                raise UnsafeFile(path, _kind(target))
        fd = os.open(path, flags)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except UnsafeFile:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise UnsafeFile(path, "a symbolic link (not followed)", "link") from None
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket, or a FIFO on some systems
            raise UnsafeFile(path, "not a regular file (a socket or FIFO)") from None
        raise UnsafeFile(
            path, f"unreadable ({exc.strerror or type(exc).__name__})", "unreadable"
        ) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(path, _kind(st.st_mode))
        if st.st_size > max_bytes:
            raise UnsafeFile(path, f"{st.st_size} bytes, more than the {max_bytes} allowed", "size")
        chunks, left = [], min(st.st_size, max_bytes) + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise UnsafeFile(path, f"grew past the {max_bytes} bytes allowed while read", "size")
        return data, st
    except UnsafeFile:
        raise
    except OSError as exc:
        raise UnsafeFile(
            path, f"unreadable ({exc.strerror or type(exc).__name__})", "unreadable"
        ) from None
    finally:
        os.close(fd)


def agent_caused(exc: BaseException) -> tuple[str, str] | None:
    """``(limit, message)`` when ``exc`` is a failure the agent can cause; None for a fault (a
    bug in hookgate: the failure policy applies).

    - ``UnsafeFile`` (or an error it caused): a file hookgate reads is not a regular file, a
      link, too large or unreadable (``file``);
    - an ``ImportError`` or ``SyntaxError``, or any exception raised while a module's body runs
      (a ``.py`` frame named ``<module>`` in its traceback): hookgate's code or a dependency was
      deleted or edited (``code``). A module's body only defines names: a bug there fails every
      call and is found before a release, while an edit is the agent's to make."""
    cause: BaseException | None = exc
    while cause is not None:  # a reader may wrap it (a policy file's PolicyError)
        if isinstance(cause, UnsafeFile):
            return "file", str(cause)
        cause = cause.__cause__
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ImportError | SyntaxError):
        return "code", f"hookgate's code or a dependency does not import ({text})"
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name == "<module>" and code.co_filename.endswith(".py"):
            return "code", f"{code.co_filename} failed while it was imported ({text})"
        tb = tb.tb_next
    return None
