"""The on-disk compile cache: checked modules, keyed by everything that shapes them.

An entry holds the list of checked ``ast.Module`` nodes in a compact marshal form (each node a
list ``[class name, *fields]``) and the builtins index (name → family module, see
``hookgate.builtins.use_index``): a warm start rebuilds the nodes without importing Lark or the
parser, and imports only the builtin families that the rules it evaluates call. The key is a
SHA-256 over the sources (sorted by file name), the base data, the grammar, the AST's own source
(the node layout), the builtins' files (name, size, modification time), hookgate's version and
the Python implementation and version (marshal formats differ between Pythons).

Like Jinja2's ``FileSystemBytecodeCache``, the directory must belong to the current user and be
writable by no one else (it is created with mode 0700); a directory failing that check is
refused. Each entry starts with a header naming the format, the key and the SHA-256 of the rest
(a flipped bit can still unmarshal into a weaker policy), all checked before anything
is decoded; any mismatch or read error means "rebuild", and entries are written to a temporary
file renamed into place, so a reader never sees half an entry.
"""

from __future__ import annotations

import os
import stat
import sys

try:  # the C module behind hashlib.sha256, without hashlib's OpenSSL start-up cost
    from _sha256 import sha256
except ImportError:  # pragma: no cover - other Python builds
    from hashlib import sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAGIC = b"hookgate-compile-cache/4\n"


class UnsafeCacheDir(Exception):
    """The cache directory is owned by another user or writable by others."""


def cache_key(sources: dict[str, str], data_text: str) -> str:
    import hookgate
    import hookgate.builtins
    import hookgate.grammar
    from hookgate.lang import ast

    h = sha256()
    for name in sorted(sources):
        for part in (name, sources[name]):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    with open(os.path.join(os.path.dirname(hookgate.grammar.__file__), "policy.lark"), "rb") as f:
        grammar = f.read()
    with open(ast.__file__, "rb") as f:
        ast_source = f.read()
    builtins_dir = os.path.dirname(hookgate.builtins.__file__)
    for name in sorted(os.listdir(builtins_dir)):
        if name.endswith(".py"):
            st = os.stat(os.path.join(builtins_dir, name))
            h.update(f"{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for b in (
        data_text.encode("utf-8", "surrogatepass"),
        grammar,
        ast_source,
        hookgate.__version__.encode(),
        sys.version.encode(),
        (sys.implementation.cache_tag or "").encode(),
    ):
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


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
    return os.path.join(directory, f"{key}.modules")


def _encode(x: Any) -> Any:
    from hookgate.lang import ast

    if type(x) is tuple:
        return tuple(_encode(v) for v in x)
    if isinstance(x, ast.Node):
        return [type(x).__name__, *(_encode(value) for _, value in ast.fields(x))]
    return x


def _decoder() -> Any:
    from hookgate.lang import ast

    classes = {
        name: cls
        for name, cls in vars(ast).items()
        if isinstance(cls, type) and issubclass(cls, ast.Node) and cls is not ast.Node
    }

    def decode(x: Any) -> Any:
        # Leaves (strings, numbers, None) are most of the values: test them inline.
        if type(x) is list:
            it = iter(x)
            cls = classes[next(it)]
            return cls(*[v if type(v) not in nested else decode(v) for v in it])
        return tuple([v if type(v) not in nested else decode(v) for v in x])

    nested = (list, tuple)

    return decode


def load(directory: str, key: str) -> tuple[list, dict[str, str]] | None:
    """The cached modules for ``key`` and the builtins index stored with them, or None
    (missing, stale, corrupt or unreadable)."""
    import marshal

    header = _MAGIC + key.encode() + b"\n"
    try:
        with open(_entry(directory, key), "rb") as f:
            if f.read(len(header)) != header:
                return None
            checksum, body = f.read(65), f.read()
        if checksum != sha256(body).hexdigest().encode() + b"\n":
            return None
        index, payload = marshal.loads(body)
        if type(index) is not dict:
            return None
        decode = _decoder()
        return [decode(m) for m in payload], index
    except Exception:  # any damage to an entry means "rebuild", never a crash
        return None


def store(directory: str, key: str, modules: Any, index: dict[str, str]) -> None:
    """Write an entry atomically; failures are ignored (the cache is an optimisation)."""
    import marshal
    import tempfile

    header = _MAGIC + key.encode() + b"\n"
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".modules")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            body = marshal.dumps((index, [_encode(m) for m in modules]))
            f.write(header + sha256(body).hexdigest().encode() + b"\n")
            f.write(body)
        os.replace(tmp, _entry(directory, key))
    except Exception:
        try:
            os.unlink(tmp)
        except OSError:
            pass
