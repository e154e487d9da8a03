"""Aggregates over collections: ``count``, ``sum``, ``product``, ``max``, ``min``, ``sort``."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_collection
from hookgate.lang.operators import op_mul, op_plus
from hookgate.lang.values import UNDEFINED, RegoSet, is_number, sort_key, sorted_values, type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("count", "aggregates", 1)
def count(collection: Any) -> int:
    """The number of elements of an array, object or set, or of characters of a string."""
    t = type(collection)
    if t is list or t is dict or t is RegoSet or t is str:
        return len(collection)
    raise BuiltinError(
        f"count: operand 1 must be one of {{array, object, set, string}} but got {type_name(collection)}"
    )


def _numbers(name: str, collection: Any) -> tuple[list, bool]:
    """The numbers, and whether they are all ints and floats (else some are exact Decimals)."""
    items = list(want_collection(name, 1, collection))
    plain = True
    for x in items:
        if type(x) is not int and type(x) is not float:
            if not is_number(x):
                raise BuiltinError(f"{name}: operand 1 must be array or set of numbers")
            plain = False
    return items, plain


@builtin("sum", "aggregates", 1)
def sum_(collection: Any) -> Any:
    """The sum of an array or set of numbers (0 when empty)."""
    items, plain = _numbers("sum", collection)
    if plain:
        return sum(items)
    out: Any = 0
    for x in items:
        out = op_plus(out, x)
    return out


@builtin("product", "aggregates", 1)
def product(collection: Any) -> Any:
    """The product of an array or set of numbers (1 when empty)."""
    items, plain = _numbers("product", collection)
    out: Any = 1
    for x in items:
        out = out * x if plain else op_mul(out, x)
    return out


@builtin("max", "aggregates", 1)
def max_(collection: Any) -> Any:
    """The largest element of an array or set by Rego's ordering (undefined when empty)."""
    items = want_collection("max", 1, collection)
    return max(items, key=sort_key) if len(items) else UNDEFINED


@builtin("min", "aggregates", 1)
def min_(collection: Any) -> Any:
    """The smallest element of an array or set by Rego's ordering (undefined when empty)."""
    items = want_collection("min", 1, collection)
    return min(items, key=sort_key) if len(items) else UNDEFINED


@builtin("sort", "aggregates", 1)
def sort(collection: Any) -> list:
    """The elements of an array or set as a sorted array (null < boolean < number < string <
    array < object < set)."""
    return sorted_values(want_collection("sort", 1, collection))
