"""The evaluator's run-time: the state of one evaluation (``Ctx``) and its step budget,
iterating and indexing values, membership (the other operators are in ``operators``), and the
functions the generated code calls for builtins (errors, output limits, values fixed for one
evaluation), ``every``, ``print`` and the replacements ``with`` installs.

``hookgate.lang.compile`` turns a policy set into the source of one Python module; its code
object (compiled once, then kept marshaled in the compile cache) runs with ``documents.run``,
which builds the ``data`` tree. This module and ``documents`` must not import the parser, the
AST or the compiler: a warm hook imports only them.
"""

from __future__ import annotations

import time
from itertools import count

from hookgate.builtins import BuiltinError
from hookgate.lang.errors import EvalError, LimitError
from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    dict_key,
    equal,
    obj_get,
    obj_items,
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
        "relevant",
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
        # The steps left, counted down by ``next`` (in C: the count inlined in every loop of
        # the generated code costs half the bytecodes of a list's item); shared with the
        # contexts derived for `with`.
        self.budget = count(budget - 1, -1)
        self.deadline = deadline
        self.input_log: list | None = None  # receives each `with input as …` document
        self.strict = strict  # builtin errors raise instead of making the call undefined
        self.shared: dict = {}  # one evaluation's facts, `with` or not (time.now_ns's instant)
        self.relevant = 0  # the input facts that hold (documents.Group.need), 0: not yet known

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
        c.relevant = 0  # `with` may change the input
        return c


def tick(ctx: Ctx) -> None:
    """Count one step of iteration; too many steps, or the deadline passed, ends evaluation.
    (The generated code counts inline and calls ``check_budget`` every 1024 steps.)"""
    if not next(ctx.budget) & 1023:
        check_budget(ctx)


def check_budget(ctx: Ctx) -> None:
    """End the evaluation when the step that called it (its count a multiple of 1024) was past
    the budget, or the deadline has passed. The count is read by taking one more step."""
    # Limits, not faults: the content being judged decides how long judging it takes.
    if next(ctx.budget) < -1:
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


def patch_path(doc: Any, path: tuple, value: Any) -> Any:
    """A copy of ``doc`` with ``value`` at ``path`` (objects created along the way)."""
    if not path:
        return value
    if type(doc) is not dict:
        doc = {}
    out = dict(doc)
    out[dict_key(path[0])] = patch_path(obj_get(doc, path[0], {}), path[1:], value)
    return out


# ---------------------------------------------------------------------------------------------
# Calls out of the generated code: builtins, operators, ``every``, ``print`` and ``with``
# ---------------------------------------------------------------------------------------------


def builtin_failed(ctx: Ctx, name: str, exc: BuiltinError, file: str, line: int, col: int) -> Any:
    """A builtin's error: the call is undefined (OPA's default), or an ``EvalError`` with strict
    builtin errors. An unsupported feature is always an error, never a silent undefined."""
    msg = str(exc)
    unsupported = msg.startswith("unsupported:")
    if not ctx.strict and not unsupported:
        return UNDEFINED
    if not unsupported and not msg.startswith(name):
        msg = f"{name}: {msg}"
    raise EvalError(msg, file, line, col)


def call_builtin(
    name: str, fn: Callable, vals: list, ctx: Ctx, file: str, line: int, col: int
) -> Any:
    if ctx.mocks is not None and name in ctx.mocks:
        return ctx.mocks[name](ctx, vals)
    try:
        value = fn(*vals)
    except BuiltinError as exc:
        return builtin_failed(ctx, name, exc, file, line, col)
    except OverflowError:
        value = _INFINITY
    except RecursionError:
        # Builtins recurse over the structure of what they read (commands, documents): content
        # nested past Python's stack is a limit of that content, not a bug.
        raise LimitError("nesting", f"{name}: input nested too deeply") from None
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        raise EvalError(f"{name}: internal error ({type(exc).__name__})", file, line, col) from None
    t = type(value)
    if t in _SIZED:
        if len(value) > MAX_OUTPUT:
            raise LimitError(
                "output-size", f"{file}:{line}:{col}: {name}: result over {MAX_OUTPUT}"
            )
    elif t is float:
        return _finite(value, ctx, name, file, line, col)
    return value


_GLOB_ANY: list = []  # [glob_match_any], once a policy has matched globs


def glob_members(
    ctx: Ctx, members: Any, delims: Any, value: Any, file: str, line: int, col: int
) -> Any:
    """The solutions of ``some p in members; glob.match(p, delims, value)`` where nothing else
    in the body reads ``p`` (``LiteralCompiler._glob_some``), as values for ``p``. Then one
    solution stands for all: the rest of the body runs alike for each. With the failures OPA
    makes undefined and no mock, that is one question to a matcher of the whole list
    (``glob_match_any``); otherwise each member's call in order, lazily, so that a failure or a
    mock's answer comes where the loop would have met it."""
    if not _GLOB_ANY:
        # Here, not at the top: the family (and functools) loads when a policy matches globs;
        # kept: an import statement on every file write costs about half the match itself.
        from hookgate.builtins.regex import glob_match_any

        _GLOB_ANY.append(glob_match_any)
    if not ctx.strict and ctx.mocks is None:
        try:
            return (True,) if _GLOB_ANY[0](members, delims, value) else ()
        except Exception:  # a lone surrogate (ValueError), or a pattern the translator fails on
            pass  # in a way not its own: the loop below fails as each call would
    return _glob_each(ctx, members, delims, value, file, line, col)


def _glob_each(
    ctx: Ctx, members: Any, delims: Any, value: Any, file: str, line: int, col: int
) -> Any:
    from hookgate.builtins.regex import glob_match

    for p in members:
        found = call_builtin("glob.match", glob_match, [p, delims, value], ctx, file, line, col)
        if found is not UNDEFINED and found is not False:
            yield p


def call_once(name: str, fn: Callable, ctx: Ctx, file: str, line: int, col: int) -> Any:
    """A builtin without arguments whose value is fixed for one evaluation (``time.now_ns``:
    OPA reads the clock once per query)."""
    if ctx.mocks is not None and name in ctx.mocks:
        return ctx.mocks[name](ctx, [])
    value = ctx.shared.get(name, UNDEFINED)
    if value is UNDEFINED:
        value = ctx.shared[name] = call_builtin(name, fn, [], ctx, file, line, col)
    return value


# The most characters (or items) one builtin call may return: concat, replace, sprintf, …
# would otherwise let a policy build values that exhaust memory by doubling.
MAX_OUTPUT = 1 << 20
_SIZED = frozenset({str, list, tuple, dict, set, frozenset})


# The operand types whose ``count`` is their ``len`` (the generated code counts them inline).
COUNTED = frozenset({str, list, dict, RegoSet})


# Rego's numbers are arbitrary-precision; a float that overflows here has no JSON form (a host
# would reject the response that carried it), so it fails like any builtin error.
_INFINITY = float("inf")


def _finite(value: Any, ctx: Ctx, name: str, file: str, line: int, col: int) -> Any:
    """``value``, unless it is an infinite float: then the failure of builtin ``name``."""
    if type(value) is float and (value == _INFINITY or value == -_INFINITY):
        return builtin_failed(
            ctx, name, BuiltinError(f"{name}: number out of range"), file, line, col
        )
    return value


class BuiltinFuncs(dict):
    """Builtin name → function, filled on first use: a family is imported only when the code
    calls one of its builtins (see ``hookgate.builtins.use_index``)."""

    def __missing__(self, name: str) -> Callable:
        from hookgate import builtins

        found = builtins.get(name)
        if found is None:
            raise EvalError(f"unknown builtin {name}: the compiled policies do not match the code")
        self[name] = found.func
        return found.func


def binop(op: Callable, a: Any, b: Any, ctx: Ctx, file: str, line: int, col: int) -> Any:
    try:
        value = op(a, b)
    except BuiltinError as exc:
        return builtin_failed(ctx, "", exc, file, line, col)
    except OverflowError:  # an integer too large to meet a float
        value = _INFINITY
    return _finite(value, ctx, op.__name__.removeprefix("op_"), file, line, col)


def obj_add(out: dict, k: Any, v: Any) -> bool:
    """Put one pair of an object term into ``out``; True when the pair is undefined."""
    if k is UNDEFINED or v is UNDEFINED:
        return True
    dk = dict_key(k)
    if dk in out and not equal(out[dk], v):
        raise EvalError("object keys must be unique")
    out[dk] = v
    return False


def every(ctx: Ctx, fr: list, domain: Any, key_slot: int, val_slot: int, body: Callable) -> bool:
    """Whether ``body`` holds for every item of ``domain``."""
    for k, v in iter_items_unordered(domain):
        tick(ctx)
        fr[key_slot] = k
        fr[val_slot] = v
        if not body(ctx, fr):
            return False
    return True


def rego_print(ctx: Ctx, values: list) -> bool:
    from hookgate.builtins.strings import rego_text

    parts = [
        "<undefined>" if v is UNDEFINED else v if type(v) is str else rego_text(v) for v in values
    ]
    ctx.prints.append(" ".join(parts))
    return True


def with_input(c2: Ctx, path: tuple, v: Any) -> None:
    c2.input = patch_path(c2.input, path, v) if path else v
    if c2.input_log is not None:
        c2.input_log.append(c2.input)


def with_data(c2: Ctx, path: tuple, v: Any) -> None:
    c2.data_over = [*(c2.data_over or ()), (path, v)]


def with_mock(c2: Ctx, key: str, fn: Callable) -> None:
    mocks = dict(c2.mocks or {})
    mocks[key] = fn
    c2.mocks = mocks


def decimal_value(text: str) -> Any:
    """A number literal kept exact (``hookgate.lang.numbers``); imports ``decimal`` on use."""
    from decimal import Decimal

    return Decimal(text)


def function_mock(fn: Callable) -> Callable:
    """A replacement (``with f as g``) calling the function ``g``: as in OPA, no replacement is in
    force inside it, so ``g`` may call the very function it replaces."""

    def replacement(ctx: Ctx, args: list) -> Any:
        return fn(_unmocked(ctx), args)

    return replacement


def _unmocked(ctx: Ctx) -> Ctx:
    """``ctx`` with no replacement in force (a copy, when it has any)."""
    if ctx.mocks is None:
        return ctx
    inner = ctx.derive()
    inner.mocks = None
    return inner


def value_mock(v: Any) -> Callable:
    """A replacement (``with f as 1``) answering every call with ``v``."""

    def fn(ctx: Ctx, args: list) -> Any:
        return v

    return fn


def builtin_mock(funcs: BuiltinFuncs, name: str, file: str, line: int, col: int) -> Callable:
    """A replacement (``with f as upper``) calling the builtin ``name``."""

    def replacement(ctx: Ctx, args: list) -> Any:
        return call_builtin(name, funcs[name], args, _unmocked(ctx), file, line, col)

    return replacement
