"""The shell parser: words to simple commands, streamed to the run as they are read.

A hand-written parser for the POSIX/bash syntax agents emit, with no syntax tree: nothing needs
one, and the hook's hot path would pay for building it. ``Parser`` (with its reading half,
``lexer.Lexer``) walks one script's text once, keeping for every unquoted character its offset
in the root line, so that callers get spans into the original (``shell.without_flags`` edits the
text byte for byte). Lists, pipelines, subshells and groups, redirections, here-documents,
``case``/``for``/``function`` headers and function definitions are syntax here; what they do
is the run's (``analysis.Run``), which the parser calls at each of them through one seam, the
methods of ``runner.Runner``: the parser never imports the analysis. Nothing is executed.
"""

from __future__ import annotations

from hookgate.shell.lexer import Lexer
from hookgate.shell.limits import MAX_DEPTH
from hookgate.shell.words import Command, Word, matching_close

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookgate.shell.runner import Runner

RESERVED = frozenset({"{", "}", "!", "if", "then", "elif", "else", "fi", "do", "done", "while"})


RESERVED |= {"until", "esac", "coproc", "in"}


class Parser(Lexer):
    """Parses one script (the root text or a nested one, with offsets into the root) for
    ``run``: each simple command, pipeline, subshell, here-document, loop and function
    definition is handed to it as it is read."""

    def __init__(self, text: str, offs: list[int] | None, run: Runner) -> None:
        super().__init__(text, offs, run)
        # here-documents whose body starts at the next newline: (command, delimiter, "<<-",
        # quoted delimiter)
        self.pending: list[tuple[Command, str, bool, bool]] = []
        self.case_depth = 0
        self.reparsed = False  # this parser reads the rest of a line after a lone quote
        # Where each open "{ … }" group's commands start in run.out, and the commands of the
        # group a "}" just closed: a pipeline element that is a group ("{ a; b; } | sh").
        self.groups: list[int] = []
        self.closed: list[Command] | None = None

    # -- driver --------------------------------------------------------------------------------

    def parse(self) -> None:
        first = len(self.run.out)
        self.parse_list("")
        while self.i < self.n:  # a stray ")" at top level: skip it and go on
            self.i += 1
            self.parse_list("")
        if self.pending:  # here-document without a newline after its command: body is empty
            self.read_heredocs()
        if self.incomplete:
            for c in self.run.out[first:]:
                c.incomplete = True
            if not self.reparsed:
                self.reparse_after_quote(first)

    def reparse_after_quote(self, first: int) -> None:
        """Unbalanced quotes: also read the text after the last lone quote as commands.

        The shell would reject the line, but the agent may fix the quote and run it: judge
        what it would most likely run too, rather than skip it silently.
        """
        run = self.run
        seen = {(c.name, c.span) for c in run.out[first:]}
        for q in "'\"`":
            if self.t.count(q) % 2 == 0 or run.depth + 1 > MAX_DEPTH:
                continue
            last = self.t.rfind(q)
            for c in run.reparse(self.t[last + 1 :], self.roots(last + 1, self.n)):
                if (c.name, c.span) not in seen:
                    c.incomplete = True
                    run.out.append(c)

    # -- lists and pipelines ---------------------------------------------------------------------

    def parse_list(self, stop: str) -> None:
        t = self.t
        while True:
            self.skip_blanks()
            if self.i >= self.n:
                return
            c = t[self.i]
            if stop and c in stop:
                return
            if c == "\n":
                self.i += 1
                self.read_heredocs()
                continue
            if c in ";&|":
                self.i += 1
                continue
            if c == ")":
                if not stop:
                    return
                self.i += 1
                continue
            if c == "#":
                self.skip_comment()
                continue
            self.parse_pipeline(stop)

    def parse_pipeline(self, stop: str) -> None:
        run = self.run
        cmds: list[Command | list[Command] | None] = []
        while True:
            prev = cmds[-1] if cmds else None
            run.piped_from = prev if not isinstance(prev, list) else None
            first = len(run.out)
            self.closed = None
            cmd = self.parse_command(stop)
            if cmd is None:
                # a group or a subshell: every command it ran prints into the pipe
                cmd = self.closed if self.closed is not None else run.out[first:] or None
            cmds.append(cmd)
            run.piped_from = None
            self.skip_blanks()
            if self.i < self.n and self.t[self.i] == "|" and self.t[self.i : self.i + 2] != "||":
                self.i += 2 if self.t[self.i : self.i + 2] == "|&" else 1
                self.skip_blanks_newlines()
                continue
            break
        run.pipeline(cmds)

    # -- commands ------------------------------------------------------------------------------

    def parse_command(self, stop: str) -> Command | None:
        self.skip_blanks()
        t = self.t
        if self.i >= self.n:
            return None
        if t[self.i] == "(":
            # "((…))" is arithmetic to bash and zsh but two subshells to dash, Debian's sh: read
            # as subshells, every command a POSIX shell would run is seen ("sh -c '((git push
            # -f))'" pushes), and an arithmetic expression only adds inert ones such as "n++".
            self.i += 1
            self.subshell(")")
            self.parse_simple(stop, only_redirects=True)
            return None
        return self.parse_simple(stop)

    def subshell(self, close: str) -> None:
        """A ``(…)``, ``$(…)`` or ``<(…)`` (at its first character): its list, up to ``close``."""
        saved = self.run.enter_subshell()
        self.parse_list(close)
        self.run.leave_subshell(saved)
        if self.i < self.n and self.t[self.i] == close:
            self.i += 1
        else:
            self.incomplete = True

    def parse_simple(self, stop: str, only_redirects: bool = False) -> Command | None:
        self.budget.command()
        t = self.t
        words: list[Word] = []
        starts: list[int] = []
        heredocs: list[tuple[str, bool, bool]] = []
        herestrings: list[Word] = []
        writes: list[str] = []
        appends: list[str] = []
        reads: list[str] = []  # < f
        n = self.n
        start = self.i
        end = self.i
        while True:
            self.skip_blanks()
            if self.i >= n:
                break
            c = t[self.i]
            if stop and c in stop:
                break
            if c == ")" and self.case_depth and len(words) <= 1:
                # a case pattern "pat)": not a command
                self.i += 1
                words, starts = [], []
                start = self.i
                continue
            # (a redirection starts with an fd number, {fd} or its operator: most words do not)
            redir = self.redirect_op() if c in "{<>&" or c.isdigit() else None
            if redir:
                self.skip_blanks()
                target = self.lex_word(stop)
                end = self.i
                if target is None:
                    continue
                if redir in ("<<", "<<-"):
                    quoted = (
                        not target.literal
                        or target.span is None
                        or (target.span[1] - target.span[0] != len(target.text))
                    )
                    heredocs.append((target.text, redir == "<<-", quoted))
                elif redir == "<<<":
                    herestrings.append(target)
                elif redir in ("<", "<>"):
                    reads.append(target.text)
                elif _truncates(redir, target.text):
                    writes.append(target.text)
                elif redir in (">>", "&>>"):
                    appends.append(target.text)
                continue
            if c in ";&|()\n":
                break
            if c == "#" and (self.i == 0 or t[self.i - 1] in " \t\n;&|()"):
                self.skip_comment()
                break
            s = self.i
            w = self.lex_word(stop)
            if w is None:
                break
            end = self.i
            if only_redirects:
                continue
            # a keyword as written here (not quoted, escaped nor expanded), wherever the text
            # came from: a function body a call reads again has no offsets of its own
            if not words and w.text in RESERVED and self.t[s:end] == w.text:
                if w.text == "esac":
                    self.case_depth = max(0, self.case_depth - 1)
                elif w.text == "{":
                    self.groups.append(len(self.run.out))
                elif w.text == "}" and self.groups:
                    self.closed = self.run.out[self.groups.pop() :]
                start = self.i
                continue
            if not words and w.text in ("case", "for", "select", "function") and self._is_plain(s):
                header = self.skip_header(w.text, stop)
                if w.text == "for":
                    self.loop(header)
                start = self.i
                continue
            if end < n and t[end] == "(" and w.text.endswith("=") and assignment(w):
                w.items = self.lex_array()
                end = self.i
            words.append(w)
            starts.append(s)
            if len(words) == 1 and t[self.i : self.i + 3].lstrip(" ").startswith("()"):
                # a function definition "name() body": the body's commands are what runs
                self.i = t.index("()", self.i) + 2
                self.define(words[0].text, self.i)
                words, starts = [], []
                start = self.i
        if writes and (only_redirects or not words):
            # "> f" alone, or "(…) > f": no command word, the file is truncated all the same. (A
            # function definition after the redirection, "> f g()", moved start past its end.)
            cmd = self.run.redirected((self.root(min(start, end)), self.root(end)), writes)
            return None if only_redirects else cmd
        if only_redirects or (not words and not heredocs):
            return None
        if words:
            start = starts[0]
        span = (self.root(start), self.root(end)) if words else (self.root(start), self.root(start))
        cmd = self.run.simple(
            words, span, self.incomplete, writes, appends, reads, herestrings, bool(heredocs)
        )
        for delim, strip, quoted in heredocs:
            self.pending.append((cmd, delim, strip, quoted))
        return cmd

    def lex_array(self) -> list[Word]:
        """The elements of ``a=(x "y z" $v)`` (at its ``(``): words, newlines and comments
        between them allowed."""
        self.i += 1
        items: list[Word] = []
        while True:
            self.skip_blanks_newlines()
            if self.i >= self.n:
                self.incomplete = True
                return items
            c = self.t[self.i]
            if c == ")":
                self.i += 1
                return items
            if c == "#":
                self.skip_comment()
                continue
            w = self.lex_word(")")
            if w is None:
                self.i += 1  # an operator bash would reject here: skip it
            else:
                items.append(w)

    def _is_plain(self, s: int) -> bool:
        """The word at ``s`` was written without quotes or escapes (so it can be a keyword)."""
        return self.t[s] not in "'\"\\$"

    def skip_header(self, keyword: str, stop: str) -> list[Word]:
        """``for x in …;``/``case w in``/``function f``: header words are data, not a command
        (returned, for a loop to read)."""
        if keyword == "case":
            self.case_depth += 1
        name = None
        header: list[Word] = []
        while True:
            self.skip_blanks()
            if self.i >= self.n or self.t[self.i] in ";&|()\n" or (stop and self.t[self.i] in stop):
                return header
            s = self.i
            w = self.lex_word(stop)
            if w is None:
                return header
            header.append(w)
            if keyword in ("for", "select"):
                self.run.forget(w.text)  # the loop variable: each value in turn
            if keyword == "function" and name is None:
                name = w.text
            elif keyword == "function" and w.text == "{":
                self.define(name, s)
            if keyword in ("case", "function") and w.text in ("in", "{"):
                return header
            if keyword == "function" and self.t.startswith("()", self.i):
                self.i += 2
                self.define(name, self.i)
                return header

    def loop(self, header: list[Word]) -> None:
        """``for v in a b c; do BODY; done`` (at the end of its header; ``for v; do`` is ``for v
        in "$@"``): the run reads BODY
        once more for each value after the first, when the body's end is found, and not at all
        when the line shows it has no value (``set --; for d; do``, ``for x in $EMPTY``)."""
        if len(header) == 1 and header[0].text.isidentifier():
            # for v; do …: for v in "$@"
            header = [header[0], header[0], Word("$@", None, False, [], marks=[(0, 2, True)])]
        elif len(header) < 2 or header[1].text != "in" or not header[0].text.isidentifier():
            return
        found = _loop_body(self.t, self.i)
        body = None if found is None else (self.t[found[0] : found[1]], self.roots(*found))
        if not self.run.loop(header[0].text, header[2:], body) and found is not None:
            self.i = found[1]  # no value: bash never runs the body (read on from its done)

    def define(self, name: str | None, start: int) -> None:
        """Function ``name``'s body starts at ``start`` of the text: the run keeps its text."""
        if name:
            end = _body_end(self.t, start)
            self.run.define(name, self.t[start:end], self.root_span(start, end))

    # -- here-documents ----------------------------------------------------------------------------

    def read_heredocs(self) -> None:
        """The bodies of the pending here-documents (at the start of the line after their
        command), each handed to the run."""
        pending, self.pending = self.pending, []
        for cmd, delim, strip, quoted in pending:
            body_start = self.i
            body_end = self.n
            pos = self.i
            while pos <= self.n:
                nl = self.t.find("\n", pos)
                line_end = self.n if nl < 0 else nl
                line = self.t[pos:line_end]
                if (line.lstrip("\t") if strip else line) == delim:
                    body_end = pos
                    self.i = line_end + 1 if nl >= 0 else self.n
                    break
                if nl < 0:
                    self.i = self.n
                    break
                pos = nl + 1
            body = self.t[body_start:body_end]
            self.run.here_document(cmd, body, self.roots(body_start, body_end), quoted)

    def skip_blanks_newlines(self) -> None:
        while True:
            self.skip_blanks()
            if self.i < self.n and self.t[self.i] == "\n":
                self.i += 1
                self.read_heredocs()
            else:
                return


def assignment(w: Word) -> tuple[str, str] | None:
    """The variable and value text of an assignment word (``x=1``, ``a[2]=y``, ``x+=z``), or
    None when the word is not one."""
    eq = w.text.find("=")
    if eq <= 0:
        return None
    name = w.text[:eq].rstrip("+")
    if "[" in name:
        name = name[: name.index("[")]
    if not name.isidentifier() or not name.isascii():
        return None
    return name, w.text[eq + 1 :]


def _loop_body(t: str, i: int) -> tuple[int, int] | None:
    """The ``[start, end)`` of a loop body in ``t``: after the ``do`` that follows ``i`` (the
    end of the loop's header), up to its ``done`` (nested loops counted; a keyword only where a
    command starts, quotes and comments skipped); None when it is not there."""
    n = len(t)
    depth = 0
    start = None
    command_start = True
    while i < n:
        c = t[i]
        if c in " \t":
            i += 1
            continue
        if c in ";\n&|(){}":
            command_start = True
            i += 1
            continue
        if c == "#" and command_start:
            while i < n and t[i] != "\n":
                i += 1
            continue
        j = i
        while j < n and t[j] not in " \t;\n&|(){}":
            if t[j] == "\\":
                j += 2
            elif t[j] in "'\"":
                end = t.find(t[j], j + 1)
                j = n if end < 0 else end + 1
            else:
                j += 1
        word = t[i:j]
        if command_start and word in ("do", "done"):
            if word == "do":
                depth += 1
                if start is None:
                    start = j
            else:
                depth -= 1
                if depth == 0 and start is not None:
                    return start, i
            command_start = True  # what follows do is a command
        else:
            command_start = word in ("then", "else", "elif", "if", "while", "until", "!", "time")
        if start is None and depth == 0 and word not in ("do",):
            return None  # the header is followed by something other than do
        i = j
    return None


def _body_end(t: str, start: int) -> int:
    """The end of a function body ``{ … }`` or ``( … )`` starting at ``start`` (blanks first):
    its closing brace at the same level, quotes and escapes skipped; the end of ``t`` if none."""
    i, n = start, len(t)
    while i < n and t[i] in " \t\n":
        i += 1
    if i >= n or t[i] not in "{(":
        return n
    return matching_close(t, i)


def _truncates(op: str, target: str) -> bool:
    """Whether redirection ``op`` to ``target`` empties a file (``>&2`` and ``>&-`` only
    duplicate or close a descriptor; appends and reads keep the file)."""
    if op == ">&":
        return not (target.isdigit() or target == "-")
    return op in (">", ">|", "&>")
