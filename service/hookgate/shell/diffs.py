"""The files a unified diff changes, as write effects: what ``patch`` and ``git apply`` of a diff
the line shows (a here-document, ``printf``) do (shell/files.py), and what a patch file on the
disk holds (``hookgate.patch_effects``).
"""

from __future__ import annotations

from hookgate.shell.words import join_path


def diff_ops(text: str, cwd: str | None) -> list[tuple[str, str, str | None]]:
    """(op, path, added lines) for each file a unified diff changes: ``edit`` with the lines it
    adds, ``write`` of a new file (``--- /dev/null``) or of a git rename's or copy's target,
    ``delete`` (``+++ /dev/null``). A name with git's ``a/``/``b/`` loses it (``-p1``, what git
    apply and most patch lines use); any other is taken both as written and without its first
    component (``patch`` without ``-p``, ``-p1`` of ``proj/x``)."""
    out: list[tuple[str, str, str | None]] = []
    old = new = None
    added: list[str] = []

    def add(op: str, name: str, content: str | None) -> None:
        for n in _diff_names(name):
            out.append((op, join_path(cwd, n), content))

    def flush() -> None:
        if new is None:
            return
        if new == "/dev/null":
            if old not in (None, "/dev/null"):
                add("delete", old, None)
            return
        add("write" if old == "/dev/null" else "edit", new, "\n".join(added))

    for line in text.splitlines():
        if line.startswith("--- "):
            flush()
            old, new, added = line[4:].split("\t", 1)[0].strip(), None, []
        elif line.startswith("+++ ") and new is None:
            new = line[4:].split("\t", 1)[0].strip()
        elif line.startswith("+") and new is not None:
            added.append(line[1:])
        elif line.startswith(("rename to ", "copy to ")):
            # a git rename or copy without a hunk: the file arrives with what it held
            out.append(("write", join_path(cwd, line.split(" to ", 1)[1].strip()), None))
    flush()
    return out


def _diff_names(name: str) -> list[str]:
    if name.startswith(("a/", "b/")):
        return [name[2:]]
    first, _, rest = name.partition("/")
    return [name, rest] if first and rest else [name]
