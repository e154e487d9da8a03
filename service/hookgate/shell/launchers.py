"""The launcher tables of shell analysis: programs that run other programs (``launchers.txt``).

Read once per process, without ``json`` or ``re`` (the hook imports this on every shell call).
"""

from __future__ import annotations

import os

PATH = os.path.join(os.path.dirname(__file__), "launchers.txt")

SECTIONS = (
    "wrappers",
    "operand-first",
    "wrapper-scripts",
    "script-files",
    "operands-are-a-script",
    "operands-are-scripts",
    "multiplexers",
    "package-runners",
    "containers",
    "container-subcommands",
    "shells",
    "awks",
    "makes",
    "option-values",
    "tmux-starts",
)


def parse(text: str, source: str = PATH) -> dict[str, dict[str, frozenset[str]]]:
    """Each section's entries: ``name: words`` gives ``{name: words}``; a line of bare names
    gives each of them an empty set. A malformed line raises ``ValueError`` naming it."""
    tables: dict[str, dict[str, frozenset[str]]] = {s: {} for s in SECTIONS}
    section: dict[str, frozenset[str]] | None = None
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("["):
            name = line.strip("[]")
            if not line.endswith("]") or name not in tables:
                raise ValueError(f"{source}:{number}: unknown section {line!r}")
            section = tables[name]
        elif section is None:
            raise ValueError(f"{source}:{number}: an entry before any [section]")
        elif ":" in line:
            key, _, values = line.partition(":")
            if not key.strip():
                raise ValueError(f"{source}:{number}: an entry without a name")
            section[" ".join(key.split())] = frozenset(values.split())
        else:
            for name in line.split():
                section[name] = frozenset()
    return tables


def load() -> dict[str, dict[str, frozenset[str]]]:
    with open(PATH, encoding="utf-8") as f:
        return parse(f.read())


TABLES = load()
