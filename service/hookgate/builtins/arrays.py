"""Array builtins: ``array.concat``, ``array.slice``, ``array.reverse``."""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.builtins.types import want_array, want_int

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("array.concat", "arrays", 2)
def concat(a: Any, b: Any) -> list:
    """The elements of ``a`` followed by those of ``b``."""
    return want_array("array.concat", 1, a) + want_array("array.concat", 2, b)


@builtin("array.slice", "arrays", 3)
def slice_(a: Any, start: Any, stop: Any) -> list:
    """The elements of ``a`` from index ``start`` up to (not including) ``stop``; indexes are
    clamped to the array, and ``start > stop`` gives an empty array."""
    arr = want_array("array.slice", 1, a)
    lo = max(want_int("array.slice", 2, start), 0)
    hi = min(want_int("array.slice", 3, stop), len(arr))
    return arr[lo:hi] if lo < hi else []


@builtin("array.reverse", "arrays", 1)
def reverse(a: Any) -> list:
    """The elements of ``a`` in reverse order."""
    return want_array("array.reverse", 1, a)[::-1]


@builtin("array.flatten", "arrays", 1)
def flatten(a: Any) -> list:
    """The elements of ``a`` with each element that is an array spliced in (one level:
    ``[[1, [2]], 3]`` gives ``[1, [2], 3]``)."""
    out: list = []
    for x in want_array("array.flatten", 1, a):
        if type(x) is list:
            out.extend(x)
        else:
            out.append(x)
    return out
