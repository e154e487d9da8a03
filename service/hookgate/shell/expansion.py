"""Expansions bash makes from the text of the line alone, before it runs anything: variables,
arrays and positional parameters the line sets, parameter operators (``${v:-x}``, ``${v#p}``,
``${v//p/r}``, ``${v:0:2}``, …), command substitutions whose output is known, arithmetic, and
the splitting of unquoted expansions on ``$IFS``; and the known-safe command substitutions
table (``compile_substitutions``). Brace expansion and patterns are in ``patterns``.
"""

from __future__ import annotations

from hookgate.lang.errors import LimitError
from hookgate.shell.limits import MAX_PATTERN_VALUE
from hookgate.shell.patterns import brace_expand, glob_match, has_glob
from hookgate.shell.words import Word, is_int, matching_close

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# What an expansion the line does not show may be (Word.kind, shell.commands' "kinds").
UNKNOWN_VARIABLE = "unknown-variable"  # a variable the line does not set (the environment's)
UNKNOWN_OUTPUT = "unknown-output"  # a command's output (not a known-safe command), <(…)
UNKNOWN_FILE = "unknown-file"  # a file's content: $(cat f), $(< f)
UNKNOWN_NUMBER = "unknown-number"  # $((…)), $?, $$, $!, ${#x} of an unknown x

UNKNOWN_GLOB = "unknown-glob"  # a file name pattern whose matches were not all read


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
                if not is_int(start):
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
    if not is_int(index):
        return None
    k = int(index)
    if k < 0:
        k += len(items)
    return [items[k] if 0 <= k < len(items) else ""]


def _substring(items: list[str], spec: str, array: bool) -> list[str] | None:
    """``${v:off[:len]}`` (of each item's text, or of an array's items); None when the offsets
    are not plain integers or the length runs backwards past the start."""
    fields = spec.split(":")
    if len(fields) > 2 or not all(is_int(f.strip()) for f in fields):
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
    if not has_glob(pattern):
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
    if not pattern:  # an empty pattern anchored at an end matches there: ${x/#/-} is -$x
        return repl + value if mode == "#" else value + repl if mode == "%" else value
    if not has_glob(pattern):
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
