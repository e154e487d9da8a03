"""shell builtins: what a command line would run, without running anything.

They wrap the shell model (``hookgate.shell``): the lexer and parser that read a line as bash
would, with the original text's offsets kept for edits in place.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.shell.edits import apply_edits, removals
from hookgate.shell.parser import MAX_ANALYSED, MAX_COMMAND_CHARS, MAX_DEPTH, MAX_NEST, analyse
from hookgate.shell.words import (
    argv_has_option,
    argv_operands,
    join_path,
    normalize_option,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    arguments), ``ssh host cmd`` and ``kubectl exec … -- cmd``, wrappers (``sudo``, ``env``,
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
    ``-{f,}``, ``{1..3}``); a word that is a variable set earlier in the line
    (``G=git; $G push``), a command word ``$(which git)`` or ``$(echo git push)``, an unquoted
    argument ``$(echo -f)`` and words joined by an unquoted ``$IFS`` (``git${IFS}push``) are read
    as the shell splits them, and what ``echo`` or ``printf`` print into ``eval``, ``bash -c "$(…)"`` or
    ``source <(…)`` is a script, as is a file the line writes (``cat > f <<EOF``, ``echo … > f``,
    ``tee f``, appends too) and then runs (``bash f``, ``source f``, ``./f``) (their commands have no
    span in ``cmdline``: nothing can edit them in place).

    Each command is an object: ``name`` (the command word's basename, lower-cased, without
    ``.exe``), ``argv`` (unquoted words; a wrapper's argv stops where its inner command starts,
    and ``find`` keeps its words around ``-exec … ;``), ``env`` (leading assignments),
    ``span`` (``[start, end)`` character offsets into ``cmdline``), ``cwd`` (directory set by a preceding ``cd dir &&``, ``cd -``, ``pushd``/``popd`` or ``env -C``,
    relative to the payload's cwd, or ``null``), ``via`` (the wrappers/shells it runs under),
    ``stdin`` (the body of a here-document or a here-string fed to it, or ``null``), ``writes``
    (the files its redirections empty: ``> f``, ``>| f``, ``&> f``, ``>& f``, not ``>> f`` nor
    ``>&2``; a bare ``> f`` or ``(…) > f`` is a command with an empty name), ``appends`` (the
    files it appends to: ``>> f``, ``&>> f``), ``branch`` (for ``git``: the branch an earlier
    ``git switch -c x``, ``checkout -b x``, ``switch x`` of the line left that repository on,
    ``""`` after ``--detach``, else ``null``) and ``incomplete`` (the line had unbalanced quotes
    or was nested too deep; the text after an unterminated quote is analysed as commands too).
    Arguments of ``echo``, ``grep``, ``printf``,
    commit messages and here-documents fed to ``cat`` are data, never commands.
    """
    text = _text_arg(cmdline, "shell.commands: operand 1")
    values = _VALUES.get(text)
    if values is None:
        values = [c.to_value() for c in analyse(text)]
        if len(_VALUES) >= MAX_ANALYSED:
            _VALUES.clear()
        _VALUES[text] = values
    return values


# commands' results by command line, shared: policy values are never modified in place.
_VALUES: dict[str, list[dict[str, Any]]] = {}


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
        from hookgate.shell.git import has_option

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

    Absolute paths, ``~…`` and ``$VAR…`` paths are not joined; nothing on disk is consulted
    (no symlinks are followed), so ``/tmp/../etc`` is ``/etc``. ``base`` may be ``null``.
    """
    if base is not None:
        _text_arg(base, "shell.resolve: operand 1")
    return join_path(base, _text_arg(path, "shell.resolve: operand 2"))
