"""How far a write effect reaches, and the words that say how: the ``tree`` and ``how`` keys of
shell/files.py's records (docs/reference/effects.md), and what ``rsync --delete`` and ``tar
--remove-files`` delete. The guards on files read them from the write model; destructive judges a
tree delete outside the project as it judges ``rm -rf``. And where the bytes of a write the
line does not show come from, when a command copies them unchanged (``copied_from``).
"""

from __future__ import annotations

from hookgate.shell.launcher_table import TABLES
from hookgate.shell.words import Command, argv_has_option, argv_operands, join_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def effect(
    op: str,
    key: str,
    content: str | None = None,
    source: str | None = None,
    mode: str | None = None,
    tree: bool = False,
    how: str | None = None,
) -> dict[str, Any]:
    """A write effect's record. Two keys only where they say something (docs/reference/
    effects.md): ``tree`` (true) when the op reaches everything under the path, not only what
    a command without its recursive option would (``rm -r``, ``chmod -R``, a tree deleter, the
    destination of ``rsync --delete``, the inputs of ``tar --remove-files``); ``how``, the
    words that say how the line does it, where its command's name alone does not (``rm -rf``,
    ``>``, ``find -delete``, ``rsync --delete``, ``ln -f``)."""
    f: dict[str, Any] = {"op": op, "path": key, "from": source, "content": content, "mode": mode}
    if tree:
        f["tree"] = True
    if how is not None:
        f["how"] = how
    return f


def reach(name: str, argv: list[str]) -> tuple[bool, str | None]:
    """Whether ``argv`` reaches the trees it names, and the words that say how."""
    recursive = any(argv_has_option(argv, f) for f in ("-r", "-R", "--recursive"))
    if name == "rm":
        forced = argv_has_option(argv, "-f") or argv_has_option(argv, "--force")
        return recursive, "rm -rf" if recursive and forced else "rm -r" if recursive else "rm"
    if name in ("chmod", "chown", "chgrp") and recursive:
        return True, f"{name} -R"
    return name in TABLES["tree-deleters"], None


def deletes_extraneous(argv: list[str]) -> bool:
    """rsync --delete and its timings (--del, --delete-after, --delete-excluded, …)."""
    return any(a == "--del" or a.startswith("--delete") for a in argv[1:])


def removed_source(name: str, argv: list[str], src: str) -> dict[str, Any] | None:
    """How ``rsync --remove-source-files`` deletes its local source ``src`` once sent (``record``'s
    ``tree`` and ``how``): the files, never a directory; every file under it when it recurses
    (``-r``, ``-a``), else the one file (rsync skips a directory it does not recurse into)."""
    if name != "rsync" or "--remove-source-files" not in argv or remote(src):
        return None
    recursive = any(argv_has_option(argv, f) for f in ("-r", "--recursive", "-a", "--archive"))
    return {"tree": recursive, "how": "rsync --remove-source-files"}


def remote(path: str) -> bool:
    """host:path, user@host:path, rsync://host/path (a / before the colon: a local path)."""
    head, colon, _ = path.partition(":")
    return bool(colon) and "/" not in head


def remote_path(path: str) -> str:
    """The path a ``remote`` destination names on its machine: ``/srv`` of ``host:/srv``,
    ``user@host:/srv`` and ``rsync://host/srv``, ``mod/x`` of the daemon's ``host::mod/x``,
    ``.`` (its home) of ``host:``."""
    head, _, rest = path.partition(":")
    if head == "rsync" and rest.startswith("//"):
        rest = "/" + rest[2:].partition("/")[2]
    return rest.lstrip(":") or "."


# tar's options that take the next word as their value (not a file it archives).
_TAR_VALUES = frozenset(
    (
        "-f", "--file", "-C", "--directory", "-T", "--files-from", "-X", "--exclude-from", "-g",
        "--listed-incremental", "-N", "--newer", "--exclude", "-b", "-H", "--format", "-I",
        "--use-compress-program", "--transform", "--xform", "-V", "--label", "--owner", "--group",
        "--mode", "--mtime", "-K", "--starting-file",
    )
)  # fmt: skip


def tar_removed(argv: list[str]) -> list[str]:
    """What ``tar --remove-files`` (any unambiguous prefix, ``--rem``) deletes after archiving
    it: its operands that are no option's value nor the archive (``-f F``, a bundle ending in
    ``f``, the old style ``tar cf F``), each under the directory the last ``-C`` before it
    names; ``$(< LIST)`` for the paths ``-T LIST`` names."""
    if not any(a.startswith("--rem") for a in argv[1:]):
        return []
    old_style = len(argv) > 1 and argv[1].isalpha()
    out: list[str] = []
    directory = None
    k = 1
    while k < len(argv):
        a = argv[k]
        if k == 1 and old_style:
            k += 2 if "f" in a else 1  # tar cf x.tar dir: its f takes the next word
            continue
        if a in ("-C", "--directory") and k + 1 < len(argv):
            directory, k = argv[k + 1], k + 2
            continue
        listed = argv[k + 1] if a in ("-T", "--files-from") and k + 1 < len(argv) else None
        if listed is not None or a.startswith("--files-from="):
            # the paths a list names, which the line does not show: a path no guard can place
            out.append(f"$(< {listed or a.partition('=')[2]})")
        if a in _TAR_VALUES or (
            a[:1] == "-" and a[1:2] != "-" and a[1:].isalpha() and a.endswith("f")
        ):
            k += 2
            continue
        if not a.startswith("-"):
            out.append(join_path(directory, a) if directory and a[:1] not in ("/", "~", "$") else a)
        k += 1
    return out


# What xargs hands a command when the line does not show it: paths the line cannot know.
FROM_XARGS = "$(xargs)"


# Commands that write out the bytes they read unchanged (cat, and tee, dd and sponge of stdin).
_VERBATIM = frozenset(("cat", "tee", "dd", "sponge"))


def copied_from(
    cat_file: Callable[[Command], str | None], cmd: Command, shown: str | None
) -> str | None:
    """The one file whose bytes ``cmd`` writes out unchanged when the line does not show them
    (``shown`` is None): ``cat FILE > x`` (``cat_file``: the file ``cat`` prints), ``cat < FILE
    > x``, ``cat FILE | tee x``, ``dd if=FILE of=x``: the ``from`` of its writes, as a copy's
    (a guard judges such a write by where the text comes from, as ``cp FILE x``). None when the
    line shows the text, or the command changes it (``base64 -d FILE > x``) or reads several
    files."""
    if shown is not None or cmd.name not in _VERBATIM:
        return None
    argv = [w.text for w in cmd.words]
    if cmd.name == "dd":
        named = [a[3:] for a in argv[1:] if a.startswith("if=")]
        if named:
            return join_path(cmd.cwd, named[-1])
    elif cmd.name == "cat" and argv_operands(argv):
        return cat_file(cmd)
    return cmd.stdin_file
