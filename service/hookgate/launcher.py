"""What the hook command ``hookgate install`` wires runs (``hostconfig.LAUNCH_CODE``): ``hookgate``
started as fast as this Python allows.

Two costs of a hook's process are Python's, not hookgate's, and this module removes them:

- Importing a module: for each of the ~60 modules a hook imports, ``importlib`` searches its
  directory, checks the source's stat against the ``.pyc`` and opens and reads the ``.pyc``.
  Here the hook's modules come from one file in the compile cache (``modules-<python>.code``),
  read at once, each module's code unmarshaled when it is imported and only while its source
  file has the size and modification time it had when the file was written (Python checks a
  ``.pyc`` the same way). A module that is missing or stale is imported as usual, and the file
  is written again, after the answer, with the modules this run imported. Like a ``.pyc`` (and
  unlike a compiled policy, whose damage could weaken a guard without failing), the file has no
  checksum: it must be the user's own and writable by no one else, and its header must name
  this Python's bytecode, this hookgate's version and this install's directory.
- The interpreter's teardown, which frees every module and compiled policy one by one: the
  process ends with ``os._exit`` once stdout and stderr are flushed (every file the hook writes is
  closed by then).
"""

from __future__ import annotations

import io
import marshal
import os
import sys

from hookgate import __version__, anchors, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_MAGIC = b"hookgate-modules/1\n"
# The bytecode's version (importlib's magic number), from the import system already loaded.
_PYC_MAGIC = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
_ModuleSpec = sys.modules["_frozen_importlib"].ModuleSpec
_SourceFileLoader = sys.modules["_frozen_importlib_external"].SourceFileLoader


def launch() -> None:
    """Run ``hookgate`` (``sys.argv[1:]``): a hook asks the warm process first
    (``hookgate.warm``); otherwise its modules come from the module file. Then end the process
    without the interpreter's teardown.

    A hook's process has a deadline from its first step (``hookgate.deadline``), the warm
    process's answer included; and what the agent can cause before ``hookgate eval`` takes over
    (a module file that is not a regular file, a hookgate module that does not import) answers
    the limit action, not a traceback the host would read as "go on"."""
    from hookgate import deadline

    if sys.argv[1:2] == ["eval"]:
        deadline.STATE.explain = "--explain" in sys.argv[2:]
        deadline.arm(deadline.host_from_argv(sys.argv[2:]))
    try:
        _launch()
    except Exception as exc:
        found = deadline.classify(exc)
        if found is None or deadline.STATE.answered or sys.argv[1:2] != ["eval"]:
            raise
        deadline.answer_limit(*found, deadline.detail_of(exc))


def _launch() -> None:
    from hookgate import deadline, warm

    path = _modules_path()
    call = warm.Call.current()
    if call is not None and not call.serving:
        from hookgate.hostio.payload import read_payload

        payload = read_payload()
        deadline.set_payload(payload)
        answer = call.ask(payload)
        if answer is not None:
            _end(*answer)
        sys.stdin = io.TextIOWrapper(io.BytesIO(payload), encoding=sys.stdin.encoding)
    finder = _Finder(_read(path))
    sys.meta_path.insert(0, finder)
    if call is not None and call.serving:
        call.serve(_module_names(path, finder), lambda: _save(path, finder))
        os._exit(0)
    from hookgate import cli

    code = cli.main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        os._exit(120)  # what Python itself answers when it cannot flush at exit
    _save(path, finder)
    if call is not None and call.start_after:
        try:
            call.start()
        except Exception:  # the next hook evaluates in its own process too
            pass
    os._exit(code)


def _end(code: int, stdout: bytes, stderr: bytes) -> None:
    """End the process as the warm process's child answered."""
    from hookgate import deadline

    deadline.writing()
    for fd, data in ((1, stdout), (2, stderr)):
        try:
            while data:
                data = data[os.write(fd, data) :]
        except OSError:
            os._exit(120)
    os._exit(code)


def _save(path: str, finder: _Finder) -> None:
    """Write the module file again when this run imported hookgate modules it lacks; not after a
    run that compiled policies: the compiler's modules, which no warm hook needs, would be read
    by every hook after it."""
    if anchors.present() and os.geteuid() != anchors.ROOT_UID:
        return  # root's file (``write_modules``): the user's hook cannot write it
    try:
        if finder.missed() and "hookgate.lang.compile" not in sys.modules:
            _write(path, finder)
    except Exception:  # the file only saves time; the hook has answered
        pass


def write_modules(payload: bytes) -> str:
    """Write the module file of a managed install (run by root's ``hookgate pull`` in a process
    started as the hook is: this interpreter, ``-I -S``, the launcher's ``sys.path``), so that
    the agent's hooks, which cannot write root's compile cache, read their modules from it as a
    personal hook does. The modules are those a hook imports deciding ``payload`` (its answer
    is discarded and nothing is logged: no call was made). Returns the file's path."""
    from hookgate.lang import cache

    path = _modules_path()
    finder = _Finder(({}, {}))
    sys.meta_path.insert(0, finder)
    from hookgate import cli, warm  # noqa: F401 - what every hook imports
    from hookgate.commands import eval as command
    from hookgate.hostio import payload as reading  # noqa: F401

    command.DEFER = True  # no deadline, no work after the answer: no decision log record
    sys.stdin = io.TextIOWrapper(io.BytesIO(payload), encoding="utf-8")
    real_stdout, sys.stdout = sys.stdout, io.StringIO()
    try:
        cli.main(["eval", "--host", "claude"])
    finally:
        sys.stdout = real_stdout
        command.AFTER.clear()
    cache.safe_dir(os.path.dirname(path))
    _write(path, finder)
    os.chmod(path, 0o644)  # every user's hook reads it
    return path


def _module_names(path: str, finder: _Finder) -> Callable[[], list[str]]:
    """For the warm process: the modules of the module file, read again whenever a child wrote
    it (the warm process imports the new ones between calls)."""

    def mtime() -> int | None:
        try:
            return os.stat(path).st_mtime_ns
        except OSError:
            return None

    seen = [mtime()]

    def names() -> list[str]:
        now = mtime()
        if now != seen[0]:
            seen[0] = now
            try:
                finder.entries, finder.codes = _read(path)
            except OSError:  # not a file hookgate wrote: the hooks answer that, not this
                pass
        return list(finder.entries)

    return names


def _modules_path() -> str:
    tag = sys.implementation.cache_tag or "python"
    return os.path.join(paths.compiled_dir(), f"modules-{tag}.code")


MAX_MODULE_FILE = 64 << 20


def _read(path: str) -> tuple[dict, dict]:
    """``(entries, codes)`` of the module file: ``entries[name] = (source, mtime_ns, size,
    is_package, pyc)``, ``codes[name]`` its marshaled code; empty when the file is missing,
    someone else's, or written by another Python or hookgate (it is written again). Anything
    but a regular file, a link or more than ``MAX_MODULE_FILE`` bytes raises
    ``files.UnsafeFile`` (a limit: no hookgate writes one)."""
    from hookgate.files import read_file_stat

    found = read_file_stat(path, MAX_MODULE_FILE)
    if found is None:
        return {}, {}
    data, st = found
    if st.st_mode & 0o022:
        return {}, {}
    if anchors.present():
        # Managed mode: root's ``write_modules`` wrote it under /var/lib/hookgate, and only a
        # file root alone could have written, in directories only root can change, is run.
        if st.st_uid != anchors.ROOT_UID or not anchors.root_owned(path):
            return {}, {}
    elif st.st_uid != os.getuid():
        return {}, {}
    head = _MAGIC + _header()
    if data[: len(head)] != head:
        return {}, {}
    try:
        entries, codes = marshal.loads(data[len(head) :])
    except Exception:  # damaged: import as usual, and write it again
        return {}, {}
    if type(entries) is not dict or type(codes) is not dict:
        return {}, {}
    return entries, codes


# Two installs of one version (two venvs, a user's and a test's) share the compile cache: the
# header names the install, so one never runs modules whose sources are another's.
_PACKAGE = os.fsencode(os.path.dirname(os.path.abspath(__file__)))


def _header() -> bytes:
    return b"%s %s %s\n" % (_PYC_MAGIC.hex().encode(), __version__.encode(), _PACKAGE)


class _Finder:
    """Finds the module file's modules whose source is unchanged (``sys.meta_path``)."""

    def __init__(self, found: tuple[dict, dict]) -> None:
        self.entries, self.codes = found
        self.before = set(sys.modules)  # imported before the finder: not its business

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        entry = self.entries.get(name)
        if entry is None or name not in self.codes:
            return None
        source, mtime_ns, size, package, pyc = entry
        try:
            st = os.stat(source)
        except OSError:
            return None
        if st.st_mtime_ns != mtime_ns or st.st_size != size:
            return None
        loader = _Loader(name, source, self.codes[name])
        spec = _ModuleSpec(name, loader, origin=source, is_package=package)
        spec.has_location = True
        spec.cached = pyc
        if package:
            spec.submodule_search_locations = [os.path.dirname(source)]
        return spec

    def missed(self) -> bool:
        """Whether this run imported, as usual, a hookgate module that has a ``.pyc`` (one
        without is left out of the file, and does not make every run write it again)."""
        for name, module in list(sys.modules.items()):
            spec = getattr(module, "__spec__", None)
            if name.startswith("hookgate.") and name not in self.before and spec is not None:
                if type(spec.loader) is not _Loader and spec.cached and os.path.exists(spec.cached):
                    return True
        return False


class _Loader(_SourceFileLoader):
    """importlib's loader of a source file (so that the module's files and resources are found
    as usual: ``importlib.resources`` reads the policy grammar through it when policies are
    compiled), its code taken from the module file instead of the ``.pyc``."""

    def __init__(self, name: str, path: str, code: bytes) -> None:
        super().__init__(name, path)
        self.code = code

    def get_code(self, fullname: str) -> object:
        return marshal.loads(self.code)


def _write(path: str, finder: _Finder) -> None:
    """Write the module file again: its modules whose source is unchanged, plus the hookgate
    modules this run imported as usual, taken from their ``.pyc`` when it matches their source.
    Failures are ignored (the file only saves time)."""
    from hookgate.lang import cache

    entries: dict = {}
    codes: dict = {}
    for name, entry in finder.entries.items():
        if name in finder.codes and finder.find_spec(name) is not None:
            entries[name], codes[name] = entry, finder.codes[name]
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        if not name.startswith("hookgate.") or name in entries or spec is None:
            continue
        if type(spec.loader) is _Loader or not spec.origin or not spec.cached:
            continue
        try:
            st = os.stat(spec.origin)
            code = _pyc_code(spec.cached, st)
        except OSError:
            continue
        if code is not None:
            package = spec.submodule_search_locations is not None
            entries[name] = (spec.origin, st.st_mtime_ns, st.st_size, package, spec.cached)
            codes[name] = code
    if entries == finder.entries:
        return  # only modules whose .pyc does not match their source: nothing to add
    try:
        directory = cache.safe_dir(os.path.dirname(path))
    except cache.UnsafeCacheDir:
        return
    cache.write_file(directory, path, _MAGIC + _header() + marshal.dumps((entries, codes)))


def _pyc_code(pyc: str, source: os.stat_result) -> bytes | None:
    """The marshaled code of ``pyc`` when it is this Python's and matches the source whose stat
    is ``source`` (the checks importlib makes of a timestamp-based ``.pyc``), else None."""
    with open(pyc, "rb") as f:
        data = f.read()
    if (
        data[:4] != _PYC_MAGIC
        or int.from_bytes(data[4:8], "little") != 0  # hash-based .pyc files: not handled here
        or int.from_bytes(data[8:12], "little") != int(source.st_mtime) & 0xFFFFFFFF
        or int.from_bytes(data[12:16], "little") != source.st_size & 0xFFFFFFFF
    ):
        return None
    return data[16:]
