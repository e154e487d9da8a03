"""String builtins, with OPA's names and semantics (indexes count Unicode code points)."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_int, want_num, want_str, want_strings
from hookgate.lang.values import (
    RegoSet,
    is_decimal,
    is_number,
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
    """Go's ``fmt.Sprintf`` for the verbs ``%v %s %d %q %x %X %b %e %f %g %t %%`` with flags,
    width and precision; strings print raw, other values as Rego source text."""
    want_str("sprintf", 1, fmt)
    if type(values) is not list:
        raise BuiltinError(f"sprintf: operand 2 must be array but got {_tn(values)}")
    return _Formatter(fmt, values).run()


def _tn(v: Any) -> str:
    from hookgate.lang.values import type_name

    return type_name(v)


class _Formatter:
    def __init__(self, fmt: str, args: list) -> None:
        self.fmt = fmt
        self.args = args
        self.next_arg = 0

    def run(self) -> str:
        fmt = self.fmt
        out: list[str] = []
        i = 0
        n = len(fmt)
        while i < n:
            c = fmt[i]
            if c != "%":  # the text up to the next verb, at once
                j = fmt.find("%", i)
                j = n if j < 0 else j
                out.append(fmt[i:j])
                i = j
                continue
            i += 1
            flags = ""
            while i < n and fmt[i] in "+-# 0":
                flags += fmt[i]
                i += 1
            width = ""
            while i < n and fmt[i].isdigit():
                width += fmt[i]
                i += 1
            prec = None
            if i < n and fmt[i] == ".":
                i += 1
                prec = ""
                while i < n and fmt[i].isdigit():
                    prec += fmt[i]
                    i += 1
            if i >= n:
                out.append("%!(NOVERB)")
                break
            verb = fmt[i]
            i += 1
            if verb == "%":
                out.append("%")
                continue
            if self.next_arg >= len(self.args):
                # Go prints "%!v(MISSING)"; other Rego engines raise: refuse rather than differ.
                raise BuiltinError("unsupported: sprintf with fewer arguments than verbs")
            if (width and len(width) > 6) or (prec and len(prec) > 6):
                # A width of a billion would build a gigabyte string: refuse, do not hang.
                raise BuiltinError("sprintf: width or precision too large")
            arg = self.args[self.next_arg]
            self.next_arg += 1
            out.append(self.verb(verb, arg, flags, int(width) if width else None, prec))
        if self.next_arg < len(self.args):
            extra = ", ".join(self.describe(a) for a in self.args[self.next_arg :])
            out.append(f"%!(EXTRA {extra})")
        return "".join(out)

    @staticmethod
    def describe(arg: Any) -> str:
        t = type(arg)
        if t is str:
            return f"string={arg}"
        if t is int:
            return f"int={arg}"
        if t is float or is_decimal(arg):
            return f"float64={_go_g(float(arg))}"
        return f"{_go_type(arg)}={rego_text(arg)}"

    def verb(self, verb: str, arg: Any, flags: str, width: int | None, prec: str | None) -> str:
        t = type(arg)
        p = int(prec) if prec else (0 if prec == "" else None)
        if verb in "vs":
            if t is str:
                text = arg if p is None else arg[:p]
            elif t is int:  # OPA formats an integer as a big.Int: %s and %v print its digits
                text = str(arg)
            elif t is float or is_decimal(arg):
                text = _go_g(float(arg)) if verb == "v" else f"%!s({self.describe(arg)})"
            else:
                text = rego_text(arg)
        elif verb == "t":
            text = ("true" if arg else "false") if t is bool else f"%!t({self.describe(arg)})"
        elif verb == "q":
            text = _go_quote(arg) if t is str else f"%!q({self.describe(arg)})"
        elif verb in "dboxX" and t is int:
            if verb == "o":
                # Go writes 100 for %o of 64, other Rego engines 0O100: refuse rather than differ.
                raise BuiltinError("unsupported: sprintf verb %o")
            text = format(abs(arg), verb)
            if prec is not None and p is not None:
                text = text.rjust(p, "0")
            if "#" in flags and verb in "xX":
                text = "0" + verb + text
            text = ("-" if arg < 0 else ("+" if "+" in flags else "")) + text
        elif verb in "xX" and t is str:
            text = arg.encode().hex()
            text = text.upper() if verb == "X" else text
        elif verb in "eEfFgG" and is_number(arg):
            f = float(arg)
            if verb in "gG" and p is None:
                text = _go_g(f)
                text = text.upper() if verb == "G" else text
            else:
                text = format(
                    f, ("+" if "+" in flags else "") + "." + str(6 if p is None else p) + verb
                )
        else:
            text = f"%!{verb}({self.describe(arg)})"
        if width is not None and len(text) < width:
            if "-" in flags:
                text = text.ljust(width)
            elif "0" in flags and verb in "dbxXeEfFgG" and t in (int, float):
                sign = text[0] if text[0] in "+-" else ""
                text = sign + text[len(sign) :].rjust(width - len(sign), "0")
            else:
                text = text.rjust(width)
        return text


def _go_type(v: Any) -> str:
    t = type(v)
    if t is bool:
        return "bool"
    return "ast.Value"


def _go_g(f: float) -> str:
    """Go's ``%v`` of a float64: the shortest representation, exponent form for large/small."""
    if f.is_integer() and abs(f) < 1e21:
        return str(int(f))
    r = repr(f)
    if "e" in r:
        mant, exp = r.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        digits = exp.lstrip("+-").rjust(2, "0")
        return f"{mant}e{sign}{digits}"
    return r


def _go_quote(s: str) -> str:
    """Go's ``strconv.Quote``."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        elif not ch.isprintable():
            out.append(f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


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
        return _go_g(v)
    if is_decimal(v):
        return str(v)
    if t is str:
        return _go_quote(v)
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
