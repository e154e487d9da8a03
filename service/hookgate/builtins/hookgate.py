"""Where hookgate and the hosts that run it keep their files on this machine.

The self-protection guard reads these so that a moved state directory (``HOOKGATE_HOME``,
``XDG_STATE_HOME``) or a host home moved by its own variable (``CLAUDE_CONFIG_DIR``,
``CODEX_HOME``, ``COPILOT_HOME``) stays protected (``hookgate.paths``: the environment, and once
per process what the hook runs). It judges the paths a call changes as the disk resolves them
(``hookgate.on_disk``) and matches them against the protected set in one pass
(``hookgate.protected_hits``), which every decision does, so both are built to cost a few
microseconds.
"""

from __future__ import annotations

import os

from hookgate import paths
from hookgate.builtins.registry import builtin
from hookgate.paths import present

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Each host's home directory for its user-scope settings, and the variable that moves it
# (integrations/hostconfig.py's config_path).
_HOST_HOMES: tuple[tuple[str, str | None, str], ...] = (
    ("claude", "CLAUDE_CONFIG_DIR", ".claude"),
    ("codex", "CODEX_HOME", ".codex"),
    ("copilot", "COPILOT_HOME", ".copilot"),
    ("gemini", "GEMINI_CLI_HOME", ".gemini"),
    ("cursor", None, ".cursor"),
    ("amplifier", None, ".amplifier"),
)

# Hosts whose variable names a home directory holding the settings directory, not the settings
# directory itself (MANAGED.md: GEMINI_CLI_HOME=<home>/alt reads <home>/alt/.gemini/settings.json).
_HOME_HOLDS_DIR = frozenset({"gemini"})

# What the answer depends on: the variables below (paths.py reads the HOOKGATE and XDG ones,
# the home directory comes from HOME) and the working directory (a relative variable's base).
_VARIABLES = (
    "HOME",
    "HOOKGATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    *(variable for _, variable, _ in _HOST_HOMES if variable),
    "VIRTUAL_ENV",
    "PATH",  # which pip or python a bare name runs (bare_tools); the last
)
# os.environ's own store and its keys as stored: reading nine variables through the mapping
# would cost more than the rest of a typical decision's path checks.
_STORE = os.environ._data
_KEYS = tuple(map(os.environ.encodekey, _VARIABLES))
# The variables before PATH name paths (of PATH, only absolute directories are read).
_PATH_AT = _VARIABLES.index("PATH")
# [(environment key, answer)]: one answer object per environment, the pair read and replaced
# at once (the server evaluates in threads).
_last: list = [(None, None)]


@builtin("hookgate.paths", "hookgate", 0, reads_host=True, environment=True)
def hookgate_paths() -> dict:
    """hookgate's own directories and the hosts' settings homes on this machine.

    Returns ``{"config", "state", "cache", "home", "hosts": {host: directory}, "program"}``:
    hookgate's configuration, state and cache directories as ``hookgate`` itself resolves them
    (``HOOKGATE_HOME``, ``XDG_*``), the user's home, the installed ``hookgate`` package's
    directory (``null`` for a source checkout), and each host's user settings directory
    (``~/.claude`` or ``$CLAUDE_CONFIG_DIR``, ``~/.codex`` or ``$CODEX_HOME``, ``~/.copilot``
    or ``$COPILOT_HOME``, ``~/.gemini`` or ``$GEMINI_CLI_HOME/.gemini``, ``~/.cursor``,
    ``~/.amplifier``). All absolute, without a trailing ``/``.

    And what the hook itself runs, so that changing it is changing hookgate: ``runtime`` (the
    interpreter as named and as resolved, the console script, ``pyvenv.cfg``, ``._pth`` files
    and every directory on the hook's ``sys.path``, which holds hookgate's dependencies too;
    a source checkout of hookgate and the working directory ``python -m`` puts there are left
    out), ``interpreters`` (the interpreter's paths, as a command would name them),
    ``environment`` (the venv's prefix, or null for a system interpreter), ``bare_tools``
    (whether a bare ``pip``/``python`` on ``PATH`` is the hook's own) and ``processes``
    (``{"names", "cmdlines"}``: what ``pkill``/``killall`` match of the hook's and its warm
    process's identity). The runtime part is read once per process (a few ``stat`` calls, no
    subprocess); the rest from the environment.
    """
    values = tuple(map(_STORE.get, _KEYS))
    last, answer = _last[0]
    if last is not None and last[1] is None and last[0] == values:
        return answer  # the same object: rules built on it stay computed (Group.memo_env)
    cwd = None
    # The working directory matters only as the base of a relative value (and a warm process's
    # child works in the caller's directory: keyed on it, each call would build the rules on
    # this answer again).
    if any(v and not v.startswith(b"/") for v in values[:_PATH_AT]):
        try:
            cwd = os.getcwd()
        except OSError:  # a removed working directory: no key, answer afresh
            return _paths()
    key = (values, cwd)
    if key == last:
        return answer
    answer = _paths()
    _last[0] = key, answer
    return answer


def _paths() -> dict:
    home = os.path.expanduser("~")
    hosts = {}
    for host, variable, default in _HOST_HOMES:
        moved = os.environ.get(variable) if variable else None
        if moved and host in _HOME_HOLDS_DIR:  # GEMINI_CLI_HOME stands for the home: <it>/.gemini
            moved = os.path.join(moved, default)
        hosts[host] = os.path.abspath(moved) if moved else os.path.join(home, default)
    runtime = _runtime()
    return {
        "config": os.path.abspath(paths.config_dir()),
        "state": os.path.abspath(paths.state_dir()),
        "cache": os.path.abspath(paths.cache_dir()),
        "home": home,
        "hosts": hosts,
        "program": _PROGRAM,
        "runtime": runtime["paths"],
        "interpreters": runtime["interpreters"],
        "environment": runtime["environment"],
        "bare_tools": _bare_tools_target_hook(runtime["bin"]),
        "processes": runtime["processes"],
    }


def _installed_program() -> str | None:
    """The directory of the installed ``hookgate`` package, which every hook runs; None for a
    source checkout (an editable install: the project being developed, whose files an agent
    edits as any project's)."""
    package = os.path.dirname(os.path.abspath(paths.__file__))
    parent = os.path.basename(os.path.dirname(package))
    return package if parent in ("site-packages", "dist-packages") else None


_PROGRAM = _installed_program()

_RUNTIME: list = []  # [the runtime answer]: computed on first use, once per process
_SERVE = "--serve-warm"  # warm.SERVE: the warm process's argument (warm imports more than needed)


def _runtime() -> dict:
    if not _RUNTIME:
        _RUNTIME.append(_compute_runtime())
    return _RUNTIME[0]


def _compute_runtime() -> dict:
    """What this process runs, as paths: see ``hookgate_paths``."""
    import sys

    exe = sys.executable or ""
    named = os.path.abspath(exe) if exe else None
    real = os.path.realpath(exe) if exe else None
    found: list[str] = []
    for path in (named, real):
        if path and path not in found:
            found.append(path)
    interpreters = list(found)
    bin_dir = os.path.dirname(named) if named else None
    script = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if script.startswith("/") and bin_dir and os.path.dirname(script) == bin_dir:
        found.append(script)  # the console script the hook command names
    venv = sys.prefix if sys.prefix != getattr(sys, "base_prefix", sys.prefix) else None
    if venv is None and named:
        # Under -S (the wired launcher) site.py never set sys.prefix to the venv: the venv is
        # where the interpreter as named finds its pyvenv.cfg, as the interpreter itself looks.
        above = os.path.dirname(os.path.dirname(named))
        if os.path.isfile(os.path.join(above, "pyvenv.cfg")):
            venv = above
    for prefix in dict.fromkeys((venv or sys.prefix, getattr(sys, "base_prefix", sys.prefix))):
        found.append(os.path.join(prefix, "pyvenv.cfg"))
    for directory in dict.fromkeys(os.path.dirname(p) for p in interpreters):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        found.extend(os.path.join(directory, n) for n in names if n.endswith("._pth"))
    found.extend(_import_dirs(sys.path))
    site = sys.modules.get("site")
    user_site = getattr(site, "USER_SITE", None) if site else None
    if (
        isinstance(user_site, str)
        and not sys.flags.no_user_site
        and getattr(site, "ENABLE_USER_SITE", False)
    ):
        found.append(user_site)  # read at start-up even when created later
    unique: list[str] = []
    for path in found:
        if path not in unique:
            unique.append(path)
    return {
        "paths": unique,
        "interpreters": interpreters,
        "environment": venv,
        "bin": bin_dir,
        "processes": _processes(named, real),
    }


def _import_dirs(entries: list[str]) -> list[str]:
    """The directories (and zip files) on ``sys.path`` the hook imports from, but not a source
    checkout of hookgate (the project being developed), the working directory (``python -m``
    puts it first) or a directory that holds the home directory."""
    source = None if _PROGRAM else os.path.dirname(os.path.dirname(os.path.abspath(paths.__file__)))
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    home = os.path.expanduser("~")
    out = []
    for entry in entries:
        if not isinstance(entry, str) or not entry.startswith("/"):
            continue  # "" (the working directory) and path hooks
        path = os.path.normpath(entry)
        if path in (source, cwd) or (home + "/").startswith(path.rstrip("/") + "/"):
            continue
        if os.path.exists(path):
            out.append(path)
    return out


def _processes(named: str | None, real: str | None) -> dict:
    """The names ``pkill``/``killall`` match (the kernel's 15-character ``comm``) and the command
    lines ``pkill -f`` matches, of the hook's process and its warm process: this process's own
    command line and, for the wired launcher form (``python -I -S -c <code> eval …``), the warm
    process's (``<code> --serve-warm eval …``)."""
    names = {"hookgate"}
    for path in (named, real):
        if path:
            names.add(os.path.basename(path)[:15])
    cmdlines = []
    try:
        with open("/proc/self/cmdline", "rb") as f:
            words = [os.fsdecode(w) for w in f.read(65536).split(b"\0")[:-1]]
    except OSError:
        words = []
    if len(words) >= 6 and words[1:4] == ["-I", "-S", "-c"]:
        cmdlines.append(" ".join(words))
        if _SERVE not in words[5:6]:
            cmdlines.append(" ".join([*words[:5], _SERVE, *words[5:]]))
    # The launcher form as `hookgate install` wires it (hostconfig.LAUNCH_CODE), for a process
    # that is not one (a console script, a test): what a warm process of this interpreter runs.
    cmdlines.append(
        f"{named or 'python3'} -I -S -c import sys;sys.path[3:3]=[];"
        f"from hookgate.launcher import launch;launch() {_SERVE} eval"
    )
    return {"names": sorted(names), "cmdlines": cmdlines}


def _bare_tools_target_hook(bin_dir: str | None) -> bool:
    """Whether a bare ``pip``/``python`` of a command line runs from the hook's own environment:
    ``VIRTUAL_ENV`` names it, or the first ``PATH`` directory holding ``pip`` or ``python3`` is
    the hook interpreter's directory."""
    if not bin_dir:
        return False
    prefix = os.path.dirname(bin_dir)
    if os.environ.get("VIRTUAL_ENV") and os.path.abspath(os.environ["VIRTUAL_ENV"]) == prefix:
        return True
    for directory in os.environ.get("PATH", "").split(os.pathsep)[:64]:
        if not directory.startswith("/"):
            continue
        if os.path.exists(os.path.join(directory, "pip")) or os.path.exists(
            os.path.join(directory, "python3")
        ):
            return os.path.normpath(directory) == bin_dir
    return False


@builtin("hookgate.on_disk", "hookgate", 1, reads_host=True)
def on_disk(path: Any) -> Any:
    """Absolute ``path`` as the file system resolves it now: the symbolic links of its deepest
    existing ancestor followed (as ``os.path.realpath`` resolves them; a FIFO or a device on the
    way is never opened), the rest kept. ``path`` itself when it is not absolute or not a
    string, or when resolving fails."""
    if not isinstance(path, str) or not path.startswith("/") or len(path) > 4096:
        return path
    try:
        if ("/." not in path and "//" not in path) or _plain_parts(path):
            return _resolve(path)
    except (OSError, ValueError):
        pass  # realpath's own walk decides
    try:  # . and .. (resolved after the links before them), //
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


def _plain_parts(path: str) -> bool:
    """No component of ``path`` is empty, ``.`` or ``..`` (a trailing ``/`` aside)."""
    parts = path.rstrip("/").split("/")[1:]
    return all(p and p not in (".", "..") for p in parts)


_FD_DIR: list = []  # [whether /proc/self/fd names an open file's resolved path]: read once
_O_PATH = getattr(os, "O_PATH", 0)


def _resolve(path: str) -> str:
    """realpath for a path of plain components, in fewer system calls (every decision resolves
    the paths it changes): where the kernel names an ``O_PATH`` descriptor's file
    (``/proc/self/fd``), the path (or, when it does not exist, its directory) is opened that way,
    which follows every link and opens nothing, and its name read back; elsewhere, and when the
    directory does not exist either, each component is ``lstat``-ed from the root down to the
    first one that does not exist. A component that is a link with no existing target (the
    kernel does not follow it) goes to ``os.path.realpath``, which follows it by name."""
    path = path.rstrip("/") or "/"
    if not _FD_DIR:
        _FD_DIR.append(bool(_O_PATH) and os.path.isdir("/proc/self/fd"))
    if _FD_DIR[0]:
        # (asked first, without an exception: many paths a call writes are new, in a directory
        # that is there, which is opened without asking)
        if present(path):
            real = _opened_name(path)
            # None: there but not resolvable, a dangling link
            return real if real is not None else os.path.realpath(path)
        parent, _, name = path.rpartition("/")
        real = _opened_name(parent or "/")
        if real is not None:
            return f"{real.rstrip('/')}/{name}"
    import stat

    end = 0
    while end < len(path):
        end = path.find("/", end + 1)
        if end < 0:
            end = len(path)
        try:
            info = os.lstat(path[:end])
        except (FileNotFoundError, NotADirectoryError):
            return path  # nothing below exists, and no link above it
        if stat.S_ISLNK(info.st_mode):
            return os.path.realpath(path)
    return path


def _opened_name(path: str) -> str | None:
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)
    if not real.startswith("/") or real.endswith(" (deleted)"):
        raise ValueError(real)  # not a path of this namespace: realpath's answer stands
    return real


@builtin("hookgate.session_files", "hookgate", 1, reads_host=True)
def session_files(session_id: Any) -> dict[str, Any] | list[str]:
    """What the file tools of session ``session_id`` wrote in its earlier calls
    (``hookgate/session.py``): ``{"files": [[dev, ino, size, sha256, path], …], "forgotten":
    {"count", "digest"}}``, oldest first, as strings (``"-"`` until a later call settled
    them); the digest (hex) holds what the bounded memory forgot. hookgate records each
    path when it lets a write through. ``[]`` for a session that wrote none or an id that is
    not a string. ``shell.commands_with``'s ``files`` takes it: a later ``bash x.sh`` (or
    ``bash y.sh`` after ``mv x.sh y.sh``) runs what x.sh holds.
    """
    from hookgate import session

    if not isinstance(session_id, str):
        return []
    return session.value(session_id)


_PATCH_MAX = 1 << 20  # a patch file larger than this is not read


@builtin("hookgate.patch_effects", "hookgate", 1, reads_host=True)
def patch_effects(path: Any) -> list[dict[str, Any]]:
    """The write effects of applying the patch file at absolute ``path`` (``git apply
    fix.patch``, ``patch < fix.patch``), read only when it is a regular file of at most 1 MiB,
    opened without blocking and without following a final link: ``{"op", "path", "content"}``
    for each file the diff changes, as the shell model reads a diff given in the line
    (``shell/diffs.py``'s ``diff_ops``: ``edit`` with the lines it adds, ``write`` of a new file
    or a rename's target, ``delete``; each path relative to where the patch is applied). ``[]``
    when there is none or the file cannot be read."""
    from hookgate.shell.diffs import diff_ops

    text = _read_patch(path) if isinstance(path, str) and path.startswith("/") else None
    if not text:
        return []
    ops = diff_ops(text, None)[:_PATCH_FILES]
    return [{"op": op, "path": p, "content": content} for op, p, content in ops]


_PATCH_FILES = 256  # the files of one patch the guards look at


def _read_patch(path: str) -> str | None:
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _PATCH_MAX:
            return None
        return os.read(fd, _PATCH_MAX).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


# ---- matching paths against the protected set ------------------------------------------------
# The guard asks, for every path a call changes or names, whether it is (or holds, or lies
# under) a protected path. In Rego that is a cross product of the call's paths with ~30
# protected entries, evaluated on every decision; here it is a few dictionary lookups per path
# against an index built once per protected set (the rule that builds it is computed once per
# environment, so the same object comes back call after call).

# [(the index argument, its tables)]: one pair, read and replaced at once (the server evaluates
# in threads, each possibly with another index).
_INDEX: list = [(None, None)]


class _Index:
    """``hookgate.protected_hits``'s ``index`` argument as lookup tables (all keys lower-cased)."""

    __slots__ = (
        "exact",
        "prefixes",
        "starts",
        "parents",
        "holders",
        "anywhere",
        "names",
        "tails",
        "heads",
    )

    def __init__(self, index: Any) -> None:
        self.exact: dict[str, list[str]] = {}  # a protected path → what it holds
        self.prefixes: dict[str, list[str]] = {}  # "<protected dir>/" → what it holds
        self.parents: dict[str, list[str]] = {}  # "<ancestor or the path>/" → what it holds
        self.holders: dict[str, list[str]] = {}  # the directory of a protected file → what
        for entry in _items(index.get("protected")):
            path, prefix, what = entry.get("path"), entry.get("prefix"), entry.get("what")
            if type(path) is not str or type(what) is not str:
                continue
            self.exact.setdefault(path, []).append(what)
            if type(prefix) is str:
                self.prefixes.setdefault(prefix, []).append(what)
            else:
                self.holders.setdefault(path.rpartition("/")[0], []).append(what)
            for i, char in enumerate(path):
                if char == "/":  # "/" too: removing the root takes everything
                    self.parents.setdefault(path[: i + 1], []).append(what)
            self.parents.setdefault(path + "/", []).append(what)
        self.starts = tuple(self.prefixes)
        # Each anywhere pattern: (bare, "/bare", "/bare/" for a directory or None, heads, what).
        self.anywhere: list[tuple] = []
        anywhere = index.get("anywhere")
        for pattern, what in anywhere.items() if isinstance(anywhere, dict) else ():
            if type(pattern) is not str or type(what) is not str:
                continue
            bare = _trim_slash(pattern.lower())
            parts = bare.split("/")
            heads = ["/".join(parts[:n]) for n in range(1, len(parts))]
            middle = f"/{bare}/" if pattern.endswith("/") else None
            self.anywhere.append((bare, "/" + bare, middle, heads, what))
        environment = index.get("environment")
        environment = environment if isinstance(environment, dict) else {}
        self.names = frozenset(
            n.lower() for n in _items(environment.get("names")) if type(n) is str
        )
        self.tails = tuple(t.lower() for t in _items(environment.get("paths")) if type(t) is str)
        # Each tail's first part ("/.config/" of "/.config/fish/config.fish"), which a path that
        # holds the tail holds too: most paths hold none, and a few parts are searched for
        # instead of every tail.
        self.heads = tuple(dict.fromkeys(map(_head, self.tails)))

    def hits(self, text: str, key: str, tree: bool, holder: bool) -> list[tuple]:
        """``(text, what, kind)`` for each way ``key`` (a path lower-cased, shown as ``text``)
        touches the protected set: itself, or under a protected directory; with ``tree``, any
        protected path under it; with ``holder``, the protected files of the directory it
        names; and as an environment file (``what`` None). One call per path: every decision
        asks it of each path it changes, and most paths touch nothing."""
        found = list(self.exact.get(key, ()))
        if key.startswith(self.starts):  # one test for most paths, which are under none
            end = key.find("/", 1)
            while end > 0:
                found.extend(self.prefixes.get(key[: end + 1], ()))
                end = key.find("/", end + 1)
        if tree:
            found.extend(self.parents.get(_trim_slash(key) + "/", ()))
        if holder:
            found.extend(self.holders.get(_trim_slash(key), ()))
        if ("/." in key or key.startswith(".")) and self.anywhere:
            found.extend(self._anywhere(key, tree, holder))
        hits = [(text, what, "protected") for what in dict.fromkeys(found)] if found else []
        # (any over map: the tails are tested in C)
        if key.rpartition("/")[2] in self.names or (
            any(map(key.__contains__, self.heads)) and any(map(key.__contains__, self.tails))
        ):
            hits.append((text, None, "environment"))
        return hits

    def _anywhere(self, key: str, tree: bool, holder: bool) -> list[str]:
        wrapped = f"/{key}/"
        bare_key = _trim_slash(key)
        found = []
        for bare, tail, middle, heads, what in self.anywhere:
            # tree: removing .git, .claude, .github/… takes the file with it; holder: naming
            # the directory the file sits in (.claude for .claude/settings.json).
            if (
                key == bare
                or key.endswith(tail)
                or (middle is not None and middle in wrapped)
                or (tree and any(_ends_with_part(bare_key, h) for h in heads))
                or (holder and heads and _ends_with_part(bare_key, heads[-1]))
            ):
                found.append(what)
        return found


def _head(tail: str) -> str:
    """``tail`` up to and with its second ``/`` (its first part), or all of it."""
    end = tail.find("/", 1)
    return tail[: end + 1] if end > 0 else tail


def _ends_with_part(path: str, tail: str) -> bool:
    return path == tail or path.endswith("/" + tail)


def _trim_slash(path: str) -> str:
    """Without one trailing ``/`` (Rego's ``trim_suffix(path, "/")``)."""
    return path[:-1] if path.endswith("/") else path


def _items(value: Any) -> list:
    if isinstance(value, (list, dict, str)) or value is None:
        return value if isinstance(value, list) else []
    return list(value)  # the interpreter's set


@builtin("hookgate.protected_hits", "hookgate", 2)
def protected_hits(entries: Any, index: Any) -> list[dict]:
    """Which of ``entries`` touch a protected path, in one pass over lookup tables.

    ``entries``: an array or set of objects ``{"path", "how"}`` (``how`` any value, or an array
    of strings given back joined by spaces: built only for a hit) with optional ``"real"`` (the
    path as the disk resolves it, ``hookgate.on_disk``: compared too when it differs, and shown
    as ``"<path> (on disk <real>)"``), ``"tree"`` (the change takes everything under the path:
    a protected path below it is hit) and ``"holder"`` (naming a directory that holds a
    protected file, or the directory an "anywhere" file sits in, hits that file), and ``"tag"``
    (any value, given back with each of the entry's hits). Paths are compared lower-cased.

    ``index``: an object with ``"protected"`` (an array or set of ``{"path", "prefix",
    "what"}``: lower-case absolute paths, ``prefix`` a directory's path with a trailing ``/``,
    or null for a file), ``"anywhere"`` (``{pattern: what}``: a path, or with a trailing ``/`` a
    directory, protected in any directory; matched in paths with a dot component) and
    ``"environment"`` (``{"names": [base name…], "paths": [text…]}``: shell start-up, ``.env``,
    direnv and mise files). Its lookup tables are built once per ``index`` object.

    Returns ``[{"path", "of", "how", "tag", "what", "kind"}]``, one per hit: ``path`` as shown,
    ``of`` the entry's ``path``, ``kind`` ``"protected"`` (``what``: what the path holds) or
    ``"environment"`` (``what`` null). ``[]`` when ``index`` is not an object.
    """
    if not isinstance(index, dict):
        return []
    known, compiled = _INDEX[0]
    if known is not index:
        compiled = _Index(index)
        _INDEX[0] = index, compiled
    out: list[dict] = []
    for entry in entries if type(entries) is list else _items(entries):
        if not isinstance(entry, dict):
            continue
        path = entry.get("path")
        if type(path) is not str:
            continue
        tree, holder = entry.get("tree") is True, entry.get("holder") is True
        hits = compiled.hits(path, path.lower(), tree, holder)
        real = entry.get("real")
        if type(real) is str and real != path:
            hits += compiled.hits(f"{path} (on disk {real})", real.lower(), tree, holder)
        if not hits:  # most entries
            continue
        how, tag = entry.get("how"), entry.get("tag")
        if type(how) is list:  # the words joined only for a hit
            if not all(type(w) is str for w in how):
                continue  # as Rego's concat of them, which is undefined: no entry
            how = " ".join(how)
        out.extend(
            {"path": text, "of": path, "how": how, "tag": tag, "what": what, "kind": kind}
            for text, what, kind in hits
        )
    return out


@builtin("hookgate.path_words", "hookgate", 1)
def path_words(argv: Any) -> list[str]:
    """The words of a command's ``argv`` after the command word that may name a file: each operand, the value of ``--option=VALUE`` and of ``NAME=VALUE`` (``make
    DESTDIR=~/.claude``, ``dd of=FILE``; the whole word too), and a short option's attached value
    that starts with ``/``, ``~`` or ``.`` (``-t/dir``); only those holding a ``/`` or starting
    with ``~`` or ``.``, each once, in order."""
    if not isinstance(argv, list):
        return []
    out: list[str] = []
    for a in argv[1:]:
        # Each candidate is a part of the word: a word without "/", "~" or "." has none (most
        # words of most commands).
        if type(a) is not str or ("/" not in a and "~" not in a and "." not in a):
            continue
        if a.startswith("-"):
            if a.startswith("--"):
                candidates = (a.partition("=")[2],) if "=" in a else ()
            else:
                candidates = (a[2:],) if len(a) > 2 and a[2] in "/~." else ()
        elif "=" in a:
            candidates = (a, a.partition("=")[2])
        else:
            candidates = (a,)
        for w in candidates:
            if ("/" in w or w.startswith(("~", "."))) and w not in out:
                out.append(w)
    return out
