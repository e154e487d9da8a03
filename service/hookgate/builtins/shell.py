"""shell builtins: what a command line would run, without running anything.

They wrap the shell model (``hookgate.shell``): the lexer and parser that read a line as bash
would, with the original text's offsets kept for edits in place.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.lang.errors import LimitError
from hookgate.shell.analysis import analyse
from hookgate.shell.edits import apply_edits, removals
from hookgate.shell.expansion import compile_substitutions
from hookgate.shell.files import UNREAD, FilesNeeded
from hookgate.shell.git.argv import has_option
from hookgate.shell.launcher_table import TABLES
from hookgate.shell.limits import MAX_ANALYSED, MAX_COMMAND_CHARS, MAX_DEPTH, MAX_NEST
from hookgate.shell.patterns import may_read_disk
from hookgate.shell.words import (
    argv_has_option,
    argv_operands,
    join_path,
    normalize_option,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookgate.shell.words import Command

# Re-exported for policies' tests and tools that read the bounds and helpers from here.
__all__ = [
    "MAX_COMMAND_CHARS",
    "MAX_DEPTH",
    "MAX_NEST",
    "analyse",
    "apply_edits",
    "commands",
    "has_flag",
    "normalize_option",
    "operands",
    "resolve",
    "without_flags",
]


def _text_arg(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise BuiltinError(f"{what} must be a string")
    return value


def _flag_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict) or not hasattr(value, "__iter__"):
        raise BuiltinError("flags must be a string, an array or a set of strings")
    flags = list(value)
    if not all(isinstance(f, str) for f in flags):
        raise BuiltinError("flags must be a string, an array or a set of strings")
    return flags


@builtin("shell.commands", "shell", 1)
def commands(cmdline: Any) -> list[dict[str, Any]]:
    """Every simple command that ``cmdline`` would run, in order, without running anything.

    Sees through ``;`` ``&&`` ``||`` ``|`` ``&`` and newlines, subshells, brace groups, ``$( )``,
    backticks and process substitution, ``((…))`` (two subshells to dash), ``bash|sh|zsh -c``
    (and ``-lc``, recursively to a bounded depth), ``eval``, here-documents and here-strings (and
    ``echo …``) fed to a shell, what ``echo …`` feeds ``xargs`` (in place of ``-I{}``, or as
    arguments; input the line does not show is an unknown word there, ``$(xargs)``, so ``git``
    options it may add are unknown), the script of ``pwsh``/``powershell -Command``
    (``-EncodedCommand``) read as PowerShell (``powershell.commands``), ``ssh host cmd`` and ``kubectl exec … -- cmd``, wrappers (``sudo``, ``env``,
    ``command``, ``exec``, ``nohup``, ``time``, ``nice``, ``timeout``, ``setsid``, ``xargs``, ``find -exec``, ``parallel``, ``script -c``, ``tmux``, ``screen``,
    ``at``, …), commands git runs (``rebase -x``, ``submodule foreach``, ``bisect run``,
    ``-c alias.x='!…'``, and what an alias ``git config alias.x …`` defines will run), the
    programs that run other programs of ``shell/launchers.txt`` (package runners such as ``npx``,
    ``busybox`` applets, ``awk`` programs' ``system()``, makefile recipes, ``parallel`` jobs,
    ``docker run`` commands: under a bind mount a path is the host's, any other absolute path the
    container's own, written ``container:/path``; ``chroot`` likewise), paths an earlier ``mv`` or
    ``ln -s`` of the line moved (``rm -rf h/`` after ``ln -s ~ h`` is ``rm -rf ~``) and leading
    ``VAR=value`` assignments. Quoting and escapes are removed
    (``g'i't`` and ``\\git`` are ``git``); brace expansion is made in any word (``{git,push}``,
    ``-{f,}``, ``{1..3}``); what bash expands from the line's own text is expanded and split as
    bash splits it: variables and arrays set earlier in the line (``G=git; $G push``,
    ``a=(-f x); "${a[@]}"``), positional parameters (``set -- a b``, ``bash -c '…' arg0 args``),
    parameter operators on known values (``${v:-x}``, ``${v:+x}``, ``${v#p}``, ``${v//p/r}``,
    ``${v:1:2}``, ``${v^^}``, ``${#v}``), a variable inside a word (``r${x}m``), ``$(which
    git)``, ``$(echo -f)``, quoted or not, and words joined by ``$IFS`` (``git${IFS}push``), and what ``echo`` or ``printf`` print into ``eval``, ``bash -c "$(…)"`` or
    ``source <(…)`` is a script, as is a file the line writes (``cat > f <<EOF``, ``echo … > f``,
    ``tee f``, appends too) and then runs (``bash f``, ``source f``, ``./f``) (their commands have no
    span in ``cmdline``: nothing can edit them in place).

    Each command is an object: ``name`` (the command word's basename, lower-cased, without
    ``.exe``), ``argv`` (unquoted words; a wrapper's argv stops where its inner command starts,
    and ``find`` keeps its words around ``-exec … ;``), ``env`` (leading assignments),
    ``span`` (``[start, end)`` character offsets into ``cmdline``), ``cwd`` (directory set by a preceding ``cd dir &&``, ``cd -``, ``pushd``/``popd`` or ``env -C``,
    relative to the payload's cwd, or ``null``), ``via`` (the wrappers/shells it runs under),
    ``stdin`` (the body of a here-document or a here-string fed to it, or ``null``),
    ``stdin_file`` (the file it reads on stdin when the line names it but does not show its
    text: ``< f``, ``cat f |``; relative to the payload's cwd, else ``null``), ``writes``
    (the files its redirections empty: ``> f``, ``>| f``, ``&> f``, ``>& f``, not ``>> f`` nor
    ``>&2``; a bare ``> f`` or ``(…) > f`` is a command with an empty name), ``appends`` (the
    files it appends to: ``>> f``, ``&>> f``), ``branch`` (for ``git``: the branch an earlier
    ``git switch -c x``, ``checkout -b x``, ``switch x`` of the line left that repository on,
    ``""`` after ``--detach``, else ``null``), ``git_config`` (for ``git``: what earlier ``git
    config`` commands of the line wrote to the configuration it reads, ``[op, key, value]`` with
    op ``set``/``add``/``unset``), ``fed_by`` (for a shell or interpreter that runs what other
    commands print: their names, nearest first, as in ``curl … | tee l | bash``, ``bash <
    <(curl …)``, ``curl … > >(sh)``, ``source <(curl …)``; for a command whose command word is
    what they print, ``$(curl …)``, which the shell runs as a command and in ``bash <<<
    "$(curl …)"``, ``bash -c "$(curl …)"`` or ``eval "$(curl …)"`` reads as the script: those
    of its command substitutions; else empty), ``files`` (its write
    effects: ``{op, path, from, content, mode}``, the path after the line's ``cd``, the content
    where the line shows it; see docs/reference/effects.md), ``machine`` (``"remote"`` for a
    command run on another machine, under ``ssh``, ``kubectl exec`` and the other
    ``[remote-runners]`` of ``shell/launchers.txt``: its paths are that machine's; absent for a
    command run here), ``kinds`` (one per ``argv`` word:
    ``null`` when
    the line shows its text; else what an expansion in it may be: ``unknown-variable`` (a
    variable the line does not set, such as ``$HOME``), ``unknown-output`` (a command's output),
    ``unknown-file`` (a file's content: ``$(cat f)``, ``$(< f)``), ``unknown-number``
    (``$?``, ``$((…))`` of a variable the line does not set), ``unknown-glob`` (a file name pattern not matched in full), each kept
    as written, or what a known-safe substitution yields, see ``shell.commands_with``) and
    ``incomplete`` (the line had unbalanced quotes
    or was nested too deep; the text after an unterminated quote is analysed as commands too).
    Arguments of ``echo``, ``grep``, ``printf``,
    commit messages and here-documents fed to ``cat`` are data, never commands.
    """
    return _analysed(_text_arg(cmdline, "shell.commands: operand 1"))


# Programs whose command runs on another machine.
REMOTE_RUNNERS = frozenset(TABLES["remote-runners"])

# commands' results (or the limit reached) by command line and context, shared: policy values
# are never modified in place.
_VALUES: dict[object, list[dict[str, Any]] | LimitError | None] = {}


def _analysed(
    text: str, table: Any = None, root_dir: str | None = None, earlier: Any = None
) -> list[dict[str, Any]] | None:
    key = (
        text
        if table is None and root_dir is None and not earlier
        else (text, id(table), root_dir, earlier)
    )
    values = _VALUES.get(key, _VALUES)
    if values is _VALUES:
        try:
            values = [_value(c) for c in analyse(text, table, root_dir, earlier)]
        except FilesNeeded:
            values = None  # (only with UNREAD: the same line needs them whatever they are)
        except LimitError as exc:
            # The same line reaches the same bound: when the engine then evaluates each pack
            # alone, none of them reads the line up to the bound again.
            values = exc
        if not may_read_disk(text, root_dir):
            if len(_VALUES) >= MAX_ANALYSED:
                _VALUES.clear()
            _VALUES[key] = values
    if type(values) is LimitError:
        raise LimitError(values.limit, values.message)
    return values


def _value(cmd: Command) -> dict[str, Any]:
    value = cmd.to_value()
    if not REMOTE_RUNNERS.isdisjoint(cmd.via):
        value["machine"] = "remote"
    return value


@builtin("shell.commands_with", "shell", 2)
def commands_with(cmdline: Any, context: Any) -> list[dict[str, Any]] | None:
    """``shell.commands(cmdline)`` with what the line's context tells: ``context`` is
    ``{"substitutions": [...], "cwd": "/abs/dir"}`` (either may be absent; an array alone is
    the substitutions).

    ``substitutions`` are the known-safe command substitutions: ``[{"command": "mktemp -d",
    "yields": "temp", "text": "$TMPDIR/tmp.hookgate"}, …]`` (``data.hookgate.config.shell.
    substitutions``; a word of ``command`` ending in ``*`` matches any word starting with the
    rest, as ``date +*``). A word holding one has that ``yields`` as its kind (``kinds``) and
    ``text`` as its text (the substitution as written when there is none): ``TMP=$(mktemp -d);
    rm -rf "$TMP"`` removes ``$TMPDIR/tmp.hookgate``, a word of kind ``temp``; ``$(git branch
    --show-current)`` is a ``branch``, never an option (git refuses names that start with ``-``).

    With ``cwd`` (the directory the line runs in), unquoted file name patterns are matched
    against the disk as bash matches them (``/bin/r?`` is ``/bin/rm``, ``.??*`` is ``.git``),
    relative ones in the directory each command runs in; a pattern matching nothing stays as
    written, and one whose matching would read more than 4,096 directory entries is an unknown
    word of kind ``unknown-glob``.

    ``files`` are the files the session's earlier calls wrote (``hookgate.session_files``'s
    object, or their absolute paths): a line that runs one (``bash x.sh``, ``./x.sh``, ``source
    x.sh``, ``bash < x.sh``, ``python3 x.py``), under any name (found by device and inode, or by
    content), runs the text it holds on disk now (a regular file of at most 64 KiB), as if the
    line had written it; one it can no longer read, that the memory forgot, or that the line
    changed in a way it does not show (``sed -i``) stops the analysis with a limit (ask).
    ``"files": "unread"`` reads the line without them, and answers ``null`` for a line whose
    commands depend on them (one that runs, copies, appends to or reads a file it did not
    write itself): the caller then reads them (``hookgate.session_files``) and asks again. Any
    other answer is the same for every session, so most lines never read the memory.
    """
    text = _text_arg(cmdline, "shell.commands_with: operand 1")
    earlier: Any = None
    if isinstance(context, dict):
        entries = context.get("substitutions")
        cwd = context.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise BuiltinError("shell.commands_with: operand 2: cwd must be a string")
        files = context.get("files")
        if files == "unread":
            earlier = UNREAD
        elif files is not None:
            earlier = _session_files(files)
    else:
        entries, cwd = context, None
    table = None if entries is None else _table(entries)
    root_dir = cwd if cwd is not None and cwd.startswith("/") else None
    return _analysed(text, table, root_dir, earlier)


def _session_files(files: Any) -> Any:
    """``files`` as ``shell.files.SessionFiles``, made once per value (each evaluation reads
    the memory anew: a new value, so no analysis cached under an older one is reused)."""
    found = _MEMORIES.get(id(files))
    if found is not None and found[0] is files:
        return found[1]
    from hookgate.shell.files import SessionFiles

    try:
        memory = SessionFiles(files)
    except ValueError as e:
        raise BuiltinError(f"shell.commands_with: operand 2: {e}") from None
    if len(_MEMORIES) >= 8:
        _MEMORIES.clear()
    _MEMORIES[id(files)] = (files, memory)
    return memory if memory else None


_MEMORIES: dict[int, tuple[Any, Any]] = {}


def _table(entries: Any) -> Any:
    """The compiled table of ``entries``, compiled once while the same data is in use (kept
    here, so that its identity names it in the analyses' caches)."""
    found = _TABLES.get(id(entries))
    if found is not None and found[0] is entries:
        return found[1]
    for kept, table in _TABLES.values():  # the same data, read anew
        if kept == entries:
            return table
    try:
        table = compile_substitutions(list(entries) if isinstance(entries, tuple) else entries)
    except ValueError as e:
        raise BuiltinError(f"shell.commands_with: operand 2: {e}") from None
    if len(_TABLES) >= 8:
        _TABLES.clear()
        _VALUES.clear()  # keyed by the ids of tables no longer kept
    _TABLES[id(entries)] = (entries, table)
    return table


_TABLES: dict[int, tuple[Any, Any]] = {}


@builtin("shell.operands", "shell", 1)
def operands(cmd: Any) -> list[str]:
    """The operands of command ``cmd`` (from ``shell.commands``): ``argv[1:]`` without options.

    A word starting with ``-`` (or a look-alike Unicode dash) is an option, except a lone
    ``-``; every word after ``--`` is an operand. Generic: values of options such as
    ``-o file`` count as operands (use ``git.parse`` for git's own table).
    """
    if not isinstance(cmd, dict) or not isinstance(cmd.get("argv"), list):
        raise BuiltinError("shell.operands: operand 1 must be a command from shell.commands")
    return argv_operands([str(a) for a in cmd["argv"]])


@builtin("shell.has_flag", "shell", 2)
def has_flag(cmd: Any, flag: Any) -> bool:
    """Whether command ``cmd`` carries option ``flag``.

    ``cmd`` is a command from ``shell.commands`` or a ``git.parse`` result. Understands bundled
    short options (``-nm`` carries ``-n``), ``--flag=value``, ``--`` ending the options and
    Unicode look-alike dashes. On a ``git.parse`` result it uses git's own option table for that
    subcommand: values of options are not options (``-m -n``), short forms and unambiguous
    abbreviations count as their long names (``-n`` is ``--no-verify`` for ``commit`` only).
    """
    flag = normalize_option(_text_arg(flag, "shell.has_flag: operand 2"))
    if isinstance(cmd, dict) and "options" in cmd and "subcommand" in cmd:
        return has_option(cmd, flag)
    if not isinstance(cmd, dict) or not isinstance(cmd.get("argv"), list):
        raise BuiltinError("shell.has_flag: operand 1 must be a command from shell.commands")
    return argv_has_option([str(a) for a in cmd["argv"]], flag)


@builtin("shell.without_flags", "shell", 2)
def without_flags(cmdline: Any, flags: Any) -> str:
    """``cmdline`` with the options ``flags`` removed from every command, all else byte for byte.

    ``flags`` is a string, an array or a set (``{"--force", "-f"}``). A long flag also removes
    its ``--flag=value`` form; a short flag is removed from bundles (``-fu`` becomes ``-u``).
    Words after ``--`` are operands and are kept; so are spellings that cannot be edited in
    place (a flag split by escapes inside a nested ``bash -c`` string). The blanks before a
    removed word go with it.
    """
    text = _text_arg(cmdline, "shell.without_flags: operand 1")
    names = [normalize_option(f) for f in _flag_list(flags)]
    edits = [e for c in analyse(text) if c.name for e in removals(c, names)]
    return apply_edits(text, edits)


@builtin("shell.resolve", "shell", 2)
def resolve(base: Any, path: Any) -> str:
    """``path`` joined onto directory ``base`` and normalized lexically (``.``/``..``).

    Absolute paths, ``~…`` and ``$VAR…`` paths are not joined (``$PWD``/``${PWD}`` at the start
    is ``base`` itself: bash keeps it the directory it is in); nothing on disk is consulted
    (no symlinks are followed), so ``/tmp/../etc`` is ``/etc``. ``base`` may be ``null``.
    """
    if base is not None:
        _text_arg(base, "shell.resolve: operand 1")
    return join_path(base, _text_arg(path, "shell.resolve: operand 2"))
