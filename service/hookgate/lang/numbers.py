"""Numbers beyond ``int`` and ``float``: OPA's numbers are arbitrary-precision decimals.

Policy values keep Python's ``int`` (exact at any size) and ``float`` as the fast paths. A
number literal whose value a float would round (``0.1234567890123456789``, ``1e-400``) is a
``decimal.Decimal`` instead, and arithmetic with one stays exact: the result goes back to
``int`` when integral and to ``float`` when a float holds it exactly. ``decimal`` is imported
only where such a number exists, never on the hook's ordinary path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from decimal import Decimal
    from typing import Any

# Digits an exact result may keep (OPA's big.Float works at a fixed precision too); an integral
# literal may have at most this many digits before its exponent is refused.
PRECISION = 400
MAX_INT_DIGITS = 10_000


class NumberError(ValueError):
    """A literal hookgate cannot hold exactly."""


def literal(text: str) -> int | float | Decimal:
    """The value of a number literal with a fraction or exponent (``4.0`` → 4.0, ``1e30`` → an
    exact int, ``0.5`` → 0.5, ``0.1234567890123456789`` → a Decimal)."""
    from decimal import Decimal, InvalidOperation

    try:
        d = Decimal(text)
    except InvalidOperation:
        raise NumberError(f"invalid number {text}") from None
    if d.is_zero():
        return float(d)  # 0.0, -0.0, 0e99999: a float64 zero in OPA
    if d.adjusted() >= MAX_INT_DIGITS:
        raise NumberError("unsupported: number too big")
    if d == d.to_integral_value() and abs(d) <= _FLOAT_EXACT:
        # OPA keeps a literal's text, and a text with a fraction or exponent is a float to
        # sprintf (``%d`` of 4.0 is ``%!d(float64=4)``): an integral one a float holds
        # exactly stays one; arithmetic on it is integer arithmetic (operators.py).
        return float(d)
    return normalize(d)


# A float holds every integer up to this exactly; an integral literal past it is an int.
_FLOAT_EXACT = 1 << 53


def normalize(d: Decimal) -> int | float | Decimal:
    """``d`` as an int when integral, a float when one holds it exactly, else itself."""
    if d == d.to_integral_value():
        return int(d)
    f = float(d)
    if f != 0 and f not in (float("inf"), float("-inf")) and _exact(f) == d:
        return f
    return d


def _exact(f: float) -> Decimal:
    """The decimal a float literal denotes (its shortest repr, as JSON and Rego write it)."""
    from decimal import Decimal

    return Decimal(repr(f))


def to_decimal(v: int | float | Decimal) -> Decimal:
    from decimal import Decimal

    if type(v) is float:
        return _exact(v)
    return Decimal(v)


def arith(op: str, a: Any, b: Any) -> int | float | Decimal:
    """``a op b`` (op one of ``+ - * / %``) exactly, for operands at least one of which is a
    Decimal; ``b`` is non-zero for ``/`` and ``%`` (the caller checks)."""
    from decimal import Context

    ctx = Context(prec=PRECISION)
    x, y = to_decimal(a), to_decimal(b)
    if op == "+":
        r = ctx.add(x, y)
    elif op == "-":
        r = ctx.subtract(x, y)
    elif op == "*":
        r = ctx.multiply(x, y)
    elif op == "/":
        r = ctx.divide(x, y)
    else:
        r = ctx.remainder(x, y)  # the sign of the dividend, as Go's big.Int.Rem
    return normalize(r)
