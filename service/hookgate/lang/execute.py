"""Running a compiled policy set: ``run`` executes the code object of the module the compiler
generated (``hookgate.lang.compile``) in an environment of exactly the names it may use, and
builds the ``data`` tree. Here are the helpers that code calls for builtins (errors, output
limits, values fixed for one evaluation), the binary operators, ``every``, ``print`` and the
replacements ``with`` installs.
"""

from __future__ import annotations

from hookgate.builtins import BuiltinError
from hookgate.lang.documents import Tree, object_put, patch_path, set_add, tree_inner, tree_put
from hookgate.lang.errors import EvalError, LimitError
from hookgate.lang.runtime import (
    BINOPS,
    IN_PROGRESS,
    MISSING,
    Ctx,
    check_budget,
    index,
    index_path,
    iter_items,
    iter_items_unordered,
    iter_values,
    iter_values_unordered,
    membership,
    membership_kv,
    tick,
)
from hookgate.lang.values import UNDEFINED, RegoSet, dict_key, equal, obj_get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


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
    if type(value) in _SIZED and len(value) > MAX_OUTPUT:
        raise LimitError("output-size", f"{file}:{line}:{col}: {name}: result over {MAX_OUTPUT}")
    return value if type(value) is not float else _finite(value, ctx, name, file, line, col)


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


# The names the generated code may use (its whole environment: no builtins beyond Python's).
GENERATED_CODE_NAMESPACE = {
    "UNDEFINED": UNDEFINED,
    "MISSING": MISSING,
    "IN_PROGRESS": IN_PROGRESS,
    "EvalError": EvalError,
    "RegoSet": RegoSet,
    "Tree": Tree,
    "equal": equal,
    "index": index,
    "index_path": index_path,
    "iter_items": iter_items,
    "iter_items_unordered": iter_items_unordered,
    "iter_values": iter_values,
    "iter_values_unordered": iter_values_unordered,
    "membership": membership,
    "membership_kv": membership_kv,
    "obj_get": obj_get,
    "check_budget": check_budget,
    "call_builtin": call_builtin,
    "call_once": call_once,
    "COUNTED": COUNTED,
    "MAX_OUTPUT": MAX_OUTPUT,
    "builtin_mock": builtin_mock,
    "binop": binop,
    "obj_add": obj_add,
    "set_add": set_add,
    "object_put": object_put,
    "tree_put": tree_put,
    "tree_inner": tree_inner,
    "every": every,
    "rego_print": rego_print,
    "with_input": with_input,
    "with_data": with_data,
    "with_mock": with_mock,
    "value_mock": value_mock,
    "function_mock": function_mock,
    "decimal_value": decimal_value,
    **{f.__name__: f for f in BINOPS.values()},
}


def run(code: Any, coverage: set | None = None) -> Tree:
    """Execute a compiled policy set's code object → its data tree. ``coverage`` receives the
    ``(filename, line)`` pairs that code compiled with coverage records."""
    namespace = dict(GENERATED_CODE_NAMESPACE)
    namespace["BF"] = BuiltinFuncs()
    namespace["COV"] = coverage
    exec(code, namespace)
    return namespace["T"]
