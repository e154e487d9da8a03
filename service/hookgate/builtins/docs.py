"""Generate the builtins reference (``docs/builtins.md``) from the registry's docstrings.

``python -m hookgate.builtins.docs > docs/builtins.md``; a test keeps the file in step.
"""

from __future__ import annotations

import inspect
import sys
from itertools import groupby

from hookgate.builtins import REGISTRY


def render() -> str:
    """The whole reference page as Markdown, families in alphabetical order."""
    lines = [
        "# Builtin functions",
        "",
        "Generated from the builtins registry by `python -m hookgate.builtins.docs`; do not edit.",
        "",
    ]
    by_family = sorted(REGISTRY.values(), key=lambda b: (b.family, b.name))
    for family, builtins in groupby(by_family, key=lambda b: b.family):
        lines += [f"## {family}", ""]
        for b in builtins:
            params = ", ".join(_parameters(b.func, b.arity))
            note = " *(reads the local machine; answered from request facts on the server)*"
            lines += [f"### `{b.name}({params})`", ""]
            lines += [inspect.cleandoc(b.doc) + (note if b.reads_host else ""), ""]
    return "\n".join(lines).rstrip() + "\n"


def _parameters(func: object, arity: int) -> list[str]:
    """The Python function's parameter names, trailing ``_`` cut (``...``: any number)."""
    if arity < 0:
        return ["..."]
    names = [
        p.name.rstrip("_")
        for p in inspect.signature(func).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return names[:arity]


if __name__ == "__main__":
    sys.stdout.write(render())
