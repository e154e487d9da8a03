"""Regular expressions (RE2 syntax, linear-time matching via ``google-re2``) and ``glob.match``.

RE2 never backtracks, so no pattern or input can make the hook run for long (no ReDoS). ``re2``
is imported on first use; compiled patterns are cached.
"""

from __future__ import annotations

from functools import lru_cache

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_array, want_int, want_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@lru_cache(maxsize=512)
def _compile(pattern: str) -> Any:
    import re2

    options = re2.Options()
    # a bad pattern (a team's setting, a payload's text) is reported as the call's error, not
    # logged by RE2: a hook's stderr is read by its host
    options.log_errors = False
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        raise BuiltinError(f"invalid regular expression: {_reason(exc)}") from None


class _Test:
    """A pattern asked only whether it matches: the same RE2 program without capturing groups,
    called on the UTF-8 bytes directly. The ``re2`` wrapper's ``search`` builds a match object
    and maps every group's byte offsets back to characters through a generator; a yes/no needs
    none of it, and RE2 finds one span without groups with its DFAs alone. Built only from a
    pattern ``_compile`` accepted, so a bad pattern fails with the same error first."""

    __slots__ = ("_match", "_search", "_full")

    def __init__(self, pattern: str) -> None:
        import re2
        from re2 import _re2  # the binding under the wrapper: its Match takes bytes and offsets

        options = re2.Options()
        options.never_capture = True  # groups change no yes/no; RE2 then skips their tracking
        program = _re2.RE2(pattern.encode(), options)
        if not program.ok():  # the binding reports a failure here, not by raising
            raise BuiltinError(
                f"invalid regular expression: {program.error().decode(errors='replace')}"
            )
        self._match = program.Match
        self._search = _re2.RE2.Anchor.UNANCHORED
        self._full = _re2.RE2.Anchor.ANCHOR_BOTH

    def search(self, text: str) -> bool:
        """Whether ``text`` holds a match (a lone surrogate raises ``UnicodeEncodeError``, as
        the wrapper does)."""
        data = text.encode()
        return self._match(self._search, data, 0, len(data))[0][0] >= 0

    def fullmatch(self, text: str) -> bool:
        """Whether all of ``text`` matches."""
        data = text.encode()
        return self._match(self._full, data, 0, len(data))[0][0] >= 0


class _Wrapped:
    """The wrapper's own matching, asked yes or no: for a ``re2`` release whose binding no
    longer has what ``_Test`` uses (it is not the package's public interface)."""

    __slots__ = ("_r",)

    def __init__(self, compiled: Any) -> None:
        self._r = compiled

    def search(self, text: str) -> bool:
        return self._r.search(text) is not None

    def fullmatch(self, text: str) -> bool:
        return self._r.fullmatch(text) is not None


@lru_cache(maxsize=512)
def _test(pattern: str) -> _Test | _Wrapped:
    compiled = _compile(pattern)
    try:
        return _Test(pattern)
    except (ImportError, AttributeError):
        return _Wrapped(compiled)


def refusal(kind: str, pattern: str) -> str | None:
    """Why a regex call (``kind`` ``re2``) or ``glob.match`` (``glob``) refuses ``pattern``,
    or None when it takes it (the pack check's question about a team's settings)."""
    try:
        _compile(pattern) if kind == "re2" else _glob(pattern, "/")
    except BuiltinError as exc:
        return str(exc).removeprefix("glob.match: ").removeprefix("invalid regular expression: ")
    return None


def _reason(exc: Exception) -> str:
    msg = exc.args[0] if exc.args else ""
    return msg.decode(errors="replace") if isinstance(msg, bytes) else str(msg)


def _regex(name: str, pos: int, pattern: Any) -> Any:
    return _compile(want_str(name, pos, pattern))


@builtin("regex.match", "regex", 2)
def match(pattern: Any, value: Any) -> bool:
    """True if ``value`` contains a match of the RE2 ``pattern`` (anchor with ``^…$``)."""
    r = _test(want_str("regex.match", 1, pattern))
    return r.search(want_str("regex.match", 2, value))


@builtin("regex.is_valid", "regex", 1)
def is_valid(pattern: Any) -> bool:
    """True if ``pattern`` is a valid RE2 expression (false for a non-string)."""
    if type(pattern) is not str:
        return False
    try:
        _compile(pattern)
    except BuiltinError:
        return False
    return True


def _matches(r: Any, s: str, limit: int = -1) -> list:
    """Successive matches as Go finds them: an empty match right after a match is skipped."""
    out: list = []
    prev_end = -1
    for m in r.finditer(s):
        if len(out) == limit:
            break
        if m.start() == m.end() == prev_end:
            continue
        out.append(m)
        prev_end = m.end()
    return out


def _limit(name: str, n: Any) -> int:
    n = want_int(name, 3, n)
    return -1 if n < 0 else n


@builtin("regex.find_n", "regex", 3)
def find_n(pattern: Any, value: Any, n: Any) -> list[str]:
    """Up to ``n`` matches of ``pattern`` in ``value`` (all of them if ``n`` is -1)."""
    r = _regex("regex.find_n", 1, pattern)
    s = want_str("regex.find_n", 2, value)
    return [m.group(0) for m in _matches(r, s, _limit("regex.find_n", n))]


@builtin("regex.find_all_string_submatch_n", "regex", 3)
def find_all_string_submatch_n(pattern: Any, value: Any, n: Any) -> list[list[str]]:
    """Up to ``n`` matches of ``pattern`` in ``value``, each as ``[match, group1, …]`` (an
    unmatched group is ``""``)."""
    name = "regex.find_all_string_submatch_n"
    r = _regex(name, 1, pattern)
    s = want_str(name, 2, value)
    return [[g or "" for g in (m.group(0), *m.groups())] for m in _matches(r, s, _limit(name, n))]


@builtin("regex.split", "regex", 2)
def split(pattern: Any, value: Any) -> list[str]:
    """``value`` split at every match of ``pattern`` (Go's ``Regexp.Split``: groups are not
    kept, an empty match at the start splits nothing)."""
    r = _regex("regex.split", 1, pattern)
    s = want_str("regex.split", 2, value)
    if not s and pattern:
        return [""]
    out = []
    begin = end = 0
    for m in _matches(r, s):
        end = m.start()
        if m.end() != 0:
            out.append(s[begin:end])
        begin = m.end()
    if end != len(s):
        out.append(s[begin:])
    return out


@builtin("regex.replace", "regex", 3)
def replace(value: Any, pattern: Any, replacement: Any) -> str:
    """``value`` with every match of ``pattern`` replaced; ``$1``/``${name}`` in ``replacement``
    name groups, ``$$`` is a dollar (Go's ``ReplaceAllString``)."""
    s = want_str("regex.replace", 1, value)
    r = _regex("regex.replace", 2, pattern)
    template = want_str("regex.replace", 3, replacement)
    out = []
    pos = 0
    for m in _matches(r, s):
        out.append(s[pos : m.start()])
        out.append(_expand(template, m))
        pos = m.end()
    out.append(s[pos:])
    return "".join(out)


def _expand(template: str, m: Any) -> str:
    out = []
    i = 0
    while i < len(template):
        c = template[i]
        if c != "$" or i + 1 >= len(template):
            out.append(c)
            i += 1
            continue
        nxt = template[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
            continue
        if nxt == "{":
            end = template.find("}", i + 2)
            if end < 0:
                out.append(c)
                i += 1
                continue
            name = template[i + 2 : end]
            i = end + 1
        else:
            j = i + 1
            while j < len(template) and (template[j].isalnum() or template[j] == "_"):
                j += 1
            if j == i + 1:
                out.append(c)
                i += 1
                continue
            name = template[i + 1 : j]
            i = j
        out.append(_group(m, name))
    return "".join(out)


def _group(m: Any, name: str) -> str:
    try:
        g = m.group(int(name)) if name.isdigit() else m.group(name)
    except (IndexError, KeyError, ValueError):
        return ""
    return g or ""


@builtin("glob.match", "regex", 3)
def glob_match(pattern: Any, delimiters: Any, value: Any) -> bool:
    """True if ``value`` matches the glob ``pattern``: ``*`` (not across a delimiter), ``**``,
    ``?``, ``[a-z]``, ``[!a]``, ``{a,b}``. ``delimiters`` null means none; an empty array
    means ``["."]``."""
    want_str("glob.match", 1, pattern)
    delims = _delimiters(delimiters)
    want_str("glob.match", 3, value)
    return _glob(pattern, delims).match(value)


def _delimiters(delimiters: Any) -> str:
    if delimiters is None:
        return ""
    items = want_array("glob.match", 2, delimiters)
    for d in items:
        if type(d) is not str:
            raise BuiltinError("glob.match: operand 2 must be array of strings")
    return "".join(items) or "."


def glob_match_any(patterns: Any, delimiters: Any, value: Any) -> bool:
    """Whether ``glob.match(p, delimiters, value)`` is true for some member ``p`` of the
    iterable ``patterns``, a member whose call would fail counting as not matching (the call is
    undefined). The members are prepared once into one matcher (cached by content): a set of
    the plain ones and one regular expression of the others. Raises ``ValueError`` where RE2
    cannot read ``value`` (a lone surrogate): the caller then calls ``glob.match`` member by
    member, which fails or not as each call would."""
    if type(value) is not str:
        return False
    if not value.isascii():
        value.encode()  # a lone surrogate raises here, before any member is tried
    last_patterns, last_delimiters, matcher = _LAST_SET[0]
    if type(patterns) is list and last_patterns == patterns and last_delimiters == delimiters:
        return matcher.match(value)
    try:
        delims = _delimiters(delimiters)
    except BuiltinError:
        return False
    members = tuple(patterns)
    try:
        matcher = _glob_set(members, delims)
    except TypeError:  # a member that is a list or an object: it never matches
        matcher = _GlobSet(members, delims)
    if type(patterns) is list and type(delimiters) in (list, type(None)):
        _LAST_SET[0] = list(patterns), None if delimiters is None else list(delimiters), matcher
    return matcher.match(value)


# [(the patterns of the last call, as a list, its delimiters, their matcher)]: a rule's list of
# globs is asked about call after call, and comparing it with its copy (the same strings: one
# identity test each) costs less than making it a key of the cache above again. Copies, kept
# and replaced at once: a list changed since, or another list, is another key.
_LAST_SET: list = [(None, None, None)]


class _Glob:
    """A compiled glob: the literal text every match must hold (its start, its end, the runs
    between wildcards) is checked with string operations first, since most globs of a pack are
    tried against paths they do not match and a call into RE2 costs more than the whole check.
    A pattern without wildcards is a plain comparison."""

    __slots__ = ("exact", "prefix", "suffix", "inner", "regex", "source")

    def __init__(self, pattern: str, delims: str) -> None:
        translator = _GlobTranslator(pattern, delims)
        self.source = translator.translate()
        self.regex = _test("(?s)" + self.source)
        pieces = translator.pieces
        literal_only = len(pieces) <= 1 and None not in pieces
        self.exact = "".join(pieces) if literal_only else None  # type: ignore[arg-type]
        self.prefix = pieces[0] if pieces and pieces[0] is not None else ""
        self.suffix = pieces[-1] if len(pieces) > 1 and pieces[-1] is not None else ""
        self.inner = tuple(piece for piece in pieces[1:-1] if piece is not None)

    def match(self, value: str) -> bool:
        if self.exact is not None:
            return value == self.exact
        if (
            not value.startswith(self.prefix)
            or not value.endswith(self.suffix)
            or len(value) < len(self.prefix) + len(self.suffix)
        ):
            return False
        for literal in self.inner:
            if literal not in value:
                return False
        return self.regex.fullmatch(value)


@lru_cache(maxsize=256)
def _glob(pattern: str, delims: str) -> _Glob:
    return _Glob(pattern, delims)


class _GlobSet:
    """Globs tried together (``glob_match_any``): the members without wildcards as a set, the
    others as one alternation, so that a value costs one lookup and one RE2 call however many
    globs there are. Members that are not strings or not valid globs are left out: their
    ``glob.match`` fails. Where RE2 refuses the alternation (too large a program) the globs are
    tried one by one."""

    __slots__ = ("exact", "globs", "regex")

    def __init__(self, patterns: tuple, delims: str) -> None:
        exact = set()
        globs = []
        for pattern in patterns:
            if type(pattern) is not str:
                continue
            try:
                g = _glob(pattern, delims)
            except BuiltinError:
                continue
            if g.exact is not None:
                exact.add(g.exact)
            else:
                globs.append(g)
        self.exact = frozenset(exact)
        self.globs = tuple(globs)
        self.regex = None
        if len(globs) > 1:
            try:
                self.regex = _test("(?s)(?:" + "|".join(f"(?:{g.source})" for g in globs) + ")")
            except BuiltinError:
                pass

    def match(self, value: str) -> bool:
        if value in self.exact:
            return True
        if self.regex is not None:
            return self.regex.fullmatch(value)
        return any(g.match(value) for g in self.globs)


_glob_set = lru_cache(maxsize=64)(_GlobSet)


def _esc(ch: str) -> str:
    return "\\" + ch if ch.isascii() and not ch.isalnum() else ch


class _GlobTranslator:
    def __init__(self, pattern: str, delims: str) -> None:
        self.p = pattern
        self.i = 0
        self.one = "[^" + "".join(_esc(d) for d in delims) + "]" if delims else "."
        # The pattern's top level as literal runs and None for anything else (_Glob).
        self.pieces: list[str | None] = []

    def translate(self, in_braces: bool = False) -> str:
        out = []
        p = self.p
        while self.i < len(p):
            c = p[self.i]
            if in_braces and c in ",}":
                break
            self.i += 1
            if not in_braces:
                literal = p[self.i] if c == "\\" and self.i < len(p) else c
                if c in "*?[{":
                    self.pieces.append(None)
                elif self.pieces and self.pieces[-1] is not None:
                    self.pieces[-1] += literal
                else:
                    self.pieces.append(literal)
            if c == "*":
                if self.i < len(p) and p[self.i] == "*":
                    self.i += 1
                    out.append(".*")
                else:
                    out.append(self.one + "*")
            elif c == "?":
                out.append(self.one)
            elif c == "\\" and self.i < len(p):
                out.append(_esc(p[self.i]))
                self.i += 1
            elif c == "[":
                out.append(self.char_class())
            elif c == "{":
                alts = []
                while True:
                    alts.append(self.translate(in_braces=True))
                    if self.i >= len(p):
                        raise BuiltinError("glob.match: unclosed { in pattern")
                    sep = p[self.i]
                    self.i += 1
                    if sep == "}":
                        break
                out.append("(?:" + "|".join(alts) + ")")
            else:
                out.append(_esc(c))
        return "".join(out)

    def char_class(self) -> str:
        p = self.p
        negate = p.startswith("!", self.i)
        first = self.i + negate
        # A "]" first in the class (after "!") is a member, as in gobwas/glob and RE2.
        end = p.find("]", first + 1)
        if end < 0:
            raise BuiltinError("glob.match: unclosed [ in pattern")
        body = p[first:end]
        self.i = end + 1
        parts = []
        for k, ch in enumerate(body):
            parts.append(ch if ch == "-" and 0 < k < len(body) - 1 else _esc(ch))
        return "[" + ("^" if negate else "") + "".join(parts) + "]"


# Characters glob.match gives a meaning (gobwas/glob's specials, which OPA uses).
_GLOB_SPECIAL = frozenset("*?\\[]{}")


@builtin("glob.quote_meta", "regex", 1)
def glob_quote_meta(pattern: Any) -> str:
    """``pattern`` with every glob metacharacter (``* ? \\ [ ] { }``) escaped, so that
    ``glob.match`` matches it literally."""
    text = want_str("glob.quote_meta", 1, pattern)
    return "".join("\\" + c if c in _GLOB_SPECIAL else c for c in text)


@builtin("regex.template_match", "regex", 4)
def template_match(template: Any, value: Any, start: Any, end: Any) -> bool:
    """True if ``value`` matches ``template`` as a whole: text between the delimiters
    ``start`` and ``end`` (one character each, nesting counted) is an RE2 pattern, the rest
    literal (``"urn:foo:{.*}"`` with ``{``/``}``)."""
    name = "regex.template_match"
    tpl = want_str(name, 1, template)
    text = want_str(name, 2, value)
    open_, close = want_str(name, 3, start), want_str(name, 4, end)
    if len(open_) != 1 or len(close) != 1:
        raise BuiltinError(f"{name}: delimiters must be single characters")
    pattern = ["^"]
    depth, mark, literal_from = 0, 0, 0
    for i, c in enumerate(tpl):
        if c == open_:
            if depth == 0:
                pattern.append(_quote(tpl[literal_from:i]))
                mark = i + 1
            depth += 1
        elif c == close and depth > 0:
            depth -= 1
            if depth == 0:
                pattern.append("(" + tpl[mark:i] + ")")
                literal_from = i + 1
        elif c == close:
            raise BuiltinError(f"{name}: unbalanced braces in {tpl!r}")
    if depth:
        raise BuiltinError(f"{name}: unbalanced braces in {tpl!r}")
    pattern.append(_quote(tpl[literal_from:]) + "$")
    return _test("".join(pattern)).search(text)


def _quote(text: str) -> str:
    return "".join("\\" + c if c.isascii() and not (c.isalnum() or c == "_") else c for c in text)


@builtin("regex.globs_match", "regex", 2)
def globs_match(glob1: Any, glob2: Any) -> bool:
    """True if some string matches both patterns, which use only ``.``, ``[…]`` (ranges,
    ``^`` to negate), ``*``, ``+`` and ``\\`` escapes (OPA's glob intersection)."""
    a = _glob_tokens(want_str("regex.globs_match", 1, glob1))
    b = _glob_tokens(want_str("regex.globs_match", 2, glob2))
    # Search the product of the two patterns' automata (state = tokens consumed, each token
    # `(chars, repeat)`; a repeated token may be left or taken again) for a joint accept.
    seen = set()
    todo = [(0, 0)]
    while todo:
        i, j = todo.pop()
        if (i, j) in seen:
            continue
        seen.add((i, j))
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i][1]:
            todo.append((i + 1, j))
        if j < len(b) and b[j][1]:
            todo.append((i, j + 1))
        if i < len(a) and j < len(b) and _chars_meet(a[i][0], b[j][0]):
            todo += [(i + (not a[i][1]), j + (not b[j][1])), (i + 1, j + 1)]
            todo += [(i + 1, j + (not b[j][1])), (i + (not a[i][1]), j + 1)]
    return False


def _glob_tokens(text: str) -> list[tuple[tuple[bool, tuple], bool]]:
    """``(chars, repeat)`` per token: chars ``(negated, ((lo, hi), …))`` code point ranges
    (``.`` is the negation of nothing); ``x+`` becomes ``x`` then ``x*``."""
    out: list = []
    i = 0
    while i < len(text):
        c = text[i]
        i += 1
        if c == ".":
            chars: tuple = (True, ())
        elif c == "[":
            end = i
            while end < len(text) and text[end] != "]":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise BuiltinError("regex.globs_match: unclosed [ in pattern")
            chars = _class_ranges(text[i:end])
            i = end + 1
        elif c == "\\":
            if i >= len(text):
                raise BuiltinError("regex.globs_match: trailing \\ in pattern")
            chars = (False, ((ord(text[i]), ord(text[i])),))
            i += 1
        elif c in "*+]":
            raise BuiltinError(f"regex.globs_match: unexpected {c} in pattern")
        else:
            chars = (False, ((ord(c), ord(c)),))
        if i < len(text) and text[i] in "*+":
            if text[i] == "+":
                out.append((chars, False))
            out.append((chars, True))
            i += 1
        else:
            out.append((chars, False))
    return out


def _class_ranges(body: str) -> tuple[bool, tuple]:
    negated = body.startswith("^")
    if negated:
        body = body[1:]
    chars = []
    k = 0
    while k < len(body):
        if body[k] == "\\" and k + 1 < len(body):
            k += 1
        chars.append(body[k])
        k += 1
    ranges = []
    k = 0
    while k < len(chars):
        if k + 2 < len(chars) and chars[k + 1] == "-":
            ranges.append((ord(chars[k]), ord(chars[k + 2])))
            k += 3
        else:
            ranges.append((ord(chars[k]), ord(chars[k])))
            k += 1
    return negated, tuple(ranges)


def _chars_meet(x: tuple[bool, tuple], y: tuple[bool, tuple]) -> bool:
    """Whether two character sets share a character."""
    (nx, rx), (ny, ry) = x, y
    if nx and ny:
        return True  # two co-finite sets always meet
    if nx or ny:
        pos, neg = (ry, rx) if nx else (rx, ry)
        return any(_uncovered(lo, hi, neg) for lo, hi in pos)
    return any(a <= d and c <= b for a, b in rx for c, d in ry)


def _uncovered(lo: int, hi: int, ranges: tuple) -> bool:
    """Whether some code point of lo..hi lies outside every range."""
    for a, b in sorted(ranges):
        if a > lo:
            return True
        lo = max(lo, b + 1)
        if lo > hi:
            return False
    return lo <= hi
