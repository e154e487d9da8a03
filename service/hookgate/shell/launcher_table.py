"""The launcher table: ``launchers.txt`` read into its sections, once per process, without
``json`` or ``re`` (the hook imports this on every shell call), and how a launcher's own options
end. What each launcher runs is read in ``launchers`` (and ``containers``).
"""

from __future__ import annotations

import os

from hookgate.shell.words import Word, normalize_option

PATH = os.path.join(os.path.dirname(__file__), "launchers.txt")

SECTIONS = (
    "wrappers",
    "operand-first",
    "leading-operand",
    "argv-options",
    "wrapper-scripts",
    "script-files",
    "operands-are-a-script",
    "operands-are-scripts",
    "multiplexers",
    "package-runners",
    "containers",
    "image-entrypoints",
    "image-option-programs",
    "image-commands",
    "path-execs",
    "path-placeholders",
    "path-exec-values",
    "git-scripts",
    "container-subcommands",
    "shells",
    "shell-starters",
    "awks",
    "makes",
    "crontabs",
    "option-values",
    "option-pairs",
    "tmux-starts",
    "file-readers",
    "tree-deleters",
    "remote-runners",
    "interpreters",
    "interpreter-stops",
    "one-liners",
    "script-suffixes",
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


def _one_liners(tables: dict[str, dict[str, frozenset[str]]]) -> dict[str, str]:
    """Each interpreter's code option; a ``ValueError`` naming an entry that is not exactly one
    option of an interpreter of [interpreters]."""
    found = {}
    for name, options in tables["one-liners"].items():
        if len(options) != 1 or name not in tables["interpreters"]:
            raise ValueError(
                f"{PATH}: [one-liners] {name}: one option of an interpreter of [interpreters]"
            )
        found[name] = next(iter(options))
    return found


ONE_LINERS = _one_liners(TABLES)


def options_end(
    words: list[Word],
    start: int,
    with_value: frozenset[str],
    skip_assignments: bool = False,
    with_two: frozenset[str] = frozenset(),
) -> int:
    """Index of the first operand after the options of a wrapper (``sudo -u x cmd`` → cmd);
    with ``skip_assignments``, ``NAME=value`` words are the wrapper's too (``env A=1 cmd``);
    an option of ``with_two`` takes two words (``nix --option sandbox false run``)."""
    k = start
    while k < len(words):
        a = normalize_option(words[k].text)
        if a == "--":
            return k + 1
        if skip_assignments and "=" in a and not a.startswith("-"):
            k += 1
            continue
        if not a.startswith("-") or a == "-":
            return k
        if a.startswith("--"):
            k += 3 if a in with_two else 2 if (a in with_value and "=" not in a) else 1
            continue
        # a bundle of short options: one taking a value consumes the rest or the next word
        for j in range(1, len(a)):
            if "-" + a[j] in with_value:
                k += 1 if j + 1 < len(a) else 2
                break
        else:
            k += 1
    return k
