"""Where policies come from: files and directories on disk, and the built-in default pack.

A ``.rego`` file is a policy module. A ``.json`` file is a data document, merged into ``data``
at the path of its directory relative to the root it was found under (OPA's bundle layout): a
``data.json`` at the root merges at the top of ``data``, ``team/data.json`` under ``data.team``.
Modules named ``*_test.rego`` hold ``test_*`` rules; they are loaded only when asked for.
"""

from __future__ import annotations

import os

from hookgate import jsonio
from hookgate.lang.errors import Diagnostic, PolicyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping


def load_paths(
    paths: list[str] | list[os.PathLike], *, include_tests: bool = False
) -> tuple[dict[str, str], dict]:
    """Read every policy module and data document under ``paths``.

    Returns ``(sources, data)``: sources maps each file's path (as given, for diagnostics) to
    its text. Unreadable files and invalid JSON raise ``PolicyError`` naming the file.
    """
    sources: dict[str, str] = {}
    data: dict = {}
    for root, is_dir, file in _files(paths, include_tests):
        if file.endswith(".rego"):
            sources[file] = _read(file)
        else:
            folders = os.path.relpath(file, root).split(os.sep)[:-1] if is_dir else []
            merge_data(data, tuple(folders), _read_json(file), file)
    return sources, data


def file_stamps(paths: list[str] | list[os.PathLike]) -> tuple | None:
    """What identifies the files ``load_paths(paths)`` reads without reading them: each file's
    name, inode, size, modification and change times. Writing a file, or replacing, adding or
    removing one, changes it; so does restoring a modification time (``touch -d``), since no one
    can set a change time. None when a file cannot be examined."""
    stamps = []
    try:
        for _, _, file in _files(paths, False):
            st = os.stat(file)
            stamps.append((file, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    except (OSError, PolicyError):
        return None
    return tuple(stamps)


def _files(
    paths: list[str] | list[os.PathLike], include_tests: bool
) -> Iterator[tuple[str, bool, str]]:
    """``(root, root is a directory, file)`` for each module and data file under ``paths``, in
    the order they are read."""
    for root in (_spelled(os.fspath(path)) for path in paths):
        if not os.path.exists(root):
            # A layer the hook was given (install checked it existed) that is gone: the agent's
            # user can delete or rename it, so it is a limit as an unreadable file is, never a
            # fault that fails open with the guards of every layer.
            from hookgate.files import UnsafeFile

            gone = UnsafeFile(root, "no such file or directory (a policy layer)", "missing")
            raise PolicyError([Diagnostic(root, 0, 0, "no such file or directory")]) from gone
        is_dir = os.path.isdir(root)
        # Component by component, as pathlib orders paths ("a/b/…" before "a/b-c/…").
        files = sorted(_walk(root), key=lambda file: file.split(os.sep)) if is_dir else [root]
        for file in files:
            suffix = os.path.splitext(file)[1]
            if suffix == ".json" or (
                suffix == ".rego" and (include_tests or not file.endswith("_test.rego"))
            ):
                yield root, is_dir, file


def directory_documents(directory: str) -> tuple[dict[str, str], dict[str, object]]:
    """A directory as the server stores a set: ``(policies by id, data documents by path)``.

    A policy's id is its file name (test modules included), so two files of one name are an
    error. A ``.json`` file at the top holds documents by their top-level key (``data.json``
    with ``{"hookgate": …}`` is the document ``hookgate``); one under ``a/b/`` is the document
    at path ``a/b``. ``hookgate publish`` sends this, the seed stores the built-in pack as this
    and ``hookgate export`` writes it back. ``PolicyError`` names the file of any problem."""
    policies: dict[str, str] = {}
    where: dict[str, str] = {}
    top: dict = {}
    nested: dict[str, dict] = {}
    for file in sorted(_walk(directory)):
        name = os.path.basename(file)
        if file.endswith(".rego"):
            if name in where:
                message = f"the policy id {name} is also {where[name]}"
                raise PolicyError([Diagnostic(file, 0, 0, message)])
            where[name] = file
            policies[name] = _read(file)
            continue
        # From the file, not its dirname: "data.json" under "." has an empty dirname.
        folders = os.path.relpath(file, directory).split(os.sep)[:-1]
        document = _read_json(file)
        if not folders:
            merge_data(top, (), document, file)
        else:
            path = "/".join(folders)
            merge_data(nested.setdefault(path, {}), (), {"": document}, file)
    documents: dict[str, object] = dict(top)
    for path, holder in nested.items():
        if path in documents:
            message = f"data path {path} is set twice"
            raise PolicyError([Diagnostic(directory, 0, 0, message)])
        documents[path] = holder[""]
    return policies, documents


def default_pack_path() -> str:
    """The directory of the default guard pack shipped inside the package."""
    import hookgate.policies

    return next(iter(hookgate.policies.__path__))


def default_pack_sources(*, include_tests: bool = False) -> tuple[dict[str, str], dict]:
    """The default guard pack's modules and data, as ``load_paths`` returns them."""
    return load_paths([default_pack_path()], include_tests=include_tests)


def lay_over(into: dict, over: Mapping) -> None:
    """Lay ``over`` on ``into``, in place: objects merge key by key, any other value replaces
    (a server document over a shallower one, ``Engine.from_paths``' data over the files')."""
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            lay_over(into[key], value)
        else:
            into[key] = value


def merge_data(
    data: dict, prefix: tuple[str, ...], document: object, source: str = "<data>"
) -> None:
    """Merge ``document`` (read from ``source``) into ``data`` under ``prefix``; objects merge
    key by key."""
    if not prefix and not isinstance(document, dict):
        raise PolicyError([Diagnostic(source, 1, 1, "a root data document must be an object")])
    for key in reversed(prefix):
        document = {key: document}
    _merge_objects(data, document, source)


def _merge_objects(into: dict, new: dict, source: str, where: tuple[str, ...] = ()) -> None:
    # Like OPA, two data files may add keys to one object but never set the same value twice.
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge_objects(into[key], value, source, (*where, key))
        elif key in into:
            path = ".".join(("data", *where, key))
            message = f"{path} is already defined by another data file"
            raise PolicyError([Diagnostic(source, 1, 1, message)])
        else:
            into[key] = value


def _walk(root: str) -> list[str]:
    # Symlinked directories are not followed, so a policy tree cannot loop or escape its root.
    found = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=_unlisted, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        found += [
            _spelled(os.path.join(dirpath, name))
            for name in filenames
            if name.endswith((".rego", ".json"))
        ]
    return found


def _unlisted(error: OSError) -> None:
    """A directory of policies that cannot be listed (os.walk would skip it, dropping its
    policies without a word): unreadable, as a policy file that cannot be read is."""
    from hookgate.files import UnsafeFile

    why = f"a directory that cannot be listed ({error.strerror})"
    raise UnsafeFile(_spelled(error.filename or "."), why, "unreadable") from error


def _spelled(path: str) -> str:
    """``path`` as pathlib spells it (the names diagnostics show): no ``.`` parts, no doubled or
    trailing slashes; ``..`` stays, since it need not cancel the part before it (symlinks)."""
    parts = [part for part in path.split(os.sep) if part not in ("", ".")]
    return (os.sep if path.startswith(os.sep) else "") + os.sep.join(parts) or os.curdir


MAX_POLICY_FILE = 16 << 20


def _read(file: str) -> str:
    """A policy or data file's text, through ``files.read_file`` (links followed: the user
    names these files). A file that is not a regular file, is larger than ``MAX_POLICY_FILE`` or
    cannot be read is a ``PolicyError`` caused by the ``files.UnsafeFile`` (the hook answers it
    as a limit: a FIFO planted among the policies must not hang it)."""
    from hookgate.files import UnsafeFile, read_file

    try:
        raw = read_file(file, MAX_POLICY_FILE, follow=True)
        if raw is None:
            raise PolicyError([Diagnostic(file, 0, 0, "cannot read: No such file or directory")])
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise PolicyError([Diagnostic(file, 0, 0, message)]) from None
    except UnsafeFile as exc:
        raise PolicyError([Diagnostic(file, 0, 0, f"cannot read: {exc.why}")]) from exc


def _read_json(file: str) -> object:
    try:
        return jsonio.loads(_read(file))
    except jsonio.DecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
        raise PolicyError([Diagnostic(file, exc.lineno, exc.colno, message)]) from None
