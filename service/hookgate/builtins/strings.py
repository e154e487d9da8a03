"""String builtins, with OPA's names and semantics (indexes count Unicode code points)."""

from __future__ import annotations

from hookgate.builtins import gofmt
from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_int, want_num, want_str, want_strings
from hookgate.lang.values import (
    RegoSet,
    is_decimal,
    obj_items,
    sorted_values,
    to_json,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("concat", "strings", 2)
def concat(delimiter: Any, collection: Any) -> str:
    """Joins an array or set of strings with ``delimiter`` (a set in sorted order)."""
    want_str("concat", 1, delimiter)
    items = want_strings("concat", 2, collection)
    if type(collection) is RegoSet:
        items = sorted(items)
    return delimiter.join(items)


@builtin("contains", "strings", 2)
def contains(haystack: Any, needle: Any) -> bool:
    """True if ``needle`` occurs in ``haystack``."""
    return want_str("contains", 2, needle) in want_str("contains", 1, haystack)


@builtin("startswith", "strings", 2)
def startswith(s: Any, prefix: Any) -> bool:
    """True if ``s`` starts with ``prefix``."""
    return want_str("startswith", 1, s).startswith(want_str("startswith", 2, prefix))


@builtin("endswith", "strings", 2)
def endswith(s: Any, suffix: Any) -> bool:
    """True if ``s`` ends with ``suffix``."""
    return want_str("endswith", 1, s).endswith(want_str("endswith", 2, suffix))


@builtin("lower", "strings", 1)
def lower(s: Any) -> str:
    """``s`` in lower case, character by character as Go's ``strings.ToLower`` (so a final
    capital sigma becomes σ, not ς)."""
    s = want_str("lower", 1, s)
    if s.isascii():  # every ASCII letter maps to one ASCII letter: Python's mapping is Go's
        return s.lower()
    return "".join(_simple_case(c, c.lower()) for c in s)


@builtin("upper", "strings", 1)
def upper(s: Any) -> str:
    """``s`` in upper case, character by character as Go's ``strings.ToUpper``."""
    s = want_str("upper", 1, s)
    if s.isascii():
        return s.upper()
    return "".join(_simple_case(c, c.upper()) for c in s)


def _simple_case(c: str, mapped: str) -> str:
    # Go maps rune to rune: where Unicode's full mapping yields several characters (ß → SS),
    # the simple mapping keeps the character (İ is the one rune whose simple lower is i).
    if len(mapped) == 1:
        return mapped
    return "i" if c == "\u0130" else c


@builtin("split", "strings", 2)
def split(s: Any, delimiter: Any) -> list[str]:
    """``s`` split at each ``delimiter``; an empty delimiter splits into characters."""
    want_str("split", 1, s)
    if want_str("split", 2, delimiter) == "":
        return list(s)
    return s.split(delimiter)


@builtin("strings.split_n", "strings", 3)
def split_n(s: Any, delimiter: Any, n: Any) -> list[str]:
    """The first ``n`` parts of ``split(s, delimiter)`` (the last ``-n`` when ``n`` is
    negative, none when it is 0)."""
    parts = split(s, delimiter)
    count = want_int("strings.split_n", 3, n)
    if count >= 0:
        return parts[:count]
    return parts[count:]


@builtin("replace", "strings", 3)
def replace(s: Any, old: Any, new: Any) -> str:
    """``s`` with every ``old`` replaced by ``new``."""
    return want_str("replace", 1, s).replace(
        want_str("replace", 2, old), want_str("replace", 3, new)
    )


@builtin("strings.replace_n", "strings", 2)
def replace_n(patterns: Any, s: Any) -> str:
    """``s`` with each key of the object ``patterns`` replaced by its value, as OPA does it: Go's
    ``strings.NewReplacer`` with the keys in sorted order."""
    if type(patterns) is not dict:
        raise BuiltinError(f"strings.replace_n: operand 1 must be object but got {_tn(patterns)}")
    want_str("strings.replace_n", 2, s)
    pairs = []
    for k, v in obj_items(patterns):
        if type(k) is not str:
            raise BuiltinError(
                "strings.replace_n: operand 1 non-string key found in pattern object"
            )
        if type(v) is not str:
            raise BuiltinError(
                "strings.replace_n: operand 1 non-string value found in pattern object"
            )
        pairs.append((k, v))
    pairs.sort()
    return go_replace(pairs, s)


def go_replace(pairs: list[tuple[str, str]], s: str) -> str:
    """Go's ``strings.NewReplacer(old1, new1, ...).Replace(s)`` (its generic algorithm, which
    every special case of it agrees with): left to right over the UTF-8 bytes, at each position
    the earliest pair whose old string starts there wins, matches never overlap. An empty old
    string matches at every byte position, but not twice in a row at the same one (so a longer
    key may still match after it), and at the end of the text; between the bytes of one
    character it splits the character, whose halves JSON shows as U+FFFD, as Go's does."""
    table: dict[bytes, tuple[int, bytes]] = {}
    for rank, (old, new) in enumerate(pairs):
        table.setdefault(old.encode(), (rank, new.encode()))
    lengths = sorted({len(k) for k in table})
    data = s.encode()
    out = bytearray()
    i = last = 0
    prev_empty = False
    while i <= len(data):
        best: tuple[int, bytes] | None = None
        size = 0
        for n in lengths:
            if i + n > len(data):
                break
            if n == 0 and prev_empty:
                continue
            hit = table.get(data[i : i + n])
            if hit is not None and (best is None or hit[0] < best[0]):
                best, size = hit, n
        prev_empty = best is not None and size == 0
        if best is None:
            i += 1
            continue
        out += data[last:i]
        out += best[1]
        i += size
        last = i
    out += data[last:]
    return out.decode("utf-8", "replace")


@builtin("strings.reverse", "strings", 1)
def reverse(s: Any) -> str:
    """``s`` with its characters in reverse order."""
    return want_str("strings.reverse", 1, s)[::-1]


@builtin("strings.count", "strings", 2)
def count_substring(s: Any, sub: Any) -> int:
    """The number of non-overlapping occurrences of ``sub`` in ``s``."""
    want_str("strings.count", 1, s)
    if want_str("strings.count", 2, sub) == "":
        return len(s) + 1
    return s.count(sub)


@builtin("trim", "strings", 2)
def trim(s: Any, cutset: Any) -> str:
    """``s`` without leading and trailing characters found in ``cutset``."""
    return want_str("trim", 1, s).strip(want_str("trim", 2, cutset))


@builtin("trim_left", "strings", 2)
def trim_left(s: Any, cutset: Any) -> str:
    """``s`` without leading characters found in ``cutset``."""
    return want_str("trim_left", 1, s).lstrip(want_str("trim_left", 2, cutset))


@builtin("trim_right", "strings", 2)
def trim_right(s: Any, cutset: Any) -> str:
    """``s`` without trailing characters found in ``cutset``."""
    return want_str("trim_right", 1, s).rstrip(want_str("trim_right", 2, cutset))


@builtin("trim_prefix", "strings", 2)
def trim_prefix(s: Any, prefix: Any) -> str:
    """``s`` without the leading ``prefix`` (unchanged if it does not start with it)."""
    return want_str("trim_prefix", 1, s).removeprefix(want_str("trim_prefix", 2, prefix))


@builtin("trim_suffix", "strings", 2)
def trim_suffix(s: Any, suffix: Any) -> str:
    """``s`` without the trailing ``suffix`` (unchanged if it does not end with it)."""
    return want_str("trim_suffix", 1, s).removesuffix(want_str("trim_suffix", 2, suffix))


@builtin("trim_space", "strings", 1)
def trim_space(s: Any) -> str:
    """``s`` without leading and trailing white space."""
    return want_str("trim_space", 1, s).strip()


@builtin("substring", "strings", 3)
def substring(s: Any, start: Any, length: Any) -> str:
    """The part of ``s`` from code point ``start`` of ``length`` code points (a negative length
    means to the end)."""
    want_str("substring", 1, s)
    start = want_int("substring", 2, start)
    length = want_int("substring", 3, length)
    if start < 0:
        raise BuiltinError("substring: negative offset")
    if length < 0:
        return s[start:]
    return s[start : start + length]


@builtin("indexof", "strings", 2)
def indexof(s: Any, sub: Any) -> int:
    """The code-point index of the first ``sub`` in ``s``, or -1 (an empty ``sub`` is an
    error, as in OPA)."""
    want_str("indexof", 1, s)
    if want_str("indexof", 2, sub) == "":
        raise BuiltinError("indexof: empty search character")
    return s.find(sub)


@builtin("indexof_n", "strings", 2)
def indexof_n(s: Any, sub: Any) -> list[int]:
    """The code-point indexes of every occurrence of ``sub`` in ``s`` (overlapping ones too)."""
    want_str("indexof_n", 1, s)
    if want_str("indexof_n", 2, sub) == "":
        raise BuiltinError("indexof_n: empty search character")
    out = []
    i = s.find(sub)
    while i >= 0:
        out.append(i)
        i = s.find(sub, i + 1)
    return out


@builtin("strings.any_prefix_match", "strings", 2)
def any_prefix_match(search: Any, base: Any) -> bool:
    """True if any string of ``search`` (a string, array or set) starts with any of ``base``."""
    strings = _str_or_strings("strings.any_prefix_match", 1, search)
    if not strings:
        return False
    prefixes = tuple(_str_or_strings("strings.any_prefix_match", 2, base))
    return any(s.startswith(prefixes) for s in strings)


@builtin("strings.any_suffix_match", "strings", 2)
def any_suffix_match(search: Any, base: Any) -> bool:
    """True if any string of ``search`` (a string, array or set) ends with any of ``base``."""
    strings = _str_or_strings("strings.any_suffix_match", 1, search)
    if not strings:
        return False
    suffixes = tuple(_str_or_strings("strings.any_suffix_match", 2, base))
    return any(s.endswith(suffixes) for s in strings)


def _str_or_strings(name: str, pos: int, value: Any) -> list[str]:
    if type(value) is str:
        return [value]
    return want_strings(name, pos, value)


@builtin("format_int", "strings", 2)
def format_int(number: Any, base: Any) -> str:
    """``number`` (truncated towards zero) written in ``base`` 2, 8, 10 or 16."""
    n = int(want_num("format_int", 1, number))
    b = want_num("format_int", 2, base)
    if b not in (2, 8, 10, 16):
        raise BuiltinError("format_int: operand 2 must be one of {2, 8, 10, 16}")
    digits = {2: "b", 8: "o", 10: "d", 16: "x"}[int(b)]
    return ("-" if n < 0 else "") + format(abs(n), digits)


@builtin("sprintf", "strings", 2)
def sprintf(fmt: Any, values: Any) -> str:
    """Go's ``fmt.Sprintf`` over the values as OPA hands them to it: an integer as Go's ``int``
    (``*big.Int`` beyond int64), any other number as ``float64``, a string as itself, and
    anything else as its Rego text (a string)."""
    want_str("sprintf", 1, fmt)
    if type(values) is not list:
        raise BuiltinError(f"sprintf: operand 2 must be array but got {_tn(values)}")
    for v in values:
        if type(v) not in _GO_TYPES:
            return gofmt.sprintf(fmt, [_go_value(v) for v in values])
    return gofmt.sprintf(fmt, values)


_GO_TYPES = frozenset({str, int, float})


def _go_value(v: Any) -> int | float | str:
    if type(v) in _GO_TYPES:
        return v
    if is_decimal(v):
        # OPA's json.Number.Float64: a literal a float64 cannot hold (1e400) stays its text.
        f = float(v)
        return f if f not in (float("inf"), float("-inf")) else str(v)
    return rego_text(v)


def _tn(v: Any) -> str:
    from hookgate.lang.values import type_name

    return type_name(v)


def rego_text(v: Any) -> str:
    """A value as Rego source text (OPA's ``String()``): strings quoted, sets sorted, ``set()``."""
    t = type(v)
    if v is None:
        return "null"
    if t is bool:
        return "true" if v else "false"
    if t is int:
        return str(v)
    if t is float:
        return repr(v)  # the shortest text that reads back, as JSON writes it: 4.0, 1e+21
    if is_decimal(v):
        return str(v)
    if t is str:
        return gofmt.quote(v)
    if t is list:
        return "[" + ", ".join(rego_text(x) for x in v) + "]"
    if t is dict:
        items = sorted(obj_items(v), key=lambda kv: _sk(kv[0]))
        return "{" + ", ".join(f"{rego_text(k)}: {rego_text(x)}" for k, x in items) + "}"
    if t is RegoSet:
        if not len(v):
            return "set()"
        return "{" + ", ".join(rego_text(x) for x in sorted_values(v)) + "}"
    return str(to_json(v))


def _sk(v: Any) -> tuple:
    from hookgate.lang.values import sort_key

    return sort_key(v)
