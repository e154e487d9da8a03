"""The ``data`` tree of a compiled policy set, OPA's virtual documents: base documents merged
with rule groups, whose values are computed on demand and cached per evaluation (a rule that
does not depend on the call, once per policy set and environment), and the partial objects and
sets that rules build key by key. ``run`` executes a compiled policy set's code, which builds
this tree, in an environment of exactly the names that code may use.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_

from hookgate.lang.errors import Diagnostic, EvalError
from hookgate.lang.operators import BINOPS
from hookgate.lang.runtime import (
    COUNTED,
    EMPTY_SET,
    IN_PROGRESS,
    MAX_OUTPUT,
    MISSING,
    BuiltinFuncs,
    binop,
    builtin_mock,
    call_builtin,
    call_once,
    check_budget,
    decimal_value,
    every,
    function_mock,
    glob_members,
    index,
    index_path,
    iter_items,
    iter_items_unordered,
    iter_values,
    iter_values_unordered,
    membership,
    membership_kv,
    obj_add,
    patch_path,
    rego_print,
    value_mock,
    with_data,
    with_input,
    with_mock,
)
from hookgate.lang.values import UNDEFINED, RegoSet, dict_key, equal, freeze, obj_get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.lang.runtime import Ctx


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
        "one",
        "default_def",
        "memo_env",
        "memo",
        "known",
        "nested",
        "need",
        "empty",
        "relevance",
        "facts",
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
        # The one definition of a group that has one and no memo (Tree.finish): a complete
        # rule's value or a function's call runs it without the loop that compares results,
        # a partial set's (often its dispatch) without a loop.
        self.one: Callable | None = None
        self.default_def: Callable | None = None
        # A rule whose value does not depend on the call (compile.Program._memoized): the
        # environment builtins it reads (often none), and its value with their answers.
        self.memo_env: tuple[str, ...] | None = None
        self.memo: tuple[tuple, Any] | None = None
        # Of a rule reading no environment builtin (``memo_env == ()``): ``Tree.fixed``, where
        # its value goes once computed, for every later evaluation's cache.
        self.known: dict | None = None

        self.nested = False  # a partial object built along key paths (tree_put)
        # hookgate.lang.relevance: the group's value is ``empty`` when none of the input
        # facts in the bit mask ``need`` holds (0: always computed); ``relevance(ctx)``
        # tests those facts once per evaluation.
        self.need = 0
        self.empty: Any = UNDEFINED
        self.relevance: Callable | None = None
        self.facts: Callable | None = None  # (ctx, mask) -> whether a need with a fact holds

    def value(self, ctx: Ctx) -> Any:
        """The group's value in this evaluation (computed once per ``ctx``; for a rule that does
        not depend on the call, once per policy set and environment: ``memo_env``)."""
        if self.kind == "function":
            return self.call(ctx, [])  # a function referred to without arguments (arity 0)
        if self.need and not self._relevant(ctx):
            ctx.cache[self] = empty = self.empty  # as the subclasses' value does
            return empty
        v = ctx.cache.get(self, MISSING)
        if v is not MISSING:
            if v is IN_PROGRESS:
                raise EvalError(f"recursion: {self.name} depends on itself")
            return v
        return self._compute(ctx)

    def _compute(self, ctx: Ctx) -> Any:
        """``value`` once the group is known to concern the call and to have no value in the
        cache yet: from its memo, or computed (the subclasses' ``value`` come here for what
        they do not inline, without testing the facts and the cache again)."""
        cache = ctx.cache
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
            elif self.kind == "complete" and len(self.defs) == 1 and ctx.mocks is None:
                v = self.defs[0](ctx)  # the other usual group: one definition, inline too
                if v is UNDEFINED and self.default_def is not None:
                    v = self.default_def(ctx)
            else:
                v = self._evaluate(ctx)
        except BaseException:
            cache.pop(self, None)
            raise
        cache[self] = v
        if key is not None:
            self.memo = (key, v)  # the key's objects stay alive: no id is reused
            if self.known is not None:
                self.known[self] = v
        return v

    def _relevant(self, ctx: Ctx) -> bool:
        r = ctx.relevant or self.relevance(ctx)
        return bool(r & self.need) and (self.facts is None or self.facts(ctx, r))

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
                    raise EvalError(
                        f"conflicting values for {self.name}", self.file, self.line, self.col
                    )
        if result is UNDEFINED and self.default_def is not None:
            return self.default_def(ctx)
        return result

    def call(self, ctx: Ctx, args: list) -> Any:
        if ctx.mocks is not None and self.name in ctx.mocks:
            return ctx.mocks[self.name](ctx, args)
        if not next(ctx.budget) & 1023:  # tick(), inline: a function call costs one step
            check_budget(ctx)
        one = self.one
        if one is not None:
            result = one(ctx, args)
        else:
            result = UNDEFINED
            for d in self.defs:
                v = d(ctx, args)
                if v is not UNDEFINED:
                    if result is UNDEFINED:
                        result = v
                    elif not equal(result, v):
                        raise EvalError(
                            "functions must not produce multiple outputs for same inputs "
                            f"({self.name})"
                        )
        if result is UNDEFINED and self.default_def is not None:
            return self.default_def(ctx, args)
        return result


class SetGroup(Group):
    """A partial set rule: ``value`` without the checks other kinds need (every evaluation
    asks a pack's many set groups once each: this is most of what an empty group costs)."""

    __slots__ = ()

    def value(self, ctx: Ctx) -> Any:
        if self.need:
            # The facts are tested once per evaluation, which puts the empty value of each
            # group they alone rule out into the cache (read below): only a group with a test
            # of its own (``facts``) has more to ask here.
            r = ctx.relevant or self.relevance(ctx)
            if self.facts is not None and (not r & self.need or not self.facts(ctx, r)):
                # None of the facts it needs holds: nothing to compute, and the next
                # reference finds the empty value in the cache without a call.
                ctx.cache[self] = empty = self.empty
                return empty
        cache = ctx.cache
        v = cache.get(self, MISSING)
        if v is not MISSING:
            if v is IN_PROGRESS:
                raise EvalError(f"recursion: {self.name} depends on itself")
            return v
        one = self.one  # the usual group: one definition (or its dispatch), no memo
        if one is None:
            return self._compute(ctx)
        cache[self] = IN_PROGRESS
        acc: dict = {}
        try:
            one(ctx, acc)
        except BaseException:
            cache.pop(self, None)
            raise
        cache[self] = v = RegoSet._from_dict(acc) if acc else EMPTY_SET
        return v


class CompleteGroup(Group):
    """A complete rule: ``value`` of the usual one definition (and its default) inline; more
    definitions, mocks and memoized values take ``Group.value``."""

    __slots__ = ()

    def value(self, ctx: Ctx) -> Any:
        if self.need:
            # The facts are tested once per evaluation, which puts the empty value of each
            # group they alone rule out into the cache (read below): only a group with a test
            # of its own (``facts``) has more to ask here.
            r = ctx.relevant or self.relevance(ctx)
            if self.facts is not None and (not r & self.need or not self.facts(ctx, r)):
                # None of the facts it needs holds: nothing to compute, and the next
                # reference finds the empty value in the cache without a call.
                ctx.cache[self] = empty = self.empty
                return empty
        cache = ctx.cache
        v = cache.get(self, MISSING)
        if v is not MISSING:
            if v is IN_PROGRESS:
                raise EvalError(f"recursion: {self.name} depends on itself")
            return v
        one = self.one
        if one is None or ctx.mocks is not None:
            return self._compute(ctx)
        cache[self] = IN_PROGRESS
        try:
            v = one(ctx)
            if v is UNDEFINED and self.default_def is not None:
                v = self.default_def(ctx)
        except BaseException:
            cache.pop(self, None)
            raise
        cache[self] = v
        return v


_GROUPS = {"set": SetGroup, "complete": CompleteGroup}


class Tree:
    """``data``: the rule groups of a compiled policy set, placed at their paths."""

    def __init__(self) -> None:
        self.root = Node(())
        self.groups: list[Group] = []
        self.constants: tuple[Group, ...] = ()  # groups fixed by the base data (compile.py)
        # Values every evaluation that keeps the base data starts with in its cache
        # (``PolicySet.query_many``): the constants' (put here on first use) and those of the
        # rules reading neither the call nor the environment (``memo_env == ()``), each put
        # here by ``Group.value`` once computed. Under mocks or strict builtin errors only the
        # constants are given, as ``Group.value`` computes the others then. A rule that failed
        # is not here: it fails again where the next evaluation uses it.
        self.fixed: dict[Group, Any] = {}

    def finish(self) -> None:
        """Once the compiled code has given every group its definitions and memo: each
        group's one definition, where it has one and no memo (``Group.one``), and where the
        value of a rule reading no environment goes (``Group.known``)."""
        for group in self.groups:
            defs = group.defs
            group.one = defs[0] if len(defs) == 1 and group.memo_env is None else None
            if group.memo_env == ():
                group.known = self.fixed

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
        group = _GROUPS.get(kind, Group)(kind, path, name, arity, file, line, col)
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

    def rule_group(self, path: tuple) -> Group | None:
        """The group whose own path is ``path`` (data-relative), None for a function or any
        other place in ``data``."""
        node, i = self.find(path)
        group = node.group
        return group if group is not None and group.kind != "function" and i == len(path) else None

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


def group_values(ctx: Ctx, groups: tuple[Group, ...], relevance: Callable | None) -> list:
    """The values of ``groups`` (``Group.value`` of each, in order) for a query of many rules,
    without ``data`` overrides. The call concerns few of a pack's decision rules: the input
    facts are tested first (``relevance``, which stores the empty values of the groups they
    rule out), and only the groups not in the cache then are computed, in their order. The
    others are read from the cache in C, as the generated code reads a rule it refers to."""
    if relevance is not None and not ctx.relevant:
        relevance(ctx)
    values = list(map(ctx.cache.get, groups, repeat(MISSING)))
    for i in compress(range(len(values)), map(is_, values, repeat(MISSING))):
        values[i] = groups[i].value(ctx)  # what an earlier one computed comes from the cache
    return values


def _same(a: tuple, b: tuple) -> bool:
    """The same objects, one by one (answers of environment builtins; compared in C)."""
    return len(a) == len(b) and all(map(is_, a, b))


def _builtin_func(name: str) -> Callable:
    func = _ENVIRONMENT_FUNCS.get(name)
    if func is None:  # (once per name and process: a memoized rule asks on every evaluation)
        from hookgate import builtins

        func = _ENVIRONMENT_FUNCS[name] = builtins.get(name).func
    return func


# The environment builtins memoized rules read (``Group._memo_key``), by name: the registry
# is fixed once the builtins are imported.
_ENVIRONMENT_FUNCS: dict[str, Callable] = {}


# The values ``some x in v`` iterates over the members of.
MEMBERED = frozenset({list, dict, RegoSet})


def has_members(v: Any) -> bool:
    """Whether ``some x in v`` iterates at all: ``v`` is a collection with members (a scalar
    or undefined value gives nothing)."""
    return type(v) in MEMBERED and len(v) > 0


def member_strings(v: Any, keys: tuple) -> set:
    """The strings at ``keys`` of the members of ``v`` (``hookgate.lang.relevance``: ``some e
    in input.effects; e.kind == "run"`` has no solution unless "run" is one of them)."""
    t = type(v)
    members = v.values() if t is dict else v if (t is list or t is RegoSet) else ()
    out = set()
    if len(keys) == 1 and type(keys[0]) is str:  # the usual fact, a field of each member: inline
        k = keys[0]
        for e in members:
            x = e.get(k) if type(e) is dict else index(e, k)
            if type(x) is str:
                out.add(x)
        return out
    for e in members:
        x = index_path(e, keys)
        if type(x) is str:
            out.add(x)
    return out


def member_fact(ctx: Ctx, group: Group, keys: tuple) -> set:
    """``member_strings`` of a rule's value, once per evaluation (``hookgate.lang.relevance``:
    ``some c in commands; c.name == "git"`` has no solution unless "git" is one of them).
    The generated tests read its cache key, ``(group, keys)``, themselves first."""
    cache = ctx.cache
    key = (group, keys)
    found = cache.get(key)
    if found is None:
        # The rule's value is usually in the cache already (a guard read it): read it there,
        # as the generated code does, without a call.
        v = cache.get(group, IN_PROGRESS)
        found = cache[key] = member_strings(v if v is not IN_PROGRESS else group.value(ctx), keys)
    return found


def holds(v: Any) -> bool:
    """Whether ``v`` as a literal holds: defined and not false."""
    return v is not UNDEFINED and v is not False


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


# The names the generated code may use (its whole environment: no builtins beyond Python's).
GENERATED_CODE_NAMESPACE = {
    "UNDEFINED": UNDEFINED,
    "MISSING": MISSING,
    "IN_PROGRESS": IN_PROGRESS,
    "EvalError": EvalError,
    "RegoSet": RegoSet,
    "EMPTY_SET": EMPTY_SET,
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
    "glob_members": glob_members,
    "call_once": call_once,
    "COUNTED": COUNTED,
    "MAX_OUTPUT": MAX_OUTPUT,
    "builtin_mock": builtin_mock,
    "binop": binop,
    "obj_add": obj_add,
    "set_add": set_add,
    "has_members": has_members,
    "MEMBERED": MEMBERED,
    "member_strings": member_strings,
    "member_fact": member_fact,
    "holds": holds,
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
    tree = namespace["T"]
    tree.finish()
    return tree
