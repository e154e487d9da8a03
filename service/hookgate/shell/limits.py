"""The bounds of shell analysis, in one place, and the budget one analysis spends against them.

Past any bound that guards time (nesting, characters read, commands, expansions) the analysis
stops with a ``LimitError``, which the engine answers like the oversize guard (ask, or deny),
never by the failure policy: the agent writes the line and could otherwise pick the bound that
turns every guard off. None is analysed in part: a dangerous command could hide in the unread
rest. The other bounds make a word unknown instead (file name patterns), or leave a variable
unknown (loops), or a file unread (earlier calls' files).
"""

from __future__ import annotations

from hookgate.lang.errors import LimitError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


# The largest file an earlier call wrote that a line's run of it is read from (a script).
MAX_EARLIER_BYTES = 64 * 1024


# Lines whose analysis is kept (analysis.analyse's cache), by line: policies ask about the same
# line often.
MAX_ANALYSED = 256


# The most words one word's brace expansion may make: {a,b}{a,b}… doubles with every pair.
MAX_BRACE_WORDS = 1024


# The longest value a glob pattern operator (${v#*x}, ${v//?/y}) is matched against: each
# match tries every prefix (or position), so the work grows with the square of the value.
MAX_PATTERN_VALUE = 1024


class Budget:
    """What is left of one analysis's bounds, shared by the parsers of its nested scripts, and
    the known-safe command substitutions it reads with (``known_substitutions``)."""

    __slots__ = (
        "chars",
        "commands",
        "expanded",
        "substitutions",
        "root_dir",
        "files",
        "earlier",
        "changed",
    )

    def __init__(
        self,
        substitutions: dict | None = None,  # expansion.Substitutions (compiled)
        root_dir: str | None = None,
        earlier: Any = None,  # shell.files.SessionFiles (not imported: files imports this)
    ) -> None:
        self.chars = MAX_ANALYSED_CHARS
        self.commands = MAX_COMMANDS
        self.expanded = MAX_ANALYSED_CHARS
        self.substitutions = substitutions
        # the payload's directory, when patterns are matched against the disk; and how many
        # directory entries that may still read (None: patterns are not matched)
        self.root_dir = root_dir
        self.files: list[int] | None = None if root_dir is None else [MAX_GLOB_ENTRIES]
        # the files earlier calls of the session wrote (None: none): run, they run their text
        self.earlier = earlier if earlier else None
        # paths (as the line names them, joined to their directory) that a command of the line
        # changed in a way it does not show (sed -i f, curl … > f): a file the session wrote
        # among them asks when run later in the line
        self.changed: set[str] = set()

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


def too_deep(what: str, bound: int) -> LimitError:
    return LimitError("nesting", f"shell analysis stopped: {what} nested more than {bound} deep")
