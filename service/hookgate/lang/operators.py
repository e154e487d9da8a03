"""Rego's arithmetic and comparison operators on values (``+ - * / % & | == != < <= > >=``):
the fast path for ints, floats and strings, exact decimals when a number needs them, and OPA's
errors for operands of the wrong type. The generated code calls them through ``BINOPS``; the
builtins named after them (``plus``, ``lt``, …) and the aggregates call them directly, so they
sit below both the builtins and the evaluator.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError
from hookgate.lang.values import RegoSet, equal, is_number, sort_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def _num_check(name: str, a: Any, b: Any) -> bool:
    """True for two ints/floats (the fast path), False when one is an exact Decimal; raises
    for anything that is not a number."""
    ta = type(a)
    tb = type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        return True
    if is_number(a) and is_number(b):
        return False
    raise BuiltinError(f"{name}: operand must be number (`{name}` expects numeric argument)")


def _exact(op: str, a: Any, b: Any) -> Any:
    from hookgate.lang.numbers import arith

    return arith(op, a, b)


def _integral_result(r: float, a: Any, b: Any, op: Callable[[int, int], int]) -> Any:
    """An integral float result as OPA gives it: integer operands (``4.0``, ``1e3`` count)
    make integer arithmetic, exact at any size; any other integral result below a million is
    an integer too (big.Float's shortest text has no exponent there), one above stays a float.
    """
    if (type(a) is int or a.is_integer()) and (type(b) is int or b.is_integer()):
        return op(int(a), int(b))
    return int(r) if -1e6 < r < 1e6 else r


def op_plus(a: Any, b: Any) -> Any:
    if _num_check("plus", a, b):
        r = a + b
        if type(r) is float and r.is_integer():
            return _integral_result(r, a, b, int.__add__)
        return r
    return _exact("+", a, b)


def op_minus(a: Any, b: Any) -> Any:
    if type(a) is RegoSet and type(b) is RegoSet:
        return a.difference(b)
    ta, tb = type(a), type(b)
    if (ta is RegoSet) != (tb is RegoSet):
        raise BuiltinError("minus: operands must be both numbers or both sets")
    if _num_check("minus", a, b):
        r = a - b
        if type(r) is float and r.is_integer():
            return _integral_result(r, a, b, int.__sub__)
        return r
    return _exact("-", a, b)


def op_mul(a: Any, b: Any) -> Any:
    if _num_check("mul", a, b):
        r = a * b
        if type(r) is float and r.is_integer():
            return _integral_result(r, a, b, int.__mul__)
        return r
    return _exact("*", a, b)


def op_div(a: Any, b: Any) -> Any:
    fast = _num_check("div", a, b)
    if b == 0:
        raise BuiltinError("div: divide by zero")
    if not fast:
        return _exact("/", a, b)
    if type(a) is int and type(b) is int:
        q, r = divmod(a, b)
        if r == 0:
            return q
    r = a / b
    # OPA divides in big.Float: an integral quotient below a million is an integer (4.0 / 2).
    return int(r) if r.is_integer() and -1e6 < r < 1e6 else r


def op_rem(a: Any, b: Any) -> Any:
    _num_check("rem", a, b)
    # OPA takes the remainder of integers only, but an integral float is an integer (4.0 % 3).
    a = _integral(a)
    b = _integral(b)
    if b == 0:
        raise BuiltinError("rem: modulo by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _integral(n: Any) -> int:
    if type(n) is int:
        return n
    if n != int(n):
        raise BuiltinError("rem: modulo on floating-point number")
    return int(n)


def op_and(a: Any, b: Any) -> Any:
    if type(a) is not RegoSet or type(b) is not RegoSet:
        raise BuiltinError("and: operands must be sets")
    return a.intersection(b)


def op_or(a: Any, b: Any) -> Any:
    if type(a) is not RegoSet or type(b) is not RegoSet:
        raise BuiltinError("or: operands must be sets")
    return a.union(b)


def op_eq(a: Any, b: Any) -> bool:
    return equal(a, b)


def op_ne(a: Any, b: Any) -> bool:
    return not equal(a, b)


def _cmp_fast(a: Any, b: Any) -> tuple:
    ta, tb = type(a), type(b)
    if (ta is tb and (ta is str or ta is int or ta is float)) or (
        (ta is int or ta is float) and (tb is int or tb is float)
    ):
        return a, b
    return sort_key(a), sort_key(b)


def op_lt(a: Any, b: Any) -> bool:
    x, y = _cmp_fast(a, b)
    return x < y


def op_le(a: Any, b: Any) -> bool:
    x, y = _cmp_fast(a, b)
    return x <= y


def op_gt(a: Any, b: Any) -> bool:
    x, y = _cmp_fast(a, b)
    return x > y


def op_ge(a: Any, b: Any) -> bool:
    x, y = _cmp_fast(a, b)
    return x >= y


BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": op_plus,
    "-": op_minus,
    "*": op_mul,
    "/": op_div,
    "%": op_rem,
    "&": op_and,
    "|": op_or,
    "==": op_eq,
    "!=": op_ne,
    "<": op_lt,
    "<=": op_le,
    ">": op_gt,
    ">=": op_ge,
}
