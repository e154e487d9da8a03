"""Expansions bash makes from the text of the line alone, before it runs anything."""

from __future__ import annotations

from hookgate.lang.errors import LimitError
from hookgate.shell.words import Word, matching_close

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# The most words one word's brace expansion may make: {a,b}{a,b}… doubles with every pair.
MAX_BRACE_WORDS = 1024


def brace_expand(text: str) -> list[str]:
    """``text`` brace-expanded as bash does (``{a,b}``, ``{1..3}``, ``{a..e..2}``, nested, left
    to right); ``[text]`` when it holds no brace expression. A ``LimitError`` past
    ``MAX_BRACE_WORDS`` words."""
    found = _first_brace(text)
    if found is None:
        return [text]
    start, end, parts = found
    ends = brace_expand(text[end + 1 :])
    out: list[str] = []
    for part in parts:
        for middle in brace_expand(part):
            for tail in ends:
                out.append(text[:start] + middle + tail)
                if len(out) > MAX_BRACE_WORDS:
                    raise LimitError(
                        "analysis-size",
                        f"shell analysis stopped: a brace expansion makes more than "
                        f"{MAX_BRACE_WORDS} words",
                    )
    return out


def _first_brace(text: str) -> tuple[int, int, list[str]] | None:
    """The first ``{…}`` that bash expands: its start, the index of its ``}``, and its
    alternatives (a sequence's items, or the comma-separated parts, each expanded in turn)."""
    i, n = 0, len(text)
    while i < n:
        if text.startswith("${", i):  # a parameter expansion, never a brace expression
            i = matching_close(text, i + 1)
            continue
        if text[i] != "{" or (i == 0 and text[1:2] in ("}", "")):
            # bash ignores a "{" that starts a word and is closed at once ({},} is itself)
            i += 1
            continue
        end = _closing_brace(text, i + 1)
        if end is None:
            i += 1
            continue
        inner = text[i + 1 : end]
        if "," in inner:
            return i, end, _comma_parts(inner)
        sequence = _sequence(inner)
        if sequence is not None:
            return i, end, sequence
        i = end + 1  # {x} and {1..x}: bash leaves them as they are and goes on after them
    return None


def _closing_brace(text: str, i: int) -> int | None:
    """The ``}`` closing a brace expression whose body starts at ``i``, as bash finds it: at
    the brace's own level, and only once a ``,`` or ``..`` was seen there (in ``{a},b}`` the
    first ``}`` is text); None if there is none."""
    level = separators = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("${", i):
            i = matching_close(text, i + 1)
            continue
        if c == "}" and level == 0 and separators:
            return i
        if c == "{":
            level += 1
        elif c == "}" and level:
            level -= 1
        elif level == 0 and (c == "," or (text.startswith("..", i) and text[i + 2 : i + 3] != "}")):
            separators += 1
        i += 1
    return None


def _comma_parts(inner: str) -> list[str]:
    """``inner`` split at the commas outside nested braces."""
    parts, level, last = [], 0, 0
    for j, c in enumerate(inner):
        if c == "{":
            level += 1
        elif c == "}" and level:
            level -= 1
        elif c == "," and level == 0:
            parts.append(inner[last:j])
            last = j + 1
    parts.append(inner[last:])
    return parts


def _sequence(inner: str) -> list[str] | None:
    """``1..5``, ``5..1``, ``1..10..3``, ``a..e``: the items; None for anything else."""
    fields = inner.split("..")
    if len(fields) not in (2, 3):
        return None
    step_text = fields[2] if len(fields) == 3 else "1"
    if not _is_int(step_text):
        return None
    step = abs(int(step_text)) or 1
    a, b = fields[0], fields[1]
    if _is_int(a) and _is_int(b):
        lo, hi = int(a), int(b)
        if abs(hi - lo) // step >= MAX_BRACE_WORDS:
            raise LimitError(
                "analysis-size",
                f"shell analysis stopped: a brace sequence makes more than {MAX_BRACE_WORDS} words",
            )
        width = (
            max(len(a), len(b))
            if a.lstrip("-").startswith("0") or b.lstrip("-").startswith("0")
            else 0
        )
        values = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(v).zfill(width) if width else str(v) for v in values]
    # Letters only, as bash: {A..c} runs through the ASCII table between them; {!..%} is text.
    if len(a) == 1 and len(b) == 1 and a.isascii() and b.isascii() and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        values = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(v) for v in values]
    return None


def _is_int(text: str) -> bool:
    digits = text[1:] if text[:1] in "+-" else text
    return digits.isdigit() and digits.isascii()


# -- words: variables, parameters, substitutions ---------------------------------------------

# What an expansion the line does not show may be (Word.kind, shell.commands' "kinds").
UNKNOWN_VARIABLE = "unknown-variable"  # a variable the line does not set (the environment's)
UNKNOWN_OUTPUT = "unknown-output"  # a command's output (not a known-safe command), <(…)
UNKNOWN_FILE = "unknown-file"  # a file's content: $(cat f), $(< f)
UNKNOWN_NUMBER = "unknown-number"  # $((…)), $?, $$, $!, ${#x} of an unknown x

# The longest value a glob pattern operator (${v#*x}, ${v//?/y}) is matched against: each
# match tries every prefix (or position), so the work grows with the square of the value.
MAX_PATTERN_VALUE = 1024

_BLANKS = " \t\n"  # IFS's default value: what unquoted expansions are split on

FIELDS = 2  # an expansion's items are the words it makes already (not split again)

# Stand-ins for the expansions of a word while it is brace-expanded (bash brace-expands first,
# and never inside ${…}): code points no agent's text uses (a word holding one is not expanded).
_PH = 0x100000


class Value:
    """What a variable holds: its items (one for a scalar; an array's elements, ``$@``'s
    parameters), and ``kind`` None when the line shows all of it, else what it may be."""

    __slots__ = ("items", "kind")

    def __init__(self, items: list[str], kind: str | None = None) -> None:
        self.items = items
        self.kind = kind

    @property
    def text(self) -> str:
        return " ".join(self.items)


def is_unknown(kind: str | None) -> bool:
    return kind is not None and kind.startswith("unknown")


class Expander:
    """Expands words as bash does with what the line shows: ``vars`` (set by the line so far,
    ``@`` and ``0`` for the positional parameters when known), ``substitution`` (a command
    substitution's raw text → its output and kind) and ``charge`` (counts the characters made,
    against the analysis's bound)."""

    __slots__ = ("vars", "substitution", "charge")

    def __init__(
        self,
        vars: dict[str, Value],
        substitution: Callable[[str], tuple[str | None, str | None]],
        charge: Callable[[int], None],
    ) -> None:
        self.vars = vars
        self.substitution = substitution
        self.charge = charge

    # -- whole words ---------------------------------------------------------------------------

    def word(self, word: Word) -> list[Word]:
        """The words bash makes of ``word``: brace expansion, then each expansion in it, then
        splitting of the unquoted ones. An expansion the line does not show stays as written
        (one word, not split), with its kind; made words have no span (nothing to edit)."""
        marks = word.marks
        if not marks:
            if word.braces:
                parts = brace_expand(word.text)
                if parts != [word.text]:
                    return [Word(p, None, word.literal, []) for p in parts if p]
            return [word]
        text = word.text
        if word.braces and not any(ord(c) >= _PH for c in text):
            pieces: list[str] = []
            last = 0
            for k, (a, b, _) in enumerate(marks):
                pieces += (text[last:a], chr(_PH + k))
                last = b
            pieces.append(text[last:])
            variants = brace_expand("".join(pieces))
        else:
            variants = None
        cache: dict[int, tuple[list[str], str | None, bool]] = {}
        out: list[Word] = []
        if variants is None:
            fields = self._fields(text, text, marks, None, cache)
        else:
            fields = [f for v in variants for f in self._fields(text, v, marks, _PH, cache)]
        if len(fields) == 1 and fields[0][0] == text and not variants:
            word.kind = fields[0][1]
            return [word]
        for t, kind in fields:
            out.append(Word(t, None, not is_unknown(kind) and kind is None, [], kind=kind))
        return out

    def _fields(
        self,
        source: str,
        text: str,
        marks: list[tuple[int, int, bool]],
        ph: int | None,
        cache: dict[int, tuple[list[str], str | None, bool]],
    ) -> list[tuple[str, str | None]]:
        fields: list[tuple[str, str | None]] = []
        cur: list[str] = []
        state = [False, None]  # [a field is started, its kind]

        def flush() -> None:
            if state[0] or cur:
                fields.append(("".join(cur), state[1]))
            cur.clear()
            state[0], state[1] = False, None

        def mark_at(i: int) -> tuple[int, int]:
            """(mark index, end of it in text) when an expansion starts at i, else (-1, i)."""
            if ph is not None:
                k = ord(text[i]) - ph
                return (k, i + 1) if 0 <= k < len(marks) else (-1, i)
            return next_mark[0], marks[next_mark[0]][1]

        next_mark = [0]
        i = 0
        n = len(text)
        while i < n:
            if ph is None:
                if next_mark[0] < len(marks) and marks[next_mark[0]][0] == i:
                    k, end = mark_at(i)
                    next_mark[0] += 1
                else:
                    k, end = -1, i
            else:
                k, end = mark_at(i)
            if k < 0:
                cur.append(text[i])
                state[0] = True
                i += 1
                continue
            i = end
            if k not in cache:
                a, b, quoted = marks[k]
                cache[k] = self.expansion(source[a:b], quoted)
            items, kind, separate = cache[k]
            quoted = marks[k][2]
            if kind is not None:
                state[1] = state[1] if is_unknown(state[1]) else kind
            if kind is not None:  # as written, or a known-safe command's one word
                cur.append(items[0])
                state[0] = True
            elif quoted:
                for idx, item in enumerate(items if separate else [" ".join(items)]):
                    if idx:
                        flush()
                        state[1] = kind
                    cur.append(item)
                    state[0] = True
            elif separate == FIELDS:  # split already: ${v:-"a b" c}
                for idx, item in enumerate(items):
                    if idx:
                        flush()
                    cur.append(item)
                    state[0] = True
            else:
                for idx, item in enumerate(items):
                    if idx:
                        flush()
                    lead, parts, trail = self.split(item)
                    if lead:
                        if (state[0] or cur) and parts[:1] == [""]:
                            parts = parts[1:]  # the delimiter ends the word before it
                        flush()
                    for j, p in enumerate(parts):
                        if j:
                            flush()
                        cur.append(p)
                        state[0] = True
                    if trail:
                        flush()
        flush()
        return fields

    def split(self, text: str) -> tuple[bool, list[str], bool]:
        """``text`` split on IFS (its default or the line's value): whether a delimiter starts
        and ends it, and the fields (a run of IFS blanks is one delimiter; each other IFS
        character is one, so ``a,,b`` has an empty field)."""
        value = self.vars.get("IFS")
        ifs = _BLANKS if value is None or is_unknown(value.kind) else value.text
        if not ifs or not text:
            return False, [text] if text else [], False
        if ifs == _BLANKS:
            parts = _split_blanks(text)
            return text[0] in _BLANKS, parts, text[-1] in _BLANKS
        blanks = "".join(c for c in ifs if c in _BLANKS)
        fields: list[str] = []
        cur: list[str] = []
        i, n = 0, len(text)
        lead = trail = False
        while i < n:
            if text[i] not in ifs:
                cur.append(text[i])
                i += 1
                continue
            j = i
            others = 0
            while j < n and text[j] in ifs:
                others += text[j] not in blanks
                j += 1
            if i == 0:
                lead = True
                fields += [""] * others
            elif j == n:
                trail = True
                fields.append("".join(cur))
                fields += [""] * max(others - 1, 0)
            else:
                fields.append("".join(cur))
                fields += [""] * max(others - 1, 0)
            cur = []
            i = j
        if cur:
            fields.append("".join(cur))
        return lead, fields, trail

    # -- one expansion ---------------------------------------------------------------------------

    def expansion(self, raw: str, quoted: bool) -> tuple[list[str], str | None, bool]:
        """``raw`` (``$x``, ``${…}``, ``$(…)``, ``` `…` ```, ``$((…))``) as items, kind and whether
        its items are separate words in quotes (``"$@"``, ``"${a[@]}"``)."""
        if raw.startswith("$((") and raw.endswith("))"):
            value = self.arithmetic(raw[3:-2])
            return ([raw], UNKNOWN_NUMBER, False) if value is None else ([str(value)], None, False)
        if raw.startswith("$((") or raw[:2] in ("<(", ">("):
            kind = UNKNOWN_NUMBER if raw.startswith("$((") else UNKNOWN_OUTPUT
            return [raw], kind, False
        if raw.startswith(("$(", "`")):
            output, kind = self.substitution(raw)
            if output is None:
                return [raw], kind or UNKNOWN_OUTPUT, False
            output = output.rstrip("\n")
            self.charge(len(output))
            return [output], kind, False
        if raw.startswith("${"):
            return self._parameter(raw, raw[2:-1] if raw.endswith("}") else raw[2:], quoted)
        return self._lookup_whole(raw, raw[1:])

    def arithmetic(self, expression: str) -> int | None:
        """``$((expression))`` as bash computes it, its ``$x`` and ``${x}`` expanded first;
        None when the line does not show what it needs (see ``arithmetic.evaluate``)."""
        parts: list[str] = []
        i, n = 0, len(expression)
        while i < n:
            if expression[i] in "`\\'\"":
                return None
            if expression[i] != "$":
                parts.append(expression[i])
                i += 1
                continue
            end = expansion_end(expression, i)
            raw = expression[i:end]
            if raw.startswith(("$(", "$((")) or end == i + 1:
                return None
            items, kind, _ = self.expansion(raw, True)
            if is_unknown(kind):
                return None
            parts.append(" ".join(items))
            i = end
        from hookgate.shell.arithmetic import evaluate  # only for a line with $((…))

        return evaluate("".join(parts), self.variable_text)

    def variable_text(self, name: str) -> str | None:
        """A variable's text as the line sets it, for arithmetic (None: not shown)."""
        value = self.lookup(name)
        if value is None or is_unknown(value.kind):
            return None
        return value.items[0] if value.items else ""

    def _lookup_whole(self, raw: str, name: str) -> tuple[list[str], str | None, bool]:
        value = self.lookup(name)
        if value is None:
            kind = UNKNOWN_NUMBER if name in ("?", "$", "!", "#") else UNKNOWN_VARIABLE
            return [raw], kind, False
        if is_unknown(value.kind):
            return [value.text], value.kind, False
        self.charge(sum(len(x) for x in value.items))
        if name == "@":
            return list(value.items), value.kind, True
        if name == "*":
            return [value.text], value.kind, False
        return value.items[:1] or [""], value.kind, False  # $a is ${a[0]}

    def lookup(self, name: str) -> Value | None:
        """The value of ``name`` (a variable, ``@``/``*``, ``#``, a positional digit), or None
        when the line does not show it."""
        if name in ("@", "*"):
            return self.vars.get("@")
        if name == "#":
            pos = self.vars.get("@")
            return None if pos is None else Value([str(len(pos.items))])
        if name.isdigit() and name != "0":
            pos = self.vars.get("@")
            if pos is None:
                return None
            k = int(name)
            return Value([pos.items[k - 1] if k <= len(pos.items) else ""], pos.kind)
        value = self.vars.get(name)
        if value is None and name == "IFS":
            return Value([_BLANKS])
        return value

    def _parameter(self, raw: str, inner: str, quoted: bool) -> tuple[list[str], str | None, int]:
        unknown = ([raw], UNKNOWN_VARIABLE, False)
        if inner.startswith("!"):
            return unknown
        length = inner.startswith("#") and len(inner) > 1
        if length:
            inner = inner[1:]
        name, index, rest = _parameter_name(inner)
        if name is None:
            return unknown
        value = self.lookup(name)
        if value is not None and is_unknown(value.kind):
            value = None
        whole = index in ("@", "*") or name in ("@", "*")
        separate = index == "@" or name == "@"
        items: list[str] | None
        if value is None:
            items = None
        elif whole:
            items = list(value.items)
        elif index is not None:
            items = _element(value.items, index)
        else:
            items = value.items[:1] if value.items else [""]
        if length:
            if rest or items is None:
                return [raw], UNKNOWN_NUMBER, False
            return [str(len(items) if whole else len(items[0] if items else ""))], None, False
        if not rest:
            if items is None:
                return unknown
            self.charge(sum(len(x) for x in items))
            return items, None if value is None else value.kind, separate
        return self._operator(raw, name, index, items, rest, separate, quoted)

    def _operator(
        self,
        raw: str,
        name: str,
        index: str | None,
        items: list[str] | None,
        rest: str,
        separate: bool,
        quoted: bool,
    ) -> tuple[list[str], str | None, int]:
        unknown = ([raw], UNKNOWN_VARIABLE, False)
        colon = rest.startswith(":") and rest[1:2] in ("-", "=", "+", "?")
        op = rest[1:2] if colon else rest[:1]
        if op in "-=+?" and op:
            word = rest[2:] if colon else rest[1:]
            is_set = items is not None and (bool(items) if separate else True)
            if items is not None and colon:
                is_set = any(items) if separate else bool(items[0] if items else "")
            if items is None:
                return unknown
            if op == "+":
                if not is_set:
                    return [""], None, False
                fields, kind, how = self.operand_fields(word, quoted)
                return (fields, kind, how) if not is_unknown(kind) else unknown
            if is_set:
                self.charge(sum(len(x) for x in items))
                return items, None, separate
            if op == "?":
                return unknown  # bash stops the line here
            fields, kind, how = self.operand_fields(word, quoted)
            if is_unknown(kind):
                return unknown
            if op == "=" and index is None and name.isidentifier():
                self.vars[name] = Value([self.operand(word, True)[0]], kind)
            return fields, kind, how
        if items is None:
            return unknown
        if rest.startswith(":"):
            if name in ("@", "*"):  # ${@:k} counts from $0
                zero = self.vars.get("0")
                start = rest[1:].split(":")[0].strip()
                if not _is_int(start):
                    return unknown
                off = int(start)
                if zero is None or is_unknown(zero.kind):
                    if off == 0 or -off > len(items):
                        return unknown  # $0 is in it, and the line does not show it
                    zero = Value([""])
                items = [zero.text, *items]
            sliced = _substring(items, rest[1:], separate or name in ("@", "*"))
            return unknown if sliced is None else (sliced, None, separate)
        for prefix in ("##", "#", "%%", "%"):
            if rest.startswith(prefix):
                pattern, kind = self.operand(rest[len(prefix) :])
                if is_unknown(kind):
                    return unknown
                return [_remove(x, pattern, prefix) for x in items], None, separate
        if rest.startswith("/"):
            body = rest[1:]
            mode = ""
            if body[:1] in ("/", "#", "%"):
                mode, body = body[0], body[1:]
            slash = _unescaped_slash(body)
            pattern_text, repl_text = (body, "") if slash < 0 else (body[:slash], body[slash + 1 :])
            pattern, k1 = self.operand(pattern_text)
            repl, k2 = self.operand(repl_text)
            if is_unknown(k1) or is_unknown(k2):
                return unknown
            out = [_replace(x, pattern, repl, mode) for x in items]
            self.charge(sum(len(x) for x in out))
            return out, None, separate
        cases = {"^^": str.upper, ",,": str.lower, "~~": str.swapcase}
        if rest in cases:
            return [cases[rest](x) for x in items], None, separate
        if rest in ("^", ",", "~"):
            first = {"^": str.upper, ",": str.lower, "~": str.swapcase}[rest]
            return [first(x[:1]) + x[1:] for x in items], None, separate
        return unknown

    def operand(
        self, text: str, in_quotes: bool = False, segments: list[tuple[str, bool]] | None = None
    ) -> tuple[str, str | None]:
        """The word of ``${v:-word}`` (and patterns, replacements) with quotes removed and its
        expansions made (joined); its kind. ``segments`` receives its pieces and whether each
        was quoted (what an unquoted ``${v:-word}`` splits)."""
        if not any(c in text for c in "$`'\"\\"):
            if segments is not None:
                segments.append((text, in_quotes))
            return text, None
        out: list[str] = []
        kind: str | None = None
        i, n = 0, len(text)
        dq = False
        while i < n:
            c = text[i]
            start = len(out)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
            elif c == '"':
                dq = not dq
                i += 1
            elif c == "'" and not dq and not in_quotes:
                end = text.find("'", i + 1)
                end = n if end < 0 else end
                out.append(text[i + 1 : end])
                i = end + 1
                if segments is not None:
                    segments.append((out[-1], True))
                continue
            elif c in "$`":
                end = expansion_end(text, i)
                if end == i + 1:
                    out.append(c)
                    i += 1
                    continue
                items, k, _ = self.expansion(text[i:end], True)
                if is_unknown(k):
                    return text, k
                kind = kind or k
                out.append(" ".join(items))
                i = end
            else:
                out.append(c)
                i += 1
            if segments is not None and len(out) > start:
                segments.append((out[-1], dq or in_quotes or c == "\\"))
        return "".join(out), kind

    def operand_fields(self, word: str, quoted: bool) -> tuple[list[str], str | None, int]:
        """``${v:-word}``'s word as the expansion's value: one text in quotes, else the
        fields its unquoted pieces split into (``FIELDS``)."""
        segments: list[tuple[str, bool]] = []
        text, kind = self.operand(word, quoted, segments)
        if quoted or is_unknown(kind):
            return [text], kind, 0
        fields: list[str] = []
        cur: list[str] = []
        started = False
        for piece, was_quoted in segments:
            if was_quoted:
                cur.append(piece)
                started = True
                continue
            lead, parts, trail = self.split(piece)
            if lead and (started or cur):
                fields.append("".join(cur))
                cur, started = [], False
            for j, p in enumerate(parts):
                if j:
                    fields.append("".join(cur))
                    cur = []
                cur.append(p)
                started = True
            if trail and (started or cur):
                fields.append("".join(cur))
                cur, started = [], False
        if started or cur:
            fields.append("".join(cur))
        return fields, kind, FIELDS

    def assigned(self, text: str, marks: list[tuple[int, int, bool]] | None) -> Value:
        """An assignment's value (``x=$y``, ``x="$(…)"``): expanded, never split nor
        brace-expanded."""
        if not marks:
            return Value([text])
        out: list[str] = []
        kind: str | None = None
        last = 0
        for a, b, _ in marks:
            out.append(text[last:a])
            items, k, _s = self.expansion(text[a:b], True)
            if k is not None and not is_unknown(kind):
                kind = k
            out.append(" ".join(items))
            last = b
        out.append(text[last:])
        return Value(["".join(out)], kind)


def expansion_end(text: str, i: int) -> int:
    """The end of the expansion starting at ``text[i]`` (``$`` or a backtick): ``$name``,
    ``$1``, ``${…}``, ``$(…)``, ``$((…))``, ``` `…` ``` (balanced, quotes skipped); ``i + 1``
    when it is a lone ``$``."""
    n = len(text)
    if text[i] == "`":
        j = i + 1
        while j < n and text[j] != "`":
            j += 2 if text[j] == "\\" else 1
        return min(j + 1, n)
    if i + 1 >= n:
        return i + 1
    c = text[i + 1]
    if c in "({":
        return matching_close(text, i + 1)
    if c.isalpha() or c == "_":
        j = i + 1
        while j < n and (text[j].isalnum() or text[j] == "_"):
            j += 1
        return j
    if c.isdigit() or c in "@*#?$!-":
        return i + 2
    return i + 1


def _parameter_name(inner: str) -> tuple[str | None, str | None, str]:
    """``name[index]rest`` of a ``${…}`` body: the name (a variable, a digit run, ``@``, ``*``,
    ``#``, …), the index or None, and the operator text after them."""
    if not inner:
        return None, None, ""
    if inner[0].isalpha() or inner[0] == "_":
        j = 1
        while j < len(inner) and (inner[j].isalnum() or inner[j] == "_"):
            j += 1
    elif inner[0].isdigit():
        j = 1
        while j < len(inner) and inner[j].isdigit():
            j += 1
    elif inner[0] in "@*#?$!-":
        j = 1
    else:
        return None, None, ""
    name, rest = inner[:j], inner[j:]
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            return None, None, ""
        return name, rest[1:close], rest[close + 1 :]
    return name, None, rest


def _element(items: list[str], index: str) -> list[str] | None:
    index = index.strip()
    if not _is_int(index):
        return None
    k = int(index)
    if k < 0:
        k += len(items)
    return [items[k] if 0 <= k < len(items) else ""]


def _substring(items: list[str], spec: str, array: bool) -> list[str] | None:
    """``${v:off[:len]}`` (of each item's text, or of an array's items); None when the offsets
    are not plain integers or the length runs backwards past the start."""
    fields = spec.split(":")
    if len(fields) > 2 or not all(_is_int(f.strip()) for f in fields):
        return None
    seq: Any = items if array else (items[0] if items else "")
    n = len(seq)
    off = int(fields[0].strip())
    if off < 0:
        off += n
        if off < 0:
            return [] if array else [""]
    if len(fields) == 1:
        end = n
    else:
        length = int(fields[1].strip())
        end = off + length if length >= 0 else n + length
        if end < off:
            if array:
                return None
            return None
    part = seq[off:end]
    return list(part) if array else [part]


def _remove(value: str, pattern: str, op: str) -> str:
    if not _has_glob(pattern):
        if op.startswith("#"):
            return value[len(pattern) :] if value.startswith(pattern) else value
        return value[: len(value) - len(pattern)] if pattern and value.endswith(pattern) else value
    _check_pattern_value(value)
    n = len(value)
    if op == "#":
        candidates: Any = range(0, n + 1)
    elif op == "##":
        candidates = range(n, -1, -1)
    elif op == "%":
        candidates = range(n, -1, -1)
    else:
        candidates = range(0, n + 1)
    for k in candidates:
        if op.startswith("#") and glob_match(pattern, value[:k]):
            return value[k:]
        if op.startswith("%") and glob_match(pattern, value[k:]):
            return value[:k]
    return value


def _replace(value: str, pattern: str, repl: str, mode: str) -> str:
    if not pattern:
        return value
    if not _has_glob(pattern):
        if mode == "/":
            return value.replace(pattern, repl)
        if mode == "#":
            return repl + value[len(pattern) :] if value.startswith(pattern) else value
        if mode == "%":
            return value[: -len(pattern)] + repl if value.endswith(pattern) else value
        return value.replace(pattern, repl, 1)
    _check_pattern_value(value)
    n = len(value)
    if mode == "#":
        for k in range(n, -1, -1):
            if glob_match(pattern, value[:k]):
                return repl + value[k:]
        return value
    if mode == "%":
        for k in range(0, n + 1):
            if glob_match(pattern, value[k:]):
                return value[:k] + repl
        return value
    out: list[str] = []
    i = 0
    while i <= n:
        for k in range(n, i - 1, -1):  # the longest match at i
            if k > i and glob_match(pattern, value[i:k]):
                out.append(repl)
                i = k
                break
        else:
            if i < n:
                out.append(value[i])
            i += 1
            continue
        if mode != "/":
            out.append(value[i:])
            return "".join(out)
    return "".join(out)


def _check_pattern_value(value: str) -> None:
    if len(value) > MAX_PATTERN_VALUE:
        raise LimitError(
            "analysis-size",
            f"shell analysis stopped: a pattern operator (${{v#…}}, ${{v/…}}) on a value of more "
            f"than {MAX_PATTERN_VALUE} characters",
        )


def _unescaped_slash(text: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "/":
            return i
        i += 1
    return -1


def _has_glob(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern or "[" in pattern


def glob_match(pattern: str, text: str) -> bool:
    """Whether ``text`` matches the shell pattern ``pattern`` whole (``*``, ``?``, ``[…]``,
    ``[!…]``, backslash escapes); the usual backtracking over the last ``*``, linear per try."""
    p = t = 0
    star_p = star_t = -1
    np, nt = len(pattern), len(text)
    while t < nt:
        if p < np:
            c = pattern[p]
            if c == "*":
                star_p, star_t = p, t
                p += 1
                continue
            if c == "?":
                p += 1
                t += 1
                continue
            if c == "[":
                end, ok = _bracket(pattern, p, text[t])
                if end > 0:
                    if ok:
                        p, t = end, t + 1
                        continue
                elif text[t] == "[":
                    p, t = p + 1, t + 1
                    continue
            elif c == "\\" and p + 1 < np:
                if pattern[p + 1] == text[t]:
                    p, t = p + 2, t + 1
                    continue
            elif c == text[t]:
                p += 1
                t += 1
                continue
        if star_p < 0:
            return False
        star_t += 1
        p, t = star_p + 1, star_t
    while p < np and pattern[p] == "*":
        p += 1
    return p == np


def _bracket(pattern: str, p: int, ch: str) -> tuple[int, bool]:
    """A ``[…]`` at ``p``: (the index after it, whether ``ch`` is in it); (0, False) when the
    bracket does not close (then ``[`` is an ordinary character)."""
    j = p + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    start = j
    found = False
    while j < len(pattern) and (pattern[j] != "]" or j == start):
        if j + 2 < len(pattern) and pattern[j + 1] == "-" and pattern[j + 2] != "]":
            if pattern[j] <= ch <= pattern[j + 2]:
                found = True
            j += 3
        else:
            if pattern[j] == ch:
                found = True
            j += 1
    if j >= len(pattern):
        return 0, False
    return j + 1, found != negate


def _split_blanks(text: str) -> list[str]:
    """``text`` split on IFS's default blanks (space, tab, newline), empty fields dropped."""
    if "\t" in text or "\n" in text:
        text = text.replace("\t", " ").replace("\n", " ")
    return [p for p in text.split(" ") if p]


# -- known-safe command substitutions ------------------------------------------------------------

# A compiled table: command name → [(argv pattern, what it yields, its text or None)].
Substitutions = dict


def compile_substitutions(entries: Any) -> Substitutions:
    """The known-safe command substitutions table (``shell.substitutions`` in the pack's data:
    ``[{"command": "git branch --show-current", "yields": "branch", "text": …}]``), ready for
    ``known_substitution``. A word of ``command`` ending in ``*`` matches any word that starts
    with the rest (``date +*``). A ``ValueError`` names a malformed entry."""
    table: Substitutions = {}
    if not isinstance(entries, list):
        raise ValueError("shell.substitutions must be an array")
    for k, entry in enumerate(entries):
        where = f"shell.substitutions[{k}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} must be an object")
        command, yields, text = entry.get("command"), entry.get("yields"), entry.get("text")
        if not isinstance(command, str) or not command.split():
            raise ValueError(f"{where}.command must be a non-empty string")
        if not isinstance(yields, str) or not yields or is_unknown(yields):
            raise ValueError(f"{where}.yields must be a kind name (not starting with 'unknown')")
        if text is not None and (not isinstance(text, str) or not text or " " in text):
            raise ValueError(f"{where}.text must be one word")
        words = command.split()
        table.setdefault(words[0], []).append((words, yields, text))
    return table


def known_substitution(table: Substitutions, argv: list[str]) -> tuple[str, str | None] | None:
    """What the command ``argv`` yields by ``table``: (kind, its text or None), or None."""
    for pattern, yields, text in table.get(argv[0], ()) if argv else ():
        if len(pattern) == len(argv) and all(
            p == a or (p.endswith("*") and a.startswith(p[:-1]))
            for p, a in zip(pattern, argv, strict=True)
        ):
            return yields, text
    return None


# -- what printing and decoding commands print ---------------------------------------------------

_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "?": "?",
}


def backslash_escapes(text: str, octal_zero: bool = False) -> tuple[str, bool]:
    """``text`` with printf's backslash escapes decoded (``\\n``, ``\\x2d``, ``\\055``, ``\\u2013``;
    with ``octal_zero``, ``%b``'s ``\\0NNN``) and whether a ``\\c`` ended it early."""
    if "\\" not in text:
        return text, False
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = text[i + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 2
        elif e == "c" and octal_zero:
            return "".join(out), True
        elif e in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[e]
            j = i + 2
            while j < n and j - i - 2 < width and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                out.append("\\" + e)
            else:
                code = int(text[i + 2 : j], 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
            i = j
        elif e in "01234567":
            start = i + 2 if (octal_zero and e == "0") else i + 1
            j = start
            while j < n and j - start < 3 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[start:j] or "0", 8) & 0xFF))
            i = j
        else:
            out.append("\\" + e)
            i += 2
    return "".join(out), False


def printf_output(args: list[str], charge: Callable[[int], None]) -> str | None:
    """What ``printf args…`` prints (``args`` after ``printf``; ``--`` first is skipped): the
    format reused while arguments remain, ``%s %b %c %d %i %%`` with flags, width and
    precision; None for a conversion it does not model (``%q``, ``%f``, ``-v var``)."""
    if args[:1] == ["--"]:
        args = args[1:]
    elif args[:1] and args[0].startswith("-") and args[0] != "-":
        return None  # an option (-v var): not printed
    if not args:
        return None
    fmt, rest = args[0], args[1:]
    out: list[str] = []
    k = 0
    while True:
        used = 0
        i, n = 0, len(fmt)
        while i < n:
            c = fmt[i]
            if c == "\\":
                j = i + 2
                if i + 1 < n and fmt[i + 1] in "xuU01234567":
                    j = i + 2
                    while j < n and j - i < 10 and fmt[j] in "0123456789abcdefABCDEF":
                        j += 1
                text, _ = backslash_escapes(fmt[i:j])
                out.append(text)
                i = j
                continue
            if c != "%":
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and fmt[j] in "-+ #0":
                j += 1
            while j < n and (fmt[j].isdigit() or fmt[j] == "."):
                j += 1
            if j >= n:
                return None
            conv, spec = fmt[j], fmt[i + 1 : j]
            i = j + 1
            if conv == "%":
                out.append("%")
                continue
            if "*" in spec or conv not in "sbcdi":
                return None
            arg = rest[k] if k < len(rest) else ""
            k += 1
            used += 1
            if conv == "b":
                arg, stop = backslash_escapes(arg, octal_zero=True)
                if stop:
                    out.append(arg)
                    return "".join(out)
            elif conv == "c":
                arg = arg[:1]
            elif conv in "di":
                value = arg.strip() or "0"
                if not _is_int(value):
                    return None
                arg = str(int(value))
            out.append(_pad(arg, spec, conv))
            charge(len(out[-1]))
        charge(len(fmt))
        if not used or k >= len(rest):
            return "".join(out)


def _pad(text: str, spec: str, conv: str) -> str:
    body = spec.lstrip("-+ #0")
    flags = spec[: len(spec) - len(body)]
    left = "-" in flags
    width_text, _, precision = body.partition(".")
    if precision and conv in "sb":
        text = text[: int(precision)]
    width = int(width_text) if width_text.isdigit() else 0
    if len(text) >= width:
        return text
    if left:
        return text + " " * (width - len(text))
    fill = "0" if conv in "di" and "0" in flags and "." not in spec else " "
    return fill * (width - len(text)) + text


def base64_decode(text: str) -> str | None:
    """``base64 -d`` of ``text`` (blanks ignored), as text; None if it is not base64."""
    import binascii  # only for a line that decodes

    data = "".join(text.split())
    try:
        raw = binascii.a2b_base64(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


def hex_decode(text: str) -> str | None:
    """``xxd -r -p`` of ``text`` (a plain hex dump; blanks ignored), as text."""
    data = "".join(text.split())
    digits = "".join(c for c in data if c in "0123456789abcdefABCDEF")
    if len(digits) != len(data):
        return None
    return bytes.fromhex(digits[: len(digits) // 2 * 2]).decode("utf-8", "replace")


# -- file name patterns ---------------------------------------------------------------------------

UNKNOWN_GLOB = "unknown-glob"  # a file name pattern whose matches were not all read


def pathname_matches(pattern: str, base: str, files: list[int]) -> list[str] | None:
    """The paths ``pattern`` matches, as bash lists them (sorted; a leading ``.`` only matched
    by a ``.`` in the pattern), relative patterns against directory ``base``; ``files[0]`` is
    how many directory entries may still be read (None once it runs out)."""
    import os  # loaded by the interpreter already: no cost on the hook's path

    absolute = pattern.startswith("/")
    parts = [p for p in pattern.split("/") if p]
    paths = ["/" if absolute else ""]
    for k, part in enumerate(parts):
        # the last part may be a file unless the pattern ends in "/"
        last = k == len(parts) - 1 and not pattern.endswith("/")
        found: list[str] = []
        for prefix in paths:
            if not _has_glob(part):
                path = prefix + part
                # bash lists a path only when it exists: /usr/*/git is /usr/bin/git alone
                on_disk = _on_disk(path, base)
                if os.path.lexists(on_disk) if last else os.path.isdir(on_disk):
                    found.append(path)
                continue
            try:
                entries = os.scandir(_on_disk(prefix, base) or ".")
            except OSError:
                continue
            names: list[str] = []
            with entries:
                for entry in entries:
                    files[0] -= 1
                    if files[0] < 0:
                        return None
                    name = entry.name
                    if name.startswith(".") and not part.startswith("."):
                        continue
                    if glob_match(part, name) and (last or entry.is_dir()):
                        names.append(name)
            found += [prefix + name + ("" if last else "/") for name in sorted(names)]
        paths = [p if last else (p if p.endswith("/") else p + "/") for p in found]
    return [
        p.rstrip("/") + ("/" if pattern.endswith("/") else "") if p != "/" else p for p in paths
    ]


def _on_disk(path: str, base: str) -> str:
    return path if path.startswith("/") else base.rstrip("/") + "/" + path
