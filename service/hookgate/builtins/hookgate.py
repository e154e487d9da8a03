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
    ("gemini", None, ".gemini"),
    ("cursor", None, ".cursor"),
    ("amplifier", None, ".amplifier"),
)


# What the answer depends on: the variables below (paths.py reads the HOOKGATE and XDG ones,
# the home directory comes from HOME) and the working directory (a relative variable's base).
_VARIABLES = (
    "HOME",
    "HOOKGATE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    *(variable for _, variable, _ in _HOST_HOMES if variable),
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
    or ``$COPILOT_HOME``, ``~/.gemini``, ``~/.cursor``, ``~/.amplifier``). All absolute,
    without a trailing ``/``. Reads the environment only.
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
        hosts[host] = os.path.abspath(moved) if moved else os.path.join(home, default)
    return {
        "config": os.path.abspath(paths.config_dir()),
        "state": os.path.abspath(paths.state_dir()),
        "cache": os.path.abspath(paths.cache_dir()),
        "home": home,
        "hosts": hosts,
        "program": _PROGRAM,
    }


def _installed_program() -> str | None:
    """The directory of the installed ``hookgate`` package, which every hook runs; None for a
    source checkout (an editable install: the project being developed, whose files an agent
    edits as any project's)."""
    package = os.path.dirname(os.path.abspath(paths.__file__))
    parent = os.path.basename(os.path.dirname(package))
    return package if parent in ("site-packages", "dist-packages") else None


_PROGRAM = _installed_program()


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
