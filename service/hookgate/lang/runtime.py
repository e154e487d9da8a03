"""The evaluator's run-time core: the state of one evaluation (``Ctx``) and its step budget,
iterating and indexing values, and Rego's operators (arithmetic, comparison, membership).

``hookgate.lang.compile`` turns a policy set into the source of one Python module; its code
object (compiled once, then kept marshaled in the compile cache) runs with ``execute.run``,
building the ``data`` tree (``documents``). These three modules must not import the parser, the
AST or the compiler: a warm hook imports only them.
"""

from __future__ import annotations

import time

from hookgate.builtins import BuiltinError
from hookgate.lang.errors import LimitError
from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    equal,
    is_number,
    obj_get,
    obj_items,
    sort_key,
    sorted_items,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DEFAULT_BUDGET = 5_000_000

MISSING = object()
IN_PROGRESS = object()
EMPTY_SET = RegoSet()  # what most partial set rules come to: immutable, so shared


class Ctx:
    """The state of one evaluation."""

    __slots__ = (
        "input",
        "data",
        "cache",
        "data_over",
        "mocks",
        "prints",
        "budget",
        "deadline",
        "input_log",
        "strict",
        "shared",
    )

    def __init__(
        self,
        input: Any,
        data: Any,
        mocks: dict | None,
        prints: list | None,
        budget: int,
        deadline: float | None,
        strict: bool = False,
    ) -> None:
        self.input = input
        self.data = data
        self.cache: dict = {}
        self.data_over: list | None = None
        self.mocks = mocks
        self.prints = prints
        self.budget = [budget]  # shared with the contexts derived for `with`
        self.deadline = deadline
        self.input_log: list | None = None  # receives each `with input as …` document
        self.strict = strict  # builtin errors raise instead of making the call undefined
        self.shared: dict = {}  # one evaluation's facts, `with` or not (time.now_ns's instant)

    def derive(self) -> Ctx:
        """A copy for ``with``: the same budget, a fresh rule cache."""
        c = Ctx.__new__(Ctx)
        c.input = self.input
        c.data = self.data
        c.cache = {}
        c.data_over = self.data_over
        c.mocks = self.mocks
        c.prints = self.prints
        c.budget = self.budget
        c.deadline = self.deadline
        c.input_log = self.input_log
        c.strict = self.strict
        c.shared = self.shared
        return c


def tick(ctx: Ctx) -> None:
    """Count one step of iteration; too many steps, or the deadline passed, ends evaluation.
    (The generated code counts inline and calls ``check_budget`` every 1024 steps.)"""
    b = ctx.budget
    b[0] -= 1
    if (b[0] & 1023) == 0:
        check_budget(ctx)


def check_budget(ctx: Ctx) -> None:
    # Limits, not faults: the content being judged decides how long judging it takes.
    if ctx.budget[0] < 0:
        raise LimitError("steps", "evaluation step budget exceeded")
    if ctx.deadline is not None and time.monotonic() > ctx.deadline:
        raise LimitError("time", "evaluation time limit reached")


# ---------------------------------------------------------------------------------------------
# Iteration helpers
# ---------------------------------------------------------------------------------------------


def iter_items(v: Any) -> Any:
    """(key, value) pairs of a collection in Rego's order (objects by key, sets sorted);
    nothing for scalars (a string is not a collection)."""
    t = type(v)
    if t is list:
        return enumerate(v)
    if t is dict:
        return sorted_items(v)
    if t is RegoSet:
        return ((e, e) for e in v)
    return ()


def iter_items_unordered(v: Any) -> Any:
    """``iter_items`` in storage order, for iterations whose order nothing can observe."""
    t = type(v)
    if t is list:
        return enumerate(v)
    if t is dict:
        return obj_items(v)
    if t is RegoSet:
        return v.pairs()
    return ()


def iter_values(v: Any) -> Any:
    """The members of a collection in Rego's order (``iter_items`` without the keys)."""
    t = type(v)
    if t is list:
        return v
    if t is dict:
        return [x for _, x in sorted_items(v)]
    if t is RegoSet:
        return v
    return ()


def iter_values_unordered(v: Any) -> Any:
    """``iter_values`` in storage order, for iterations whose order nothing can observe."""
    t = type(v)
    if t is list:
        return v
    if t is dict:
        return v.values()
    if t is RegoSet:
        return v.unordered()
    return ()


def index(v: Any, key: Any) -> Any:
    """``v[key]``, or UNDEFINED."""
    t = type(v)
    if t is dict:
        return v.get(key, UNDEFINED) if type(key) is str else obj_get(v, key)
    if t is list:
        tk = type(key)
        if tk is int:
            return v[key] if 0 <= key < len(v) else UNDEFINED
        if tk is float and key.is_integer():
            k = int(key)
            return v[k] if 0 <= k < len(v) else UNDEFINED
        return UNDEFINED
    if t is RegoSet:
        return key if key in v else UNDEFINED
    return UNDEFINED


def index_path(v: Any, path: tuple) -> Any:
    for k in path:
        if type(v) is dict and type(k) is str:
            v = v.get(k, UNDEFINED)
        elif v is UNDEFINED:
            return UNDEFINED
        else:
            v = index(v, k)
    return v


# ---------------------------------------------------------------------------------------------
# Arithmetic and comparison
# ---------------------------------------------------------------------------------------------


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


def op_plus(a: Any, b: Any) -> Any:
    if _num_check("plus", a, b):
        return a + b
    return _exact("+", a, b)


def op_minus(a: Any, b: Any) -> Any:
    if type(a) is RegoSet and type(b) is RegoSet:
        return a.difference(b)
    ta, tb = type(a), type(b)
    if (ta is RegoSet) != (tb is RegoSet):
        raise BuiltinError("minus: operands must be both numbers or both sets")
    if _num_check("minus", a, b):
        return a - b
    return _exact("-", a, b)


def op_mul(a: Any, b: Any) -> Any:
    if _num_check("mul", a, b):
        return a * b
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
    return a / b


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


def membership(value: Any, coll: Any) -> bool:
    t = type(coll)
    if t is RegoSet:
        return value in coll
    if type(value) is str and (t is list or t is dict):
        # A string equals only a string, in Python as in Rego: no equal() per member.
        return value in (coll if t is list else coll.values())
    if t is list:
        return any(equal(value, x) for x in coll)
    if t is dict:
        return any(equal(value, x) for x in coll.values())
    return False


def membership_kv(key: Any, value: Any, coll: Any) -> bool:
    v = index(coll, key)
    return v is not UNDEFINED and equal(v, value)
