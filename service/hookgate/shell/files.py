"""What the line does to files, as the symbolic run tracks it: the scripts it writes (``cat >
x.sh <<EOF``, ``echo … >> f``, ``tee``, ``dd of=``, copies), the paths it moves or links (``mv
.git x``, ``ln -s ~ h``) and the container paths a bind mount maps to the host's; and the files
earlier calls of the session wrote (``SessionFiles``: by path and by identity), read from the
disk when the line runs one, and what the line does to them in ways it does not show.
"""

from __future__ import annotations

import os
import stat

from hookgate.lang.errors import LimitError
from hookgate.shell.diffs import diff_ops
from hookgate.shell.launcher_table import TABLES
from hookgate.shell.launchers import FILE_READERS, path_exec_roots, script_word, xargs_replace
from hookgate.shell.limits import MAX_EARLIER_BYTES, MAX_LINK_DEPTH
from hookgate.shell.reach import (
    FROM_XARGS,
    copied_from,
    deletes_extraneous,
    effect,
    reach,
    remote,
    remote_path,
    removed_source,
    tar_removed,
)
from hookgate.shell.words import (
    CONTAINER,
    Command,
    Word,
    argv_has_option,
    argv_operands,
    join_path,
    normalize_path,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.shell.limits import Budget


class FileEffects:
    """The file system part of ``analysis.Run`` (a mixin: the run is one object per script).

    Its state, set by the run: ``scripts`` (path → the parts of the text the line wrote there;
    appends add a part, so a line of many appends is not copied each time), ``links`` (a path the
    line moved or linked, by its new name → the original and whether it is a symlink), ``mounts``
    (inside a container: (container path, host path) pairs, longest first; None on the host),
    ``cwd`` and ``budget``; and the run's ``output`` (what a command prints)."""

    scripts: dict[str, list[str]]
    links: dict[str, tuple[str, bool]]
    mounts: list[tuple[str, str]] | None
    cwd: str | None
    budget: Budget
    output: Callable[[Command], str | None]
    piped_from: Command | None
    runs: dict[int, Command]

    def written(self, path: str, cwd: str | None, run: bool = False) -> str | None:
        """The text the line wrote at ``path`` (relative to ``cwd``), or that an earlier call
        of the session wrote there (read from the disk now); None otherwise. ``run``: the line
        runs it (or reads it as a script), so it is also looked up by identity (a stat), and a
        file the session wrote that cannot be read, was forgotten, or that the line changed in
        a way it does not show raises a ``LimitError`` (the hook asks)."""
        key = join_path(cwd, path)
        script = self.scripts.get(key)
        memory = self.budget.earlier
        if script is None and memory is UNREAD:
            raise FilesNeeded  # what the session wrote there decides
        if script is None and key in self.budget.changed:
            if memory is None or not run:
                return None
            full = self.full_path(key)
            if full in memory.paths or memory.text(full) is not None:
                raise LimitError(
                    "session-file",
                    f"{full} was written by this session and changed earlier in this line in a "
                    f"way the line does not show; what it runs now is not known",
                )
            return None
        if script is None and memory is not None:
            full = self.full_path(key)
            if run or full in memory.paths:
                try:
                    text = memory.text(full)
                except LimitError:
                    if run:
                        raise
                    text = None  # read, not run (wc -l < f, mv f g): running it will ask
                if text is not None:
                    script = self.scripts[key] = [text]
        return None if script is None else "\n".join(script)

    def unknown(self, key: str) -> None:
        """The line changed ``key`` in a way it does not show (``changed``)."""
        if self.budget.earlier is UNREAD and key in self.scripts:
            raise FilesNeeded  # the line's own text of key dropped only if the session wrote it
        self.scripts.pop(key, None)
        self.budget.changed.add(key)

    def full_path(self, key: str) -> str:
        root = self.budget.root_dir
        return key if key.startswith("/") or root is None else join_path(root, key)

    def changed(self, cmd: Command) -> None:
        """What a command that is not a known reader does to a file the session wrote that it
        names (operand, option value, ``dd of=``): presumed to change it in a way the line does
        not show (``sed -i``, ``patch``, ``cp unknown w.sh``), unless the line models what it
        writes there (a copy of a file it knows, ``tee``): modelling comes after this."""
        memory = self.budget.earlier
        if memory is None or cmd.name in FILE_READERS or cmd.name in _MODELLED:
            return
        if memory is UNREAD and not self.scripts:
            # what it changes matters only where a later command reads it, which needs the
            # memory anyway (written): no cost on a line that writes nothing itself
            return
        script = script_word(cmd.name, cmd.words)
        for w in cmd.words[1:]:
            text = w.text
            if text == script:
                script = None
                continue  # bash w.sh, python3 w.py: reads it
            if text.startswith("-") or "=" in text:
                text = text.partition("=")[2]
            if text and not text.startswith("-"):
                # by its name only (no stat here): whether it is a file the session wrote, under
                # any name, is looked up if a later command runs it
                key = join_path(cmd.cwd, text)
                if key not in self.scripts or self.full_path(key) in memory.paths:
                    self.unknown(key)

    def wrote(
        self, cmd: Command, script: str, into: tuple[list[str], list[str]] | None = None
    ) -> None:
        """Remember ``script`` as the content of the files ``cmd`` writes (or the end of those
        it appends to): those its output is redirected to, or ``into`` (written, appended)."""
        writes, appends = into if into is not None else (cmd.writes, cmd.appends)
        changed = self.budget.changed
        for path in writes:
            key = join_path(cmd.cwd, path)
            self.scripts[key] = [script]
            changed.discard(key)
        for path in appends:
            key = join_path(cmd.cwd, path)
            if key in changed:
                if self.budget.earlier is UNREAD:
                    raise FilesNeeded  # changed only if the session wrote files
                continue  # appended to what the line does not show: still unknown
            if key not in self.scripts:
                self.written(path, cmd.cwd)  # a file the session wrote: what it holds first
            self.scripts.setdefault(key, [""]).append(script)

    def wrote_output(self, cmd: Command, producer: Command | None = None) -> None:
        """What ``cmd`` writes when the line shows it: its output redirected (``echo … > f``,
        ``base64 -d > f`` of a pipeline or here-document) and what ``tee f``, ``dd of=f`` and
        ``sponge f`` read (what ``producer`` prints into them, else their here-document or
        here-string)."""
        # a command that reads a pipeline is read again when the pipeline is (with producer)
        unseen = self.budget.earlier is not None and (producer is not None or not self.piped_from)
        if cmd.writes or cmd.appends:
            output = "" if cmd.name in _SILENT and not cmd.piped else self.output(cmd)
            source = copied_from(self.cat_file, cmd, output)
            record_writes(cmd, (cmd.writes, cmd.appends), output, source, redirected=True)
            if output is not None:
                self.wrote(cmd, output)
            elif unseen:  # curl … > w.sh: not what it held
                for path in cmd.writes + cmd.appends:
                    self.unknown(join_path(cmd.cwd, path))
        if applies_patch(cmd):
            diff = cmd.stdin if producer is None else self.output(producer)
            for op, key, content in diff_ops(diff or "", cmd.cwd):
                record(cmd, op, key, content)
        wrapped = self.runs.get(id(cmd))  # sudo tee f: the command sudo runs writes f
        for writer in (cmd,) if wrapped is None else (cmd, wrapped):
            into = input_files(writer)
            if into is None:
                continue
            fed = cmd.stdin if producer is None else self.output(producer)
            record_writes(writer, into, fed, copied_from(self.cat_file, writer, fed))
            if fed is not None:
                self.wrote(writer, fed, into)
            elif unseen:
                for path in into[0] + into[1]:
                    self.unknown(join_path(writer.cwd, path))

    def catted(self, cmd: Command) -> str | None:
        """What ``cat FILE…`` prints when the line wrote every FILE (``cat x.sh | sh``)."""
        if cmd.name != "cat" or any(w.kind is not None for w in cmd.words):
            return None
        files = argv_operands([w.text for w in cmd.words])
        texts = [self.written(f, cmd.cwd) for f in files]
        if not texts or None in texts or "-" in files:
            return None
        return "\n".join(texts)  # type: ignore[arg-type]

    def cat_file(self, cmd: Command) -> str | None:
        """The one file ``cat FILE`` prints when the line does not show its text (``cat
        fix.patch | git apply``): what the next command reads on stdin (``stdin_file``)."""
        if cmd.name != "cat" or any(w.kind is not None for w in cmd.words):
            return None
        files = argv_operands([w.text for w in cmd.words])
        if len(files) != 1 or files[0] == "-" or self.catted(cmd) is not None:
            return None
        return join_path(cmd.cwd, files[0])

    def moved(self, cmd: Command) -> None:
        """Remember what ``mv A B`` and ``ln -s A B`` make ``B`` (``A``, or what a link to it
        reaches): a later ``rm -rf B`` deletes ``A`` (``cp -r A B`` leaves ``A`` alone). A
        script the line wrote at ``A`` is ``B``'s too, copied (``cp``, ``install``, ``rsync``)
        or linked (``ln``, ``link``)."""
        argv = [w.text for w in cmd.words]
        symlink = cmd.name == "ln" and (
            argv_has_option(argv, "-s") or argv_has_option(argv, "--symbolic")
        )
        # a hard link or a copy: deleting it leaves the file
        aliases = cmd.name == "mv" or symlink
        values = _COPY_VALUES.get(cmd.name, ())
        into = None
        ops: list[str] = []
        k = 1
        while k < len(argv):
            a = argv[k]
            if a in ("-t", "--target-directory") and k + 1 < len(argv) and cmd.name != "rsync":
                into, k = argv[k + 1], k + 1
            elif a.startswith("--target-directory="):
                into = a.split("=", 1)[1]
            elif a in values:
                k += 1
            elif a == "--":
                ops += argv[k + 1 :]
                break
            elif not (a.startswith("-") and len(a) > 1):
                ops.append(a)
            k += 1
        if into is None and symlink and len(ops) == 1:
            into = "."
        elif into is None and len(ops) >= 2:
            into, ops = ops[-1], ops[:-1]
        if into is None:
            return
        # rsync's host:path (user@host:, rsync://): another machine's file, as it names it
        away = "remote" if cmd.name == "rsync" and remote(into) else None
        dest = join_path(None, remote_path(into)) if away else join_path(self.cwd, into)
        if cmd.name == "rsync" and deletes_extraneous(argv) and not away:
            # what the source lacks goes from the destination, at any depth
            record(cmd, "delete", dest, tree=True, how="rsync --delete")
        forced = cmd.name == "ln" and (
            argv_has_option(argv, "-f") or argv_has_option(argv, "--force")
        )
        for src in ops:
            far = cmd.name == "rsync" and remote(src)  # rsync from host:path, another machine's
            base = (remote_path(src) if far else src).rstrip("/").rsplit("/", 1)[-1]
            if symlink:  # a link's target is relative to the link's directory
                parent = dest if len(ops) > 1 or into == "." else dest.rsplit("/", 1)[0]
                original = join_path(parent if "/" in dest else self.cwd, src)
            else:
                original = self.host_path(src) if src.startswith("/") else src
                original = join_path(self.cwd, original)
            names = [dest] if len(ops) == 1 and into != "." else []
            names.append(join_path(dest, base))
            script = self.scripts.get(original)
            memory = self.budget.earlier
            if script is None and memory is not None:
                self.written(original, None)  # mv w.sh x.sh: what the session wrote there
                script = self.scripts.get(original)
            content = None if script is None else "\n".join(script)
            op = "link" if cmd.name in ("ln", "link") else "move" if cmd.name == "mv" else "copy"
            removal = {} if op == "move" else removed_source(cmd.name, argv, src)
            if removal is not None:  # the source end: gone from where it was
                record(cmd, "delete", original, **removal)
            source = None if far else original  # no local path holds its text
            for name in names:
                record(
                    cmd, op, name, content, source, how="ln -f" if forced else None, machine=away
                )
                if away:  # nothing a later command of this line reads here
                    continue
                if aliases:
                    self.links[name] = (original, symlink)
                if script is not None:
                    self.scripts[name] = script
                    self.budget.changed.discard(name)
                elif memory is not None:  # cp unknown w.sh: no longer what was written
                    self.unknown(name)

    def truncated(self, cmd: Command, writes: list[str]) -> None:
        """A command of redirections alone (``> f``, ``(…) > f``): each file emptied, then
        given what the group prints, which the line does not show."""
        cmd.writes = writes
        record_writes(cmd, (writes, []), None, redirected=True)

    def xargs_unseen(self, xargs: Command) -> None:
        """What ``xargs`` runs on input the line does not show (``xargs_ops``)."""
        ran = self.runs.get(id(xargs))
        if ran is not None:
            xargs_ops(ran, xargs, self.piped_from)

    def host_word(self, w: Word) -> Word:
        """``w`` as the host path it names (through a mount or a link), else ``w``."""
        text = self.host_path(w.text)
        return w if text == w.text else Word(text, None, w.literal, [], kind=w.kind)

    def host_path(self, text: str) -> str:
        if self.mounts is not None and text.startswith("/"):
            path = normalize_path(text)
            for dst, src in self.mounts:
                if path == dst or dst == "/" or path.startswith(dst + "/"):
                    rest = path[len(dst) :].lstrip("/")
                    text = join_path(src, rest) if rest else src
                    break
            else:
                return CONTAINER + path
        if not self.links or not text or text.startswith("-"):
            return text
        path = join_path(self.cwd, text)
        # The longest moved or linked path the word is under: one lookup per leading component
        # (at most MAX_LINK_DEPTH of them, each a slice: linear in the word).
        found = None
        end = path.find("/", 1)
        for _ in range(MAX_LINK_DEPTH):
            n = len(path) if end < 0 else end
            if path[:n] in self.links:
                found = n
            if end < 0:
                break
            end = path.find("/", end + 1)
        if found is None:
            return text
        original, symlink = self.links[path[:found]]
        rest = path[found:].lstrip("/")
        if symlink and not rest and not text.endswith(("/", "/.")):
            return text  # rm -rf h removes the link, not what it points to
        return join_path(original, rest) if rest else original


def record(
    cmd: Command,
    op: str,
    key: str,
    content: str | None = None,
    source: str | None = None,
    mode: str | None = None,
    tree: bool = False,
    how: str | None = None,
    machine: str | None = None,
) -> None:
    """One write effect of ``cmd`` (effects/model.py's vocabulary, ``FILE_OPS``): ``op`` on
    ``key`` (a path relative to the payload's cwd, or absolute), with the ``content`` it leaves
    there when the line shows it, the ``source`` path it comes from (copy, move, link) and the
    ``mode`` chmod gives; ``tree`` and ``how`` as ``effect`` adds them; ``machine`` for another
    machine's ``key`` (rsync's ``host:path``). Seen again (a here-document read after the
    redirection), it is updated, not repeated."""
    for f in cmd.files:
        if f["op"] == op and f["path"] == key:
            if content is not None:
                f["content"] = content
            if source is not None:  # a pipeline read after the command: what feeds it
                f["from"] = source
            return
    f = effect(op, key, content, source, mode, tree, how)
    # Another machine's file: its path as that machine names it, never placed against this cwd.
    if key.startswith(CONTAINER):
        f["path"], f["machine"] = key[len(CONTAINER) :], "container"
    if machine or any(v in TABLES["remote-runners"] for v in cmd.via):
        f["machine"] = machine or "remote"
    cmd.files.append(f)


def record_writes(
    cmd: Command,
    into: tuple[list[str], list[str]],
    content: str | None,
    source: str | None = None,
    redirected: bool = False,
) -> None:
    for op, paths in (("write", into[0]), ("append", into[1])):
        how = (">" if op == "write" else ">>") if redirected else None
        for path in paths:
            record(cmd, op, join_path(cmd.cwd, path), content, source, how=how)


def file_ops(cmd: Command) -> None:
    """The write effects of a command that changes files by its operands (``FILE_COMMANDS``),
    and of ``find -delete``."""
    if cmd.name == "find":
        return find_ops(cmd)
    for f in operand_records(cmd.name, [w.text for w in cmd.words], cmd.cwd):
        record(cmd, f["op"], f["path"], f["content"], mode=f["mode"], **_extra(f))


def operand_ops(
    name: str, argv: list[str], cwd: str | None
) -> list[tuple[str, str, str | None, str | None]]:
    """(op, path, content, mode) for each file ``argv`` changes by its operands: rm, unlink,
    shred, rmdir delete; truncate empties (``-s 0``) or edits; chmod sets a mode (chown,
    chgrp, chattr, setfacl a ``mode`` op without one); touch creates; mkdir, mkfifo, mknod
    make a directory or special file there (a ``write`` of no content); sed/perl/ruby ``-i``
    edit in place (``FILE_COMMANDS``)."""
    how = FILE_COMMANDS[name]
    values = _OPERAND_VALUES.get(name, ())
    operands = argv_operands([a for k, a in enumerate(argv) if not (k and argv[k - 1] in values)])
    mode = None
    if how == "in_place":
        if not any(_in_place(a) for a in argv[1:]):
            return []
        # the script (sed's first operand, or each -e/-f value) is no file it edits
        scripts = sum(1 for a in argv[1:] if a in _SCRIPT_OPTIONS or _bundle_ends_in_e(a))
        operands = operands[max(scripts, 1) :]
    elif how == "mode":  # chmod -x f: a symbolic mode may start with "-"
        words = [a for a in argv[1:] if a not in _CHMOD_FLAGS and not a.startswith("--")]
        mode, operands = (words[0], words[1:]) if words else ("", [])
    elif how == "owner":  # chown OWNER FILE…, chgrp GROUP FILE… (not with --reference=REF)
        if not any(a.startswith("--reference") for a in argv):
            operands = operands[1:]
    elif how == "attributes":  # chattr +i FILE (a -i is read as an option already)
        operands = [a for a in operands if not a.startswith(("+", "="))]
    elif how == "node":  # mknod NAME TYPE [MAJOR MINOR]
        operands = operands[:1]
    elif how == "truncate":  # -s SIZE, -r FILE: values, not files it truncates
        operands = [
            a
            for k, a in enumerate(argv)
            if k
            and not a.startswith("-")
            and argv[k - 1] not in ("-s", "--size", "-r", "--reference")
        ]
    out: list[tuple[str, str, str | None, str | None]] = []
    for path in operands:
        if not path:
            continue  # rm -rf "" ("$EMPTY"): no file has that name; it fails on it
        key = join_path(cwd, path)
        if how == "truncate":
            empties = _truncate_size(argv) in ("0", "=0", "<0", "/0")
            out.append(("write" if empties else "edit", key, "" if empties else None, None))
        elif how == "touch":
            out.append(("append", key, "", None))
        elif how in ("create", "node"):  # a directory or a special file made at the path
            out.append(("write", key, None, None))
        elif how in ("owner", "attributes", "acl"):  # who may change or run it: no chmod mode
            out.append(("mode", key, None, None))
        else:  # delete, mode, or "edit" in place (what the script makes of it is not known)
            out.append((how if how != "in_place" else "edit", key, None, mode))
    return out


# Options whose value is no file the command changes (mkdir -m 755 d, setfacl -m u:x:rw f).
_OPERAND_VALUES = {
    **dict.fromkeys(("mkdir", "mkfifo", "mknod"), ("-m", "--mode", "-Z", "--context")),
    "setfacl": ("-m", "-x", "-M", "-X", "--modify", "--remove", "--set"),
    "chattr": ("-v", "-p"),
}

# Commands that print nothing: : > f, true > f empty f.
_SILENT = frozenset(("", ":", "true", "false"))
_CHMOD_FLAGS = frozenset(("-R", "-v", "-c", "-f", "-h", "-H", "-L", "-P"))
_SCRIPT_OPTIONS = frozenset(("-e", "-f", "--expression", "--file"))


def _in_place(a: str) -> bool:
    """sed -i, -i.bak, -ni, --in-place=.bak, perl -pi: an option bundle with ``i``."""
    if a == "--in-place" or a.startswith("--in-place="):
        return True
    return a.startswith("-") and not a.startswith("--") and "i" in a[1:].split(".", 1)[0]


def _bundle_ends_in_e(a: str) -> bool:
    """perl -pie CODE: a bundle whose last option takes the code."""
    return len(a) > 2 and a[0] == "-" and a[1] != "-" and a.endswith("e") and a[1:].isalpha()


def _truncate_size(argv: list[str]) -> str | None:
    for k, a in enumerate(argv[1:], 1):
        if a in ("-s", "--size") and k + 1 < len(argv):
            return argv[k + 1]
        if a.startswith("--size="):
            return a[7:]
        if a.startswith("-s") and len(a) > 2:
            return a[2:]
    return None


# Commands whose write effects file_ops reads from their operands, by how.
FILE_COMMANDS = {
    **dict.fromkeys(("rm", "unlink", "shred", "rmdir"), "delete"),
    "truncate": "truncate",
    "chmod": "mode",
    **dict.fromkeys(("chown", "chgrp"), "owner"),
    "chattr": "attributes",
    "setfacl": "acl",
    "touch": "touch",
    **dict.fromkeys(("mkdir", "mkfifo"), "create"),
    "mknod": "node",
    **dict.fromkeys(("sed", "perl", "ruby"), "in_place"),
    **dict.fromkeys(TABLES["tree-deleters"], "delete"),
    **dict.fromkeys(("tar", "gtar", "bsdtar"), "archive"),
}


# find's own words that take a value: a -delete after one is that value (find -name -delete).
_FIND_VALUES = frozenset(
    (
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
        "-lname", "-ilname", "-newer", "-fprint", "-fprint0", "-fls", "-user", "-group", "-perm",
        "-type", "-size",
    )
)  # fmt: skip

# What find (or fd) found, as the commands it runs name it (-exec rm {} +).
FOUND = "{}"


def find_roots(argv: list[str]) -> list[str]:
    """The starting points of ``find`` (the words before its expression; ``.`` when there are
    none, as GNU find does) or ``fd``/``fdfind`` (the operands after the pattern)."""
    if argv[0] == "find":
        roots = []
        for a in argv[1:]:
            if a[:1] in ("-", "(", "!"):
                break
            roots.append(a)
        return roots or ["."]
    return path_exec_roots(argv[0], argv)


def found_key(cwd: str | None, root: str) -> str:
    """Any entry found under ``root``: ``root/{}``. What find changes is what its tests let
    through (find . -name '*.pyc' -delete deletes no other file), so the starting point itself is
    not a target: a guard reads ``{}`` as a name the line does not show (docs/reference/effects.md)."""
    return join_path(cwd, join_path(root, FOUND))


def find_ops(cmd: Command) -> None:
    """``find ROOT… -delete``: a delete of what it finds under each starting point."""
    argv = [w.text for w in cmd.words]
    if any(a == "-delete" and argv[k - 1] not in _FIND_VALUES for k, a in enumerate(argv)):
        for root in find_roots(argv):
            record(cmd, "delete", found_key(cmd.cwd, root), how="find -delete")


def found_ops(ran: Command, finder: Command) -> None:
    """The effects of a command find or fd runs on what it found (``-exec rm {} +``, ``-exec
    chmod -x {} ;``, ``fd -x mv {} /tmp``): ``{}`` is each entry found under each starting point."""
    if finder.name not in TABLES["path-execs"]:
        return
    here = join_path(ran.cwd, FOUND)
    if not any(here in (f["path"], f["from"]) for f in ran.files):
        return
    keys = [found_key(ran.cwd, root) for root in find_roots([w.text for w in finder.words])]
    files, ran.files = ran.files, []
    for f in files:
        for key in keys if here in (f["path"], f["from"]) else [None]:
            path = key if key is not None and f["path"] == here else f["path"]
            source = key if key is not None and f["from"] == here else f["from"]
            record(ran, f["op"], path, f["content"], source, f["mode"], **_extra(f))


def applies_patch(cmd: Command) -> bool:
    """``patch``, ``git apply`` and ``git am`` read a diff on stdin and apply it (not ``patch
    --dry-run``, nor ``git apply --check``/``--stat``/… without ``--apply``: lib_effects.rego's
    patch_commands reads a patch file by the same rule)."""
    if cmd.name != "patch" and cmd.name != "git":
        return False  # (every command the line runs is asked)
    argv = [w.text for w in cmd.words]
    if cmd.name == "patch":
        return "--dry-run" not in argv
    words = [a for a in argv[1:] if not a.startswith("-")]
    if cmd.name != "git" or not words or words[0] not in ("apply", "am"):
        return False
    return "--apply" in argv or not _REPORTS.intersection(argv)


_REPORTS = frozenset(("--check", "--stat", "--numstat", "--summary"))


# Commands whose effect on the files they name the line models (moved, wrote_output).
_MODELLED = frozenset(("cp", "mv", "ln", "link", "install", "rsync", "tee", "sponge", "dd"))


# Options of cp and install that take a value (not a source): install -m 755 x.sh bin/x.
_COPY_VALUES = {
    "cp": ("-S", "--suffix"),
    "install": ("-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"),
    # (rsync's -t is --times; its long options mostly take =VALUE)
    "rsync": ("-e", "--rsh", "-f", "--filter", "--exclude", "--include", "-T", "--temp-dir", "-B"),
}


def input_files(cmd: Command) -> tuple[list[str], list[str]] | None:
    """The files ``tee``, ``sponge`` and ``dd`` write what they read to (written, appended);
    None for other commands."""
    if cmd.name not in ("tee", "sponge", "dd"):
        return None
    argv = [w.text for w in cmd.words]
    if cmd.name == "dd":
        files = [a[3:] for a in argv[1:] if a.startswith("of=")][-1:]
        return ([], files) if "oflag=append" in argv else (files, [])
    files = argv_operands(argv)[: 1 if cmd.name == "sponge" else None]
    return ([], files) if argv_has_option(argv, "-a") else (files, [])


class FilesNeeded(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by an analysis run with ``UNREAD`` where the files the session wrote would
    change its result: the caller reads them and analyses the line again with them."""


class _Unread:
    """The files the session wrote, not read yet (``UNREAD``): an analysis runs as if the
    session had written some, and raises ``FilesNeeded`` wherever what they are, or whether
    there are any, would change what it finds (a line that runs, copies, appends to or reads a
    file it did not write itself). One that completes found what it finds for every session,
    none that wrote nothing included: most lines, which then never read the memory."""

    __slots__ = ()

    def __bool__(self) -> bool:
        return True

    @property
    def paths(self) -> set[str]:
        raise FilesNeeded

    def text(self, full: str) -> str | None:
        raise FilesNeeded


UNREAD = _Unread()


class SessionFiles:
    """The files the session's earlier calls wrote, as ``hookgate.session_files`` gives them
    (``session.value``: ``[dev, ino, size, sha256, path]`` rows, ``-`` where not known yet):
    by path, by identity (device and inode) and by content (size, SHA-256), and the digest of
    those it forgot. ``text`` says what a file a line runs holds when the session wrote it.
    Indexed when first needed (most lines run no file). Compared by identity: each evaluation
    reads the memory anew, so an analysis cached under one never outlives it (the disk may have
    changed since)."""

    __slots__ = ("rows", "_paths", "ids", "sizes", "hashes", "pending", "bits", "forgotten")

    def __init__(self, value: Any) -> None:
        self._paths: set[str] | None = None
        self.ids: set[tuple[int, int]] = set()
        self.sizes: set[int] = set()
        self.hashes: set[str] = set()
        self.pending: list[str] | None = []  # paths not settled: stat once, when needed
        self.bits = b""
        self.forgotten = 0
        if isinstance(value, (list, tuple)):  # the first form: absolute paths
            files: Any = [["-", "-", "-", "-", p] for p in value]
            forgotten: Any = {}
        elif isinstance(value, dict):
            files, forgotten = value.get("files", ()), value.get("forgotten") or {}
        else:
            raise ValueError("files must be a list of paths or hookgate.session_files's object")
        if not isinstance(files, (list, tuple)) or not isinstance(forgotten, dict):
            raise ValueError("files: files must be an array, forgotten an object")
        for n, f in enumerate(files):
            if (
                type(f) not in (list, tuple)
                or len(f) != 5
                or not (type(f[0]) is type(f[1]) is type(f[2]) is type(f[3]) is type(f[4]) is str)
            ):
                raise ValueError(f"files: files[{n}] must be [dev, ino, size, sha256, path]")
        self.rows = files
        count = forgotten.get("count", 0)
        digest_hex = forgotten.get("digest", "")
        if not isinstance(count, int) or not isinstance(digest_hex, str):
            raise ValueError("files: forgotten.count must be a number, forgotten.digest hex")
        if count > 0:
            try:
                self.bits = bytes.fromhex(digest_hex)
            except ValueError:
                raise ValueError("files: forgotten.digest must be hex") from None
            self.forgotten = count

    @property
    def paths(self) -> set[str]:
        """The paths the files were written at (the index made on first use)."""
        if self._paths is None:
            self._paths = set()
            for dev, ino, size, digest, path in self.rows:
                if not path.startswith("/"):
                    continue
                self._paths.add(path)
                if dev.isdigit() and ino.isdigit():
                    self.ids.add((int(dev), int(ino)))
                else:
                    self.pending.append(path)  # type: ignore[union-attr]
                if size.isdigit():
                    self.sizes.add(int(size))
                if digest != "-":
                    self.hashes.add(digest)
        return self._paths

    def __bool__(self) -> bool:
        return bool(self.rows) or self.forgotten > 0

    def text(self, full: str) -> str | None:
        """The text of the file at ``full`` (absolute) when the session wrote it: at that path,
        or the same file under another name (a stat: device and inode), or a copy (the content
        hashed only when its size is one the session wrote). None for a file it did not write.
        A ``LimitError`` for one it wrote that cannot be read now (gone, not a regular file,
        unreadable, too large) or that it forgot (``forgotten`` digest)."""
        if full in self.paths:  # the index too
            return _read_written(full)
        try:
            st = os.stat(full)
        except OSError:
            return None  # nothing there to run
        if not stat.S_ISREG(st.st_mode):
            return None
        self._settle()
        if (st.st_dev, st.st_ino) in self.ids:
            return _read_written(full)
        forgot = self._forgot("p:" + full) or self._forgot(f"i:{st.st_dev}:{st.st_ino}")
        if st.st_size in self.sizes or self._forgot(f"s:{st.st_size}"):
            from hookgate.session import identity

            now = identity(full)
            if now is not None and now.sha256 in self.hashes:
                return _read_written(full)
            forgot = forgot or (now is not None and self._forgot(f"h:{now.sha256}"))
        if forgot:
            raise LimitError(
                "session-file",
                f"{full} may be a file this session wrote that hookgate no longer remembers "
                f"(it keeps the last files a session wrote); what it runs is not known",
            )
        return None

    def _settle(self) -> None:
        """The device and inode of the files written but not settled yet (the host wrote them
        after the call that let it through was answered)."""
        if self.pending:
            for path in self.pending:
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                self.ids.add((st.st_dev, st.st_ino))
        self.pending = None

    def _forgot(self, key: str) -> bool:
        if not self.forgotten or not self.bits:
            return False
        from hookgate.session import probes

        return all(self.bits[n >> 3] & (1 << (n & 7)) for n in probes(key))


def _read_written(path: str) -> str:
    """The text of a file the session wrote, which the line runs: the link followed, as the
    shell follows it; anything but a regular file of at most ``MAX_EARLIER_BYTES`` raises a
    ``LimitError`` (a FIFO is opened without waiting for a writer)."""
    from hookgate.files import UnsafeFile, read_file_stat

    try:
        found = read_file_stat(path, MAX_EARLIER_BYTES, follow=True)
    except (UnsafeFile, OSError) as exc:
        why = exc.why if isinstance(exc, UnsafeFile) else str(exc)
        raise LimitError(
            "session-file", f"{path}, a file this session wrote, cannot be read now: {why}"
        ) from None
    if found is None:
        raise LimitError("session-file", f"{path}, a file this session wrote, no longer exists")
    return found[0].decode("utf-8", errors="replace")


# ---- what a delete reaches, and how the line says it (destructive reads these: issue 32) ----


def operand_records(name: str, argv: list[str], cwd: str | None) -> list[dict[str, Any]]:
    """``operand_ops``'s effects as records, with ``tree`` and ``how`` (``effect``): ``rm -r``
    and the tree deleters delete whole trees, ``chmod -R``/``chown -R``/``chgrp -R`` set modes
    on them; ``tar --remove-files`` deletes what it archived."""
    if FILE_COMMANDS[name] == "archive":
        return [
            effect("delete", join_path(cwd, p), tree=True, how="tar --remove-files")
            for p in tar_removed(argv)
        ]
    tree, how = reach(name, argv)
    return [
        effect(op, key, content, None, mode, tree and op in ("delete", "mode"), how)
        for op, key, content, mode in operand_ops(name, argv, cwd)
    ]


def _extra(f: dict[str, Any]) -> dict[str, Any]:
    return {"tree": f.get("tree", False), "how": f.get("how")}


def xargs_ops(ran: Command, xargs: Command, producer: Command | None) -> None:
    """The effects of a command that changes files by its operands (``FILE_COMMANDS``) run by
    ``xargs`` on input the line does not show: each path it reads is what ``find``/``fd``
    piped into it finds (``ROOT/{}``), else ``FROM_XARGS`` (``cat list | xargs rm -rf``, ``xargs
    rm -rf < list``), in place of the replace string (``-I{}``) or after its arguments."""
    if ran.name not in FILE_COMMANDS or ran.name == "find":
        return
    argv = [w.text for w in ran.words]
    if producer is not None and producer.name in TABLES["path-execs"]:
        paths = [join_path(root, FOUND) for root in find_roots([w.text for w in producer.words])]
    else:
        paths = [FROM_XARGS]
    replace = xargs_replace(xargs.words)
    if replace is not None:
        runs = [[a.replace(replace, p) for a in argv] for p in paths]
    else:
        runs = [argv + [p] for p in paths]
    for run in runs:
        for f in operand_records(ran.name, run, ran.cwd):
            if f["path"] == FROM_XARGS or f["path"].endswith(FOUND) or replace is not None:
                record(ran, f["op"], f["path"], f["content"], mode=f["mode"], **_extra(f))
