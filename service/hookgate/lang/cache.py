"""The on-disk compile cache: a policy set's compiled code, keyed by everything that shapes it.

An entry holds the marshaled code object of the module that ``hookgate.lang.compile`` generated
for the policy set (``hookgate.lang.documents.run`` executes it: no parsing, no AST, no compiling),
a summary of each module (file name, package, metadata, rules: ``ModuleInfo``) and the
builtins index (name → family module, see ``hookgate.builtins.use_index``), so that a warm start
imports only the builtin families that the rules it evaluates call. The key is a BLAKE2b-256 over
the sources (sorted by file name), the base data and strict flag, the files of the code that
shapes an entry (the grammar, ``hookgate.lang``, the builtins: name, size, modification time),
hookgate's version and the Python implementation and version (code objects and marshal formats
differ between Pythons).

Like Jinja2's ``FileSystemBytecodeCache``, the directory must belong to the current user (or to
root: a managed install's cache) and be writable by no one else (it is created with mode 0700);
a directory failing that check is refused. Each entry starts with a header naming the format, the key and a CRC-32 of the rest (a
flipped bit can still unmarshal into a weaker policy), all checked before anything is decoded;
any mismatch or read error means "rebuild", and entries are written to a temporary file renamed
into place, so a reader never sees half an entry. The CRC is against damage, not against a
writer: whoever can write this directory could write any checksum, which is why the directory
must be the user's alone.

Policies loaded from files (the default pack, ``--policies``) also get a stamp record
(``files-*.stamp``): the files' stat stamps (``sources.file_stamps``), the key of their entry
and their base data, so that a warm hook finds its entry without reading or hashing the files.
"""

from __future__ import annotations

import os
import stat
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MAGIC = b"hookgate-compile-cache/8\n"


def _hash(data: bytes = b"") -> Any:
    """A 256-bit BLAKE2b: as strong as SHA-256, and without OpenSSL several times faster."""
    try:  # the C module behind hashlib.blake2b, without hashlib's OpenSSL start-up cost
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - other Python builds
        from hashlib import blake2b
    return blake2b(data, digest_size=32)


class UnsafeCacheDir(Exception):
    """The cache directory is owned by another user or writable by others."""


def cache_key(sources: dict[str, str], data: Any, strict: bool) -> str:
    import hookgate

    h = _hash()
    for name in sorted(sources):
        for part in (name, sources[name]):
            b = part.encode("utf-8", "surrogatepass")
            h.update(len(b).to_bytes(8, "little"))
            h.update(b)
    for b in (
        data_bytes(data, strict),
        hookgate.__version__.encode(),
        sys.version.encode(),
        (sys.implementation.cache_tag or "").encode(),
    ):
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    h.update(code_stamp().encode())
    return h.hexdigest()


def code_stamp() -> str:
    """The files of the code that shapes an entry (the grammar, ``hookgate.lang``, the
    builtins): name, size and modification time of each."""
    import hookgate.builtins
    import hookgate.grammar

    lines = []
    for directory in (
        os.path.dirname(hookgate.grammar.__file__),
        os.path.dirname(__file__),
        os.path.dirname(hookgate.builtins.__file__),
    ):
        for name in sorted(os.listdir(directory)):
            if name.endswith((".py", ".lark")):
                st = os.stat(os.path.join(directory, name))
                lines.append(f"{directory}/{name}:{st.st_size}:{st.st_mtime_ns}\n")
    return "".join(lines)


def data_bytes(data: Any, strict: bool) -> bytes:
    """The base data (with ``strict``) as bytes: marshal (format 2, no back-references, so equal JSON documents
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
    # Root's (a managed install's ``/var/lib/hookgate/compiled``, which the hook reads and cannot
    # write) is as safe as the user's own: no one else can write either.
    if hasattr(os, "getuid") and st.st_uid not in (os.getuid(), 0):
        raise UnsafeCacheDir(f"cache directory {path} belongs to another user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UnsafeCacheDir(f"cache directory {path} is writable by other users")
    return path


MAX_ENTRY_BYTES = 64 << 20  # an entry or files stamp the hook reads (the default pack's: ~1 MiB)


def _entry(directory: str, key: str) -> str:
    return os.path.join(directory, f"{key}.code")


def load(directory: str, key: str) -> tuple[Any, list, dict[str, str]] | None:
    """The cached ``(code object, module summaries, builtins index)`` for ``key``, or None
    (missing, stale, corrupt or unreadable)."""
    import marshal
    from zlib import crc32

    from hookgate.files import read_file

    header = _MAGIC + key.encode() + b"\n"
    # Outside the ``try``: an entry that is not a regular file, a link or past the cap raises
    # ``files.UnsafeFile`` (a limit: no hookgate writes one, and a FIFO must not hang the hook).
    raw = read_file(_entry(directory, key), MAX_ENTRY_BYTES)
    if raw is None or raw[: len(header)] != header:
        return None
    try:
        checksum, body = raw[len(header) : len(header) + 9], raw[len(header) + 9 :]
        if checksum != b"%08x\n" % crc32(body):
            return None
        code, infos, index = marshal.loads(body)
    except Exception:  # any damage to an entry means "rebuild", never a crash
        return None
    if type(code) is not type(load.__code__) or type(infos) is not list or type(index) is not dict:
        return None
    return code, infos, index


def load_stamped(directory: str, stamps: tuple) -> tuple[str, Any] | None:
    """The entry key and the base data of the policy files whose ``sources.file_stamps`` are
    ``stamps``, as ``store_stamped`` recorded them, or None: the hook then neither reads nor
    hashes the files."""
    import marshal

    from hookgate.files import read_file

    raw = read_file(_stamp_file(directory, stamps), MAX_ENTRY_BYTES)  # as ``load``
    if raw is None:
        return None
    try:
        recorded, shaped_by, key, data = marshal.loads(raw)
    except Exception:  # damaged: read the files
        return None
    if recorded != stamps or shaped_by != _shaped_by() or type(key) is not str:
        return None
    return key, data


def store_stamped(directory: str, stamps: tuple, key: str, data: Any) -> None:
    """Record that the files of ``stamps`` compile to the entry ``key`` with base ``data``.
    Not when a file changed in the last seconds: a write later within the same tick of the
    file system's clock could leave its stamp as it is (git's "racily clean" files)."""
    import marshal
    import time

    if max((stamp[4] for stamp in stamps), default=0) > time.time_ns() - 2_000_000_000:
        return
    try:
        body = marshal.dumps((stamps, _shaped_by(), key, data))
    except ValueError:  # data marshal cannot write: read the files each time
        return
    write_file(directory, _stamp_file(directory, stamps), body)


def _stamp_file(directory: str, stamps: tuple) -> str:
    # Named by the set of files: another set under the same name only replaces the record.
    from zlib import crc32

    names = "\0".join(stamp[0] for stamp in stamps).encode("utf-8", "surrogatepass")
    return os.path.join(directory, f"files-{crc32(names):08x}-{len(stamps)}.stamp")


def _shaped_by() -> str:
    import hookgate

    return f"{hookgate.__version__}\n{sys.version}\n{code_stamp()}"


def _without_lines(code: Any) -> Any:
    """``code`` without its line table (line and column of each instruction), a third of an
    entry that every hook would read and check: the generated module has no source file for a
    traceback to show, and ``Program.source`` compiled afresh keeps the table for debugging."""
    consts = tuple(_without_lines(c) if type(c) is type(code) else c for c in code.co_consts)
    return code.replace(co_linetable=b"", co_consts=consts)


def store(directory: str, key: str, code: Any, infos: list, index: dict[str, str]) -> None:
    """Write an entry atomically; failures are ignored (the cache is an optimisation)."""
    import marshal
    from zlib import crc32

    try:
        body = marshal.dumps((_without_lines(code), infos, index))
    except ValueError:
        return
    header = _MAGIC + key.encode() + b"\n" + b"%08x\n" % crc32(body)
    write_file(directory, _entry(directory, key), header + body)


def write_file(directory: str, path: str, content: bytes) -> None:
    """Write ``path`` through a temporary file renamed into place; failures are ignored."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".code")
    except OSError:
        return
    try:
        if _shared(directory):
            os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(content)
        os.replace(tmp, path)
    except Exception:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _shared(directory: str) -> bool:
    """Whether ``directory`` is root's compile cache that every user's hook reads (managed
    mode: root's, 0755): what root writes there must be readable by them, whichever root
    process writes it (a pull, or a hook run as root). A user's own cache keeps its files
    0600 (mkstemp's mode)."""
    if os.geteuid() != 0:
        return False
    st = os.stat(directory)
    return st.st_uid == 0 and st.st_mode & 0o005 == 0o005


class ModuleInfo:
    """What a compiled policy set keeps of a module (for provenance and tools): its file name,
    package, ``# METADATA`` pairs and rules (each with ``kind`` and ``ref``)."""

    __slots__ = ("filename", "package", "metadata", "rules")

    def __init__(self, filename: str, package: tuple, metadata: tuple, rules: tuple) -> None:
        self.filename = filename
        self.package = package
        self.metadata = metadata
        self.rules = tuple(RuleInfo(kind, ref) for kind, ref in rules)

    @classmethod
    def of(cls, module: Any) -> ModuleInfo:
        """The summary of an ``ast.Module``."""
        rules = [(r.kind, r.ref) for r in module.rules]
        return cls(module.filename, module.package, module.metadata, rules)

    def encode(self) -> tuple:
        return (self.filename, self.package, self.metadata, [(r.kind, r.ref) for r in self.rules])


class RuleInfo:
    __slots__ = ("kind", "ref")

    def __init__(self, kind: str, ref: tuple) -> None:
        self.kind = kind
        self.ref = ref
