"""What the host process that started this hook can do, where its payload does not say: whether
the Gemini CLI running the hook can ask its user.

Gemini CLI 0.61 turns a BeforeTool ``decision: "ask"`` into its own confirmation prompt, in every
mode: a headless run (``gemini -p``, a query argument, stdin or stdout not a terminal, ``CI``)
has no one to answer it and waits until it is killed. Its payload does not name the mode, so the
hook reads the command line and terminals of the nearest ``gemini`` process above it (Linux
``/proc``) and applies Gemini's own rule (``isHeadlessMode`` and the ``interactive`` flag of
``packages/cli/src/config/config.ts``). Whatever cannot be read counts as headless: the ask then
becomes a deny with the reason, never a hang.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Gemini CLI 0.61.0's options that take values (yargs ``string`` and ``array``): the words after
# them are not a query. An array takes every word up to the next option.
_GEMINI_STRING_OPTIONS = frozenset(
    "--model -m --prompt -p --prompt-interactive -i --worktree -w --approval-mode --resume -r "
    "--session-file --session-id --delete-session --output-format -o --fake-responses "
    "--fake-responses-non-strict --record-responses".split()
)
_GEMINI_ARRAY_OPTIONS = frozenset(
    "--policy --admin-policy --allowed-mcp-server-names --allowed-tools --extensions -e "
    "--include-directories".split()
)
_GEMINI_SCRIPTS = ("gemini", "gemini.js")
_ANCESTORS = 6  # hook <- shell <- gemini (<- the gemini that relaunched it) and a little more


def gemini_can_ask(environ: Mapping[str, str] | None = None, proc: str = "/proc") -> bool:
    """Whether the Gemini CLI that started this hook has a user to answer its own ask."""
    env = os.environ if environ is None else environ
    ci = env.get("CI") == "true" or env.get("GITHUB_ACTIONS") == "true"
    if ci and env.get("GEMINI_CLI_INTEGRATION_TEST") != "true":
        return False
    pid = os.getppid()
    for _ in range(_ANCESTORS):
        try:
            with open(f"{proc}/{pid}/cmdline", "rb") as handle:
                argv = handle.read().decode("utf-8", "replace").split("\0")[:-1]
            with open(f"{proc}/{pid}/stat", "rb") as handle:
                # "pid (comm) state ppid …": comm may hold spaces and parentheses.
                parent = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
        script = next(
            (i for i, word in enumerate(argv[1:], 1) if os.path.basename(word) in _GEMINI_SCRIPTS),
            None,
        )
        if script is not None:
            return _on_terminal(f"{proc}/{pid}") and gemini_argv_interactive(argv[script + 1 :])
        if parent <= 1:
            return False
        pid = parent
    return False


def gemini_argv_interactive(args: list[str]) -> bool:
    """Gemini's own rule, from its arguments: interactive with ``-i``/``--prompt-interactive`` or
    ACP, headless with ``-p``/``--prompt`` or a query (a word that is no option's value)."""
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            return i == len(args)  # what follows is the query
        if not word.startswith("-") or word == "-":
            return False  # a query
        name, has_value, _ = word.partition("=")
        if name in ("-i", "--prompt-interactive", "--acp", "--experimental-acp"):
            return True
        if name in ("-p", "--prompt"):
            return False
        if has_value:
            continue
        if name in _GEMINI_STRING_OPTIONS:
            i += 1
        elif name in _GEMINI_ARRAY_OPTIONS:
            while i < len(args) and not args[i].startswith("-"):
                i += 1
    return True


def _on_terminal(process: str) -> bool:
    """Whether the process's stdin and stdout are terminals (Gemini is headless otherwise)."""
    try:
        return all(
            os.readlink(f"{process}/fd/{fd}").startswith(("/dev/pts/", "/dev/tty")) for fd in (0, 1)
        )
    except OSError:
        return False
