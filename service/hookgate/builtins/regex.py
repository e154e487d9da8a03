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

    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise BuiltinError(f"invalid regular expression: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    msg = exc.args[0] if exc.args else ""
    return msg.decode(errors="replace") if isinstance(msg, bytes) else str(msg)


def _regex(name: str, pos: int, pattern: Any) -> Any:
    return _compile(want_str(name, pos, pattern))


@builtin("regex.match", "regex", 2)
def match(pattern: Any, value: Any) -> bool:
    """True if ``value`` contains a match of the RE2 ``pattern`` (anchor with ``^…$``)."""
    r = _regex("regex.match", 1, pattern)
    return r.search(want_str("regex.match", 2, value)) is not None


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
    if delimiters is None:
        delims = ""
    else:
        items = want_array("glob.match", 2, delimiters)
        for d in items:
            if type(d) is not str:
                raise BuiltinError("glob.match: operand 2 must be array of strings")
        delims = "".join(items) or "."
    want_str("glob.match", 3, value)
    return _glob_regex(pattern, delims).fullmatch(value) is not None


@lru_cache(maxsize=256)
def _glob_regex(pattern: str, delims: str) -> Any:
    return _compile("(?s)" + _GlobTranslator(pattern, delims).translate())


def _esc(ch: str) -> str:
    return "\\" + ch if ch.isascii() and not ch.isalnum() else ch


class _GlobTranslator:
    def __init__(self, pattern: str, delims: str) -> None:
        self.p = pattern
        self.i = 0
        self.one = "[^" + "".join(_esc(d) for d in delims) + "]" if delims else "."

    def translate(self, in_braces: bool = False) -> str:
        out = []
        p = self.p
        while self.i < len(p):
            c = p[self.i]
            if in_braces and c in ",}":
                break
            self.i += 1
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
        end = p.find("]", self.i + 1)
        if end < 0:
            raise BuiltinError("glob.match: unclosed [ in pattern")
        body = p[self.i : end]
        self.i = end + 1
        negate = body.startswith("!")
        if negate:
            body = body[1:]
        parts = []
        for k, ch in enumerate(body):
            parts.append(ch if ch == "-" and 0 < k < len(body) - 1 else _esc(ch))
        return "[" + ("^" if negate else "") + "".join(parts) + "]"
