"""What the line does to files, as the symbolic run tracks it: the scripts it writes (``cat >
x.sh <<EOF``, ``echo … >> f``, ``tee``, ``dd of=``, copies), the paths it moves or links (``mv
.git x``, ``ln -s ~ h``) and the container paths a bind mount maps to the host's; and the files
earlier calls of the session wrote, read from the disk when the line runs one.
"""

from __future__ import annotations

import os
import stat

from hookgate.shell.limits import MAX_EARLIER_BYTES, MAX_LINK_DEPTH
from hookgate.shell.words import (
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

    def written(self, path: str, cwd: str | None) -> str | None:
        """The text the line wrote at ``path`` (relative to ``cwd``), or that an earlier call
        of the session wrote there (read from the disk now); None otherwise."""
        key = join_path(cwd, path)
        script = self.scripts.get(key)
        if script is None and self.budget.earlier:
            root = self.budget.root_dir
            full = key if key.startswith("/") or root is None else join_path(root, key)
            if full in self.budget.earlier:
                text = file_text(full)
                if text is not None:
                    script = self.scripts[key] = [text]
        return None if script is None else "\n".join(script)

    def wrote(
        self, cmd: Command, script: str, into: tuple[list[str], list[str]] | None = None
    ) -> None:
        """Remember ``script`` as the content of the files ``cmd`` writes (or the end of those
        it appends to): those its output is redirected to, or ``into`` (written, appended)."""
        writes, appends = into if into is not None else (cmd.writes, cmd.appends)
        for path in writes:
            self.scripts[join_path(cmd.cwd, path)] = [script]
        for path in appends:
            self.scripts.setdefault(join_path(cmd.cwd, path), [""]).append(script)

    def wrote_output(self, cmd: Command, producer: Command | None = None) -> None:
        """What ``cmd`` writes when the line shows it: its output redirected (``echo … > f``,
        ``base64 -d > f`` of a pipeline or here-document) and what ``tee f``, ``dd of=f`` and
        ``sponge f`` read (what ``producer`` prints into them, else their here-document or
        here-string)."""
        if cmd.writes or cmd.appends:
            output = self.output(cmd)
            if output is not None:
                self.wrote(cmd, output)
        into = input_files(cmd)
        if into is not None:
            fed = cmd.stdin if producer is None else self.output(producer)
            if fed is not None:
                self.wrote(cmd, fed, into)

    def catted(self, cmd: Command) -> str | None:
        """What ``cat FILE…`` prints when the line wrote every FILE (``cat x.sh | sh``)."""
        if cmd.name != "cat" or any(w.kind is not None for w in cmd.words):
            return None
        files = argv_operands([w.text for w in cmd.words])
        texts = [self.written(f, cmd.cwd) for f in files]
        if not texts or None in texts or "-" in files:
            return None
        return "\n".join(texts)  # type: ignore[arg-type]

    def moved(self, cmd: Command) -> None:
        """Remember what ``mv A B`` and ``ln -s A B`` make ``B`` (``A``, or what a link to it
        reaches): a later ``rm -rf B`` deletes ``A`` (``cp -r A B`` leaves ``A`` alone). A
        script the line wrote at ``A`` is ``B``'s too, copied (``cp``, ``install``) or linked."""
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
            if a in ("-t", "--target-directory") and k + 1 < len(argv):
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
        dest = join_path(self.cwd, into)
        for src in ops:
            base = src.rstrip("/").rsplit("/", 1)[-1]
            if symlink:  # a link's target is relative to the link's directory
                parent = dest if len(ops) > 1 or into == "." else dest.rsplit("/", 1)[0]
                original = join_path(parent if "/" in dest else self.cwd, src)
            else:
                original = self.host_path(src) if src.startswith("/") else src
                original = join_path(self.cwd, original)
            names = [dest] if len(ops) == 1 and into != "." else []
            names.append(join_path(dest, base))
            script = self.scripts.get(original)
            for name in names:
                if aliases:
                    self.links[name] = (original, symlink)
                if script is not None:
                    self.scripts[name] = script

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
                return "container:" + path
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


# Options of cp and install that take a value (not a source): install -m 755 x.sh bin/x.
_COPY_VALUES = {
    "cp": ("-S", "--suffix"),
    "install": ("-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"),
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


def file_text(path: str) -> str | None:
    """The text of the regular file ``path`` (at most ``MAX_EARLIER_BYTES``; a symlink is not
    followed), or None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_EARLIER_BYTES:
            return None
        return os.read(fd, MAX_EARLIER_BYTES + 1).decode("utf-8", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)
