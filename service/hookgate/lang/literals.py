"""Compiling the literals of a body: expressions, ``not``, ``some … in``, ``every``, ``with``
(replaced input, data, functions and builtins) and unification, which matches a value against
a pattern and binds its variables.
"""

from __future__ import annotations

from typing import Any

from hookgate import builtins
from hookgate.lang import ast
from hookgate.lang.codegen import CompileError, GeneratedFunction
from hookgate.lang.safety import (
    ArgLit,
    HeadLit,
    Scope,
    SlotTerm,
    VarInfo,
    dotted_name,
    is_wild,
    names_used,
)
from hookgate.lang.terms import TermCompiler


class LiteralCompiler(TermCompiler):
    """Literals of a rule body; ``not`` and ``every`` compile their bodies with
    ``self._sub_body`` (``RuleCompiler``)."""

    def literal(self, lit: Any, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        withs = getattr(lit, "withs", ())
        if withs:
            self._with(lit, withs, scope, bound, fn)
        else:
            self._literal(lit, scope, bound, fn)

    def _literal(self, lit: Any, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        if isinstance(lit, ast.SomeDecl):
            return
        if isinstance(lit, ArgLit):
            self.unify(lit.pattern, SlotTerm(lit.slot), scope, bound, lit.pattern.loc, fn)
            return
        if isinstance(lit, HeadLit):
            v = self.term(lit.term, scope, fn, bound)
            # A constant, or an array or object display of values that are all defined (the
            # terms' code tests the others first: "(UNDEFINED if …"), is never undefined.
            display = isinstance(lit.term, ast.ArrayTerm | ast.ObjectTerm) and v[:1] in ("[", "{")
            fn.emit(
                f"fr[{lit.slot}] = "
                f"{v if display or isinstance(lit.term, ast.Scalar) else fn.value(v)}"
            )
            return
        if isinstance(lit, ast.SomeIn):
            self._some_in(lit, scope, bound, fn)
            return
        if isinstance(lit, ast.Every):
            self._every(lit, scope, bound, fn)
            return
        if lit.negated:
            self._not(lit, scope, bound, fn)
            return
        term = lit.term
        if isinstance(term, ast.Assign | ast.Unify):
            walked = self._walk_value(term)
            if walked is not None:  # `[path, value] := walk(x)`: one binding per node
                self._walk(walked, scope, bound, fn)
                return
            self.unify(term.lhs, term.rhs, scope, bound, term.loc, fn)
            return
        if isinstance(term, ast.Call) and self._has_output_arg(term):
            if term.name == "walk":
                self._walk(term, scope, bound, fn)
                return
            call = ast.Call(term.name, term.args[:-1], term.loc)
            self.unify(term.args[-1], call, scope, bound, term.loc, fn)
            return
        v = self.term(term, scope, fn, bound)
        t = fn.temp()
        fn.fail(f"({t} := {v}) is UNDEFINED or {t} is False")

    def _not(self, lit: ast.Expr, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        inner_scope = Scope(scope, scope.alloc)
        inner = ast.Expr(lit.term, lit.loc)
        name = self._sub_body([inner], inner_scope, set(bound))
        fn.fail(f"{name}({fn.ctx}, fr)")

    def _some_in(self, lit: ast.SomeIn, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        coll = self.term(lit.collection, scope, fn, bound)
        c = fn.value(coll)
        value = lit.value
        if lit.key is not None:
            key_slot = scope.new_slot()
            val_slot = scope.new_slot()
            items = "iter_items" if self.ordered else "iter_items_unordered"
            fn.loop(f"fr[{key_slot}], fr[{val_slot}] in {items}({c})")
            self.unify(lit.key, SlotTerm(key_slot), scope, bound, lit.loc, fn)
            self.unify(value, SlotTerm(val_slot), scope, bound, lit.loc, fn)
        else:
            # "some x in xs": only the members, straight into x's slot when x is new here.
            # An array (the usual collection: input arrays, the default pack's commands) is
            # iterated as it is, a set's members (where order does not matter) straight from its
            # storage: no call.
            if self.ordered:
                values = f"({c} if type({c}) is list else iter_values({c}))"
            else:
                values = (
                    f"({c} if type({c}) is list else {c}._d.values() if type({c}) is RegoSet "
                    f"else iter_values_unordered({c}))"
                )
            fresh = isinstance(value, ast.Var) and not is_wild(value) and value.name not in bound
            slot = scope.lookup(value.name) if fresh else None
            if slot is not None:
                bound.add(value.name)
                fn.loop(f"fr[{slot}] in {values}")
            else:
                val_slot = scope.new_slot()
                fn.loop(f"fr[{val_slot}] in {values}")
                self.unify(value, SlotTerm(val_slot), scope, bound, lit.loc, fn)
        _static_some_in_check(lit)

    def glob_some(self, lits: list, i: int, bound: set) -> bool:
        """Whether ``lits[i]`` and ``lits[i + 1]`` are ``some p in xs; glob.match(p, d, v)``
        with nothing else reading ``p``, ``d`` and ``v`` constants or bound variables (their
        evaluation can neither fail nor err), where the number of solutions cannot be seen
        (not in an array comprehension's body, no ``print`` after): then the pair is one
        question, whether some member matches (``runtime.glob_members``)."""
        lit = lits[i]
        if self.ordered or i + 1 >= len(lits) or not isinstance(lit, ast.SomeIn):
            return False
        p = lit.value
        if lit.key is not None or lit.withs or not isinstance(p, ast.Var) or is_wild(p):
            return False
        nxt = lits[i + 1]
        if not isinstance(nxt, ast.Expr) or nxt.negated or nxt.withs:
            return False
        call = nxt.term
        if not isinstance(call, ast.Call) or call.name != "glob.match" or len(call.args) != 3:
            return False
        first = call.args[0]
        if not isinstance(first, ast.Var) or first.name != p.name or p.name in bound:
            return False
        if not all(_settled(a, bound) for a in call.args[1:]):
            return False
        kind, _ = self.resolve_call(call.name, call.loc)
        if kind != "builtin":
            return False
        if any(p.name in names_used(other) for other in lits[:i] + lits[i + 2 :]):
            return False
        return not any(_prints(other) for other in lits[i + 2 :])

    def _glob_some(
        self, lit: ast.SomeIn, nxt: ast.Expr, scope: Scope, bound: set, fn: GeneratedFunction
    ) -> None:
        coll = self.term(lit.collection, scope, fn, bound)
        c = fn.value(coll)
        delims, value = (self.term(a, scope, fn, bound) for a in nxt.term.args[1:])
        loc = nxt.term.loc
        slot = scope.lookup(lit.value.name)
        bound.add(lit.value.name)
        members = f"({c} if type({c}) is list else iter_values_unordered({c}))"
        where = f"{self.file}, {loc.line}, {loc.col}"
        fn.loop(f"fr[{slot}] in glob_members({fn.ctx}, {members}, {delims}, {value}, {where})")
        _static_some_in_check(lit)

    def _every(self, lit: ast.Every, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        dom = self.term(lit.domain, scope, fn, bound)
        inner_scope = Scope(scope, scope.alloc)
        key_slot = (
            inner_scope.declare(lit.key.name)
            if lit.key and not is_wild(lit.key)
            else scope.new_slot()
        )
        val_slot = (
            inner_scope.declare(lit.value.name) if not is_wild(lit.value) else scope.new_slot()
        )
        inner_bound = set(bound)
        if lit.key and not is_wild(lit.key):
            inner_bound.add(lit.key.name)
        if not is_wild(lit.value):
            inner_bound.add(lit.value.name)
        name = self._sub_body(list(lit.body), inner_scope, inner_bound, "e")
        d = fn.temp()
        fn.fail(
            f"({d} := {dom}) is UNDEFINED or "
            f"not every({fn.ctx}, fr, {d}, {key_slot}, {val_slot}, {name})"
        )

    def _walk_value(self, term: ast.Assign | ast.Unify) -> ast.Call | None:
        """``out := walk(x)`` / ``out = walk(x)`` (either side) as ``walk(x, out)``."""
        sides = [(term.lhs, term.rhs)]
        if isinstance(term, ast.Unify):
            sides.append((term.rhs, term.lhs))
        for out, call in sides:
            if (
                isinstance(call, ast.Call)
                and call.name == "walk"
                and len(call.args) == 1
                and self.resolve_call("walk", call.loc)[0] != "function"
            ):
                return ast.Call("walk", (call.args[0], out), call.loc)
        return None

    def _walk(self, call: ast.Call, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        src = self.term(call.args[0], scope, fn, bound)
        slot = scope.new_slot()
        fn.loop(f"fr[{slot}] in BF['walk']({fn.value(src)})")
        self.unify(call.args[1], SlotTerm(slot), scope, bound, call.loc, fn)

    def _with(
        self, lit: Any, withs: tuple, scope: Scope, bound: set, fn: GeneratedFunction
    ) -> None:
        self._reads("with")
        mods = [self._with_mod(w, scope, bound, fn) for w in withs]
        # The literal runs in a modified context, what follows it in the original one.
        outer = fn.ctx
        c2 = fn.temp()
        fn.emit(f"{c2} = {outer}.derive()")
        for emit_mod in mods:
            emit_mod(c2)
        fn.ctx = c2
        self._literal(_strip_withs(lit), scope, bound, fn)
        fn.ctx = outer

    def _with_mod(self, w: ast.With, scope: Scope, bound: set, fn: GeneratedFunction) -> Any:
        """Analyse one ``with``; returns ``emit(c2)`` writing the change to context ``c2``."""
        target = w.target
        head = target.head if isinstance(target, ast.Ref) else target
        elems = target.path if isinstance(target, ast.Ref) else ()
        if not isinstance(head, ast.Var):
            raise CompileError("unsupported: with target", w.loc)
        keys = []
        for e in elems:
            if not (isinstance(e, ast.Scalar) and type(e.value) is str):
                raise CompileError("unsupported: with target with a non-constant path", e.loc)
            keys.append(e.value)
        dotted = ".".join([head.name, *keys])
        root = self.env.resolve_global(head.name) if not self._is_local(head.name, scope) else None
        value_term = w.value
        # A replacement naming a function or builtin replaces calls; anything else is a value.
        repl_fn = self._function_ref(value_term, scope)
        value = None
        if repl_fn is None and dotted_name(value_term) in builtins.opa_builtins():
            raise CompileError(f"unsupported: builtin {dotted_name(value_term)}", value_term.loc)
        if repl_fn is None:
            mark = len(fn.lines)
            value = self.term(value_term, scope, fn, bound)
            if len(fn.lines) != mark:
                raise CompileError("unsupported: with value that iterates", value_term.loc)

        def change(make: Any) -> Any:
            """``emit(c2)`` evaluating the value, then the statement ``make(c2, value)``."""

            def emit(c2: str) -> None:
                fn.emit(make(c2, fn.value(value)))

            return emit

        if root is not None:
            path = (*root, *keys)
            if path[0] == "input":
                if repl_fn is not None:
                    raise CompileError("unsupported: with input as a function", value_term.loc)
                return change(lambda c2, v: f"with_input({c2}, {path[1:]!r}, {v})")
            dpath = path[1:]
            node, i = self.program.find(dpath)
            if node.group is not None and node.group.kind == "function" and i == len(dpath):
                return self._mock(node.group.name, repl_fn, change, fn)
            if repl_fn is not None:
                raise CompileError("unsupported: with a data path as a function", value_term.loc)
            return change(lambda c2, v: f"with_data({c2}, {dpath!r}, {v})")
        if builtins.get(dotted) is not None:
            return self._mock(dotted, repl_fn, change, fn)
        raise CompileError(f"unsupported: with target {dotted}", w.loc)

    def _mock(self, key: str, repl_fn: str | None, change: Any, fn: GeneratedFunction) -> Any:
        if repl_fn is not None:
            return lambda c2: fn.emit(f"with_mock({c2}, {key!r}, {repl_fn})")
        return change(lambda c2, v: f"with_mock({c2}, {key!r}, value_mock({v}))")

    def _function_ref(self, term: Any, scope: Scope) -> str | None:
        """If ``term`` names a function or builtin, an expression for a callable
        ``(ctx, args) -> value``."""
        name = dotted_name(term)
        if name is None or self._is_local(name.split(".")[0], scope):
            return None
        try:
            kind, target = self.resolve_call(name, term.loc)
        except CompileError:
            return None
        if kind == "function":
            self.program.deps[self.group].add(target)
            return f"function_mock({self.module.group(target)}.call)"
        return f"builtin_mock(BF, {target.name!r}, {self.file}, {term.loc.line}, {term.loc.col})"

    def unify(
        self, lhs: Any, rhs: Any, scope: Scope, bound: set, loc: ast.Loc, fn: GeneratedFunction
    ) -> None:
        for a, b in _decompose(lhs, rhs, loc):
            self._unify_one(a, b, scope, bound, loc, fn)

    def _unify_one(
        self, a: Any, b: Any, scope: Scope, bound: set, loc: ast.Loc, fn: GeneratedFunction
    ) -> None:
        if isinstance(b, ast.Var) and is_wild(b):  # `x = _`: x must be defined, no more
            a, b = b, a
        # Iterating refs are expanded first (they bind their own variables): `data.a[x] = 1`
        # iterates the left side and compares, as `1 = data.a[x]` does.
        if self._iterates(a, scope, bound) and self._evaluable(b, scope, bound):
            a, b = b, a
        if self._evaluable_after_refs(b, scope, bound):
            value = self.term(b, scope, fn, bound)
            pattern = a
        elif self._evaluable_after_refs(a, scope, bound):
            value = self.term(a, scope, fn, bound)
            pattern = b
        else:
            info = VarInfo()
            self.vars_of(a, scope, info, "pattern")
            self.vars_of(b, scope, info, "pattern")
            name, vloc = next(iter({**info.plain, **info.pattern}.items()), ("?", loc))
            raise CompileError(f"var {name} is unsafe", vloc)
        self.match(pattern, fn.value(value), scope, bound, fn)

    def _iterates(self, term: Any, scope: Scope, bound: set) -> bool:
        """Whether ``term`` holds a reference whose unbound variables it binds by iterating."""
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        return any(n not in bound for n in info.refout)

    def _evaluable_after_refs(self, term: Any, scope: Scope, bound: set) -> bool:
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        refout = set(info.refout)
        return all(n in bound or n in refout for n in {**info.plain, **info.pattern})

    def match(self, pattern: Any, v: str, scope: Scope, bound: set, fn: GeneratedFunction) -> None:
        """Emit the matching of the value in the variable ``v`` against ``pattern``, binding
        its unbound variables (a mismatch fails)."""
        if isinstance(pattern, ast.Var):
            if is_wild(pattern):
                return
            slot = scope.lookup(pattern.name)
            if slot is not None and pattern.name not in bound:
                bound.add(pattern.name)
                fn.emit(f"fr[{slot}] = {v}")
                return
        if isinstance(pattern, ast.ArrayTerm) and not self._evaluable(pattern, scope, bound):
            fn.fail(f"type({v}) is not list or len({v}) != {len(pattern.items)}")
            for i, item in enumerate(pattern.items):
                x = fn.temp()
                fn.emit(f"{x} = {v}[{i}]")
                self.match(item, x, scope, bound, fn)
            return
        if isinstance(pattern, ast.ObjectTerm) and not self._evaluable(pattern, scope, bound):
            keys = []
            for k, _ in pattern.items:
                if not self._evaluable(k, scope, bound):
                    raise CompileError("unsupported: a variable object key in a pattern", k.loc)
                mark = len(fn.lines)
                keys.append(self.term(k, scope, fn, bound))
                if len(fn.lines) != mark:
                    raise CompileError("unsupported: an iterating object key in a pattern", k.loc)
            fn.fail(f"type({v}) is not dict or len({v}) != {len(pattern.items)}")
            for key, (_, item) in zip(keys, pattern.items, strict=True):
                x = fn.temp()
                fn.fail(f"({x} := obj_get({v}, {key})) is UNDEFINED")
                self.match(item, x, scope, bound, fn)
            return
        mark = len(fn.lines)
        value = self.term(pattern, scope, fn, bound)
        if len(fn.lines) != mark:
            raise CompileError("unsupported: an iterating reference inside a pattern", pattern.loc)
        w = fn.temp()
        fn.fail(f"({w} := {value}) is UNDEFINED or not equal({w}, {v})")


def _settled(t: Any, bound: set) -> bool:
    """A constant, or made of variables already bound: its value is there without a test."""
    if isinstance(t, ast.Scalar):
        return True
    if isinstance(t, ast.Var):
        return not is_wild(t) and t.name in bound
    if isinstance(t, ast.ArrayTerm):
        return all(_settled(x, bound) for x in t.items)
    return False


def _prints(node: Any) -> bool:
    """Whether ``node`` (a literal, a term) calls ``print`` anywhere, closures included."""
    if isinstance(node, HeadLit | ArgLit):
        return _prints(node.term if isinstance(node, HeadLit) else node.pattern)
    if isinstance(node, tuple | list):
        return any(_prints(x) for x in node)
    if not isinstance(node, ast.Node):
        return False
    if isinstance(node, ast.Call) and node.name == "print":
        return True
    return any(_prints(v) for _, v in ast.fields(node))


def _strip_withs(lit: Any) -> Any:
    if isinstance(lit, ast.Expr):
        return ast.Expr(lit.term, lit.loc, lit.negated, ())
    if isinstance(lit, ast.SomeIn):
        return ast.SomeIn(lit.key, lit.value, lit.collection, lit.loc, ())
    if isinstance(lit, ast.Every):
        return ast.Every(lit.key, lit.value, lit.domain, lit.body, lit.loc, ())
    return lit


def _decompose(lhs: Any, rhs: Any, loc: ast.Loc) -> list[tuple[Any, Any]]:
    """Split ``[a, b] = [c, d]`` into element pairs; refuse shapes that can never unify (OPA
    reports them as type errors)."""
    if isinstance(lhs, ast.ArrayTerm) and isinstance(rhs, ast.ArrayTerm):
        if len(lhs.items) != len(rhs.items):
            raise CompileError(
                f"match error: mismatch in number of array elements ({len(lhs.items)} and "
                f"{len(rhs.items)})",
                loc,
            )
        out = []
        for a, b in zip(lhs.items, rhs.items, strict=True):
            out.extend(_decompose(a, b, loc))
        return out
    if isinstance(lhs, ast.ObjectTerm) and isinstance(rhs, ast.ObjectTerm):
        lk = [k.value for k, _ in lhs.items if isinstance(k, ast.Scalar)]
        rk = [k.value for k, _ in rhs.items if isinstance(k, ast.Scalar)]
        if len(lk) == len(lhs.items) and len(rk) == len(rhs.items):
            if sorted(map(repr, lk)) != sorted(map(repr, rk)):
                raise CompileError("match error: object keys do not match", loc)
            rmap = {repr(k.value): v for k, v in rhs.items}
            out = []
            for k, v in lhs.items:
                out.extend(_decompose(v, rmap[repr(k.value)], loc))
            return out
    kinds = (ast.ArrayTerm, ast.ObjectTerm, ast.SetTerm, ast.Scalar)
    if isinstance(lhs, kinds) and isinstance(rhs, kinds) and type(lhs) is not type(rhs):
        if not (isinstance(lhs, ast.Scalar) and isinstance(rhs, ast.Scalar)):
            raise CompileError("match error: the two sides can never unify", loc)
    return [(lhs, rhs)]


def split_unifications(literals: list) -> list:
    """``[a, b] = [c, d]`` becomes ``a = c`` and ``b = d`` so each part is ordered on its own."""
    out = []
    for lit in literals:
        term = lit.term if isinstance(lit, ast.Expr) else None
        if (
            isinstance(term, ast.Assign | ast.Unify)
            and not lit.negated
            and not lit.withs
            and isinstance(term.lhs, ast.ArrayTerm | ast.ObjectTerm)
            and isinstance(term.rhs, ast.ArrayTerm | ast.ObjectTerm)
        ):
            for a, b in _decompose(term.lhs, term.rhs, term.loc):
                out.append(ast.Expr(ast.Unify(a, b, term.loc), lit.loc))
        else:
            out.append(lit)
    return out


def _static_some_in_check(lit: ast.SomeIn) -> None:
    """A literal collection none of whose items can match the pattern is an error; items
    that cannot match are otherwise just skipped, as in OPA (``some {"k": x} in xs``)."""
    coll = lit.collection
    if isinstance(coll, ast.ArrayTerm | ast.SetTerm) and coll.items:
        problem = None
        for item in coll.items:
            try:
                _decompose(lit.value, item, lit.loc)
            except CompileError as exc:
                problem = exc
            else:
                return
        if problem is not None:
            raise problem
