"""Edits of a command line in place: byte for byte outside the edited words."""

from __future__ import annotations

from hookgate.shell.words import Command, normalize_option


def removals(cmd: Command, flags: list[str]) -> list[tuple[int, int, str]]:
    """Edits (start, end, replacement) in the root text that drop ``flags`` from ``cmd``."""
    edits: list[tuple[int, int, str]] = []
    for w in cmd.words[1:]:
        a = normalize_option(w.text)
        if a == "--":
            break
        if not a.startswith("-") or len(a) < 2 or w.span is None:
            continue
        if any(a == f or (f.startswith("--") and a.startswith(f + "=")) for f in flags):
            edits.append((w.span[0], w.span[1], ""))
            continue
        if a.startswith("--"):
            continue
        drop = {f[1] for f in flags if len(f) == 2 and f[0] == "-" and f[1] in a[1:]}
        if drop and w.span[1] - w.span[0] == len(w.text):
            kept = "".join(ch for ch in w.text[1:] if ch not in drop)
            edits.append((w.span[0], w.span[1], "-" + kept if kept else ""))
    return edits


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """Apply non-overlapping edits; a whole word removed takes its preceding blanks with it.

    One pass over ``text`` (a line of many edits is not copied once per edit)."""
    ranges: list[tuple[int, int, str]] = []
    for start, end, repl in sorted(set(edits)):
        if repl == "" and (end == len(text) or text[end] in " \t\n;&|)\"'"):
            s = start
            while s > 0 and text[s - 1] in " \t":
                s -= 1
            if s == 0 or text[s - 1] in "\n;&|(":
                while end < len(text) and text[end] in " \t":
                    end += 1  # first word of a line: take the blanks after it instead
            else:
                start = s
        ranges.append((start, end, repl))
    pieces: list[str] = []
    done = 0
    for start, end, repl in ranges:
        start = max(start, done)  # blanks two removals both claim are removed once
        pieces += (text[done:start], repl)
        done = max(done, end)
    pieces.append(text[done:])
    return "".join(pieces)
