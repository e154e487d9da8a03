"""Numbers: ``abs``, ``round``, ``ceil``, ``floor``, ``numbers.range``, ``to_number`` and the
``bits.*`` integer operations."""

from __future__ import annotations

import math

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_int, want_num
from hookgate.lang.values import is_decimal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Go's strconv.ParseFloat syntax (decimal only), which OPA uses to validate the string.
_INT = r"[+-]?[0-9]+"
_INF = float("inf")
_FLOAT = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"


@builtin("abs", "numbers", 1)
def abs_(x: Any) -> int | float:
    """The absolute value of ``x``."""
    return abs(want_num("abs", 1, x))


@builtin("round", "numbers", 1)
def round_(x: Any) -> int:
    """``x`` rounded to the nearest integer, halves away from zero."""
    n = want_num("round", 1, x)
    if type(n) is int:
        return n
    return int(math.copysign(math.floor(abs(n) + 0.5), n))


@builtin("ceil", "numbers", 1)
def ceil(x: Any) -> int:
    """The smallest integer not less than ``x``."""
    return math.ceil(want_num("ceil", 1, x))


@builtin("floor", "numbers", 1)
def floor(x: Any) -> int:
    """The largest integer not greater than ``x``."""
    return math.floor(want_num("floor", 1, x))


# The most elements a range may have: a bigger one would exhaust memory before the
# evaluation budget could stop it (OPA has no such limit; no sane policy comes near it).
MAX_RANGE = 10_000_000


def _check_size(name: str, n: int) -> None:
    if n >= MAX_RANGE:
        raise BuiltinError(f"{name}: a range of more than {MAX_RANGE} numbers")


@builtin("numbers.range", "numbers", 2)
def range_(a: Any, b: Any) -> list[int]:
    """The integers from ``a`` to ``b`` inclusive, ascending or descending."""
    lo = want_int("numbers.range", 1, a)
    hi = want_int("numbers.range", 2, b)
    _check_size("numbers.range", abs(hi - lo))
    step = 1 if hi >= lo else -1
    return list(range(lo, hi + step, step))


@builtin("numbers.range_step", "numbers", 3)
def range_step(a: Any, b: Any, step: Any) -> list[int]:
    """The integers from ``a`` towards ``b`` (inclusive) in steps of the positive ``step``."""
    lo = want_int("numbers.range_step", 1, a)
    hi = want_int("numbers.range_step", 2, b)
    s = want_int("numbers.range_step", 3, step)
    if s <= 0:
        raise BuiltinError("numbers.range_step: step must be a positive number above zero")
    _check_size("numbers.range_step", abs(hi - lo) // s)
    return list(range(lo, hi + 1, s)) if hi >= lo else list(range(lo, hi - 1, -s))


@builtin("to_number", "numbers", 1)
def to_number(x: Any) -> Any:
    """``x`` as a number: numbers as they are, ``null`` is 0, booleans 0/1, strings parsed
    (exactly: ``"0.1234567890123456789"`` keeps every digit)."""
    t = type(x)
    if x is None:
        return 0
    if t is bool:
        return int(x)
    if t is int or t is float or is_decimal(x):
        return x
    if t is str:
        # RE2 (imported here, off the hot path; it caches compiled patterns): the string may
        # come from the payload, and ``re`` backtracks quadratically on _FLOAT.
        import re2

        try:
            if re2.fullmatch(_INT, x):
                return int(x)  # ValueError past Python's limit of 4300 digits
            if re2.fullmatch(_FLOAT, x):
                f = float(x)  # "1e400" is infinite: the caller refuses it as out of range
                if repr(f) == x or f in (_INF, -_INF):
                    return f
                from hookgate.lang.numbers import literal

                return literal(x)  # the number the text writes, exactly (as OPA keeps it)
        except ValueError:
            pass
        raise BuiltinError("to_number: could not parse string as number")
    raise BuiltinError(
        f"to_number: operand 1 must be one of {{boolean, null, number, string}} but got {_tn(x)}"
    )


def _tn(x: Any) -> str:
    from hookgate.lang.values import type_name

    return type_name(x)


def _bits(name: str, a: Any, b: Any) -> tuple[int, int]:
    return want_int(name, 1, a), want_int(name, 2, b)


@builtin("bits.and", "numbers", 2)
def bits_and(a: Any, b: Any) -> int:
    """The bitwise AND of two integers."""
    x, y = _bits("bits.and", a, b)
    return x & y


@builtin("bits.or", "numbers", 2)
def bits_or(a: Any, b: Any) -> int:
    """The bitwise OR of two integers."""
    x, y = _bits("bits.or", a, b)
    return x | y


@builtin("bits.xor", "numbers", 2)
def bits_xor(a: Any, b: Any) -> int:
    """The bitwise XOR of two integers."""
    x, y = _bits("bits.xor", a, b)
    return x ^ y


@builtin("bits.negate", "numbers", 1)
def bits_negate(a: Any) -> int:
    """The bitwise negation of an integer."""
    return ~want_int("bits.negate", 1, a)


@builtin("bits.lsh", "numbers", 2)
def bits_lsh(a: Any, b: Any) -> int:
    """``a`` shifted left by ``b`` bits."""
    x, y = _bits("bits.lsh", a, b)
    if y < 0:
        raise BuiltinError("bits.lsh: operand 2 must be an unsigned integer number")
    return x << y


@builtin("bits.rsh", "numbers", 2)
def bits_rsh(a: Any, b: Any) -> int:
    """``a`` shifted right by ``b`` bits."""
    x, y = _bits("bits.rsh", a, b)
    if y < 0:
        raise BuiltinError("bits.rsh: operand 2 must be an unsigned integer number")
    return x >> y
