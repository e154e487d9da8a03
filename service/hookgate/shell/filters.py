"""What the common text filters print, given their input: ``head``, ``tail``, ``grep``, ``tr``,
``sed`` (its ``s`` command), ``cut``, ``awk '{print …}'``, ``sort``, ``uniq``, ``tac``.

The shell model uses them where a line pipes text it shows through a filter into a shell
(``echo 'ez -es ~' | tr ez rm | sh``). Each answers as GNU's tool does for the options it knows,
and None for anything else: a filter read wrongly would hide what the shell runs, so an option
or pattern that is not understood makes the whole output unknown.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def filter_output(argv: list[str], text: str) -> str | None:
    """What the filter ``argv`` prints reading ``text``; None when it is no filter known here,
    reads a file, or is given an option or pattern this module does not model."""
    run = _FILTERS.get(argv[0].rsplit("/", 1)[-1])
    if run is None:
        return None
    try:
        return run(argv[1:], text)
    except _Unknown:
        return None


class _Unknown(Exception):
    """An option, pattern or operand the filter model does not read."""


def _lines(text: str) -> list[str]:
    """The lines of ``text``, each with its newline (the last may lack one)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def _options(args: list[str], with_value: str, flags: str) -> tuple[dict[str, str], list[str]]:
    """Short options (bundles, attached or separate values) and operands; ``_Unknown`` for
    a long option or a letter in neither set."""
    found: dict[str, str] = {}
    operands: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            operands += args[k + 1 :]
            break
        if not a.startswith("-") or a == "-" or operands:
            operands.append(a)
            k += 1
            continue
        j = 1
        while j < len(a):
            c = a[j]
            if c in with_value:
                value = (
                    a[j + 1 :] if j + 1 < len(a) else (args[k + 1] if k + 1 < len(args) else None)
                )
                if value is None:
                    raise _Unknown
                found[c] = value
                if j + 1 >= len(a):
                    k += 1
                break
            if c not in flags:
                raise _Unknown
            found[c] = ""
            j += 1
        k += 1
    return found, operands


def _ascii(*texts: str) -> None:
    """Only ASCII: tr, cut -c and (in the C locale) sed and grep work on bytes, so a character
    of several bytes is several characters to them, or one, depending on the locale."""
    if not all(t.isascii() for t in texts):
        raise _Unknown


def _count(value: str) -> int:
    if not value.isdigit():
        raise _Unknown
    return int(value)


def _line_count(args: list[str]) -> str:
    """The line count of ``head``/``tail`` (``-N``, ``-n N``, ``-nN``; 10 by default), which
    read no file here."""
    if args and args[0][1:].isdigit() and args[0].startswith("-"):
        args = ["-n", args[0][1:], *args[1:]]
    opts, operands = _options(args, "n", "q")
    if operands:
        raise _Unknown
    return opts.get("n", "10")


def _head(args: list[str], text: str) -> str:
    n = _line_count(args)
    lines = _lines(text)
    if n.startswith("-"):
        return "".join(lines[: max(0, len(lines) - _count(n[1:]))])
    return "".join(lines[: _count(n)])


def _tail(args: list[str], text: str) -> str:
    n = _line_count(args)
    lines = _lines(text)
    if n.startswith("+"):
        return "".join(lines[max(0, _count(n[1:]) - 1) :])
    count = _count(n[1:] if n.startswith("-") else n)
    return "".join(lines[len(lines) - count :] if count else [])


def _tac(args: list[str], text: str) -> str:
    if args:
        raise _Unknown
    return "".join(reversed(_lines(text)))  # a last line without its newline stays so


def _sort(args: list[str], text: str) -> str:
    opts, operands = _options(args, "", "ru")
    if operands:
        raise _Unknown
    lines = [line.rstrip("\n") for line in _lines(text)]
    lines = sorted(set(lines) if "u" in opts else lines, reverse="r" in opts)
    return "".join(line + "\n" for line in lines)


def _uniq(args: list[str], text: str) -> str:
    if args:
        raise _Unknown
    out: list[str] = []
    for line in (line.rstrip("\n") for line in _lines(text)):
        if not out or out[-1] != line:
            out.append(line)
    return "".join(line + "\n" for line in out)


def _regex(pattern: str, extended: bool, ignore_case: bool, fixed: bool) -> Callable:
    """A search function for a grep/sed pattern: fixed strings, and POSIX basic or extended
    expressions without bracket classes or back-references (those are ``_Unknown``)."""
    # RE2: the pattern comes from the line, so matching must take linear time (no ReDoS).
    import re2  # only for a line that pipes text through grep or sed

    if fixed:
        source = re2.escape(pattern)
    else:
        if "[[:" in pattern or any(f"\\{d}" in pattern for d in "123456789"):
            raise _Unknown
        source = pattern if extended else _basic_to_extended(pattern)
    options = re2.Options()
    options.log_errors = False  # a bad pattern is the line's, not hookgate's: nothing on stderr
    try:
        return re2.compile(("(?i)" if ignore_case else "") + source, options).search
    except re2.error as e:
        raise _Unknown from e


def _basic_to_extended(pattern: str) -> str:
    """A POSIX basic expression in Python's syntax: ``\\(``, ``\\{``, ``\\|``, ``\\+``, ``\\?``
    are the operators, the bare characters are text."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}|+?" else c + nxt)
            i += 2
            continue
        out.append("\\" + c if c in "(){}|+?" else c)
        i += 1
    return "".join(out)


def _grep(args: list[str], text: str) -> str:
    opts, operands = _options(args, "e", "vixEFw")
    patterns = [opts["e"]] if "e" in opts else operands[:1]
    files = operands if "e" in opts else operands[1:]
    if not patterns or files or "w" in opts:
        raise _Unknown
    _ascii(text, *patterns)
    search = _regex(patterns[0], "E" in opts, "i" in opts, "F" in opts)
    out = []
    for line in _lines(text):
        body = line.rstrip("\n")
        hit = search(body) is not None
        if "x" in opts:
            hit = hit and search(body).group(0) == body  # type: ignore[union-attr]
        if hit != ("v" in opts):
            out.append(body + "\n")
    return "".join(out)


_CLASSES = {
    "[:lower:]": "abcdefghijklmnopqrstuvwxyz",
    "[:upper:]": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "[:digit:]": "0123456789",
    "[:space:]": " \t\n\r\v\f",
    "[:blank:]": " \t",
}
_CLASSES["[:alpha:]"] = _CLASSES["[:lower:]"] + _CLASSES["[:upper:]"]
_CLASSES["[:alnum:]"] = _CLASSES["[:alpha:]"] + _CLASSES["[:digit:]"]
_TR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "v": "\v", "f": "\f"}


def _tr_set(spec: str) -> str:
    """A ``tr`` set: characters, ``\\n``-style escapes, ranges ``a-z`` and classes."""
    chars: list[str] = []
    i = 0
    while i < len(spec):
        for name, members in _CLASSES.items():
            if spec.startswith(name, i):
                chars.extend(members)
                i += len(name)
                break
        else:
            c = spec[i]
            if c == "[" and "*" in spec[i : i + 4] or c == "\\" and spec[i + 1 : i + 2].isdigit():
                raise _Unknown  # [x*n] repeats and octal escapes
            if c == "\\" and i + 1 < len(spec):
                c = _TR_ESCAPES.get(spec[i + 1], spec[i + 1])
                i += 1
            if spec[i + 1 : i + 2] == "-" and i + 2 < len(spec):
                end = spec[i + 2]
                if end < c:
                    raise _Unknown
                chars.extend(chr(o) for o in range(ord(c), ord(end) + 1))
                i += 3
                continue
            chars.append(c)
            i += 1
    return "".join(chars)


def _tr(args: list[str], text: str) -> str:
    opts, operands = _options(args, "", "ds")
    _ascii(text, *operands)
    sets = [_tr_set(s) for s in operands]
    if "d" in opts:
        if len(sets) != 1 or "s" in opts:
            raise _Unknown
        return "".join(c for c in text if c not in sets[0])
    if len(sets) != 2 or not sets[1]:
        raise _Unknown
    source, target = sets
    target = target + target[-1] * (len(source) - len(target))
    table = {}
    for a, b in zip(source, target, strict=False):
        table[a] = b  # the last mapping of a repeated character wins, as in GNU tr
    out = "".join(table.get(c, c) for c in text)
    if "s" in opts:
        squeezed: list[str] = []
        for c in out:
            if not (squeezed and squeezed[-1] == c and c in target):
                squeezed.append(c)
        out = "".join(squeezed)
    return out


def _sed_commands(script: str) -> list[tuple[str, str, str]]:
    """The ``s/re/replacement/flags`` commands of a script (``;`` or new lines between them):
    (pattern, replacement, flags); ``_Unknown`` for any other command."""
    out = []
    i = 0
    while i < len(script):
        if script[i] in " \t\n;":
            i += 1
            continue
        if script[i] != "s" or i + 1 >= len(script):
            raise _Unknown
        delim = script[i + 1]
        if delim in "\\\n":
            raise _Unknown
        fields: list[str] = []
        j = i + 2
        current: list[str] = []
        while j < len(script) and len(fields) < 2:
            c = script[j]
            if c == "\\" and j + 1 < len(script):
                nxt = script[j + 1]
                current.append(nxt if nxt == delim else c + nxt)
                j += 2
                continue
            if c == delim:
                fields.append("".join(current))
                current = []
            else:
                current.append(c)
            j += 1
        if len(fields) < 2:
            raise _Unknown
        k = j
        while k < len(script) and script[k] not in ";\n":
            k += 1
        flags = script[j:k].strip()
        if any(f not in "gI" for f in flags):
            raise _Unknown
        out.append((fields[0], fields[1], flags))
        i = k
    return out


def _sed_replacement(template: str, match: object) -> str:
    out: list[str] = []
    i = 0
    while i < len(template):
        c = template[i]
        if c == "&":
            out.append(match.group(0))  # type: ignore[attr-defined]
        elif c == "\\" and i + 1 < len(template):
            nxt = template[i + 1]
            if nxt.isdigit():
                raise _Unknown
            out.append("\n" if nxt == "n" else nxt)
            i += 1
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _sed(args: list[str], text: str) -> str:
    opts, operands = _options(args, "e", "Er")
    script = opts["e"] if "e" in opts else (operands[0] if operands else None)
    files = operands if "e" in opts else operands[1:]
    if script is None or files:
        raise _Unknown
    _ascii(text, script)
    commands = [
        (_regex(p, "E" in opts or "r" in opts, "I" in f, False), r, "g" in f)
        for p, r, f in _sed_commands(script)
    ]
    out = []
    for line in _lines(text):
        body, newline = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        for search, template, every in commands:
            body = _substitute(search, template, every, body)
        out.append(body + newline)
    return "".join(out)


def _substitute(search: Callable, template: str, every: bool, body: str) -> str:
    out: list[str] = []
    pos = 0
    last_end = -1  # sed takes no empty match right where the previous match ended
    while pos <= len(body):
        m = search(body, pos)
        if m is None:
            break
        if m.start() == m.end() == last_end:
            if pos < len(body):
                out.append(body[pos])
            pos += 1
            continue
        out.append(body[pos : m.start()] + _sed_replacement(template, m))
        last_end = m.end()
        if m.end() == m.start():
            if m.end() < len(body):
                out.append(body[m.end()])
            pos = m.end() + 1
        else:
            pos = m.end()
        if not every:
            break
    out.append(body[pos:])
    return "".join(out)


def _awk(args: list[str], text: str) -> str:
    opts, operands = _options(args, "F", "")
    if len(operands) != 1:
        raise _Unknown
    program = operands[0].strip()
    if not (program.startswith("{") and program.endswith("}")):
        raise _Unknown
    body = program[1:-1].strip().rstrip(";").strip()
    if body == "print":
        body = "print $0"
    if not body.startswith("print "):
        raise _Unknown
    fields = [f.strip() for f in body[len("print ") :].split(",")]
    indexes = []
    for f in fields:
        if not (f.startswith("$") and f[1:].isdigit()):
            raise _Unknown
        indexes.append(int(f[1:]))
    sep = opts.get("F")
    if sep is not None and len(sep) != 1:
        raise _Unknown
    out = []
    for line in _lines(text):
        body_text = line.rstrip("\n")
        split = body_text.split(sep) if sep is not None else body_text.split()
        values = [
            body_text if n == 0 else (split[n - 1] if n <= len(split) else "") for n in indexes
        ]
        out.append(" ".join(values) + "\n")
    return "".join(out)


def _cut(args: list[str], text: str) -> str:
    opts, operands = _options(args, "dfc", "")
    if operands or ("f" in opts) == ("c" in opts):
        raise _Unknown
    if "c" in opts:
        _ascii(text)
    picks = _ranges(opts.get("f") or opts["c"])
    sep = opts.get("d", "\t")
    if len(sep) != 1:
        raise _Unknown
    out = []
    for line in _lines(text):
        body = line.rstrip("\n")
        if "c" in opts:
            out.append("".join(c for n, c in enumerate(body, 1) if picks(n)) + "\n")
        elif sep not in body:
            out.append(body + "\n")  # a line without the delimiter is printed whole
        else:
            parts = body.split(sep)
            out.append(sep.join(p for n, p in enumerate(parts, 1) if picks(n)) + "\n")
    return "".join(out)


def _ranges(spec: str) -> Callable[[int], bool]:
    """``1,3-5,7-``: which 1-based positions a ``cut`` list picks."""
    spans = []
    for part in spec.split(","):
        lo, dash, hi = part.partition("-")
        if not (lo.isdigit() or lo == "") or not (hi.isdigit() or hi == "") or part in ("", "-"):
            raise _Unknown
        first = int(lo) if lo else 1
        last = (int(hi) if hi else 1 << 30) if dash else first
        spans.append((first, last))
    return lambda n: any(a <= n <= b for a, b in spans)


_FILTERS: dict[str, Callable[[list[str], str], str]] = {
    "head": _head,
    "tail": _tail,
    "tac": _tac,
    "sort": _sort,
    "uniq": _uniq,
    "grep": _grep,
    "tr": _tr,
    "sed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "cut": _cut,
}
