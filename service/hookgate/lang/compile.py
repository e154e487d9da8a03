"""Checked modules → the source of one Python module, evaluated like OPA's top-down evaluator.

Every rule body becomes Python statements over a frame ``fr`` (a list: variables get frame
slots at compile time). The order of the literals is fixed at compile time (OPA's safety
reordering), so whether a variable is bound is known statically: a literal that iterates
(``some x in xs``, ``x[i]`` with ``i`` unbound, ``walk``) opens a ``for`` loop, and every later
literal of the body is nested inside it; a literal that fails goes on with the innermost loop's
next item (``continue``), or leaves the function when no loop is open. Nothing is undone on
backtracking: a later solution simply overwrites the slots. The body's terminal (at the
innermost level) records the solution; ``not``, ``every`` and comprehensions are functions of
their own, sharing the frame.

Terms that yield one value compile to Python *expressions* evaluating to the value or
``UNDEFINED`` (assignment expressions keep the evaluation order and short-circuits of Rego).

The whole policy set becomes one module (``Program.source``), compiled with ``compile()``; its
code object is what the compile cache keeps, and ``hookgate.lang.documents.run`` executes it: the
module's last statements build the ``data`` tree of rule groups (``T``). The run-time pieces
are ``hookgate.lang.runtime`` (``Ctx``, operators, the helpers the generated code calls) and
``documents`` (the tree). The compiler's stages: ``codegen`` (the generated module),
``safety`` (variables, safety reordering), ``terms``, ``literals``, and here the rules
(``RuleCompiler``) and the whole set (``Program``).
"""

from __future__ import annotations

from typing import Any

from hookgate import builtins
from hookgate.lang import ast
from hookgate.lang.codegen import (
    SPLIT_LOOPS,
    CompileError,
    GeneratedFunction,
    GeneratedModule,
    index_expr,
)
from hookgate.lang.documents import Group, Node, Tree, path_text
from hookgate.lang.errors import Diagnostic
from hookgate.lang.literals import LiteralCompiler, split_unifications
from hookgate.lang.relevance import DefinitionReader, Relevance
from hookgate.lang.safety import ArgLit, HeadLit, ModuleEnv, Scope, is_wild


class Program:
    """A compiled policy set: the data tree, every rule group compiled into ``source``."""

    def __init__(self, modules: list[ast.Module], *, coverage: bool = False) -> None:
        """``coverage``: the code adds ``(filename, line)`` of every rule head entered and body
        literal evaluated to the set ``COV`` (``documents.run``'s ``coverage``), and
        ``(filename, line, col)`` of every definition (or ``else``) that produced a value."""
        self.modules = modules
        self.coverage = coverage
        self.tree = Tree()
        self.diagnostics: list[Diagnostic] = []
        self.rules: dict[Group, list[tuple[ast.Rule, ModuleEnv]]] = {}
        self.defaults: dict[Group, ast.Rule] = {}
        self.deps: dict[Group, set[Group]] = {}
        # What a group's own code reads besides base data, other rules and pure builtins:
        # "input", "with", "print", or the name of a builtin that reads something else.
        self.reads: dict[Group, set[str]] = {}
        # Each group's definitions as ``relevance`` reads them (None: one it cannot read).
        self.branches: dict[Group, list[list[tuple]] | None] = {}
        self.default_values: dict[Group, tuple | None] = {}
        # The groups of many definitions, each with its definitions, their guards and their
        # first literals as ``relevance`` tests: for ``_dispatch``.
        self.dispatched: dict[Group, tuple[list[str], list, list]] = {}

        self.roots: set[tuple] = set()
        # Rules under a partial object's root, each group with the root it adds to.
        self.inner: dict[tuple, tuple[Group, Group]] = {}
        self.out = GeneratedModule()
        self._collect()
        for group in self.tree.groups:
            self._compile_group(group)
        self.out.constants = [g for g in self.tree.groups if self._constant(g)]
        if not self.diagnostics:
            self._check_recursion()
        if not self.diagnostics and not coverage:  # with coverage, each test reaches each rule
            self.out.memoized = self._memoized()
            self._relevance()
        self.source = self.out.source() if not self.diagnostics else ""

    def code(self) -> Any:
        """The code object of ``source`` (for ``documents.run`` and the compile cache)."""
        return compile(self.source, "<hookgate policies>", "exec")

    def find(self, path: tuple) -> tuple[Node, int]:
        return self.tree.find(path)

    # -- building the tree --------------------------------------------------------------------

    def _error(self, file: str, exc: CompileError) -> None:
        self.diagnostics.append(
            Diagnostic(file, exc.loc.line, exc.loc.col, exc.message, hint=exc.hint)
        )

    def _collect(self) -> None:
        names_by_pkg: dict[tuple, set[str]] = {}
        for m in self.modules:
            names_by_pkg.setdefault(m.package, set()).update(r.ref[0] for r in m.rules)
            # Partial objects are rooted where their names stop being constant; every rule
            # under such a root adds to the root's object (`p[x] := 1` with `p.q.r := 2`).
            self.roots.update((*m.package, *r.ref) for r in m.rules if r.doc_kind == "object")
        for m in self.modules:
            env = ModuleEnv(m, names_by_pkg[m.package])
            self.tree.package(m.package)
            self.out.tree_ops.append(f"T.package({m.package!r})")
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

    def _root(self, path: tuple) -> tuple | None:
        for n in range(1, len(path)):
            if path[:n] in self.roots:
                return path[:n]
        return None

    def _add_rule(self, rule: ast.Rule, env: ModuleEnv) -> None:
        path = (*env.package, *rule.ref)
        root = self._root(path)
        if root is not None:
            self._add_inner(rule, env, path, root)
            return
        self._add_to(self._placed_group(path, rule.doc_kind, rule, env), rule, env)

    def _placed_group(self, path: tuple, kind: str, rule: ast.Rule, env: ModuleEnv) -> Group:
        """The group at ``path`` in the tree, created for ``rule`` if it is the first."""
        node = self.tree.root
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
            loc = rule.loc
            group = self.tree.group(kind, path, path_text(path), -1, env.file, loc.line, loc.col)
            self.rules[group] = []
            self.deps[group] = set()
            self.out.tree_ops.append(group)
        return group

    def _add_inner(self, rule: ast.Rule, env: ModuleEnv, path: tuple, root: tuple) -> None:
        """A rule below the root of a partial object: its keys, from the root on, are the
        rest of its name then its own key terms."""
        group = self._placed_group(root, "object", rule, env)
        extra = tuple(ast.Scalar(k, rule.loc) for k in path[len(root) :])
        if rule.doc_kind == "object":
            moved = ast.Rule(
                rule.kind,
                rule.ref,
                rule.loc,
                key=rule.key,
                value=rule.value,
                body=rule.body,
                assign_op=rule.assign_op,
                path_keys=extra + rule.path_keys,
            )
            self._add_to(group, moved, env)
            return
        if rule.kind == "function":
            raise CompileError(
                f"function {path_text(path)} conflicts with rule {group.name}", rule.loc
            )
        # A single-value or multi-value rule keeps its own group (default, else, conflicts);
        # its value joins the root's object at its place.
        inner = self.inner.get(path)
        if inner is None:
            loc = rule.loc
            sub = Group(rule.kind, path, path_text(path), -1, env.file, loc.line, loc.col)
            inner = self.inner[path] = (sub, group)
            self.rules[sub] = []
            self.deps[sub] = set()
            self.deps[group].add(sub)
            self.out.tree_ops.append(sub)
            self.out.detached.add(sub)
        self._add_to(inner[0], rule, env)

    def _add_to(self, group: Group, rule: ast.Rule, env: ModuleEnv) -> None:
        if group.kind != rule.doc_kind:
            raise CompileError(
                f"rule {group.name} is defined as a {_kind_text(group.kind)} and as a "
                f"{_kind_text(rule.doc_kind)}",
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
            if group in self.defaults:
                raise CompileError(f"multiple default rules {group.name} found", rule.loc)
            self.defaults[group] = rule
        self.rules[group].append((rule, env))

    # -- compiling groups ---------------------------------------------------------------------

    def _compile_group(self, group: Group) -> None:
        defs = []
        guards: list[str | None] = []
        # Each definition's first literals as ``relevance`` tests (None: a rule inside a
        # partial object), for the dispatch's test of the input facts.
        firsts: list[list | None] = []
        default_def = None
        branches: list[list[tuple]] | None = []
        for rule, env in self.rules[group]:
            try:
                if rule.default:
                    _check_default(rule.value)
                compiler = RuleCompiler(self, env, group, rule.loc)
                compiled = compiler.compile_rule(rule)
            except CompileError as exc:  # no code comes out of a program with errors
                self._error(env.file, exc)
                continue
            if rule.default:
                default_def = compiled
                self.default_values[group] = compiler.value_source(rule.value, None)
            else:
                defs.append(compiled)
                guards.append(compiler.guard)
                firsts.append(compiler.branches[0][1] if rule.kind in ("set", "object") else None)
                if branches is not None:
                    branches.append(compiler.branches)
            if rule.path_keys:
                self.out.nested.add(group)
        for sub, root in self.inner.values():
            if root is group:
                defs.append(self._inner_def(sub, root))
                guards.append(None)
                firsts.append(None)
                self.out.nested.add(group)
                branches = None  # a rule inside a partial object: always computed
        self.branches[group] = branches if group.kind != "function" else None
        if len(defs) > 1 and not self.coverage:
            # Written once the input facts are known (``_relevance``).
            self.dispatched[group] = (defs, guards, firsts)
        self.out.definitions[group] = (defs, default_def)

    def _dispatch(
        self,
        name: str,
        defs: list[str],
        guards: list[str | None],
        needs: list[str | None],
        masked: bool,
    ) -> str:
        """The function ``name`` running a partial set's or object's definitions in order, each
        only when it may add something: its input facts may hold (``needs``: a test of the mask
        ``r``, and of the facts about a rule's members its first literal reads, from
        ``Relevance.definition_test``) and its guard holds (``some c in commands`` when there
        are commands, ``input.tool_kind == "shell"`` for a shell call). A pack has many
        definitions of ``violations`` and most calls concern few: a definition that cannot
        concern this one costs a test, not a call. Each guard is tested once, where the first
        definition it guards would have read it (so before that definition's facts, which only
        run fewer definitions). With ``with`` replacing data or a function (the mask is -1)
        every definition runs (a guard reads the rule's own value, a fact a rule's); with
        coverage there is no dispatch (each definition records what it entered)."""
        lines = [f"def {name}(ctx, acc):"]
        everything = [
            f"        for d in ({''.join(d + ', ' for d in defs)}):",
            "            d(ctx, acc)",
            "        return",
        ]
        if masked:  # (its tests read the mask)
            lines += [
                f"    r = ctx.relevant or {self.relevance}(ctx)",
                "    if r < 0:",
                *everything,
            ]
        else:
            lines += ["    if ctx.data_over:", *everything]
        # A guard alone, (guard, None), or with a need: the local holding its test once made.
        tests: dict[tuple, str] = {}
        for d, guard, need in zip(defs, guards, needs, strict=True):
            if guard is None and need is None:
                lines.append(f"    {d}(ctx, acc)")
                continue
            test = tests.get((guard, need))
            if test is None:
                guard_test = tests.get((guard, None))
                if guard is not None and guard_test is None:
                    tests[guard, None] = f"_{len(tests) + 1}"
                    guard_test = f"({tests[guard, None]} := {guard})"
                test = guard_test
                if need is not None:
                    tests[guard, need] = f"_{len(tests) + 1}"
                    both = need if guard_test is None else f"{guard_test} and {need}"
                    test = f"({tests[guard, need]} := {both})"
            lines.append(f"    if {test}: {d}(ctx, acc)")
        return "\n".join(lines)

    def _inner_def(self, sub: Group, root: Group) -> str:
        """A definition of a partial object adding the value of a rule below its root."""
        self._compile_group(sub)
        name = self.out.name("u")
        keys = repr(sub.path[len(root.path) :])
        self.out.functions.append(
            f"def {name}(ctx, acc):\n"
            f"    tree_inner(acc, {keys}, {self.out.group(sub)}.value(ctx), {sub.kind == 'set'}, "
            f"{self.out.group(root)}.name)"
        )
        return name

    def _relevance(self) -> None:
        """Which groups cannot concern a call, and the test of the input that says so once per
        evaluation (``hookgate.lang.relevance``); then the dispatches, which test each
        definition's facts with the same mask."""
        relevance = Relevance(self.branches, self.default_values, set(self.out.constants))
        names = {g: self.out.group(g) for g in self.tree.groups if g not in self.out.detached}
        self.relevance = self.out.name("relevance")
        # Before the mask's source: a definition's test may name an atom no group's need has.
        needs: dict[Group, list[str | None]] = {}
        masked: set[Group] = set()  # the dispatches whose tests read the mask
        for group, (_, guards, firsts) in self.dispatched.items():
            needs[group] = []
            for i, first in enumerate(firsts):
                guard = guards[i]
                test, atoms = (
                    (None, 0)
                    if first is None
                    else relevance.definition_test(self.relevance, first, names, guard is not None)
                )
                if atoms:  # the guard's own atoms first: a bit is cheaper than its read
                    guards[i] = f"r & {atoms} and {guard}"
                if test is not None or atoms:
                    masked.add(group)
                needs[group].append(test)
        function, attach = relevance.source(self.relevance, names)
        if attach or masked:
            self.out.functions.append(function)
            self.out.attached += attach
        for group, (defs, guards, _) in self.dispatched.items():
            if any(guards) or any(needs[group]):  # else each definition runs: no dispatch
                name = self.out.name("d")
                code = self._dispatch(name, defs, guards, needs[group], group in masked)
                self.out.functions.append(code)
                self.out.definitions[group] = ([name], self.out.definitions[group][1])

    def _constant(self, group: Group) -> bool:
        """Whether ``group``'s value is fixed by the base data alone: complete rules without
        bodies whose values are literals and references into base data (``cfg :=
        data.hookgate.config.x``, ``reason := "…"``). No input, no call (a builtin could be
        mocked), no other rule: evaluated once per policy set and data, not per query."""
        if group.kind != "complete":
            return False
        return all(
            not rule.body and not rule.elses and self._static(rule.value, env)
            for rule, env in self.rules[group]
        )

    def _static(self, term: Any, env: ModuleEnv) -> bool:
        if isinstance(term, ast.Scalar):
            return True
        if isinstance(term, ast.ArrayTerm | ast.SetTerm):
            return all(self._static(t, env) for t in term.items)
        if isinstance(term, ast.ObjectTerm):
            return all(self._static(k, env) and self._static(v, env) for k, v in term.items)
        if isinstance(term, ast.Ref) and isinstance(term.head, ast.Var):
            root = env.resolve_global(term.head.name)
            if (
                root is None
                or root[0] != "data"
                or not all(isinstance(e, ast.Scalar) for e in term.path)
            ):
                return False
            dpath = (*root[1:], *(e.value for e in term.path))
            node, i = self.find(dpath)
            return node.group is None and (i < len(dpath) or not node.has_rules())
        return False

    def _memoized(self) -> dict[Group, tuple[str, ...]]:
        """The rules whose value does not depend on the call: no ``input``, no ``with``, no
        ``print`` and no builtin that reads the clock or the machine in their code or in any
        rule or function they use, except builtins that read only the process environment
        (``hookgate.paths``). Each maps to those environment builtins: its value is computed
        once per policy set and environment (``Group.memo_env``), not once per decision. The
        constants (fixed by the base data, put in every evaluation's cache) are left out."""
        reads: dict[Group, set[str]] = {}

        def closure(g: Group) -> set[str]:
            found = reads.get(g)
            if found is None:
                found = reads[g] = set(self.reads.get(g, ()))  # recursion was refused
                for d in self.deps[g]:
                    found |= closure(d)
            return found

        constants = set(self.out.constants)
        out = {}
        for g in self.tree.groups:
            if g.kind == "function" or g in constants:
                continue
            names = closure(g)
            if all(_environment_builtin(name) for name in names):
                out[g] = tuple(sorted(names))
        return out

    def _check_recursion(self) -> None:
        state: dict[Group, int] = {}
        stack: list[Group] = []

        def visit(g: Group) -> None:
            state[g] = 1
            stack.append(g)
            for d in self.deps[g]:
                s = state.get(d, 0)
                if s == 1:
                    cycle = stack[stack.index(d) :] + [d]
                    rule, env = self.rules[g][0]
                    raise _Recursion(env.file, rule.loc, " -> ".join(x.name for x in cycle))
                if s == 0:
                    visit(d)
            stack.pop()
            state[g] = 2

        try:
            for g in self.tree.groups:
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


def _environment_builtin(name: str) -> bool:
    b = builtins.get(name)
    return b is not None and b.reads_host and b.environment


class RuleCompiler(LiteralCompiler, DefinitionReader):
    """One definition of a rule (or an ``else``) → its generated function, body by body;
    ``guard``: for a partial set's or object's definition, when one can be had, a test that
    holds whenever the definition may add something (``_guard``)."""

    guard: str | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        # The definition's branches (it, then its elses) as ``relevance`` reads them.
        self.branches: list[tuple] = []

    def compile_rule(self, rule: ast.Rule) -> str:
        """The name of the generated function of one definition: ``(ctx) -> value`` for a
        complete rule, ``(ctx, args) -> value`` for a function, ``(ctx, acc) -> None`` adding
        to a partial set's or object's ``acc``."""
        kind = rule.kind
        if kind == "set":
            return self._set_rule(rule)
        if kind == "object":
            return self._object_rule(rule)
        params = rule.args if kind == "function" else ()
        branches = [(rule.body, rule.value, rule.loc)]
        branches += [(e.body, e.value, e.loc) for e in rule.elses]
        names = [self._value_branch(body, value, loc, params) for body, value, loc in branches]
        if len(names) == 1:
            return names[0]
        args = "ctx, args" if params else "ctx"
        fn = self._fn("r", args, "")
        for name in names[:-1]:
            fn.emit(f"v = {name}({args})")
            fn.emit("if v is not UNDEFINED: return v")
        return fn.finish(f"return {names[-1]}({args})")

    def _value_branch(
        self, body: tuple, value: ast.Term | None, loc: ast.Loc, params: tuple
    ) -> str:
        """One body with its head value: a function computing the value (or UNDEFINED); with
        params it takes the call's arguments."""
        scope = Scope(None, [0])
        head = value if value is not None else ast.Scalar(True, loc)
        arg_slots = [scope.new_slot() for _ in params]
        lits = [ArgLit(p, s) for p, s in zip(params, arg_slots, strict=True)]
        result_slot = scope.new_slot()
        lits += list(body)
        tail = [HeadLit(head, result_slot)]
        first_only = ast.is_constant(head)
        message = repr(f"conflicting values for {self.group.name}")
        exit = "return acc[0] if acc else UNDEFINED"
        fn = self._fn("b", "ctx, args" if params else "ctx", exit, stop="return acc[0]")

        top = fn
        straight = []  # the terminal returned its solution: the body has only one

        def terminal(fn: GeneratedFunction) -> None:
            if fn is top and not fn.loops:
                # No iteration before it (nor a continuation): one solution at most, no other
                # to compare it with.
                fn.emit(f"return fr[{result_slot}]")
                straight.append(True)
                return
            fn.emit(f"if not acc: acc.append(fr[{result_slot}])")
            fn.emit(
                f"elif not equal(acc[0], fr[{result_slot}]): "
                f"raise EvalError({message}, {self.file}, {loc.line}, {loc.col})"
            )
            if first_only:
                fn.emit(fn.stop)

        order = self.body(lits, scope, fn, terminal, tail=tail, declared_params=params, head=loc)
        if not params:
            if order:
                self.branches.append(("body", self.tests(order, scope), ast.is_constant(head)))
            else:
                self.branches.append(("value", self.value_source(head, scope)))
        fn.prologue = [f"fr = [None] * {scope.alloc[0]}"]
        if straight:  # nothing is ever in acc: every way out before the terminal is undefined
            fn.lines = [line.replace(exit, "return UNDEFINED") for line in fn.lines]
            exit = "return UNDEFINED"
        else:
            fn.prologue.append("acc = []")
        if params:
            fn.prologue.append("fr[0 : len(args)] = args")
        return fn.finish(exit)

    def _guard(self, order: list, scope: Scope) -> str | None:
        """A Python test (of ``ctx``) that holds whenever the body whose literals run in
        ``order`` may have a solution, from its first literal: ``some x in r`` (no solution
        when ``r`` is undefined or not a collection with members), ``r`` alone (none when it is
        undefined or false), ``r == "s"`` (none when ``r`` is another value), where ``r`` is a
        rule or a constant path of the input. None when there is no such test. The test reads
        only what that literal reads first anyway (a rule's value is computed once)."""
        if not order or getattr(order[0], "withs", ()):
            return None
        first = order[0]
        if isinstance(first, ast.SomeIn):
            value = self._guard_value(first.collection, scope)
            # has_members, inline: the test runs for every call that reaches the dispatch
            return None if value is None else f"(type(_m := {value}) in MEMBERED and len(_m) > 0)"
        if not isinstance(first, ast.Expr) or first.negated:
            return None
        term = first.term
        if isinstance(term, ast.Assign):  # x := r: no solution when r is undefined
            plain = isinstance(term.lhs, ast.Var) and not is_wild(term.lhs)
            value = self._guard_value(term.rhs, scope) if plain else None
            return None if value is None else f"({value} is not UNDEFINED)"
        if not isinstance(term, ast.BinOp):
            value = self._guard_value(term, scope)
            return None if value is None else f"holds({value})"
        if term.op != "==":
            return None
        for side, other in ((term.left, term.right), (term.right, term.left)):
            if isinstance(other, ast.Scalar) and type(other.value) is str:
                value = self._guard_value(side, scope)
                if value is not None:
                    # A string equals only a string (Rego's ==, as the literal compiles it).
                    return f"({value} == {other.value!r})"
        return None

    def _guard_value(self, term: Any, scope: Scope) -> str | None:
        """A Python expression for the value of ``term`` when it is a rule or a constant path
        into one (its value cached in the evaluation, as the literal reads it) or a constant
        path of the input; None for anything else."""
        path = self._constant_path(term, scope)
        if path is None:
            return None
        if path[0] == "input":
            return index_expr("ctx.input", path[1:])
        node, i = self.program.find(path[1:])
        group = node.group
        if group is None or group.kind == "function":
            return None
        name = self.module.group(group)
        value = (
            f"(_v if (_v := ctx.cache.get({name}, IN_PROGRESS)) is not IN_PROGRESS "
            f"else {name}.value(ctx))"
        )
        return index_expr(value, path[1 + i :])

    def _constant_path(self, term: Any, scope: Scope) -> tuple | None:
        """The absolute path of a reference of constant keys to a global (``r``, ``input.a``,
        ``data.p.r``), or None."""
        if isinstance(term, ast.Var):
            head, keys = term, ()
        elif isinstance(term, ast.Ref) and isinstance(term.head, ast.Var):
            head, keys = term.head, term.path
        else:
            return None
        if is_wild(head) or scope.lookup(head.name) is not None:
            return None
        root = self.env.resolve_global(head.name)
        if root is None or not all(isinstance(k, ast.Scalar) for k in keys):
            return None
        return (*root, *(k.value for k in keys))

    def _set_rule(self, rule: ast.Rule) -> str:
        scope = Scope(None, [0])
        key_slot = scope.new_slot()
        fn = self._fn("s", "ctx, acc", "return")
        path_slots = [scope.new_slot() for _ in rule.path_keys]
        name = repr(self.group.name)

        def terminal(fn: GeneratedFunction) -> None:
            if path_slots:
                path = "".join(f"fr[{s}], " for s in path_slots)
                fn.emit(f"tree_put(acc, ({path}), fr[{key_slot}], True, {name})")
            else:
                fn.emit(f"set_add(acc, fr[{key_slot}])")

        tail = [HeadLit(k, s) for k, s in zip(rule.path_keys, path_slots, strict=True)]
        tail.append(HeadLit(rule.key, key_slot))
        order = self.body(list(rule.body), scope, fn, terminal, tail=tail, head=rule.loc)
        self.guard = self._guard(order, scope)
        self.branches.append(("body", self.tests(order, scope), False))
        fn.prologue = [f"fr = [None] * {scope.alloc[0]}"]
        return fn.finish("return")

    def _object_rule(self, rule: ast.Rule) -> str:
        scope = Scope(None, [0])
        key_slot = scope.new_slot()
        val_slot = scope.new_slot()
        value = rule.value if rule.value is not None else ast.Scalar(True, rule.loc)
        name = repr(self.group.name)
        fn = self._fn("o", "ctx, acc", "return")
        path_slots = [scope.new_slot() for _ in rule.path_keys]

        def terminal(fn: GeneratedFunction) -> None:
            if path_slots:
                path = "".join(f"fr[{s}], " for s in [*path_slots, key_slot])
                fn.emit(f"tree_put(acc, ({path}), fr[{val_slot}], False, {name})")
            else:
                fn.emit(f"object_put(acc, fr[{key_slot}], fr[{val_slot}], {name})")

        tail = [HeadLit(k, s) for k, s in zip(rule.path_keys, path_slots, strict=True)]
        tail += [HeadLit(rule.key, key_slot), HeadLit(value, val_slot)]
        order = self.body(list(rule.body), scope, fn, terminal, tail=tail, head=rule.loc)
        self.guard = self._guard(order, scope)
        self.branches.append(("body", self.tests(order, scope), False))
        fn.prologue = [f"fr = [None] * {scope.alloc[0]}"]
        return fn.finish("return")

    def body(
        self,
        literals: list,
        scope: Scope,
        fn: GeneratedFunction,
        terminal: Any,
        *,
        tail: list | None = None,
        bound: set | None = None,
        declared_params: tuple = (),
        head: ast.Loc | None = None,
    ) -> list:
        """Emit literals (reordered for safety) + ``tail`` (kept last) into ``fn``, then
        ``terminal(fn)`` at the innermost level; the literals in the order they run.
        ``head``: the rule head (or else) this body belongs to, for coverage."""
        bound = set() if bound is None else bound
        self._declare(literals + (tail or []), scope)
        order = self._reorder(split_unifications(literals), scope, bound)
        covered = self.program.coverage
        if covered and head is not None:
            fn.emit(f"COV.add(({self.file}, {head.line}))")
        continuations = []
        lits = order + (tail or [])
        i = 0
        while i < len(lits):
            lit = lits[i]
            if fn.loops >= SPLIT_LOOPS:
                fn = self._continuation(fn)
                continuations.append(fn)
            if not covered and self.glob_some(lits, i, bound):
                self._glob_some(lit, lits[i + 1], scope, bound, fn)
                i += 2
                continue
            if covered and isinstance(lit, ast.Expr | ast.SomeIn | ast.Every):
                fn.emit(f"COV.add(({self.file}, {lit.loc.line}))")
            self.literal(lit, scope, bound, fn)
            i += 1
        if covered and head is not None:
            # The definition produced a value: ``hookgate.lang.trace`` names it (--explain).
            fn.emit(f"COV.add(({self.file}, {head.line}, {head.col}))")
        terminal(fn)
        for k in continuations:
            k.finish(k.exit)
        return order

    def _continuation(self, fn: GeneratedFunction) -> GeneratedFunction:
        """Go on in a new function ``(ctx, fr, acc) -> stop?`` (Python limits how many loops
        one function nests); between two literals everything lives in ``fr`` and ``acc``."""
        k = self._fn("k", "ctx, fr, acc", "return False", stop="return True")
        call = f"{k.name}({fn.ctx}, fr, {fn.acc})"
        fn.emit(f"if {call}: {fn.stop}" if fn.stop else call)
        return k

    def _sub_body(self, literals: list, scope: Scope, bound: set, prefix: str = "n") -> str:
        """A function ``(ctx, fr) -> bool``: whether the body has a solution (for ``not`` and
        ``every``)."""
        fn = self._fn(prefix, "ctx, fr", "return False", stop="return True", acc="None")
        self.body(literals, scope, fn, lambda fn: fn.emit(fn.stop), bound=bound)
        return fn.finish("return False")


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
