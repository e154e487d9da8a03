"""Go's ``fmt.Sprintf`` for the four Go types OPA's ``sprintf`` hands it: ``int`` (a Python
int within int64), ``*big.Int`` (a Python int beyond it), ``float64`` (a Python float) and
``string``. A port of Go 1.19's ``fmt/print.go``, ``fmt/format.go``, ``strconv/ftoa.go``,
``strconv/quote.go`` and ``math/big``'s ``Int.Format``, rule for rule, so that the odd corners
(``%!d(string=a)`` keeping the verb's width, ``%!(EXTRA …)``, ``%[2]*[1]d``, ``%#g``) read as Go
writes them; tests/test_sprintf_go.py checks it against Go itself and a recorded table.

Python's own formatting is used only where it is Go's by definition: correctly rounded
decimal digits (``format(x, ".{n}e")``, ``repr`` for the shortest round trip) and
``str.isprintable``, whose rule (not Unicode's Other or Separator, except the space) is Go's
``strconv.IsPrint``.
"""

from __future__ import annotations

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
_MAX_RUNE = 0x10FFFF
_UINT64 = (1 << 64) - 1
# Go's tooLarge: a width, precision or index past a million is not a number to fmt.
_TOO_LARGE = 1_000_000
# The longest text one builtin call may return (lang/runtime.py's MAX_OUTPUT), and the widths
# and precisions past which the text is measured against it.
MAX_TEXT = 1 << 20
_LONG = 1 << 16


def go_type(arg: int | float | str) -> str:
    """The Go type name ``%T`` prints for an argument."""
    t = type(arg)
    if t is str:
        return "string"
    if t is float:
        return "float64"
    return "int" if INT64_MIN <= arg <= INT64_MAX else "*big.Int"


def sprintf(fmt: str, args: list) -> str:
    """``fmt.Sprintf(fmt, args...)``; each argument a Python int, float or str."""
    # The guards' formats (``"no push to %s"``): bare %s, %v, %q and %d, one per argument,
    # need no printer; anything else is read by it.
    parts = fmt.split("%")
    if len(parts) == len(args) + 1:
        out = [parts[0]]
        for part, arg in zip(parts[1:], args, strict=True):
            c = part[:1]
            t = type(arg)
            if t is str and (c == "s" or c == "v"):
                out.append(arg)
            elif t is str and c == "q":
                out.append(quote(arg))
            elif t is int and (c == "d" or c == "v") and INT64_MIN <= arg <= INT64_MAX:
                out.append(str(arg))
            else:
                break
            out.append(part[1:])
        else:
            return "".join(out)
    p = _Printer(args)
    p.run(fmt)
    return "".join(p.buf)


class _Printer:
    __slots__ = (
        "args",
        "buf",
        "minus",
        "plus",
        "sharp",
        "space",
        "zero",
        "plus_v",
        "sharp_v",
        "wid",
        "wid_present",
        "prec",
        "prec_present",
        "good_arg_num",
        "reordered",
    )

    def __init__(self, args: list) -> None:
        self.args = args
        self.buf: list[str] = []
        self.clear_flags()
        self.wid = self.prec = 0
        self.reordered = False
        self.good_arg_num = True

    def clear_flags(self) -> None:
        self.minus = self.plus = self.sharp = self.space = self.zero = False
        self.plus_v = self.sharp_v = self.wid_present = self.prec_present = False

    # -- the format string (print.go doPrintf) -------------------------------------------

    def run(self, fmt: str) -> None:
        args = self.args
        nargs = len(args)
        buf = self.buf
        end = len(fmt)
        arg_num = 0
        i = 0
        while i < end:
            self.good_arg_num = True
            j = fmt.find("%", i)
            if j < 0:
                buf.append(fmt[i:])
                break
            if j > i:
                buf.append(fmt[i:j])
            i = j + 1
            self.clear_flags()
            simple = False
            while i < end:
                c = fmt[i]
                if c == "#":
                    self.sharp = True
                elif c == "0":
                    self.zero = not self.minus  # zero padding goes on the left only
                elif c == "+":
                    self.plus = True
                elif c == "-":
                    self.minus = True
                    self.zero = False
                elif c == " ":
                    self.space = True
                else:
                    if "a" <= c <= "z" and arg_num < nargs:  # Go's fast path, same result
                        if c == "v":
                            self.sharp_v, self.sharp = self.sharp, False
                            self.plus_v, self.plus = self.plus, False
                        self.print_arg(args[arg_num], c)
                        arg_num += 1
                        i += 1
                        simple = True
                    break
                i += 1
            if simple:
                continue

            arg_num, i, after_index = self.arg_number(arg_num, fmt, i)

            if i < end and fmt[i] == "*":
                i += 1
                self.wid, self.wid_present, arg_num = self.int_from_arg(arg_num)
                if not self.wid_present:
                    buf.append("%!(BADWIDTH)")
                if self.wid < 0:
                    self.wid = -self.wid
                    self.minus = True
                    self.zero = False
                after_index = False
            else:
                self.wid, self.wid_present, i = _parse_num(fmt, i, end)
                if after_index and self.wid_present:  # "%[3]2d"
                    self.good_arg_num = False

            if i + 1 < end and fmt[i] == ".":
                i += 1
                if after_index:  # "%[3].2d"
                    self.good_arg_num = False
                arg_num, i, after_index = self.arg_number(arg_num, fmt, i)
                if i < end and fmt[i] == "*":
                    i += 1
                    self.prec, self.prec_present, arg_num = self.int_from_arg(arg_num)
                    if self.prec < 0:
                        self.prec = 0
                        self.prec_present = False
                    if not self.prec_present:
                        buf.append("%!(BADPREC)")
                    after_index = False
                else:
                    self.prec, self.prec_present, i = _parse_num(fmt, i, end)
                    if not self.prec_present:
                        self.prec = 0
                        self.prec_present = True

            if not after_index:
                arg_num, i, after_index = self.arg_number(arg_num, fmt, i)

            if i >= end:
                buf.append("%!(NOVERB)")
                break

            verb = fmt[i]
            i += 1
            if verb == "%":  # takes no operand, ignores width and precision
                buf.append("%")
            elif not self.good_arg_num:
                buf.append(f"%!{verb}(BADINDEX)")
            elif arg_num >= nargs:
                buf.append(f"%!{verb}(MISSING)")
            else:
                if verb == "v":
                    self.sharp_v, self.sharp = self.sharp, False
                    self.plus_v, self.plus = self.plus, False
                self.print_arg(args[arg_num], verb)
                arg_num += 1
                if self.wid > _LONG or self.prec > _LONG:
                    self.bound()

        if not self.reordered and arg_num < nargs:
            self.clear_flags()
            buf.append("%!(EXTRA ")
            for k, arg in enumerate(args[arg_num:]):
                if k:
                    buf.append(", ")
                buf.append(go_type(arg) + "=")
                self.print_arg(arg, "v")
            buf.append(")")

    def bound(self) -> None:
        """Each width or precision may be ten million (Go's parsenum): a format of many would
        build gigabytes before the evaluator's bound on a result refuses it, so the text is
        measured as it grows past that bound."""
        if sum(map(len, self.buf)) > MAX_TEXT:
            from hookgate.lang.errors import LimitError

            raise LimitError("output-size", f"sprintf: result over {MAX_TEXT} characters")

    def arg_number(self, arg_num: int, fmt: str, i: int) -> tuple[int, int, bool]:
        """An explicit ``[n]`` at ``i``: the argument it names, where the format goes on,
        and whether one was read."""
        if i >= len(fmt) or fmt[i] != "[":
            return arg_num, i, False
        self.reordered = True
        index, wid, ok = _parse_arg_number(fmt, i)
        if ok and 0 <= index < len(self.args):
            return index, i + wid, True
        self.good_arg_num = False
        return arg_num, i + wid, ok

    def int_from_arg(self, arg_num: int) -> tuple[int, bool, int]:
        """A ``*`` width or precision: only a Go ``int`` argument is one."""
        if arg_num >= len(self.args):
            return 0, False, arg_num
        a = self.args[arg_num]
        num, ok = 0, False
        if type(a) is int and INT64_MIN <= a <= INT64_MAX:
            num, ok = a, True
        if num > _TOO_LARGE or num < -_TOO_LARGE:
            num, ok = 0, False
        return num, ok, arg_num + 1

    # -- one argument (print.go printArg and its type cases) -----------------------------

    def print_arg(self, arg: int | float | str, verb: str) -> None:
        if verb == "T":
            self.fmt_s(go_type(arg))
            return
        t = type(arg)
        if verb == "p":
            if t is int and not INT64_MIN <= arg <= INT64_MAX:
                # Go prints the *big.Int's address: no answer is the same twice.
                from hookgate.builtins.registry import BuiltinError

                raise BuiltinError("unsupported: sprintf %p of an integer beyond int64")
            self.bad_verb(arg, verb)
        elif t is str:
            if verb == "v":
                self.fmt_q(arg) if self.sharp_v else self.fmt_s(arg)
            elif verb == "s":
                self.fmt_s(arg)
            elif verb == "x" or verb == "X":
                self.fmt_sx(arg, verb == "X")
            elif verb == "q":
                self.fmt_q(arg)
            else:
                self.bad_verb(arg, verb)
        elif t is float:
            if verb == "v":
                self.fmt_float(arg, "g", -1)
            elif verb in "bgGxX":
                self.fmt_float(arg, verb, -1)
            elif verb in "feE":
                self.fmt_float(arg, verb, 6)
            elif verb == "F":
                self.fmt_float(arg, "f", 6)
            else:
                self.bad_verb(arg, verb)
        elif INT64_MIN <= arg <= INT64_MAX:
            if verb == "v" or verb == "d":
                self.fmt_integer(arg, "d", verb)
            elif verb in "bxX":
                self.fmt_integer(arg, verb, verb)
            elif verb == "o" or verb == "O":
                self.fmt_integer(arg, "o", verb)
            elif verb == "c":
                self.pad(_rune_or_error(arg))
            elif verb == "q":
                r = arg if 0 <= arg <= _MAX_RUNE else 0xFFFD
                self.pad(quote_rune(r, ascii_only=self.plus))
            elif verb == "U":
                self.fmt_unicode(arg & _UINT64)
            else:
                self.bad_verb(arg, verb)
        else:
            self.fmt_big(arg, verb)

    def bad_verb(self, arg: int | float | str, verb: str) -> None:
        self.buf.append(f"%!{verb}({go_type(arg)}=")
        self.print_arg(arg, "v")  # with the verb's flags, width and precision
        self.buf.append(")")

    # -- padding (format.go) ------------------------------------------------------------

    def padding(self, n: int) -> str:
        return ("0" if self.zero else " ") * n if n > 0 else ""

    def pad(self, s: str) -> None:
        if not self.wid_present or self.wid == 0:
            self.buf.append(s)
        elif self.minus:
            self.buf.append(s + self.padding(self.wid - len(s)))
        else:
            self.buf.append(self.padding(self.wid - len(s)) + s)

    def pad_no_zero(self, s: str) -> None:
        zero, self.zero = self.zero, False
        self.pad(s)
        self.zero = zero

    def fmt_s(self, s: str) -> None:
        if self.prec_present:
            s = s[: self.prec]
        self.pad(s)

    def fmt_q(self, s: str) -> None:
        if self.prec_present:
            s = s[: self.prec]
        if self.sharp and _can_backquote(s):
            self.pad("`" + s + "`")
        else:
            self.pad(quote(s, ascii_only=self.plus))

    def fmt_sx(self, s: str, upper: bool) -> None:
        b = s.encode("utf-8", "surrogatepass")
        length = len(b)
        if self.prec_present and self.prec < length:
            length = self.prec
        width = 2 * length
        if width <= 0:
            if self.wid_present:
                self.buf.append(self.padding(self.wid))
            return
        if self.space:
            if self.sharp:
                width *= 2
            width += length - 1
        elif self.sharp:
            width += 2
        prefix = "0X" if upper else "0x"
        hexes = [format(c, "02X" if upper else "02x") for c in b[:length]]
        if self.space:
            text = " ".join(prefix + h for h in hexes) if self.sharp else " ".join(hexes)
        else:
            text = (prefix if self.sharp else "") + "".join(hexes)
        pad = self.padding(self.wid - width) if self.wid_present and self.wid > width else ""
        self.buf.append(text + pad if self.minus else pad + text)

    def fmt_unicode(self, u: int) -> None:
        prec = self.prec if self.prec_present and self.prec > 4 else 4
        s = "U+" + format(u, "X").rjust(prec, "0")
        if self.sharp and u <= _MAX_RUNE and _is_print(u):
            s += " '" + chr(u) + "'"
        self.pad_no_zero(s)

    # -- integers -----------------------------------------------------------------------

    def fmt_integer(self, v: int, base: str, verb: str) -> None:
        negative = v < 0
        u = -v if negative else v
        prec = 0
        if self.prec_present:
            prec = self.prec
            if prec == 0 and u == 0:
                zero, self.zero = self.zero, False
                self.buf.append(self.padding(self.wid))
                self.zero = zero
                return
        elif self.zero and self.wid_present:
            prec = self.wid
            if negative or self.plus or self.space:
                prec -= 1  # room for the sign
        digits = format(u, base)
        if len(digits) < prec:
            digits = "0" * (prec - len(digits)) + digits
        if self.sharp:
            if base == "b":
                digits = "0b" + digits
            elif base == "o":
                if digits[0] != "0":
                    digits = "0" + digits
            elif base in "xX":
                digits = "0" + base + digits
        if verb == "O":
            digits = "0o" + digits
        if negative:
            digits = "-" + digits
        elif self.plus:
            digits = "+" + digits
        elif self.space:
            digits = " " + digits
        self.pad_no_zero(digits)

    def fmt_big(self, x: int, verb: str) -> None:
        """``(*big.Int).Format``: its own rules, and its own ``%!c(big.Int=…)``."""
        base = {"b": "b", "o": "o", "O": "o", "d": "d", "s": "d", "v": "d", "x": "x", "X": "X"}
        b = base.get(verb)
        if b is None:
            self.buf.append(f"%!{verb}(big.Int={x})")
            return
        plus = self.plus or self.plus_v
        sharp = self.sharp or self.sharp_v
        sign = "-" if x < 0 else "+" if plus else " " if self.space else ""
        prefix = ""
        if sharp:
            prefix = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "")
        if verb == "O":
            prefix = "0o"
        digits = format(abs(x), b)
        zeros = left = right = 0
        if self.prec_present and len(digits) < self.prec:  # (never zero: it is past int64)
            zeros = self.prec - len(digits)
        length = len(sign) + len(prefix) + zeros + len(digits)
        if self.wid_present and length < self.wid:
            d = self.wid - length
            if self.minus:
                right = d
            elif self.zero and not self.prec_present:
                zeros = d
            else:
                left = d
        self.buf.append(" " * left + sign + prefix + "0" * zeros + digits + " " * right)

    # -- floats (format.go fmtFloat over strconv's AppendFloat) -------------------------

    def fmt_float(self, v: float, verb: str, prec: int) -> None:
        if self.prec_present:
            prec = self.prec
        num = format_float(v, verb, prec)
        if num[0] != "-":
            num = "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if self.sharp and verb != "b":
            num = _sharp_float(num, verb, prec)
        if self.plus or num[0] != "+":
            if self.zero and self.wid_present and self.wid > len(num):
                self.buf.append(num[0] + self.padding(self.wid - len(num)) + num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])


def _sharp_float(num: str, verb: str, prec: int) -> str:
    """``%#g`` and friends: always a decimal point, and ``%#g`` keeps its trailing zeros."""
    digits = 0
    if verb in "vgGx":
        digits = 6 if prec == -1 else prec
    tail = ""
    has_point = False
    seen_nonzero = False
    i = 1
    while i < len(num):
        c = num[i]
        if c == ".":
            has_point = True
        elif c in "pP" or (c in "eE" and verb not in "xX"):
            tail = num[i:]
            num = num[:i]
            break
        else:
            if c != "0":
                seen_nonzero = True
            if seen_nonzero:
                digits -= 1
        i += 1
    if not has_point:
        if len(num) == 2 and num[1] == "0":
            digits -= 1
        num += "."
    if digits > 0:
        num += "0" * digits
    return num + tail


def _parse_num(s: str, start: int, end: int) -> tuple[int, bool, int]:
    """Go's parsenum: the decimal number at ``start``; past a million it is no number and the
    format is read to its end."""
    num = 0
    present = False
    i = start
    while i < end and "0" <= s[i] <= "9":
        if num > _TOO_LARGE:
            return 0, False, end
        num = num * 10 + ord(s[i]) - 48
        present = True
        i += 1
    return num, present, i


def _parse_arg_number(fmt: str, i: int) -> tuple[int, int, bool]:
    """``[n]`` at ``fmt[i]``: the zero-based index, the characters it takes, whether valid."""
    if len(fmt) - i < 3:
        return 0, 1, False
    close = fmt.find("]", i + 1)
    if close < 0:
        return 0, 1, False
    width, ok, newi = _parse_num(fmt, i + 1, close)
    if not ok or newi != close:
        return 0, close - i + 1, False
    return width - 1, close - i + 1, True


# -- strconv ----------------------------------------------------------------------------


def format_float(v: float, fmt: str, prec: int) -> str:
    """``strconv.FormatFloat(v, fmt, prec, 64)`` for a finite ``v``."""
    neg = v < 0 or (v == 0 and str(v)[0] == "-")
    a = -v if neg else v
    sign = "-" if neg else ""
    if fmt == "b":
        mant, exp = _mant_exp(a)
        return f"{sign}{mant}p{exp:+d}"
    if fmt in "xX":
        return sign + _fmt_x(a, prec, fmt)
    if fmt == "f" and prec >= 0:
        return sign + format(a, f".{prec}f")
    shortest = prec < 0
    if shortest:
        d, dp = _shortest(a)
        prec = {"e": max(len(d) - 1, 0), "E": max(len(d) - 1, 0), "f": max(len(d) - dp, 0)}.get(
            fmt, len(d)
        )
    else:
        if fmt in "gG" and prec == 0:
            prec = 1
        d, dp = _fixed(a, prec + 1 if fmt in "eE" else prec)
    if fmt in "eE":
        return sign + _fmt_e(d, dp, prec, fmt)
    if fmt == "f":
        return sign + _fmt_f(d, dp, prec)
    eprec = prec
    if eprec > len(d) and len(d) >= dp:
        eprec = len(d)
    if shortest:
        eprec = 6
    exp = dp - 1
    if exp < -4 or exp >= eprec:
        return sign + _fmt_e(d, dp, min(prec, len(d)) - 1, "e" if fmt == "g" else "E")
    if prec > dp:
        prec = len(d)
    return sign + _fmt_f(d, dp, max(prec - dp, 0))


def _shortest(a: float) -> tuple[str, int]:
    """The shortest digits that read back as ``a`` (``repr``'s), and the decimal point's place."""
    r = repr(a)
    exp = 0
    if "e" in r:
        r, e = r.split("e")
        exp = int(e)
    whole, _, frac = r.partition(".")
    digits = (whole + frac).lstrip("0")
    dp = len(whole) + exp - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0")
    return (digits, dp) if digits else ("", 0)


def _fixed(a: float, n: int) -> tuple[str, int]:
    """``a`` correctly rounded to ``n`` significant digits, trailing zeros dropped."""
    mant, _, e = format(a, f".{n - 1}e").partition("e")
    digits = mant.replace(".", "").rstrip("0")
    return (digits, int(e) + 1) if digits else ("", 0)


def _fmt_e(d: str, dp: int, prec: int, fmt: str) -> str:
    out = d[0] if d else "0"
    if prec > 0:
        frac = d[1 : prec + 1]
        out += "." + frac + "0" * (prec - len(frac))
    exp = dp - 1 if d else 0
    return f"{out}{fmt}{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _fmt_f(d: str, dp: int, prec: int) -> str:
    out = (d[:dp] + "0" * (dp - len(d))) if dp > 0 else "0"
    if prec > 0:
        frac = "".join(d[j] if 0 <= j < len(d) else "0" for j in range(dp, dp + prec))
        out += "." + frac
    return out


def _mant_exp(a: float) -> tuple[int, int]:
    """``a`` as ``mant * 2**exp`` the way ``%b`` writes it (53-bit mantissa, or subnormal)."""
    from math import frexp, ldexp

    if a == 0:
        return 0, -1074
    m, e = frexp(a)
    if e - 53 < -1074:
        return int(ldexp(a, 1074)), -1074
    return int(ldexp(m, 53)), e - 53


def _fmt_x(a: float, prec: int, fmt: str) -> str:
    """Go's hexadecimal float: ``0x1.8p+01``, the exponent at least two digits."""
    from math import frexp, ldexp

    if a == 0:
        mant, exp = 0, 0
    else:
        m, e = frexp(a)
        mant, exp = int(ldexp(m, 61)), e - 1  # 1.xxx with the leading 1 at bit 60
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant <<= 60 - shift
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    hexd = "0123456789ABCDEF" if fmt == "X" else "0123456789abcdef"
    out = "0" + fmt + str((mant >> 60) & 1)
    mant = (mant << 4) & ((1 << 64) - 1)
    if prec < 0 and mant:
        out += "."
        while mant:
            out += hexd[(mant >> 60) & 15]
            mant = (mant << 4) & ((1 << 64) - 1)
    elif prec > 0:
        out += "." + "".join(hexd[(mant >> (60 - 4 * k)) & 15] for k in range(min(prec, 15)))
        out += "0" * (prec - 15 if prec > 15 else 0)
    return f"{out}{'P' if fmt == 'X' else 'p'}{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _is_print(r: int) -> bool:
    return not 0xD800 <= r <= 0xDFFF and chr(r).isprintable()


def _rune_or_error(c: int) -> str:
    """A code point as a character; not one (negative, past U+10FFFF, a surrogate) is U+FFFD."""
    return chr(c) if 0 <= c <= _MAX_RUNE and not 0xD800 <= c <= 0xDFFF else "\ufffd"


_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}


def _escaped(r: int, q: str, ascii_only: bool) -> str:
    ch = chr(r)
    if ch == q or ch == "\\":
        return "\\" + ch
    if (r < 0x80 or not ascii_only) and _is_print(r):
        return ch
    esc = _ESCAPES.get(r)
    if esc is not None:
        return esc
    if r < 0x20 or r == 0x7F:
        return f"\\x{r:02x}"
    if 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    return f"\\u{r:04x}" if r < 0x10000 else f"\\U{r:08x}"


def quote(s: str, ascii_only: bool = False) -> str:
    """Go's ``strconv.Quote`` (``QuoteToASCII`` with ``ascii_only``)."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return '"' + "".join(_escaped(ord(c), '"', ascii_only) for c in s) + '"'


def quote_rune(r: int, ascii_only: bool = False) -> str:
    """Go's ``strconv.QuoteRune`` (``QuoteRuneToASCII`` with ``ascii_only``)."""
    if 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    return "'" + _escaped(r, "'", ascii_only) + "'"


def _can_backquote(s: str) -> bool:
    for c in s:
        o = ord(c)
        if o == 0xFEFF or 0xD800 <= o <= 0xDFFF:
            return False
        if (o < 0x20 and c != "\t") or c == "`" or o == 0x7F:
            return False
    return True
