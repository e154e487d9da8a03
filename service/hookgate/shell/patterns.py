"""What bash makes of a word's text by rule alone: brace expansion (``{a,b}``, ``{1..3}``) and
shell patterns (``*``, ``?``, ``[…]``), matched against a string or against the file names on
the disk (pathname expansion).
"""

from __future__ import annotations

from hookgate.lang.errors import LimitError
from hookgate.shell.limits import MAX_BRACE_WORDS
from hookgate.shell.words import is_int, matching_close


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
    if not is_int(step_text):
        return None
    step = abs(int(step_text)) or 1
    a, b = fields[0], fields[1]
    if is_int(a) and is_int(b):
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


def may_read_disk(text: str, root_dir: str | None) -> bool:
    """Whether analysing line ``text`` in ``root_dir`` may match a file name pattern against the
    disk: its analysis holds what the disk held then, so it is not kept for a later call."""
    return root_dir is not None and ("*" in text or "?" in text or "[" in text)


def has_glob(pattern: str) -> bool:
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
            if not has_glob(part):
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
