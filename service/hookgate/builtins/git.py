"""git builtins: a git command line parsed the way git parses it, and the current branch on disk.

They wrap the git part of the shell model (``hookgate.shell.git``).
"""

from __future__ import annotations

import os

from hookgate.builtins.registry import EVALUATION, BuiltinError, builtin
from hookgate.builtins.shell import _table, commands_with
from hookgate.lang.errors import LimitError
from hookgate.shell.analysis import analyse
from hookgate.shell.edits import apply_edits
from hookgate.shell.files import UNREAD, FilesNeeded
from hookgate.shell.git import repo
from hookgate.shell.git.argv import (
    has_option,
    parse_argv,
    push_force_changes,
    push_force_edits,
    reparse,
    without_push_force,
)
from hookgate.shell.launchers import run_texts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "branch",
    "checkout_target",
    "config",
    "config_read",
    "configure",
    "force_removal",
    "has_option",
    "hooks_dir",
    "parse",
    "parse_argv",
    "parse_in",
    "subcommand",
    "without_force",
]


def _command_arg(cmd: Any, what: str) -> dict[str, Any]:
    if not isinstance(cmd, dict) or not isinstance(cmd.get("argv"), list) or not cmd["argv"]:
        raise BuiltinError(f"{what}: operand 1 must be a command from shell.commands")
    return cmd


@builtin("git.parse", "git", 1)
def parse(cmd: Any) -> dict[str, Any]:
    """Parse a ``git`` command (from ``shell.commands``) the way git does.

    Returns ``subcommand`` (lower-cased; an alias given with ``-c alias.x=…`` is expanded;
    ``null`` if none), ``args`` (the words after it), ``options`` (``[{name, value}]``: short
    forms and unambiguous abbreviations under their long name for known subcommands, so ``-n``
    is ``--no-verify`` for ``commit`` but ``--dry-run`` for ``push``; bundles expanded; values of
    value-taking options attached), ``operands``, ``globals`` (``-C``, ``-c``, ``--git-dir``,
    ``--work-tree``, ``--no-pager``, … in order, attached forms too), ``dir`` (the command's
    ``cwd`` with every ``-C`` applied, relative to the payload's cwd; ``"."`` if none),
    ``git_dir``/``work_tree`` (from options or ``GIT_DIR``/``GIT_WORK_TREE``), ``place``
    (where git finds the repository: ``git_dir`` when set, else ``dir``), ``config``
    (``-c``, ``--config-env`` and ``GIT_CONFIG_*`` settings, keys lower-cased as git compares
    them: ``core.hookspath``), ``help`` (``--help``/``-h``/``git help``: nothing runs),
    ``target_known`` (false when ``-C``/``--git-dir``/``--work-tree`` is a value the line does
    not show; ``$(git rev-parse --show-toplevel)`` is the repository it runs in), ``unknown``
    (words the line does not show, ``$OPTS``, where git may read them as options: before
    ``--``, not an option's value; by the command's ``kinds`` from ``shell.commands_with``, a
    known-safe substitution that yields a branch, revision, number or path, such as ``$(git
    branch --show-current)``, is never an option), ``alias`` and ``script`` (see
    ``git.parse_in``), ``reads_config`` (whether the repository's configuration can change what
    the command does in ways ``git.parse_in`` reads: a name that is no git command, so may be
    an alias, or push, send-pack, pull, merge, clean, and commit, rebase, am for their hooks),
    ``hooks_path`` (the effective ``core.hooksPath``, ``null`` if not set), ``config_unknown``
    (``[{"path", "why"}]``: configuration files that could not be read, from ``git.config_read``
    and files the line changed in a way it does not show, such as ``cp x ~/.gitconfig``) and
    ``may_be_alias`` (a name git would look up as an alias that no known setting defines).
    Earlier ``git config`` commands of the line, and what the line wrote into git's files
    (``~/.gitconfig``, the XDG file, ``.git/config``, ``.git/config.worktree``, included
    files), count (``cmd.git_config``).
    """
    return _parse(cmd, None, "git.parse")


def _parse(cmd: Any, repo_config: Any, what: str, parsed: Any = None) -> dict[str, Any]:
    c = _command_arg(cmd, what)
    env = c.get("env") if isinstance(c.get("env"), dict) else {}
    cwd = c.get("cwd") if isinstance(c.get("cwd"), str) else None
    ops = c.get("git_config") if isinstance(c.get("git_config"), list) else ()
    kinds = c.get("kinds") if isinstance(c.get("kinds"), list) else ()
    on_disk = repo_config if isinstance(repo_config, dict) else None
    argv = list(map(str, c["argv"]))
    if parsed is None:
        out = parse_argv(argv, env, cwd, on_disk, ops, kinds)
        if on_disk is None:
            return out
        parsed = parse_argv(argv, env, cwd, None, ops, kinds)
    else:
        out = reparse(parsed, argv, env, cwd, on_disk, ops, kinds)
    if (
        out["alias"] == parsed["alias"]
        and out["script"] == parsed["script"]
        and out["subcommand"] == parsed["subcommand"]
        and out["args"] == parsed["args"]
    ):
        return out  # (the line's own words: the shell model read what they run)
    # An alias of the repository's configuration, not the line's: what git runs through it
    shown = run_texts(parsed)
    runs = [text for text in run_texts(out) if text not in shown]
    return {**out, "alias_from": "configuration", "config_runs": runs}


@builtin("git.parse_in", "git", 2)
def parse_in(cmd: Any, repo_config: Any) -> dict[str, Any]:
    """``git.parse`` of a command in a repository whose configuration is ``repo_config``.

    ``repo_config`` is what ``git.config`` or ``git.config_read`` answers (``null``: none
    known; the files ``git.config_read`` could not read are in ``config_unknown``). Besides what
    ``git.parse`` gives, configuration is read the way git reads it: the repository's files,
    then what earlier ``git config`` commands of the line wrote (``cmd.git_config``), then the
    command line's settings. A configured alias is expanded into what it runs (``alias.p =
    push --force``: ``subcommand`` ``push``, ``alias`` ``"p"``; a shell alias ``!…`` gives its
    text as ``script``; where the alias is the configuration's, not the line's, ``alias_from``
    is ``"configuration"`` and ``config_runs`` lists the scripts git runs through it as shell
    texts: its ``!`` text, ``rebase -x …``, a program its own ``-c`` names), and options that
    configuration makes the command behave as if given are added to ``options`` with the key
    that implies them (``{"name": "--force", "config": "remote.origin.push"}`` for a ``+``
    push refspec; ``--mirror`` for ``remote.<r>.mirror``;
    ``--no-rebase``/``--no-ff``/``--ff-only`` for ``pull.rebase``/``pull.ff``/``merge.ff``;
    ``--force`` for ``git clean`` with ``clean.requireForce`` false). With a
    ``git.config_read`` answer that has a ``branch``, the parse has it too (``branch``: the
    current branch of the repository, as ``git.branch`` answers; ``null`` for none), so that a
    guard asks the disk once for both; without one, the parse has no ``branch``.
    """
    return _parse(cmd, repo_config, "git.parse_in")


_PARSE_KEYS = frozenset(("subcommand", "args", "alias", "script", "options", "operands"))


@builtin("git.configure", "git", 3)
def configure(parsed: Any, cmd: Any, repo_config: Any) -> dict[str, Any]:
    """``git.parse_in(cmd, repo_config)``, from ``parsed``, what ``git.parse(cmd)`` answered.

    The same answer for less work: where the repository's configuration expands no alias of
    the command, its words are not read again and only what configuration changes is redone
    (the options it implies, ``hooks_path``, ``config_unknown``, ``branch``); where it does,
    the whole parse. For a guard that parses every git command and reads the configuration of
    those whose ``reads_config`` is true. ``parsed`` must be ``git.parse(cmd)``'s answer: its
    words and options are taken as they are.
    """
    if not isinstance(parsed, dict) or not _PARSE_KEYS <= parsed.keys():
        raise BuiltinError("git.configure: operand 1 must be what git.parse answers")
    return _parse(cmd, repo_config, "git.configure", parsed)


@builtin("git.subcommand", "git", 1)
def subcommand(cmd: Any) -> str | None:
    """The git subcommand a ``git`` command runs (``push`` for ``git -C repo push -f``), or null.

    Global options before it are skipped as git skips them; ``-c alias.x=…`` aliases are
    expanded; ``null`` if the command is not ``git`` or has no subcommand.
    """
    c = _command_arg(cmd, "git.subcommand")
    if c.get("name") not in (None, "git"):
        return None
    return parse(c)["subcommand"]


@builtin("git.without_force", "git", 1)
def without_force(cmdline: Any) -> str:
    """``cmdline`` with every ``git push`` made a normal push, all else byte for byte.

    Removes ``--force``, ``-f`` (also from bundles: ``-fu`` becomes ``-u``),
    ``--force-with-lease[=…]``, ``--force-if-includes`` and the ``+`` of forced refspecs
    (``+main`` becomes ``main``), keeping remote, refspecs, other options and the rest of the
    line. A spelling that cannot be edited in place is left as it is (``git.force_removal``
    says which pushes still force).
    """
    text = _cmdline_arg(cmdline, "git.without_force")
    edits = [
        e
        for c in analyse(text)
        if c.name == "git"
        for e in push_force_edits(c.words, push_force_changes(c.words))
    ]
    return apply_edits(text, edits)


@builtin("git.force_removal", "git", 2)
def force_removal(cmdline: Any, context: Any) -> dict[str, Any]:
    """``git.without_force`` with what it could not remove: ``{"command", "pushes"}``.

    ``command`` is what ``git.without_force(cmdline)`` answers. ``pushes`` is what ``git.parse``
    answers for each ``git`` command of ``command`` whose ``subcommand`` is ``push``, as
    ``shell.commands_with(command, context)`` reads them (``context`` as there; its ``files``
    are not read): a push through an alias, a spelling the rewrite leaves as written
    (``-f"u"``) or a ``-c`` / earlier ``git config`` setting of the line may still force. It
    is worked out from the analysis of ``cmdline`` with the rewrite's changes made to each
    command's words, so that a policy checking the rewritten line needs no second analysis of
    it; ``null`` where that analysis cannot tell: a command or word the line does not show as
    written (one ``xargs`` is fed, ``$X``, a file the line runs), a word the context reads
    otherwise (a known-safe substitution, a file name pattern), or a line whose commands
    depend on the session's files. Then read ``command`` with ``shell.commands_with``.
    """
    text = _cmdline_arg(cmdline, "git.force_removal")
    if not isinstance(context, dict):
        raise BuiltinError("git.force_removal: operand 2 must be an object")
    commands = _as_written(text, context)
    changes = [push_force_changes(c.words) if c.name == "git" else [] for c in commands]
    edits = [
        e for c, ch in zip(commands, changes, strict=True) for e in push_force_edits(c.words, ch)
    ]
    return {
        "command": apply_edits(text, edits),
        "pushes": _pushes(text, context, commands, changes),
    }


def _pushes(
    text: str, context: Any, commands: tuple[Any, ...], changes: list[list[tuple[int, str]]]
) -> list[dict[str, Any]] | None:
    """The parses of the pushes ``commands`` make once ``changes`` are made, or None where
    the line's commands read in ``context`` are not ``commands`` written out word for word."""
    values = commands_with(text, {**context, "files": "unread"})
    if values is None or len(values) != len(commands):
        return None
    pushes = []
    for c, v, ch in zip(commands, values, changes, strict=True):
        if c.name != "git":
            continue  # (a push is a git command: only those are read)
        argv = v["argv"]
        written = [w.text for w in c.words if w.span is not None and w.kind is None]
        if argv != written or any(v["kinds"]):
            return None  # a word the line does not show as written, or read otherwise
        parsed = parse_argv(without_push_force(argv, ch), v["env"], v["cwd"], None, v["git_config"])
        if parsed["subcommand"] == "push":
            pushes.append(parsed)
    return pushes


def _as_written(text: str, context: dict[str, Any]) -> tuple[Any, ...]:
    """``analyse(text)``: the commands of the line as written, whose words the rewrite edits.
    Where nothing of ``context`` can be read, that is the analysis the pack already made of the
    line in its context (``shell.commands_with``'s, without the session's files), shared
    instead of made again: no command substitution (the known-safe table reads those), no file
    name pattern (the disk), every command run by none other (a container's mounts place its
    words; a file a command runs needs the session's files, and that analysis gives up)."""
    if "$(" in text or "`" in text or "*" in text or "?" in text or "[" in text:
        return analyse(text)
    entries = context.get("substitutions")
    cwd = context.get("cwd")
    try:
        shared = analyse(
            text,
            None if entries is None else _table(entries),
            cwd if isinstance(cwd, str) and cwd.startswith("/") else None,
            UNREAD,
        )
    except (FilesNeeded, BuiltinError, LimitError):
        return analyse(text)
    return shared if all(not c.via for c in shared) else analyse(text)


def _cmdline_arg(cmdline: Any, what: str) -> str:
    if not isinstance(cmdline, str):
        raise BuiltinError(f"{what}: operand 1 must be a string")
    return cmdline


@builtin("git.branch", "git", 1, reads_host=True)
def branch(directory: Any) -> str | None:
    """The current branch of the repository containing ``directory``, read from its files.

    ``directory`` must be absolute (resolve it with ``shell.resolve(input.cwd, …)``; ``~`` is
    the user's home). Finds ``.git`` directories, ``.git`` files of worktrees and submodules
    (``gitdir:``) and bare repositories, walking upward a bounded number of levels without
    following symlinks or starting a process. ``null`` for a detached HEAD, no repository, or a
    relative path (never the hook process's own working directory). Where ``git.config_read``
    of the same ``directory`` answered a ``branch`` earlier in the same evaluation, that is the
    answer: the repository is searched for once (never across evaluations).
    """
    if not isinstance(directory, str):
        raise BuiltinError("git.branch: operand 1 must be a string")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return None
    found = EVALUATION.get()
    if found is not None and ("git.branch", path) in found:
        return found["git.branch", path]  # git.config_read's search in this evaluation
    return repo.current_branch(path)


@builtin("git.config", "git", 1, reads_host=True)
def config(directory: Any) -> dict[str, list[str]]:
    """The configuration of the repository containing ``directory``, as git reads it from disk.

    An object from canonical key (section and variable lower-case, subsection as written:
    ``remote.origin.push``) to every value in git's order: the system file, the global files
    (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``, or ``GIT_CONFIG_GLOBAL``), the
    repository's ``config`` and ``config.worktree``, ``include.path`` and ``includeIf``.
    ``directory`` must be absolute (``git.branch`` finds the repository the same way); a
    relative path or no repository gives ``{}``. Symlinks are followed to regular files only,
    files bounded in size and number; parsed files are cached by path, mtime and size. What could not
    be read is missing here: ``git.config_read`` says which files and why.
    """
    if not isinstance(directory, str):
        raise BuiltinError("git.config: operand 1 must be a string")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return {}
    # only a policy reading the configuration pays for the file reader
    from hookgate.shell.git.config import repository_config

    return repository_config(path)


@builtin("git.config_read", "git", 1, reads_host=True)
def config_read(directory: Any) -> dict[str, Any]:
    """``git.config`` with what the reader could not read: ``{"values", "files", "unknown"}``.

    ``values`` is what ``git.config`` answers (the system file too, ``GIT_CONFIG_SYSTEM`` or
    ``/etc/gitconfig`` unless ``GIT_CONFIG_NOSYSTEM``; ``GIT_CONFIG_GLOBAL`` and
    ``XDG_CONFIG_HOME`` as the hook's environment gives them), ``files`` every file read in
    order, ``origins`` key → the ``[scope, file]`` of each of its values (scope ``system``,
    ``global``, ``local`` or ``worktree``: the file read, or one it includes), ``writes`` scope
    → the file ``git config --<scope>`` writes (``~/.gitconfig``, or the XDG file when only
    that one exists), and ``unknown`` ``[{"path", "why"}]`` every file the reader gave up on:
    a symlinked ``.git`` (a symlinked file is followed as git follows it, to a regular file only), a FIFO
    or other non-regular file, a link loop, an unreadable or too large file, includes past the depth or count
    bound, an include path it cannot expand, a file git itself would refuse. A non-empty
    ``unknown`` means the answer is incomplete: a setting missing from ``values`` may be set.
    ``dormant`` (when present) is a ``config.worktree`` git does not read now but would once
    ``extensions.worktreeConfig`` is on (``git.parse_in`` counts it as unknown for a command
    that turns it on). ``branch`` is what ``git.branch`` answers for ``directory`` (the
    repository is found once for both), absent where the search gave up on a ``.git``. A
    relative ``directory`` or no repository: nothing read, nothing unknown, a ``null`` branch
    (a symlinked ``.git`` on the way up is unknown, and no branch is given).
    """
    if not isinstance(directory, str):
        raise BuiltinError("git.config_read: operand 1 must be a string")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return {"values": {}, "files": [], "unknown": [], "branch": None}
    from hookgate.shell.git.config import state

    out = state(path)
    found = EVALUATION.get()
    if found is not None and "branch" in out:
        # a commit's guards ask for its configuration, then its branch (git.branch): the
        # repository is searched for once, each step of the search a system call
        found["git.branch", path] = out["branch"]
    return out


@builtin("git.hooks_dir", "git", 2, reads_host=True)
def hooks_dir(directory: Any, value: Any) -> dict[str, Any] | None:
    """Where git looks for the hooks of the repository containing absolute ``directory`` when
    the effective ``core.hooksPath`` is ``value`` (``null``: not set).

    ``{"path", "own", "exists"}``: the absolute directory (``~/`` is the user's home; a
    relative value is relative to the top of the work tree, where git runs hooks), whether it
    is the repository's own ``hooks`` directory, and whether a directory is there (git runs no
    hook from a path that is not one). ``null`` without a repository or for a relative
    ``directory``.
    """
    if not isinstance(directory, str) or not (value is None or isinstance(value, str)):
        raise BuiltinError("git.hooks_dir: operands must be a string and a string or null")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return None
    return repo.hooks_dir(path, value, os.path.expanduser("~") or None)


@builtin("git.checkout_target", "git", 2, reads_host=True)
def checkout_target(directory: Any, name: Any) -> str | None:
    """How ``git checkout <name>`` (one operand, no ``--``) reads ``name`` in the repository
    containing absolute ``directory``.

    ``"revision"``: a branch, tag, remote branch ``checkout`` would track, an object id or a
    revision expression (``HEAD~1``, ``-``); ``"path"``: no such revision, but a file or
    directory of that name exists in ``directory``, which git restores from the index,
    discarding its changes; ``null``: no repository, a relative directory, or neither. Reads
    loose refs and ``packed-refs`` (bounded, no symlinks followed).
    """
    if not isinstance(directory, str) or not isinstance(name, str):
        raise BuiltinError("git.checkout_target: operands must be strings")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return None
    return repo.checkout_target(path, name)
