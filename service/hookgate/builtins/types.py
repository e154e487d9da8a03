"""Type tests (``is_string``, ``type_name``, …) and the argument checks every family shares.

A wrong argument type raises ``BuiltinError`` with OPA's wording (``operand 1 must be string but
got number``); the evaluator turns it into an evaluation error at the call's position.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.lang.values import RegoSet, is_decimal, type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _fail(name: str, pos: int, want: str, value: Any) -> BuiltinError:
    return BuiltinError(f"{name}: operand {pos} must be {want} but got {type_name(value)}")


def want_str(name: str, pos: int, value: Any) -> str:
    if type(value) is not str:
        raise _fail(name, pos, "string", value)
    return value


def want_num(name: str, pos: int, value: Any) -> Any:
    """An int, a float or an exact Decimal (``hookgate.lang.numbers``)."""
    t = type(value)
    if t is not int and t is not float and not is_decimal(value):
        raise _fail(name, pos, "number", value)
    return value


def want_int(name: str, pos: int, value: Any) -> int:
    """A number with an integral value (``2.0`` counts), as OPA's integer operands."""
    n = want_num(name, pos, value)
    if type(n) is not int:  # a float or a Decimal: normalized, so never integral
        if type(n) is not float or not n.is_integer():
            raise BuiltinError(
                f"{name}: operand {pos} must be integer number but got floating-point number"
            )
        return int(n)
    return n


def want_array(name: str, pos: int, value: Any) -> list:
    if type(value) is not list:
        raise _fail(name, pos, "array", value)
    return value


def want_object(name: str, pos: int, value: Any) -> dict:
    if type(value) is not dict:
        raise _fail(name, pos, "object", value)
    return value


def want_set(name: str, pos: int, value: Any) -> RegoSet:
    if type(value) is not RegoSet:
        raise _fail(name, pos, "set", value)
    return value


def want_collection(name: str, pos: int, value: Any) -> list | RegoSet:
    """An array or a set."""
    t = type(value)
    if t is not list and t is not RegoSet:
        raise _fail(name, pos, "any of array, set", value)
    return value


def want_strings(name: str, pos: int, value: Any) -> list[str]:
    """An array or set of strings."""
    items = list(want_collection(name, pos, value))
    for item in items:
        if type(item) is not str:
            raise BuiltinError(f"{name}: operand {pos} must be array or set of strings")
    return items


@builtin("is_string", "types", 1)
def is_string(x: Any) -> bool:
    """True if ``x`` is a string."""
    return type(x) is str


@builtin("is_number", "types", 1)
def is_number(x: Any) -> bool:
    """True if ``x`` is a number."""
    return type(x) in (int, float)


@builtin("is_boolean", "types", 1)
def is_boolean(x: Any) -> bool:
    """True if ``x`` is a boolean."""
    return type(x) is bool


@builtin("is_array", "types", 1)
def is_array(x: Any) -> bool:
    """True if ``x`` is an array."""
    return type(x) is list


@builtin("is_set", "types", 1)
def is_set(x: Any) -> bool:
    """True if ``x`` is a set."""
    return type(x) is RegoSet


@builtin("is_object", "types", 1)
def is_object(x: Any) -> bool:
    """True if ``x`` is an object."""
    return type(x) is dict


@builtin("is_null", "types", 1)
def is_null(x: Any) -> bool:
    """True if ``x`` is null."""
    return x is None


@builtin("type_name", "types", 1)
def type_name_(x: Any) -> str:
    """The type of ``x``: ``null``, ``boolean``, ``number``, ``string``, ``array``, ``object`` or
    ``set``."""
    return type_name(x)
