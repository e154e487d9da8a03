"""Where policies come from: files and directories on disk, and the built-in default pack.

A ``.rego`` file is a policy module. A ``.json`` file is a data document, merged into ``data``
at the path of its directory relative to the root it was found under (OPA's bundle layout): a
``data.json`` at the root merges at the top of ``data``, ``team/data.json`` under ``data.team``.
Modules named ``*_test.rego`` hold ``test_*`` rules; they are loaded only when asked for.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hookgate.lang.errors import Diagnostic, PolicyError


def load_paths(
    paths: list[str] | list[Path], *, include_tests: bool = False
) -> tuple[dict[str, str], dict]:
    """Read every policy module and data document under ``paths``.

    Returns ``(sources, data)``: sources maps each file's path (as given, for diagnostics) to
    its text. Unreadable files and invalid JSON raise ``PolicyError`` naming the file.
    """
    sources: dict[str, str] = {}
    data: dict = {}
    for root in map(Path, paths):
        if not root.exists():
            raise PolicyError([Diagnostic(str(root), 0, 0, "no such file or directory")])
        files = sorted(_walk(root)) if root.is_dir() else [root]
        for file in files:
            if file.suffix == ".rego":
                if include_tests or not file.name.endswith("_test.rego"):
                    sources[str(file)] = _read(file)
            elif file.suffix == ".json" and root.is_dir():
                prefix = file.parent.relative_to(root).parts
                merge_data(data, prefix, _read_json(file), str(file))
            elif file.suffix == ".json":
                merge_data(data, (), _read_json(file), str(file))
    return sources, data


def default_pack_path() -> Path:
    """The directory of the default guard pack shipped inside the package."""
    import hookgate.policies

    return Path(next(iter(hookgate.policies.__path__)))


def default_pack_sources(*, include_tests: bool = False) -> tuple[dict[str, str], dict]:
    """The default guard pack's modules and data, as ``load_paths`` returns them."""
    return load_paths([default_pack_path()], include_tests=include_tests)


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


def _walk(root: Path) -> list[Path]:
    # Symlinked directories are not followed, so a policy tree cannot loop or escape its root.
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
        found += [Path(dirpath) / name for name in filenames if name.endswith((".rego", ".json"))]
    return found


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        message = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise PolicyError([Diagnostic(str(file), 0, 0, message)]) from None
    except OSError as exc:
        raise PolicyError([Diagnostic(str(file), 0, 0, f"cannot read: {exc.strerror}")]) from None


def _read_json(file: Path) -> object:
    try:
        return json.loads(_read(file))
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
        raise PolicyError([Diagnostic(str(file), exc.lineno, exc.colno, message)]) from None
