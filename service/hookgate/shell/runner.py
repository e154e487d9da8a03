"""The seam between the shell parser and the symbolic run: what ``parser.Parser`` (and its
reading half, ``lexer.Lexer``) call on the run of the script they read, as mvdan/sh's
interpreter has handlers. ``analysis.Run`` provides it; nothing imports this module at run time
(it is for type checkers and readers), so the parser never imports the analysis.
"""

from __future__ import annotations

from typing import Protocol

from hookgate.shell.limits import Budget
from hookgate.shell.words import Command, Word


class Runner(Protocol):
    """The run of one script, fed by its parser as the parser reads each construct."""

    out: list[Command]  # the commands run so far (the parser marks them incomplete)
    depth: int  # nested scripts around this one (the parser's re-reading stops at MAX_DEPTH)
    budget: Budget  # the analysis's bounds (characters read, simple commands)
    piped_from: Command | None  # set by the parser around each command of a pipeline

    def enter(self) -> None:
        """One level deeper (``${…}``, a backtick): a ``LimitError`` past ``MAX_NEST``."""

    def leave(self) -> None:
        """Back out of what ``enter`` entered."""

    def enter_subshell(self) -> tuple[str | None, list[str | None], str | None | bool]:
        """``(…)``, ``$(…)`` or ``<(…)`` starts: what ``leave_subshell`` restores."""

    def leave_subshell(self, saved: tuple[str | None, list[str | None], str | None | bool]) -> None:
        """The subshell ended: its directory changes end with it."""

    def substituted(self, raw: str, first: int) -> None:
        """The substitution ``raw`` ran ``out[first:]``."""

    def backtick(self, text: str, offs: list[int]) -> None:
        """Parse and run a backtick's body."""

    def reparse(self, text: str, offs: list[int]) -> list[Command]:
        """The commands of the rest of a line after a lone quote."""

    def redirected(self, span: tuple[int, int], writes: list[str]) -> Command:
        """A command of redirections alone."""

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
        """A simple command: its words (not expanded yet) and redirections."""

    def pipeline(self, cmds: list[Command | list[Command] | None]) -> None:
        """The commands of a pipeline: a group's or subshell's as the list of the commands it
        ran, None for nothing."""

    def here_document(self, cmd: Command, body: str, offs: list[int], quoted: bool) -> None:
        """A here-document's body, read after its command's line."""

    def define(self, name: str, body: str) -> None:
        """A function definition."""

    def forget(self, name: str) -> None:
        """A variable whose value the line does not show (a loop variable)."""

    def loop(self, name: str, words: list[Word], body: tuple[str, list[int]] | None) -> None:
        """``for name in words; do body; done``."""
