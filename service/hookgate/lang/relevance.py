"""Which rule groups cannot concern a call: an emptiness analysis of the compiled rules.

Most rules of a guard pack concern one kind of call: a set whose every definition starts from
``some c in lib.commands`` is empty for a Read, a complete rule ``x := [… | some e in
input.effects …]`` is ``[]`` when the call has no effects. The compiler (``RuleCompiler``)
describes, for each definition, the first literal that can fail (``tests``) or, for a complete
rule without a body, how its value is made (``value``). From those this module works out, for
each group, a set of facts about the input (*atoms*: ``input.tool_kind == "shell"``, "``input.
effects`` has members") and the value the group has whenever none of them holds (its *empty*
value), through the references between groups: a set of ``some r in violations`` is empty
whenever ``violations`` is.

At run time the atoms are tested once per evaluation (``relevance``, a bit mask in
``Ctx.relevant``) and a group none of whose atoms holds has its empty value without running
anything (``documents.Group``). Exactness: a group is given atoms only when, with all of them
false, every definition fails at a literal that reads nothing but the input, base data, rules
fixed by the base data or groups that are themselves empty by the same argument, so no
definition could have added a value, raised an error or printed. With ``with`` replacing data
or a function, every group runs (the mask is ``-1``). An atom may hold when it need not (a
``count`` that could be an error, ``lower`` of a non-ASCII key, one set without its test because
an earlier atom every need naming it names holds): that only runs a group for nothing.

Descriptors (tuples the compiler makes):
- a source of a value: ``("input", expr)`` (a constant path of the input, as a Python
  expression), ``("oget", expr)`` (``object.get(input, key, <empty collection>)``, ``expr``
  reading ``input[key]``: the same members when the input is an object), ``("rule",
  group, keys)`` (a rule, then constant keys into its value), ``("base", keys)`` (base data),
  ``("keyed", table, key, lowered, keys)`` (a table of base data indexed by an input value,
  ``lower``ed or not, then constant keys: ``cfg.fields[input.tool_kind]``, read at run time
  from the evaluation's data; ``table``: ``(alias, keys, base)``, the keys into base data and,
  when the reference goes through a rule that is another name for base data (``cfg :=
  data.…``, fixed by the base data), that rule and the keys after it);
- a test: ``(kind, source, arg)``, kind ``members`` (``some x in s``), ``holds`` (``s`` alone),
  ``defined`` (``x := s``), ``equals`` (``s == arg``, a string), ``one_of`` (``s in {"a",
  "b"}``, ``arg`` the strings of a literal set or array), ``string`` (``is_string(s)``) or
  ``longer`` (``count(s) > arg``, a number: a literal or a rule of one constant definition);
- a value: ``("const", v)``, ``("rule", group, keys)``, ``("compr", test)`` (an array
  comprehension, ``[]`` when its first literal fails), ``("concat", a, b)`` (``array.concat``).
"""

from __future__ import annotations

from hookgate.lang import ast
from hookgate.lang.codegen import index_expr
from hookgate.lang.documents import EMPTY_SET, Group, has_members, holds
from hookgate.lang.runtime import index_path
from hookgate.lang.safety import is_wild
from hookgate.lang.values import UNDEFINED, RegoSet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from hookgate.lang.safety import Scope


class DefinitionReader:
    """What the rule compiler (``compile.RuleCompiler``, which this is a part of) tells
    ``Relevance`` about a definition: its first literals as tests (``tests``) and how a complete
    rule without a body makes its value (``value_source``). Uses the compiler's ``program``,
    ``env`` and ``_constant_path``."""

    program: Any
    env: Any

    def _constant_path(self, term: Any, scope: Any) -> tuple | None:
        raise NotImplementedError

    def tests(self, order: list, scope: Scope) -> list:
        """The body's literals in the order they run, as ``relevance`` tests, up to the first
        that is not one (None then): ``some x in s``, ``s``, ``x := s``, ``s == "str"``."""
        out: list = []
        for i, lit in enumerate(order):
            test = self._test(lit, scope)
            if test is not None and test[0] == "members" and i + 1 < len(order):
                test = self._narrowed(test, lit, order[i + 1], scope)
            out.append(test)
            if test is None:
                break
        return out

    def _narrowed(self, test: tuple, lit: Any, after: Any, scope: Scope) -> tuple:
        """``some e in s`` then ``e.kind == "run"`` (or ``op := ops[e.kind]``, ``ops`` an object
        of constant keys): no solution unless a member of ``s`` has such a kind."""
        var = getattr(lit, "value", None)  # a Membership literal (`"git" in s`) has none
        if not isinstance(lit, ast.SomeIn) or not isinstance(var, ast.Var) or is_wild(var):
            return test
        if not isinstance(after, ast.Expr) or after.negated or after.withs:
            return test
        term, keys, values = after.term, None, None
        if isinstance(term, ast.BinOp) and term.op == "==":
            for side, other in ((term.left, term.right), (term.right, term.left)):
                if isinstance(other, ast.Scalar) and type(other.value) is str:
                    keys, values = _member_path(side, var), frozenset((other.value,))
                    if keys is not None:
                        break
        elif (
            isinstance(term, ast.Assign)
            and isinstance(term.rhs, ast.Ref)
            and len(term.rhs.path) == 1
            and isinstance(term.rhs.head, ast.Var)
        ):
            keys = _member_path(term.rhs.path[0], var)
            values = self._object_keys(term.rhs.head, scope)
        elif isinstance(term, ast.Membership) and term.key is None:  # e.kind in {"a", "b"}
            values = _strings(term.collection)
            keys = _member_path(term.value, var) if values is not None else None
        if keys is None or values is None:
            return test
        return ("members_where", test[1], (keys, values))

    def _object_keys(self, var: ast.Var, scope: Scope) -> frozenset | None:
        """The keys of a rule whose one definition is an object of constant string keys."""
        path = self._constant_path(var, scope)
        if path is None or path[0] != "data":
            return None
        node, i = self.program.find(path[1:])
        rules = self.program.rules.get(node.group, ()) if i == len(path) - 1 else ()
        if len(rules) != 1 or rules[0][0].body or rules[0][0].elses:
            return None
        value = rules[0][0].value
        if not isinstance(value, ast.ObjectTerm) or not all(
            isinstance(k, ast.Scalar) and type(k.value) is str for k, _ in value.items
        ):
            return None
        return frozenset(k.value for k, _ in value.items)

    def _test(self, lit: Any, scope: Scope) -> tuple | None:
        if getattr(lit, "withs", ()):
            return None
        if isinstance(lit, ast.SomeIn):
            source = self._source(lit.collection, scope)
            return None if source is None else ("members", source, None)
        if not isinstance(lit, ast.Expr) or lit.negated:
            return None
        term = lit.term
        if isinstance(term, ast.Assign):
            if not isinstance(term.lhs, ast.Var) or is_wild(term.lhs):
                return None
            source = self._source(term.rhs, scope)
            return None if source is None else ("defined", source, None)
        if isinstance(term, ast.Membership):
            if term.key is not None:
                return None
            strings = _strings(term.collection)
            if strings is not None:  # input.kind in {"a", "b"}
                source = self._source(term.value, scope)
                return None if source is None else ("one_of", source, strings)
            if not isinstance(term.value, ast.Scalar):
                return None
            source = self._source(term.collection, scope)
            return None if source is None else ("members", source, None)
        if isinstance(term, ast.Call) and term.name == "is_string" and len(term.args) == 1:
            source = self._source(term.args[0], scope)
            return None if source is None else ("string", source, None)
        if isinstance(term, ast.BinOp):
            left = term.left
            n = self._number(term.right, scope) if term.op == ">" else None
            if n and isinstance(left, ast.Call) and left.name == "count" and len(left.args) == 1:
                source = self._source(left.args[0], scope)
                return None if source is None else ("longer", source, n)
            if term.op in (">", "!=") and isinstance(term.right, ast.Scalar):
                # count(a) + count(b & k) > 0: no solution unless one of them has members
                counted = self._counted(term.left, scope) if term.right.value == 0 else None
                return None if counted is None else ("members_any", counted, None)
            if term.op != "==":
                return None
            for side, other in ((term.left, term.right), (term.right, term.left)):
                if isinstance(other, ast.Scalar) and type(other.value) is str:
                    source = self._source(side, scope)
                    if source is not None:
                        return ("equals", source, other.value)
            return None
        source = self._source(term, scope)
        return None if source is None else ("holds", source, None)

    def _number(self, term: Any, scope: Scope) -> int | float | None:
        """A number literal, or the value of a rule whose one definition is one."""
        if not isinstance(term, ast.Scalar):
            path = self._constant_path(term, scope)
            if path is None or path[0] != "data":
                return None
            node, i = self.program.find(path[1:])
            rules = self.program.rules.get(node.group, ()) if i == len(path) - 1 else ()
            if len(rules) != 1 or rules[0][0].body or rules[0][0].elses or rules[0][0].default:
                return None
            term = rules[0][0].value
        if isinstance(term, ast.Scalar) and type(term.value) in (int, float):
            return term.value
        return None

    def _counted(self, term: Any, scope: Scope) -> list | None:
        """The sources of a sum of ``count(s)`` (``s`` or ``s & t``), or None."""
        if isinstance(term, ast.BinOp) and term.op == "+":
            a, b = self._counted(term.left, scope), self._counted(term.right, scope)
            return None if a is None or b is None else a + b
        if not (isinstance(term, ast.Call) and term.name == "count" and len(term.args) == 1):
            return None
        arg = term.args[0]
        if not (isinstance(arg, ast.BinOp) and arg.op == "&"):
            source = self._source(arg, scope)
            return None if source is None else [("counted", source)]
        # s & {"a", "b"}: an empty set or undefined when s is (any other s is left alone: the
        # intersection of a non-set is an error)
        for side, other in ((arg.left, arg.right), (arg.right, arg.left)):
            if isinstance(other, ast.SetTerm) and all(ast.is_constant(x) for x in other.items):
                source = self._source(side, scope)
                if source is not None and source[0] == "rule":
                    return [("intersected", source)]
        return None

    def _source(self, term: Any, scope: Scope) -> tuple | None:
        """What ``relevance`` knows of where ``term``'s value comes from (its module doc)."""
        if isinstance(term, ast.Call):
            if (
                term.name == "object.get"
                and len(term.args) == 3
                and self._constant_path(term.args[0], scope) == ("input",)
                and isinstance(term.args[1], ast.Scalar)
                and type(term.args[1].value) is str
                and isinstance(term.args[2], ast.ArrayTerm | ast.SetTerm | ast.ObjectTerm)
                and not term.args[2].items
            ):
                key = term.args[1].value
                return ("oget", index_expr("ctx.input", (key,)))
            return None
        path = self._constant_path(term, scope)
        if path is None:
            return self._keyed(term, scope)
        if path[0] == "input":
            return ("input", index_expr("ctx.input", path[1:]))
        node, i = self.program.find(path[1:])
        group = node.group
        if group is not None:
            return None if group.kind == "function" else ("rule", group, path[1 + i :])
        return ("base", path[1:]) if i < len(path) - 1 or not node.has_rules() else None

    def _keyed(self, term: Any, scope: Scope) -> tuple | None:
        """``t[input.k]`` or ``t[lower(input.k)]``, then constant keys, ``t`` a table of base
        data (or a rule that is only another name for one, ``cfg := data.x``)."""
        if not isinstance(term, ast.Ref):
            return None
        at = next((i for i, k in enumerate(term.path) if not _string(k)), None)
        if at is None or not all(_string(k) for k in term.path[at + 1 :]):
            return None
        key, lowered = term.path[at], False
        if isinstance(key, ast.Call) and key.name == "lower" and len(key.args) == 1:
            key, lowered = key.args[0], True
        key_path = self._constant_path(key, scope)
        prefix = ast.Ref(term.head, term.path[:at], term.loc) if at else term.head
        table = self._table(self._constant_path(prefix, scope))
        if table is None or key_path is None or key_path[0] != "input":
            return None
        rest = tuple(k.value for k in term.path[at + 1 :])
        return ("keyed", table, index_expr("ctx.input", key_path[1:]), lowered, rest)

    def _table(self, path: tuple | None) -> tuple | None:
        """``(alias, keys, base)`` of a data path (the ``keyed`` source's table): one no rule
        defines (``alias`` None), or one through a rule whose only definition is another name
        for base data (``cfg := data.hookgate.config.x``: no body, no default)."""
        if path is None or path[0] != "data":
            return None
        node, i = self.program.find(path[1:])
        group = node.group
        if group is None:
            return (None, (), path[1:]) if i < len(path) - 1 or not node.has_rules() else None
        rules = self.program.rules.get(group, ())
        if group.kind != "complete" or len(rules) != 1:
            return None
        rule = rules[0][0]
        value = rule.value
        if rule.body or rule.elses or rule.default or not isinstance(value, ast.Ref):
            return None
        if not (isinstance(value.head, ast.Var) and value.head.name == "data"):
            return None
        if not all(_string(k) for k in value.path):
            return None
        aliased = self._table(("data", *(k.value for k in value.path)))
        if aliased is None or aliased[0] is not None:
            return None
        keys = path[1 + i :]
        return (group, keys, (*aliased[2], *keys))

    def value_source(self, term: Any, scope: Scope | None) -> tuple | None:
        """How a complete rule's value is made when it has no body, for ``relevance``."""
        if isinstance(term, ast.Scalar):
            return ("const", term.value)
        if isinstance(term, ast.ArrayTerm) and not term.items:
            return ("const", [])
        if scope is None:
            return None
        if isinstance(term, ast.ArrayCompr):
            first = term.body[0] if term.body else None
            # Runs first (reordering is stable and it needs no variable) unless a name it
            # reads is one the comprehension declares.
            if isinstance(first, ast.SomeIn) and not first.withs:
                head = first.collection
                head = head.head if isinstance(head, ast.Ref) else head
                head = head.args[0] if isinstance(head, ast.Call) and head.args else head
                declared = _declared(term.body)
                if isinstance(head, ast.Var) and head.name not in declared:
                    source = self._source(first.collection, scope)
                    if source is None:
                        return None
                    test = ("members", source, None)
                    after = term.body[1] if len(term.body) > 1 else None
                    read = (
                        after.term.rhs
                        if isinstance(getattr(after, "term", None), ast.Assign)
                        else after
                    )
                    if after is not None and not _reads(read, declared - {first.value.name}):
                        test = self._narrowed(test, first, after, scope)
                    return ("compr", test)
            return None
        if isinstance(term, ast.Call):
            if term.name == "array.concat" and len(term.args) == 2:
                a, b = (self.value_source(t, scope) for t in term.args)
                return None if a is None or b is None else ("concat", a, b)
            return None
        source = self._source(term, scope)
        return source if source is not None and source[0] == "rule" else None


def _string(term: Any) -> bool:
    return isinstance(term, ast.Scalar) and type(term.value) is str


def _strings(term: Any) -> frozenset | None:
    """The members of a literal set or array of strings (``{"a", "b"}``), or None. Only a
    string is equal to one of them, so ``x in`` it holds only for such a string."""
    if isinstance(term, ast.SetTerm | ast.ArrayTerm) and all(_string(x) for x in term.items):
        return frozenset(x.value for x in term.items)
    return None


def _member_path(term: Any, var: ast.Var) -> tuple | None:
    """The constant string keys of ``var.a.b``, or None."""
    if (
        isinstance(term, ast.Ref)
        and isinstance(term.head, ast.Var)
        and term.head.name == var.name
        and term.path
        and all(isinstance(k, ast.Scalar) and type(k.value) is str for k in term.path)
    ):
        return tuple(k.value for k in term.path)
    return None


def _reads(lit: Any, names: set) -> bool:
    """Whether the literal names one of ``names`` (a variable its comprehension declares)."""
    if isinstance(lit, ast.Var):
        return lit.name in names
    if isinstance(lit, ast.Node):
        return any(_reads(v, names) for _, v in ast.fields(lit))
    if isinstance(lit, tuple):
        return any(_reads(x, names) for x in lit)
    return False


def _declared(body: tuple) -> set[str]:
    """The names a body declares (``some``, ``some … in``, ``:=``)."""
    names: set[str] = set()

    def add(t: Any) -> None:
        if isinstance(t, ast.Var):
            names.add(t.name)
        elif isinstance(t, ast.ArrayTerm | ast.SetTerm):
            for x in t.items:
                add(x)
        elif isinstance(t, ast.ObjectTerm):
            for _, v in t.items:
                add(v)

    for lit in body:
        if isinstance(lit, ast.SomeIn):
            add(lit.key)
            add(lit.value)
        elif isinstance(lit, ast.SomeDecl):
            for v in lit.vars:
                add(v)
        elif isinstance(lit, ast.Expr) and isinstance(lit.term, ast.Assign):
            add(lit.term.lhs)
    return names


# Marks a rule group in an atom's expression (``Relevance.tables``), by its index there, until
# the group's name in the generated module is known (repr never writes the character).
_ALIAS = "\x00"

# Empty values the generated module can spell (the names are in its namespace).
_SPELLED = {id(UNDEFINED): "UNDEFINED", id(EMPTY_SET): "EMPTY_SET"}


class Relevance:
    """Each group's atoms (as a bit mask) and empty value, from the compiler's descriptors.

    ``branches``: for each group, its definitions (defaults excluded), each a list of
    branches (a definition and its ``else``s): ``("body", tests)`` or ``("value", value)``.
    ``defaults``: a group's default value as a descriptor value. ``constants``: the groups
    fixed by the base data. A group not in ``branches`` (a function, one with a definition the
    compiler could not describe) is always computed."""

    def __init__(
        self,
        branches: dict[Group, list[list[tuple]] | None],
        defaults: dict[Group, tuple | None],
        constants: set[Group],
    ) -> None:
        self.branches = branches
        self.defaults = defaults
        self.constants = constants
        self.atoms: dict[str, int] = {}
        # The members' strings at a key path of an input value, each collected once per
        # evaluation for every ``some e in s; e.kind == "…"`` atom on it.
        self.collected: dict[tuple[str, tuple], str] = {}
        # The rules fixed by the base data whose values atoms read (``_ALIAS``).
        self.tables: list[Group] = []
        # The reads of the input the atoms spell (each an expression of ``ctx.input`` alone):
        # one spelled more than once is read once, at the top of the generated function.
        self.reads: set[str] = set()
        self._info: dict[Group, tuple[int, Any] | None] = {}
        # member_fact's cache keys the generated tests read (source: its constant's name).
        self.found: dict[str, str] = {}

    def group(self, g: Group) -> tuple[tuple, Any] | None:
        """``(needs, empty)``: ``g``'s value is ``empty`` unless one of ``needs`` holds; None
        when no such statement can be made. A need is ``(mask, facts)``: an atom of ``mask``
        holds and, if ``facts`` is not None, each of its facts too, in order (see ``_one``)."""
        if g in self._info:
            return self._info[g]
        self._info[g] = None  # recursion was refused by the compiler; be safe anyway
        found = self._group(g)
        if found is not None:
            needs = _merged(found[0])
            if not needs or needs[0] == (needs[0][0] | 1, None):  # an atom always holding
                found = None
            elif id(found[1]) not in _SPELLED and not _plain(found[1]):
                found = None
            else:
                found = needs, found[1]
        self._info[g] = found
        return found

    def _group(self, g: Group) -> tuple[tuple, Any] | None:
        defs = self.branches.get(g)
        if not defs or g in self.constants:
            return None
        needs: tuple = ()
        if g.kind == "set":
            for branches in defs:
                if len(branches) != 1 or branches[0][0] != "body":
                    return None
                found = self.tests(branches[0][1])
                if found is None:
                    return None
                needs += found
            return needs, EMPTY_SET
        if g.kind != "complete":
            return None
        values = []
        for branches in defs:
            for kind, desc, *_ in branches:
                found = self.tests(desc) if kind == "body" else self.value(desc)
                if found is None:
                    return None
                if kind == "body":
                    needs += found
                    continue
                needs += found[0]
                if found[1] is not UNDEFINED:
                    values.append(found[1])
                    break
        if len(values) > 1:
            return None  # equal or in conflict: computed
        if values:
            return needs, values[0]
        if g in self.defaults:
            default = self.defaults[g]
            found = self.value(default) if default is not None else None
            if found is None or found[0]:
                return None
            return needs, found[1]
        return needs, UNDEFINED

    def tests(self, tests: list) -> tuple | None:
        """The needs without which the body whose first literals ``tests`` describes has no
        solution: literals that read only settled values (base data, rules it fixes) are passed
        over, the first other one decides; one on a rule that can neither fail nor print is
        passed over too (a later literal may need rarer facts), and decides if none after it
        can. Facts are kept only from the body's first literal: a fact is worked out where the
        body would have read its rule first, and nowhere else."""
        fallback = None
        passed = False
        for at, t in enumerate(tests):
            if t is None:
                break
            kind, source, arg = t
            if kind == "members_any":
                needs: tuple = ()
                for counted in source:
                    found = self._one(*counted, None)
                    if found is None:
                        break
                    needs += found
                else:
                    return _settled(needs, passed or len(source) > 1)
                break
            if source[0] == "base" or (source[0] == "rule" and source[1] in self.constants):
                passed = True
                continue  # reads a settled value: no error, nothing printed
            found = self._one(kind, source, arg)
            if source[0] != "rule" or not self.safe(source[1]):
                if found is not None and _read(t):
                    found = self._conjunction(tests[at:]) or found
                return fallback if found is None else _settled(found, passed)
            # A rule that cannot fail or print: a later literal may need rarer facts.
            if fallback is None and found is not None:
                fallback = _settled(found, passed)
            passed = True
        return fallback

    def _conjunction(self, tests: list) -> tuple | None:
        """The needs of a body whose first literals are tests of the input (or tables it keys):
        all of them must hold, as one atom. Each literal before the last can neither fail nor
        print (``_read``), so a body stopped by any of them reported nothing; ``count`` of a
        value without a count, an error, may be only the last."""
        exprs = []
        selective = False  # a later test that is not only of a type (is_string, defined)
        for t in tests:
            if t is None or not _read(t) and t[0] != "longer" or t[1][0] not in _INPUT:
                break
            exprs.append(self._atom_expr(*t))
            selective = selective or len(exprs) > 1 and t[0] not in ("string", "defined", "holds")
            if not _read(t):
                break
        if not selective:
            return None  # the first test's atom, shared with other bodies, says as much
        return ((self._atom(f"({' and '.join(exprs)})"), None),)

    def _one(self, kind: str, source: tuple, arg: Any) -> tuple | None:
        """The needs without which the literal of ``kind`` on ``source`` cannot hold. On a
        rule: the rule's own needs when the literal cannot hold on its empty value; for ``some
        e in r; e.kind == "…"``, also the fact that a member of ``r`` has such a kind (worked
        out from ``r``'s value when needed, once per evaluation), after the facts of ``r``'s
        own needs: those are about the rules ``r`` is made from, found earlier and cheaper,
        and when one fails ``r`` is empty, so its own fact need not be worked out."""
        if source[0] == "rule":
            group, keys = source[1], source[2]
            info = self.group(group)
            if kind == "members_where" and not keys and (info is None or not has_members(info[1])):
                fact = (group, *arg)
                return tuple(
                    (m, (*(f or ()), fact)) for m, f in (info[0] if info else ((1, None),))
                )
            if info is None:
                return None
            needs, empty = info
            return None if _test(kind, index_path(empty, keys), arg) else needs
        if source[0] == "base" or kind == "intersected":
            return None
        return ((self._atom(self._atom_expr(kind, source, arg)), None),)

    def _atom_expr(self, kind: str, source: tuple, arg: Any, read: bool = True) -> str:
        """A Python test of ``ctx``: whether the literal may hold on an input value (``read``:
        the source's expression is a read of the input alone, which ``source`` may hoist)."""
        if source[0] == "oget":
            # object.get of a non-object is an error (or undefined): the test holds then too.
            inner = self._atom_expr(kind, ("input", source[1]), arg)
            self.reads.add(_NOT_OBJECT)
            return f"({_NOT_OBJECT} or {inner})"
        if source[0] == "keyed":
            _, (alias, keys, base), key, lowered, rest = source
            # The table from the data; when it is a rule fixed by the base data, from the
            # value the policy set computed once and put into the evaluation's cache.
            table = "ctx.data"
            for k in base:
                table = index_expr(table, (k,))
            if alias is not None:
                if alias not in self.tables:
                    self.tables.append(alias)
                cached = "_t"
                for k in keys:
                    cached = index_expr(cached, (k,))
                table = (
                    f"({cached} if (_t := ctx.cache.get({_ALIAS}{self.tables.index(alias)}"
                    f"{_ALIAS}, IN_PROGRESS)) is not IN_PROGRESS else {table})"
                )
            self.reads.add(key)
            if not lowered:
                looked_up = _looked_up(table, key, rest)
                return self._atom_expr(kind, ("input", looked_up), arg, read=False)
            # lower of a key that is not a short ASCII string (an error on a non-string,
            # Unicode's case rules, the output limit) is not worked out: the literal may hold.
            looked_up = _looked_up(table, "_k.lower()", rest)
            test = self._atom_expr(kind, ("input", looked_up), arg, read=False)
            return (
                f"((_k := {key}) is not UNDEFINED and (not (type(_k) is str and _k.isascii()"
                f" and len(_k) <= MAX_OUTPUT) or {test}))"
            )
        expr = source[1]
        if read:
            self.reads.add(expr)
        if kind == "members_where":
            name = self.collected.setdefault((expr, arg[0]), f"_m{len(self.collected)}")
            values = sorted(arg[1])
            if len(values) == 1:
                return f"({values[0]!r} in {name})"
            return f"not {name}.isdisjoint({tuple(values)!r})"
        if kind == "counted":
            return (
                f"((_c := {expr}) is not UNDEFINED and "
                "not (type(_c) in (list, dict, RegoSet) and not _c))"
            )
        if kind == "members":
            return f"has_members({expr})"
        if kind == "holds":
            return f"holds({expr})"
        if kind == "defined":
            return f"({expr} is not UNDEFINED)"
        if kind == "one_of":
            return f"({expr} in {tuple(sorted(arg))!r})"  # == of a string and a non-string: False
        if kind == "string":
            return f"(type({expr}) is str)"
        if kind == "longer":  # count of a value that has none: an error, the literal may hold
            return (
                f"((_c := {expr}) is not UNDEFINED and "
                f"(type(_c) not in (str, list, dict, RegoSet) or len(_c) > {arg!r}))"
            )
        return f"({expr} == {arg!r})"

    def safe(self, g: Group) -> bool:
        """Whether evaluating ``g`` can neither fail nor print: a complete rule of one
        definition, a constant value, whose body is only tests of the input and of settled
        values (two definitions could conflict)."""
        defs = self.branches.get(g)
        if g.kind != "complete" or not defs or len(defs) != 1 or len(defs[0]) != 1:
            return False
        for branches in defs:
            for branch in branches:
                if branch[0] != "body" or not branch[2] or None in branch[1]:
                    return False
                for kind, source, _ in branch[1]:
                    if (
                        kind in ("members_any", "longer")
                        or source[0] == "rule"
                        and (source[1] not in self.constants and not self.safe(source[1]))
                    ):
                        return False
        return True

    def value(self, desc: tuple | None) -> tuple[int, Any] | None:
        """``(needs, value)``: the value ``desc`` makes unless one of ``needs`` holds."""
        if desc is None:
            return None
        kind = desc[0]
        if kind == "const":
            return (), desc[1]
        if kind == "rule":
            info = self.group(desc[1])
            return None if info is None else (info[0], index_path(info[1], desc[2]))
        if kind == "compr":
            needs = self.tests([desc[1]])
            return None if needs is None else (needs, [])
        if kind == "concat":  # the arguments in order; an undefined one ends the call
            a = self.value(desc[1])
            if a is None or a[1] is UNDEFINED:
                return a
            b = self.value(desc[2])
            if b is None:
                return None
            if b[1] is UNDEFINED:
                return a[0] + b[0], UNDEFINED
            if type(a[1]) is list and type(b[1]) is list:
                return a[0] + b[0], a[1] + b[1]
        return None

    def _atom(self, expr: str) -> int:
        bit = self.atoms.get(expr)
        if bit is None:
            bit = self.atoms[expr] = 1 << (len(self.atoms) + 1)  # bit 0: always set
        return bit

    def source(self, function: str, names: dict[Group, str]) -> tuple[str, list[str]]:
        """The generated function computing the mask, and the lines giving each group its
        mask, empty value and that function (``names``: each group's name in the module)."""
        infos = {g: self.group(g) for g in names}
        lines = [
            f"def {function}_mask(ctx):",
            "    if ctx.mocks is not None or ctx.data_over:",
            "        ctx.relevant = -1  # `with` replaces data or a function: run everything",
            "        return -1",
            "    r = 1",
        ]

        def named(expr: str) -> str:
            for i, g in enumerate(self.tables):
                expr = expr.replace(f"{_ALIAS}{i}{_ALIAS}", names[g])
            return expr

        tests = [
            f"    {name} = member_strings({named(expr)}, {keys!r})"
            for (expr, keys), name in self.collected.items()
        ]
        implied = _implied(self.atoms.values(), infos.values())
        for expr, bit in self.atoms.items():
            expr = named(expr)
            if implied.get(bit):
                expr = f"r & {implied[bit]} or {expr}"
            tests.append(f"    if {expr}: r |= {bit}")
        lines += _hoisted(tests, self.reads)
        lines += ["    ctx.relevant = r", "    return r", f"def {function}_empty(r):", "    e = {}"]
        attach = []
        facts = []
        # Each distinct test once, whichever groups it serves (many groups share their needs):
        # a decision then runs fewer distinct functions, and each costs its code's cache lines.
        tested: dict[str, str] = {}
        # Groups by their need: when no atom of it holds, their empty values go into the
        # evaluation's cache at once, where the generated code finds them without a call
        # (``Group.value`` gives the same, one reference at a time). A group with facts is
        # among them: a fact counts only with an atom of its mask, so none of them can hold.
        by_need: dict[int, list[str]] = {}
        for g, info in infos.items():
            if info is None:
                continue
            name = names[g]
            needs, empty = info
            need = 0
            for mask, _ in needs:
                need |= mask
            spelled = _SPELLED.get(id(empty)) or repr(empty)
            attach.append(f"{name}.need = {need}; {name}.empty = {spelled}")
            attach.append(f"{name}.relevance = {function}")
            if any(fact for _, fact in needs):
                body = self._facts(function, needs, names)
                test = tested.get(body)
                if test is None:
                    test = tested[body] = f"{function}_{name}"
                    facts.append(f"def {test}(ctx, r):\n{body}")
                attach.append(f"{name}.facts = {test}")
            by_need.setdefault(need, []).append(name)
        for k, (need, groups) in enumerate(sorted(by_need.items())):
            table = f"{function}_E{k}"
            attach.append(f"{table} = {{{', '.join(f'{g}: {g}.empty' for g in groups)}}}")
            lines.append(f"    if not r & {need}: e.update({table})")
        lines += [
            "    return e",
            f"def {function}(ctx):",
            f"    r = {function}_mask(ctx)",
            f"    ctx.cache.update({function}_empty(r))",
            "    return r",
        ]
        attach += [f"{name} = {key}" for key, name in self.found.items()]
        attach.append(f"{function}.mask = {function}_mask; {function}.empty = {function}_empty")
        return "\n".join(lines + facts), attach

    def definition_test(
        self, function: str, tests: list, names: dict[Group, str], guarded: bool
    ) -> tuple[str | None, int]:
        """A Python test of ``ctx`` and the mask ``r`` (not -1) that holds whenever the
        definition of a partial set or object whose first literals ``tests`` describes may add
        something, raise an error or print: an atom of its needs holds and, for a need with a
        fact, the fact too (read where the definition would read its rule first). None when
        its needs cannot be told or always hold. The argument of ``Relevance``'s exactness,
        one definition at a time: a group's needs are its definitions' needs together.

        With, for a definition ``guarded`` by its first literal (the compiler tests it on the
        value it reads: ``RuleCompiler._guard``), the atoms of that literal's needs (0: none):
        when none of them holds, neither can the guard, and a test of the mask is cheaper
        than the guard's read. The test is None when it would say no more than the guard:
        its needs are that literal's alone (not narrowed to its members' strings)."""
        needs = self.tests(tests)
        if not needs:
            return None, 0
        needs = _merged(needs)
        if needs[0][1] is None and needs[0][0] & 1:
            return None, 0  # an atom always holding
        atoms = 0
        if guarded:
            first = _merged(self.tests(tests[:1]) or ((1, None),))
            for mask, _ in first:
                atoms |= mask
            if atoms & 1:
                atoms = 0
            elif tests[0][0] != "members_where" and needs == first:
                return None, atoms
        parts = []
        for mask, fact in needs:
            # Tested after the guard, whose atoms then hold: one of them in ``mask`` is known.
            known = atoms and not atoms & ~mask
            if known and fact is None:
                return None, atoms
            parts.append(self._need_test(function, (0 if known else mask, fact), names))
        return f"({' or '.join(parts)})", atoms

    def _facts(self, function: str, needs: tuple, names: dict[Group, str]) -> str:
        """The body of the generated test (``(ctx, r)``) of a group's needs with facts, in the
        order its definitions would read them (``r``: the mask; -1 when every group runs)."""
        eager = needs[0][0] if needs[0][1] is None else 0
        # The needs asking for strings of the same fact under the same mask are one test (at
        # the first one's place: a later test met earlier can only make the group run).
        merged: dict[tuple, set] = {}
        for mask, facts in needs:
            if facts is not None:
                *before, (group, keys, values) = facts
                merged.setdefault((mask, tuple(before), group, keys), set()).update(values)
        tests = [
            self._need_test(function, (mask, (*before, (group, keys, values))), names)
            for (mask, before, group, keys), values in merged.items()
        ]
        return f"    if r < 0 or r & {eager}: return True\n    return bool({' or '.join(tests)})"

    def _need_test(self, function: str, need: tuple, names: dict[Group, str]) -> str:
        """The test of one need ``(mask, facts)`` in the mask ``r`` (the facts alone for the
        mask 0: one of its atoms is known to hold). A fact another test already found is read
        from the cache without calling ``member_fact`` (``found``: its cache keys, each a
        constant named in the module)."""
        mask, facts = need
        if facts is None:
            return f"r & {mask}"
        tests = []
        for group, keys, values in facts:
            key = f"({names[group]}, {keys!r})"
            const = self.found.setdefault(key, f"{function}_K{len(self.found)}")
            # An empty set found is falsy: member_fact then reads it from the cache itself.
            read = f"(ctx.cache.get({const}) or member_fact(ctx, {names[group]}, {keys!r}))"
            values = sorted(values)
            tests.append(
                f"{values[0]!r} in {read}"
                if len(values) == 1
                else f"not {read}.isdisjoint({tuple(values)!r})"
            )
        test = " and ".join(tests)
        return f"(r & {mask} and {test})" if mask else f"({test})"


# The test an ``object.get`` of the input needs (a read of the input alone, as ``reads``).
_NOT_OBJECT = "type(ctx.input) is not dict"


def _hoisted(lines: list[str], reads: set[str]) -> list[str]:
    """``lines`` with each read of the input they spell more than once done once, first,
    into a local (``_x0``…): the reads neither fail nor print, so reading one a test would
    have skipped changes nothing, and the usual call's kind and event are each read once
    instead of three or four times. The reads a read goes through count too (``ctx.input``
    itself, ``input.tool_input`` of ``input.tool_input.command``): shorter reads first, each
    then replaced in the longer ones as in the lines."""
    text = "\n".join(lines)
    pending = set(reads)
    for read in reads:
        pending.update(_prefixes(read))
    hoisted: list[str] = []
    while pending:
        read = min(pending, key=lambda r: (len(r), r))
        pending.discard(read)
        if text.count(read) > 1:
            name = f"_x{len(hoisted)}"
            hoisted.append(f"    {name} = {read}")
            text = text.replace(read, name)
            pending = {r.replace(read, name) for r in pending}
    return hoisted + ([text] if text else [])


def _prefixes(read: str) -> list[str]:
    """The reads ``read`` goes through when ``codegen.index_expr`` spelled it as lookups one
    key at a time, down to ``ctx.input`` (none for any other spelling)."""
    out = []
    while read.startswith("(_o.get(") and (at := read.find(", UNDEFINED) if type(_o := ")) > 0:
        key = read[len("(_o.get(") : at]
        inner = read[
            at + len(", UNDEFINED) if type(_o := ") : -len(f") is dict else index(_o, {key}))")
        ]
        if (
            read
            != f"(_o.get({key}, UNDEFINED) if type(_o := {inner}) is dict else index(_o, {key}))"
        ):
            break
        out.append(inner)
        read = inner
    return out


def _looked_up(table: str, key: str, rest: tuple) -> str:
    """A Python expression of ``table`` (an expression) indexed by ``key`` (an expression),
    then by ``rest``: a lookup per key inline (``index_path`` costs a call and a loop, on
    every evaluation)."""
    expr = f"(UNDEFINED if (_i := {key}) is UNDEFINED else index({table}, _i))"
    for k in rest:
        expr = index_expr(expr, (k,))
    return expr


# Sources of a literal that reads the input (``keyed``: a table of base data it indexes).
_INPUT = ("input", "oget", "keyed")

# Tests that hold or fail without an error or a print, whatever the value.
_SURE = ("members", "holds", "defined", "equals", "one_of", "string")


def _read(t: tuple) -> bool:
    """Whether the test reads only the input and cannot fail (``_SURE``)."""
    return t[0] in _SURE and t[1][0] in _INPUT


def _implied(bits: Any, infos: Any) -> dict[int, int]:
    """For each atom, the earlier atoms every need naming it names too: when one of them
    holds, the atom's own test changes no group's fate (each need naming it holds already), so
    the bit is set without the test, which may cost a lookup in data."""
    common: dict[int, int] = {}
    for info in infos:
        for mask, _ in info[0] if info is not None else ():
            for bit in bits:
                if mask & bit:
                    common[bit] = common.get(bit, mask) & mask
    return {bit: m & (bit - 1) & ~1 for bit, m in common.items() if m & (bit - 1) & ~1}


def _plain(v: Any) -> bool:
    """A value whose ``repr`` is its Python literal: a scalar, ``[]``."""
    return v is None or type(v) in (bool, int, str) or (type(v) is list and not v)


def _test(kind: str, v: Any, arg: Any) -> bool:
    """Whether the literal of ``kind`` may hold on the value ``v`` (``counted``: ``count(v) >
    0`` may hold or fail; ``intersected``: ``count(v & {…}) > 0`` may)."""
    if kind == "counted":
        return v is not UNDEFINED and not (type(v) in (list, dict, RegoSet) and not v)
    if kind == "intersected":
        return not (v is UNDEFINED or v is EMPTY_SET)
    if kind == "members" or kind == "members_where":
        return has_members(v)
    if kind == "holds":
        return holds(v)
    if kind == "defined":
        return v is not UNDEFINED
    if kind == "one_of":
        return type(v) is str and v in arg
    if kind == "string":
        return type(v) is str
    if kind == "longer":
        return v is not UNDEFINED and (type(v) not in (str, list, dict, RegoSet) or len(v) > arg)
    return type(v) is str and v == arg


def _merged(needs: tuple) -> tuple:
    """``needs`` with those without a fact made one (first: testing it costs nothing), each
    fact once, in the order of first use, and without the needs that hold only when another
    does (its atoms among theirs, its facts among theirs: ``commands``' facts about its
    members then leave out those of a part of it)."""
    eager = 0
    facts: dict = {}
    for mask, fact in needs:
        if fact is None:
            eager |= mask
        else:
            facts[fact] = facts.get(fact, 0) | mask
    out = [(mask, fact) for fact, mask in facts.items() if mask & ~eager]
    kept = tuple(
        need
        for j, need in enumerate(out)
        if not any(
            _implies(need, other) and (not _implies(other, need) or i < j)
            for i, other in enumerate(out)
            if i != j
        )
    )
    return ((eager, None), *kept) if eager else kept


def _implies(need: tuple, other: tuple) -> bool:
    """Whether the need ``need`` holds only when ``other`` does."""
    return not need[0] & ~other[0] and set(other[1]) <= set(need[1])


def _settled(needs: tuple, passed: bool) -> tuple:
    """``needs`` of a literal; after literals passed over, without facts (the body may stop
    before it reads the fact's rule)."""
    if not passed:
        return needs
    mask = 0
    for m, _ in needs:
        mask |= m
    return ((mask, None),)
