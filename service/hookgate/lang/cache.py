"""The on-disk compile cache: a policy set's compiled code, keyed by everything that shapes it.

An entry holds the marshaled code object of the module that ``hookgate.lang.compile`` generated
for the policy set (``hookgate.lang.runtime.run`` executes it: no parsing, no AST, no compiling),
a summary of each module (file name, package, metadata, rules: ``runtime.ModuleInfo``) and the
builtins index (name → family module, see ``hookgate.builtins.use_index``), so that a warm start
imports only the builtin families that the rules it evaluates call. The key is a BLAKE2b-256 over
the sources (sorted by file name), the base data and strict flag, the files of the code that
shapes an entry (the grammar, ``hookgate.lang``, the builtins: name, size, modification time),
hookgate's version and the Python implementation and version (code objects and marshal formats
differ between Pythons).

Like Jinja2's ``FileSystemBytecodeCache``, the directory must belong to the current user and be
writable by no one else (it is created with mode 0700); a directory failing that check is
refused. Each entry starts with a header naming the format, the key and the BLAKE2b-256 of the rest
(a flipped bit can still unmarshal into a weaker policy), all checked before anything
is decoded; any mismatch or read error means "rebuild", and entries are written to a temporary
file renamed into place, so a reader never sees half an entry.
"""

from __future__ import annotations

import os
import stat
import sys

try:  # the C module behind hashlib.blake2b, without hashlib's OpenSSL start-up cost
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import blake2b

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAGIC = b"hookgate-compile-cache/7\n"


def _hash(data: bytes = b"") -> Any:
    """A 256-bit BLAKE2b: as strong as SHA-256, and without OpenSSL several times faster over
    an entry (the hook checks one on every call)."""
    return blake2b(data, digest_size=32)


class UnsafeCacheDir(Exception):
    """The cache directory is owned by another user or writable by others."""


def cache_key(sources: dict[str, str], data: Any, strict: bool) -> str:
    import hookgate
    import hookgate.builtins
    import hookgate.grammar

    h = _hash()
    for name in sorted(sources):
        for part in (name, sources[name]):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    for b in (
        _data_bytes(data, strict),
        hookgate.__version__.encode(),
        sys.version.encode(),
        (sys.implementation.cache_tag or "").encode(),
    ):
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    lang_dir = os.path.dirname(__file__)
    for directory in (
        os.path.dirname(hookgate.grammar.__file__),
        lang_dir,
        os.path.dirname(hookgate.builtins.__file__),
    ):
        for name in sorted(os.listdir(directory)):
            if name.endswith((".py", ".lark")):
                st = os.stat(os.path.join(directory, name))
                h.update(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _data_bytes(data: Any, strict: bool) -> bytes:
    """The base data as bytes: marshal (format 2, no back-references, so equal JSON documents
    read the same way give equal bytes) where it can, else sorted JSON."""
    import marshal

    try:
        return marshal.dumps((data, strict), 2)
    except ValueError:  # not plain JSON data (a set, …)
        from hookgate import jsonio
        from hookgate.lang.values import to_json

        plain = to_json(data) if data is not None else None
        return jsonio.dumps([plain, strict], sort_keys=True).encode("utf-8", "surrogatepass")


def safe_dir(cache_dir: str | os.PathLike) -> str:
    """The cache directory, created (mode 0700) if missing; ``UnsafeCacheDir`` if another user
    owns it, others may write to it, or it is not a real directory."""
    path = os.fspath(cache_dir)
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
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


def _entry(directory: str, key: str) -> str:
    return os.path.join(directory, f"{key}.code")


def load(directory: str, key: str) -> tuple[Any, list, dict[str, str]] | None:
    """The cached ``(code object, module summaries, builtins index)`` for ``key``, or None
    (missing, stale, corrupt or unreadable)."""
    import marshal

    header = _MAGIC + key.encode() + b"\n"
    try:
        with open(_entry(directory, key), "rb") as f:
            if f.read(len(header)) != header:
                return None
            checksum, body = f.read(65), f.read()
        if checksum != _hash(body).hexdigest().encode() + b"\n":
            return None
        code, infos, index = marshal.loads(body)
    except Exception:  # any damage to an entry means "rebuild", never a crash
        return None
    if type(code) is not type(load.__code__) or type(infos) is not list or type(index) is not dict:
        return None
    return code, infos, index


def _without_lines(code: Any) -> Any:
    """``code`` without its line table (line and column of each instruction), a third of an
    entry that every hook would read and check: the generated module has no source file for a
    traceback to show, and ``Program.source`` compiled afresh keeps the table for debugging."""
    consts = tuple(_without_lines(c) if type(c) is type(code) else c for c in code.co_consts)
    return code.replace(co_linetable=b"", co_consts=consts)


def store(directory: str, key: str, code: Any, infos: list, index: dict[str, str]) -> None:
    """Write an entry atomically; failures are ignored (the cache is an optimisation)."""
    import marshal
    import tempfile

    header = _MAGIC + key.encode() + b"\n"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".code")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            body = marshal.dumps((_without_lines(code), infos, index))
            f.write(header + _hash(body).hexdigest().encode() + b"\n")
            f.write(body)
        os.replace(tmp, _entry(directory, key))
    except Exception:
        try:
            os.unlink(tmp)
        except OSError:
            pass
