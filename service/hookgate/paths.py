"""Where hookgate keeps its per-user files.

- config: ``$XDG_CONFIG_HOME/hookgate`` (``~/.config/hookgate``): the server login (token, pinned key).
- state:  ``$XDG_STATE_HOME/hookgate`` (``~/.local/state/hookgate``): telemetry, decision log, locks.
- cache:  ``$XDG_CACHE_HOME/hookgate`` (``~/.cache/hookgate``): the pulled bundle, compiled policies.

``HOOKGATE_HOME`` puts all three under one directory (``config/``, ``state/``, ``cache/``); tests
and sandboxes use it. The hook imports this module, so it imports nothing beyond ``os``/``pathlib``
and creates nothing: callers create what they write with :func:`private_dir`.
"""

from __future__ import annotations

import os
from pathlib import Path


def _base(xdg_var: str, fallback: str, home_subdir: str) -> Path:
    home = os.environ.get("HOOKGATE_HOME")
    if home:
        return Path(home) / home_subdir
    xdg = os.environ.get(xdg_var)
    # The XDG spec says relative values are invalid and must be ignored.
    root = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / fallback
    return root / "hookgate"


def config_dir() -> Path:
    """The user's hookgate configuration directory (may not exist yet)."""
    return _base("XDG_CONFIG_HOME", ".config", "config")


def state_dir() -> Path:
    """The user's hookgate state directory: logs, telemetry, locks (may not exist yet)."""
    return _base("XDG_STATE_HOME", ".local/state", "state")


def cache_dir() -> Path:
    """The user's hookgate cache directory: bundle and compiled policies (may not exist yet)."""
    return _base("XDG_CACHE_HOME", ".cache", "cache")


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed, owner-only (0700) for what hookgate creates."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def compiled_dir() -> Path:
    """The compile cache of policy sets (``hookgate.lang`` checks its ownership and mode)."""
    return cache_dir() / "compiled"
