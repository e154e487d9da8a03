"""What the names of a rule body mean and when they are bound: the module's names
(``ModuleEnv``), frame slots (``Scope``), which variables a term or literal uses, binds or needs
bound (``VarInfo``), and OPA's safety reordering of a body's literals (``RuleAnalysis``, the
base of the rule compiler).
"""

from __future__ import annotations

from typing import Any

from hookgate import builtins
from hookgate.lang import ast
from hookgate.lang.codegen import CompileError, GeneratedFunction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hookgate.lang.documents import Group


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


class SlotTerm:
    """A term whose value is already in a frame slot (a function argument, an iterated item)."""

    __slots__ = ("slot", "loc")

    def __init__(self, slot: int) -> None:
        self.slot = slot
        self.loc = ast.Loc(0, 0)


class ArgLit:
    """Matches a function parameter pattern against its argument slot."""

    __slots__ = ("pattern", "slot", "withs")

    def __init__(self, pattern: Any, slot: int) -> None:
        self.pattern = pattern
        self.slot = slot
        self.withs = ()


class HeadLit:
    """Evaluates a rule head term (value, key) into a slot, after the body."""

    __slots__ = ("term", "slot", "withs")

    def __init__(self, term: Any, slot: int) -> None:
        self.term = term
        self.slot = slot
        self.withs = ()


class RuleAnalysis:
    """The rule being compiled and the analysis of its variables; ``TermCompiler``,
    ``LiteralCompiler`` and ``RuleCompiler`` (``hookgate.lang.compile``) build on it. ``program``:
    the ``compile.Program`` the rule belongs to."""

    def __init__(self, program: Any, env: ModuleEnv, group: Group, loc: ast.Loc) -> None:
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

    def _fn(
        self, prefix: str, params: str, exit: str, stop: str = "", acc: str = "acc"
    ) -> GeneratedFunction:
        name = self.module.name(prefix)
        return GeneratedFunction(self.module, name, params, exit, self.loc, stop=stop, acc=acc)

    def _declare(self, literals: list, scope: Scope) -> None:
        """Give a slot to every local variable of this body (not of nested closures), and
        refuse redeclarations (``x := 1`` twice, ``some x`` after a use of ``x``)."""
        seen: dict[str, ast.Loc] = {}
        for lit in literals:
            declared: list[ast.Var] = []
            if isinstance(lit, ast.SomeDecl):
                declared = list(lit.vars)
            elif isinstance(lit, ArgLit):
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
        elif isinstance(term, ast.Scalar | SlotTerm):
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

    def _evaluable(self, term: Any, scope: Scope, bound: set) -> bool:
        info = VarInfo()
        self.vars_of(term, scope, info, "pattern")
        return all(n in bound for n in {**info.plain, **info.pattern})

    def _missing(self, lit: Any, scope: Scope, bound: set) -> dict[str, ast.Loc]:
        """Variables that must be bound before ``lit`` can run and are not yet."""
        need: dict[str, ast.Loc] = {}

        def add_plain(info: VarInfo, allowed: set) -> None:
            for name, loc in info.plain.items():
                if name not in bound and name not in allowed:
                    need.setdefault(name, loc)

        withs = getattr(lit, "withs", ())
        for w in withs:
            if (dotted_name(w.value) or "") in builtins.opa_builtins():
                continue  # names a builtin (`with f as opa.runtime`), not a variable
            info = VarInfo()
            self.vars_of(w.value, scope, info)
            add_plain(info, set())
            for name, loc in {**info.pattern, **info.refout}.items():
                if name not in bound:
                    need.setdefault(name, loc)

        if isinstance(lit, ast.SomeDecl):
            return need
        if isinstance(lit, ArgLit):
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
            # Name the variables that keep the literal from running, not the ones it would
            # bind: `q := w` with `w` unbound is unsafe because of `w`, and so is `q = w`
            # (either side could be the pattern; the right one is the value, as written).
            if l_pat_ok:
                blocking = [ri]
            elif r_pat_ok and not isinstance(term, ast.Assign):
                blocking = [li]
            else:
                blocking = [li, ri]
            for info in blocking:
                for name, loc in {**info.plain, **info.pattern}.items():
                    if name not in bound and name not in refout:
                        need.setdefault(name, loc)
            if not need:
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
        if isinstance(lit, ArgLit):
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


def dotted_name(t: Any) -> str | None:
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


def names_used(lit: Any) -> set[str]:
    """The variable names a literal uses, in its closures (comprehensions, ``every``) too."""
    return {name for name, _ in _free_names(lit) + _nested_closure_names(lit)}


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
    elif isinstance(lit, ArgLit):
        _term_names(lit.pattern, out)
    elif isinstance(lit, HeadLit | ast.Expr):
        _term_names(lit.term, out)
    for w in getattr(lit, "withs", ()):
        name = dotted_name(w.value) or ""
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
    if isinstance(lit, ast.Expr | HeadLit):
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
