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
code object is what the compile cache keeps, and ``hookgate.lang.execute.run`` executes it: the
module's last statements build the ``data`` tree of rule groups (``T``). The run-time pieces
are ``hookgate.lang.runtime`` (``Ctx``, operators), ``documents`` (the tree) and ``execute``
(the helpers the generated code calls).
"""

from __future__ import annotations

import math
from typing import Any

from hookgate import builtins
from hookgate.lang import ast
from hookgate.lang.documents import Group, Node, Tree, path_text
from hookgate.lang.errors import Diagnostic
from hookgate.lang.runtime import BINOPS
from hookgate.lang.values import is_decimal

# Python refuses more statically nested blocks than this in one function (CO_MAXBLOCKS is 20);
# a body nesting more loops than _SPLIT_LOOPS goes on in another function.
_MAX_LOOPS = 18
_SPLIT_LOOPS = 12
# An expression nesting brackets deeper than this moves to a function (Python's limit is 200).
_MAX_NESTING = 60


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
    """A compiled policy set: the data tree, every rule group compiled into ``source``."""

    def __init__(self, modules: list[ast.Module], *, coverage: bool = False) -> None:
        """``coverage``: the code adds ``(filename, line)`` of every rule head entered and body
        literal evaluated to the set ``COV`` (``execute.run``'s ``coverage``)."""
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

        self.roots: set[tuple] = set()
        # Rules under a partial object's root, each group with the root it adds to.
        self.inner: dict[tuple, tuple[Group, Group]] = {}
        self.out = _Module()
        self._collect()
        for group in self.tree.groups:
            self._compile_group(group)
        self.out.constants = [g for g in self.tree.groups if self._constant(g)]
        if not self.diagnostics:
            self._check_recursion()
        if not self.diagnostics and not coverage:  # with coverage, each test reaches each rule
            self.out.memoized = self._memoized()
        self.source = self.out.source() if not self.diagnostics else ""

    def code(self) -> Any:
        """The code object of ``source`` (for ``execute.run`` and the compile cache)."""
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
        default_def = None
        for rule, env in self.rules[group]:
            try:
                if rule.default:
                    _check_default(rule.value)
                compiled = RuleCompiler(self, env, group, rule.loc).compile_rule(rule)
            except CompileError as exc:  # no code comes out of a program with errors
                self._error(env.file, exc)
                continue
            if rule.default:
                default_def = compiled
            else:
                defs.append(compiled)
            if rule.path_keys:
                self.out.nested.add(group)
        for sub, root in self.inner.values():
            if root is group:
                defs.append(self._inner_def(sub, root))
                self.out.nested.add(group)
        self.out.definitions[group] = (defs, default_def)

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


# ---------------------------------------------------------------------------------------------
# The generated module
# ---------------------------------------------------------------------------------------------


class _Module:
    """The generated module under construction: its functions, then the statements building
    the data tree (``T``) and attaching each group's functions."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.tree_ops: list[Any] = []  # "T.package(...)" lines and groups, in creation order
        self.detached: set[Group] = set()  # groups inside a partial object, not at a node
        self.nested: set[Group] = set()  # partial objects with key paths or rules inside
        self.definitions: dict[Group, tuple[list[str], str | None]] = {}
        self.group_names: dict[Group, str] = {}
        self.node_names: dict[tuple, str] = {}
        self.constants: list[Group] = []
        self.memoized: dict[Group, tuple[str, ...]] = {}
        self.constants_src: dict[str, str] = {}  # Python expression → its module-level name
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, expr: str) -> str:
        """The name of a module-level constant holding ``expr``'s value (an immutable one)."""
        name = self.constants_src.get(expr)
        if name is None:
            name = self.constants_src[expr] = f"K{len(self.constants_src)}"
        return name

    def group(self, group: Group) -> str:
        name = self.group_names.get(group)
        if name is None:
            name = self.group_names[group] = f"G{len(self.group_names)}"
        return name

    def node(self, path: tuple) -> str:
        name = self.node_names.get(path)
        if name is None:
            name = self.node_names[path] = f"N{len(self.node_names)}"
        return name

    def source(self) -> str:
        lines = [f"{name} = {expr}" for expr, name in self.constants_src.items()]
        lines += self.functions
        lines.append("T = Tree()")
        for op in self.tree_ops:
            if isinstance(op, Group):
                lines.append(
                    f"{self.group(op)} = T.group({op.kind!r}, {op.path!r}, {op.name!r}, "
                    f"{op.arity!r}, {op.file!r}, {op.line!r}, {op.col!r}, "
                    f"{op not in self.detached})"
                )
            else:
                lines.append(op)
        for group, (defs, default_def) in self.definitions.items():
            name = self.group(group)
            lines.append(f"{name}.defs = ({''.join(d + ', ' for d in defs)})")
            if default_def is not None:
                lines.append(f"{name}.default_def = {default_def}")
            if group in self.nested:
                lines.append(f"{name}.nested = True")
        for path, name in self.node_names.items():
            lines.append(f"{name} = T.node({path!r})")
        lines.append(f"T.constants = ({''.join(self.group(g) + ', ' for g in self.constants)})")
        for group, env in self.memoized.items():
            lines.append(f"{self.group(group)}.memo_env = {env!r}")
        return "\n".join(lines) + "\n"


class _Fn:
    """One generated function under construction: its body lines, the current indentation,
    the open loops, the name of the evaluation context in scope (``with`` makes another) and
    how to leave when no solution remains."""

    def __init__(
        self,
        module: _Module,
        name: str,
        params: str,
        exit: str,
        loc: ast.Loc,
        *,
        stop: str = "",
        acc: str = "acc",
    ) -> None:
        self.module = module
        self.name = name
        self.params = params
        self.exit = exit
        self.stop = stop  # the statement that ends the whole search ("": nothing ends it)
        self.acc = acc  # what the body's terminal adds solutions to
        self.loc = loc  # the rule's, for the one error Python's own limits can cause
        self.lines: list[str] = []
        self.prologue: list[str] = []
        self.depth = 1
        self.loops = 0
        self.temps = 0
        self.ctx = "ctx"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def fail(self, cond: str) -> None:
        """Give up the current solution when ``cond`` holds."""
        self.emit(f"if {cond}: {'continue' if self.loops else self.exit}")

    def loop(self, header: str) -> None:
        """Open ``for header:``; what is emitted next runs once per item."""
        if self.loops >= _MAX_LOOPS:
            raise CompileError(
                f"unsupported: more than {_MAX_LOOPS} nested iterations in one body", self.loc
            )
        self.emit(f"for {header}:")
        self.depth += 1
        self.loops += 1
        # tick(), inline: a call per iteration would cost more than the count.
        self.emit(f"{self.ctx}.budget[0] -= 1")
        self.emit(f"if not {self.ctx}.budget[0] & 1023: check_budget({self.ctx})")

    def value(self, expr: str) -> str:
        """A name for the value of ``expr``, giving up the solution when it is undefined (a
        bound variable's slot never is)."""
        if _is_slot(expr):
            return expr
        t = self.temp()
        self.fail(f"({t} := {expr}) is UNDEFINED")
        return t

    def temp(self) -> str:
        # Numbered per function: equal names in different functions are one string in the
        # marshaled code, which keeps cache entries small.
        self.temps += 1
        return f"_{self.temps}"

    def finish(self, epilogue: str) -> str:
        """Add the function to the module; returns its name."""
        head = [f"def {self.name}({self.params}):"] + ["    " + p for p in self.prologue]
        self.module.functions.append("\n".join([*head, *self.lines, "    " + epilogue]))
        return self.name


# Builtins whose value is fixed for one evaluation (OPA reads the clock once per query).
_ONCE_PER_EVALUATION = frozenset({"time.now_ns"})

# Builtins computed in the generated code itself, without a call, where the operands leave no
# room for an error nor for a result over the output limit (``execute.MAX_OUTPUT``): name →
# (guard on the operands, expression). Any other operand (or a mocked builtin) takes the call,
# which reports the error or the limit as the builtin does. Each expression is what the builtin
# computes for those operands (tests/test_inline_builtins.py compares them).
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
    "split": (
        " and type({0}) is str and type({1}) is str and {1} and len({0}) < MAX_OUTPUT",
        "{0}.split({1})",
    ),
    "lower": (" and type({0}) is str and {0}.isascii() and len({0}) <= MAX_OUTPUT", "{0}.lower()"),
    "array.concat": (
        " and type({0}) is list and type({1}) is list and len({0}) + len({1}) <= MAX_OUTPUT",
        "{0} + {1}",
    ),
}
# Builtins whose answer is not a function of their arguments alone (besides those that read
# the machine, ``reads_host``): a rule calling one is evaluated for every decision.
_UNSTABLE = frozenset({"time.now_ns", "uuid.rfc4122"})


def _reads_outside(b: Any) -> bool:
    """Whether builtin ``b``'s answer depends on more than its arguments."""
    return b.name in _UNSTABLE or b.reads_host


def _environment_builtin(name: str) -> bool:
    b = builtins.get(name)
    return b is not None and b.reads_host and b.environment


def _lit(value: Any) -> str:
    """Python source for a scalar value."""
    if type(value) is float and not math.isfinite(value):
        return f"float({str(value)!r})"
    if is_decimal(value):
        return f"decimal_value({str(value)!r})"
    return repr(value)


# ---------------------------------------------------------------------------------------------
# Compiling one rule
# ---------------------------------------------------------------------------------------------


class RuleCompiler:
    def __init__(self, program: Program, env: ModuleEnv, group: Group, loc: ast.Loc) -> None:
        self.program = program
        self.module = program.out
        self.env = env
        self.group = group
        self.loc = loc
        self.file = repr(env.file)
        # Iteration order is observable only in the array comprehensions (their element
        # order); everywhere else the cheaper storage order gives the same answers.
        self.ordered = False

    def _reads(self, what: str) -> None:
        self.program.reads.setdefault(self.group, set()).add(what)

    def _fn(self, prefix: str, params: str, exit: str, stop: str = "", acc: str = "acc") -> _Fn:
        name = self.module.name(prefix)
        return _Fn(self.module, name, params, exit, self.loc, stop=stop, acc=acc)

    # -- entry points -----------------------------------------------------------------

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
        lits = [_ArgLit(p, s) for p, s in zip(params, arg_slots, strict=True)]
        result_slot = scope.new_slot()
        lits += list(body)
        tail = [_HeadLit(head, result_slot)]
        first_only = _is_constant(head)
        message = repr(f"conflicting values for {self.group.name}")
        exit = "return acc[0] if acc else UNDEFINED"
        fn = self._fn("b", "ctx, args" if params else "ctx", exit, stop="return acc[0]")

        def terminal(fn: _Fn) -> None:
            fn.emit(f"if not acc: acc.append(fr[{result_slot}])")
            fn.emit(f"elif not equal(acc[0], fr[{result_slot}]): raise EvalError({message})")
            if first_only:
                fn.emit(fn.stop)

        self.body(lits, scope, fn, terminal, tail=tail, declared_params=params, head=loc)
        fn.prologue = [f"fr = [None] * {scope.alloc[0]}", "acc = []"]
        if params:
            fn.prologue.append("fr[0 : len(args)] = args")
        return fn.finish(exit)

    def _set_rule(self, rule: ast.Rule) -> str:
        scope = Scope(None, [0])
        key_slot = scope.new_slot()
        fn = self._fn("s", "ctx, acc", "return")
        path_slots = [scope.new_slot() for _ in rule.path_keys]
        name = repr(self.group.name)

        def terminal(fn: _Fn) -> None:
            if path_slots:
                path = "".join(f"fr[{s}], " for s in path_slots)
                fn.emit(f"tree_put(acc, ({path}), fr[{key_slot}], True, {name})")
            else:
                fn.emit(f"set_add(acc, fr[{key_slot}])")

        tail = [_HeadLit(k, s) for k, s in zip(rule.path_keys, path_slots, strict=True)]
        tail.append(_HeadLit(rule.key, key_slot))
        self.body(list(rule.body), scope, fn, terminal, tail=tail, head=rule.loc)
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

        def terminal(fn: _Fn) -> None:
            if path_slots:
                path = "".join(f"fr[{s}], " for s in [*path_slots, key_slot])
                fn.emit(f"tree_put(acc, ({path}), fr[{val_slot}], False, {name})")
            else:
                fn.emit(f"object_put(acc, fr[{key_slot}], fr[{val_slot}], {name})")

        tail = [_HeadLit(k, s) for k, s in zip(rule.path_keys, path_slots, strict=True)]
        tail += [_HeadLit(rule.key, key_slot), _HeadLit(value, val_slot)]
        self.body(list(rule.body), scope, fn, terminal, tail=tail, head=rule.loc)
        fn.prologue = [f"fr = [None] * {scope.alloc[0]}"]
        return fn.finish("return")

    # -- bodies -----------------------------------------------------------------------

    def body(
        self,
        literals: list,
        scope: Scope,
        fn: _Fn,
        terminal: Any,
        *,
        tail: list | None = None,
        bound: set | None = None,
        declared_params: tuple = (),
        head: ast.Loc | None = None,
    ) -> None:
        """Emit literals (reordered for safety) + ``tail`` (kept last) into ``fn``, then
        ``terminal(fn)`` at the innermost level. ``head``: the rule head (or else) this body
        belongs to, for coverage."""
        bound = set() if bound is None else bound
        self._declare(literals + (tail or []), scope)
        order = self._reorder(_split_unifications(literals), scope, bound)
        covered = self.program.coverage
        if covered and head is not None:
            fn.emit(f"COV.add(({self.file}, {head.line}))")
        continuations = []
        for lit in order + (tail or []):
            if fn.loops >= _SPLIT_LOOPS:
                fn = self._continuation(fn)
                continuations.append(fn)
            if covered and isinstance(lit, ast.Expr | ast.SomeIn | ast.Every):
                fn.emit(f"COV.add(({self.file}, {lit.loc.line}))")
            self.literal(lit, scope, bound, fn)
        terminal(fn)
        for k in continuations:
            k.finish(k.exit)

    def _continuation(self, fn: _Fn) -> _Fn:
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
                elif isinstance(el, ast.ArrayTerm | ast.ObjectTerm):
                    # p[[1, x]]: the ref iterates p's keys and binds x where a key matches
                    sub = VarInfo()
                    self.vars_of(el, scope, sub, "pattern")
                    for name, loc in {**sub.pattern, **sub.refout}.items():
                        info.refout.setdefault(name, loc)
                    for name, loc in sub.plain.items():
                        info.plain.setdefault(name, loc)
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
            if (_dotted(w.value) or "") in builtins.opa_builtins():
                continue  # names a builtin (`with f as opa.runtime`), not a variable
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
        if name in builtins.opa_builtins():
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

    # -- literals ---------------------------------------------------------------------

    def literal(self, lit: Any, scope: Scope, bound: set, fn: _Fn) -> None:
        withs = getattr(lit, "withs", ())
        if withs:
            self._with(lit, withs, scope, bound, fn)
        else:
            self._literal(lit, scope, bound, fn)

    def _literal(self, lit: Any, scope: Scope, bound: set, fn: _Fn) -> None:
        if isinstance(lit, ast.SomeDecl):
            return
        if isinstance(lit, _ArgLit):
            self.unify(lit.pattern, _SlotTerm(lit.slot), scope, bound, lit.pattern.loc, fn)
            return
        if isinstance(lit, _HeadLit):
            v = self.term(lit.term, scope, fn, bound)
            fn.emit(f"fr[{lit.slot}] = {v if isinstance(lit.term, ast.Scalar) else fn.value(v)}")
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

    def _not(self, lit: ast.Expr, scope: Scope, bound: set, fn: _Fn) -> None:
        inner_scope = Scope(scope, scope.alloc)
        inner = ast.Expr(lit.term, lit.loc)
        name = self._sub_body([inner], inner_scope, set(bound))
        fn.fail(f"{name}({fn.ctx}, fr)")

    def _some_in(self, lit: ast.SomeIn, scope: Scope, bound: set, fn: _Fn) -> None:
        coll = self.term(lit.collection, scope, fn, bound)
        c = fn.value(coll)
        value = lit.value
        if lit.key is not None:
            key_slot = scope.new_slot()
            val_slot = scope.new_slot()
            items = "iter_items" if self.ordered else "iter_items_unordered"
            fn.loop(f"fr[{key_slot}], fr[{val_slot}] in {items}({c})")
            self.unify(lit.key, _SlotTerm(key_slot), scope, bound, lit.loc, fn)
            self.unify(value, _SlotTerm(val_slot), scope, bound, lit.loc, fn)
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
                self.unify(value, _SlotTerm(val_slot), scope, bound, lit.loc, fn)
        _static_some_in_check(lit)

    def _every(self, lit: ast.Every, scope: Scope, bound: set, fn: _Fn) -> None:
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

    def _walk(self, call: ast.Call, scope: Scope, bound: set, fn: _Fn) -> None:
        src = self.term(call.args[0], scope, fn, bound)
        slot = scope.new_slot()
        fn.loop(f"fr[{slot}] in BF['walk']({fn.value(src)})")
        self.unify(call.args[1], _SlotTerm(slot), scope, bound, call.loc, fn)

    def _with(self, lit: Any, withs: tuple, scope: Scope, bound: set, fn: _Fn) -> None:
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

    def _with_mod(self, w: ast.With, scope: Scope, bound: set, fn: _Fn) -> Any:
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
        if repl_fn is None and _dotted(value_term) in builtins.opa_builtins():
            raise CompileError(f"unsupported: builtin {_dotted(value_term)}", value_term.loc)
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

    def _mock(self, key: str, repl_fn: str | None, change: Any, fn: _Fn) -> Any:
        if repl_fn is not None:
            return lambda c2: fn.emit(f"with_mock({c2}, {key!r}, {repl_fn})")
        return change(lambda c2, v: f"with_mock({c2}, {key!r}, value_mock({v}))")

    def _function_ref(self, term: Any, scope: Scope) -> str | None:
        """If ``term`` names a function or builtin, an expression for a callable
        ``(ctx, args) -> value``."""
        name = _dotted(term)
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

    # -- unification ------------------------------------------------------------------

    def unify(self, lhs: Any, rhs: Any, scope: Scope, bound: set, loc: ast.Loc, fn: _Fn) -> None:
        for a, b in _decompose(lhs, rhs, loc):
            self._unify_one(a, b, scope, bound, loc, fn)

    def _evaluable(self, term: Any, scope: Scope, bound: set) -> bool:
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        return all(n in bound for n in {**info.plain, **info.pattern})

    def _unify_one(self, a: Any, b: Any, scope: Scope, bound: set, loc: ast.Loc, fn: _Fn) -> None:
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

    def match(self, pattern: Any, v: str, scope: Scope, bound: set, fn: _Fn) -> None:
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

    # -- terms ------------------------------------------------------------------------

    def term(self, t: Any, scope: Scope, fn: _Fn, bound: set) -> str:
        """A Python expression for the value of ``t`` (or UNDEFINED); iterating parts emit
        their loops into ``fn`` first."""
        expr = self._term(t, scope, fn, bound)
        if _nesting(expr) <= _MAX_NESTING:
            return expr
        # Python refuses deeply nested brackets: a function of its own starts again at zero.
        params = "ctx, fr" if fn.ctx == "ctx" else f"ctx, fr, {fn.ctx}"
        return f"{self._fn('x', params, '').finish(f'return {expr}')}({params})"

    def _term(self, t: Any, scope: Scope, fn: _Fn, bound: set) -> str:
        if isinstance(t, ast.Scalar):
            return _lit(t.value)
        if isinstance(t, _SlotTerm):
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
                    # call per key; still undefined when a value is.
                    temps = [fn.temp() for _ in pairs]
                    tests = " or ".join(
                        f"({x} := {v}) is UNDEFINED" for x, (_, v) in zip(temps, pairs, strict=True)
                    )
                    shown = ", ".join(f"{k!r}: {x}" for k, x in zip(keys, temps, strict=True))
                    return f"(UNDEFINED if {tests} else {{{shown}}})"
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
                return (
                    f"(UNDEFINED if (({c} := {coll}), ({v} := {val}))[0] is UNDEFINED "
                    f"or {v} is UNDEFINED else membership({v}, {c}))"
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

    def _var(self, v: ast.Var, scope: Scope, bound: set, fn: _Fn) -> str:
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

    def _global(self, path: tuple, loc: ast.Loc, fn: _Fn) -> str:
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
            return f"index_path({ctx}.input, {rest!r})"
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
            # it the first time, and reports recursion).
            value = (
                f"({t} if ({t} := {ctx}.cache.get({name}, MISSING)) is not MISSING "
                f"and {t} is not IN_PROGRESS else {name}.value({ctx}))"
            )
            if len(rest) == 1 and type(rest[0]) is str:  # cfg.x: a key of an object, no call
                v = fn.temp()
                value = (
                    f"({v}.get({rest[0]!r}, UNDEFINED) if type({v} := {value}) is dict "
                    f"else index({v}, {rest[0]!r}))"
                )
            elif rest:
                value = f"index_path({value}, {rest!r})"
            return f"({overridden} {value})"
        if i < len(dpath) or not node.has_rules():
            return f"({overridden} index_path({ctx}.data, {dpath!r}))"
        self.program.deps[self.group].update(_groups_under(node))
        return f"({overridden} T.node_value({ctx}, {self.module.node(node.path)}))"

    def _ref(self, r: ast.Ref, scope: Scope, fn: _Fn, bound: set) -> str:
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
            if _is_slot(base) and len(keys) == 1 and keys[0][2] and type(r.path[-1].value) is str:
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
                    conds.append(f"({v} := index({v}, {key})) is UNDEFINED")
            if keys[-1][2] and type(r.path[-1].value) is str:
                final = f"({v}.get({key}, UNDEFINED) if type({v}) is dict else index({v}, {key}))"
            else:
                final = f"index({v}, {key})"
            return f"(UNDEFINED if {' or '.join(conds)} else {final})"
        out_slot = scope.new_slot()
        items = "iter_items" if self.ordered else "iter_items_unordered"
        v = fn.temp()
        fn.fail(f"({v} := {base}) is UNDEFINED")
        for key in keys:
            if key[0] == "key":
                k = key[1]
                if not key[2]:
                    k = fn.temp()
                    fn.fail(f"({k} := {key[1]}) is UNDEFINED")
                fn.fail(f"({v} := index({v}, {k})) is UNDEFINED")
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

    def _compr(self, t: Any, scope: Scope, bound: set, fn: _Fn) -> str:
        """A comprehension is a function ``(ctx, fr) -> value`` of its own."""
        inner = Scope(scope, scope.alloc)
        if isinstance(t, ast.ObjectCompr):
            k_slot, v_slot = inner.new_slot(), inner.new_slot()
            tail = [_HeadLit(t.key, k_slot), _HeadLit(t.value, v_slot)]
            init, add, result = "{}", f"object_put(acc, fr[{k_slot}], fr[{v_slot}], None)", "acc"
        else:
            slot = inner.new_slot()
            tail = [_HeadLit(t.term, slot)]
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

    def _binop(self, t: ast.BinOp, scope: Scope, fn: _Fn, bound: set) -> str:
        left = self.term(t.left, scope, fn, bound)
        right = self.term(t.right, scope, fn, bound)
        op = BINOPS.get(t.op)
        if op is None:
            raise CompileError(f"unsupported: operator {t.op}", t.loc)
        where = f"{self.file}, {t.loc.line}, {t.loc.col}"

        def value(vs: list[str]) -> str:
            a, b = vs
            if t.op == "==":
                # A string equals only a string: against a string literal, no call at all.
                if isinstance(t.right, ast.Scalar) and type(t.right.value) is str:
                    return f"(type({a}) is str and {a} == {b})"
                if isinstance(t.left, ast.Scalar) and type(t.left.value) is str:
                    return f"(type({b}) is str and {b} == {a})"
                return f"({a} == {b} if type({a}) is str and type({b}) is str else equal({a}, {b}))"
            return f"binop({op.__name__}, {a}, {b}, {fn.ctx}, {where})"

        return _all_defined(fn, (t.left, t.right), [left, right], value)

    def _call(self, t: ast.Call, scope: Scope, fn: _Fn, bound: set) -> str:
        if t.name == "print":
            return self._print(t, scope, bound, fn)
        kind, target = self.resolve_call(t.name, t.loc)
        arity = target.arity
        if arity >= 0 and len(t.args) != arity:
            word = "argument" if arity == 1 else "arguments"
            raise CompileError(f"`{t.name}` expects {arity} {word}, got {len(t.args)}", t.loc)
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
            operands = [f"({v})" for v in vs]  # (1).isascii(): a literal operand
            test = f"{fn.ctx}.mocks is None{guard.format(*operands)}"
            return f"({fast.format(*operands)} if {test} else {call})"

        return _all_defined(fn, t.args, args, build)

    def _print(self, t: ast.Call, scope: Scope, bound: set, fn: _Fn) -> str:
        self._reads("print")
        mark = len(fn.lines)
        args = [self.term(a, scope, fn, bound) for a in t.args]
        if len(fn.lines) != mark:
            raise CompileError("unsupported: print of an iterating reference", t.loc)
        ctx = fn.ctx
        return f"(True if {ctx}.prints is None else rego_print({ctx}, [{', '.join(args)}]))"


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


def _literal_strings(t: Any) -> list[str] | None:
    """The members of a set or array literal made only of strings (sorted), else None."""
    if not isinstance(t, ast.SetTerm | ast.ArrayTerm) or not t.items:
        return None
    if not all(isinstance(x, ast.Scalar) and type(x.value) is str for x in t.items):
        return None
    return sorted({x.value for x in t.items})


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
        name = _dotted(w.value) or ""
        if not builtins.known(name) and name not in builtins.opa_builtins():
            # `with f as upper` names a builtin, not a var
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


def _all_defined(fn: _Fn, terms: tuple, values: list[str], build: Any) -> str:
    """An expression evaluating ``values`` in order, UNDEFINED at the first undefined one,
    else ``build(names of the values)`` (constants and bound slots need no test)."""
    conds = []
    names = []
    for term, value in zip(terms, values, strict=True):
        if isinstance(term, ast.Scalar) or _is_slot(value):
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


def _is_slot(expr: str) -> bool:
    """Whether ``expr`` reads a frame slot (``fr[3]``)."""
    return expr.startswith("fr[") and expr.endswith("]") and expr[3:-1].isdigit()
