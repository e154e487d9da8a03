"""Expansions bash makes from the text of the line alone, before it runs anything."""

from __future__ import annotations

from hookgate.lang.errors import LimitError

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
    out: list[str] = []
    for part in parts:
        for word in brace_expand(text[:start] + part + text[end + 1 :]):
            out.append(word)
            if len(out) > MAX_BRACE_WORDS:
                raise LimitError(
                    "analysis-size",
                    f"shell analysis stopped: a brace expansion makes more than "
                    f"{MAX_BRACE_WORDS} words",
                )
    return out


def _first_brace(text: str) -> tuple[int, int, list[str]] | None:
    """The first ``{…}`` that bash expands: its start, end and alternatives."""
    start = text.find("{")
    while start >= 0:
        depth = 0
        commas: list[int] = []
        dots = False  # ".." at this brace's own level
        skip_to = start
        for j in range(start, len(text)):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}" and j == start + 1:
                continue  # "{}" never closes: bash reads that "}" as text (x{},} is x} x)
            elif c == "}":
                depth -= 1
                if depth == 0:
                    inner = text[start + 1 : j]
                    if commas:
                        bounds = [start, *commas, j]
                        parts = [text[a + 1 : b] for a, b in zip(bounds, bounds[1:], strict=False)]
                        return start, j, parts
                    sequence = _sequence(inner)
                    if sequence is not None:
                        return start, j, sequence
                    if dots and "," in inner:
                        # bash drops these braces and expands what is inside ({x..{a,b}})
                        return start, j, [inner]
                    if dots:
                        skip_to = j  # an invalid sequence: bash leaves all of it as it is
                    break
            elif c == "," and depth == 1:
                commas.append(j)
            elif (
                c == "." and depth == 1 and text.startswith("..", j) and text[j + 2 : j + 3] != "}"
            ):
                dots = True  # bash does not count a ".." that closes the brace ({{a,b}..})
        start = text.find("{", skip_to + 1)
    return None


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
