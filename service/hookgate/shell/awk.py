"""What an awk program hands a shell: ``system(…)``, ``print … | "cmd"`` and ``"cmd" |
getline``, read from the program's text (string literals decoded, computed values unknown)."""

from __future__ import annotations

from hookgate.shell.lexer import ansi_escape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookgate.shell.words import Word


def awk_runs(words: list[Word], shells: frozenset[str]) -> tuple[Any, int]:
    """The shell commands an awk program runs: ``system(…)``, ``print … | "cmd"`` (the printed
    text is a script when cmd is a shell) and ``"cmd" | getline``."""
    n = len(words)
    k = 1
    while k < n:
        a = words[k].text
        if a in ("-f", "--file", "-E", "--exec"):
            return None, n  # the program is in a file
        if a in ("-F", "-v", "--assign", "--field-separator", "-i", "--include"):
            k += 2
            continue
        if not a.startswith("-") or a == "-":
            break
        k += 1 + (a == "--")
    if k >= n:
        return None, n
    script = awk_commands(words[k].text, shells)
    return (("printed", script), n) if script else (None, n)


def awk_commands(program: str, shells: frozenset[str]) -> str:
    """The scripts ``program`` hands to a shell, one per line (see ``awk_runs``). String
    literals are decoded and joined as awk concatenates them; ``ENVIRON["X"]`` is ``$X`` and
    any other value an unknown ``$v``, so that a computed target stays unknown. ``shells``:
    the programs whose piped input is a script (launchers.txt, [shells])."""
    tokens = _awk_tokens(program)
    scripts: list[str] = []
    for i, (kind, text) in enumerate(tokens):
        if kind == "name" and text == "system" and tokens[i + 1 : i + 2] == [("op", "(")]:
            scripts.append(_awk_value(tokens, i + 2, ")"))
        elif kind == "op" and text == "|":
            right = _awk_value(tokens, i + 1, ";}\n")
            if right.split()[:1] == ["getline"]:
                start = max(
                    (j for j in range(i) if tokens[j][1] in (";", "{", "}", "(")), default=-1
                )
                scripts.append(_awk_value(tokens, start + 1, "|"))
            elif right.split()[:1] and right.split()[0] in shells:
                start = max((j for j in range(i) if tokens[j][1] in ("print", "printf")), default=i)
                scripts.append(_awk_value(tokens, start + 1, "|"))
            else:
                scripts.append(right)
    return "\n".join(s for s in scripts if s.strip())


def _awk_tokens(program: str) -> list[tuple[str, str]]:
    """``program`` as (kind, text): ``str`` (decoded), ``name``, ``op``; one pass."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(program)
    while i < n:
        c = program[i]
        if c == '"':
            j = i + 1
            text: list[str] = []
            while j < n and program[j] != '"':
                if program[j] == "\\" and j + 1 < n:
                    ch, j = ansi_escape(program, j + 1)
                    text.append(ch)
                    continue
                text.append(program[j])
                j += 1
            out.append(("str", "".join(text)))
            i = j + 1
        elif c.isalnum() or c == "_":
            j = i
            while j < n and (program[j].isalnum() or program[j] == "_"):
                j += 1
            out.append(("name", program[i:j]))
            i = j
        elif c in " \t":
            i += 1
        elif c == "|" and program.startswith("||", i):
            out.append(("op", "||"))
            i += 2
        else:
            out.append(("op", c))
            i += 1
    return out


def _awk_value(tokens: list[tuple[str, str]], i: int, stop: str) -> str:
    """The text of the awk expression at ``tokens[i]`` up to an unnested ``stop`` token."""
    out: list[str] = []
    level = 0
    while i < len(tokens):
        kind, text = tokens[i]
        if kind == "op" and text in stop and level == 0:
            break
        if text == "(":
            level += 1
        elif text == ")":
            level -= 1
        if kind == "str":
            out.append(text)
        elif kind == "name" and text == "ENVIRON" and tokens[i + 1 : i + 2] == [("op", "[")]:
            key = tokens[i + 2][1] if i + 2 < len(tokens) else ""
            out.append("${" + key + "}")
            i += 4
            continue
        elif kind == "name" and text not in ("print", "printf", "getline"):
            out.append("${awk_" + text + "}")  # a value computed at run time: unknown
        elif kind == "name":
            out.append(text + " ")
        i += 1
    return "".join(out)
