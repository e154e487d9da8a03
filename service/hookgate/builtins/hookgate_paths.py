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


@builtin("hookgate.paths", "hookgate", 0, reads_host=True)
def hookgate_paths() -> dict:
    """hookgate's own directories and the hosts' settings homes on this machine.

    Returns ``{"config", "state", "cache", "home", "hosts": {host: directory}}``: hookgate's
    configuration, state and cache directories as ``hookgate`` itself resolves them
    (``HOOKGATE_HOME``, ``XDG_*``), the user's home, and each host's user settings directory
    (``~/.claude`` or ``$CLAUDE_CONFIG_DIR``, ``~/.codex`` or ``$CODEX_HOME``, ``~/.copilot``
    or ``$COPILOT_HOME``, ``~/.gemini``, ``~/.cursor``, ``~/.amplifier``). All absolute,
    without a trailing ``/``. Reads the environment only.
    """
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
    }
