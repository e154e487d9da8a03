"""Compiling terms: each becomes a Python expression evaluating to its value or ``UNDEFINED``
(references, collections, comprehensions, operators, builtin and function calls, some of them
computed inline); a reference that iterates first emits its loops into the function.
"""

from __future__ import annotations

import math
from typing import Any

from hookgate.lang import ast
from hookgate.lang.codegen import CompileError, GeneratedFunction, is_slot
from hookgate.lang.documents import Group, Node
from hookgate.lang.operators import BINOPS
from hookgate.lang.safety import HeadLit, RuleAnalysis, Scope, SlotTerm, is_wild
from hookgate.lang.values import is_decimal

# An expression nesting brackets deeper than this moves to a function (Python's limit is 200).
_MAX_NESTING = 60

# Builtins whose value is fixed for one evaluation (OPA reads the clock once per query).
_ONCE_PER_EVALUATION = frozenset({"time.now_ns"})

# Builtins computed in the generated code itself, without a call, where the operands leave no
# room for an error nor for a result over the output limit (``runtime.MAX_OUTPUT``): name →
# (guard on the operands, expression). Any other operand (or a mocked builtin) takes the call,
# which reports the error or the limit as the builtin does. Each expression is what the builtin
# computes for those operands (tests/test_inline_builtins.py compares them). ``{t}``: a
# temporary the guard sets for the expression, so the builtin's work is done once.
_INLINE = {
    "startswith": (" and type({0}) is str and type({1}) is str", "{0}.startswith({1})"),
    "endswith": (" and type({0}) is str and type({1}) is str", "{0}.endswith({1})"),
    "contains": (" and type({0}) is str and type({1}) is str", "({1} in {0})"),
    "is_string": ("", "(type({0}) is str)"),
    "count": (" and type({0}) in COUNTED", "len({0})"),
    "trim_suffix": (
        " and type({0}) is str and type({1}) is str and len({0}) <= MAX_OUTPUT",
        "{0}.removesuffix({1})",
    ),
    "trim_prefix": (
        " and type({0}) is str and type({1}) is str and len({0}) <= MAX_OUTPUT",
        "{0}.removeprefix({1})",
    ),
    "trim_right": (
        " and type({0}) is str and type({1}) is str and len({0}) <= MAX_OUTPUT",
        "{0}.rstrip({1})",
    ),
    # A string key (an array is a path); a float found is left to the call, which makes an
    # infinite one undefined.
    "object.get": (
        " and type({0}) is dict and type({1}) is str and type({t} := {0}.get({1}, {2})) is not float",
        "{t}",
    ),
    "split": (
        " and type({0}) is str and type({1}) is str and {1} and len({0}) < MAX_OUTPUT",
        "{0}.split({1})",
    ),
    "lower": (" and type({0}) is str and {0}.isascii() and len({0}) <= MAX_OUTPUT", "{0}.lower()"),
    # A list of strings only (the set of their types is {str}), joined within the limit (the
    # delimiter counted once per item: an upper bound of the length).
    "concat": (
        " and type({0}) is str and type({1}) is list and set(map(type, {1})) <= {{str}}"
        " and len({0}) * len({1}) + sum(map(len, {1})) <= MAX_OUTPUT",
        "{0}.join({1})",
    ),
    "array.concat": (
        " and type({0}) is list and type({1}) is list and len({0}) + len({1}) <= MAX_OUTPUT",
        "{0} + {1}",
    ),
}
# The comparisons whose operator function (operators.op_lt, …) compares two strings or two
# ints with Python's operator of the same spelling (``_cmp_fast``).
_ORDERS = frozenset({"<", "<=", ">", ">="})

# Builtins whose answer is not a function of their arguments alone (besides those that read
# the machine, ``reads_host``): a rule calling one is evaluated for every decision.
_UNSTABLE = frozenset({"time.now_ns", "uuid.rfc4122"})


def _reads_outside(b: Any) -> bool:
    """Whether builtin ``b``'s answer depends on more than its arguments."""
    return b.name in _UNSTABLE or b.reads_host


def _lit(value: Any) -> str:
    """Python source for a scalar value."""
    if type(value) is float and not math.isfinite(value):
        return f"float({str(value)!r})"
    if is_decimal(value):
        return f"decimal_value({str(value)!r})"
    return repr(value)


class TermCompiler(RuleAnalysis):
    """Terms of a rule. A comprehension's body compiles with ``self.body`` and a pattern in a
    reference with ``self.match`` (``RuleCompiler``, ``LiteralCompiler``): bodies hold terms and
    terms hold bodies."""

    def term(self, t: Any, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        """A Python expression for the value of ``t`` (or UNDEFINED); iterating parts emit
        their loops into ``fn`` first."""
        expr = self._term(t, scope, fn, bound)
        if _nesting(expr) <= _MAX_NESTING:
            return expr
        # Python refuses deeply nested brackets: a function of its own starts again at zero.
        params = "ctx, fr" if fn.ctx == "ctx" else f"ctx, fr, {fn.ctx}"
        return f"{self._fn('x', params, '').finish(f'return {expr}')}({params})"

    def _term(self, t: Any, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        if isinstance(t, ast.Scalar):
            return _lit(t.value)
        if isinstance(t, SlotTerm):
            return f"fr[{t.slot}]"
        if isinstance(t, ast.Var):
            return self._var(t, scope, bound, fn)
        if isinstance(t, ast.Ref):
            return self._ref(t, scope, fn, bound)
        if isinstance(t, ast.ArrayTerm):
            items = [self.term(x, scope, fn, bound) for x in t.items]
            return _all_defined(fn, t.items, items, lambda vs: f"[{', '.join(vs)}]")
        if isinstance(t, ast.SetTerm):
            if t.items and all(isinstance(x, ast.Scalar) for x in t.items):
                # Immutable and the same in every evaluation: built once, with the module.
                return self.module.constant(
                    f"RegoSet([{', '.join(_lit(x.value) for x in t.items)}])"
                )
            items = [self.term(x, scope, fn, bound) for x in t.items]
            return _all_defined(fn, t.items, items, lambda vs: f"RegoSet([{', '.join(vs)}])")
        if isinstance(t, ast.ObjectTerm):
            pairs = [
                (self.term(k, scope, fn, bound), self.term(v, scope, fn, bound)) for k, v in t.items
            ]
            if not pairs:
                return "{}"
            keys = [k.value for k, _ in t.items if isinstance(k, ast.Scalar)]
            if len(keys) == len(pairs) and all(type(k) is str for k in keys):
                if len(set(keys)) == len(keys):
                    # Distinct string keys ({"reason": msg, "pattern": p}): a dict display, no
                    # call per key; still undefined when a value is (a constant or a bound
                    # variable never is).
                    def display(vs: list[str]) -> str:
                        shown = ", ".join(f"{k!r}: {x}" for k, x in zip(keys, vs, strict=True))
                        return f"{{{shown}}}"

                    values = [v for _, v in pairs]
                    return _all_defined(fn, tuple(v for _, v in t.items), values, display)
            o = fn.temp()
            adds = [f"obj_add({o}, {k}, {v})" for k, v in pairs]
            adds[0] = f"obj_add(({o} := {{}}), {pairs[0][0]}, {pairs[0][1]})"
            return f"(UNDEFINED if {' or '.join(adds)} else {o})"
        if isinstance(t, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
            return self._compr(t, scope, bound, fn)
        if isinstance(t, ast.Call):
            return self._call(t, scope, fn, bound)
        if isinstance(t, ast.BinOp):
            return self._binop(t, scope, fn, bound)
        if isinstance(t, ast.Membership):
            strings = _literal_strings(t.collection)
            if t.key is None and strings is not None:
                # x in {"a", "b"}: only a string equals a string, so a frozenset answers.
                val = self.term(t.value, scope, fn, bound)
                v = fn.temp()
                members = self.module.constant(f"frozenset({strings!r})")
                return f"(UNDEFINED if ({v} := {val}) is UNDEFINED else (type({v}) is str and {v} in {members}))"
            coll = self.term(t.collection, scope, fn, bound)
            val = self.term(t.value, scope, fn, bound)
            c, v = fn.temp(), fn.temp()
            if t.key is None:
                # A string in a list or set, the usual case, without the call: only a string
                # equals a string, and a set keeps a string as its own key (membership).
                k = fn.temp()
                found = (
                    f"({v} in ({c}._d if {k} is RegoSet else {c}) if type({v}) is str "
                    f"and (({k} := type({c})) is list or {k} is RegoSet) else membership({v}, {c}))"
                )
                return (
                    f"(UNDEFINED if (({c} := {coll}), ({v} := {val}))[0] is UNDEFINED "
                    f"or {v} is UNDEFINED else {found})"
                )
            key = self.term(t.key, scope, fn, bound)
            k = fn.temp()
            return (
                f"(UNDEFINED if (({c} := {coll}), ({k} := {key}), ({v} := {val}))[0] is UNDEFINED "
                f"or {v} is UNDEFINED or {k} is UNDEFINED else membership_kv({k}, {v}, {c}))"
            )
        if isinstance(t, ast.UnaryMinus):
            raise CompileError("unsupported: unary minus on a non-number", t.loc)
        if isinstance(t, ast.Assign | ast.Unify):
            raise CompileError("unsupported: assignment or unification inside an expression", t.loc)
        raise CompileError(f"unsupported: term {type(t).__name__}", t.loc)

    def _var(self, v: ast.Var, scope: Scope, bound: set, fn: GeneratedFunction) -> str:
        if is_wild(v):
            raise CompileError("var _ is unsafe (a wildcard has no value here)", v.loc)
        slot = scope.lookup(v.name)
        if slot is not None:
            if v.name not in bound:
                raise CompileError(f"var {v.name} is unsafe", v.loc)
            return f"fr[{slot}]"
        root = self.env.resolve_global(v.name)
        if root is None:
            raise CompileError(f"var {v.name} is unsafe", v.loc)
        return self._global(root, v.loc, fn)

    def _global(self, path: tuple, loc: ast.Loc, fn: GeneratedFunction) -> str:
        """An expression for an absolute constant path (``("input", …)``/``("data", …)``)."""
        ctx = fn.ctx
        if path[0] == "input":
            self._reads("input")
            rest = path[1:]
            if not rest:
                return f"{ctx}.input"
            if len(rest) == 1:
                i = fn.temp()
                k = _lit(rest[0])
                return (
                    f"({i}.get({k}, UNDEFINED) if type({i} := {ctx}.input) is dict "
                    f"else index({i}, {k}))"
                )
            return _path(f"{ctx}.input", rest, fn)
        dpath = path[1:]
        overridden = f"T.data_value({ctx}, {dpath!r}) if {ctx}.data_over else"
        node, i = self.program.find(dpath)
        if node.group is not None:
            group = node.group
            self.program.deps[self.group].add(group)
            if group.kind == "function" and group.arity != 0:
                raise CompileError(f"function {group.name} must be called with arguments", loc)
            rest = dpath[i:]
            name, t = self.module.group(group), fn.temp()
            # The value cached earlier in this evaluation, without a call (Group.value computes
            # it the first time, and reports recursion: a value missing reads as in progress,
            # one test for both).
            value = (
                f"({t} if ({t} := {ctx}.cache.get({name}, IN_PROGRESS)) is not IN_PROGRESS "
                f"else {name}.value({ctx}))"
            )
            if len(rest) == 1 and type(rest[0]) is str:  # cfg.x: a key of an object, no call
                v = fn.temp()
                value = (
                    f"({v}.get({rest[0]!r}, UNDEFINED) if type({v} := {value}) is dict "
                    f"else index({v}, {rest[0]!r}))"
                )
            elif rest:
                value = _path(value, rest, fn)
            return f"({overridden} {value})"
        if i < len(dpath) or not node.has_rules():
            return f"({overridden} index_path({ctx}.data, {dpath!r}))"
        self.program.deps[self.group].update(_groups_under(node))
        return f"({overridden} T.node_value({ctx}, {self.module.node(node.path)}))"

    def _ref(self, r: ast.Ref, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        # The longest constant prefix of a global reference is resolved at compile time.
        head = r.head
        elems = list(r.path)
        if isinstance(head, ast.Var) and not is_wild(head) and scope.lookup(head.name) is None:
            root = self.env.resolve_global(head.name)
            if root is None:
                raise CompileError(f"var {head.name} is unsafe", head.loc)
            consts = []
            while elems and isinstance(elems[0], ast.Scalar):
                consts.append(elems.pop(0).value)
            base = self._global((*root, *consts), r.loc, fn)
        else:
            base = self.term(head, scope, fn, bound)
        if not elems:
            return base
        keys: list = []
        iterating = False
        for el in elems:
            if isinstance(el, ast.Var) and (
                is_wild(el) or (scope.lookup(el.name) is not None and el.name not in bound)
            ):
                slot = scope.new_slot() if is_wild(el) else scope.lookup(el.name)
                if not is_wild(el):
                    bound.add(el.name)
                keys.append(("iter", slot))
                iterating = True
            elif isinstance(el, ast.ArrayTerm | ast.ObjectTerm) and not self._evaluable(
                el, scope, bound
            ):
                keys.append(("match", el))
                iterating = True
            else:
                keys.append(("key", self.term(el, scope, fn, bound), isinstance(el, ast.Scalar)))
        if not iterating:
            if is_slot(base) and len(keys) == 1 and keys[0][2] and type(r.path[-1].value) is str:
                # A field of a bound variable (x.name): the slot is never undefined.
                key = keys[0][1]
                return f"({base}.get({key}, UNDEFINED) if type({base}) is dict else index({base}, {key}))"
            v = fn.temp()
            conds = [f"({v} := {base}) is UNDEFINED"]
            for n, (_, key, const) in enumerate(keys):
                if not const:
                    k = fn.temp()
                    conds.append(f"({k} := {key}) is UNDEFINED")
                    key = k
                if n < len(keys) - 1:
                    conds.append(f"({v} := {_indexed(v, key, const, elems[n])}) is UNDEFINED")
            final = _indexed(v, key, keys[-1][2], r.path[-1])
            return f"(UNDEFINED if {' or '.join(conds)} else {final})"
        out_slot = scope.new_slot()
        items = "iter_items" if self.ordered else "iter_items_unordered"
        v = fn.temp()
        fn.fail(f"({v} := {base}) is UNDEFINED")
        for n, key in enumerate(keys):
            if key[0] == "key":
                k = key[1]
                if not key[2]:
                    k = fn.temp()
                    fn.fail(f"({k} := {key[1]}) is UNDEFINED")
                fn.fail(f"({v} := {_indexed(v, k, key[2], elems[n])}) is UNDEFINED")
            elif key[0] == "match":
                k, item = fn.temp(), fn.temp()
                fn.loop(f"{k}, {item} in {items}({v})")
                self.match(key[1], k, scope, bound, fn)
                v = item
            else:
                item = fn.temp()
                fn.loop(f"fr[{key[1]}], {item} in {items}({v})")
                v = item
        fn.emit(f"fr[{out_slot}] = {v}")
        return f"fr[{out_slot}]"

    def _compr(self, t: Any, scope: Scope, bound: set, fn: GeneratedFunction) -> str:
        """A comprehension is a function ``(ctx, fr) -> value`` of its own."""
        inner = Scope(scope, scope.alloc)
        if isinstance(t, ast.ObjectCompr):
            k_slot, v_slot = inner.new_slot(), inner.new_slot()
            tail = [HeadLit(t.key, k_slot), HeadLit(t.value, v_slot)]
            init, add, result = "{}", f"object_put(acc, fr[{k_slot}], fr[{v_slot}], None)", "acc"
        else:
            slot = inner.new_slot()
            tail = [HeadLit(t.term, slot)]
            if isinstance(t, ast.ArrayCompr):
                init, add, result = "[]", f"acc.append(fr[{slot}])", "acc"
            else:
                init, add, result = "{}", f"set_add(acc, fr[{slot}])", "RegoSet._from_dict(acc)"
        body = self._fn("c", "ctx, fr", f"return {result}")
        body.prologue = [f"acc = {init}"]
        outer_ordered = self.ordered
        # An array's elements come in the order the body finds them.
        self.ordered = outer_ordered or isinstance(t, ast.ArrayCompr)
        try:
            self.body(
                list(t.body), inner, body, lambda fn: fn.emit(add), tail=tail, bound=set(bound)
            )
        finally:
            self.ordered = outer_ordered
        return f"{body.finish(f'return {result}')}({fn.ctx}, fr)"

    def _binop(self, t: ast.BinOp, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        left = self.term(t.left, scope, fn, bound)
        right = self.term(t.right, scope, fn, bound)
        op = BINOPS.get(t.op)
        if op is None:
            raise CompileError(f"unsupported: operator {t.op}", t.loc)
        where = f"{self.file}, {t.loc.line}, {t.loc.col}"

        def value(vs: list[str]) -> str:
            a, b = vs
            if t.op in ("==", "!="):
                # Against a literal, what equal(x, literal) comes to, without the call (op_ne:
                # not equal(a, b), which raises nothing).
                if isinstance(t.right, ast.Scalar):
                    return _equal_literal(a, t.right.value, b, t.op == "!=")
                if isinstance(t.left, ast.Scalar):
                    return _equal_literal(b, t.left.value, a, t.op == "!=")
            if t.op == "==":
                return f"({a} == {b} if type({a}) is str and type({b}) is str else equal({a}, {b}))"
            if t.op == "!=":
                return f"({a} != {b} if type({a}) is str and type({b}) is str else not equal({a}, {b}))"
            call = f"binop({op.__name__}, {a}, {b}, {fn.ctx}, {where})"
            if t.op in _ORDERS:  # two strings or two ints compare as Python compares them
                same = f"type({a}) is type({b}) and (type({a}) is str or type({a}) is int)"
                return f"({a} {t.op} {b} if {same} else {call})"
            return call

        return _all_defined(fn, (t.left, t.right), [left, right], value)

    def _call(self, t: ast.Call, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        if t.name == "print":
            return self._print(t, scope, bound, fn)
        kind, target = self.resolve_call(t.name, t.loc)
        arity = target.arity
        if arity >= 0 and len(t.args) != arity:
            word = "argument" if arity == 1 else "arguments"
            raise CompileError(f"`{t.name}` expects {arity} {word}, got {len(t.args)}", t.loc)
        if kind != "function" and target.name == "concat" and _literal_join(t.args):
            return self._concat_items(t, scope, fn, bound)
        args = [self.term(a, scope, fn, bound) for a in t.args]
        if kind == "function":
            self.program.deps[self.group].add(target)
            group = self.module.group(target)
            return _all_defined(
                fn, t.args, args, lambda vs: f"{group}.call({fn.ctx}, [{', '.join(vs)}])"
            )
        name = target.name
        if name == "walk":
            raise CompileError("unsupported: walk without an output argument", t.loc)
        if _reads_outside(target):
            self._reads(name)
        where = f"{self.file}, {t.loc.line}, {t.loc.col}"
        if name in _ONCE_PER_EVALUATION:
            return f"call_once({name!r}, BF[{name!r}], {fn.ctx}, {where})"

        def build(vs: list[str]) -> str:
            call = f"call_builtin({name!r}, BF[{name!r}], [{', '.join(vs)}], {fn.ctx}, {where})"
            inline = _INLINE.get(name)
            if inline is None:
                return call
            guard, fast = inline
            for i, arg in enumerate(t.args):
                if isinstance(arg, ast.Scalar) and type(arg.value) is str:
                    # A literal string operand (object.get's key, startswith's prefix): its
                    # type is known here, not tested on every call.
                    guard = guard.replace(f" and type({{{i}}}) is str", "")
            operands = [f"({v})" for v in vs]  # (1).isascii(): a literal operand
            temp = fn.temp() if "{t}" in guard else None
            test = f"{fn.ctx}.mocks is None{guard.format(*operands, t=temp)}"
            return f"({fast.format(*operands, t=temp)} if {test} else {call})"

        return _all_defined(fn, t.args, args, build)

    def _concat_items(self, t: ast.Call, scope: Scope, fn: GeneratedFunction, bound: set) -> str:
        """``concat`` of a literal delimiter and an array written out (``concat("", [dir,
        "/"])``, the pack's way of building paths): the strings added, without the array, its
        types' set and its lengths' sum that ``_INLINE``'s concat computes for any list. Any
        other item (or a mock) takes the call with the array, as ``_call`` makes it."""
        delim, items = t.args[0].value, t.args[1].items
        values = [self.term(x, scope, fn, bound) for x in items]
        where = f"{self.file}, {t.loc.line}, {t.loc.col}"

        def build(vs: list[str]) -> str:
            call = f"call_builtin('concat', BF['concat'], [{delim!r}, [{', '.join(vs)}]], {fn.ctx}, {where})"
            test = [f"{fn.ctx}.mocks is None"]
            # (the bound of _INLINE's concat: the delimiter counted once per item)
            size = [str(len(delim) * len(vs))]
            for item, v in zip(items, vs, strict=True):
                if isinstance(item, ast.Scalar) and type(item.value) is str:
                    size[0] = str(int(size[0]) + len(item.value))
                else:
                    test.append(f"type({v}) is str")
                    size.append(f"len({v})")
            joined = (
                f" + {delim!r} + ".join(f"({v})" for v in vs)
                if delim
                else " + ".join(f"({v})" for v in vs)
            )
            test.append(f"{' + '.join(size)} <= MAX_OUTPUT")
            return f"({joined} if {' and '.join(test)} else {call})"

        return _all_defined(fn, items, values, build)

    def _print(self, t: ast.Call, scope: Scope, bound: set, fn: GeneratedFunction) -> str:
        self._reads("print")
        mark = len(fn.lines)
        args = [self.term(a, scope, fn, bound) for a in t.args]
        if len(fn.lines) != mark:
            raise CompileError("unsupported: print of an iterating reference", t.loc)
        ctx = fn.ctx
        return f"(True if {ctx}.prints is None else rego_print({ctx}, [{', '.join(args)}]))"


def _path(value: str, keys: tuple, fn: GeneratedFunction) -> str:
    """``index_path(value, keys)``; a short path of string keys (``input.tool_input.command``)
    as objects' ``get``s without the call (``index`` of anything else, as ``index_path``)."""
    if len(keys) > 3 or any(type(k) is not str for k in keys):
        return f"index_path({value}, {keys!r})"
    for k in keys:
        v = fn.temp()
        value = (
            f"({v}.get({k!r}, UNDEFINED) if type({v} := {value}) is dict else index({v}, {k!r}))"
        )
    return value


def _indexed(v: str, key: str, const: bool, term: Any) -> str:
    """``index(v, key)``; with a constant string key, an object's ``get`` without the call,
    and with a key computed (``key`` then names a temporary: read twice, computed once) the
    same when it is a string (``ops[e.kind]``), the usual key of a table."""
    if const and type(term.value) is str:
        return f"({v}.get({key}, UNDEFINED) if type({v}) is dict else index({v}, {key}))"
    if not const:
        return (
            f"({v}.get({key}, UNDEFINED) if type({v}) is dict and type({key}) is str "
            f"else index({v}, {key}))"
        )
    return f"index({v}, {key})"


def _literal_strings(t: Any) -> list[str] | None:
    """The members of a set or array literal made only of strings (sorted), else None."""
    if not isinstance(t, ast.SetTerm | ast.ArrayTerm) or not t.items:
        return None
    if not all(isinstance(x, ast.Scalar) and type(x.value) is str for x in t.items):
        return None
    return sorted({x.value for x in t.items})


def _groups_under(node: Node) -> list[Group]:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.group is not None:
            out.append(n.group)
        stack.extend(n.children.values())
    return out


def _equal_literal(x: str, literal: Any, source: str, negated: bool) -> str:
    """``equal(x, literal)`` (``not`` it when ``negated``) for the literal written ``source``:
    a string equals only a string, null and the booleans only themselves, an int an int by
    value (a float or a decimal equal to it takes the call)."""
    if type(literal) is str:
        same = f"type({x}) is str and {x} == {source}"
    elif literal is None or type(literal) is bool:
        same = f"{x} is {source}"
    elif type(literal) is int:
        same = f"{x} == {source} if type({x}) is int else equal({x}, {source})"
    else:
        same = f"equal({x}, {source})"
    return f"(not ({same}))" if negated else f"({same})"


def _literal_join(args: tuple) -> bool:
    """``concat``'s operands are a literal string and an array of a few items written out."""
    delim, items = args if len(args) == 2 else (None, None)
    return (
        isinstance(delim, ast.Scalar)
        and type(delim.value) is str
        and isinstance(items, ast.ArrayTerm)
        and 1 <= len(items.items) <= 8
    )


def _all_defined(fn: GeneratedFunction, terms: tuple, values: list[str], build: Any) -> str:
    """An expression evaluating ``values`` in order, UNDEFINED at the first undefined one,
    else ``build(names of the values)`` (constants and bound slots need no test)."""
    conds = []
    names = []
    for term, value in zip(terms, values, strict=True):
        if isinstance(term, ast.Scalar) or is_slot(value):
            names.append(value)
            continue
        v = fn.temp()
        conds.append(f"({v} := {value}) is UNDEFINED")
        names.append(v)
    if not conds:
        return build(names)
    return f"(UNDEFINED if {' or '.join(conds)} else {build(names)})"


def _nesting(expr: str) -> int:
    """How deep ``expr`` nests brackets (string literals skipped)."""
    depth = deepest = 0
    quote = None
    escaped = False
    for ch in expr:
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")]}":
            depth -= 1
        elif ch in "'\"":
            quote = ch
    return deepest
