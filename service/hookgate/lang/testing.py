"""Policy tests, as ``opa test`` runs them: find the ``test_*`` rules of a policy set, evaluate
each (a test passes when its value is ``true``; undefined, any other value or a run-time error
fails it), and measure which lines of the policies the tests reached (coverage).

``hookgate test`` prints the results; ``hookgate.packcheck`` turns failing tests into problems
that keep a policy set from being activated.

A failing test is explained as pytest explains a failed ``assert`` (``explain``): the literal of
its body that had no solution, at its file:line:col and quoted as written, with the values of
its terms (both sides of ``==``, a call's operands and result, what ``not`` negated, the
collection of ``some … in``). The values come from probe rules compiled next to the test, in its
package and with its imports: each evaluates one term after the literals before it, so the test's
own evaluation stays as fast as it was.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from hookgate.lang import ast
from hookgate.lang.errors import EvalError, PolicyError
from hookgate.lang.policyset import PolicySet


@dataclass(frozen=True, slots=True)
class Test:
    name: str  # data.pkg.test_x
    file: str
    line: int
    col: int = 1


@dataclass
class Result:
    test: Test
    outcome: str  # PASS, FAIL or ERROR
    seconds: float
    prints: list[str]
    error: str | None = None
    value: Any = None  # what the test rule evaluated to (UNDEFINED when its body failed)
    failures: list[Failure] = field(default_factory=list)  # filled by ``explain``


@dataclass(frozen=True, slots=True)
class Shown:
    """One term of a failed literal: as written, and its value (Rego text, or ``undefined``)."""

    text: str
    value: str


@dataclass(frozen=True, slots=True)
class Failure:
    """Why one definition of a test failed: the literal that had no solution, or, when the whole
    body held, the value the test had instead of ``true``."""

    file: str
    line: int
    col: int
    expression: str  # the literal as written (formatted), or the test's head
    terms: tuple[Shown, ...] = ()
    note: str | None = None
    inner: Failure | None = None  # for ``every``: the body's literal that failed, first item


def one_line(f: Failure) -> str:
    """``f`` on one line, for reports that list problems (``check``, ``publish``, the server's
    pack check): where, the literal as written, and its terms' values."""
    where = "; ".join(f"{t.text} = {t.value}".replace("\n", " ") for t in f.terms)
    text = f"{f.file}:{f.line}:{f.col}: {' '.join(f.expression.split())}"
    text += f" (where {where})" if where else ""
    text += f" ({f.note})" if f.note else ""
    return text + (f"; for that item: {one_line(f.inner)}" if f.inner is not None else "")


@dataclass(frozen=True, slots=True)
class FileCoverage:
    filename: str
    lines: frozenset[int]  # the lines evaluation can reach
    ran: frozenset[int]  # those it reached


def discover(modules: list[ast.Module]) -> list[Test]:
    """Every ``test_*`` rule (one per name), in file and line order."""
    tests: dict[str, Test] = {}
    for module in modules:
        for rule in module.rules:
            if rule.kind == "complete" and rule.ref[-1].startswith("test_"):
                name = _ref_text((*module.package, *rule.ref))
                loc = rule.loc
                tests.setdefault(name, Test(name, module.filename, loc.line, loc.col))
    return sorted(tests.values(), key=lambda t: (t.file, t.line))


def _ref_text(path: tuple[str, ...]) -> str:
    """``data.a.b``, with ``["…"]`` for keys that are not names (``data.a["b-c"]``)."""
    out = "data"
    for key in path:
        out += f".{key}" if key.isidentifier() else "[" + json.dumps(key) + "]"
    return out


def run_test(ps: PolicySet, test: Test, timeout: float | None = None) -> Result:
    """Evaluate one test; its ``print()`` lines are kept in the result."""
    prints: list[str] = []
    start = time.perf_counter()
    try:
        value = ps.query(test.name, prints=prints, timeout=timeout)
    except (EvalError, PolicyError) as exc:
        return Result(test, "ERROR", time.perf_counter() - start, prints, str(exc))
    outcome = "PASS" if value is True else "FAIL"
    return Result(test, outcome, time.perf_counter() - start, prints, value=value)


def coverable_lines(module: ast.Module) -> set[int]:
    """The lines of a module that evaluation can reach: rule heads and body literals."""
    from hookgate.lang.check import walk

    lines: set[int] = set()
    for rule in module.rules:
        for node in walk(rule):
            if isinstance(node, ast.Rule | ast.Else | ast.Expr | ast.SomeIn | ast.Every):
                lines.add(node.loc.line)
    return lines


def coverage(modules: list[ast.Module], covered: set) -> list[FileCoverage]:
    """The line coverage of each non-test module, by file name. ``covered`` holds the
    ``(filename, line)`` pairs the evaluator reported (``PolicySet.coverage``)."""
    out = []
    for module in sorted(modules, key=lambda m: m.filename):
        if module.filename.endswith("_test.rego"):
            continue
        lines = coverable_lines(module)
        ran = {line for line in lines if (module.filename, line) in covered}
        out.append(FileCoverage(module.filename, frozenset(lines), frozenset(ran)))
    return out


# ---------------------------------------------------------------------------------------------
# Explaining failures
# ---------------------------------------------------------------------------------------------

_PROBE = "hookgate_probe__"  # prefix of the probe rules' names: no policy writes it
_MAX_TERMS = 8  # terms shown per failed literal (pytest shows the operands it rewrote)
_MAX_VALUE = 400  # characters of one value shown
_COMPARISONS = frozenset({"==", "!=", "<", "<=", ">", ">="})


def explain(ps: PolicySet, results: list[Result], timeout: float | None = None) -> None:
    """Fill ``failures`` of each failed result (``FAIL``: its value was not ``true``)."""
    plans = [_Plan(ps, r) for r in results if r.outcome == "FAIL"]
    plans = [p for p in plans if p.definitions]
    if not plans:
        return
    # All probes in one program; should one not compile (a variable our reading of the body
    # took for bound), each test is probed alone, then without term values.
    if not _probe(ps, plans, timeout, values=True):
        for plan in plans:
            if not _probe(ps, [plan], timeout, values=True):
                _probe(ps, [plan], timeout, values=False)
    for plan in plans:
        plan.result.failures = plan.failures()


class _Definition:
    """One definition of a test rule (a test may have several) and its probes."""

    def __init__(self, rule: ast.Rule, text: Any, known: set[str], prefix: str) -> None:
        self.rule = rule
        self.text = text  # fmt.SourceText of the test's module
        self.known = known  # names bound before any literal: the package's rules, imports
        self.prefix = prefix  # this definition's probe names start with it
        self.counts: list[Any] | None = None  # solutions of the first k literals, k = 1..n
        self.values: dict[tuple, Any] = {}  # (literal, term) → values per solution, and more
        self.terms: list[list[ast.Node]] = []  # the terms shown, per literal
        self.every_terms: dict[
            int, list[list[ast.Node]]
        ] = {}  # per every literal, per body literal

    def rules(self, values: bool) -> list[str]:
        """The probe rules: the number of solutions of each prefix of the body and, with
        ``values``, each shown term's values after the literals before it."""
        body = self.rule.body
        texts = [self.text.literal(lit) for lit in body]
        out = []
        known = set(self.known)
        self.terms = []
        for k, lit in enumerate(body):
            before = "\n".join(texts[:k]) or "true"
            out.append(f"{self.prefix}c{k} := count([1 |\n{before}\n{texts[k]}\n])")
            shown = [t for t in _shown_terms(lit) if _vars(t) <= known] if values else []
            self.terms.append(shown[:_MAX_TERMS])
            for j, term in enumerate(self.terms[-1]):
                x = ast.Var(f"{_PROBE}x", lit.loc)
                probe = ast.Expr(ast.Assign(x, term, lit.loc), lit.loc, False, lit.withs)
                out.append(
                    f"{self.prefix}v{k}_{j} := [{_PROBE}x |\n{before}\n"
                    f"{self.text.literal(probe)}\n]"
                )
            if values and isinstance(lit, ast.Every) and not lit.withs:
                if _vars(lit.domain) <= known:
                    out.append(self._every_probe(k, lit, before))
                    out += self._every_body_probes(k, lit, before, known)
            known |= _bound_by(lit)
        return out

    def _every_body_probes(self, k: int, lit: ast.Every, before: str, known: set) -> list[str]:
        """Per item of the domain (in the order ``every`` takes them): the solutions of each
        prefix of the body (``E``), and the values of each shown term of each body literal
        after the literals before it (``F``)."""
        names = f"{lit.key.name}, {lit.value.name}" if lit.key is not None else lit.value.name
        items = f"{before}\nsome {names} in {self.text.term(lit.domain)}"
        texts = [self.text.literal(b) for b in lit.body]
        inner_known = known | {lit.value.name} | ({lit.key.name} if lit.key is not None else set())
        out = []
        self.every_terms[k] = []
        for m, blit in enumerate(lit.body):
            inner = "\n".join(texts[:m]) or "true"
            out.append(
                f"{self.prefix}E{k}_{m} := [count([1 |\n{inner}\n{texts[m]}\n]) |\n{items}\n]"
            )
            shown = [t for t in _shown_terms(blit) if _vars(t) <= inner_known][:_MAX_TERMS]
            self.every_terms[k].append(shown)
            for j, term in enumerate(shown):
                x = ast.Var(f"{_PROBE}x", blit.loc)
                probe = ast.Expr(ast.Assign(x, term, blit.loc), blit.loc, False, blit.withs)
                out.append(
                    f"{self.prefix}F{k}_{m}_{j} := [[{_PROBE}x |\n{inner}\n"
                    f"{self.text.literal(probe)}\n] |\n{items}\n]"
                )
            inner_known = inner_known | _bound_by(blit)
        return out

    def _every_failure(self, file: str, k: int, lit: ast.Every) -> Failure | None:
        """The first item's failed body literal, with its terms' values for that item."""
        per_literal = [self.values.get((k, "E", m)) for m in range(len(lit.body))]
        if not per_literal or not all(isinstance(c, list) for c in per_literal):
            return None
        size = min(len(c) for c in per_literal)
        for i in range(size):
            m = next((m for m, c in enumerate(per_literal) if c[i] == 0), None)
            if m is None:
                continue
            blit = lit.body[m]
            shown = []
            terms = self.every_terms.get(k, [])
            for j, term in enumerate(terms[m] if m < len(terms) else ()):
                found = self.values.get((k, "F", m, j))
                if isinstance(found, list) and i < len(found) and isinstance(found[i], list):
                    value = _render(found[i][0]) if found[i] else "undefined"
                    _show(shown, self.text.term(term), value)
            text = self.text.literal(blit)
            return Failure(file, blit.loc.line, blit.loc.col, text, tuple(shown))
        return None

    def _every_probe(self, k: int, lit: ast.Every, before: str) -> str:
        """The items of an ``every``'s domain its body fails for, as ``[key, value]``."""
        key = lit.key.name if lit.key is not None else "null"
        names = f"{lit.key.name}, {lit.value.name}" if lit.key is not None else lit.value.name
        body = "\n".join(self.text.literal(b) for b in lit.body) or "true"
        return (
            f"{self.prefix}e{k} := [[{key}, {lit.value.name}] |\n{before}\n"
            f"some {names} in {self.text.term(lit.domain)}\ncount([1 |\n{body}\n]) == 0\n]"
        )

    def failure(self, file: str, value: Any) -> Failure:
        from hookgate.lang.values import UNDEFINED

        rule = self.rule
        counts = self.counts
        failed = None if counts is None else next((k for k, n in enumerate(counts) if n == 0), None)
        if failed is None or counts is None:
            head = ".".join(rule.ref)
            if rule.value is not None:
                head += f" {rule.assign_op or ':='} {self.text.term(rule.value)}"
            what = "undefined" if value is UNDEFINED else _render(value)
            if counts is None:
                note = "its body could not be probed"
            elif rule.body:
                note = f"the body holds, but the test's value is {what}, not true"
            else:
                note = f"the test's value is {what}, not true"
            return Failure(file, rule.loc.line, rule.loc.col, head, note=note)
        lit = rule.body[failed]
        shown = []
        solutions = None
        for j, term in enumerate(self.terms[failed] if failed < len(self.terms) else ()):
            found = self.values.get((failed, j))
            if found is None:
                continue
            vals = found if isinstance(found, list) else []
            _show(shown, self.text.term(term), _render(vals[0]) if vals else "undefined")
        items = self.values.get((failed, -1))
        if isinstance(lit, ast.Every) and isinstance(items, list) and items:
            if lit.key is not None:
                shown.append(Shown(lit.key.name, _render(items[0][0])))
            shown.append(Shown(lit.value.name, _render(items[0][1]) + _first_of(len(items))))
        if failed > 0 and counts[failed - 1] != 1:
            solutions = counts[failed - 1]
        note = None
        if solutions:
            note = f"it failed for each of the {solutions} solutions of the lines before it"
            note += "; the values shown are the first's"
        inner = self._every_failure(file, failed, lit) if isinstance(lit, ast.Every) else None
        text = self.text.literal(lit)
        return Failure(file, lit.loc.line, lit.loc.col, text, tuple(shown), note, inner)


class _Plan:
    """The probes of one failed test."""

    def __init__(self, ps: PolicySet, result: Result) -> None:
        from hookgate.lang.fmt import SourceText
        from hookgate.lang.parser import parse_module

        self.result = result
        self.definitions: list[_Definition] = []
        test = result.test
        source = ps.sources.get(test.file)
        if source is None:
            return
        # Parsed again, unscoped: the text is quoted as written (scoping renames variables).
        self.module = module = parse_module(source, test.file)
        text = SourceText(module, source)
        known = {"input", "data"}
        for m in ps.modules:
            if m.package == module.package:
                known.update(r.ref[0] for r in m.rules)
        for imp in module.imports:
            known.add(imp.alias or imp.path[-1])
        self.package = text.package()
        self.imports = text.imports()
        path = test.name
        for n, rule in enumerate(module.rules):
            if rule.kind == "complete" and not rule.default:
                if _ref_text((*module.package, *rule.ref)) == path:
                    prefix = f"{_PROBE}{id(self)}_{n}_"
                    self.definitions.append(_Definition(rule, text, known, prefix))

    def source(self, values: bool) -> str:
        lines = [self.package, "", *self.imports, ""]
        for d in self.definitions:
            lines += d.rules(values)
        return "\n".join(lines) + "\n"

    def failures(self) -> list[Failure]:
        file = self.result.test.file
        return [d.failure(file, self.result.value) for d in self.definitions]


def _probe(ps: PolicySet, plans: list[_Plan], timeout: float | None, *, values: bool) -> bool:
    """Compile the probes of ``plans`` next to the policies and evaluate them; False when they
    do not compile or evaluate."""
    from hookgate.lang.compile import Program
    from hookgate.lang.documents import run
    from hookgate.lang.parser import parse_module
    from hookgate.lang.scopes import scope_module

    try:
        probes = [
            scope_module(parse_module(p.source(values), f"<probe {i}>"))
            for i, p in enumerate(plans)
        ]
        program = Program([*ps.modules, *probes])
        if program.diagnostics:
            return False
        probed = PolicySet(run(program.code()), [*ps.modules, *probes], ps.data, ps.sources)
        refs: list[tuple[_Definition, str, Any]] = []
        for plan, module in zip(plans, probes, strict=True):
            for d in plan.definitions:
                for rule in module.rules:
                    name = rule.ref[0]
                    if name.startswith(d.prefix):
                        refs.append((d, _ref_text((*module.package, name)), name[len(d.prefix) :]))
        answers = probed.query_many([r for _, r, _ in refs], prints=[], timeout=timeout)
    except (PolicyError, EvalError, RecursionError):
        return False
    for d in {d for p in plans for d in p.definitions}:
        d.counts = [0] * len(d.rule.body)
        d.values = {}
    for (d, _, key), answer in zip(refs, answers, strict=True):
        if key.startswith("c"):
            d.counts[int(key[1:])] = answer if isinstance(answer, int) else 0
        elif key.startswith("e"):
            d.values[int(key[1:]), -1] = answer
        elif key.startswith("E"):
            k, m = key[1:].split("_")
            d.values[int(k), "E", int(m)] = answer
        elif key.startswith("F"):
            k, m, j = key[1:].split("_")
            d.values[int(k), "F", int(m), int(j)] = answer
        else:
            k, j = key[1:].split("_")
            d.values[int(k), int(j)] = answer
    return True


def _shown_terms(lit: ast.Node) -> list[ast.Node]:
    """The terms of a literal worth showing, outermost first: what ``not`` negated, both sides
    of a comparison and what they are made of, a call's result and operands, the collection of
    ``some … in`` and the domain of ``every``; no constants."""
    if isinstance(lit, ast.SomeIn):
        return _collect(lit.collection, [])
    if isinstance(lit, ast.Every):
        return _collect(lit.domain, [])
    if not isinstance(lit, ast.Expr):
        return []
    term = lit.term
    if isinstance(term, ast.Assign):
        return _collect(term.rhs, [])
    if isinstance(term, ast.Unify):
        return _collect(term.lhs, _collect(term.rhs, []))
    out: list[ast.Node] = []
    if isinstance(term, ast.BinOp) and term.op in _COMPARISONS:
        _collect(term.left, out)
        _collect(term.right, out)
        return out
    if isinstance(term, ast.Membership):
        for part in (term.key, term.value, term.collection):
            if part is not None:
                _collect(part, out)
        return out
    return _collect(term, out)


def _collect(term: Any, out: list, depth: int = 0) -> list:
    if term is None or depth > 3 or _constant(term) or term in out:
        return out
    if isinstance(term, ast.Var) and (term.name in ("_", "input", "data")):
        return out
    out.append(term)
    if isinstance(term, ast.Call):
        for a in term.args:
            _collect(a, out, depth + 1)
    elif isinstance(term, ast.BinOp):
        _collect(term.left, out, depth + 1)
        _collect(term.right, out, depth + 1)
    elif isinstance(term, ast.UnaryMinus):
        _collect(term.term, out, depth + 1)
    elif isinstance(term, ast.Ref):
        if isinstance(term.head, ast.Var | ast.Call):
            _collect(term.head, out, depth + 1)
        for el in term.path:
            _collect(el, out, depth + 1)
    elif isinstance(term, ast.ArrayTerm | ast.SetTerm):
        for it in term.items:
            _collect(it, out, depth + 1)
    elif isinstance(term, ast.ObjectTerm):
        for _, v in term.items:
            _collect(v, out, depth + 1)
    return out


def _constant(term: Any) -> bool:
    if isinstance(term, ast.Scalar):
        return True
    if isinstance(term, ast.ArrayTerm | ast.SetTerm):
        return all(_constant(t) for t in term.items)
    if isinstance(term, ast.ObjectTerm):
        return all(_constant(k) and _constant(v) for k, v in term.items)
    return False


_COMPRS = (ast.ArrayCompr, ast.SetCompr, ast.ObjectCompr, ast.Every)


def _vars(term: Any) -> set[str]:
    """The variable names a term uses, outside the comprehensions in it (those declare their
    own, and the compiler checks the rest)."""
    from hookgate.lang.check import children

    out: set[str] = set()
    stack = [term]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if isinstance(node, ast.Var):
            out.add(node.name)
        elif not isinstance(node, _COMPRS):
            stack.extend(children(node))
    out.discard("_")
    return out


def _bound_by(lit: Any) -> set[str]:
    """The variable names a literal may bind (every name it uses outside comprehensions: a
    probe naming one it does not bind fails to compile, and is then left out)."""
    if isinstance(lit, ast.SomeDecl):
        return {v.name for v in lit.vars}
    if isinstance(lit, ast.SomeIn):
        return _vars(lit.key) | _vars(lit.value) | _vars(lit.collection)
    if isinstance(lit, ast.Expr) and not lit.negated:
        return _vars(lit.term)
    return set()


def _show(shown: list[Shown], text: str, value: str) -> None:
    """Add a term once (the same variable written twice in a literal is shown once)."""
    if all(s.text != text for s in shown):
        shown.append(Shown(text, value))


def _first_of(n: int) -> str:
    return (
        "  (the item the body fails for)" if n == 1 else f"  (the first of {n} items it fails for)"
    )


def _render(value: Any) -> str:
    from hookgate.builtins.strings import rego_text
    from hookgate.lang.values import UNDEFINED

    if value is UNDEFINED:
        return "undefined"
    text = rego_text(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"
