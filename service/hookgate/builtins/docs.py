"""Generate the builtins reference (``docs/reference/builtins.md``) from the registry's docstrings.

``python -m hookgate.builtins.docs > docs/reference/builtins.md``; a test keeps the file in step.
"""

from __future__ import annotations

import inspect
import sys
from itertools import groupby

from hookgate.builtins.lookup import full_registry, opa_builtins


def render() -> str:
    """The whole reference page as Markdown, families in alphabetical order."""
    lines = [
        "# Builtin functions",
        "",
        "Generated from the builtins registry by `python -m hookgate.builtins.docs`; do not edit.",
        "",
    ]
    by_family = sorted(full_registry().values(), key=lambda b: (b.family, b.name))
    for family, builtins in groupby(by_family, key=lambda b: b.family):
        lines += [f"## {family}", ""]
        for b in builtins:
            params = ", ".join(_parameters(b.func, b.arity))
            note = " *(reads the local machine; answered from request facts on the server)*"
            lines += [f"### `{b.name}({params})`", ""]
            lines += [inspect.cleandoc(b.doc) + (note if b.reads_host else ""), ""]
    lines += _missing()
    return "\n".join(lines).rstrip() + "\n"


def _missing() -> list[str]:
    """OPA's builtins hookgate does not have: a call is ``unsupported: builtin <name>`` at
    line:col, never an unknown function; some are left out on purpose, with the reason."""
    registry = full_registry()
    missing = {n: why for n, why in opa_builtins().items() if n not in registry}
    lines = [
        "## OPA builtins hookgate refuses",
        "",
        "A policy calling one of these fails to load with `unsupported: builtin <name>` at the",
        "call's line:col (a name OPA does not know either is an unknown function).",
        "",
    ]
    on_purpose = sorted((n, why) for n, why in missing.items() if why)
    lines += ["Refused on purpose:", ""]
    lines += [f"- `{n}`: {why}" for n, why in on_purpose]
    lines += ["", "Not implemented yet:", ""]
    lines += [", ".join(f"`{n}`" for n in sorted(n for n, why in missing.items() if not why)), ""]
    return lines


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
