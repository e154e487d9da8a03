"""Checked modules → closures, evaluated like OPA's top-down evaluator.

Every rule body becomes a chain of *steps*: ``step(ctx, frame) -> bool``. A step does its work
(binds variables in ``frame`` slots, tests a condition, iterates a collection) and calls the next
step once per solution; the last step is the body's terminal, which records the solution. A step
returns True to stop the whole search (e.g. ``not`` needs one solution only). Variables get
frame slots at compile time, and the order of the literals is fixed at compile time (OPA's
safety reordering), so whether a variable is bound is known statically: nothing is undone on
backtracking, a later solution simply overwrites the slots.

Terms that yield one value compile to *value functions* ``vf(ctx, frame) -> value | UNDEFINED``;
terms that iterate (``x[i]`` with ``i`` unbound, ``walk``) compile to extra steps run before the
literal, binding a hidden slot (OPA rewrites them the same way).

The run-time pieces (``Ctx``, operators, the ``data`` tree of rule groups) are in
``hookgate.lang.runtime``.
"""

from __future__ import annotations

from collections.abc import Callable

from hookgate import builtins
from hookgate.builtins import BuiltinError
from hookgate.lang import ast
from hookgate.lang.errors import Diagnostic, EvalError
from hookgate.lang.runtime import (
    BINOPS,
    MISSING,
    Ctx,
    Group,
    Node,
    builtin_failed,
    call_builtin,
    index,
    index_path,
    iter_items,
    iter_items_unordered,
    membership,
    membership_kv,
    patch_path,
    path_text,
    tick,
)
from hookgate.lang.values import UNDEFINED, RegoSet, dict_key, equal, freeze, obj_get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Step = Callable[[Any, list], bool]
    ValueFn = Callable[[Any, list], Any]


class CompileError(Exception):
    def __init__(self, message: str, loc: ast.Loc, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint


class ModuleEnv:
    """What names mean inside one module: its package, rules and imports."""

    def __init__(self, module: ast.Module, local_rules: set[str]) -> None:
        self.module = module
        self.package = module.package
        self.file = module.filename
        self.imports: dict[str, tuple] = {}
        for imp in module.imports:
            if imp.path[0] in ("future", "rego"):
                continue
            alias = imp.alias or imp.path[-1]
            self.imports[alias] = imp.path
        self.local_rules = local_rules

    def resolve_global(self, name: str) -> tuple | None:
        """The absolute path (``("data", …)``/``("input", …)``) a free name refers to."""
        if name in self.local_rules:
            return ("data", *self.package, name)
        if name in self.imports:
            return self.imports[name]
        if name == "input" or name == "data":
            return (name,)
        return None


# ---------------------------------------------------------------------------------------------
# Variables of terms
# ---------------------------------------------------------------------------------------------


def is_wild(v: ast.Var) -> bool:
    return v.name == "_"


class VarInfo:
    """Occurrences of local variables in a term, by role."""

    __slots__ = ("plain", "pattern", "refout")

    def __init__(self) -> None:
        self.plain: dict[str, ast.Loc] = {}  # must be bound before the term is evaluated
        self.pattern: dict[str, ast.Loc] = {}  # bound by matching (unification patterns)
        self.refout: dict[str, ast.Loc] = {}  # bound by iterating a reference


class Scope:
    """Local variables visible in a body: name → frame slot; ``bound`` tracks, during
    compilation, which are bound at the current point."""

    def __init__(self, parent: Scope | None, alloc: list) -> None:
        self.parent = parent
        self.alloc = alloc  # [next free slot] shared by the whole frame
        self.slots: dict[str, int] = {}

    def lookup(self, name: str) -> int | None:
        s: Scope | None = self
        while s is not None:
            slot = s.slots.get(name)
            if slot is not None:
                return slot
            s = s.parent
        return None

    def declare(self, name: str) -> int:
        slot = self.alloc[0]
        self.alloc[0] += 1
        self.slots[name] = slot
        return slot

    def new_slot(self) -> int:
        slot = self.alloc[0]
        self.alloc[0] += 1
        return slot


# ---------------------------------------------------------------------------------------------
# The compiler
# ---------------------------------------------------------------------------------------------


class Program:
    """A compiled policy set: the data tree with every rule group compiled."""

    def __init__(
        self,
        modules: list[ast.Module],
        *,
        lazy: bool = False,
        coverage: set[tuple[str, int]] | None = None,
    ) -> None:
        """``lazy``: the modules compiled cleanly before (they come from the compile cache), so
        each rule group is compiled when first evaluated instead of all of them now; a hook
        call evaluates a fraction of a policy set's rules. ``coverage``: a set that receives
        ``(filename, line)`` of every rule head entered and body literal evaluated."""
        self.modules = modules
        self.coverage = coverage
        self.root = Node(())
        self.groups: list[Group] = []
        self.diagnostics: list[Diagnostic] = []
        self._collect()
        for group in self.groups:
            group.build()
        if lazy and not self.diagnostics:
            for group in self.groups:
                group.pending = self._compile_group
            return
        for group in self.groups:
            self._compile_group(group)
        if not self.diagnostics:
            self._check_recursion()

    # -- building the tree --------------------------------------------------------------------

    def _error(self, file: str, exc: CompileError) -> None:
        self.diagnostics.append(
            Diagnostic(file, exc.loc.line, exc.loc.col, exc.message, hint=exc.hint)
        )

    def _collect(self) -> None:
        names_by_pkg: dict[tuple, set[str]] = {}
        for m in self.modules:
            names_by_pkg.setdefault(m.package, set()).update(r.ref[0] for r in m.rules)
        for m in self.modules:
            env = ModuleEnv(m, names_by_pkg[m.package])
            node = self.root
            for key in m.package:
                node = node.child(key)
            node.package = True
            for imp in m.imports:
                alias = imp.alias or imp.path[-1]
                if (
                    imp.path[0] in ("data", "input")
                    and alias in env.local_rules
                    and len(imp.path) > 1
                ):
                    self._error(
                        m.filename,
                        CompileError(
                            f"unsupported: import {'.'.join(imp.path)} as {alias} is shadowed by "
                            f"a rule named {alias}",
                            imp.loc,
                        ),
                    )
            for rule in m.rules:
                try:
                    self._add_rule(rule, env)
                except CompileError as exc:
                    self._error(m.filename, exc)

    def _add_rule(self, rule: ast.Rule, env: ModuleEnv) -> None:
        path = (*env.package, *rule.ref)
        node = self.root
        for key in path:
            if node.group is not None:
                raise CompileError(
                    f"rule {path_text(path)} conflicts with rule {node.group.name}", rule.loc
                )
            node = node.child(key)
        if node.children and node.group is None:
            raise CompileError(
                f"rule {path_text(path)} conflicts with the rules under it", rule.loc
            )
        group = node.group
        if group is None:
            group = node.group = Group(rule.kind, path)
            self.groups.append(group)
        elif group.kind != rule.kind:
            raise CompileError(
                f"rule {path_text(path)} is defined as a {_kind_text(group.kind)} and as a "
                f"{_kind_text(rule.kind)}",
                rule.loc,
            )
        if rule.kind == "function":
            if group.arity not in (-1, len(rule.args)):
                raise CompileError(
                    f"function {group.name} is defined with {group.arity} and {len(rule.args)} "
                    "arguments",
                    rule.loc,
                )
            group.arity = len(rule.args)
        if rule.default:
            if group.default is not None:
                raise CompileError(f"multiple default rules {group.name} found", rule.loc)
            group.default = rule
        group.rules.append((rule, env))

    def check_base_data(self, data: Any) -> list[Diagnostic]:
        """Rules whose path also holds base data: refused (OPA reports a conflict too)."""
        out = []
        for group in self.groups:
            d = data
            for key in group.path:
                if type(d) is not dict:
                    d = UNDEFINED
                    break
                d = d.get(key, UNDEFINED)
            if d is not UNDEFINED:
                rule, env = group.rules[0]
                out.append(
                    Diagnostic(
                        env.file,
                        rule.loc.line,
                        rule.loc.col,
                        f"unsupported: rule {group.name} and base data at the same path",
                    )
                )
        return out

    # -- compiling groups ---------------------------------------------------------------------

    def _compile_group(self, group: Group) -> None:
        # The definitions are installed at once, so that a query racing a lazy compile in
        # another thread sees either none or all of them.
        defs = []
        default_def = None
        reported = len(self.diagnostics)
        for rule, env in group.rules:
            try:
                if rule.default:
                    _check_default(rule.value)
                compiled = RuleCompiler(self, env, group).compile_rule(rule)
                if rule.default:
                    default_def = compiled
                else:
                    defs.append(compiled)
            except CompileError as exc:
                self._error(env.file, exc)
        if group.pending is not None and len(self.diagnostics) > reported:
            # Compiling on first use: the modules compiled before, so the code changed under
            # the cache; never evaluate a group with definitions missing.
            d = self.diagnostics[reported]
            raise EvalError(d.message, d.file, d.line, d.col)
        group.defs = defs
        group.default_def = default_def
        group.pending = None

    def _check_recursion(self) -> None:
        state: dict[Group, int] = {}
        stack: list[Group] = []

        def visit(g: Group) -> None:
            state[g] = 1
            stack.append(g)
            for d in g.deps:
                s = state.get(d, 0)
                if s == 1:
                    cycle = stack[stack.index(d) :] + [d]
                    rule, env = g.rules[0]
                    raise _Recursion(env.file, rule.loc, " -> ".join(x.name for x in cycle))
                if s == 0:
                    visit(d)
            stack.pop()
            state[g] = 2

        try:
            for g in self.groups:
                if state.get(g, 0) == 0:
                    visit(g)
        except _Recursion as exc:
            self.diagnostics.append(
                Diagnostic(
                    exc.file,
                    exc.loc.line,
                    exc.loc.col,
                    f"unsupported: recursion (OPA rejects it too): {exc.cycle}",
                )
            )

    # -- data lookups ---------------------------------------------------------------------

    def find(self, path: tuple) -> tuple[Node | None, int]:
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

    # -- queries --------------------------------------------------------------------------

    def ref_query(self, path: tuple) -> Callable[[Ctx], Any]:
        node, i = self.find(path)
        if node.group is not None and node.group.kind == "function" and i == len(path):
            rule, env = node.group.rules[0]
            raise EvalError(
                f"unsupported: querying the function {node.group.name} as a value",
                env.file,
                rule.loc.line,
                rule.loc.col,
            )

        def run(ctx: Ctx) -> Any:
            return self.data_value(ctx, path)

        return run


class _Recursion(Exception):
    def __init__(self, file: str, loc: ast.Loc, cycle: str) -> None:
        super().__init__(cycle)
        self.file = file
        self.loc = loc
        self.cycle = cycle


def _kind_text(kind: str) -> str:
    return {
        "complete": "single-value rule",
        "set": "multi-value (contains) rule",
        "object": "partial object rule",
        "function": "function",
    }[kind]


# ---------------------------------------------------------------------------------------------
# Compiling one rule
# ---------------------------------------------------------------------------------------------


class RuleCompiler:
    def __init__(self, program: Program, env: ModuleEnv, group: Group) -> None:
        self.program = program
        self.env = env
        self.group = group
        # Iteration order is observable only in the array comprehensions (their element
        # order); everywhere else the cheaper storage order gives the same answers.
        self.ordered = False

    # -- entry points -----------------------------------------------------------------

    def compile_rule(self, rule: ast.Rule) -> Callable:
        kind = rule.kind
        if kind == "complete":
            branches = [(rule.body, rule.value, rule.loc)]
            branches += [(e.body, e.value, e.loc) for e in rule.elses]
            compiled = [self._value_branch(body, value, loc, ()) for body, value, loc in branches]
            return _first_defined(compiled)
        if kind == "function":
            branches = [(rule.body, rule.value, rule.loc)]
            branches += [(e.body, e.value, e.loc) for e in rule.elses]
            compiled = [
                self._value_branch(body, value, loc, rule.args) for body, value, loc in branches
            ]
            return _first_defined_fn(compiled)
        if kind == "set":
            return self._set_rule(rule)
        return self._object_rule(rule)

    def _value_branch(
        self, body: tuple, value: ast.Term | None, loc: ast.Loc, params: tuple
    ) -> Callable:
        """One body with its head value: returns a function computing the value (or
        UNDEFINED); with params it takes the call's arguments."""
        scope = Scope(None, [1])
        head = value if value is not None else ast.Scalar(True, loc)
        arg_slots = [scope.new_slot() for _ in params]
        lits = [_ArgLit(p, s) for p, s in zip(params, arg_slots, strict=True)]
        result_slot = scope.new_slot()
        lits += list(body)
        tail = [_HeadLit(head, result_slot)]
        constant = _is_constant(head)
        first_only = constant

        def terminal(ctx: Ctx, fr: list) -> bool:
            acc = fr[0]
            v = fr[result_slot]
            if acc:
                if not equal(acc[0], v):
                    raise EvalError(f"conflicting values for {self.group.name}")
            else:
                acc.append(v)
            return first_only

        chain = self.body(lits, scope, terminal, tail=tail, declared_params=params, head=loc)
        n = scope.alloc[0]
        if params:

            def run_fn(ctx: Ctx, args: list) -> Any:
                fr = [None] * n
                acc: list = []
                fr[0] = acc
                fr[1 : 1 + len(args)] = args
                chain(ctx, fr)
                return acc[0] if acc else UNDEFINED

            return run_fn

        def run(ctx: Ctx) -> Any:
            fr = [None] * n
            acc: list = []
            fr[0] = acc
            chain(ctx, fr)
            return acc[0] if acc else UNDEFINED

        return run

    def _set_rule(self, rule: ast.Rule) -> Callable:
        scope = Scope(None, [1])
        key_slot = scope.new_slot()

        def terminal(ctx: Ctx, fr: list) -> bool:
            v = fr[key_slot]
            t = type(v)
            fr[0][v if (t is str or t is int or t is float or v is None) else freeze(v)] = v
            return False

        chain = self.body(
            list(rule.body), scope, terminal, tail=[_HeadLit(rule.key, key_slot)], head=rule.loc
        )
        n = scope.alloc[0]

        def run(ctx: Ctx, acc: dict) -> None:
            fr = [None] * n
            fr[0] = acc
            chain(ctx, fr)

        return run

    def _object_rule(self, rule: ast.Rule) -> Callable:
        scope = Scope(None, [1])
        key_slot = scope.new_slot()
        val_slot = scope.new_slot()
        value = rule.value if rule.value is not None else ast.Scalar(True, rule.loc)
        name = self.group.name

        def terminal(ctx: Ctx, fr: list) -> bool:
            obj = fr[0]
            k = dict_key(fr[key_slot])
            v = fr[val_slot]
            old = obj.get(k, MISSING)
            if old is MISSING:
                obj[k] = v
            elif not equal(old, v):
                raise EvalError(f"conflicting values for {name}[{k!r}]: object keys must be unique")
            return False

        chain = self.body(
            list(rule.body),
            scope,
            terminal,
            tail=[_HeadLit(rule.key, key_slot), _HeadLit(value, val_slot)],
            head=rule.loc,
        )
        n = scope.alloc[0]

        def run(ctx: Ctx, acc: dict) -> None:
            fr = [None] * n
            fr[0] = acc
            chain(ctx, fr)

        return run

    # -- bodies -----------------------------------------------------------------------

    def body(
        self,
        literals: list,
        scope: Scope,
        terminal: Step,
        *,
        tail: list | None = None,
        bound: set | None = None,
        declared_params: tuple = (),
        head: ast.Loc | None = None,
    ) -> Step:
        """Compile literals (reordered for safety) + ``tail`` (kept last) into one chain.
        ``head``: the rule head (or else) this body belongs to, for coverage."""
        bound = set() if bound is None else bound
        self._declare(literals + (tail or []), scope)
        order = self._reorder(_split_unifications(literals), scope, bound)
        covered = self.program.coverage
        builders = []
        for lit in order + (tail or []):
            build = self.literal(lit, scope, bound)
            if covered is not None and isinstance(lit, ast.Expr | ast.SomeIn | ast.Every):
                build = _recording(build, covered, (self.env.file, lit.loc.line))
            builders.append(build)
        step = terminal
        for b in reversed(builders):
            step = b(step)
        if covered is not None and head is not None:
            step = _recording(lambda nxt: nxt, covered, (self.env.file, head.line))(step)
        return step

    def _declare(self, literals: list, scope: Scope) -> None:
        """Give a slot to every local variable of this body (not of nested closures), and
        refuse redeclarations (``x := 1`` twice, ``some x`` after a use of ``x``)."""
        seen: dict[str, ast.Loc] = {}
        for lit in literals:
            declared: list[ast.Var] = []
            if isinstance(lit, ast.SomeDecl):
                declared = list(lit.vars)
            elif isinstance(lit, _ArgLit):
                declared = _pattern_var_nodes(lit.pattern)
            elif isinstance(lit, ast.SomeIn):
                declared = _pattern_var_nodes(lit.key) + _pattern_var_nodes(lit.value)
            elif isinstance(lit, ast.Expr) and isinstance(lit.term, ast.Assign):
                declared = _pattern_var_nodes(lit.term.lhs)
                if not declared and not lit.negated:
                    raise CompileError(
                        "assignment operator := requires left-hand side to have bindable variables",
                        lit.term.loc,
                    )
            for v in declared:
                if is_wild(v):
                    continue
                if v.name in seen or v.name in scope.slots:
                    raise CompileError(
                        f"var `{v.name}` used before definition below (or declared twice)", v.loc
                    )
                if isinstance(lit, ast.Expr) and lit.negated:
                    continue
                scope.declare(v.name)
                seen[v.name] = v.loc
            for name, loc in _free_names(lit):
                if name in seen:
                    continue
                seen[name] = loc
                if scope.lookup(name) is None and self.env.resolve_global(name) is None:
                    if isinstance(lit, ast.Expr) and lit.negated:
                        continue
                    scope.declare(name)

    def _reorder(self, literals: list, scope: Scope, bound: set) -> list:
        pending = list(literals)
        out = []
        bound = set(bound)
        while pending:
            for i, lit in enumerate(pending):
                missing = self._missing(lit, scope, bound)
                if not missing:
                    out.append(lit)
                    bound |= self._outputs(lit, scope)
                    del pending[i]
                    break
            else:
                first: dict[str, ast.Loc] = {}
                for lit in pending:
                    for name, loc in self._missing(lit, scope, bound).items():
                        if name not in first or (loc.line, loc.col) < (
                            first[name].line,
                            first[name].col,
                        ):
                            first[name] = loc
                name, loc = min(first.items(), key=lambda kv: (kv[1].line, kv[1].col))
                raise CompileError(f"var {name} is unsafe", loc, "bind it before this use")
        return out

    # -- variable analysis --------------------------------------------------------------

    def _is_local(self, name: str, scope: Scope) -> bool:
        return scope.lookup(name) is not None

    def vars_of(self, term: Any, scope: Scope, info: VarInfo, role: str = "plain") -> None:
        """Classify local variable occurrences of ``term``; ``role`` is ``pattern`` for
        positions that unification can bind."""
        if term is None:
            return
        if isinstance(term, ast.Var):
            if is_wild(term) or not self._is_local(term.name, scope):
                return
            getattr(info, role).setdefault(term.name, term.loc)
        elif isinstance(term, ast.Scalar | _SlotTerm):
            return
        elif isinstance(term, ast.Ref):
            self.vars_of(term.head, scope, info, "plain")
            for el in term.path:
                if isinstance(el, ast.Var):
                    if not is_wild(el) and self._is_local(el.name, scope):
                        info.refout.setdefault(el.name, el.loc)
                else:
                    self.vars_of(el, scope, info, "plain")
        elif isinstance(term, ast.ArrayTerm):
            for it in term.items:
                self.vars_of(it, scope, info, role)
        elif isinstance(term, ast.ObjectTerm):
            for k, v in term.items:
                self.vars_of(k, scope, info, "plain")
                self.vars_of(v, scope, info, role)
        elif isinstance(term, ast.SetTerm):
            for it in term.items:
                self.vars_of(it, scope, info, "plain")
        elif isinstance(term, ast.Call):
            for a in term.args:
                self.vars_of(a, scope, info, "plain")
        elif isinstance(term, ast.BinOp):
            self.vars_of(term.left, scope, info, "plain")
            self.vars_of(term.right, scope, info, "plain")
        elif isinstance(term, ast.UnaryMinus):
            self.vars_of(term.term, scope, info, "plain")
        elif isinstance(term, ast.Membership):
            self.vars_of(term.key, scope, info, "plain")
            self.vars_of(term.value, scope, info, "plain")
            self.vars_of(term.collection, scope, info, "plain")
        elif isinstance(term, ast.Assign | ast.Unify):
            self.vars_of(term.lhs, scope, info, "plain")
            self.vars_of(term.rhs, scope, info, "plain")
        elif isinstance(term, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
            for name, loc in _closure_free(term):
                if self._is_local(name, scope):
                    info.plain.setdefault(name, loc)
        else:
            raise CompileError(f"unsupported: term {type(term).__name__}", term.loc)

    def _missing(self, lit: Any, scope: Scope, bound: set) -> dict[str, ast.Loc]:
        """Variables that must be bound before ``lit`` can run and are not yet."""
        need: dict[str, ast.Loc] = {}

        def add_plain(info: VarInfo, allowed: set) -> None:
            for name, loc in info.plain.items():
                if name not in bound and name not in allowed:
                    need.setdefault(name, loc)

        withs = getattr(lit, "withs", ())
        for w in withs:
            info = VarInfo()
            self.vars_of(w.value, scope, info)
            add_plain(info, set())
            for name, loc in {**info.pattern, **info.refout}.items():
                if name not in bound:
                    need.setdefault(name, loc)

        if isinstance(lit, ast.SomeDecl):
            return need
        if isinstance(lit, _ArgLit):
            return need
        if isinstance(lit, ast.SomeIn):
            info = VarInfo()
            self.vars_of(lit.collection, scope, info)
            refout = set(info.refout)
            add_plain(info, refout)
            pinfo = VarInfo()
            self.vars_of(lit.key, scope, pinfo, "pattern")
            self.vars_of(lit.value, scope, pinfo, "pattern")
            add_plain(pinfo, refout | set(pinfo.pattern))
            return need
        if isinstance(lit, ast.Every):
            info = VarInfo()
            self.vars_of(lit.domain, scope, info)
            add_plain(info, set(info.refout))
            for name, loc in _every_free(lit):
                if self._is_local(name, scope) and name not in bound:
                    need.setdefault(name, loc)
            return need
        term = lit.term
        negated = lit.negated
        if negated:
            info = VarInfo()
            self.vars_of(term, scope, info)
            for name, loc in {**info.plain, **info.pattern, **info.refout}.items():
                if name not in bound:
                    need.setdefault(name, loc)
            return need
        if isinstance(term, ast.Assign | ast.Unify):
            lhs, rhs = term.lhs, term.rhs
            li, ri = VarInfo(), VarInfo()
            self.vars_of(lhs, scope, li, "pattern")
            self.vars_of(rhs, scope, ri, "pattern")
            refout = set(li.refout) | set(ri.refout)
            l_eval = all(n in bound or n in refout for n in {**li.plain, **li.pattern})
            r_eval = all(n in bound or n in refout for n in {**ri.plain, **ri.pattern})
            l_pat_ok = all(n in bound or n in refout for n in li.plain)
            r_pat_ok = all(n in bound or n in refout for n in ri.plain)
            if isinstance(term, ast.Assign):
                ok = r_eval and l_pat_ok
            else:
                ok = (l_eval and r_pat_ok) or (r_eval and l_pat_ok)
            if ok:
                return need
            for info in (li, ri):
                for name, loc in {**info.plain, **info.pattern}.items():
                    if name not in bound and name not in refout:
                        need.setdefault(name, loc)
            return need
        if isinstance(term, ast.Call) and self._has_output_arg(term):
            info = VarInfo()
            for a in term.args[:-1]:
                self.vars_of(a, scope, info)
            oinfo = VarInfo()
            self.vars_of(term.args[-1], scope, oinfo, "pattern")
            refout = set(info.refout) | set(oinfo.refout)
            add_plain(info, refout)
            add_plain(oinfo, refout)
            return need
        info = VarInfo()
        self.vars_of(term, scope, info)
        add_plain(info, set(info.refout))
        return need

    def _outputs(self, lit: Any, scope: Scope) -> set:
        if isinstance(lit, ast.Expr) and lit.negated:
            return set()
        if isinstance(lit, ast.SomeDecl | ast.Every):
            return set()
        if isinstance(lit, _ArgLit):
            info = VarInfo()
            self.vars_of(lit.pattern, scope, info, "pattern")
            return set(info.pattern) | set(info.refout)
        info = VarInfo()
        if isinstance(lit, ast.SomeIn):
            self.vars_of(lit.key, scope, info, "pattern")
            self.vars_of(lit.value, scope, info, "pattern")
            self.vars_of(lit.collection, scope, info)
            return set(info.pattern) | set(info.refout)
        term = lit.term
        if isinstance(term, ast.Assign | ast.Unify):
            self.vars_of(term.lhs, scope, info, "pattern")
            self.vars_of(term.rhs, scope, info, "pattern")
        elif isinstance(term, ast.Call) and self._has_output_arg(term):
            for a in term.args[:-1]:
                self.vars_of(a, scope, info)
            self.vars_of(term.args[-1], scope, info, "pattern")
        else:
            self.vars_of(term, scope, info)
        return set(info.pattern) | set(info.refout) | set(info.plain)

    # -- function resolution ----------------------------------------------------------

    def resolve_call(self, name: str, loc: ast.Loc) -> tuple[str, Any]:
        """("function", Group) or ("builtin", Builtin) for a call's dotted name."""
        parts = name.split(".")
        path: tuple | None = None
        head = parts[0]
        if head == "data":
            path = tuple(parts[1:])
        elif head in self.env.imports and self.env.imports[head][0] == "data":
            path = (*self.env.imports[head][1:], *parts[1:])
        elif head in self.env.local_rules:
            path = (*self.env.package, *parts)
        if path is not None:
            node, i = self.program.find(path)
            if node is not None and i == len(path) and node.group is not None:
                if node.group.kind == "function":
                    return "function", node.group
            if head == "data" or head in self.env.imports or not builtins.known(name):
                raise CompileError(
                    f"could not find function {name}", loc, "define it or check the import"
                )
        b = builtins.get(name)
        if b is not None:
            return "builtin", b
        from hookgate.lang.check import _OPA_BUILTINS as OPA_BUILTINS  # one list, the checker's

        if name in OPA_BUILTINS:
            raise CompileError(f"unsupported: builtin {name}", loc)
        raise CompileError(f"could not find function {name} (unknown builtin or function)", loc)

    def _arity(self, name: str, loc: ast.Loc) -> int:
        kind, target = self.resolve_call(name, loc)
        return target.arity

    def _has_output_arg(self, call: ast.Call) -> bool:
        if call.name == "print":
            return False
        arity = self._arity(call.name, call.loc)
        n = len(call.args)
        if arity < 0 or n == arity:
            return False
        if n == arity + 1:
            return True
        word = "argument" if arity == 1 else "arguments"
        raise CompileError(f"`{call.name}` expects {arity} {word}, got {n}", call.loc)

    # -- literals ---------------------------------------------------------------------

    def literal(self, lit: Any, scope: Scope, bound: set) -> Callable[[Step], Step]:
        withs = getattr(lit, "withs", ())
        if withs:
            return self._with(lit, withs, scope, bound)
        return self._literal(lit, scope, bound)

    def _literal(self, lit: Any, scope: Scope, bound: set) -> Callable[[Step], Step]:
        if isinstance(lit, ast.SomeDecl):
            return lambda nxt: nxt
        if isinstance(lit, _ArgLit):
            return self.unify_builders(
                lit.pattern, _SlotTerm(lit.slot), scope, bound, lit.pattern.loc
            )
        if isinstance(lit, _HeadLit):
            pre: list = []
            vf = self.term(lit.term, scope, pre, bound)
            return self._bind_slot(pre, vf, lit.slot)
        if isinstance(lit, ast.SomeIn):
            return self._some_in(lit, scope, bound)
        if isinstance(lit, ast.Every):
            return self._every(lit, scope, bound)
        if lit.negated:
            return self._not(lit, scope, bound)
        term = lit.term
        if isinstance(term, ast.Assign | ast.Unify):
            return self.unify_builders(term.lhs, term.rhs, scope, bound, term.loc)
        if isinstance(term, ast.Call) and self._has_output_arg(term):
            if term.name == "walk":
                return self._walk(term, scope, bound)
            call = ast.Call(term.name, term.args[:-1], term.loc)
            return self.unify_builders(term.args[-1], call, scope, bound, term.loc)
        pre = []
        vf = self.term(term, scope, pre, bound)

        def test(nxt: Step) -> Step:
            def step(ctx: Ctx, fr: list) -> bool:
                v = vf(ctx, fr)
                if v is UNDEFINED or v is False:
                    return False
                return nxt(ctx, fr)

            return step

        return _chain(pre, test)

    def _bind_slot(self, pre: list, vf: ValueFn, slot: int) -> Callable[[Step], Step]:
        def bind(nxt: Step) -> Step:
            def step(ctx: Ctx, fr: list) -> bool:
                v = vf(ctx, fr)
                if v is UNDEFINED:
                    return False
                fr[slot] = v
                return nxt(ctx, fr)

            return step

        return _chain(pre, bind)

    def _not(self, lit: ast.Expr, scope: Scope, bound: set) -> Callable[[Step], Step]:
        inner_scope = Scope(scope, scope.alloc)
        inner = ast.Expr(lit.term, lit.loc)
        inner_chain = self.body([inner], inner_scope, _stop, bound=set(bound))

        def build(nxt: Step) -> Step:
            def step(ctx: Ctx, fr: list) -> bool:
                if inner_chain(ctx, fr):
                    return False
                return nxt(ctx, fr)

            return step

        return build

    def _some_in(self, lit: ast.SomeIn, scope: Scope, bound: set) -> Callable[[Step], Step]:
        pre: list = []
        coll = self.term(lit.collection, scope, pre, bound)
        key_slot = scope.new_slot()
        val_slot = scope.new_slot()
        matchers = []
        if lit.key is not None:
            matchers.append(
                self.unify_builders(lit.key, _SlotTerm(key_slot), scope, bound, lit.loc)
            )
        matchers.append(self.unify_builders(lit.value, _SlotTerm(val_slot), scope, bound, lit.loc))
        _static_some_in_check(lit)
        items = iter_items if self.ordered else iter_items_unordered

        def build(nxt: Step) -> Step:
            inner = nxt
            for m in reversed(matchers):
                inner = m(inner)

            def step(ctx: Ctx, fr: list) -> bool:
                c = coll(ctx, fr)
                if c is UNDEFINED:
                    return False
                for k, v in items(c):
                    tick(ctx)
                    fr[key_slot] = k
                    fr[val_slot] = v
                    if inner(ctx, fr):
                        return True
                return False

            return step

        return _chain(pre, build)

    def _every(self, lit: ast.Every, scope: Scope, bound: set) -> Callable[[Step], Step]:
        pre: list = []
        dom = self.term(lit.domain, scope, pre, bound)
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
        body = self.body(list(lit.body), inner_scope, _stop, bound=inner_bound)

        def build(nxt: Step) -> Step:
            def step(ctx: Ctx, fr: list) -> bool:
                d = dom(ctx, fr)
                if d is UNDEFINED:
                    return False
                for k, v in iter_items_unordered(d):
                    tick(ctx)
                    fr[key_slot] = k
                    fr[val_slot] = v
                    if not body(ctx, fr):
                        return False
                return nxt(ctx, fr)

            return step

        return _chain(pre, build)

    def _walk(self, call: ast.Call, scope: Scope, bound: set) -> Callable[[Step], Step]:
        pre: list = []
        src = self.term(call.args[0], scope, pre, bound)
        slot = scope.new_slot()
        match = self.unify_builders(call.args[1], _SlotTerm(slot), scope, bound, call.loc)
        walk = builtins.get("walk").func

        def build(nxt: Step) -> Step:
            inner = match(nxt)

            def step(ctx: Ctx, fr: list) -> bool:
                v = src(ctx, fr)
                if v is UNDEFINED:
                    return False
                for pair in walk(v):
                    tick(ctx)
                    fr[slot] = pair
                    if inner(ctx, fr):
                        return True
                return False

            return step

        return _chain(pre, build)

    def _with(self, lit: Any, withs: tuple, scope: Scope, bound: set) -> Callable[[Step], Step]:
        mods = [self._with_mod(w, scope, bound) for w in withs]
        inner_builder = self._literal(_strip_withs(lit), scope, bound)
        # The literal runs in the modified context, what follows it in the original one.
        ctx_slot = scope.new_slot()

        def build(nxt: Step) -> Step:
            def resume(c2: Ctx, fr: list) -> bool:
                return nxt(fr[ctx_slot], fr)

            inner = inner_builder(resume)

            def step(ctx: Ctx, fr: list) -> bool:
                c2 = ctx.derive()
                for m in mods:
                    if not m(ctx, c2, fr):
                        return False
                fr[ctx_slot] = ctx
                return inner(c2, fr)

            return step

        return build

    def _with_mod(self, w: ast.With, scope: Scope, bound: set) -> Callable:
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
        pre: list = []
        value_term = w.value
        # A replacement naming a function or builtin replaces calls; anything else is a value.
        repl_fn = self._function_ref(value_term, scope)
        vf = None if repl_fn is not None else self.term(value_term, scope, pre, bound)
        if pre:
            raise CompileError("unsupported: with value that iterates", value_term.loc)
        if root is not None:
            path = (*root, *keys)
            if path[0] == "input":
                ipath = path[1:]

                def mod_input(ctx: Ctx, c2: Ctx, fr: list) -> bool:
                    v = vf(ctx, fr) if vf is not None else UNDEFINED
                    if v is UNDEFINED:
                        return False
                    c2.input = patch_path(c2.input, ipath, v) if ipath else v
                    if c2.input_log is not None:
                        c2.input_log.append(c2.input)
                    return True

                if repl_fn is not None:
                    raise CompileError("unsupported: with input as a function", value_term.loc)
                return mod_input
            dpath = path[1:]
            node, i = self.program.find(dpath)
            if (
                node is not None
                and node.group is not None
                and node.group.kind == "function"
                and i == len(dpath)
            ):
                return self._mock(node.group.name, repl_fn, vf, node.group.arity)
            if repl_fn is not None:
                raise CompileError("unsupported: with a data path as a function", value_term.loc)

            def mod_data(ctx: Ctx, c2: Ctx, fr: list) -> bool:
                v = vf(ctx, fr)
                if v is UNDEFINED:
                    return False
                c2.data_over = [*(c2.data_over or ()), (dpath, v)]
                return True

            return mod_data
        b = builtins.get(dotted)
        if b is not None:
            return self._mock(dotted, repl_fn, vf, b.arity)
        raise CompileError(f"unsupported: with target {dotted}", w.loc)

    def _function_ref(self, term: Any, scope: Scope) -> Callable | None:
        """If ``term`` names a function or builtin, a callable ``(ctx, args) -> value``."""
        name = _dotted(term)
        if name is None or self._is_local(name.split(".")[0], scope):
            return None
        try:
            kind, target = self.resolve_call(name, term.loc)
        except CompileError:
            return None
        if kind == "function":
            self.group.deps.add(target)
            return target.call
        fn = target.func
        bname = target.name

        def replacement(ctx: Ctx, args: list) -> Any:
            return call_builtin(bname, fn, args, ctx, term.loc, self.env.file)

        return replacement

    def _mock(self, key: str, repl_fn: Callable | None, vf: ValueFn | None, arity: int) -> Callable:
        def mod(ctx: Ctx, c2: Ctx, fr: list) -> bool:
            if repl_fn is not None:
                fn = repl_fn
            else:
                v = vf(ctx, fr)
                if v is UNDEFINED:
                    return False

                def fn(ctx: Ctx, args: list, v: Any = v) -> Any:
                    return v

            mocks = dict(c2.mocks or {})
            mocks[key] = fn
            c2.mocks = mocks
            return True

        return mod

    # -- unification ------------------------------------------------------------------

    def unify_builders(
        self, lhs: Any, rhs: Any, scope: Scope, bound: set, loc: ast.Loc
    ) -> Callable[[Step], Step]:
        pairs = _decompose(lhs, rhs, loc)
        builders = []
        for a, b in pairs:
            builders.append(self._unify_one(a, b, scope, bound, loc))

        def build(nxt: Step) -> Step:
            step = nxt
            for b in reversed(builders):
                step = b(step)
            return step

        return build

    def _evaluable(self, term: Any, scope: Scope, bound: set) -> bool:
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        return all(n in bound for n in {**info.plain, **info.pattern})

    def _unify_one(
        self, a: Any, b: Any, scope: Scope, bound: set, loc: ast.Loc
    ) -> Callable[[Step], Step]:
        pre: list = []
        # Iterating refs are expanded first (they bind their own variables).
        if self._evaluable_after_refs(b, scope, bound):
            vf = self.term(b, scope, pre, bound)
            matcher = self.matcher(a, scope, bound)
        elif self._evaluable_after_refs(a, scope, bound):
            vf = self.term(a, scope, pre, bound)
            matcher = self.matcher(b, scope, bound)
        else:
            info = VarInfo()
            self.vars_of(a, scope, info, "pattern")
            self.vars_of(b, scope, info, "pattern")
            name, vloc = next(iter({**info.plain, **info.pattern}.items()), ("?", loc))
            raise CompileError(f"var {name} is unsafe", vloc)

        def build(nxt: Step) -> Step:
            def step(ctx: Ctx, fr: list) -> bool:
                v = vf(ctx, fr)
                if v is UNDEFINED or not matcher(ctx, v, fr):
                    return False
                return nxt(ctx, fr)

            return step

        return _chain(pre, build)

    def _evaluable_after_refs(self, term: Any, scope: Scope, bound: set) -> bool:
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        refout = set(info.refout)
        return all(n in bound or n in refout for n in {**info.plain, **info.pattern})

    def matcher(self, pattern: Any, scope: Scope, bound: set) -> Callable[[Ctx, Any, list], bool]:
        """A function matching a value against ``pattern``, binding its unbound variables."""
        if isinstance(pattern, ast.Var):
            if is_wild(pattern):
                return lambda ctx, v, fr: True
            slot = scope.lookup(pattern.name)
            if slot is not None and pattern.name not in bound:
                bound.add(pattern.name)

                def bind(ctx: Ctx, v: Any, fr: list) -> bool:
                    fr[slot] = v
                    return True

                return bind
        if isinstance(pattern, ast.ArrayTerm) and not self._evaluable(pattern, scope, bound):
            subs = [self.matcher(it, scope, bound) for it in pattern.items]
            n = len(subs)

            def match_array(ctx: Ctx, v: Any, fr: list) -> bool:
                if type(v) is not list or len(v) != n:
                    return False
                for m, x in zip(subs, v, strict=True):
                    if not m(ctx, x, fr):
                        return False
                return True

            return match_array
        if isinstance(pattern, ast.ObjectTerm) and not self._evaluable(pattern, scope, bound):
            keys = []
            for k, _ in pattern.items:
                if not self._evaluable(k, scope, bound):
                    raise CompileError("unsupported: a variable object key in a pattern", k.loc)
                kpre: list = []
                keys.append(self.term(k, scope, kpre, bound))
                if kpre:
                    raise CompileError("unsupported: an iterating object key in a pattern", k.loc)
            subs = [self.matcher(v, scope, bound) for _, v in pattern.items]
            n = len(subs)

            def match_object(ctx: Ctx, v: Any, fr: list) -> bool:
                if type(v) is not dict or len(v) != n:
                    return False
                for kf, m in zip(keys, subs, strict=True):
                    x = obj_get(v, kf(ctx, fr))
                    if x is UNDEFINED or not m(ctx, x, fr):
                        return False
                return True

            return match_object
        pre: list = []
        vf = self.term(pattern, scope, pre, bound)
        if pre:
            raise CompileError("unsupported: an iterating reference inside a pattern", pattern.loc)

        def match_value(ctx: Ctx, v: Any, fr: list) -> bool:
            w = vf(ctx, fr)
            return w is not UNDEFINED and equal(w, v)

        return match_value

    # -- terms ------------------------------------------------------------------------

    def term(self, t: Any, scope: Scope, pre: list, bound: set) -> ValueFn:
        """A value function for ``t``; iterating parts append builders to ``pre``."""
        if isinstance(t, ast.Scalar):
            v = t.value
            return lambda ctx, fr: v
        if isinstance(t, _SlotTerm):
            s = t.slot
            return lambda ctx, fr: fr[s]
        if isinstance(t, ast.Var):
            return self._var(t, scope, bound)
        if isinstance(t, ast.Ref):
            return self._ref(t, scope, pre, bound)
        if isinstance(t, ast.ArrayTerm):
            if all(isinstance(x, ast.Scalar) for x in t.items):
                const = [x.value for x in t.items]
                return lambda ctx, fr: list(const)
            items = [self.term(x, scope, pre, bound) for x in t.items]

            def array(ctx: Ctx, fr: list) -> Any:
                out = []
                for f in items:
                    v = f(ctx, fr)
                    if v is UNDEFINED:
                        return UNDEFINED
                    out.append(v)
                return out

            return array
        if isinstance(t, ast.SetTerm):
            items = [self.term(x, scope, pre, bound) for x in t.items]

            def set_(ctx: Ctx, fr: list) -> Any:
                out = []
                for f in items:
                    v = f(ctx, fr)
                    if v is UNDEFINED:
                        return UNDEFINED
                    out.append(v)
                return RegoSet(out)

            return set_
        if isinstance(t, ast.ObjectTerm):
            pairs = [
                (self.term(k, scope, pre, bound), self.term(v, scope, pre, bound))
                for k, v in t.items
            ]

            def obj(ctx: Ctx, fr: list) -> Any:
                out: dict = {}
                for kf, vf in pairs:
                    k = kf(ctx, fr)
                    v = vf(ctx, fr)
                    if k is UNDEFINED or v is UNDEFINED:
                        return UNDEFINED
                    dk = dict_key(k)
                    if dk in out and not equal(out[dk], v):
                        raise EvalError("object keys must be unique")
                    out[dk] = v
                return out

            return obj
        if isinstance(t, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
            return self._compr(t, scope, bound)
        if isinstance(t, ast.Call):
            return self._call(t, scope, pre, bound)
        if isinstance(t, ast.BinOp):
            return self._binop(t, scope, pre, bound)
        if isinstance(t, ast.Membership):
            coll = self.term(t.collection, scope, pre, bound)
            val = self.term(t.value, scope, pre, bound)
            if t.key is None:

                def member(ctx: Ctx, fr: list) -> Any:
                    c = coll(ctx, fr)
                    v = val(ctx, fr)
                    if c is UNDEFINED or v is UNDEFINED:
                        return UNDEFINED
                    return membership(v, c)

                return member
            key = self.term(t.key, scope, pre, bound)

            def member_kv(ctx: Ctx, fr: list) -> Any:
                c = coll(ctx, fr)
                k = key(ctx, fr)
                v = val(ctx, fr)
                if c is UNDEFINED or v is UNDEFINED or k is UNDEFINED:
                    return UNDEFINED
                return membership_kv(k, v, c)

            return member_kv
        if isinstance(t, ast.UnaryMinus):
            raise CompileError("unsupported: unary minus on a non-number", t.loc)
        if isinstance(t, ast.Assign | ast.Unify):
            raise CompileError("unsupported: assignment or unification inside an expression", t.loc)
        raise CompileError(f"unsupported: term {type(t).__name__}", t.loc)

    def _var(self, v: ast.Var, scope: Scope, bound: set) -> ValueFn:
        if is_wild(v):
            raise CompileError("var _ is unsafe (a wildcard has no value here)", v.loc)
        slot = scope.lookup(v.name)
        if slot is not None:
            if v.name not in bound:
                raise CompileError(f"var {v.name} is unsafe", v.loc)
            return lambda ctx, fr: fr[slot]
        root = self.env.resolve_global(v.name)
        if root is None:
            raise CompileError(f"var {v.name} is unsafe", v.loc)
        return self._global(root, v.loc)

    def _global(self, path: tuple, loc: ast.Loc) -> ValueFn:
        """A value function for an absolute constant path (``("input", …)``/``("data", …)``)."""
        if path[0] == "input":
            rest = path[1:]
            if not rest:
                return lambda ctx, fr: ctx.input
            if len(rest) == 1:
                k = rest[0]

                def input1(ctx: Ctx, fr: list) -> Any:
                    i = ctx.input
                    return i.get(k, UNDEFINED) if type(i) is dict else index(i, k)

                return input1
            return lambda ctx, fr: index_path(ctx.input, rest)
        dpath = path[1:]
        program = self.program
        node, i = program.find(dpath)
        if node.group is not None:
            group = node.group
            self.group.deps.add(group)
            if group.kind == "function" and group.arity != 0:
                raise CompileError(f"function {group.name} must be called with arguments", loc)
            rest = dpath[i:]
            value = group.value

            def rule_value(ctx: Ctx, fr: list) -> Any:
                if ctx.data_over:
                    return program.data_value(ctx, dpath)
                v = value(ctx)
                return index_path(v, rest) if rest else v

            return rule_value
        if i < len(dpath) or not node.has_rules():

            def base_value(ctx: Ctx, fr: list) -> Any:
                if ctx.data_over:
                    return program.data_value(ctx, dpath)
                return index_path(ctx.data, dpath)

            return base_value
        self.group.deps.update(_groups_under(node))

        def node_value(ctx: Ctx, fr: list) -> Any:
            if ctx.data_over:
                return program.data_value(ctx, dpath)
            return program.node_value(ctx, node)

        return node_value

    def _ref(self, r: ast.Ref, scope: Scope, pre: list, bound: set) -> ValueFn:
        # The longest constant prefix of a global reference is resolved at compile time.
        head = r.head
        elems = list(r.path)
        base: ValueFn
        if isinstance(head, ast.Var) and not is_wild(head) and scope.lookup(head.name) is None:
            root = self.env.resolve_global(head.name)
            if root is None:
                raise CompileError(f"var {head.name} is unsafe", head.loc)
            consts = []
            while elems and isinstance(elems[0], ast.Scalar):
                consts.append(elems.pop(0).value)
            base = self._global((*root, *consts), r.loc)
        else:
            base = self.term(head, scope, pre, bound)
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
            else:
                keys.append(("key", self.term(el, scope, pre, bound)))
        if not iterating:
            kfs = [k for _, k in keys]
            if len(kfs) == 1:
                kf = kfs[0]

                def ref1(ctx: Ctx, fr: list) -> Any:
                    v = base(ctx, fr)
                    if v is UNDEFINED:
                        return UNDEFINED
                    k = kf(ctx, fr)
                    if k is UNDEFINED:
                        return UNDEFINED
                    if type(v) is dict and type(k) is str:
                        return v.get(k, UNDEFINED)
                    return index(v, k)

                return ref1

            def refn(ctx: Ctx, fr: list) -> Any:
                v = base(ctx, fr)
                for kf in kfs:
                    if v is UNDEFINED:
                        return UNDEFINED
                    k = kf(ctx, fr)
                    if k is UNDEFINED:
                        return UNDEFINED
                    v = index(v, k)
                return v

            return refn
        out_slot = scope.new_slot()
        items = iter_items if self.ordered else iter_items_unordered

        def build(nxt: Step) -> Step:
            def walk_from(i: int, v: Any, ctx: Ctx, fr: list) -> bool:
                while i < len(keys):
                    kind, k = keys[i]
                    if kind == "key":
                        kv = k(ctx, fr)
                        if kv is UNDEFINED:
                            return False
                        v = index(v, kv)
                        if v is UNDEFINED:
                            return False
                        i += 1
                        continue
                    for key, item in items(v):
                        tick(ctx)
                        fr[k] = key
                        if walk_from(i + 1, item, ctx, fr):
                            return True
                    return False
                fr[out_slot] = v
                return nxt(ctx, fr)

            def step(ctx: Ctx, fr: list) -> bool:
                v = base(ctx, fr)
                if v is UNDEFINED:
                    return False
                return walk_from(0, v, ctx, fr)

            return step

        pre.append(build)
        return lambda ctx, fr: fr[out_slot]

    def _compr(self, t: Any, scope: Scope, bound: set) -> ValueFn:
        inner = Scope(scope, scope.alloc)
        acc_slot = scope.new_slot()
        if isinstance(t, ast.ObjectCompr):
            k_slot = inner.new_slot()
            v_slot = inner.new_slot()
            tail = [_HeadLit(t.key, k_slot), _HeadLit(t.value, v_slot)]

            def term_obj(ctx: Ctx, fr: list) -> bool:
                out = fr[acc_slot]
                k = dict_key(fr[k_slot])
                v = fr[v_slot]
                old = out.get(k, MISSING)
                if old is MISSING:
                    out[k] = v
                elif not equal(old, v):
                    raise EvalError("object comprehension: a key with two different values")
                return False

            chain = self.body(list(t.body), inner, term_obj, tail=tail, bound=set(bound))

            def obj(ctx: Ctx, fr: list) -> Any:
                saved = fr[acc_slot]
                fr[acc_slot] = out = {}
                chain(ctx, fr)
                fr[acc_slot] = saved
                return out

            return obj
        slot = inner.new_slot()
        tail = [_HeadLit(t.term, slot)]
        if isinstance(t, ast.ArrayCompr):

            def term_arr(ctx: Ctx, fr: list) -> bool:
                fr[acc_slot].append(fr[slot])
                return False

            outer_ordered = self.ordered
            self.ordered = True
            try:
                chain = self.body(list(t.body), inner, term_arr, tail=tail, bound=set(bound))
            finally:
                self.ordered = outer_ordered

            def arr(ctx: Ctx, fr: list) -> Any:
                saved = fr[acc_slot]
                fr[acc_slot] = out = []
                chain(ctx, fr)
                fr[acc_slot] = saved
                return out

            return arr

        def term_set(ctx: Ctx, fr: list) -> bool:
            v = fr[slot]
            t_ = type(v)
            fr[acc_slot][
                v if (t_ is str or t_ is int or t_ is float or v is None) else freeze(v)
            ] = v
            return False

        chain = self.body(list(t.body), inner, term_set, tail=tail, bound=set(bound))

        def set_(ctx: Ctx, fr: list) -> Any:
            saved = fr[acc_slot]
            fr[acc_slot] = out = {}
            chain(ctx, fr)
            fr[acc_slot] = saved
            return RegoSet._from_dict(out)

        return set_

    def _binop(self, t: ast.BinOp, scope: Scope, pre: list, bound: set) -> ValueFn:
        left = self.term(t.left, scope, pre, bound)
        right = self.term(t.right, scope, pre, bound)
        op = BINOPS.get(t.op)
        if op is None:
            raise CompileError(f"unsupported: operator {t.op}", t.loc)
        file = self.env.file
        loc = t.loc
        if t.op == "==":

            def eq(ctx: Ctx, fr: list) -> Any:
                a = left(ctx, fr)
                if a is UNDEFINED:
                    return UNDEFINED
                b = right(ctx, fr)
                if b is UNDEFINED:
                    return UNDEFINED
                if type(a) is str and type(b) is str:
                    return a == b
                return equal(a, b)

            return eq

        def binop(ctx: Ctx, fr: list) -> Any:
            a = left(ctx, fr)
            if a is UNDEFINED:
                return UNDEFINED
            b = right(ctx, fr)
            if b is UNDEFINED:
                return UNDEFINED
            try:
                return op(a, b)
            except BuiltinError as exc:
                return builtin_failed(ctx, "", exc, file, loc)

        return binop

    def _call(self, t: ast.Call, scope: Scope, pre: list, bound: set) -> ValueFn:
        file = self.env.file
        loc = t.loc
        if t.name == "print":
            return self._print(t, scope, bound)
        kind, target = self.resolve_call(t.name, t.loc)
        arity = target.arity
        if arity >= 0 and len(t.args) != arity:
            word = "argument" if arity == 1 else "arguments"
            raise CompileError(f"`{t.name}` expects {arity} {word}, got {len(t.args)}", t.loc)
        args = [self.term(a, scope, pre, bound) for a in t.args]
        if kind == "function":
            self.group.deps.add(target)
            call = target.call

            def call_fn(ctx: Ctx, fr: list) -> Any:
                vals = []
                for a in args:
                    v = a(ctx, fr)
                    if v is UNDEFINED:
                        return UNDEFINED
                    vals.append(v)
                return call(ctx, vals)

            return call_fn
        name = target.name
        fn = target.func
        if name == "walk":
            raise CompileError("unsupported: walk without an output argument", t.loc)
        if len(args) == 1:
            a0 = args[0]

            def call1(ctx: Ctx, fr: list) -> Any:
                x = a0(ctx, fr)
                if x is UNDEFINED:
                    return UNDEFINED
                return call_builtin(name, fn, [x], ctx, loc, file)

            return call1
        if len(args) == 2:
            a0, a1 = args

            def call2(ctx: Ctx, fr: list) -> Any:
                x = a0(ctx, fr)
                if x is UNDEFINED:
                    return UNDEFINED
                y = a1(ctx, fr)
                if y is UNDEFINED:
                    return UNDEFINED
                return call_builtin(name, fn, [x, y], ctx, loc, file)

            return call2

        def calln(ctx: Ctx, fr: list) -> Any:
            vals = []
            for a in args:
                v = a(ctx, fr)
                if v is UNDEFINED:
                    return UNDEFINED
                vals.append(v)
            return call_builtin(name, fn, vals, ctx, loc, file)

        return calln

    def _print(self, t: ast.Call, scope: Scope, bound: set) -> ValueFn:
        pre: list = []
        args = [self.term(a, scope, pre, bound) for a in t.args]
        if pre:
            raise CompileError("unsupported: print of an iterating reference", t.loc)
        from hookgate.builtins.strings import rego_text

        def print_(ctx: Ctx, fr: list) -> Any:
            if ctx.prints is None:
                return True
            parts = []
            for a in args:
                v = a(ctx, fr)
                parts.append(
                    "<undefined>" if v is UNDEFINED else v if type(v) is str else rego_text(v)
                )
            ctx.prints.append(" ".join(parts))
            return True

        return print_


# ---------------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------------


class _SlotTerm:
    """A term whose value is already in a frame slot (a function argument, an iterated item)."""

    __slots__ = ("slot", "loc")

    def __init__(self, slot: int) -> None:
        self.slot = slot
        self.loc = ast.Loc(0, 0)


class _ArgLit:
    """Matches a function parameter pattern against its argument slot."""

    __slots__ = ("pattern", "slot", "withs")

    def __init__(self, pattern: Any, slot: int) -> None:
        self.pattern = pattern
        self.slot = slot
        self.withs = ()


class _HeadLit:
    """Evaluates a rule head term (value, key) into a slot, after the body."""

    __slots__ = ("term", "slot", "withs")

    def __init__(self, term: Any, slot: int) -> None:
        self.term = term
        self.slot = slot
        self.withs = ()


def _stop(ctx: Ctx, fr: list) -> bool:
    return True


def _recording(
    build: Callable[[Step], Step], covered: set, key: tuple[str, int]
) -> Callable[[Step], Step]:
    """``build`` with ``key`` added to ``covered`` each time its step runs."""

    def wrap(nxt: Step) -> Step:
        inner = build(nxt)

        def step(ctx: Ctx, fr: list) -> bool:
            covered.add(key)
            return inner(ctx, fr)

        return step

    return wrap


def _chain(pre: list, last: Callable[[Step], Step]) -> Callable[[Step], Step]:
    if not pre:
        return last

    def build(nxt: Step) -> Step:
        step = last(nxt)
        for b in reversed(pre):
            step = b(step)
        return step

    return build


def _first_defined(branches: list[Callable]) -> Callable:
    if len(branches) == 1:
        return branches[0]

    def run(ctx: Ctx) -> Any:
        for b in branches:
            v = b(ctx)
            if v is not UNDEFINED:
                return v
        return UNDEFINED

    return run


def _first_defined_fn(branches: list[Callable]) -> Callable:
    if len(branches) == 1:
        return branches[0]

    def run(ctx: Ctx, args: list) -> Any:
        for b in branches:
            v = b(ctx, args)
            if v is not UNDEFINED:
                return v
        return UNDEFINED

    return run


def _is_constant(t: Any) -> bool:
    if isinstance(t, ast.Scalar):
        return True
    if isinstance(t, ast.ArrayTerm | ast.SetTerm):
        return all(_is_constant(x) for x in t.items)
    if isinstance(t, ast.ObjectTerm):
        return all(_is_constant(k) and _is_constant(v) for k, v in t.items)
    return False


def _dotted(t: Any) -> str | None:
    if isinstance(t, ast.Var):
        return t.name
    if isinstance(t, ast.Ref) and isinstance(t.head, ast.Var):
        parts = [t.head.name]
        for e in t.path:
            if not (isinstance(e, ast.Scalar) and type(e.value) is str):
                return None
            parts.append(e.value)
        return ".".join(parts)
    return None


def _strip_withs(lit: Any) -> Any:
    if isinstance(lit, ast.Expr):
        return ast.Expr(lit.term, lit.loc, lit.negated, ())
    if isinstance(lit, ast.SomeIn):
        return ast.SomeIn(lit.key, lit.value, lit.collection, lit.loc, ())
    if isinstance(lit, ast.Every):
        return ast.Every(lit.key, lit.value, lit.domain, lit.body, lit.loc, ())
    return lit


def _groups_under(node: Node) -> list[Group]:
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.group is not None:
            out.append(n.group)
        stack.extend(n.children.values())
    return out


def _pattern_var_nodes(t: Any) -> list[ast.Var]:
    if t is None:
        return []
    if isinstance(t, ast.Var):
        return [t]
    if isinstance(t, ast.ArrayTerm):
        return [v for it in t.items for v in _pattern_var_nodes(it)]
    if isinstance(t, ast.ObjectTerm):
        return [v for _, it in t.items for v in _pattern_var_nodes(it)]
    return []


def _term_names(t: Any, out: list, inside_closure: bool = False) -> None:
    """Every variable name in ``t`` with its location (closures' own locals excluded later)."""
    if t is None:
        return
    if isinstance(t, ast.Var):
        if not is_wild(t):
            out.append((t.name, t.loc))
    elif isinstance(t, ast.Ref):
        _term_names(t.head, out)
        for e in t.path:
            _term_names(e, out)
    elif isinstance(t, ast.ArrayTerm | ast.SetTerm):
        for x in t.items:
            _term_names(x, out)
    elif isinstance(t, ast.ObjectTerm):
        for k, v in t.items:
            _term_names(k, out)
            _term_names(v, out)
    elif isinstance(t, ast.Call):
        for a in t.args:
            _term_names(a, out)
    elif isinstance(t, ast.BinOp):
        _term_names(t.left, out)
        _term_names(t.right, out)
    elif isinstance(t, ast.UnaryMinus):
        _term_names(t.term, out)
    elif isinstance(t, ast.Membership):
        _term_names(t.key, out)
        _term_names(t.value, out)
        _term_names(t.collection, out)
    elif isinstance(t, ast.Assign | ast.Unify):
        _term_names(t.lhs, out)
        _term_names(t.rhs, out)


def _free_names(lit: Any) -> list[tuple[str, ast.Loc]]:
    """Variable names a literal uses directly (not inside comprehensions or every bodies)."""
    out: list = []
    if isinstance(lit, ast.SomeDecl):
        return []
    if isinstance(lit, ast.SomeIn):
        _term_names(lit.key, out)
        _term_names(lit.value, out)
        _term_names(lit.collection, out)
    elif isinstance(lit, ast.Every):
        _term_names(lit.domain, out)
    elif isinstance(lit, _ArgLit):
        _term_names(lit.pattern, out)
    elif isinstance(lit, _HeadLit | ast.Expr):
        _term_names(lit.term, out)
    for w in getattr(lit, "withs", ()):
        if not builtins.known(
            _dotted(w.value) or ""
        ):  # `with f as upper` names a builtin, not a var
            _term_names(w.value, out)
    return out


def _closure_free(t: Any) -> list[tuple[str, ast.Loc]]:
    """Names used inside a comprehension (candidates for the enclosing scope's variables)."""
    out: list = []
    if isinstance(t, ast.ObjectCompr):
        _term_names(t.key, out)
        _term_names(t.value, out)
    else:
        _term_names(t.term, out)
    for lit in t.body:
        out.extend(_free_names(lit))
        out.extend(_nested_closure_names(lit))
    return out


def _nested_closure_names(lit: Any) -> list:
    out: list = []
    if isinstance(lit, ast.Every):
        out.extend(_every_free(lit))
    terms = []
    if isinstance(lit, ast.Expr | _HeadLit):
        terms.append(lit.term)
    elif isinstance(lit, ast.SomeIn):
        terms.extend([lit.key, lit.value, lit.collection])
    for t in terms:
        out.extend(_comprs_free(t))
    return out


def _comprs_free(t: Any) -> list:
    out: list = []
    if t is None:
        return out
    if isinstance(t, ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
        return _closure_free(t)
    for child in _children(t):
        out.extend(_comprs_free(child))
    return out


def _children(t: Any) -> list:
    if isinstance(t, ast.Ref):
        return [t.head, *t.path]
    if isinstance(t, ast.ArrayTerm | ast.SetTerm):
        return list(t.items)
    if isinstance(t, ast.ObjectTerm):
        return [x for kv in t.items for x in kv]
    if isinstance(t, ast.Call):
        return list(t.args)
    if isinstance(t, ast.BinOp):
        return [t.left, t.right]
    if isinstance(t, ast.Membership):
        return [t.key, t.value, t.collection]
    if isinstance(t, ast.Assign | ast.Unify):
        return [t.lhs, t.rhs]
    if isinstance(t, ast.UnaryMinus):
        return [t.term]
    return []


def _every_free(lit: ast.Every) -> list:
    own = {lit.value.name} | ({lit.key.name} if lit.key else set())
    out = []
    for lit2 in lit.body:
        for name, loc in _free_names(lit2) + _nested_closure_names(lit2):
            if name not in own:
                out.append((name, loc))
    return out


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


def _split_unifications(literals: list) -> list:
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


def _check_default(value: Any) -> None:
    """A default value is a constant (comprehensions allowed), as OPA requires."""
    if value is None or isinstance(
        value, ast.Scalar | ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr
    ):
        return
    if isinstance(value, ast.ArrayTerm | ast.SetTerm):
        for x in value.items:
            _check_default(x)
        return
    if isinstance(value, ast.ObjectTerm):
        for k, v in value.items:
            _check_default(k)
            _check_default(v)
        return
    raise CompileError("invalid default value: it must be a constant", value.loc)


def _static_some_in_check(lit: ast.SomeIn) -> None:
    coll = lit.collection
    if isinstance(coll, ast.ArrayTerm | ast.SetTerm):
        for item in coll.items:
            _decompose(lit.value, item, lit.loc)
