"""Scripts a line runs inside itself: words read as a script (``bash -c``, ``eval``), text
printed by a substitution or a here-document, scripts the line wrote and then runs
(``./w.sh``, ``python3 w.py``), each parsed one level deeper by a run of the same kind.
"""

from __future__ import annotations

from hookgate.shell.expansion import Value
from hookgate.shell.launcher_table import ONE_LINERS
from hookgate.shell.launchers import interpreter_of, shebang, suffix_interpreter
from hookgate.shell.limits import MAX_DEPTH, too_deep
from hookgate.shell.parser import Parser
from hookgate.shell.words import Command, Word, word_offsets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.shell.limits import Budget


class Nesting:
    """The nested-scripts part of ``analysis.Run`` (a mixin: the run is one object per
    script). It reads the run's ``depth``, ``out``, ``cwd``, ``budget``, ``vars``, ``scripts``,
    ``aliases`` and ``functions``, and the file system part's ``written``."""

    depth: int
    out: list[Command]
    cwd: str | None
    budget: Budget
    vars: dict[str, Value]
    scripts: dict[str, list[str]]
    aliases: dict[str, str]
    functions: dict[str, str]
    body_spans: dict[str, tuple[int, int] | None]

    written: Callable[..., str | None]  # files.FileEffects
    share_state: Callable[[Any], None]

    def nested_words(
        self,
        words: list[Word],
        owner: Command,
        via: str,
        remote: bool = False,
        args: list[Word] | None = None,
    ) -> None:
        """Parse the words' text (joined by spaces) as a script run by ``owner``; ``args``
        are a shell's operands after its ``-c`` script (``$0``, then ``$1``…), when it is one."""
        if any(w.span is None and len(w.offs) != len(w.text) for w in words):
            # A word an expansion made ($x, $(echo …)) is nowhere in the original text: nothing
            # of this script may be edited in place (offsets made up for it would edit others).
            self.nested_printed(" ".join(w.text for w in words), owner, via, remote, args)
            return
        text_parts: list[str] = []
        offs: list[int] = []
        for w in words:
            if text_parts:
                text_parts.append(" ")
                offs.append(offs[-1] if offs else 0)
            text_parts.append(w.text)
            offs.extend(word_offsets(w))
        self.nested("".join(text_parts), offs, owner.via + [via], remote, args)

    def run_written(self, path: str, owner: Command, via: str, read: Any = None) -> None:
        """Parse the script the line wrote at ``path`` (if it did) as run by ``owner``; ``read``
        makes the script of the file's text (a makefile's recipes)."""
        text = self.written(path, self.cwd, run=True)
        if text is not None:
            self.nested_printed(read(text) if read else text, owner, via)

    def run_file(self, path: str, owner: Command, args: list[Word]) -> None:
        """``./w.sh`` (or ``uv run w.py``) of a file whose text the line shows: its ``#!``
        line (or, run by a package runner, its suffix) names an interpreter whose one-liner the
        guards read (``python3 -c``); else the shell runs it (bash runs a file with no ``#!``
        line as its own script)."""
        text = self.written(path, self.cwd, run=True)
        if text is None:
            return
        program = shebang(text) or suffix_interpreter(path, owner.via)
        interpreter = interpreter_of(program) if program else None
        if interpreter is not None:
            self.one_liner(program or interpreter, text, args, owner)
        else:
            self.nested_printed(text, owner, owner.name)

    def one_liner(self, program: str, code: str, args: list[Word], owner: Command) -> None:
        """``python3 w.py a`` of a file whose text the line shows, as the guards read it:
        ``python3 -c "<w.py's text>" a`` (not in the line's text: no offsets, nothing edits it
        in place; it carries the owner's span)."""
        self.budget.command()
        self.budget.read(len(code))
        option = ONE_LINERS[interpreter_of(program) or program]
        texts = [program, option, code] + [w.text for w in args]
        words = [Word(t, None, True, []) for t in texts]
        self.out.append(
            Command(program, words, owner.env, owner.span, owner.cwd, owner.via, owner.incomplete)
        )

    def nested_printed(
        self,
        text: str,
        owner: Command,
        via: str,
        remote: bool = False,
        args: list[Word] | None = None,
    ) -> None:
        """Parse ``text``, printed by a substitution (``source <(echo …)``), as a script run
        by ``owner``. Its commands are not in the original text: their words have no span, so
        nothing edits them in place, and they carry the owner's span."""
        found: list[Command] = []
        saved, self.out = self.out, found
        try:
            self.nested(text, [owner.span[0]] * len(text), owner.via + [via], remote, args)
        finally:
            self.out = saved
        for c in found:
            words = [Word(w.text, None, w.literal, [], kind=w.kind) for w in c.words]
            printed = Command(c.name, words, c.env, owner.span, c.cwd, c.via, c.incomplete, c.stdin)
            printed.writes, printed.appends = c.writes, c.appends
            printed.files = c.files  # what it does to files: every file guard reads it
            printed.branch, printed.git_config = c.branch, c.git_config
            printed.fed_by = c.fed_by
            self.out.append(printed)

    def nested(
        self,
        text: str,
        offs: list[int],
        via: list[str],
        remote: bool = False,
        args: list[Word] | None = None,
        bound: dict[str, str] | None = None,
    ) -> None:
        """Parse ``text`` (at ``offs`` in the root line) as a script one level deeper, run
        through ``via``: on another machine when ``remote`` (ssh), with ``args`` as its
        ``$0``, ``$1``… and ``bound`` variables (a loop's, for one value)."""
        if self.depth + 1 > MAX_DEPTH:
            raise too_deep("scripts run by shells, eval and wrappers", MAX_DEPTH)
        cwd = None if remote else self.cwd
        sub = type(self)(self.depth + 1, self.out, cwd, via, self.budget)
        sub.vars.update(self.vars)  # eval sees them; for "bash -c" a harmless over-approximation
        if args is not None:  # bash -c 'script' arg0 arg1 …
            kinds = [w.kind for w in args if w.kind is not None]
            kind = kinds[0] if kinds else None
            sub.vars["0"] = Value([args[0].text if args else via[-1]], kind)
            sub.vars["@"] = Value([w.text for w in args[1:]], kind)
        for var, value in (bound or {}).items():  # a loop's variable, for one of its values
            sub.vars[var] = Value([value])
        sub.scripts = self.scripts  # the same files, wherever they are written or run
        sub.aliases.update(self.aliases)
        sub.functions = dict(self.functions)
        sub.body_spans = dict(self.body_spans)
        sub.share_state(self)
        Parser(text, offs, sub).parse()
        if via[-1:] in (["source"], ["."], ["eval"]):  # run in this shell: what it defines stays
            self.functions.update(sub.functions)
            self.body_spans.update(sub.body_spans)
            self.vars.update(sub.vars)
            self.aliases.update(sub.aliases)

    def supersede_body(self, name: str) -> None:
        """A call reads function ``name``'s body again with the call's arguments as ``$1``…:
        what the definition read, with them unknown, is not what runs, and goes (``f() { for
        d; do rm -rf "$d/b"; done; }; f a c``). A function the line never calls keeps it, and
        so does one whose body is nowhere in the text as written (no span)."""
        span = self.body_spans.pop(name, None)
        if span is not None:
            lo, hi = span
            self.out[:] = [
                c for c in self.out if c.span is None or not lo <= c.span[0] <= c.span[1] <= hi
            ]
