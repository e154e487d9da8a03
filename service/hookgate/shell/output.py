"""What printing and decoding commands print, when the line shows it: ``echo``, ``printf``
(its format conversions and backslash escapes), ``cat`` and ``tee`` of what they read,
``base64 -d``, ``xxd -r -p``, ``rev`` and the text filters (``filters``); and what a command
substitution looks up (``which git`` prints ``git``'s path, read as ``git``).
"""

from __future__ import annotations

from hookgate.shell.lexer import ansi_escape
from hookgate.shell.words import (
    Command,
    Word,
    argv_has_option,
    argv_operands,
    is_int,
    word_offsets,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def printed_words(cmd: Command) -> list[Word] | None:
    """The words ``echo`` or ``printf`` prints (echo's leading options left out; printf's
    format and arguments alike, which over-approximates), or None for another command."""
    words = cmd.words[1:]
    if cmd.name == "echo":
        k = 0
        while k < len(words) and _is_echo_option(words[k].text):
            k += 1
        return words[k:]
    if cmd.name == "printf":
        return words[1:] if words[:1] and words[0].text == "--" else words
    return None


def _is_echo_option(text: str) -> bool:
    return len(text) > 1 and text[0] == "-" and all(c in "neE" for c in text[1:])


def plain_format(printed: list[Word]) -> bool:
    """A ``printf`` whose format prints itself (no ``%`` conversion, no escapes but ``\\n``)
    and no other argument: its words are what it prints."""
    fmt = printed[0].text if printed else ""
    return len(printed) == 1 and "%" not in fmt and "\\" not in fmt.replace("\\n", "")


def command_output(cmd: Command, stdin: str | None, charge: Callable[[int], None]) -> str | None:
    """What ``cmd`` prints given ``stdin`` (see ``analysis.Run.output``)."""
    if any(w.kind is not None for w in cmd.words):
        return None
    argv = [w.text for w in cmd.words]
    name = cmd.name
    if name == "echo":
        printed = printed_words(cmd) or []
        newline = (
            "" if any("n" in w.text for w in cmd.words[1 : len(argv) - len(printed)]) else "\n"
        )
        return " ".join(unescape(w).text for w in printed) + newline
    if name == "printf":
        return printf_output(argv[1:], charge)
    if stdin is None:
        return None
    operands = argv_operands(argv)
    if name == "cat" and operands in ([], ["-"]) and len(argv) == 1 + len(operands):
        return stdin
    if name == "tee":  # what it reads, to its files and its output alike
        return stdin
    if name == "base64" and any(argv_has_option(argv, f) for f in ("-d", "--decode", "-D")):
        return base64_decode(stdin) if not operands else None
    if (
        name == "xxd"
        and argv_has_option(argv, "-r")
        and (argv_has_option(argv, "-p") or argv_has_option(argv, "-ps") or "-rp" in argv)
    ):
        return hex_decode(stdin) if not operands else None
    if name == "rev" and not operands:
        return "\n".join(line[::-1] for line in stdin.split("\n"))
    from hookgate.shell.filters import filter_output  # only for text the line pipes on

    return filter_output(argv, stdin)


def unescape(w: Word) -> Word:
    """``w`` with ``printf``/``echo -e`` backslash escapes decoded (``\\n`` is a newline)."""
    offs = word_offsets(w)
    text: list[str] = []
    new_offs: list[int] = []
    i = 0
    while i < len(w.text):
        if w.text[i] == "\\" and i + 1 < len(w.text):
            ch, i = ansi_escape(w.text, i + 1)
        else:
            ch, i = w.text[i], i + 1
        text.append(ch)
        new_offs.append(offs[i - 1])
    return Word("".join(text), w.span if len(text) == len(w.text) else None, w.literal, new_offs)


def lookup_command(inner: str) -> str | None:
    """The command ``which git``, ``command -v git`` or ``type -P git`` looks up (``git``)."""
    parts = inner.split()
    if len(parts) >= 2 and (
        parts[0] == "which"
        or (parts[0] == "command" and parts[1] in ("-v", "-V"))
        or (parts[0] == "type" and parts[1] in ("-p", "-P"))
    ):
        return parts[-1]
    return None


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
                if not is_int(value):
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
