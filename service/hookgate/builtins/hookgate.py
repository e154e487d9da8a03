"""Where hookgate and the hosts that run it keep their files on this machine.

The self-protection guard reads these so that a moved state directory (``HOOKGATE_HOME``,
``XDG_STATE_HOME``) or a host home moved by its own variable (``CLAUDE_CONFIG_DIR``,
``CODEX_HOME``, ``COPILOT_HOME``) stays protected. Environment lookups only: nothing is read
from disk.
"""

from __future__ import annotations

import os

from hookgate import paths
from hookgate.builtins.registry import builtin

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
    "PATH",  # which pip or python a bare name runs (bare_tools)
    "VIRTUAL_ENV",
)
# os.environ's own store and its keys as stored: reading nine variables through the mapping
# would cost more than the rest of a typical decision's path checks.
_STORE = os.environ._data
_KEYS = tuple(map(os.environ.encodekey, _VARIABLES))
_last: list = [None, None]  # [environment key, answer]: one answer object per environment


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
    try:
        cwd = os.getcwd()
    except OSError:  # a removed working directory: no key, answer afresh
        return _paths()
    key = (*map(_STORE.get, _KEYS), cwd)
    if key == _last[0]:
        return _last[1]  # the same object: rules built on it stay computed (Group.memo_env)
    answer = _paths()
    _last[:] = key, answer
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
    for prefix in dict.fromkeys((sys.prefix, getattr(sys, "base_prefix", sys.prefix))):
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
    existing ancestor followed (``os.path.realpath``, which only ``lstat``s and ``readlink``s:
    a FIFO or a device on the way is never opened), the rest kept. ``path`` itself when it is
    not absolute or not a string, or when resolving fails."""
    if not isinstance(path, str) or not path.startswith("/") or len(path) > 4096:
        return path
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path


@builtin("hookgate.session_files", "hookgate", 1, reads_host=True)
def session_files(session_id: Any) -> list[str]:
    """The absolute paths the file tools of session ``session_id`` wrote in its earlier calls,
    oldest first: hookgate records each path when it lets a write through
    (``hookgate/session.py``). ``[]`` for a session that wrote none or an id that is not a
    string. ``shell.commands_with``'s ``files`` takes them: a later ``bash x.sh`` runs what
    x.sh holds.
    """
    if not isinstance(session_id, str):
        return []
    from hookgate import session

    return session.written(session_id)


_PATCH_MAX = 1 << 20  # a patch file larger than this is not read


@builtin("hookgate.patch_paths", "hookgate", 2, reads_host=True)
def patch_paths(text: Any, path: Any) -> list[str]:
    """The files a unified or git diff changes: ``text`` (a patch given in the line, or null) or
    the patch file at absolute ``path`` (read only when it is a regular file of at most 1 MiB,
    opened without blocking and without following a final link). Each file as the diff names it
    (``a/``/``b/`` prefixes kept, ``/dev/null`` left out); ``[]`` when there is none or the file
    cannot be read."""
    if not isinstance(text, str):
        text = _read_patch(path) if isinstance(path, str) and path.startswith("/") else None
    if not text:
        return []
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith(("+++ ", "--- ", "*** Add File: ", "*** Update File: ")):
            name = line.split(": ", 1)[1] if line.startswith("***") else line[4:]
            name = name.split("\t", 1)[0].strip()
        elif line.startswith("diff --git "):
            out.extend(w for w in line[11:].split(" ") if w[:2] in ("a/", "b/"))
            continue
        elif line.startswith(("rename to ", "copy to ")):
            name = line.split(" to ", 1)[1].strip()
        else:
            continue
        if name and name != "/dev/null" and name not in out and len(out) < 256:
            out.append(name)
    return out


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
