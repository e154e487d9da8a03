"""Shell analysis: which simple commands a command line would run, without running anything.

A hand-written lexer and parser for the POSIX/bash syntax agents emit. It walks the original text
once, keeping for every unquoted character its offset in that text, so that callers get spans
into the original (``shell.without_flags`` edits the text byte for byte). Nested scripts
(``bash -c``, ``eval``, here-documents fed to a shell, ``ssh host cmd``) are parsed from the
unquoted word with the same offsets, to a bounded depth. Nothing is ever executed.
"""

from __future__ import annotations

import os
import stat

from hookgate.lang.errors import LimitError
from hookgate.shell.expansion import (
    UNKNOWN_FILE,
    UNKNOWN_GLOB,
    UNKNOWN_OUTPUT,
    UNKNOWN_VARIABLE,
    Expander,
    Substitutions,
    Value,
    backslash_escapes,
    base64_decode,
    hex_decode,
    is_unknown,
    known_substitution,
    pathname_matches,
    printf_output,
)
from hookgate.shell.launchers import TABLES
from hookgate.shell.words import (
    Command,
    Word,
    argv_has_option,
    argv_operands,
    command_name,
    join_path,
    matching_close,
    normalize_option,
    normalize_path,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Bounds of one analysis. Past any of them the analysis stops with a LimitError, which the
# engine answers like the oversize guard (ask, or deny), never by the failure policy: the agent
# writes the line and could otherwise pick the bound that turns every guard off. None is
# analysed in part: a dangerous command could hide in the unread rest.
MAX_DEPTH = 6  # nested scripts: bash -c inside eval inside ssh …


MAX_NEST = 40  # $( ( { and wrapper nesting inside one script


# The longest command line analysed, in characters (the oversize guard asks about longer ones).
MAX_COMMAND_CHARS = 64 * 1024


# Characters parsed in all, nested scripts included (a script the line writes and runs, or
# printed and evaluated, is parsed again where it runs): analysis time stays linear in the line.
MAX_ANALYSED_CHARS = 4 * MAX_COMMAND_CHARS


# Directory entries read in all matching file name patterns (/bin/r?, .??*): past it a pattern
# is an unknown word (the guards judge it as anything), not a LimitError (ls */* is everyday).
MAX_GLOB_ENTRIES = 4096


# Simple commands read in all (nested and re-read ones included): every guard looks at each, so
# the pack's time grows with them. Far more than agents write in one call: past it is padding.
MAX_COMMANDS = 512


# Leading components of a path looked up among the paths the line moved or linked (mv .git x;
# rm -rf x/…): deeper prefixes are not followed, so a word costs time linear in its length.
MAX_LINK_DEPTH = 64


# Values of a for loop the body is read with, one reading each (for d in build dist; do rm -rf
# $d; done); a loop over more, or over values the line does not show, leaves its variable unknown.
MAX_LOOP_VALUES = 16


SHELLS = frozenset(TABLES["shells"])


RESERVED = frozenset({"{", "}", "!", "if", "then", "elif", "else", "fi", "do", "done", "while"})


RESERVED |= {"until", "esac", "coproc", "in"}


# Characters that end a run of plain characters in a word.
_SPECIAL = frozenset(" \t\r\n;&|()<>\\'\"$`")


# Those of them that end a word (< and > may start a process substitution <(…) inside one).
_WORD_END = frozenset(" \t\r\n;&|()")


class _Budget:
    """What is left of one analysis's bounds, shared by the parsers of its nested scripts, and
    the known-safe command substitutions it reads with (``known_substitutions``)."""

    __slots__ = ("chars", "commands", "expanded", "substitutions", "root_dir", "files", "earlier")

    def __init__(
        self,
        substitutions: Substitutions | None = None,
        root_dir: str | None = None,
        earlier: tuple[str, ...] = (),
    ) -> None:
        self.chars = MAX_ANALYSED_CHARS
        self.commands = MAX_COMMANDS
        self.expanded = MAX_ANALYSED_CHARS
        self.substitutions = substitutions
        # the payload's directory, when patterns are matched against the disk; and how many
        # directory entries that may still read (None: patterns are not matched)
        self.root_dir = root_dir
        self.files: list[int] | None = None if root_dir is None else [MAX_GLOB_ENTRIES]
        # absolute paths of files earlier calls of the session wrote: run, they run their text
        self.earlier = earlier

    def expand(self, n: int) -> None:
        """Count ``n`` characters made by expansions (a variable used many times is copied
        each time): the analysis stays linear in the line."""
        self.expanded -= n
        if self.expanded < 0:
            raise LimitError(
                "analysis-size",
                f"shell analysis stopped: the line's expansions make more than "
                f"{MAX_ANALYSED_CHARS} characters",
            )

    def command(self) -> None:
        self.commands -= 1
        if self.commands < 0:
            raise LimitError(
                "analysis-size",
                f"shell analysis stopped: the command line runs more than {MAX_COMMANDS} simple "
                f"commands",
            )

    def read(self, n: int) -> None:
        self.chars -= n
        if self.chars < 0:
            raise LimitError(
                "analysis-size",
                f"shell analysis stopped: the command line's nested scripts come to more than "
                f"{MAX_ANALYSED_CHARS} characters to read",
            )


def _too_deep(what: str, bound: int) -> LimitError:
    return LimitError("nesting", f"shell analysis stopped: {what} nested more than {bound} deep")


class _Parser:
    """Parses one script: the root text or a nested one (with offsets into the root)."""

    def __init__(
        self,
        text: str,
        offs: list[int] | None,
        depth: int,
        out: list[Command],
        cwd: str | None,
        via: list[str],
        budget: _Budget,
    ) -> None:
        budget.read(len(text))
        self.budget = budget
        self.t = text
        self.n = len(text)
        self.offs = offs  # root offset of each character; None means identity
        self.i = 0
        self.depth = depth
        self.out = out
        self.cwd = cwd
        self.via = via
        self.nest = 0
        self.pending: list[tuple[Command | None, str, bool, bool, list[Command]]] = []
        self.incomplete = False
        self.case_depth = 0
        self.reparsed = False  # this parser reads the rest of a line after a lone quote
        # NAME=value statements seen so far (G=git; $G push), arrays, and the positional
        # parameters ("@", "0") where the line shows them (bash -c '…' a b, set -- a b)
        self.vars: dict[str, Value] = {}
        self.subs: dict[str, list[Command]] = {}  # each $(…) as written → the commands it runs
        self.expander = Expander(self.vars, self.substitution, budget.expand)
        self.piped_from: Command | None = None  # the command before "|" of the one parsed
        self.stdin_next: str | None = None  # the here-string of the command being emitted
        # alias name → its text, from the alias command that defines it on. bash -c expands them
        # only after shopt -s expand_aliases, from the next line on; but eval (how some hosts run
        # a line) expands them command by command, and a host's shell may enable them: read as
        # expanded whenever the line defined them earlier
        self.aliases: dict[str, str] = {}
        # functions the line defined so far (sourced files included): name → body text
        self.functions: dict[str, str] = {}
        self.namerefs: dict[str, str] = {}  # declare -n r=x: r → x
        # Scripts the line writes (cat > f <<EOF, echo … > f) by path, for a later bash f or ./f.
        # Each is a list of parts (appends add one): a line of many appends is not copied each time.
        self.scripts: dict[str, list[str]] = {}
        # What git commands of the line did so far (branches switched, configuration written):
        # repository state, so subshells share it too. A ``shell.git.LineState`` made at the
        # line's first git command (``line_git``): most lines run none, and importing git.py
        # would cost their hook more than their analysis.
        self.git: Any = None
        self.git_owner = self  # the parser of the whole line, which holds it
        # Effects of earlier commands on the paths of later ones. Paths the line moved or linked
        # (mv .git x, ln -s ~ h) by their new name: (the original, whether it is a symlink).
        # File system state, so shared with nested scripts, like scripts and branches.
        self.links: dict[str, tuple[str, bool]] = {}
        # Inside a container (docker run -v SRC:DST): (DST, SRC) pairs, longest DST first; None
        # on the host (also in a container whose mounts the line does not show: docker exec).
        self.mounts: list[tuple[str, str]] | None = None
        self.dirs: list[str | None] = []  # pushd's directory stack
        self.oldpwd: str | None | bool = False  # cd -; False: not set yet
        # The command a wrapper finally runs (sudo bash: bash), by the wrapper's id: a shell
        # reading its script on stdin may be wrapped (echo 'rm -rf ~' | sudo bash).
        self.runs: dict[int, Command] = {}

    # -- offsets -----------------------------------------------------------------------------

    def root(self, i: int) -> int:
        if self.offs is None:
            return i
        if not self.offs:
            return 0
        return self.offs[min(i, len(self.offs) - 1)] + (1 if i >= len(self.offs) else 0)

    def roots(self, s: int, e: int) -> list[int]:
        """``[self.root(j) for j in range(s, e)]`` for ``s <= e <= n``, in one slice."""
        if self.offs is None:
            return list(range(s, e))
        return self.offs[s:e]

    def root_span(self, s: int, e: int) -> tuple[int, int] | None:
        if self.offs is None:
            return (s, e)
        if s >= e:
            return None
        rs = self.offs[s]
        # contiguous only if every character maps to the next one (escapes leave gaps)
        if self.offs[s:e] != list(range(rs, rs + e - s)):
            return None
        return (rs, rs + e - s)

    # -- driver --------------------------------------------------------------------------------

    def parse(self) -> None:
        first = len(self.out)
        self.parse_list("")
        while self.i < self.n:  # a stray ")" at top level: skip it and go on
            self.i += 1
            self.parse_list("")
        if self.pending:  # here-document without a newline after its command: body is empty
            self.read_heredocs()
        if self.incomplete:
            for c in self.out[first:]:
                c.incomplete = True
            if not self.reparsed:
                self.reparse_after_quote(first)

    def reparse_after_quote(self, first: int) -> None:
        """Unbalanced quotes: also read the text after the last lone quote as commands.

        The shell would reject the line, but the agent may fix the quote and run it: judge
        what it would most likely run too, rather than skip it silently.
        """
        seen = {(c.name, c.span) for c in self.out[first:]}
        for q in "'\"`":
            if self.t.count(q) % 2 == 0 or self.depth + 1 > MAX_DEPTH:
                continue
            last = self.t.rfind(q)
            offs = self.roots(last + 1, self.n)
            extra: list[Command] = []
            sub = _Parser(
                self.t[last + 1 :], offs, self.depth + 1, extra, self.cwd, self.via, self.budget
            )
            sub.reparsed = True
            sub.parse()
            for c in extra:
                if (c.name, c.span) not in seen:
                    c.incomplete = True
                    self.out.append(c)

    def enter(self) -> None:
        self.nest += 1
        if self.nest > MAX_NEST:
            raise _too_deep("subshells, substitutions, groups and wrappers", MAX_NEST)

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
        cmds: list[Command | None] = []
        while True:
            self.piped_from = cmds[-1] if cmds else None
            cmds.append(self.parse_command(stop))
            self.piped_from = None
            self.skip_blanks()
            if self.i < self.n and self.t[self.i] == "|" and self.t[self.i : self.i + 2] != "||":
                self.i += 2 if self.t[self.i : self.i + 2] == "|&" else 1
                self.skip_blanks_newlines()
                continue
            break
        for prev, cmd in zip(cmds, cmds[1:], strict=False):
            if cmd is not None and prev is not None:
                cmd.piped = prev
                self.wrote_output(cmd, prev)
                reader = self.runs.get(id(cmd), cmd)
                if _reads_script_from_stdin(reader):
                    self.feed_shell(prev, reader)
        last = cmds[-1]
        if len(cmds) == 1 and last is not None and last.name in ("cd", "pushd", "popd"):
            self.change_dir(last)

    def change_dir(self, cmd: Command) -> None:
        """The directory ``cd``, ``cd -``, ``pushd`` and ``popd`` move later commands to (and
        ``$OLDPWD``); a ``cd`` bash would refuse (``popd`` of an empty stack) changes nothing."""
        args = [w.text for w in cmd.words[1:] if not (w.text[:1] == "-" and len(w.text) > 1)]
        old = self.cwd
        if cmd.name == "popd":
            if not self.dirs:
                return
            if args and args[0][:1] in "+-":  # popd +N drops an entry, the directory stays
                self.dirs.pop(0 if args[0][:1] == "+" else -1)
                return
            self.cwd = self.dirs.pop()
        elif cmd.name == "pushd":
            if not args or args[0][:1] in "+-":  # swap or rotate the stack
                if not self.dirs:
                    return
                self.cwd, self.dirs[-1] = self.dirs[-1], self.cwd
            else:
                self.dirs.append(old)
                self.cwd = join_path(old, args[0])
        elif args[:1] == ["-"]:
            if self.oldpwd is False:
                return  # OLDPWD not set: cd - fails
            self.cwd = self.oldpwd  # type: ignore[assignment]
        else:
            self.cwd = _cd_target(cmd, old)
        self.oldpwd = old
        if old is None:
            self.vars.pop("OLDPWD", None)  # the payload's directory: not known in the line
        else:
            self.vars["OLDPWD"] = Value([old])

    def feed_shell(self, producer: Command, shell: Command) -> None:
        """``echo 'cmd' | sh`` and ``cat <<EOF | bash``: the producer's text is a script; so is
        what a pipeline the line shows prints (``echo … | base64 -d | sh``, ``printf '%s' …``)."""
        printed = _printed_words(producer)
        if printed and shell.name in TABLES["makes"]:
            makefile = " ".join(_unescape(w).text for w in printed)
            self.nested_printed(_make_recipes(makefile), shell, shell.name)
        elif printed and (producer.name == "echo" or _plain_format(printed)):
            # printed as written: its words keep their offsets (a rewrite can edit them)
            self.nested_words([_unescape(w) for w in printed], shell, shell.name)
        else:
            output = self.output(producer)
            if output:
                self.nested_printed(output, shell, shell.name)
        for p in self.pending:
            if p[0] is producer:
                p[4].append(shell)

    def output(self, cmd: Command) -> str | None:
        """What ``cmd`` prints when the line shows it: ``echo``, ``printf``, ``cat`` of files the
        line wrote, and ``cat``, ``tee``, ``base64 -d``, ``xxd -r -p``, ``rev`` or a text filter
        (``filters``: ``tr``, ``sed s///``, ``grep``, ``head``, …) of what it reads (a pipeline, a here-document or
        here-string); None otherwise."""
        chain = [cmd]
        while chain[-1].piped is not None and len(chain) <= MAX_NEST:
            chain.append(chain[-1].piped)  # type: ignore[arg-type]
        text: str | None = None
        for c in reversed(chain):
            stdin = text if c.piped is not None else c.stdin
            text = self.catted(c)
            if text is None:
                text = _command_output(c, stdin, self.budget.expand)
        return text

    def catted(self, cmd: Command) -> str | None:
        """What ``cat FILE…`` prints when the line wrote every FILE (``cat x.sh | sh``)."""
        if cmd.name != "cat" or any(w.kind is not None for w in cmd.words):
            return None
        files = argv_operands([w.text for w in cmd.words])
        texts = [self.written(f, cmd.cwd) for f in files]
        if not texts or None in texts or "-" in files:
            return None
        return "\n".join(texts)  # type: ignore[arg-type]

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
        self.enter()
        saved = self.cwd, list(self.dirs), self.oldpwd
        self.parse_list(close)
        self.cwd, self.dirs, self.oldpwd = saved
        if self.i < self.n and self.t[self.i] == close:
            self.i += 1
        else:
            self.incomplete = True
        self.nest -= 1

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
        start = self.i
        end = self.i
        while True:
            self.skip_blanks()
            if self.i >= self.n:
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
            redir = self.redirect_op()
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
            if not words and w.span is not None and w.text in RESERVED and self._is_plain(s):
                if w.text == "esac":
                    self.case_depth = max(0, self.case_depth - 1)
                start = self.i
                continue
            if not words and w.text in ("case", "for", "select", "function") and self._is_plain(s):
                header = self.skip_header(w.text, stop)
                if w.text == "for":
                    self.loop(header)
                start = self.i
                continue
            if self.i < self.n and t[self.i] == "(" and w.text.endswith("=") and _assignment(w):
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
        if self.links or self.mounts is not None:
            writes = [self.host_path(p) for p in writes]
            appends = [self.host_path(p) for p in appends]
        if writes and (only_redirects or not words):
            # "> f" alone, or "(…) > f": no command word, the file is truncated all the same. (A
            # function definition after the redirection, "> f g()", moved start past its end.)
            span = (self.root(min(start, end)), self.root(end))
            cmd = Command("", [], {}, span, self.cwd, list(self.via))
            cmd.writes = writes
            self.out.append(cmd)
            return None if only_redirects else cmd
        if only_redirects or (not words and not heredocs):
            return None
        if words:
            start = starts[0]
        span = (self.root(start), self.root(end)) if words else (self.root(start), self.root(start))
        # what the command reads on stdin when the line shows it: a here-string, or a file the
        # line wrote (bash < x.sh); also xargs's input (xargs <<< "…")
        fed = self.written(reads[-1], self.cwd) if reads and not heredocs else None
        stdin = herestrings[-1].text if herestrings else fed
        self.stdin_next = stdin
        cmd = self.emit(words, span)
        self.stdin_next = None
        if cmd is not None:
            cmd.writes = writes
            cmd.appends = appends
        for delim, strip, quoted in heredocs:
            reader = None if cmd is None else self.runs.get(id(cmd), cmd)
            feeds = [reader] if reader is not None and _reads_script_from_stdin(reader) else []
            self.pending.append((cmd, delim, strip, quoted, feeds))
        if cmd is not None and stdin is not None:
            cmd.stdin = stdin
        if cmd is not None:
            self.wrote_output(cmd)
        if cmd is not None and herestrings:
            if _reads_script_from_stdin(cmd):
                self.nested_words(herestrings[-1:], cmd, cmd.name)
        elif cmd is not None and fed is not None:
            reader = self.runs.get(id(cmd), cmd)
            if _reads_script_from_stdin(reader):
                self.nested_printed(fed, reader, reader.name)
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
                self.vars.pop(w.text, None)  # the loop variable: each value in turn
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
        """``for v in a b c; do BODY; done``: BODY is read here with ``v`` the first value, and
        once more for each other value (with the same spans: it is the same text), when the
        line shows every value and the body's end is found; else ``v`` stays unknown."""
        if len(header) < 3 or header[1].text != "in" or not header[0].text.isidentifier():
            return
        values = self.expand_words(header[2:])
        body = _loop_body(self.t, self.i)
        if body is None or not 0 < len(values) <= MAX_LOOP_VALUES:
            return
        if any(v.kind is not None for v in values):
            return
        name = header[0].text
        start, end = body
        for value in values[1:]:
            self.enter()
            try:
                self.nested(
                    self.t[start:end], self.roots(start, end), self.via, bound={name: value.text}
                )
            finally:
                self.nest -= 1
        self.vars[name] = Value([values[0].text])

    # -- emitting and unwrapping -----------------------------------------------------------------

    def emit(self, words: list[Word], span: tuple[int, int]) -> Command | None:
        env: dict[str, str] = {}
        values: dict[str, Value] = {}
        k = 0
        while k < len(words) and _assignment(words[k]) is not None:
            name, value = self.assigned(words[k])
            env[name] = value.text
            values[name] = value
            k += 1
        if k == len(words):
            self.vars.update(values)
            self.forget_namerefs(values)
            cmd = Command("", [], env, span, self.cwd, list(self.via), self.incomplete)
            self.out.append(cmd)
            return cmd
        return self.analyse(words[k:], env, list(self.via), span)

    def assigned(self, w: Word) -> tuple[str, Value]:
        """The variable and value an assignment word gives (``x=$y``, ``a=(p q)``, ``a[1]=p``,
        ``x+=y``, ``a+=(r)``), expanded as bash expands it (no splitting but in ``(…)``)."""
        name, _ = _assignment(w)  # type: ignore[misc]
        eq = w.text.find("=")
        if w.items is not None:
            made = [x for item in w.items for x in self.expander.word(item)]
            unknown = [x.kind for x in made if x.kind is not None]
            value = Value([x.text for x in made], unknown[0] if unknown else None)
        else:
            marks = [(a - eq - 1, b - eq - 1, True) for a, b, _ in w.marks or () if a > eq]
            value = self.expander.assigned(w.text[eq + 1 :], marks)
        old = self.vars.get(name)
        bracket = w.text.find("[", 0, eq)
        if bracket > 0:  # a[k]=v: one element of an array
            index = w.text[bracket + 1 : w.text.find("]", bracket)]
            if old is None or not index.isdigit() or int(index) > len(old.items):
                return name, Value([w.text], UNKNOWN_VARIABLE)
            items = list(old.items)
            items[int(index) : int(index) + 1] = [value.text]
            return name, Value(items, old.kind or value.kind)
        if w.text[eq - 1] == "+":  # x+=y, a+=(z)
            if old is None:
                return name, Value([w.text], UNKNOWN_VARIABLE)
            if w.items is not None:
                return name, Value(old.items + value.items, old.kind or value.kind)
            first = (old.items[0] if old.items else "") + value.text
            return name, Value([first, *old.items[1:]], old.kind or value.kind)
        return name, value

    def expand_words(self, words: list[Word]) -> list[Word]:
        """What the shell makes of each word (``hookgate.shell.expansion``): brace expansion,
        variables and arrays set earlier in the line, parameter operators, command
        substitutions whose output is known (``$(echo -f)``, ``$(which git)``, the known-safe
        table), words joined by ``$IFS`` (``git${IFS}push``), split as bash splits them.

        A command word is always split, even quoted (``"$(which git)" push``; at worst a command
        is seen that the shell would not find). What the line does not show stays as written,
        with its kind. The new words have no span (nothing in the original text to edit).
        """
        out: list[Word] = []
        for k, word in enumerate(words):
            if k == 0 and word.marks:
                word.marks = [(a, b, False) for a, b, _ in word.marks]
            made = self.expander.word(word)
            # bash matches file names in the words an unquoted expansion makes too
            # (x='/bin/r?'; $x -rf ~ runs /bin/rm)
            unquoted = word.marks is not None and any(not q for _a, _b, q in word.marks)
            if (word.glob or unquoted) and self.budget.files is not None:
                made = [m for w in made for m in self.pathnames(w)]
            out += made
        return out

    def pathnames(self, word: Word) -> list[Word]:
        """The file names an unquoted pattern (``/bin/r?``, ``.??*``) matches where the
        command runs, read from the disk (bounded); the word itself when nothing matches (as
        bash leaves it), an unknown word when the bound stops the reading."""
        text = word.text
        if word.kind is not None or not ("*" in text or "?" in text or "[" in text):
            return [word]
        base = self.budget.root_dir
        if not text.startswith("/"):
            if base is None or (self.cwd is not None and self.cwd.startswith(("~", "$"))):
                return [word]
            base = join_path(base, self.cwd) if self.cwd is not None else base
        found = pathname_matches(text, base, self.budget.files)
        if found is None:
            word.kind = UNKNOWN_GLOB
            return [word]
        return [Word(f, None, True, []) for f in found] or [word]

    def substitution(self, raw: str) -> tuple[str | None, str | None]:
        """What the command substitution ``raw`` (as written) prints and its kind: known
        output (``echo``/``printf``, ``which git``), a known-safe command's (the
        ``known_substitutions`` table: its text, or None to keep ``raw``, and what it yields),
        else None and an unknown kind."""
        inner = raw[2:-1] if raw.startswith("$(") else raw[1:-1]
        found = _lookup_command(inner)
        if found is not None:
            return found, None
        if inner.lstrip().startswith("<"):  # $(< f): the file's text, if the line wrote it
            path = inner.lstrip()[1:].strip()
            text = self.written(path, self.cwd) if path and " " not in path else None
            return (None, UNKNOWN_FILE) if text is None else (text, None)
        cmds = [c for c in self.subs.get(raw, ()) if c.name]
        if cmds and all(b.piped is a for a, b in zip(cmds, cmds[1:], strict=False)):
            kinds = [w.kind for c in cmds for w in c.words if w.kind is not None]
            output = None if kinds else self.output(cmds[-1])
            if output is not None:
                return output, None
        if len(cmds) == 1:
            cmd = cmds[0]
            printed = _printed_words(cmd)
            if printed is not None:
                kinds = [w.kind for w in printed if w.kind is not None]
                return " ".join(_unescape(w).text for w in printed), kinds[0] if kinds else None
            table = self.budget.substitutions
            known = known_substitution(table, [w.text for w in cmd.words]) if table else None
            if known is not None and all(w.kind is None for w in cmd.words):
                return known[1] if known[1] is not None else raw, known[0]
        if any(c.name in _FILE_READERS for c in cmds):
            return None, UNKNOWN_FILE
        return None, UNKNOWN_OUTPUT

    def analyse(
        self,
        words: list[Word],
        env: dict[str, str],
        via: list[str],
        span: tuple[int, int],
        expanded: bool = False,
    ) -> Command:
        # A wrapper's words were expanded with it; only the new command word is read anew
        # (sudo "$(which git)" push: the command word is split, an argument is not).
        written = words
        words = self.expand_words(words[:1]) + words[1:] if expanded else self.expand_words(words)
        if not words:
            return Command("", [], env, span, self.cwd, via, self.incomplete)
        name = command_name(words[0].text)
        if name in _STATE_BUILTINS:
            self.builtin_state(name, written, words)
        elif name == "alias":
            for a in (w.text for w in words[1:]):
                alias, eq, text = a.partition("=")
                if eq and alias and not alias.startswith("-"):
                    self.aliases[alias] = text
        elif self.aliases and words[0].text in self.aliases and written[0].marks is None:
            return self.run_alias(words, env, via, span)
        elif self.functions and words[0].text in self.functions and written[0].marks is None:
            return self.call_function(words, env, via, span)
        inner, own = _unwrap(name, words, self.budget)
        if inner is None and (self.scripts or self.budget.earlier) and "/" in words[0].text:
            inner = ("file", words[0].text)  # ./deploy.sh, written earlier in the line
        own_words = words[:own] if isinstance(own, int) else own
        if self.links or self.mounts is not None:
            # the command's own paths as the host's (a wrapped command's, where it runs)
            own_words = own_words[:1] + [self.host_word(w) for w in own_words[1:]]
        cmd_span = span if not via else (_span_of(own_words) or span)
        cmd = Command(name, own_words, env, cmd_span, self.cwd, via, self.incomplete)
        self.out.append(cmd)
        if name == "git":
            for script in self.line_git().see(cmd, self.scripts, self.vars, self.out):
                self.nested_printed(script, cmd, "git")  # -c core.editor='…', GIT_EDITOR=…
        elif name in ("mv", "ln", "cp", "install"):
            self.moved(cmd)
        if name in _SCRIPT_FILES:
            for path in _script_files(_SCRIPT_FILES[name], own_words, env, self.vars):
                self.run_written(path, cmd, name)
        chdir = _wrapper_chdir(name, own_words)
        if chdir is not None:
            saved, self.cwd = self.cwd, join_path(self.cwd, chdir)
        if inner is not None:
            self.enter()  # wrappers of wrappers (sudo sudo … git) nest like subshells
            if inner[0] == "argv":
                # what the wrapped command's environment gets: the wrapper's own (HUSKY=0 nice
                # git commit) and what env sets (env HUSKY=0 git commit)
                inner_env = {**env, **_wrapper_env(name, own_words)}
                for sub in [inner[1], *inner[2]]:
                    if sub:
                        self.budget.command()  # a wrapped command: another one to judge
                        sub_span = _span_of(sub) or cmd_span
                        ran = self.analyse(sub, inner_env, via + [name], sub_span, expanded=True)
                        self.runs[id(cmd)] = self.runs.get(id(ran), ran)
                fed = self.xargs_fed(name, own_words, inner[1])
                if fed is not None:
                    self.nested_printed(fed, cmd, name)
            elif inner[0] == "printed":
                self.nested_printed(inner[1], cmd, name)
            elif inner[0] == "file":
                self.run_written(inner[1], cmd, name)
            elif inner[0] == "makefile":
                self.run_written(inner[1], cmd, name, _make_recipes)
            elif inner[0] == "scripts":
                for w in inner[1]:
                    self.nested_words([w], cmd, name)
            elif inner[0] == "container":
                self.in_container(inner, cmd, via + [name])
            else:
                script = inner[1][0] if inner[1] else None
                at = next((j for j, w in enumerate(words) if w is script), None)
                args = words[at + 1 :] if name in SHELLS and at is not None else None
                self.nested_words(inner[1], cmd, name, remote=name == "ssh", args=args)
            self.nest -= 1
        if chdir is not None:
            self.cwd = saved
        return cmd

    def define(self, name: str | None, start: int) -> None:
        """Remember function ``name``'s body, which starts at ``start`` of the text."""
        if name:
            self.functions[name] = self.t[start : _body_end(self.t, start)]

    def in_container(self, inner: tuple, cmd: Command, via: list[str]) -> None:
        """Analyse the argv a container runs: its paths under a bind mount are the host's
        (``-v /:/host`` … ``rm -rf /host/etc`` deletes ``/etc``), its other absolute paths are
        the container's own (``container:/etc``: no host path); ``-w`` is its directory."""
        _, argv, mounts, workdir = inner
        saved = self.mounts, self.cwd
        if mounts is not None:
            here = "." if self.cwd is None else self.cwd
            table = [
                (
                    normalize_path(dst),
                    self.host_path(src) if src[:1] == "/" else _host_source(src, here),
                )
                for dst, src in mounts
            ]
            self.mounts = sorted(table, key=lambda m: -len(m[0]))
            self.cwd = self.host_path(normalize_path("/" + (workdir or "/")))
        try:
            self.budget.command()
            self.analyse(argv, {}, via, _span_of(argv) or cmd.span, expanded=True)
        finally:
            self.mounts, self.cwd = saved

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

    def share_state(self, parent: _Parser) -> None:
        """A nested script (bash -c, a substitution, a here-document) runs on the same file
        system, repositories and container as ``parent``."""
        self.git_owner = parent.git_owner
        self.links = parent.links
        self.mounts = parent.mounts

    def line_git(self) -> Any:
        """The line's ``shell.git.LineState``, shared by its nested scripts."""
        owner = self.git_owner
        if owner.git is None:
            from hookgate.shell.git import LineState  # git.py builds on this module

            owner.git = LineState()
        return owner.git

    def call_function(
        self, words: list[Word], env: dict[str, str], via: list[str], span: tuple[int, int]
    ) -> Command:
        """A call of a function the line defined: its body (already read where it was
        defined) read again with the call's words as ``$1``… when it uses parameters (``f() {
        git push "$@"; }; f -f``). Not within its own body: recursion adds nothing to see."""
        name = words[0].text
        cmd = Command(command_name(name), words, env, span, self.cwd, via)
        self.out.append(cmd)
        body = self.functions[name]
        if "$" in body:
            zero = self.vars.get("0")
            arg0 = Word(zero.text if zero is not None else name, None, True, [])
            saved = self.functions
            self.functions = {k: v for k, v in saved.items() if k != name}
            self.enter()
            try:
                self.nested_printed(body, cmd, "function", args=[arg0, *words[1:]])
            finally:
                self.nest -= 1
                self.functions = saved
        return cmd

    def run_alias(
        self, words: list[Word], env: dict[str, str], via: list[str], span: tuple[int, int]
    ) -> Command:
        """A command whose word is an alias bash expands here: the alias's text, then the
        other words, read as a script (nothing of it can be edited in place)."""
        text = self.aliases[words[0].text]
        cmd = Command(command_name(words[0].text), words, env, span, self.cwd, via)
        self.out.append(cmd)
        script = text + " " + " ".join(_single_quoted(w.text) for w in words[1:])
        self.enter()
        self.nested_printed(script, cmd, "alias")
        self.nest -= 1
        return cmd

    def forget_namerefs(self, assigned: dict) -> None:
        """Assigned variables that are namerefs (and what they name) become unknown."""
        for var in assigned:
            if var in self.namerefs:
                self.vars.pop(var, None)
                self.vars.pop(self.namerefs[var], None)

    def builtin_state(self, name: str, written: list[Word], words: list[Word]) -> None:
        """What ``export x=…``, ``set -- a b``, ``shift``, ``unset x`` and ``read x`` do to the
        variables and positional parameters later words see."""
        if name in ("export", "declare", "typeset", "readonly", "local"):
            # declare -n r=x: r names x (reads and writes go to x), which this model does not
            # follow: both become unknown, and so does x whenever r is assigned later
            nameref = any(w.text[:1] == "-" and "n" in w.text[1:] for w in words[1:])
            for w in written[1:]:
                if _assignment(w) is not None:
                    var, value = self.assigned(w)
                    self.vars[var] = value
                    if nameref:
                        self.namerefs[var] = value.text
                    self.forget_namerefs({var: value})
        elif name == "set":
            args = words[1:]
            texts = [w.text for w in args]
            if "--" in texts:
                args = args[texts.index("--") + 1 :]
            elif not texts or texts[0].startswith(("-", "+")):
                return
            kinds = [w.kind for w in args if w.kind is not None]
            self.vars["@"] = Value([w.text for w in args], kinds[0] if kinds else None)
        elif name == "shift":
            pos = self.vars.get("@")
            n = words[1].text if len(words) > 1 else "1"
            if pos is not None and n.isdigit():
                self.vars["@"] = Value(pos.items[int(n) :], pos.kind)
            else:
                self.vars.pop("@", None)
        elif name == "unset":
            for w in words[1:]:
                if w.text.isidentifier():
                    self.vars[w.text] = Value([""])
        else:  # read, mapfile, readarray, getopts: values the line does not show
            for w in words[1:]:
                if w.text.isidentifier():
                    self.vars.pop(w.text, None)

    def xargs_fed(self, name: str, own: list[Word], command: list[Word]) -> str | None:
        """The script of the command ``xargs`` runs with what ``echo``/``printf`` before it in
        the pipeline prints (or a file the line wrote, ``-a f``): in place of the replace string
        (``echo 'git push -f' | xargs -I{} sh -c '{}'``), else as more arguments (``echo -f |
        xargs git push``)."""
        if name != "xargs" or not command:
            return None
        arg_file = _xargs_value([w.text for w in own], ("-a", "--arg-file"))
        if arg_file is not None:  # its input is that file (written by the line, if known)
            line = self.written(arg_file, self.cwd)
        elif self.piped_from is not None:
            line = self.output(self.piped_from)
            if line is None:
                printed = _printed_words(self.piped_from)
                line = " ".join(_unescape(w).text for w in printed) if printed else None
        else:
            line = self.stdin_next
        if not line:
            return None
        argv = [w.text for w in own]
        replace = _xargs_replace(own)
        delimiter = _xargs_value(argv, ("-d", "--delimiter"))
        if argv_has_option(argv, "-0") or argv_has_option(argv, "--null"):
            items = [x for x in line.split("\0") if x]
        elif delimiter is not None:
            items = [x for x in line.split(backslash_escapes(delimiter)[0][:1] or "\n") if x]
        elif replace is not None:
            items = [x.strip() for x in line.split("\n") if x.strip()]
        else:
            items = line.split()
        if replace is not None:  # one command per input line, the line in place of R
            runs = [[w.text.replace(replace, item) for w in command] for item in items]
        else:
            size = _xargs_value(argv, ("-n", "--max-args", "-L", "--max-lines"))
            n = int(size) if size is not None and size.isdigit() and int(size) > 0 else 0
            batches = [items[k : k + n] for k in range(0, len(items), n)] if n else [items]
            runs = [[w.text for w in command] + batch for batch in batches]
        self.budget.expand(sum(len(a) for run in runs for a in run))
        return "\n".join(" ".join(_single_quoted(a) for a in run) for run in runs)

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
            offs.extend(_word_offsets(w))
        self.nested("".join(text_parts), offs, owner.via + [via], remote, args)

    def written(self, path: str, cwd: str | None) -> str | None:
        """The text the line wrote at ``path`` (relative to ``cwd``), or that an earlier call
        of the session wrote there (read from the disk now); None otherwise."""
        key = join_path(cwd, path)
        script = self.scripts.get(key)
        if script is None and self.budget.earlier:
            root = self.budget.root_dir
            full = key if key.startswith("/") or root is None else join_path(root, key)
            if full in self.budget.earlier:
                text = _file_text(full)
                if text is not None:
                    script = self.scripts[key] = [text]
        return None if script is None else "\n".join(script)

    def run_written(self, path: str, owner: Command, via: str, read: Any = None) -> None:
        """Parse the script the line wrote at ``path`` (if it did) as run by ``owner``; ``read``
        makes the script of the file's text (a makefile's recipes)."""
        text = self.written(path, self.cwd)
        if text is not None:
            self.nested_printed(read(text) if read else text, owner, via)

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
        into = _input_files(cmd)
        if into is not None:
            fed = cmd.stdin if producer is None else self.output(producer)
            if fed is not None:
                self.wrote(cmd, fed, into)

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
            printed.writes = c.writes
            printed.branch, printed.git_config = c.branch, c.git_config
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
        if self.depth + 1 > MAX_DEPTH:
            raise _too_deep("scripts run by shells, eval and wrappers", MAX_DEPTH)
        cwd = None if remote else self.cwd
        sub = _Parser(text, offs, self.depth + 1, self.out, cwd, via, self.budget)
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
        sub.share_state(self)
        sub.parse()
        if via[-1:] in (["source"], ["."]):  # run in this shell: what it defines stays
            self.functions.update(sub.functions)
            self.vars.update(sub.vars)

    # -- here-documents ----------------------------------------------------------------------------

    def read_heredocs(self) -> None:
        pending, self.pending = self.pending, []
        for cmd, delim, strip, quoted, feeds in pending:
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
            body_offs = self.roots(body_start, body_end)
            if cmd is not None:
                cmd.stdin = body
                self.wrote_output(cmd)
            if feeds:
                for shell in feeds:
                    if shell.name in TABLES["makes"]:
                        self.nested_printed(_make_recipes(body), shell, shell.name)
                    else:
                        self.nested(body, body_offs, shell.via + [shell.name])
            elif not quoted:
                # an unquoted here-document expands $( ) and `…` in its body
                sub = _Parser(
                    body, body_offs, self.depth, self.out, self.cwd, self.via, self.budget
                )
                sub.share_state(self)
                sub.scan_expansions()

    def scan_expansions(self) -> None:
        while self.i < self.n:
            c = self.t[self.i]
            if c == "\\":
                self.i = min(self.i + 2, self.n)
            elif c in "$`":
                text: list[str] = []
                offs: list[int] = []
                self.lex_dollar_or_backtick(text, offs)
            else:
                self.i += 1

    # -- lexing ----------------------------------------------------------------------------------

    def skip_blanks(self) -> None:
        t = self.t
        while self.i < self.n:
            if t[self.i] in " \t\r":
                self.i += 1
            elif t.startswith("\\\n", self.i):
                self.i += 2
            else:
                return

    def skip_blanks_newlines(self) -> None:
        while True:
            self.skip_blanks()
            if self.i < self.n and self.t[self.i] == "\n":
                self.i += 1
                self.read_heredocs()
            else:
                return

    def skip_comment(self) -> None:
        nl = self.t.find("\n", self.i)
        self.i = self.n if nl < 0 else nl

    def redirect_op(self) -> str | None:
        t, i = self.t, self.i
        j = i
        while j < self.n and t[j].isdigit():
            j += 1
        if j < self.n and t[j] == "{":  # {fd}> form; names are short, so look a little ahead
            k = t.find("}", j, j + 64)
            if 0 < k < self.n - 1 and t[k + 1] in "<>" and t[j + 1 : k].isidentifier():
                j = k + 1
        if j >= self.n or t[j] not in "<>&":
            return None
        for op in ("<<<", "<<-", "<<", "<>", "<&", ">>", ">|", ">&", "&>>", "&>", "<", ">"):
            if t.startswith(op, j):
                if op in ("<", ">") and t.startswith("(", j + 1):
                    return None  # process substitution <( … ): a word
                if op.startswith("&") and j != i:
                    continue
                self.i = j + len(op)
                return op
        return None

    def lex_word(self, stop: str) -> Word | None:
        t = self.t
        s = self.i
        n = self.n
        j = s
        while j < n and t[j] not in _SPECIAL:
            j += 1
        if j > s and (j == n or t[j] in _WORD_END):
            # the common word: plain characters only, read in one step (stop is "" or ")")
            self.i = j
            text = t[s:j]
            word = Word(text, self.root_span(s, j), True, self.roots(s, j), "{" in text)
            word.glob = "*" in text or "?" in text or "[" in text
            return word
        text: list[str] = []
        offs: list[int] = []
        marks: list[tuple[int, int, bool]] = []
        literal = True
        braces = False
        globs = 0  # unquoted *, ?, [ characters
        while self.i < self.n:
            c = t[self.i]
            if c in " \t\r\n;&|" or (c in "()" and not self.procsub_at()) or (stop and c in stop):
                break
            if c in "<>":
                if not self.procsub_at():
                    break
                p = self.i
                self.i += 2
                self.subshell(")")
                a = len(offs)
                for j in range(p, self.i):
                    text.append(t[j])
                    offs.append(self.root(j))
                marks.append((a, len(offs), False))
                literal = False
                continue
            if c == "\\":
                if t.startswith("\\\n", self.i):
                    self.i += 2
                    continue
                if self.i + 1 < self.n:
                    text.append(t[self.i + 1])
                    offs.append(self.root(self.i + 1))
                    self.i += 2
                else:  # a trailing backslash is a literal character
                    text.append(c)
                    offs.append(self.root(self.i))
                    self.i += 1
                continue
            if c == "'":
                end = t.find("'", self.i + 1)
                if end < 0:
                    self.incomplete = True
                    end = self.n
                text.append(t[self.i + 1 : end])
                offs += self.roots(self.i + 1, end)
                self.i = min(end + 1, self.n)
                continue
            if c == '"':
                self.i += 1
                if not self.lex_double(text, offs, marks):
                    literal = False
                continue
            if c == "$" and t.startswith("$'", self.i):
                self.lex_ansi_c(text, offs)
                continue
            if c == "$" and t.startswith('$"', self.i):
                self.i += 2
                self.lex_double(text, offs, marks)
                literal = False
                continue
            if c in "$`":
                a = len(offs)
                if self.lex_dollar_or_backtick(text, offs):
                    marks.append((a, len(offs), False))
                    literal = False
                continue
            j = self.i + 1  # a run of plain characters, taken at once (")" is special)
            while j < self.n and t[j] not in _SPECIAL:
                j += 1
            run = t[self.i : j]
            braces = braces or "{" in run
            globs += run.count("*") + run.count("?") + run.count("[")
            text.append(run)
            offs += self.roots(self.i, j)
            self.i = j
        if self.i == s:
            return None
        span = self.root_span(s, self.i)
        word = Word("".join(text), span, literal, offs, braces, marks or None)
        if globs:  # and none quoted (no pattern to build with quoted parts)
            word.glob = globs == sum(word.text.count(c) for c in "*?[")
        return word

    def procsub_at(self) -> bool:
        t, i = self.t, self.i
        return t[i] in "<>" and t.startswith("(", i + 1)

    def lex_double(
        self, text: list[str], offs: list[int], marks: list[tuple[int, int, bool]] | None = None
    ) -> bool:
        """Inside "…" (opening quote consumed); returns False if it held an expansion (each
        noted in ``marks``)."""
        t = self.t
        literal = True
        while self.i < self.n:
            c = t[self.i]
            if c == '"':
                self.i += 1
                return literal
            if c == "\\" and self.i + 1 < self.n and t[self.i + 1] in '$`"\\\n':
                if t[self.i + 1] != "\n":
                    text.append(t[self.i + 1])
                    offs.append(self.root(self.i + 1))
                self.i += 2
                continue
            if c in "$`":
                a = len(offs)
                if self.lex_dollar_or_backtick(text, offs):
                    literal = False
                    if marks is not None:
                        marks.append((a, len(offs), True))
                continue
            j = self.i + 1  # a run of plain characters, taken at once
            while j < self.n and t[j] not in '"\\$`':
                j += 1
            text.append(t[self.i : j])
            offs += self.roots(self.i, j)
            self.i = j
        self.incomplete = True
        return literal

    def lex_ansi_c(self, text: list[str], offs: list[int]) -> None:
        t = self.t
        self.i += 2
        while self.i < self.n and t[self.i] != "'":
            if t[self.i] == "\\" and self.i + 1 < self.n:
                ch, self.i = _ansi_escape(t, self.i + 1)
            else:
                ch = t[self.i]
                self.i += 1
            text.append(ch)
            # the offset of the escape's last character: an escape is never contiguous text
            offs.append(self.root(self.i - 1))
        if self.i >= self.n:
            self.incomplete = True
        self.i = min(self.i + 1, self.n)

    def lex_dollar_or_backtick(self, text: list[str], offs: list[int]) -> bool:
        """At ``$`` or a backtick: parse substitutions, keep the raw text; True if expansion."""
        t = self.t
        s = self.i
        if t[s] == "`" or (t.startswith("$(", s) and not t.startswith("$((", s)):
            first = len(self.out)
            if t[s] == "`":
                self.backtick()
            else:
                self.i += 2
                self.subshell(")")
            # what it runs, for the value of the word (as written) it is in
            self.subs[t[s : self.i]] = self.out[first:]
        elif t.startswith("$((", s) and _arithmetic_closes(t, s + 3):
            self.i += 3
            self.close_arithmetic()
        elif t.startswith("$(", s):
            first = len(self.out)
            self.i += 2
            self.subshell(")")
            self.subs[t[s : self.i]] = self.out[first:]
        elif t.startswith("${", s):
            self.i += 2
            self.scan_balanced("}")
            self.i = min(self.i + 1, self.n)  # its "}"
        elif s + 1 < self.n and (t[s + 1].isalnum() or t[s + 1] in "_@*#?$!-"):
            self.i += 1
            if t[self.i].isalpha() or t[self.i] == "_":
                while self.i < self.n and (t[self.i].isalnum() or t[self.i] == "_"):
                    self.i += 1
            else:
                self.i += 1
        else:
            text.append("$")
            offs.append(self.root(s))
            self.i += 1
            return False
        text.append(t[s : self.i])
        offs += self.roots(s, min(self.i, self.n))
        return True

    def close_arithmetic(self) -> None:
        """After ``((``/``$((``: skip the expression and its ``))``."""
        self.scan_balanced(")")
        self.i = min(self.i + (2 if self.t.startswith("))", self.i) else 1), self.n)

    def scan_balanced(self, close: str) -> None:
        """Skip to the matching ``close`` (not consumed), parsing substitutions inside."""
        self.enter()
        t = self.t
        opener = "(" if close == ")" else "{"
        level = 0
        sink: list[str] = []
        sink_offs: list[int] = []
        while self.i < self.n:
            c = t[self.i]
            if c == close and level == 0:
                break
            if c == close:
                level -= 1
            elif c == opener:
                level += 1
            if c == "\\":
                self.i = min(self.i + 2, self.n)
            elif c == "'" and close == "}":
                end = t.find("'", self.i + 1)
                self.i = self.n if end < 0 else end + 1
            elif c == '"':
                self.i += 1
                self.lex_double(sink, sink_offs)
            elif c in "$`":
                self.lex_dollar_or_backtick(sink, sink_offs)
            else:
                self.i += 1
        if self.i >= self.n:
            self.incomplete = True
        self.nest -= 1

    def backtick(self) -> None:
        t = self.t
        self.i += 1
        body: list[str] = []
        offs: list[int] = []
        while self.i < self.n and t[self.i] != "`":
            if t[self.i] == "\\" and self.i + 1 < self.n and t[self.i + 1] in "`$\\":
                self.i += 1
            body.append(t[self.i])
            offs.append(self.root(self.i))
            self.i += 1
        if self.i >= self.n:
            self.incomplete = True
        self.i = min(self.i + 1, self.n)
        self.enter()
        sub = _Parser("".join(body), offs, self.depth, self.out, self.cwd, self.via, self.budget)
        sub.share_state(self)
        sub.nest = self.nest
        sub.parse()
        self.nest -= 1


def _arithmetic_closes(t: str, i: int) -> bool:
    """Whether the arithmetic expression starting at ``i`` (after ``((``) ends with ``))``."""
    level = 0
    for j in range(i, len(t)):
        if t[j] == "(":
            level += 1
        elif t[j] == ")":
            if level == 0:
                return t.startswith("))", j)
            level -= 1
    return False


def _word_offsets(w: Word) -> list[int]:
    if len(w.offs) == len(w.text):
        return w.offs
    base = w.span[0] if w.span else 0
    return [base + k for k in range(len(w.text))]


def _span_of(words: list[Word]) -> tuple[int, int] | None:
    first = next((w.span for w in words if w.span is not None), None)
    if first is None:
        return None
    last = next(w.span for w in reversed(words) if w.span is not None)
    return (first[0], last[1])


def _assignment(w: Word) -> tuple[str, str] | None:
    eq = w.text.find("=")
    if eq <= 0:
        return None
    name = w.text[:eq].rstrip("+")
    if "[" in name:
        name = name[: name.index("[")]
    if not name.isidentifier() or not name.isascii():
        return None
    return name, w.text[eq + 1 :]


# Builtins that change what later words expand to (variables, positional parameters).
_STATE_BUILTINS = frozenset(
    "export declare typeset readonly local set shift unset read mapfile readarray getopts".split()
)


# Commands whose output is a file's content: $(cat f) is an unknown file, not a command's text.
_FILE_READERS = frozenset("cat head tail tac less more sed awk cut sort uniq jq yq".split())


def _lookup_command(inner: str) -> str | None:
    """The command ``which git``, ``command -v git`` or ``type -P git`` looks up (``git``)."""
    parts = inner.split()
    if len(parts) >= 2 and (
        parts[0] == "which"
        or (parts[0] == "command" and parts[1] in ("-v", "-V"))
        or (parts[0] == "type" and parts[1] in ("-p", "-P"))
    ):
        return parts[-1]
    return None


def _substitution_output(text: str, budget: _Budget) -> str | None:
    """What ``$(…)``, ``` `…` ``` or ``<(…)`` (the whole of ``text``) prints, when that is
    known without running anything: the path ``which git``, ``command -v git`` or ``type -P
    git`` names (as ``git``), or what a lone ``echo`` or ``printf`` prints. None otherwise."""
    if text.startswith(("$(", "<(")) and text.endswith(")"):
        inner = text[2:-1]
    elif text.startswith("`") and text.endswith("`") and len(text) > 1:
        inner = text[1:-1]
    else:
        return None
    looked_up = _lookup_command(inner)
    if looked_up is not None:
        return looked_up
    found = _analyse(inner, budget)
    printed = _printed_words(found[0]) if len(found) == 1 else None
    return None if printed is None else " ".join(_unescape(w).text for w in printed)


def _printed_words(cmd: Command) -> list[Word] | None:
    """The words ``echo`` or ``printf`` prints (echo's leading options left out; printf's
    format and arguments alike, which over-approximates), or None for another command."""
    words = cmd.words[1:]
    if cmd.name == "echo":
        k = 0
        while k < len(words) and _is_echo_option(words[k].text):
            k += 1
        return words[k:]
    if cmd.name == "printf":
        return words[1:] if words[:1] and words[0].text == "--" else words
    return None


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


def _plain_format(printed: list[Word]) -> bool:
    """A ``printf`` whose format prints itself (no ``%`` conversion, no escapes but ``\\n``)
    and no other argument: its words are what it prints."""
    fmt = printed[0].text if printed else ""
    return len(printed) == 1 and "%" not in fmt and "\\" not in fmt.replace("\\n", "")


def _command_output(cmd: Command, stdin: str | None, charge: Any) -> str | None:
    """What ``cmd`` prints given ``stdin`` (see ``_Parser.output``)."""
    if any(w.kind is not None for w in cmd.words):
        return None
    argv = [w.text for w in cmd.words]
    name = cmd.name
    if name == "echo":
        printed = _printed_words(cmd) or []
        newline = (
            "" if any("n" in w.text for w in cmd.words[1 : len(argv) - len(printed)]) else "\n"
        )
        return " ".join(_unescape(w).text for w in printed) + newline
    if name == "printf":
        return printf_output(argv[1:], charge)
    if stdin is None:
        return None
    operands = argv_operands(argv)
    if name == "cat" and operands in ([], ["-"]) and len(argv) == 1 + len(operands):
        return stdin
    if name == "tee":  # what it reads, to its files and its output alike
        return stdin
    if name == "base64" and any(argv_has_option(argv, f) for f in ("-d", "--decode", "-D")):
        return base64_decode(stdin) if not operands else None
    if (
        name == "xxd"
        and argv_has_option(argv, "-r")
        and (argv_has_option(argv, "-p") or argv_has_option(argv, "-ps") or "-rp" in argv)
    ):
        return hex_decode(stdin) if not operands else None
    if name == "rev" and not operands:
        return "\n".join(line[::-1] for line in stdin.split("\n"))
    from hookgate.shell.filters import filter_output  # only for text the line pipes on

    return filter_output(argv, stdin)


def _xargs_value(argv: list[str], names: tuple[str, ...]) -> str | None:
    """The value of an ``xargs`` option (``-n 1``, ``-n1``, ``--max-args=1``)."""
    for k, a in enumerate(argv[1:], 1):
        for name in names:
            if a == name and k + 1 < len(argv):
                return argv[k + 1]
            if name.startswith("--") and a.startswith(name + "="):
                return a[len(name) + 1 :]
            if not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                return a[len(name) :]
    return None


def _truncates(op: str, target: str) -> bool:
    """Whether redirection ``op`` to ``target`` empties a file (``>&2`` and ``>&-`` only
    duplicate or close a descriptor; appends and reads keep the file)."""
    if op == ">&":
        return not (target.isdigit() or target == "-")
    return op in (">", ">|", "&>")


def _single_quoted(text: str) -> str:
    """``text`` as one shell word (``shlex.quote`` would import ``re`` on the hook's path)."""
    return "'" + text.replace("'", "'\\''") + "'"


def _xargs_replace(own: list[Word]) -> str | None:
    """The replace string of an ``xargs`` command's options (``-I R``, ``-IR``, ``-i``,
    ``--replace[=R]``; ``{}`` by default), or None when it appends its input instead."""
    words = [w.text for w in own[1:]]
    for k, a in enumerate(words):
        if a == "-I" and k + 1 < len(words):
            return words[k + 1]
        if a.startswith("-I") and len(a) > 2:
            return a[2:]
        if a.startswith("-i") or a == "--replace":
            return a[2:] or "{}"
        if a.startswith("--replace="):
            return a.removeprefix("--replace=") or "{}"
    return None


def _is_echo_option(text: str) -> bool:
    return len(text) > 1 and text[0] == "-" and all(c in "neE" for c in text[1:])


def _cd_target(cmd: Command, cwd: str | None) -> str | None:
    args = [w.text for w in cmd.words[1:] if not (w.text.startswith("-") and len(w.text) > 1)]
    if not args:
        return "~"
    if args[0] == "-":
        return cwd
    return join_path(cwd, args[0])


_STDIN_FILES = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))


def _reads_script_from_stdin(cmd: Command) -> bool:
    """A shell with no ``-c`` and no script operand (or ``-s``) runs what it reads on stdin."""
    if cmd.name in ("at", "batch"):
        return not any(w.text.startswith("-f") for w in cmd.words[1:])  # -f FILE: not stdin
    if cmd.name in TABLES["makes"]:
        return _makefile(cmd.words) == "-"  # make -f -: the makefile is on stdin
    if cmd.name in ("sudo", "doas"):  # sudo -s / -i with no command starts a shell (on stdin)
        opts = [w.text for w in cmd.words[1:] if w.text.startswith("-")]
        return any(
            o in ("--shell", "--login")
            or (o[1:2] != "-" and o[1:].isalpha() and ("s" in o or "i" in o))
            for o in opts
        )
    if cmd.name == "su":  # su [user] with no -c starts the user's shell (on stdin)
        return _script_option("su", cmd.words) is None
    if cmd.name in SHELLS or cmd.name in ("source", "."):
        # source /dev/stdin <<< '…', bash /dev/fd/0: the script file is stdin
        operands = [w.text for w in cmd.words[1:] if not w.text.startswith(("-", "+"))]
        if operands[:1] and operands[0] in _STDIN_FILES:
            return True
    if cmd.name not in SHELLS:
        return False
    for w in cmd.words[1:]:
        a = w.text
        if a == "-s" or (a.startswith("-") and not a.startswith("--") and "s" in a[1:]):
            return True
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:]:
            return False
        if not a.startswith(("-", "+")):
            return False
    return True


def _options_end(
    words: list[Word],
    start: int,
    with_value: frozenset[str],
    skip_assignments: bool = False,
) -> int:
    """Index of the first operand after the options of a wrapper (``sudo -u x cmd`` → cmd);
    with ``skip_assignments``, ``NAME=value`` words are the wrapper's too (``env A=1 cmd``)."""
    k = start
    while k < len(words):
        a = normalize_option(words[k].text)
        if a == "--":
            return k + 1
        if skip_assignments and "=" in a and not a.startswith("-"):
            k += 1
            continue
        if not a.startswith("-") or a == "-":
            return k
        if a.startswith("--"):
            k += 2 if (a in with_value and "=" not in a) else 1
            continue
        # a bundle of short options: one taking a value consumes the rest or the next word
        for j in range(1, len(a)):
            if "-" + a[j] in with_value:
                k += 1 if j + 1 < len(a) else 2
                break
        else:
            k += 1
    return k


def _input_files(cmd: Command) -> tuple[list[str], list[str]] | None:
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


# The largest file an earlier call wrote that a line's run of it is read from (a script).
MAX_EARLIER_BYTES = 64 * 1024


def _file_text(path: str) -> str | None:
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


# Options of cp and install that take a value (not a source): install -m 755 x.sh bin/x.
_COPY_VALUES = {
    "cp": ("-S", "--suffix"),
    "install": ("-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix"),
}

# The launcher tables (launchers.txt): which programs run other programs, and how.
_WRAPPER_VALUES = TABLES["wrappers"]
_TRANSPARENT = frozenset(_WRAPPER_VALUES)
_OPERAND_FIRST = frozenset(TABLES["operand-first"])
_SCRIPT_OPTIONS = TABLES["wrapper-scripts"]
_SCRIPT_FILES = TABLES["script-files"]
_SHELL_VALUES = frozenset().union(*TABLES["shells"].values())
_TMUX_STARTS = frozenset(TABLES["tmux-starts"])
_TMUX_VALUES = TABLES["option-values"]["tmux"]
_SSH_VALUES = TABLES["option-values"]["ssh"]
_PARALLEL_VALUES = TABLES["option-values"]["parallel"]


def _wrapper_env(name: str, own: list[Word]) -> dict[str, str]:
    """The variables ``env``-like wrappers set for the command they run (``env A=1 cmd``,
    ``cross-env A=1 cmd``, ``sudo A=1 cmd``)."""
    if name not in ("env", "cross-env", "sudo"):
        return {}
    found = {}
    for w in own[1:]:
        var, eq, value = w.text.partition("=")
        if eq and var.isidentifier():
            found[var] = value
    return found


def _unwrap(name: str, words: list[Word], budget: _Budget) -> tuple[Any, int | list[Word]]:
    """What ``words`` runs besides itself: ``("argv", inner, extra)``, ``("script", words)``,
    ``("scripts", words)`` (each word a script of its own), ``("printed", text)`` (a script
    that is not in the original text), ``("file", path)`` (a script file), ``("makefile",
    path)`` or ``("container", inner, mounts, workdir)`` (argv run in a container).

    The second value is how many words belong to the wrapper itself (or those words).
    """
    n = len(words)
    script = _script_option(name, words)
    if script is not None:
        return script
    if name in _TRANSPARENT:
        if name == "command" and any(w.text in ("-v", "-V") for w in words[1:2]):
            return None, n  # command -v git: a lookup, nothing runs
        if name == "env":
            for k, w in enumerate(words[1:], 1):
                a = w.text
                if a in ("-S", "--split-string") and k + 1 < n:
                    return ("script", [words[k + 1]]), k + 2
                if a.startswith("--split-string="):
                    head = Word(a.split("=", 1)[1], None, w.literal)
                    return ("script", [head] + words[k + 1 :]), k + 1
                if a.startswith("-S") and len(a) > 2:  # -S'rm -rf ~'
                    head = Word(a[2:], None, w.literal)
                    return ("script", [head] + words[k + 1 :]), k + 1
        # sudo takes VAR=value before its command too (sudo A=1 rm -rf ~)
        env_like = name in ("env", "cross-env", "cross-env-shell", "sudo")
        k = _options_end(words, 1, _WRAPPER_VALUES[name], skip_assignments=env_like)
        if name in _OPERAND_FIRST and k < n:
            k += 1  # the duration / lock file / new root / mask / priority
        if name == "cross-env-shell":  # its command is a shell script
            return (("script", words[k:]), k) if k < n else (None, n)
        if name == "chroot" and k < n:  # the new root is its command's /, and its directory
            return ("container", words[k:], [("/", words[k - 1].text)], "/"), k
        return (("argv", words[k:], []), k) if k < n else (None, n)
    if name in SHELLS:
        k = 1
        script = False
        while k < n:
            a = words[k].text
            if a == "--":
                k += 1
                break
            if a in _SHELL_VALUES:
                k += 2
                continue
            if a.startswith(("-", "+")) and len(a) > 1:
                if not a.startswith("--") and "c" in a[1:]:
                    script = True
                k += 1
                continue
            break
        if script and k < n:
            return ("script", [words[k]]), n
        return _sourced(words[k : k + 1], budget), n
    if name in ("source", "."):
        return _sourced(words[1:2], budget), n
    if name in TABLES["operands-are-a-script"]:  # watch -n 1 'cmd': a shell runs the operands
        k = _options_end(words, 1, TABLES["operands-are-a-script"][name])
        return (("script", words[k:]), k) if k < n else (None, n)
    if name in TABLES["operands-are-scripts"]:
        k = _options_end(words, 1, TABLES["operands-are-scripts"][name])
        return (("scripts", words[k:]), k) if k < n else (None, n)
    if name in TABLES["multiplexers"] and n > 1:  # busybox rm -rf ~: the applet is the command
        return ("argv", words[1:], []), 1
    if name in TABLES["awks"]:
        return _awk_runs(words)
    if name in TABLES["makes"]:
        return ("makefile", _makefile(words)), n
    runner = _package_runner(name, words)
    if runner is not None:
        return runner
    if name in TABLES["containers"]:
        return _container_runs(name, words)
    if name == "tmux":
        k = _options_end(words, 1, _TMUX_VALUES)
        if k < n and words[k].text in _TMUX_STARTS:
            start = _options_end(words, k + 1, _TMUX_VALUES)
            return (("script", words[start:]), n) if start < n else (None, n)
        return None, n
    if name == "kubectl":  # kubectl exec POD -- cmd …: like ssh, on another machine
        if "exec" in (w.text for w in words[1:3]):
            end = next((k for k, w in enumerate(words) if w.text == "--"), n)
            return (("argv", words[end + 1 :], []), end + 1) if end + 1 < n else (None, n)
        return None, n
    if name == "eval":
        # eval "$(echo …)" parses what echo prints, redirections included.
        printed = _substitution_output(words[1].text, budget) if n == 2 else None
        if printed is not None:
            return ("printed", printed), n
        return (("script", words[1:]), n) if n > 1 else (None, n)
    if name == "ssh":
        k = _options_end(words, 1, _SSH_VALUES)
        if k + 1 < n:
            return ("script", words[k + 1 :]), k + 1
        return None, n
    if name == "parallel":
        return _parallel_runs(words)
    if name == "find":
        return _find_exec(words)
    if name == "git":
        return _git_runs(words)
    return None, n


def _script_files(
    spec: frozenset[str], words: list[Word], env: dict[str, str], variables: dict[str, Value]
) -> list[str]:
    """The script files a program runs by an option or an environment variable of ``spec``
    (the [script-files] table): ``at -f job.sh``, ``bash --rcfile x``, ``BASH_ENV=x bash``."""
    found = []
    argv = [w.text for w in words]
    for k, a in enumerate(argv[1:], 1):
        for option in spec:
            if a == option and k + 1 < len(argv):
                found.append(argv[k + 1])
            elif option.startswith("--") and a.startswith(option + "="):
                found.append(a[len(option) + 1 :])
            elif len(option) == 2 and a.startswith(option) and len(a) > 2 and a[1] != "-":
                found.append(a[2:])
    for name in spec:
        if not name.startswith("-"):
            value = env.get(name)
            if value is None and name in variables and not is_unknown(variables[name].kind):
                value = variables[name].text
            if value:
                found.append(value)
    return found


def _script_option(name: str, words: list[Word]) -> tuple[Any, int] | None:
    """``su -c 'cmd'``, ``nix-shell --run 'cmd'``, ``flock f -c 'cmd'``, ``npx -c 'cmd'``: the
    value of an option that is a shell script (launchers.txt, [wrapper-scripts]). A wrapper's
    own options end where its command starts (``flock f git commit -c x`` runs git)."""
    key = name
    if name not in _SCRIPT_OPTIONS:
        key = f"{name} {words[1].text}" if len(words) > 1 else name
        if key not in _SCRIPT_OPTIONS:
            return None
    options = _SCRIPT_OPTIONS[key]
    n = len(words)
    end = n
    if name in _TRANSPARENT:
        end = _options_end(words, 1, _WRAPPER_VALUES[name] - options)
        end += 1 if name in _OPERAND_FIRST else 0
    for k in range(1, min(end + 1, n)):
        a = normalize_option(words[k].text)
        for option in options:
            if a == option and k + 1 < n:
                return ("script", [words[k + 1]]), n
            if option.startswith("--") and a.startswith(option + "="):
                w = words[k]
                value = Word(w.text[len(option) + 1 :], None, True, w.offs[len(option) + 1 :])
                return ("script", [value]), n
            short = len(option) == 2 and not a.startswith("--") and a.startswith("-")
            if short and a.endswith(option[1]) and a[1:].isalpha() and k + 1 < n:
                return ("script", [words[k + 1]]), n  # a bundle ending in it: su -lc 'cmd'
    return None


def _package_runner(name: str, words: list[Word]) -> tuple[Any, int] | None:
    """``npx rimraf ~``, ``npm exec -- del-cli x``, ``pnpm dlx pkg@1 …``, ``uv run cmd``: the
    program a package runner runs (launchers.txt, [package-runners]), its version dropped."""
    runners = TABLES["package-runners"]
    key, start = (f"{name} {words[1].text}", 2) if len(words) > 1 else (name, 1)
    if key not in runners:  # the longer name first: yarn dlx x is not yarn's program dlx
        key, start = name, 1
        if key not in runners:
            return None
    values = runners[key]
    k = _options_end(words, start, values)
    if k >= len(words):
        return None, len(words)
    program = words[k]
    at = program.text.find("@", 1)  # rimraf@5, @scope/pkg@1 (a leading @ is the scope)
    if at > 0:
        program = Word(program.text[:at], None, program.literal, program.offs[:at])
    return ("argv", [program, *words[k + 1 :]], []), k


def _container_runs(name: str, words: list[Word]) -> tuple[Any, int]:
    """``docker run [options] IMAGE cmd…`` and ``docker exec [options] CONTAINER cmd…`` (also
    ``container run``, ``compose run|exec SERVICE cmd…``): the command, the bind mounts (the
    host path each container path is) and the working directory in the container."""
    n = len(words)
    subs = TABLES["container-subcommands"]
    k = _options_end(words, 1, subs["globals"])
    if k < n and words[k].text == "container":
        k += 1
    compose = k < n and words[k].text == "compose"
    if compose:
        k = _options_end(words, k + 1, subs["compose"])
    if k >= n or words[k].text not in ("run", "exec"):
        return None, n
    sub = words[k].text
    values = TABLES["containers"][name]
    mounts: list[tuple[str, str]] = []
    workdir: str | None = None
    entrypoint: Word | None = None
    j = k + 1
    while j < n:
        a = normalize_option(words[j].text)
        if a == "--" or not a.startswith("-") or a == "-":
            j += a == "--"
            break
        option, eq, value = a.partition("=")
        if not eq and a[:2] in ("-v", "-w") and len(a) > 2:  # -v/:/host, attached
            option, value = a[:2], a[2:]
        elif not eq and option in values and j + 1 < n:
            value = words[j + 1].text
            j += 1
        if option in ("-v", "--volume"):
            mounts += _volume(value)
        elif option == "--mount":
            mounts += _bind_mount(value)
        elif option in ("-w", "--workdir"):
            workdir = value
        elif option == "--entrypoint":
            entrypoint = Word(value, None, True, [])
        j += 1
    if j >= n:
        return None, n
    inner = words[j + 1 :]
    if entrypoint is not None and entrypoint.text:
        inner = [entrypoint, *inner]
    if not inner:
        return None, n
    # docker exec and compose: the container's mounts are not on the line
    known = sub == "run" and not compose
    return ("container", inner, mounts if known else None, workdir), j + 1


def _host_source(src: str, here: str) -> str:
    """A bind mount's host path, ``$PWD``/``$(pwd)``/``.`` being ``here``."""
    for pwd in ("$PWD", "${PWD}", "$(pwd)", "`pwd`", "."):
        if src == pwd or src.startswith(pwd + "/"):
            return join_path(here, src[len(pwd) + 1 :] or ".")
    return join_path(here if here != "." else None, src)


def _volume(spec: str) -> list[tuple[str, str]]:
    """``-v SRC:DST[:opts]`` as ``[(DST, SRC)]``; a named volume (no path) mounts no host path."""
    parts = spec.split(":")
    if len(parts) < 2 or not parts[0].startswith(("/", "~", ".", "$", "`")):
        return []
    return [(parts[1], parts[0])]


def _bind_mount(spec: str) -> list[tuple[str, str]]:
    """``--mount type=bind,source=SRC,target=DST`` as ``[(DST, SRC)]``."""
    fields = dict(f.partition("=")[::2] for f in spec.split(","))
    source = fields.get("source", fields.get("src"))
    target = fields.get("target", fields.get("destination", fields.get("dst")))
    if fields.get("type") != "bind" or not source or not target:
        return []
    return [(target, source)]


def _makefile(words: list[Word]) -> str:
    """The makefile ``make`` reads: ``-f FILE`` (``-`` is stdin), else ``Makefile`` in its
    directory (``-C dir``)."""
    path = "Makefile"
    chdir = ""
    k = 1
    while k < len(words):
        a = words[k].text
        value = words[k + 1].text if k + 1 < len(words) else ""
        if a in ("-f", "--file", "--makefile"):
            path, k = value, k + 1
        elif a.startswith(("--file=", "--makefile=")):
            path = a.split("=", 1)[1]
        elif a.startswith("-f") and len(a) > 2:
            path = a[2:]
        elif a in ("-C", "--directory"):
            chdir, k = value, k + 1
        elif a.startswith("--directory="):
            chdir = a.split("=", 1)[1]
        k += 1
    if path == "-" or not chdir or path.startswith("/"):
        return path
    return chdir.rstrip("/") + "/" + path


def _make_recipes(makefile: str) -> str:
    """The shell lines of a makefile's recipes: lines that start with a tab, and what follows
    ``;`` on a rule line (``x: ; cmd``), with make's ``@``/``-``/``+`` prefixes dropped and
    ``$$`` made ``$``. Make variables stay as written (``$(RM)``: a command word the shell
    would substitute)."""
    out: list[str] = []
    for line in makefile.split("\n"):
        if line.startswith("\t"):
            out.append(line[1:].lstrip("@-+ \t").replace("$$", "$"))
            continue
        head, semi, recipe = line.partition(";")
        if semi and ":" in head and "=" not in head:
            out.append(recipe.lstrip("@-+ \t").replace("$$", "$"))
    return "\n".join(out)


def _parallel_runs(words: list[Word]) -> tuple[Any, int | list[Word]]:
    """``parallel cmd ::: a b``: one job per argument, ``{}`` replaced by it or it appended
    (``parallel rm -rf ::: ~ /``; with no command, each argument is a command). The jobs are
    made by parallel, not in the text: they are printed scripts."""
    n = len(words)
    k = _options_end(words, 1, _PARALLEL_VALUES)
    end = next((j for j in range(k, n) if words[j].text in (":::", "::::", ":::+")), n)
    command = [w.text for w in words[k:end]]
    args = [w.text for w in words[end:] if w.text not in (":::", "::::", ":::+", "::::+")]
    if end == n or not args or any(w.text.startswith("::::") for w in words[end:]):
        # no arguments on the line (or read from files): the command as written
        return (("script", words[k:end]), words[:k] + words[end:]) if k < end else (None, n)
    jobs = []
    for a in args:
        if not command:
            jobs.append(a)
        elif any("{}" in c for c in command):
            jobs.append(" ".join(c.replace("{}", _single_quoted(a)) for c in command))
        else:
            jobs.append(" ".join(command) + " " + _single_quoted(a))
    return ("printed", "\n".join(jobs)), words[:k] + words[end:]


def _awk_runs(words: list[Word]) -> tuple[Any, int]:
    """The shell commands an awk program runs: ``system(…)``, ``print … | "cmd"`` (the printed
    text is a script when cmd is a shell) and ``"cmd" | getline``."""
    n = len(words)
    k = 1
    while k < n:
        a = words[k].text
        if a in ("-f", "--file", "-E", "--exec"):
            return None, n  # the program is in a file
        if a in ("-F", "-v", "--assign", "--field-separator", "-i", "--include"):
            k += 2
            continue
        if not a.startswith("-") or a == "-":
            break
        k += 1 + (a == "--")
    if k >= n:
        return None, n
    script = _awk_commands(words[k].text)
    return (("printed", script), n) if script else (None, n)


def _awk_commands(program: str) -> str:
    """The scripts ``program`` hands to a shell, one per line (see ``_awk_runs``). String
    literals are decoded and joined as awk concatenates them; ``ENVIRON["X"]`` is ``$X`` and
    any other value an unknown ``$v``, so that a computed target stays unknown."""
    tokens = _awk_tokens(program)
    scripts: list[str] = []
    for i, (kind, text) in enumerate(tokens):
        if kind == "name" and text == "system" and tokens[i + 1 : i + 2] == [("op", "(")]:
            scripts.append(_awk_value(tokens, i + 2, ")"))
        elif kind == "op" and text == "|":
            right = _awk_value(tokens, i + 1, ";}\n")
            if right.split()[:1] == ["getline"]:
                start = max(
                    (j for j in range(i) if tokens[j][1] in (";", "{", "}", "(")), default=-1
                )
                scripts.append(_awk_value(tokens, start + 1, "|"))
            elif right.split()[:1] and right.split()[0] in SHELLS:
                start = max((j for j in range(i) if tokens[j][1] in ("print", "printf")), default=i)
                scripts.append(_awk_value(tokens, start + 1, "|"))
            else:
                scripts.append(right)
    return "\n".join(s for s in scripts if s.strip())


def _awk_tokens(program: str) -> list[tuple[str, str]]:
    """``program`` as (kind, text): ``str`` (decoded), ``name``, ``op``; one pass."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(program)
    while i < n:
        c = program[i]
        if c == '"':
            j = i + 1
            text: list[str] = []
            while j < n and program[j] != '"':
                if program[j] == "\\" and j + 1 < n:
                    ch, j = _ansi_escape(program, j + 1)
                    text.append(ch)
                    continue
                text.append(program[j])
                j += 1
            out.append(("str", "".join(text)))
            i = j + 1
        elif c.isalnum() or c == "_":
            j = i
            while j < n and (program[j].isalnum() or program[j] == "_"):
                j += 1
            out.append(("name", program[i:j]))
            i = j
        elif c in " \t":
            i += 1
        elif c == "|" and program.startswith("||", i):
            out.append(("op", "||"))
            i += 2
        else:
            out.append(("op", c))
            i += 1
    return out


def _awk_value(tokens: list[tuple[str, str]], i: int, stop: str) -> str:
    """The text of the awk expression at ``tokens[i]`` up to an unnested ``stop`` token."""
    out: list[str] = []
    level = 0
    while i < len(tokens):
        kind, text = tokens[i]
        if kind == "op" and text in stop and level == 0:
            break
        if text == "(":
            level += 1
        elif text == ")":
            level -= 1
        if kind == "str":
            out.append(text)
        elif kind == "name" and text == "ENVIRON" and tokens[i + 1 : i + 2] == [("op", "[")]:
            key = tokens[i + 2][1] if i + 2 < len(tokens) else ""
            out.append("${" + key + "}")
            i += 4
            continue
        elif kind == "name" and text not in ("print", "printf", "getline"):
            out.append("${awk_" + text + "}")  # a value computed at run time: unknown
        elif kind == "name":
            out.append(text + " ")
        i += 1
    return "".join(out)


def _sourced(operand: list[Word], budget: _Budget) -> tuple[str, str] | None:
    """``("printed", script)`` when a shell or ``source`` reads its script from a process
    substitution that prints a known text (``bash <(echo 'git push -f')``), ``("file", path)``
    when it reads a file (which the line may have written)."""
    if not operand:
        return None
    if not operand[0].text.startswith("<("):
        return "file", operand[0].text
    printed = _substitution_output(operand[0].text, budget)
    return None if printed is None else ("printed", printed)


def _find_exec(words: list[Word]) -> tuple[Any, int | list[Word]]:
    """``find … -exec cmd {} ;``: the commands it runs; find keeps every other word."""
    inner: list[list[Word]] = []
    own: list[Word] = words[:1]
    k = 1
    while k < len(words):
        own.append(words[k])
        if words[k].text in ("-exec", "-execdir", "-ok", "-okdir"):
            j = k + 1
            while j < len(words) and words[j].text not in (";", "+"):
                j += 1
            inner.append(words[k + 1 : j])
            own.extend(words[j : j + 1])
            k = j + 1
        else:
            k += 1
    if not inner:
        return None, len(words)
    return ("argv", inner[0], inner[1:]), own


def _git_runs(words: list[Word]) -> tuple[Any, int]:
    """Commands git itself runs: ``rebase -x``, ``submodule foreach``, ``bisect run``; and
    the script ``git config`` defines to be run, as if run (``git config core.editor 'rm -rf
    ~'`` as ``rm -rf ~``, ``alias.x '!…'``: a later command this line may not show runs it).
    Shell aliases and program settings given to a command itself are read by
    ``shell.git.LineState``; what a plain alias runs is in ``git.parse`` (``config_change``)."""
    from hookgate.shell.git import config_change, parse_argv, program_script

    argv = [w.text for w in words]
    parsed = parse_argv(argv, {}, None)
    sub = parsed["subcommand"]
    rest = words[len(argv) - len(parsed["args"]) :]
    if sub == "rebase":
        scripts = [_option_value(rest, k, ("-x", "--exec")) for k in range(len(rest))]
        found = [w for w in scripts if w is not None]
        return (("script", found[:1]), len(words)) if found else (None, len(words))
    texts = [w.text for w in rest]
    if sub == "submodule" and "foreach" in texts:
        k = texts.index("foreach") + 1
        while k < len(rest) and rest[k].text.startswith("-"):
            k += 1
        return (("script", rest[k:]), len(words)) if k < len(rest) else (None, len(words))
    if sub == "bisect" and texts[:1] == ["run"] and len(rest) > 1:
        return ("argv", rest[1:], []), len(words)
    if sub == "config":
        change = config_change(texts)
        if change is not None and change[0] != "unset":
            script = program_script(change[1], change[2])
            if script:
                return ("printed", script), len(words)
    return None, len(words)


def _option_value(words: list[Word], k: int, names: tuple[str, ...]) -> Word | None:
    """The value of option ``names`` written at ``words[k]`` (``-x cmd``, ``--exec=cmd``)."""
    text = words[k].text
    if text in names and k + 1 < len(words):
        return words[k + 1]
    for name in names:
        prefix = name + "=" if name.startswith("--") else name
        if text.startswith(prefix) and len(text) > len(prefix):
            value = text[len(prefix) :]
            return Word(value, None, True, words[k].offs[len(prefix) :])
    return None


def _wrapper_chdir(name: str, words: list[Word]) -> str | None:
    if name in ("env", "sudo"):
        for k, w in enumerate(words[1:], 1):
            if w.text in ("-C", "--chdir", "-D") and k + 1 < len(words):
                return words[k + 1].text
            if w.text.startswith("--chdir="):
                return w.text.split("=", 1)[1]
    return None


def _unescape(w: Word) -> Word:
    """``w`` with ``printf``/``echo -e`` backslash escapes decoded (``\\n`` is a newline)."""
    offs = _word_offsets(w)
    text: list[str] = []
    new_offs: list[int] = []
    i = 0
    while i < len(w.text):
        if w.text[i] == "\\" and i + 1 < len(w.text):
            ch, i = _ansi_escape(w.text, i + 1)
        else:
            ch, i = w.text[i], i + 1
        text.append(ch)
        new_offs.append(offs[i - 1])
    return Word("".join(text), w.span if len(text) == len(w.text) else None, w.literal, new_offs)


def _ansi_escape(t: str, i: int) -> tuple[str, int]:
    """Decode one ``$'…'`` escape starting after the backslash; returns (char, next index)."""
    c = t[i]
    simple = {
        "n": "\n",
        "t": "\t",
        "r": "\r",
        "a": "\a",
        "b": "\b",
        "e": "\x1b",
        "E": "\x1b",
        "f": "\f",
        "v": "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?",
    }
    if c in simple:
        return simple[c], i + 1
    digits = {"x": 2, "u": 4, "U": 8}
    if c in digits:
        j = i + 1
        while j < len(t) and j - i - 1 < digits[c] and t[j] in "0123456789abcdefABCDEF":
            j += 1
        if j == i + 1:
            return "\\" + c, i + 1
        code = int(t[i + 1 : j], 16)
        return (chr(code) if code < 0x110000 else "\ufffd"), j
    if c in "01234567":
        j = i
        while j < len(t) and j - i < 3 and t[j] in "01234567":
            j += 1
        return chr(int(t[i:j], 8) & 0xFF), j
    return "\\" + c, i + 1


# analyse's results by command line: policies ask about the same line often. A dict rather than
# functools.lru_cache, whose import (collections, reprlib, …) costs every hook about a millisecond.
_ANALYSED: dict[object, tuple[Substitutions | None, tuple[Command, ...]]] = {}


MAX_ANALYSED = 256


def analyse(
    cmdline: str,
    substitutions: Substitutions | None = None,
    root_dir: str | None = None,
    earlier: tuple[str, ...] = (),
) -> tuple[Command, ...]:
    """Every simple command in ``cmdline``, reading ``$(…)`` of the known-safe commands in
    ``substitutions`` (``expansion.compile_substitutions``) as what they yield, and matching
    file name patterns against the disk when ``root_dir`` (the directory the line runs in,
    absolute) is given; ``earlier`` are files the session's earlier calls wrote (absolute):
    a line that runs one runs its text. A ``LimitError`` past the bounds above."""
    if len(cmdline) > MAX_COMMAND_CHARS:
        raise LimitError(
            "command-size",
            f"shell analysis reads command lines of at most {MAX_COMMAND_CHARS} characters; "
            f"this one is longer ({len(cmdline)})",
        )
    return _analyse(cmdline, _Budget(substitutions, root_dir, earlier))


def _analyse(cmdline: str, budget: _Budget) -> tuple[Command, ...]:
    """``analyse`` within ``budget`` (a substitution's script is read within its line's)."""
    # a table is compiled once per pack's data: the same object while that data is in use
    table = budget.substitutions
    key: object = (
        cmdline
        if table is None and budget.root_dir is None and not budget.earlier
        else (cmdline, id(table), budget.root_dir, budget.earlier)
    )
    cached = _ANALYSED.get(key)
    if cached is not None and cached[0] is table:
        return cached[1]
    out: list[Command] = []
    _Parser(cmdline, None, 0, out, None, [], budget).parse()
    if len(_ANALYSED) >= MAX_ANALYSED:
        _ANALYSED.clear()
    commands = tuple(out)
    _ANALYSED[key] = (table, commands)
    return commands
