"""The on-disk compile cache: checked modules, keyed by everything that shapes them.

An entry is the pickled list of checked ``ast.Module`` nodes, so a warm start compiles closures
from it without importing Lark or the parser. The key is a SHA-256 over the sources (sorted by
file name), the base data, the grammar, hookgate's version and the Python implementation and
version (pickle and marshal formats differ between Pythons). Like Jinja2's
``FileSystemBytecodeCache``, the directory must belong to the current user and be writable by no
one else (it is created with mode 0700); a directory failing that check is refused. Each entry
starts with a header naming the format and the key, checked before anything is unpickled; any
mismatch or read error means "rebuild", and entries are written to a temporary file renamed into
place, so a reader never sees half an entry.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

_MAGIC = b"hookgate-compile-cache/1\n"


class UnsafeCacheDir(Exception):
    """The cache directory is owned by another user or writable by others."""


def cache_key(sources: dict[str, str], data_text: str) -> str:
    import hookgate
    import hookgate.grammar

    h = hashlib.sha256()
    for name in sorted(sources):
        for part in (name, sources[name]):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    grammar = (Path(hookgate.grammar.__file__).parent / "policy.lark").read_bytes()
    for b in (
        data_text.encode("utf-8", "surrogatepass"),
        grammar,
        hookgate.__version__.encode(),
        sys.version.encode(),
        (sys.implementation.cache_tag or "").encode(),
    ):
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def safe_dir(cache_dir: str | Path) -> Path:
    """The cache directory, created (mode 0700) if missing; ``UnsafeCacheDir`` if another user
    owns it, others may write to it, or it is not a real directory."""
    path = Path(cache_dir)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(path)
    except OSError as exc:
        raise UnsafeCacheDir(f"cannot use cache directory {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeCacheDir(f"cache directory {path} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeCacheDir(f"cache directory {path} belongs to another user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheDir(f"cache directory {path} is writable by other users")
    return path


def _entry(directory: Path, key: str) -> Path:
    return directory / f"{key}.modules"


def load(directory: Path, key: str) -> Any | None:
    """The cached modules for ``key``, or None (missing, stale, corrupt or unreadable)."""
    import pickle

    header = _MAGIC + key.encode() + b"\n"
    try:
        with open(_entry(directory, key), "rb") as f:
            if f.read(len(header)) != header:
                return None
            return pickle.load(f)
    except Exception:  # any damage to an entry means "rebuild", never a crash
        return None


def store(directory: Path, key: str, modules: Any) -> None:
    """Write an entry atomically; failures are ignored (the cache is an optimisation)."""
    import pickle
    import tempfile

    header = _MAGIC + key.encode() + b"\n"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".modules")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(header)
            pickle.dump(modules, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, _entry(directory, key))
    except Exception:
        try:
            os.unlink(tmp)
        except OSError:
            pass
