"""Layers: the built-in pack is the base layer, and a team's policies and data are layers over it.

A layer is a directory (or file) read as ``sources.load_paths`` reads one. Laying it over the
layers below:

- its ``.rego`` files are added. A file named as one of the base pack's is dropped when it is
  the same text (a copy of the pack is no change) and is an error when it declares the same
  package (an edited copy): a layer adds guards, it never replaces the base's silently
  (``base=False`` replaces the whole base).
- its data files, shallower first, are deep-merged over the data below (``overlay``): objects
  merge key by key, arrays and scalars replace; a value whose JSON type differs from the value it replaces is an error
  naming the key path and the file.
- a built-in guard is turned off only by naming it in ``data.hookgate.disabled``; each name must
  be a guard of the set (an unknown one is an error), and the statement is shown by ``check``,
  ``publish --dry-run`` and ``impact`` (``Layered.disabled``). The engine skips those guards.
- ``data.hookgate.modes`` (``hookgate.modes``) must name guards of the set, and no unmodal one.

The server composes its active set the same way (``compose_set``): the base, then the team's
layer (the documents a team published), with ``--replace-base`` as ``--no-default-pack``. A
layer directory holding a ``REPLACE-BASE`` file (``hookgate export`` writes one for a server
whose base is replaced) states the same locally: the layers compose without the base, so an
exported directory decides on a laptop as it did on the server.

The pack's version (``pack_version``) is hookgate's version plus a digest of the pack's files,
so two machines with the same version string run the same base.
"""

from __future__ import annotations

import os

from hookgate import modes
from hookgate.lang.errors import Diagnostic, PolicyError

BASE_NAME = "hookgate-default"
# In a directory published to the server, the statement that its layer replaces the base
# (``hookgate publish --replace-base``); ``hookgate export`` writes it for such a server.
REPLACE_BASE_FILE = "REPLACE-BASE"
DISABLED_PATH = ("hookgate", "disabled")
# A guard is a ``hookgate.*`` package that defines a decision rule (engine.DECISION_RULES).
# Read line by line, not with ``re``: on the server these texts are an editor's input.
_DECISION_HEADS = ("deny", "ask", "rewrite", "context")


class Layered:
    """Every layer composed: the modules and the effective data, and what the base was. The
    base layer alone is kept (``base_sources``, ``base_data``; empty when replaced) because the
    pack's tests run against its data; ``disabled_by`` is the layer that set ``disabled``."""

    def __init__(
        self,
        sources: dict[str, str],
        data: dict,
        base_sources: dict[str, str],
        base_data: dict,
        base_version: str | None,
        disabled: list[str],
        disabled_by: str | None,
    ) -> None:
        self.sources = sources
        self.data = data
        self.base_sources = base_sources
        self.base_data = base_data
        self.base_version = base_version
        self.disabled = disabled
        self.disabled_by = disabled_by
        self.named: list[str] = list(sources)  # the modules the layers named (``compose``)
        # The REPLACE_BASE_FILE that dropped the base (``compose``), None when none did.
        self.replaced_by: str | None = None
        # ``(file, key path)`` of each setting a layer sets that nothing reads (``unread``).
        self.unread: list[tuple[str, str]] = []


def compose(
    layers: list[str] | list[os.PathLike], *, base: bool = True, include_tests: bool = False
) -> Layered:
    """The built-in pack (unless ``base`` is false) with ``layers`` over it, in order. Raises
    ``PolicyError`` naming the file for a replaced base file, a mistyped setting or an unknown
    guard in ``disabled``."""
    from hookgate.sources import default_pack_path, load_paths

    base_sources: dict[str, str] = {}
    base_data: dict = {}
    version = None
    replaced_by = replacing(layers) if base else None
    base = base and replaced_by is None
    if base:
        base_sources, base_data = load_paths([default_pack_path()], include_tests=include_tests)
        version = pack_version(base_sources, base_data) if include_tests else base_version()
    # The base's tests run only when a layer names them (the pack's directory, or copies of its
    # files): they test the shipped pack, which the layers above cannot change.
    sources = {file: text for file, text in base_sources.items() if not _is_test(file)}
    stack = _Stack(sources, base_sources, base_data, "--no-default-pack")
    for layer in layers:
        layer = os.fspath(layer)
        if base and _same_dir(layer, default_pack_path()):
            sources.update(base_sources)  # the pack itself named as a layer (``check policies/``)
            stack.named.update(base_sources)
            continue
        stack.add(_modules(layer, include_tests), _documents(layer))
    layered = stack.layered(version)
    layered.replaced_by = replaced_by
    return layered


def compose_set(policies: dict[str, str], documents: dict[str, object], *, base: bool) -> Layered:
    """The server's active set: the built-in pack (``base``; policy id = file name, its tests
    included, as the server has always carried them) with one team layer over it, composed as
    ``compose`` composes directories: ``policies`` by id, ``documents`` (data documents by
    slash path, each placed at its path, shallower first) overlaid with the same type checks.
    A team policy with a base file's id is the base's file when it is the same text and a
    ``PolicyError`` otherwise (an id names one module: a layer never replaces the base's)."""
    base_sources, base_data, version = server_base() if base else ({}, {}, None)
    stack = _Stack(dict(base_sources), base_sources, base_data, "--replace-base")
    found = sorted(documents.items(), key=lambda d: (d[0].count("/"), d[0]))
    stack.add(policies, [(f"data/{path}", _placed(path, doc)) for path, doc in found])
    return stack.layered(version)


class _Stack:
    """Layers laid one over another (``add``), from the base up: what ``compose`` and
    ``compose_set`` share, so a directory and the server compose alike."""

    def __init__(
        self, sources: dict[str, str], base_sources: dict[str, str], base_data: dict, flag: str
    ) -> None:
        self.sources = sources
        self.base_sources = base_sources
        self.base_data = base_data
        self.data = _copy(base_data)
        self.by_name = {os.path.basename(file): file for file in base_sources}
        self.named: set[str] = set()
        self.disabled_by: str | None = None
        self.modes_by: str | None = None  # the layer that last set data.hookgate.modes
        self.flag = flag  # how a user replaces the whole base, for the error's hint
        self.new_keys: list[tuple[str, tuple[str, ...]]] = []  # settings the base lacks

    def add(self, modules: dict[str, str], documents: list[tuple[str, dict]]) -> None:
        for file, text in modules.items():
            name = os.path.basename(file)
            base_file = self.by_name.get(name)
            if base_file is not None:
                if self.base_sources[base_file] == text:  # a copy of the pack is no change
                    self.sources[base_file] = text
                    self.named.add(base_file)
                    continue
                same_package = _package(self.base_sources[base_file]) == _package(text)
                if file != base_file and not same_package:
                    self.sources[file] = text  # only the name is shared: the team's own module
                    self.named.add(file)
                    continue
                raise PolicyError([Diagnostic(file, 1, 1, self._replaced(name, same_package))])
            self.sources[file] = text
            self.named.add(file)
        # Each document over the layers below on its own, so an error names its file.
        for file, document in documents:
            self.new_keys.extend((file, path) for path in _new_settings(document, self.base_data))
            overlay(self.data, document, file)
            if _get(document, DISABLED_PATH) is not None:
                self.disabled_by = file
            if _get(document, modes.PATH) is not None:
                self.modes_by = file

    def _replaced(self, name: str, same_package: bool) -> str:
        what = "an edited copy of" if same_package else "named as"
        return (
            f"{name} is {what} the built-in pack's file ({BASE_NAME}: same name"
            f"{' and package' if same_package else ''}); a layer adds files and cannot replace "
            "the base's: keep only your own files (under names of their own), turn a guard off "
            f"with data.hookgate.disabled, or replace the whole base ({self.flag})"
        )

    def layered(self, version: str | None) -> Layered:
        disabled = _disabled(self.data, self.sources, self.disabled_by or "data")
        wrong = modes.problems(self.data, guard_names(self.sources))
        if wrong:
            source = self.modes_by or "data"
            raise PolicyError([Diagnostic(source, 1, 1, message) for message in wrong])
        layered = Layered(
            self.sources,
            self.data,
            self.base_sources,
            self.base_data,
            version,
            disabled,
            self.disabled_by,
        )
        layered.named = [file for file in self.sources if file in self.named]
        if self.new_keys:
            read = _words(text for file, text in self.sources.items() if not _is_test(file))
            # A record of settings: the modules name each of its keys. An object keyed by
            # names the modules never spell (bypass_env, instruction_channels.files) is a
            # table: a new entry there is read by looking it up, not by its name.
            layered.unread = [
                (file, ".".join(("data", *path)))
                for file, path in self.new_keys
                if path[-1] not in read and set(_get(self.base_data, path[:-1])) <= read
            ]
        return layered


def _new_settings(
    document: object, base: object, where: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """The key paths ``document`` sets inside one of the base's settings objects (an object
    whose values are not all objects: a record of settings, not a table of named entries such
    as ``host_files``) that the base does not have."""
    if not isinstance(document, dict) or not isinstance(base, dict):
        return []
    found = []
    record = bool(base) and not all(isinstance(value, dict) for value in base.values())
    for key, value in document.items():
        if key in base:
            found.extend(_new_settings(value, base[key], (*where, key)))
        elif record:
            found.append((*where, key))
    return found


def _words(texts: object) -> set[str]:
    """Every identifier-like word of ``texts`` (names, strings and comments alike): a setting
    whose key is none of them is read by no module by name."""
    words: set[str] = set()
    for text in texts:  # type: ignore[attr-defined]
        word = []
        for char in text + " ":
            if char.isalnum() or char == "_":
                word.append(char)
            elif word:
                words.add("".join(word))
                word = []
    return words


def unread_lines(layered: Layered, file: str | None = None) -> list[str]:
    """One line per setting a layer sets (``file``'s alone when given) that the base does not
    have and no module reads (a key renamed in a newer pack, a typo): it changes nothing, so
    say so."""
    base = f"the base {BASE_NAME} {layered.base_version}" if layered.base_version else "the set"
    return [
        f"{found}: {path} is a setting {base} does not have and no policy reads: it changes "
        "nothing (renamed in the pack, or misspelled?)"
        for found, path in layered.unread
        if file in (None, found)
    ]


def replaces_base(directory: str) -> bool:
    """Whether ``directory`` states that its layer replaces the base (``REPLACE_BASE_FILE``)."""
    return replacing([directory]) is not None


def replacing(layers: list[str] | list[os.PathLike]) -> str | None:
    """The first ``REPLACE_BASE_FILE`` among ``layers``' directories, or None: one layer stating
    it replaces the base makes every layer compose without it, as the set it was exported
    from did on the server."""
    for layer in layers:
        marker = os.path.join(os.fspath(layer), REPLACE_BASE_FILE)
        if os.path.isfile(marker):
            return marker
    return None


def _placed(path: str, document: object) -> dict:
    placed: object = _copy(document)
    for key in reversed(path.split("/")):
        placed = {key: placed}
    return placed  # type: ignore[return-value]


_SERVER_BASE: tuple[dict[str, str], dict, str] | None = None


def server_base() -> tuple[dict[str, str], dict, str]:
    """The built-in pack as the server composes it: ``(modules by file name, tests included;
    data; version)``, read once a process (the installed pack does not change under it)."""
    global _SERVER_BASE
    if _SERVER_BASE is None:
        from hookgate.sources import default_pack_sources

        found, data = default_pack_sources(include_tests=True)
        sources = {os.path.basename(file): text for file, text in found.items()}
        _SERVER_BASE = (sources, data, pack_version(found, data))
    return _SERVER_BASE


def value_at(data: object, path: str, missing: object) -> object:
    """The value at a data document's slash ``path`` in ``data``, or ``missing``."""
    for key in path.split("/"):
        if not isinstance(data, dict) or key not in data:
            return missing
        data = data[key]
    return data


def overlay(into: dict, layer: dict, source: str, where: tuple[str, ...] = ()) -> None:
    """Merge ``layer`` (read from ``source``) over ``into``, in place: objects merge key by key,
    arrays and scalars replace. A value of another JSON type than the one it replaces is a
    ``PolicyError`` naming the key path (a null below takes any type: it means "not set")."""
    for key, value in layer.items():
        below = into.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            overlay(below, value, source, (*where, key))
            continue
        if key in into and below is not None and json_type(below) != json_type(value):
            path = ".".join(("data", *where, key))
            message = (
                f"{path} is {_article(json_type(value))} here but {_article(json_type(below))} "
                "in the layers below: a setting keeps its type"
            )
            raise PolicyError([Diagnostic(source, 1, 1, message)])
        into[key] = _copy(value)


def json_type(value: object) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "null"


def guard_names(sources: dict[str, str]) -> set[str]:
    """The guards of ``sources``: each ``hookgate.*`` package (tests excluded) with a decision
    rule, named by its package without ``hookgate.`` (``force_push``)."""
    names = set()
    for text in sources.values():
        package = _package(text) or ""
        name = package.removeprefix("hookgate.")
        if name != package and not name.endswith("_test") and _decides(text):
            names.add(name)
    return names


def _decides(text: str) -> bool:
    """Whether a module defines a decision rule: a line that starts with one's name."""
    for line in text.splitlines():
        for head in _DECISION_HEADS:
            if line.startswith(head):
                rest = line[len(head) : len(head) + 1]
                if not (rest.isalnum() or rest == "_"):
                    return True
    return False


def disabled_guards(data: object) -> list[str]:
    """``data.hookgate.disabled`` as a list of names ([] when unset or malformed: ``compose``
    reports malformed ones)."""
    value = _get(data, DISABLED_PATH)
    if not isinstance(value, list):
        return []
    return [name for name in value if isinstance(name, str)]


def place_documents(documents: dict[str, object]) -> dict:
    """Data documents by slash path placed as the server places them (shallower first; a
    deeper one overrides the matching part: objects merge, anything else replaces), for
    reading a set's ``disabled`` statement without the server's code."""
    from hookgate.sources import lay_over

    data: dict = {}
    for path, document in sorted(documents.items(), key=lambda d: (d[0].count("/"), d[0])):
        lay_over(data, _placed(path, document))
    return data


def pack_version(sources: dict[str, str], data: dict) -> str:
    """``<hookgate version>+<12 hex digits>``: the digest covers every module's name and text
    (tests included) and the data, so an edited pack never shows the version of the one
    shipped."""
    import hashlib

    import hookgate
    from hookgate import jsonio

    digest = hashlib.sha256()
    for file in sorted(sources, key=os.path.basename):
        digest.update(os.path.basename(file).encode() + b"\0" + sources[file].encode() + b"\0")
    digest.update(jsonio.dumps(data, sort_keys=True, compact=True).encode())
    return f"{hookgate.__version__}+{digest.hexdigest()[:12]}"


def release_key(version: str) -> tuple[tuple[int, ...], int] | None:
    """How ``pack_version``'s release part orders (``0.2.0`` after ``0.1.9``; a pre-release
    such as ``0.2.0rc1`` or ``0.2.0.dev1`` before ``0.2.0``, ``0.2.0.post1`` after it), or
    None when it is no release number. The digest after ``+`` has no order: two builds of one
    release compare equal, as do two pre-releases of one release."""
    numbers: list[int] = []
    final = 1
    for part in version.split("+", 1)[0].split("."):
        digits = len(part) - len(part.lstrip("0123456789"))
        if digits == 0 and not numbers:
            return None
        if digits < len(part):
            # A suffix: a post-release (post1) comes after its release, any other (rc1, dev1,
            # a1, b1) before the release it leads to.
            final = 2 if part[digits:].startswith("post") else 0
        if digits == 0 or final != 1:
            if digits:
                numbers.append(int(part[:digits]))
            break
        numbers.append(int(part))
    while numbers and numbers[-1] == 0:  # 0.2 and 0.2.0 are one release
        numbers.pop()
    return tuple(numbers), final


def base_version() -> str:
    """The version of the built-in pack this hookgate ships."""
    from hookgate.sources import default_pack_sources

    return pack_version(*default_pack_sources(include_tests=True))


def statement(layered: Layered) -> str | None:
    """The line that shows guards turned off, or None."""
    if not layered.disabled:
        return None
    where = f" by {layered.disabled_by}" if layered.disabled_by else ""
    return f"guards turned off{where} (data.hookgate.disabled): {', '.join(layered.disabled)}"


def _disabled(data: dict, sources: dict[str, str], source: str) -> list[str]:
    value = _get(data, DISABLED_PATH)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        message = "data.hookgate.disabled must be an array of guard names"
        raise PolicyError([Diagnostic(source, 1, 1, message)])
    known = guard_names(sources)
    unknown = [name for name in value if name not in known]
    if unknown:
        message = (
            f"data.hookgate.disabled names no guard: {', '.join(unknown)} (the guards: "
            f"{', '.join(sorted(known))})"
        )
        raise PolicyError([Diagnostic(source, 1, 1, message)])
    return list(dict.fromkeys(value))


def _documents(layer: str) -> list[tuple[str, dict]]:
    """Each data file of ``layer`` with its document placed at its directory's path,
    shallower files first: within a layer, as on the server (``hookgate export`` writes its
    documents so), a deeper document overrides the matching part of a shallower one."""
    from hookgate.sources import _files, _read_json, merge_data

    found = []
    for root, is_dir, file in _files([layer], False):
        if file.endswith(".json"):
            placed: dict = {}
            folders = os.path.relpath(file, root).split(os.sep)[:-1] if is_dir else []
            merge_data(placed, tuple(folders), _read_json(file), file)
            found.append((len(folders), file, placed))
    found.sort(key=lambda f: f[:2])
    # Files of one depth may add keys to one object but never set one value twice (OPA's
    # rule): neither is "deeper", so which one wins would be an accident of their names.
    by_depth: dict[int, dict] = {}
    for depth, file, placed in found:
        merge_data(by_depth.setdefault(depth, {}), (), _copy(placed), file)
    return [(file, placed) for _, file, placed in found]


def _package(text: str) -> str | None:
    """The package a module declares (its first ``package`` line), or None."""
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "package":
            return words[1]
    return None


def _modules(layer: str, include_tests: bool) -> dict[str, str]:
    from hookgate.sources import _files, _read

    return {
        file: _read(file) for _, _, file in _files([layer], include_tests) if file.endswith(".rego")
    }


def _is_test(file: str) -> bool:
    return file.endswith("_test.rego")


def shipped_tests(sources: dict[str, str]) -> set[str]:
    """The files of ``sources`` that are the built-in pack's own test modules, unchanged (same
    name and text, wherever they are: the server names them by file name). They test the
    shipped pack, so they run against its default configuration, never a team's."""
    from hookgate.sources import default_pack_sources

    shipped = {
        os.path.basename(file): text
        for file, text in default_pack_sources(include_tests=True)[0].items()
        if _is_test(file)
    }
    return {
        file
        for file, text in sources.items()
        if _is_test(file) and shipped.get(os.path.basename(file)) == text
    }


def _get(data: object, path: tuple[str, ...]) -> object:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _copy(value: object) -> object:
    # Layers never share objects: merging a later layer must not change an earlier one's data.
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.isdir(a) and os.path.samefile(a, b)
    except OSError:
        return False


def _article(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind
