"""Diagnostics and the errors that carry them.

Every problem found in a policy is a ``Diagnostic`` that names ``file:line:col``; printed, it
shows the source line with a caret under the column and, where one helps, a hint.
"""

from __future__ import annotations

from hookgate.records import Frozen, set_field


class Diagnostic(Frozen):
    """One problem at ``file:line:col`` (a ``Frozen`` record: the hot path avoids
    ``dataclasses``)."""

    __slots__ = ("file", "line", "col", "message", "hint", "source_line", "severity")

    def __init__(
        self,
        file: str,
        line: int,
        col: int,
        message: str,
        hint: str | None = None,
        source_line: str | None = None,
        severity: str = "error",  # "error" or "warning" (warnings become errors under --strict)
    ) -> None:
        set_field(self, "file", file)
        set_field(self, "line", line)
        set_field(self, "col", col)
        set_field(self, "message", message)
        set_field(self, "hint", hint)
        set_field(self, "source_line", source_line)
        set_field(self, "severity", severity)

    def headline(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: {self.message}"

    def render(self) -> str:
        """``file:line:col: message``, then the source line with a caret, then the hint."""
        lines = [self.headline()]
        if self.source_line is not None:
            lines.append("    " + self.source_line.expandtabs(4))
            prefix = self.source_line[: max(self.col - 1, 0)].expandtabs(4)
            lines.append("    " + " " * len(prefix) + "^")
        if self.hint:
            lines.append(f"    hint: {self.hint}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "col": self.col,
            "message": self.message,
            "hint": self.hint,
            "severity": self.severity,
        }


def with_source(diag: Diagnostic, source: str) -> Diagnostic:
    """The same diagnostic with its source line filled in from ``source``."""
    lines = source.splitlines()
    if 1 <= diag.line <= len(lines):
        return Diagnostic(
            diag.file,
            diag.line,
            diag.col,
            diag.message,
            diag.hint,
            lines[diag.line - 1],
            diag.severity,
        )
    return diag


class PolicyError(Exception):
    """A policy (or a set of policies) that cannot be parsed, checked or compiled."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.file, d.line, d.col))
        super().__init__("\n".join(d.headline() for d in self.diagnostics))

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class EvalError(Exception):
    """A run-time error of policy evaluation (conflicting values, a builtin's type error under
    strict semantics, exceeded budgets). ``loc`` names where it happened when known."""

    def __init__(self, message: str, file: str | None = None, line: int = 0, col: int = 0) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.col = col
        where = f"{file}:{line}:{col}: " if file else ""
        super().__init__(where + message)


class LimitError(EvalError):
    """A bound reached while judging agent-controlled content (decision time, step budget,
    analysis size, nesting): the agent can cause it at will, so it never fails open."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message)
        self.limit = limit
