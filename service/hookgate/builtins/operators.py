"""The infix operators under the names OPA gives them as functions (``plus(1, 2)``,
``lt(a, b)``, ``equal(a, b)``): the same code as ``+``, ``<`` and ``==``."""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.lang import operators as infix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("plus", "operators", 2)
def plus(a: Any, b: Any) -> Any:
    """``a + b``."""
    return infix.op_plus(a, b)


@builtin("minus", "operators", 2)
def minus(a: Any, b: Any) -> Any:
    """``a - b``: numbers, or the difference of two sets."""
    return infix.op_minus(a, b)


@builtin("mul", "operators", 2)
def mul(a: Any, b: Any) -> Any:
    """``a * b``."""
    return infix.op_mul(a, b)


@builtin("div", "operators", 2)
def div(a: Any, b: Any) -> Any:
    """``a / b``."""
    return infix.op_div(a, b)


@builtin("rem", "operators", 2)
def rem(a: Any, b: Any) -> Any:
    """``a % b`` (integers, integral floats included; the sign of ``a``)."""
    return infix.op_rem(a, b)


@builtin("and", "operators", 2)
def and_(a: Any, b: Any) -> Any:
    """``a & b``: the intersection of two sets."""
    return infix.op_and(a, b)


@builtin("or", "operators", 2)
def or_(a: Any, b: Any) -> Any:
    """``a | b``: the union of two sets."""
    return infix.op_or(a, b)


@builtin("equal", "operators", 2)
def equal(a: Any, b: Any) -> bool:
    """``a == b``."""
    return infix.op_eq(a, b)


@builtin("neq", "operators", 2)
def neq(a: Any, b: Any) -> bool:
    """``a != b``."""
    return infix.op_ne(a, b)


@builtin("lt", "operators", 2)
def lt(a: Any, b: Any) -> bool:
    """``a < b`` (Rego's total order across types)."""
    return infix.op_lt(a, b)


@builtin("lte", "operators", 2)
def lte(a: Any, b: Any) -> bool:
    """``a <= b``."""
    return infix.op_le(a, b)


@builtin("gt", "operators", 2)
def gt(a: Any, b: Any) -> bool:
    """``a > b``."""
    return infix.op_gt(a, b)


@builtin("gte", "operators", 2)
def gte(a: Any, b: Any) -> bool:
    """``a >= b``."""
    return infix.op_ge(a, b)
