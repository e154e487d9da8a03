"""The effect objects every tool's reading builds: the tool-input fields they are read from,
the bound on how many one call has, and the paths they carry, made absolute and normal (``~``
and home variables, Windows drives and separators, the call's working directory).

The write model. Every way a call creates, changes, moves, links or deletes a file is one
*write effect* of the same shape, whatever its channel: ``{"op", "path", "from", "content",
"mode"}`` with ``op`` one of ``FILE_OPS`` (and, from the shell model, ``tree``, ``how`` and
``machine`` where they say something: shell/reach.py's ``effect``, shell/files.py's ``record``;
``machine`` marks another machine's file, its path as that machine names it: ``ssh``, ``kubectl
exec``, a container's own path). A host's file tool, an apply_patch, an MCP write tool
give them as ``write``/``edit``/``delete``/``move`` effects (``move`` with the ``content`` a
patch's "Move to" brings); each shell or PowerShell command gives them in its ``files`` (the
shell model, shell/files.py and shell/powershell.py, records them with the path resolved after
``cd``, ``pushd`` and ``Set-Location``). The pack joins both into ``lib.file_effects``
(policies/lib_effects.rego), the only thing its file guards read (this machine's files; another
machine's are ``lib.remote_file_effects``). docs/reference/effects.md
documents the vocabulary.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_EFFECTS = 256  # effects per call: an MCP call with thousands of arguments is cut here

# The write effects' ops: what each leaves at ``path``.
FILE_OPS: dict[str, str] = {
    "write": "the file replaced by content (null: content the call does not show)",
    "append": "content added at the end (touch: nothing added, the file created)",
    "edit": "changed in place: content is the new text where known (sed -i: null)",
    "delete": "removed with everything under it (the source end of a move too)",
    "move": "a file moved there from `from`, with the content it carries where known",
    "copy": "a copy of `from`, with its content where the call or line shows it",
    "link": "a link to `from` (symbolic or hard)",
    "mode": "its permission bits set to `mode` (chmod's mode as written)",
}

PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "target_file", "file", "filename")
CONTENT_KEYS = ("content", "contents", "file_text", "text", "new_source")
NEW_KEYS = ("new_string", "new_str", "newString", "new_source", "insert_text")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "/bin/sh", "/bin/bash", "/bin/zsh"})
POWERSHELLS = frozenset({"powershell", "powershell.exe", "pwsh", "pwsh.exe"})


def first(tool_input: dict, keys: tuple[str, ...]) -> Any:
    """The first of ``keys`` whose value in ``tool_input`` is a string, else None."""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str):
            return value
    return None


def path_effect(kind: str, tool_input: dict, cwd: str | None, **fields: Any) -> dict | None:
    """A ``kind`` effect on the tool input's path (None when it names none), with ``fields``."""
    path = first(tool_input, PATH_KEYS)
    if path is None:
        return None
    return {"kind": kind, "path": resolve(cwd, path), **fields}


def add(out: list[dict], effect: dict | None) -> None:
    """Append ``effect`` to ``out`` unless it is None or ``out`` is full."""
    if effect is not None and len(out) < MAX_EFFECTS:
        out.append(effect)


def write_effect(path: str, content: str) -> dict:
    """A ``write`` of ``content`` to ``path``."""
    return {"kind": "write", "path": path, "content": content, "empty": not content.strip()}


def edit_effect(path: str, old_text: str, new_text: str) -> dict:
    """An ``edit`` of ``path`` replacing ``old_text`` (empty: inserting) with ``new_text``."""
    return {"kind": "edit", "path": path, "old_text": old_text, "new_text": new_text}


# The spellings of the home directory ``resolve`` replaces, and their first characters (most
# paths start with none: the spellings are not tried one by one).
_HOMES = ("$HOME", "${HOME}", "$env:USERPROFILE", "$env:HOME", "%USERPROFILE%", "~")
_HOME_STARTS = tuple({home[0] for home in _HOMES})


def resolve(cwd: str | None, path: str) -> str:
    """``path`` made absolute against ``cwd`` and normalised lexically (``..`` is not
    followed on disk). ``~``, ``$HOME`` and Windows home spellings (``$env:USERPROFILE``,
    ``%USERPROFILE%``) become the home directory; a Windows path (``C:\\Users\\x``) keeps its
    drive and gets ``/`` separators, so the same path rules match it."""
    p = path.strip()
    if is_windows(p) or (cwd is not None and "\\" in p and is_windows(cwd)):
        p = p.replace("\\", "/")
        if cwd is not None and not is_windows(p) and not p.startswith("/"):
            p = cwd.replace("\\", "/").rstrip("/") + "/" + p
        drive, rest = p[:2], p[2:]
        return drive.upper() + os.path.normpath(rest or "/") if drive[1:] == ":" else p
    for prefix in _HOMES if p.startswith(_HOME_STARTS) else ():
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


def argv_line(argv: list, dialect: str) -> tuple[str, str | None]:
    """A command given as an argument vector (Codex ``shell``/``local_shell``): the script of
    ``bash -lc SCRIPT``/``pwsh -Command SCRIPT``, else the words joined and quoted."""
    words = [w for w in argv if isinstance(w, str)]
    if len(words) != len(argv) or not words:
        return dialect, None
    head = words[0].lower()
    if len(words) >= 3 and head in SHELLS and words[1].startswith("-") and "c" in words[1]:
        return "sh", words[2]
    if head in POWERSHELLS:
        from hookgate.shell.powershell import script_of  # (only for such a vector)

        return "powershell", script_of(head.removesuffix(".exe"), words[1:])[0]
    return dialect, " ".join(sh_quote(w) for w in words)


def sh_quote(word: str) -> str:
    """``word`` as one shell word, quoted only where it has to be."""
    safe = word and all(ch.isalnum() or ch in "@%+=:,./-_" for ch in word)
    return word if safe else "'" + word.replace("'", "'\"'\"'") + "'"
