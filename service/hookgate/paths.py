"""Where hookgate keeps its per-user files.

- config: ``$XDG_CONFIG_HOME/hookgate`` (``~/.config/hookgate``): the server login (token, pinned key).
- state:  ``$XDG_STATE_HOME/hookgate`` (``~/.local/state/hookgate``): telemetry, decision log, locks.
- cache:  ``$XDG_CACHE_HOME/hookgate`` (``~/.cache/hookgate``): the pulled bundle, compiled policies.

``HOOKGATE_HOME`` puts all three under one directory (``config/``, ``state/``, ``cache/``); tests
and sandboxes use it.

In managed mode (``hookgate.anchors``: ``/etc/hookgate/config.json`` exists) the bundle and the
compile cache are root's, under ``/var/lib/hookgate``, and neither ``HOOKGATE_HOME`` nor
``XDG_*`` moves them: the agent's user sets those. The per-user directories then hold only what
is never read to decide (the decision-log spool, telemetry, locks). The hook imports this module, so it imports nothing beyond ``os`` (paths are
strings: ``pathlib`` costs a hook milliseconds to import) and creates nothing: callers create what
they write with :func:`private_dir`.
"""

from __future__ import annotations

import os

from hookgate import anchors


def _base(xdg_var: str, fallback: str, home_subdir: str) -> str:
    home = os.environ.get("HOOKGATE_HOME")
    if home:
        return os.path.join(home, home_subdir)
    xdg = os.environ.get(xdg_var)
    # The XDG spec says relative values are invalid and must be ignored.
    root = xdg if xdg and os.path.isabs(xdg) else os.path.join(os.path.expanduser("~"), fallback)
    return os.path.join(root, "hookgate")


def config_dir() -> str:
    """The user's hookgate configuration directory (may not exist yet)."""
    return _base("XDG_CONFIG_HOME", ".config", "config")


def state_dir() -> str:
    """The user's hookgate state directory: logs, telemetry, locks (may not exist yet)."""
    return _base("XDG_STATE_HOME", ".local/state", "state")


def cache_dir() -> str:
    """The user's hookgate cache directory: bundle and compiled policies in personal mode (may
    not exist yet)."""
    return _base("XDG_CACHE_HOME", ".cache", "cache")


def bundle_dir() -> str:
    """Where the pulled bundle is kept: root's ``/var/lib/hookgate/bundle`` in managed mode,
    else the user's cache directory."""
    return anchors.bundle_dir() if anchors.present() else cache_dir()


def present(path: str) -> bool:
    """Whether anything (a symbolic link too, not followed) is at ``path``, answered without an
    exception: a miss (most of the names a caller asks about) would cost as much again as the
    system call. Callers that open or resolve a path ask this first."""
    if _ACCESS_NOFOLLOW:
        return os.access(path, os.F_OK, follow_symlinks=False)
    return os.path.lexists(path)


_ACCESS_NOFOLLOW = os.access in os.supports_follow_symlinks


def private_dir(path: str) -> str:
    """Create ``path`` (and parents) if needed, owner-only (0700) for what hookgate creates."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def compiled_dir() -> str:
    """The compile cache of policy sets (``hookgate.lang`` checks its ownership and mode): root's
    ``/var/lib/hookgate/compiled`` in managed mode (the hook reads it and cannot write it), else
    the user's."""
    if anchors.present():
        return anchors.compiled_dir()
    return os.path.join(cache_dir(), "compiled")
