"""git builtins: a git command line parsed the way git parses it, and the current branch on disk.

They wrap the git part of the shell model (``hookgate.shell.git``).
"""

from __future__ import annotations

import os

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.shell import git as model
from hookgate.shell.git import has_option, parse_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["branch", "has_option", "parse", "parse_argv", "subcommand", "without_force"]


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
    ``git_dir``/``work_tree`` (from options or ``GIT_DIR``/``GIT_WORK_TREE``), ``config``
    (``-c``, ``--config-env`` and ``GIT_CONFIG_*`` settings, keys lower-cased as git compares
    them: ``core.hookspath``) and ``help`` (``--help``/``-h``/``git help``: nothing runs).
    """
    c = _command_arg(cmd, "git.parse")
    env = c.get("env") if isinstance(c.get("env"), dict) else {}
    cwd = c.get("cwd") if isinstance(c.get("cwd"), str) else None
    return parse_argv([str(a) for a in c["argv"]], env, cwd)


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
    line. A spelling that cannot be edited in place is left as it is.
    """
    if not isinstance(cmdline, str):
        raise BuiltinError("git.without_force: operand 1 must be a string")
    return model.without_force(cmdline)


@builtin("git.branch", "git", 1, reads_host=True)
def branch(directory: Any) -> str | None:
    """The current branch of the repository containing ``directory``, read from its files.

    ``directory`` must be absolute (resolve it with ``shell.resolve(input.cwd, …)``; ``~`` is
    the user's home). Finds ``.git`` directories, ``.git`` files of worktrees and submodules
    (``gitdir:``) and bare repositories, walking upward a bounded number of levels without
    following symlinks or starting a process. ``null`` for a detached HEAD, no repository, or a
    relative path (never the hook process's own working directory).
    """
    if not isinstance(directory, str):
        raise BuiltinError("git.branch: operand 1 must be a string")
    path = os.path.expanduser(directory) if directory.startswith("~") else directory
    if not os.path.isabs(path):
        return None
    return model.current_branch(path)
