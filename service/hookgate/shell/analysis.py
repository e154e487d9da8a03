"""Shell analysis: which simple commands a command line would run, without running anything.

``analyse`` parses the line (``parser``) and runs it symbolically (``Run``): assignments,
functions, aliases and the builtins that change later words (``export``, ``set --``, ``cd``…),
expansions the line shows (``expansion``), wrappers and other launchers (``launchers``), nested
scripts (``bash -c``, ``eval``, here-documents fed to a shell, ``ssh host cmd``, scripts the
line writes and runs), what ``xargs`` is fed, and the files the line writes, moves or links
(``files``) and the variables and directories it sets (``state``). Nested scripts are parsed with the same offsets into the root line, to a bounded
depth (``limits``). Nothing is ever executed.
"""

from __future__ import annotations

from hookgate.lang.errors import LimitError
from hookgate.shell import powershell
from hookgate.shell.containers import host_source
from hookgate.shell.expansion import (
    UNKNOWN_FILE,
    UNKNOWN_GLOB,
    UNKNOWN_OUTPUT,
    Expander,
    Substitutions,
    Value,
    known_substitution,
)
from hookgate.shell.files import FILE_COMMANDS, FileEffects, SessionFiles, file_ops, found_ops
from hookgate.shell.launchers import (
    SCRIPT_FILES,
    SHELLS,
    TABLES,
    git_runs,
    interpreter_of,
    reads_script_from_stdin,
    runs_stdin,
    script_files,
    script_format,
    suffix_interpreter,
    unwrap,
    wrapper_chdir,
    wrapper_env,
    xargs_replace,
    xargs_value,
)
from hookgate.shell.limits import (
    MAX_ANALYSED,
    MAX_COMMAND_CHARS,
    MAX_LOOP_VALUES,
    MAX_NEST,
    Budget,
    too_deep,
)
from hookgate.shell.nesting import Nesting
from hookgate.shell.output import (
    backslash_escapes,
    command_output,
    lookup_command,
    plain_format,
    printed_words,
    unescape,
)
from hookgate.shell.parser import Parser, assignment
from hookgate.shell.patterns import may_read_disk, pathname_matches
from hookgate.shell.reach import FROM_XARGS
from hookgate.shell.state import STATE_BUILTINS, ShellState
from hookgate.shell.words import (
    Command,
    Word,
    argv_has_option,
    argv_operands,
    command_name,
    join_path,
    normalize_path,
    single_quoted,
    span_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


class Run(FileEffects, ShellState, Nesting):
    """The symbolic run of one script (the root line or a nested one): what its commands do to
    the variables, functions, directories and files later commands see, and which commands they
    run in turn. Its parser hands it each construct as it reads it (the methods of
    ``runner.Runner``); the run appends every simple command to ``out``. What it does to files
    is in ``files.FileEffects``, to variables and directories in ``state.ShellState``, how it
    reads the scripts it runs in ``nesting.Nesting``."""

    def __init__(
        self, depth: int, out: list[Command], cwd: str | None, via: list[str], budget: Budget
    ) -> None:
        self.depth = depth  # nested scripts around this one
        self.out = out
        self.cwd = cwd
        self.via = via
        self.budget = budget
        self.nest = 0  # $( ( { and wrappers around the command being read
        self.incomplete = False  # the text read so far has an unbalanced quote or group
        # NAME=value statements seen so far (G=git; $G push), arrays, and the positional
        # parameters ("@", "0") where the line shows them (bash -c '…' a b, set -- a b)
        self.vars: dict[str, Value] = {}
        self.subs: dict[str, list[Command]] = {}  # each $(…) as written → the commands it runs
        self.piped_from: Command | None = None  # the command before "|" of the one parsed
        self.stdin_next: str | None = None  # the here-string of the command being emitted
        # alias name → its text, from the alias command that defines it on. bash -c expands them
        # only after shopt -s expand_aliases, from the next line on; but eval (how some hosts run
        # a line) expands them command by command, and a host's shell may enable them: read as
        # expanded whenever the line defined them earlier
        self.aliases: dict[str, str] = {}
        self.functions: dict[str, str] = {}  # defined so far, sourced files too: name → body
        self.body_spans: dict[str, tuple[int, int] | None] = {}  # name → its body's root span
        self.namerefs: dict[str, str] = {}  # declare -n r=x: r → x
        # Scripts the line writes (cat > f <<EOF, echo … > f) by path, for a later bash f or ./f.
        # Each is a list of parts (appends add one): a line of many appends is not copied each time.
        self.scripts: dict[str, list[str]] = {}
        # What git commands of the line did so far (branches switched, configuration written):
        # repository state, so subshells share it too. A ``shell.git.state.LineState`` made at the
        # line's first git command (``line_git``): most lines run none, and importing the git model
        # would cost their hook more than their analysis.
        self.git: Any = None
        # the run of the whole line, which holds it (None: this one; a reference to itself
        # would make the run a cycle that only the garbage collector frees)
        self.git_owner: Run | None = None
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
        # By the id of a command with here-documents: the shells their bodies are fed to (its
        # own reader, and a shell piped from it before the bodies are read: cat <<EOF | sh)
        self.unread: dict[int, list[Command]] = {}
        # By the id of a command run in a container: its mounts and directory there, for the
        # script it reads on stdin (echo 'rm -rf /h/x' | docker run -i -v ~:/h alpine sh)
        self.contained: dict[int, tuple[list[tuple[str, str]] | None, str | None]] = {}

    @property
    def expander(self) -> Expander:
        """The expansions of this run's words, made anew at each use: one kept by the run
        would hold it (its ``substitution``) in a reference cycle, and every analysis, with
        all it made, would then stay alive until the garbage collector's next pass."""
        return Expander(self.vars, self.substitution, self.budget.expand)

    # -- what the parser hands over (runner.Runner) ----------------------------------------------

    def enter(self) -> None:
        self.nest += 1
        if self.nest > MAX_NEST:
            raise too_deep("subshells, substitutions, groups and wrappers", MAX_NEST)

    def leave(self) -> None:
        self.nest -= 1

    def enter_subshell(self) -> tuple[str | None, list[str | None], str | None | bool]:
        """A subshell starts: its directory changes stay in it (``leave_subshell``)."""
        self.enter()
        return self.cwd, list(self.dirs), self.oldpwd

    def leave_subshell(self, saved: tuple[str | None, list[str | None], str | None | bool]) -> None:
        self.cwd, self.dirs, self.oldpwd = saved
        self.leave()

    def substituted(self, raw: str, first: int) -> None:
        """The command substitution ``raw`` (as written) ran the commands of ``out`` from
        ``first`` on: its value, for the word it is in."""
        self.subs[raw] = self.out[first:]

    def backtick(self, text: str, offs: list[int]) -> None:
        """A backtick substitution's script, at this nesting: read in a shell of its own (the
        variables, functions and files the line set are not seen) on the same file system."""
        sub = Run(self.depth, self.out, self.cwd, self.via, self.budget)
        sub.share_state(self)
        sub.nest = self.nest
        Parser(text, offs, sub).parse()

    def reparse(self, text: str, offs: list[int]) -> list[Command]:
        """The commands of ``text``, the rest of a line after a lone quote, read afresh one
        script deeper (see ``Parser.reparse_after_quote``)."""
        extra: list[Command] = []
        parser = Parser(text, offs, Run(self.depth + 1, extra, self.cwd, self.via, self.budget))
        parser.reparsed = True
        parser.parse()
        return extra

    def redirected(self, span: tuple[int, int], writes: list[str]) -> Command:
        """A command of redirections alone (``> f``, ``(…) > f``): the files it truncates."""
        if self.links or self.mounts is not None:
            writes = [self.host_path(p) for p in writes]
        cmd = Command("", [], {}, span, self.cwd, list(self.via))
        self.truncated(cmd, writes)
        self.out.append(cmd)
        return cmd

    def simple(
        self,
        words: list[Word],
        span: tuple[int, int],
        incomplete: bool,
        writes: list[str],
        appends: list[str],
        reads: list[str],
        herestrings: list[Word],
        heredocs: bool,
    ) -> Command:
        """A simple command as written (``incomplete``: the text read so far is), with the
        files its redirections truncate, append to and read, its here-strings, and whether
        here-documents follow (``here_document``)."""
        if self.links or self.mounts is not None:
            writes = [self.host_path(p) for p in writes]
            appends = [self.host_path(p) for p in appends]
        # what the command reads on stdin when the line shows it: a here-string, or a file the
        # line wrote (bash < x.sh); also xargs's input (xargs <<< "…")
        fed = self.written(reads[-1], self.cwd) if reads and not heredocs else None
        stdin = herestrings[-1].text if herestrings else fed
        self.incomplete = incomplete
        self.stdin_next = stdin
        cmd = self.emit(words, span)
        self.stdin_next = None
        if fed is None and reads and not heredocs and not herestrings and self.budget.earlier:
            # bash < x.sh, python3 < x.py: x.sh looked up as a file the session wrote, under
            # any name (the pack reads an interpreter's stdin as its code)
            reader = self.runs.get(id(cmd), cmd)
            if reads_script_from_stdin(reader) or interpreter_of(reader.name):
                fed = stdin = self.written(reads[-1], self.cwd, run=True)
        cmd.writes = writes
        cmd.appends = appends
        self.fed_through_substitutions(cmd, reads if not heredocs else [], writes + appends)
        if heredocs:
            reader = self.runs.get(id(cmd), cmd)
            self.unread[id(cmd)] = [reader] if reads_script_from_stdin(reader) else []
        if stdin is not None:
            cmd.stdin = stdin
        elif reads and not heredocs and not reads[-1].startswith("<("):
            cmd.stdin_file = join_path(self.cwd, reads[-1])
        self.wrote_output(cmd)
        if herestrings:
            if reads_script_from_stdin(cmd):
                self.nested_words(herestrings[-1:], cmd, cmd.name)
        elif fed is not None:
            reader = self.runs.get(id(cmd), cmd)
            if reads_script_from_stdin(reader):
                self.where_run(reader, lambda: self.nested_printed(fed, reader, reader.name))
        return cmd

    def where_run(self, reader: Command, read: Callable[[], None]) -> None:
        """``read`` the script ``reader`` reads on stdin where it runs: in a container, with
        the container's mounts and directory (``contained``)."""
        saved = self.mounts, self.cwd
        self.mounts, self.cwd = self.contained.get(id(reader), saved)
        try:
            read()
        finally:
            self.mounts, self.cwd = saved

    def fed_through_substitutions(self, cmd: Command, reads: list[str], writes: list[str]) -> None:
        """A shell or interpreter running what a process substitution prints (``bash <
        <(curl …)``), or run by one that ``cmd`` writes to (``curl … > >(bash)``): what
        feeds it (``Command.fed_by``)."""
        reader = self.runs.get(id(cmd), cmd)
        if reads and runs_stdin(reader):
            self.fed_from(reader, reads[-1])
        for path in writes:
            for inner in self.subs.get(path, ()) if path.startswith(">(") else ():
                if inner.piped is None and runs_stdin(self.runs.get(id(inner), inner)):
                    self.runs.get(id(inner), inner).fed_by = _producers(cmd)

    def fed_from(self, reader: Command, source: str) -> None:
        """``reader`` runs what process substitution ``source`` prints (``<(curl …)``)."""
        ran = self.ran_in(source) if source.startswith("<(") else []
        if ran:
            reader.fed_by = _producers(ran[-1])

    def pipeline(self, cmds: list[Command | list[Command] | None]) -> None:
        """A pipeline was read: each command reads what the one before prints (a shell among
        them runs it as its script), a group's or subshell's (a list: ``{ cat; echo …; } |
        sh``) what each of its commands prints; a lone ``cd``, ``pushd`` or ``popd`` moves
        later ones."""
        for before, cmd in zip(cmds, cmds[1:], strict=False):
            if cmd is None or before is None or isinstance(cmd, list):
                continue
            producers = [c for c in before if c.name] if isinstance(before, list) else [before]
            if not producers:
                continue
            prev = producers[-1]
            cmd.piped = prev
            if cmd.stdin is None:
                cmd.stdin_file = self.cat_file(prev)
            self.wrote_output(cmd, prev)
            reader = self.runs.get(id(cmd), cmd)
            if runs_stdin(reader):
                reader.fed_by = list(dict.fromkeys(n for p in producers for n in _producers(p)))
            if reads_script_from_stdin(reader):
                for p in producers:
                    self.where_run(reader, lambda p=p, r=reader: self.feed_shell(p, r))
        last = cmds[-1]
        if len(cmds) == 1 and isinstance(last, Command) and last.name in ("cd", "pushd", "popd"):
            self.change_dir(last)

    def here_document(self, cmd: Command, body: str, offs: list[int], quoted: bool) -> None:
        """The body of one of ``cmd``'s here-documents (``quoted``: its delimiter was)."""
        cmd.stdin = body
        self.wrote_output(cmd)
        feeds = self.unread[id(cmd)]
        if feeds:
            for shell in feeds:
                read = script_format(shell.name)
                if read is not None:
                    self.nested_printed(read(body), shell, shell.name)
                else:
                    via = shell.via + [shell.name]
                    self.where_run(shell, lambda v=via: self.nested(body, offs, v))
        elif not quoted:
            # an unquoted here-document expands $( ) and `…` in its body
            sub = Run(self.depth, self.out, self.cwd, self.via, self.budget)
            sub.share_state(self)
            Parser(body, offs, sub).scan_expansions()

    def define(self, name: str, body: str, span: tuple[int, int] | None) -> None:
        """Function ``name`` is defined (its body's text: what a call runs; ``span``: where
        the text has it, None when it has it nowhere as written)."""
        self.functions[name], self.body_spans[name] = body, span

    def forget(self, name: str) -> None:
        """Variable ``name`` takes values the line does not show (a loop's variable)."""
        self.vars.pop(name, None)

    def loop(self, name: str, words: list[Word], body: tuple[str, list[int]] | None) -> bool:
        """``for name in WORDS; do BODY; done``: BODY (its text and offsets, None when its end
        is not found) is read here with ``name`` the first value, and once more for each other
        value (with the same spans: it is the same text), when the line shows every value;
        else ``name`` stays unknown. False when the line shows there is no value: the body
        never runs."""
        values = self.expand_words(words, command=False)
        if not values:
            return False
        if body is None or len(values) > MAX_LOOP_VALUES:
            return True
        if any(v.kind is not None for v in values):
            return True
        text, offs = body
        for value in values[1:]:
            self.enter()
            try:
                self.nested(text, offs, self.via, bound={name: value.text})
            finally:
                self.leave()
        self.vars[name] = Value([values[0].text])
        return True

    # -- commands --------------------------------------------------------------------------------

    def emit(self, words: list[Word], span: tuple[int, int]) -> Command:
        """A simple command's words: its leading assignments (alone, they set variables),
        then the command they are the environment of."""
        env: dict[str, str] = {}
        values: dict[str, Value] = {}
        k = 0
        while k < len(words) and assignment(words[k]) is not None:
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
        return self.run_command(words[k:], env, list(self.via), span)

    def expand_words(self, words: list[Word], command: bool = True) -> list[Word]:
        """What the shell makes of each word (``hookgate.shell.expansion``): brace expansion,
        variables and arrays set earlier in the line, parameter operators, command
        substitutions whose output is known (``$(echo -f)``, ``$(which git)``, the known-safe
        table), words joined by ``$IFS`` (``git${IFS}push``), split as bash splits them.

        A command word (the first, with ``command``) is always split, even quoted (``"$(which
        git)" push``; at worst a command is seen that the shell would not find). What the line does not show stays as written,
        with its kind. The new words have no span (nothing in the original text to edit).
        """
        out: list[Word] = []
        for k, word in enumerate(words):
            if not (word.marks or word.braces or word.glob):
                out.append(word)  # nothing to expand, no pattern to match: the word itself
                continue
            if k == 0 and command and word.marks:
                word.marks = [(a, b, False) for a, b, _ in word.marks]
            made = self.expander.word(word)
            # bash matches file names in the words an unquoted expansion makes too
            # (x='/bin/r?'; $x -rf ~ runs /bin/rm)
            unquoted = word.marks is not None and any(not q for _a, _b, q in word.marks)
            if (word.glob or unquoted) and self.budget.files is not None:
                made = [m for w in made for m in self.pathnames(w)]
            out += made
        return out

    def ran_in(self, raw: str) -> list[Command]:
        """The commands the substitution ``raw`` (as written) ran, bare redirections left out."""
        return [c for c in self.subs.get(raw, ()) if c.name]

    def printed_by(self, word: Word) -> list[str]:
        """The names of the commands whose output ``word``'s command substitutions are, each
        substitution's last command and those piped into it, nearest first."""
        names: list[str] = []
        for a, b, _ in word.marks or ():
            raw = word.text[a:b]
            if raw.startswith(("$(", "`")):
                ran = self.ran_in(raw)
                names += _producers(ran[-1]) if ran else []
        return names

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
        """What the command substitution ``raw`` (as written) prints and its kind: known output
        (``echo``/``printf``, ``which git``), a known-safe command's (``known_substitutions``:
        its text, or None to keep ``raw``, and what it yields), else None and an unknown kind."""
        inner = raw[2:-1] if raw.startswith("$(") else raw[1:-1]
        found = lookup_command(inner)
        if found is not None:
            return found, None
        if inner.lstrip().startswith("<"):  # $(< f): the file's text, if the line wrote it
            path = inner.lstrip()[1:].strip()
            text = self.written(path, self.cwd) if path and " " not in path else None
            return (None, UNKNOWN_FILE) if text is None else (text, None)
        cmds = self.ran_in(raw)
        if cmds and all(b.piped is a for a, b in zip(cmds, cmds[1:], strict=False)):
            kinds = [w.kind for c in cmds for w in c.words if w.kind is not None]
            output = None if kinds else self.output(cmds[-1])
            if output is not None:
                return output, None
        if len(cmds) == 1:
            cmd = cmds[0]
            printed = printed_words(cmd)
            if printed is not None:
                kinds = [w.kind for w in printed if w.kind is not None]
                return " ".join(unescape(w).text for w in printed), kinds[0] if kinds else None
            table = self.budget.substitutions
            known = known_substitution(table, [w.text for w in cmd.words]) if table else None
            if known is not None and all(w.kind is None for w in cmd.words):
                return known[1] if known[1] is not None else raw, known[0]
        if any(c.name in _FILE_READERS for c in cmds):
            return None, UNKNOWN_FILE
        return None, UNKNOWN_OUTPUT

    def run_command(
        self,
        words: list[Word],
        env: dict[str, str],
        via: list[str],
        span: tuple[int, int],
        expanded: bool = False,
    ) -> Command:
        """The command ``words`` (not expanded yet, or only ``expanded`` by the wrapper that
        runs it) and what it does: builtins' state, aliases, functions, files moved and written,
        and the commands and scripts it runs in turn (``launchers.unwrap``)."""
        # A wrapper's words were expanded with it; only the new command word is read anew
        # (sudo "$(which git)" push: the command word is split, an argument is not).
        written = words
        words = self.expand_words(words[:1]) + words[1:] if expanded else self.expand_words(words)
        if not words:
            return Command("", [], env, span, self.cwd, via, self.incomplete)
        name = command_name(words[0].text)
        if name in STATE_BUILTINS:
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
        inner, own = unwrap(name, words, self.printed)
        if inner is None and (self.scripts or self.budget.earlier):
            if "/" in words[0].text or suffix_interpreter(words[0].text, via):
                inner = ("exec", words[0].text)  # ./deploy.sh, written earlier; uv run w.py
        own_words = words[:own] if isinstance(own, int) else own
        if self.links or self.mounts is not None:
            # the command's own paths as the host's (a wrapped command's, where it runs)
            own_words = own_words[:1] + [self.host_word(w) for w in own_words[1:]]
        cmd_span = span if not via else (span_of(own_words) or span)
        cmd = Command(name, own_words, env, cmd_span, self.cwd, via, self.incomplete)
        if words[0].kind is not None and written[0].marks:
            # $(curl …) as the command: the shell runs what the download prints (in bash -c
            # "$(curl …)", bash <<< "$(curl …)" or eval "$(curl …)" its text is the script)
            cmd.fed_by = self.printed_by(written[0])
        self.out.append(cmd)
        if self.budget.earlier is not None:
            self.changed(cmd)  # sed -i w.sh: a file the session wrote, changed unseen
        if name in SHELLS or name in ("source", "."):  # bash <(curl …): its script file
            first = next((w for w in words[1:] if not w.text.startswith(("-", "+"))), None)
            if first is not None:
                self.fed_from(cmd, first.text)
        if name in powershell.PROGRAMS:
            self.powershell(cmd)
        if name == "git":
            parsed, scripts = self.line_git().see(cmd, self.scripts, self.vars, self.out)
            for script in scripts:
                self.nested_printed(script, cmd, "git")  # -c core.editor='…', GIT_EDITOR=…
            # rebase -x, alias.r='submodule foreach …': what git runs, where it runs
            inner = git_runs(parsed, words, [w.text for w in cmd.words]) or inner
        elif name in ("mv", "ln", "cp", "install", "link", "rsync"):
            self.moved(cmd)
        elif name in FILE_COMMANDS or name == "find":
            file_ops(cmd)
        if name in SCRIPT_FILES:
            for path in script_files(SCRIPT_FILES[name], own_words, env, self.vars):
                self.run_written(path, cmd, name)
        chdir = wrapper_chdir(name, own_words)
        moves = chdir is not None or name in TABLES["remote-runners"]  # (another machine's cwd)
        if moves:
            saved, self.cwd = self.cwd, chdir and join_path(self.cwd, chdir)
        if inner is not None:
            self.enter()  # wrappers of wrappers (sudo sudo … git) nest like subshells
            if inner[0] == "argv":
                # what the wrapped command's environment gets: the wrapper's own (HUSKY=0 nice
                # git commit) and what env sets (env HUSKY=0 git commit)
                inner_env = {**env, **wrapper_env(name, own_words)}
                # what xargs reads, read once (before the command it runs, as xargs does)
                line = self.xargs_input(own_words) if name == "xargs" else None
                if name == "xargs" and not line:
                    inner = (inner[0], self.xargs_unread(own_words, inner[1]), *inner[2:])
                for sub in [inner[1], *inner[2]]:
                    if sub:
                        self.budget.command()  # a wrapped command: another one to judge
                        sub_span = span_of(sub) or cmd_span
                        ran = self.run_command(
                            sub, inner_env, via + [name], sub_span, expanded=True
                        )
                        found_ops(ran, cmd)  # find -exec rm {} +: {} is what it finds
                        self.runs[id(cmd)] = self.runs.get(id(ran), ran)
                fed = self.xargs_fed(cmd, own_words, inner[1], line)
                if fed is not None:
                    self.nested_printed(fed, cmd, name)
            elif inner[0] == "printed":
                self.nested_printed(inner[1], cmd, name)
            elif inner[0] == "file":  # bash w.sh, source w.sh: a shell script, whatever its #!
                self.run_written(inner[1], cmd, name)
            elif inner[0] == "exec":
                self.run_file(inner[1], cmd, words[1:])
            elif inner[0] == "interpreted":
                if self.scripts or self.budget.earlier:
                    script, args = inner[2], inner[3]
                    text = self.written(script.text, self.cwd, run=True)
                    if text is not None:
                        self.one_liner(name, text, args, cmd)
            elif inner[0] == "formatted":
                self.run_written(inner[1], cmd, name, inner[2])
            elif inner[0] == "scripts":
                for w in inner[1]:
                    self.nested_words([w], cmd, name)
            elif inner[0] == "container":
                self.in_container(inner, cmd, via + [name])
            else:
                script = inner[1][0] if inner[1] else None
                at = next((j for j, w in enumerate(words) if w is script), None)
                args = words[at + 1 :] if name in SHELLS and at is not None else None
                self.nested_words(inner[1], cmd, name, name in TABLES["remote-runners"], args)
            self.leave()
        if moves:
            self.cwd = saved
        return cmd

    def in_container(self, inner: tuple, cmd: Command, via: list[str]) -> None:
        """Analyse the argv a container runs: its paths under a bind mount are the host's
        (``-v /:/host`` … ``rm -rf /host/etc`` deletes ``/etc``), its other absolute paths are
        the container's own (``container:/etc``: no host path); ``-w`` is its directory."""
        _, argvs, mounts, workdir = inner
        saved = self.mounts, self.cwd
        if mounts is not None:
            here = join_path(self.budget.root_dir, self.cwd or ".")  # the host's, not the box's
            table = [
                (
                    normalize_path(dst),
                    self.host_path(src) if src[:1] == "/" else host_source(src, here),
                )
                for dst, src in mounts
            ]
            self.mounts = sorted(table, key=lambda m: -len(m[0]))
            self.cwd = self.host_path(normalize_path("/" + (workdir or "/")))
        try:
            for argv in argvs:
                self.budget.command()
                ran = self.run_command(argv, {}, via, span_of(argv) or cmd.span, expanded=True)
                reader = self.runs.get(id(ran), ran)
                self.runs[id(cmd)] = reader
                self.contained[id(reader)] = (self.mounts, self.cwd)
        finally:
            self.mounts, self.cwd = saved

    def printed(self, text: str) -> str | None:
        """What the command substitution ``text`` prints, when the line shows it."""
        return substitution_output(text, self.budget)

    def share_state(self, parent: Run) -> None:
        """A nested script (bash -c, a substitution, a here-document) runs on the same file
        system, repositories and container as ``parent``."""
        self.git_owner = parent if parent.git_owner is None else parent.git_owner
        self.links = parent.links
        self.mounts = parent.mounts

    def line_git(self) -> Any:
        """The line's ``shell.git.state.LineState``, shared by its nested scripts."""
        owner = self if self.git_owner is None else self.git_owner
        if owner.git is None:
            from hookgate.shell.git.state import LineState  # only a line running git pays for it

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
            self.supersede_body(name)
            zero = self.vars.get("0")
            arg0 = Word(zero.text if zero is not None else name, None, True, [])
            saved = self.functions
            self.functions = {k: v for k, v in saved.items() if k != name}
            self.enter()
            try:
                self.nested_printed(body, cmd, "function", args=[arg0, *words[1:]])
            finally:
                self.leave()
                self.functions = saved
        return cmd

    def run_alias(
        self, words: list[Word], env: dict[str, str], via: list[str], span: tuple[int, int]
    ) -> Command:
        """A command whose word is an alias bash expands here: the alias's text, then the
        other words, read as a script (nothing of it can be edited in place)."""
        value = self.aliases[words[0].text]
        parts = [value]
        k = 1
        # an alias ending in a blank makes bash read the next word as an alias too (alias
        # s='sudo '; s ll), and so on while the alias it gives ends in one
        while value[-1:] in (" ", "\t") and k < len(words) and self.alias_word(words[k]):
            value = self.aliases[words[k].text]
            parts.append(self.alias_text(words[k].text, frozenset()))
            k += 1
        cmd = Command(command_name(words[0].text), words, env, span, self.cwd, via)
        self.out.append(cmd)
        script = " ".join(parts + [single_quoted(w.text) for w in words[k:]])
        self.enter()
        self.nested_printed(script, cmd, "alias")
        self.leave()
        return cmd

    def alias_text(self, name: str, active: frozenset[str]) -> str:
        """Alias ``name``'s text, its first word expanded when that is another alias (bash
        reads an alias's text again as it reads the line; not an alias being expanded)."""
        text = self.aliases[name]
        head = text.lstrip()
        first = head.split(None, 1)[0] if head.strip() else ""
        if first in self.aliases and first not in active and first != name:
            return self.alias_text(first, active | {name}) + head[len(first) :]
        return text

    def alias_word(self, word: Word) -> bool:
        """Whether bash reads ``word`` as an alias: one of the line's, unexpanded and not
        quoted (its text is all of its span, where it has one)."""
        if word.text not in self.aliases or word.marks is not None:
            return False
        return word.span is None or word.span[1] - word.span[0] == len(word.text)

    def feed_shell(self, producer: Command, shell: Command) -> None:
        """``echo 'cmd' | sh`` and ``cat <<EOF | bash``: the producer's text is a script; so is
        what a pipeline the line shows prints (``echo … | base64 -d | sh``, ``printf '%s' …``)."""
        if producer.name == "cat" and self.budget.earlier is not None:
            for f in argv_operands([w.text for w in producer.words]):
                self.written(f, producer.cwd, run=True)  # cat p.sh | sh: p.sh under any name
        printed = printed_words(producer)
        read = script_format(shell.name)
        if printed and read is not None:
            text = " ".join(unescape(w).text for w in printed)
            self.nested_printed(read(text), shell, shell.name)
        elif printed and (producer.name == "echo" or plain_format(printed)):
            # printed as written: its words keep their offsets (a rewrite can edit them)
            self.nested_words([unescape(w) for w in printed], shell, shell.name)
        else:
            output = self.output(producer)
            if output:
                self.nested_printed(output, shell, shell.name)
        feeds = self.unread.get(id(producer))
        if feeds is not None:  # its here-documents are not read yet: the shell reads them too
            feeds.append(shell)

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
                text = command_output(c, stdin, self.budget.expand)
        return text

    def xargs_fed(
        self, cmd: Command, own: list[Word], command: list[Word], line: str | None
    ) -> str | None:
        """The script of the command ``xargs`` runs with ``line``, what it reads
        (``xargs_input``): in place of the replace string (``echo 'git push -f' | xargs -I{} sh
        -c '{}'``), else as more arguments (``echo -f | xargs git push``); None otherwise
        (``xargs_unseen``: cat list | xargs rm)."""
        if cmd.name != "xargs" or not command:
            return None
        if not line:
            return self.xargs_unseen(cmd)
        argv = [w.text for w in own]
        replace = xargs_replace(own)
        delimiter = xargs_value(argv, ("-d", "--delimiter"))
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
            size = xargs_value(argv, ("-n", "--max-args", "-L", "--max-lines"))
            n = int(size) if size is not None and size.isdigit() and int(size) > 0 else 0
            batches = [items[k : k + n] for k in range(0, len(items), n)] if n else [items]
            runs = [[w.text for w in command] + batch for batch in batches]
        self.budget.expand(sum(len(a) for run in runs for a in run))
        return "\n".join(" ".join(single_quoted(a) for a in run) for run in runs)

    def powershell(self, cmd: Command) -> None:
        """``pwsh -Command SCRIPT`` (``powershell``, ``-EncodedCommand``): each command of the
        script, read as PowerShell (shell/powershell.py, the reading of the hosts' PowerShell
        tools), as a command of this line run where ``cmd`` runs, with its environment. Their
        words have no place in the line: nothing rewrites them."""
        args = [w.text for w in cmd.words[1:]]
        script, workdir = powershell.script_of(cmd.name, args)
        if script is None:
            return
        self.budget.expand(len(script))
        cwd = join_path(self.cwd, workdir) if workdir else self.cwd
        for found in powershell.commands(script, cwd, [*cmd.via, cmd.name]):
            kinds = zip(found["argv"], found["kinds"], strict=True)
            words = [Word(a, None, k is None, kind=k) for a, k in kinds]
            env = {**cmd.env, **found["env"]}
            ran = Command(found["name"], words, env, cmd.span, found["cwd"], found["via"])
            ran.writes, ran.appends, ran.files = found["writes"], found["appends"], found["files"]
            ran.fed_by = found["fed_by"]
            self.out.append(ran)

    def xargs_input(self, own: list[Word]) -> str | None:
        """What ``xargs`` reads, when the line shows it: the file of ``-a f`` (written by the
        line), what the command piped into it prints, or its here-string."""
        arg_file = xargs_value([w.text for w in own], ("-a", "--arg-file"))
        if arg_file is not None:
            return self.written(arg_file, self.cwd)
        if self.piped_from is not None:
            line = self.output(self.piped_from)
            if line is None:
                printed = printed_words(self.piped_from)
                line = " ".join(unescape(w).text for w in printed) if printed else None
            return line
        return self.stdin_next

    def xargs_unread(self, own: list[Word], command: list[Word]) -> list[Word]:
        """The command ``xargs`` runs on input the line does not show, with what it reads as an
        unknown word: after its arguments, or each argument holding the replace string
        (``xargs -a flags git commit``: its options may be --no-verify, as ``git commit
        $FLAGS``'s may). A command that changes files by its operands gets ``xargs_ops``' paths
        instead."""
        if not command or command_name(command[0].text) in FILE_COMMANDS:
            return command
        # a file's (-a f, or stdin: xargs … < f) or a command's output
        arg_file = xargs_value([w.text for w in own], ("-a", "--arg-file"))
        kind = UNKNOWN_OUTPUT if arg_file is None and self.piped_from is not None else UNKNOWN_FILE
        replace = xargs_replace(own)
        if replace is None:
            return [*command, Word(FROM_XARGS, None, False, kind=kind)]
        return [Word(w.text, None, False, kind=kind) if replace in w.text else w for w in command]


def _producers(cmd: Command) -> list[str]:
    """The names of ``cmd`` and of the commands piped into it, nearest first."""
    names = [cmd.name]
    while cmd.piped is not None and len(names) <= MAX_NEST:
        cmd = cmd.piped
        names.append(cmd.name)
    return names


# Commands whose output is a file's content: $(cat f) is an unknown file, not a command's text.
_FILE_READERS = frozenset("cat head tail tac less more sed awk cut sort uniq jq yq".split())


def substitution_output(text: str, budget: Budget) -> str | None:
    """What ``$(…)``, ``` `…` ``` or ``<(…)`` (the whole of ``text``) prints, when that is
    known without running anything: the path ``which git``, ``command -v git`` or ``type -P
    git`` names (as ``git``), or what a lone ``echo`` or ``printf`` prints. None otherwise."""
    if text.startswith(("$(", "<(")) and text.endswith(")"):
        inner = text[2:-1]
    elif text.startswith("`") and text.endswith("`") and len(text) > 1:
        inner = text[1:-1]
    else:
        return None
    looked_up = lookup_command(inner)
    if looked_up is not None:
        return looked_up
    found = _analyse(inner, budget)
    printed = printed_words(found[0]) if len(found) == 1 else None
    return None if printed is None else " ".join(unescape(w).text for w in printed)


# analyse's results by line, asked often (a dict: functools.lru_cache's import costs a millisecond).
_ANALYSED: dict[object, tuple[Substitutions | None, tuple[Command, ...]]] = {}


def analyse(
    cmdline: str,
    substitutions: Substitutions | None = None,
    root_dir: str | None = None,
    earlier: SessionFiles | tuple[str, ...] | None = None,
) -> tuple[Command, ...]:
    """Every simple command in ``cmdline``, reading ``$(…)`` of the known-safe commands in
    ``substitutions`` (``expansion.compile_substitutions``) as what they yield, and matching
    file name patterns against the disk when ``root_dir`` (the directory the line runs in,
    absolute) is given; ``earlier`` are the files the session's earlier calls wrote
    (``files.SessionFiles``, or their absolute paths): a line that runs one runs its text, and
    one it cannot read asks. A ``LimitError`` past the bounds above."""
    if len(cmdline) > MAX_COMMAND_CHARS:
        raise LimitError(
            "command-size",
            f"shell analysis reads command lines of at most {MAX_COMMAND_CHARS} characters; "
            f"this one is longer ({len(cmdline)})",
        )
    if isinstance(earlier, tuple):
        earlier = SessionFiles(earlier) if earlier else None
    return _analyse(cmdline, Budget(substitutions, root_dir, earlier))


def _analyse(cmdline: str, budget: Budget) -> tuple[Command, ...]:
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
    Parser(cmdline, None, Run(0, out, None, [], budget)).parse()
    commands = tuple(out)
    if not may_read_disk(cmdline, budget.root_dir):
        if len(_ANALYSED) >= MAX_ANALYSED:
            _ANALYSED.clear()
        _ANALYSED[key] = (table, commands)
    return commands
