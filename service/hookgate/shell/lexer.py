"""The shell lexer: characters to words, each character keeping its offset in the root text.

``Lexer`` is the reading half of ``parser.Parser`` (one object per script, as in mvdan/sh,
whose parser's methods are spread over lexer.go and parser.go): it reads words with their quotes
removed and their expansions kept as written (``Word.marks``), redirection operators, and skips
blanks and comments. A command substitution inside a word is a script of its own: the lexer
hands ``$(…)`` and ``<(…)`` to the parser's ``subshell`` and a backtick's body to the run
(``Run.backtick``), and tells the run which commands each one ran (``Run.substituted``).
"""

from __future__ import annotations

from hookgate.shell.words import Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from hookgate.shell.runner import Runner

# Characters that end a run of plain characters in a word.
_SPECIAL = frozenset(" \t\r\n;&|()<>\\'\"$`")


# Those of them that end a word (< and > may start a process substitution <(…) inside one).
_WORD_END = frozenset(" \t\r\n;&|()")


class Lexer:
    """Reads the text of one script (the root line or a nested one, with ``offs`` its
    characters' offsets in the root; None: the root itself) for ``run``, whose budget pays for
    the characters read."""

    # the parser's (the subclass): reads the list of a $(…) or <(…) up to its ")"
    subshell: Callable[[str], None]

    def __init__(self, text: str, offs: list[int] | None, run: Runner) -> None:
        run.budget.read(len(text))
        self.budget = run.budget
        self.run = run
        self.t = text
        self.n = len(text)
        self.offs = offs  # root offset of each character; None means identity
        self.i = 0
        self.incomplete = False  # a quote, substitution or group that never closes

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

    # -- lexing ----------------------------------------------------------------------------------

    def skip_blanks(self) -> None:
        t, i, n = self.t, self.i, self.n
        while i < n:
            c = t[i]
            if c in " \t\r":
                i += 1
            elif c == "\\" and t.startswith("\\\n", i):
                i += 2
            else:
                break
        self.i = i

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
            if self.offs is None:  # the root text: its own offsets (root_span, roots)
                word = Word(text, (s, j), True, list(range(s, j)), "{" in text)
            else:
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
                first = len(self.run.out)
                self.i += 2
                self.subshell(")")
                self.run.substituted(t[p : self.i], first)  # what it runs: a script's source
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
                ch, self.i = ansi_escape(t, self.i + 1)
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
            first = len(self.run.out)
            if t[s] == "`":
                self.backtick()
            else:
                self.i += 2
                self.subshell(")")
            # what it runs, for the value of the word (as written) it is in
            self.run.substituted(t[s : self.i], first)
        elif t.startswith("$((", s) and _arithmetic_closes(t, s + 3):
            self.i += 3
            self.close_arithmetic()
        elif t.startswith("$(", s):
            first = len(self.run.out)
            self.i += 2
            self.subshell(")")
            self.run.substituted(t[s : self.i], first)
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
        self.run.enter()
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
        self.run.leave()

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
        self.run.enter()
        self.run.backtick("".join(body), offs)
        self.run.leave()

    def scan_expansions(self) -> None:
        """Read an unquoted here-document's body for its ``$(…)`` and backticks (which run)."""
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


def ansi_escape(t: str, i: int) -> tuple[str, int]:
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
