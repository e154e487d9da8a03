"""Paths as tool calls spell them, made absolute and normal: ``~`` and home variables, Windows
drives and separators, the call's working directory.
"""

from __future__ import annotations

import os


def resolve(cwd: str | None, path: str) -> str:
    """``path`` made absolute against ``cwd`` and normalised lexically (``..`` is not
    followed on disk). ``~``, ``$HOME`` and Windows home spellings (``$env:USERPROFILE``,
    ``%USERPROFILE%``) become the home directory; a Windows path (``C:\\Users\\x``) keeps its
    drive and gets ``/`` separators, so the same path rules match it."""
    p = path.strip()
    if is_windows(p) or (cwd is not None and is_windows(cwd) and "\\" in p):
        p = p.replace("\\", "/")
        if cwd is not None and not is_windows(p) and not p.startswith("/"):
            p = cwd.replace("\\", "/").rstrip("/") + "/" + p
        drive, rest = p[:2], p[2:]
        return drive.upper() + os.path.normpath(rest or "/") if drive[1:] == ":" else p
    for prefix in ("$HOME", "${HOME}", "$env:USERPROFILE", "$env:HOME", "%USERPROFILE%", "~"):
        if p == prefix or p.startswith(prefix + "/") or p.startswith(prefix + "\\"):
            p = os.path.expanduser("~") + p[len(prefix) :].replace("\\", "/")
            break
    if not p.startswith("/"):
        if cwd is None or not cwd.startswith("/"):
            return os.path.normpath(p) if p else p
        p = cwd + "/" + p
    resolved = os.path.normpath(p)
    return "/" + resolved.lstrip("/")  # normpath keeps a leading "//"


def is_windows(p: str) -> bool:
    """Whether ``p`` is a Windows path: a drive (``C:\\``, ``C:/``) or a share (``\\\\host``)."""
    return (len(p) >= 3 and p[1] == ":" and p[0].isalpha() and p[2] in "\\/") or p.startswith(
        "\\\\"
    )
