"""The evaluator's run-time: the state of one evaluation (``Ctx``), Rego's operators, and the
``data`` tree of rule groups whose values are computed (and cached per evaluation) on demand.

``hookgate.lang.compile`` turns rule bodies into closures over these.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hookgate.builtins import BuiltinError
from hookgate.lang import ast
from hookgate.lang.errors import EvalError
from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    dict_key,
    equal,
    obj_get,
    obj_items,
    sort_key,
    sorted_items,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_BUDGET = 5_000_000

MISSING = object()
IN_PROGRESS = object()


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
        return c


def tick(ctx: Ctx) -> None:
    """Count one step of iteration; too many steps, or the deadline passed, ends evaluation."""
    b = ctx.budget
    b[0] -= 1
    if (b[0] & 1023) == 0 and (
        b[0] < 0 or (ctx.deadline is not None and time.monotonic() > ctx.deadline)
    ):
        raise EvalError("evaluation budget exceeded")


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
        return ((e, e) for e in v.unordered())
    return ()


def index(v: Any, key: Any) -> Any:
    """``v[key]``, or UNDEFINED."""
    t = type(v)
    if t is dict:
        return obj_get(v, key)
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
        if v is UNDEFINED:
            return UNDEFINED
        v = index(v, k)
    return v


# ---------------------------------------------------------------------------------------------
# Arithmetic and comparison
# ---------------------------------------------------------------------------------------------


def _num_check(name: str, a: Any, b: Any) -> None:
    ta = type(a)
    tb = type(b)
    if (ta is not int and ta is not float) or (tb is not int and tb is not float):
        raise BuiltinError(f"{name}: operand must be number (`{name}` expects numeric argument)")


def op_plus(a: Any, b: Any) -> Any:
    _num_check("plus", a, b)
    return a + b


def op_minus(a: Any, b: Any) -> Any:
    if type(a) is RegoSet and type(b) is RegoSet:
        return a.difference(b)
    ta, tb = type(a), type(b)
    if (ta is RegoSet) != (tb is RegoSet):
        raise BuiltinError("minus: operands must be both numbers or both sets")
    _num_check("minus", a, b)
    return a - b


def op_mul(a: Any, b: Any) -> Any:
    _num_check("mul", a, b)
    return a * b


def op_div(a: Any, b: Any) -> Any:
    _num_check("div", a, b)
    if b == 0:
        raise BuiltinError("div: divide by zero")
    if type(a) is int and type(b) is int:
        q, r = divmod(a, b)
        if r == 0:
            return q
    return a / b


def op_rem(a: Any, b: Any) -> Any:
    _num_check("rem", a, b)
    if type(a) is float or type(b) is float:
        raise BuiltinError("rem: modulo on floating-point number")
    if b == 0:
        raise BuiltinError("rem: modulo by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


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
    if t is list:
        return any(equal(value, x) for x in coll)
    if t is dict:
        return any(equal(value, x) for x in coll.values())
    return False


def membership_kv(key: Any, value: Any, coll: Any) -> bool:
    v = index(coll, key)
    return v is not UNDEFINED and equal(v, value)


# ---------------------------------------------------------------------------------------------
# The data tree: base documents merged with rules
# ---------------------------------------------------------------------------------------------


class Node:
    """A node of ``data``: either a rule group (a leaf) or an object of children."""

    __slots__ = ("path", "children", "group", "package")

    def __init__(self, path: tuple) -> None:
        self.path = path
        self.children: dict[str, Node] = {}
        self.group: Group | None = None
        self.package = False  # a package's node is an object even when it has no rules

    def child(self, key: str) -> Node:
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node((*self.path, key))
        return node

    def has_rules(self) -> bool:
        return self.group is not None or bool(self.children) or self.package


def path_text(path: tuple) -> str:
    out = "data"
    for p in path:
        out += f".{p}" if type(p) is str and p.isidentifier() else f"[{p!r}]"
    return out


class Group:
    """All definitions of one rule path (a complete rule, a partial set or object, a function)."""

    def __init__(self, kind: str, path: tuple) -> None:
        self.kind = kind
        self.path = path
        self.name = path_text(path)
        self.rules: list[tuple[ast.Rule, Any]] = []  # (rule, its module's ModuleEnv)
        self.default: ast.Rule | None = None
        self.default_def: Callable | None = None
        self.defs: list[Callable] = []  # compiled definitions
        self.arity = -1
        self.deps: set[Group] = set()
        self.value: Callable[[Ctx], Any] = self._value_unbuilt
        # Set when the program compiles on first use (modules from the compile cache, which
        # compiled cleanly before): compiles ``defs`` and ``default_def``, then clears itself.
        self.pending: Callable[[Group], None] | None = None

    def __hash__(self) -> int:
        return id(self)

    def _value_unbuilt(self, ctx: Ctx) -> Any:
        raise EvalError(f"internal error: {self.name} used before it was compiled")

    def build(self) -> None:
        if self.kind == "function":
            self.value = self._function_value
        elif self.kind == "complete":
            self.value = self._complete_value
        else:
            self.value = self._collection_value

    def _cached(self, ctx: Ctx, compute: Callable[[Ctx], Any]) -> Any:
        cache = ctx.cache
        v = cache.get(self, MISSING)
        if v is MISSING:
            cache[self] = IN_PROGRESS
            try:
                v = compute(ctx)
            except BaseException:
                cache.pop(self, None)
                raise
            cache[self] = v
            return v
        if v is IN_PROGRESS:
            raise EvalError(f"recursion: {self.name} depends on itself")
        return v

    def _complete_value(self, ctx: Ctx) -> Any:
        return self._cached(ctx, self._compute_complete)

    def _compute_complete(self, ctx: Ctx) -> Any:
        if self.pending is not None:
            self.pending(self)
        if ctx.mocks is not None and self.name in ctx.mocks:
            return ctx.mocks[self.name](ctx, ())
        result = UNDEFINED
        for d in self.defs:
            v = d(ctx)
            if v is not UNDEFINED:
                if result is UNDEFINED:
                    result = v
                elif not equal(result, v):
                    raise EvalError(f"conflicting values for {self.name}")
        if result is UNDEFINED and self.default_def is not None:
            return self.default_def(ctx)
        return result

    def _collection_value(self, ctx: Ctx) -> Any:
        return self._cached(ctx, self._compute_collection)

    def _compute_collection(self, ctx: Ctx) -> Any:
        if self.pending is not None:
            self.pending(self)
        if self.kind == "set":
            acc: dict = {}
            for d in self.defs:
                d(ctx, acc)
            return RegoSet._from_dict(acc)
        obj: dict = {}
        for d in self.defs:
            d(ctx, obj)
        return obj

    def _function_value(self, ctx: Ctx) -> Any:
        # A function referred to without arguments (only valid for arity 0).
        return self.call(ctx, [])

    def call(self, ctx: Ctx, args: list) -> Any:
        if ctx.mocks is not None and self.name in ctx.mocks:
            return ctx.mocks[self.name](ctx, args)
        tick(ctx)
        if self.pending is not None:
            self.pending(self)
        result = UNDEFINED
        for d in self.defs:
            v = d(ctx, args)
            if v is not UNDEFINED:
                if result is UNDEFINED:
                    result = v
                elif not equal(result, v):
                    raise EvalError(
                        f"functions must not produce multiple outputs for same inputs ({self.name})"
                    )
        if result is UNDEFINED and self.default_def is not None:
            return self.default_def(ctx, args)
        return result


def patch_path(doc: Any, path: tuple, value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (objects created along the way)."""
    if not path:
        return value
    if type(doc) is not dict:
        doc = {}
    out = dict(doc)
    out[dict_key(path[0])] = patch_path(obj_get(doc, path[0], {}), path[1:], value)
    return out


def builtin_failed(ctx: Ctx, name: str, exc: BuiltinError, file: str, loc: ast.Loc) -> Any:
    """A builtin's error: the call is undefined (OPA's default), or an ``EvalError`` with strict
    builtin errors. An unsupported feature is always an error, never a silent undefined."""
    msg = str(exc)
    unsupported = msg.startswith("unsupported:")
    if not ctx.strict and not unsupported:
        return UNDEFINED
    if not unsupported and not msg.startswith(name):
        msg = f"{name}: {msg}"
    raise EvalError(msg, file, loc.line, loc.col)


def internal_error(name: str, exc: Exception, file: str, loc: ast.Loc) -> EvalError:
    return EvalError(f"{name}: internal error ({type(exc).__name__})", file, loc.line, loc.col)


def call_builtin(name: str, fn: Callable, vals: list, ctx: Ctx, loc: ast.Loc, file: str) -> Any:
    if ctx.mocks is not None and name in ctx.mocks:
        return ctx.mocks[name](ctx, vals)
    try:
        return fn(*vals)
    except BuiltinError as exc:
        return builtin_failed(ctx, name, exc, file, loc)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        raise internal_error(name, exc, file, loc) from None
