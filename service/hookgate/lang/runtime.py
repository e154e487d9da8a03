"""The evaluator's run-time: the state of one evaluation (``Ctx``), Rego's operators, the
``data`` tree of rule groups whose values are computed (and cached per evaluation) on demand,
and the helpers the generated code calls.

``hookgate.lang.compile`` turns a policy set into the source of one Python module; its code
object (compiled once, then kept marshaled in the compile cache) runs here (``run``) against the
names in ``_namespace``. This module must not import the parser, the AST or the compiler: a warm
hook imports only this.
"""

from __future__ import annotations

import time

from hookgate.builtins import BuiltinError
from hookgate.lang.errors import Diagnostic, EvalError, LimitError
from hookgate.lang.values import (
    UNDEFINED,
    RegoSet,
    dict_key,
    equal,
    freeze,
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
    """All definitions of one rule path (a complete rule, a partial set or object, a function):
    the generated functions of its definitions, and where its first definition is (for errors)."""

    __slots__ = (
        "kind",
        "path",
        "name",
        "arity",
        "file",
        "line",
        "col",
        "defs",
        "default_def",
        "memo_env",
        "memo",
        "nested",
    )

    def __init__(
        self, kind: str, path: tuple, name: str, arity: int, file: str, line: int, col: int
    ) -> None:
        """``name``: ``path_text(path)``, which the generated code gives as a constant: a hook
        that computed it for each group would spend more on it than on building the tree."""
        self.kind = kind
        self.path = path
        self.name = name
        self.arity = arity
        self.file = file
        self.line = line
        self.col = col
        self.defs: tuple[Callable, ...] = ()
        self.default_def: Callable | None = None
        # A rule whose value does not depend on the call (compile.Program._memoized): the
        # environment builtins it reads (often none), and its value with their answers.
        self.memo_env: tuple[str, ...] | None = None
        self.memo: tuple[tuple, Any] | None = None

        self.nested = False  # a partial object built along key paths (tree_put)

    def value(self, ctx: Ctx) -> Any:
        """The group's value in this evaluation (computed once per ``ctx``; for a rule that does
        not depend on the call, once per policy set and environment: ``memo_env``)."""
        if self.kind == "function":
            return self.call(ctx, [])  # a function referred to without arguments (arity 0)
        cache = ctx.cache
        v = cache.get(self, MISSING)
        if v is not MISSING:
            if v is IN_PROGRESS:
                raise EvalError(f"recursion: {self.name} depends on itself")
            return v
        key = None
        if self.memo_env is not None and not (ctx.mocks or ctx.data_over or ctx.strict):
            key = self._memo_key(ctx)
            memo = self.memo
            if key is not None and memo is not None and _same(memo[0], key):
                cache[self] = v = memo[1]
                return v
        cache[self] = IN_PROGRESS
        try:
            if self.kind == "set":  # the usual group: inline, one call less
                acc: dict = {}
                for d in self.defs:
                    d(ctx, acc)
                v = RegoSet._from_dict(acc) if acc else EMPTY_SET
            else:
                v = self._evaluate(ctx)
        except BaseException:
            cache.pop(self, None)
            raise
        cache[self] = v
        if key is not None:
            self.memo = (key, v)  # the key's objects stay alive: no id is reused
        return v

    def _memo_key(self, ctx: Ctx) -> tuple | None:
        """The answers of the environment builtins the rule reads (read once per evaluation),
        or None when one fails (the evaluation reports it where the rule calls it)."""
        shared = ctx.shared
        key = []
        for name in self.memo_env:
            answer = shared.get(("environment", name), MISSING)
            if answer is MISSING:
                try:
                    answer = shared[("environment", name)] = _builtin_func(name)()
                except Exception:
                    return None
            key.append(answer)
        return tuple(key)

    def _evaluate(self, ctx: Ctx) -> Any:
        """The value of an object or complete rule."""
        if self.kind == "object":
            obj: dict = {}
            for d in self.defs:
                d(ctx, obj)
            return _finish_tree(obj) if self.nested else obj
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

    def call(self, ctx: Ctx, args: list) -> Any:
        if ctx.mocks is not None and self.name in ctx.mocks:
            return ctx.mocks[self.name](ctx, args)
        budget = ctx.budget  # tick(), inline: a function call costs one step
        budget[0] -= 1
        if not budget[0] & 1023:
            check_budget(ctx)
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


class Tree:
    """``data``: the rule groups of a compiled policy set, placed at their paths."""

    def __init__(self) -> None:
        self.root = Node(())
        self.groups: list[Group] = []
        self.constants: tuple[Group, ...] = ()  # groups fixed by the base data (compile.py)

    def node(self, path: tuple) -> Node:
        node = self.root
        for key in path:
            node = node.child(key)
        return node

    def package(self, path: tuple) -> None:
        self.node(path).package = True

    def group(
        self,
        kind: str,
        path: tuple,
        name: str,
        arity: int,
        file: str,
        line: int,
        col: int,
        placed: bool = True,
    ) -> Group:
        """A new rule group; ``placed``: at its node (else it lives inside a partial object
        rooted above it, whose value includes its own)."""
        group = Group(kind, path, name, arity, file, line, col)
        if placed:
            self.node(path).group = group
        self.groups.append(group)
        return group

    def find(self, path: tuple) -> tuple[Node, int]:
        """The deepest node along ``path`` (data-relative) and how many keys it consumed."""
        node = self.root
        i = 0
        while i < len(path) and node.group is None:
            child = node.children.get(path[i])
            if child is None:
                break
            node = child
            i += 1
        return node, i

    def check_base_data(self, data: Any) -> list[Diagnostic]:
        """Rules whose path also holds base data: refused (OPA reports a conflict too)."""
        out = []
        for group in self.groups:
            if index_path(data, group.path) is not UNDEFINED:
                out.append(
                    Diagnostic(
                        group.file,
                        group.line,
                        group.col,
                        f"unsupported: rule {group.name} and base data at the same path",
                    )
                )
        return out

    def node_value(self, ctx: Ctx, node: Node) -> Any:
        """The value of a data node: base data at its path merged with its rules' values."""
        if node.group is not None:
            return node.group.value(ctx) if node.group.kind != "function" else UNDEFINED
        base = index_path(ctx.data, node.path)
        out: dict = dict(base) if type(base) is dict else {}
        for key, child in node.children.items():
            if child.group is not None and child.group.kind == "function":
                continue
            v = self.node_value(ctx, child)
            if v is not UNDEFINED:
                old = out.get(key, UNDEFINED)
                if type(old) is dict and type(v) is dict:
                    v = {**old, **v}
                out[key] = v
        return out

    def data_value(self, ctx: Ctx, path: tuple) -> Any:
        """``data`` at ``path`` (keys), honouring ``with data…`` overrides."""
        if ctx.data_over:
            for opath, oval in reversed(ctx.data_over):
                if path[: len(opath)] == opath:
                    return index_path(oval, path[len(opath) :])
        node, i = self.find(path)
        if node.group is not None:
            v = node.group.value(ctx) if node.group.kind != "function" else UNDEFINED
            v = index_path(v, path[i:])
        elif i == len(path):
            v = self.node_value(ctx, node) if node.has_rules() else index_path(ctx.data, path)
        else:
            v = index_path(ctx.data, path)
        if ctx.data_over:
            for opath, oval in ctx.data_over:
                if len(opath) > len(path) and opath[: len(path)] == path:
                    v = patch_path(v if v is not UNDEFINED else {}, opath[len(path) :], oval)
        return v

    def ref_query(self, path: tuple) -> Callable[[Ctx], Any]:
        node, i = self.find(path)
        group = node.group
        if group is not None and group.kind == "function" and i == len(path):
            raise EvalError(
                f"unsupported: querying the function {group.name} as a value",
                group.file,
                group.line,
                group.col,
            )

        if group is not None and group.kind != "function" and i == len(path):
            # A rule's own path, the usual query: straight to its value.
            def rule_value(ctx: Ctx) -> Any:
                return self.data_value(ctx, path) if ctx.data_over else group.value(ctx)

            return rule_value

        def run(ctx: Ctx) -> Any:
            return self.data_value(ctx, path)

        return run


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
# Builtin calls
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


def _same(a: tuple, b: tuple) -> bool:
    """The same objects, one by one (answers of environment builtins)."""
    return all(x is y for x, y in zip(a, b, strict=True))


def _builtin_func(name: str) -> Callable:
    from hookgate import builtins

    return builtins.get(name).func


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


# ---------------------------------------------------------------------------------------------
# Helpers of the generated code (each keeps one piece of the evaluator's semantics in one place)
# ---------------------------------------------------------------------------------------------


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


def set_add(acc: dict, v: Any) -> None:
    t = type(v)
    acc[v if (t is str or t is int or t is float or v is None) else freeze(v)] = v


def object_put(obj: dict, k: Any, v: Any, name: str | None) -> None:
    """One key of a partial object rule (``name``) or of an object comprehension (None)."""
    k = dict_key(k)
    old = obj.get(k, MISSING)
    if old is MISSING:
        obj[k] = v
    elif not equal(old, v):
        if name is None:
            raise EvalError("object comprehension: a key with two different values")
        raise EvalError(f"conflicting values for {name}[{k!r}]: object keys must be unique")


class _Branch(dict):
    """An object a partial object's key paths build (others may still add keys to it)."""

    __slots__ = ()


class _Members(dict):
    """The members of a set at the end of a multi-value rule's key path (``set_add`` keys)."""

    __slots__ = ()


def tree_put(obj: dict, keys: tuple, v: Any, multi: bool, name: str) -> None:
    """Add ``v`` at key path ``keys`` of a partial object (``name``): the value there, or with
    ``multi`` a member of the set there. Two values at one place, or a value where another
    rule puts keys, conflict (OPA: object keys must be unique)."""
    last = len(keys) - 1
    for i, k in enumerate(keys):
        k = dict_key(k)
        old = obj.get(k, MISSING)
        if i < last:
            if old is MISSING:
                obj[k] = old = _Branch()
            elif type(old) is not _Branch:
                break
            obj = old
        elif multi:
            if old is MISSING:
                obj[k] = old = _Members()
            elif type(old) is not _Members:
                break
            set_add(old, v)
            return
        elif old is MISSING:
            obj[k] = v
            return
        elif type(old) is _Branch or type(old) is _Members or not equal(old, v):
            break
        else:
            return
    raise EvalError(f"conflicting values for {name}{list(keys)!r}: object keys must be unique")


def tree_inner(obj: dict, keys: tuple, v: Any, is_set: bool, name: str) -> None:
    """Add the value of the rule ``name`` inside a partial object, at ``keys``."""
    if v is UNDEFINED:
        return
    if is_set:
        tree_put_empty(obj, keys, name)
        for member in v:
            tree_put(obj, keys, member, True, name)
    else:
        tree_put(obj, keys, v, False, name)


def tree_put_empty(obj: dict, keys: tuple, name: str) -> None:
    """An empty set at ``keys`` (a multi-value rule with no members is still defined)."""
    *path, k = keys
    for p in path:
        obj = obj.setdefault(dict_key(p), _Branch())
        if type(obj) is not _Branch:
            raise EvalError(f"conflicting values for {name}: object keys must be unique")
    old = obj.setdefault(dict_key(k), _Members())
    if type(old) is not _Members:
        raise EvalError(f"conflicting values for {name}: object keys must be unique")


def _finish_tree(obj: dict) -> dict:
    """Plain objects and sets in place of the builders."""
    for k, v in obj.items():
        t = type(v)
        if t is _Branch:
            obj[k] = _finish_tree(dict(v))
        elif t is _Members:
            obj[k] = RegoSet._from_dict(dict(v))
    return obj


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


# ---------------------------------------------------------------------------------------------
# Running generated code
# ---------------------------------------------------------------------------------------------


class ModuleInfo:
    """What a compiled policy set keeps of a module (for provenance and tools): its file name,
    package, ``# METADATA`` pairs and rules (each with ``kind`` and ``ref``)."""

    __slots__ = ("filename", "package", "metadata", "rules")

    def __init__(self, filename: str, package: tuple, metadata: tuple, rules: tuple) -> None:
        self.filename = filename
        self.package = package
        self.metadata = metadata
        self.rules = tuple(RuleInfo(kind, ref) for kind, ref in rules)

    @classmethod
    def of(cls, module: Any) -> ModuleInfo:
        """The summary of an ``ast.Module``."""
        rules = [(r.kind, r.ref) for r in module.rules]
        return cls(module.filename, module.package, module.metadata, rules)

    def encode(self) -> tuple:
        return (self.filename, self.package, self.metadata, [(r.kind, r.ref) for r in self.rules])


class RuleInfo:
    __slots__ = ("kind", "ref")

    def __init__(self, kind: str, ref: tuple) -> None:
        self.kind = kind
        self.ref = ref


def run(code: Any, coverage: set | None = None) -> Tree:
    """Execute a compiled policy set's code object → its data tree. ``coverage`` receives the
    ``(filename, line)`` pairs that code compiled with coverage records."""
    namespace = {name: globals()[name] for name in GENERATED_CODE_NAMES}
    namespace["BF"] = BuiltinFuncs()
    namespace["COV"] = coverage
    exec(code, namespace)
    return namespace["T"]


# The names the generated code may use (its whole environment: no builtins beyond Python's).
GENERATED_CODE_NAMES = (
    "UNDEFINED",
    "MISSING",
    "IN_PROGRESS",
    "EvalError",
    "RegoSet",
    "Tree",
    "equal",
    "index",
    "index_path",
    "iter_items",
    "iter_items_unordered",
    "iter_values",
    "iter_values_unordered",
    "membership",
    "membership_kv",
    "obj_get",
    "check_budget",
    "call_builtin",
    "call_once",
    "COUNTED",
    "MAX_OUTPUT",
    "builtin_mock",
    "binop",
    "obj_add",
    "set_add",
    "object_put",
    "tree_put",
    "tree_inner",
    "every",
    "rego_print",
    "with_input",
    "with_data",
    "with_mock",
    "value_mock",
    "function_mock",
    "decimal_value",
    *(f.__name__ for f in BINOPS.values()),
)
