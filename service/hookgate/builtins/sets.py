"""Set builtins: ``intersection`` and ``union`` of a set of sets."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_set
from hookgate.lang.values import EMPTY_SET, RegoSet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _sets(name: str, value: Any) -> list[RegoSet]:
    items = list(want_set(name, 1, value))
    for s in items:
        if type(s) is not RegoSet:
            raise BuiltinError(f"{name}: operand 1 must be set of sets")
    return items


@builtin("intersection", "sets", 1)
def intersection(sets: Any) -> RegoSet:
    """The elements common to every set in ``sets`` (empty when ``sets`` is empty)."""
    items = _sets("intersection", sets)
    if not items:
        return EMPTY_SET
    out = items[0]
    for s in items[1:]:
        out = out.intersection(s)
    return out


@builtin("union", "sets", 1)
def union(sets: Any) -> RegoSet:
    """The elements of any set in ``sets``."""
    out = EMPTY_SET
    for s in _sets("union", sets):
        out = out.union(s)
    return out
