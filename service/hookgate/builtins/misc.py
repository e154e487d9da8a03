"""``print`` and other builtins the evaluator implements itself.

``print`` needs the query's output list and ``walk`` yields many results, so the evaluator
(``hookgate.lang.compile``) handles their calls; they are registered here so that the checker,
the documentation and ``hookgate check`` know them.
"""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.lang.values import RegoSet, sorted_items

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("print", "misc", -1)
def print_(*args: Any) -> bool:
    """Writes its arguments (any number) to the query's print output, separated by spaces;
    an undefined argument prints as ``<undefined>``. Always true. Collected by
    ``PolicySet.query(..., prints=list)`` and shown by ``hookgate eval --explain``."""
    return True


@builtin("walk", "misc", 1)
def walk(x: Any) -> list:
    """Every ``[path, value]`` pair of the nested document ``x`` (the root has path ``[]``);
    used as ``walk(x, [path, value])``, it iterates over them."""
    out: list = []
    _walk(x, [], out)
    return out


def _walk(x: Any, path: list, out: list) -> None:
    out.append([path, x])
    t = type(x)
    if t is dict:
        for k, v in sorted_items(x):
            _walk(v, [*path, k], out)
    elif t is list:
        for i, v in enumerate(x):
            _walk(v, [*path, i], out)
    elif t is RegoSet:
        for v in x:
            _walk(v, [*path, v], out)
