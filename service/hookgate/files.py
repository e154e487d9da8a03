"""Private files hookgate writes for itself: atomic replacement and exclusive locks.

Shared by the bundle client (``sync``), the decision log and ``hookgate install``. Light to import (``os``, ``time``,
``hookgate.paths``): the hook takes a lock, and may write a file, on every call.
"""

from __future__ import annotations

import os
import time

from hookgate import paths


def open_private(path: str) -> int:
    """``path`` opened for reading and writing, created 0600 (and its directory 0700)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except FileNotFoundError:  # the first time only: create the directory
        paths.private_dir(os.path.dirname(path))
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
