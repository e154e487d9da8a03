"""Why a query answered what it did, for ``--explain``: which definitions of a rule produced its
value (file:line:col), which configuration keys (``data.hookgate.config.*``) the rule and the
rules it uses read on the lines that ran, and which facts of the host (the builtins that read
the branch, the repository's configuration, the session's files, …) they were given.

A ``Tracer`` compiles the policy set once more, with coverage (``compile.Program``): that code
records each literal evaluated and each definition that produced a value. Only ``--explain``
builds one (the hook's code is never compiled with it); it is kept with its engine, so a server
explaining many calls compiles it once.
"""

from __future__ import annotations

import threading
from typing import Any

from hookgate.lang import ast
from hookgate.lang.policyset import PolicySet, parse_and_check
from hookgate.lang.values import UNDEFINED, to_json

CONFIG = ("hookgate", "config")  # the data path of the configuration
_LITERALS = (ast.Expr, ast.SomeIn, ast.Every)


class Trace:
    """One traced evaluation: the values, the lines that ran, the definitions that produced a
    value and each call of a builtin that reads the host."""

    def __init__(self, values: list, covered: set, calls: list[dict]) -> None:
        self.values = values
        self.lines = {c for c in covered if len(c) == 2}
        self.produced = {c for c in covered if len(c) == 3}
        self.calls = calls


class Tracer:
    """A policy set compiled to trace its evaluations."""

    def __init__(self, ps: PolicySet) -> None:
        from hookgate.lang.compile import Program
        from hookgate.lang.documents import run

        modules = ps.modules
        if not all(isinstance(m, ast.Module) for m in modules):  # summaries: the compile cache
            modules = parse_and_check(ps.sources)
        self.program = Program(modules, coverage=True)
        self._covered: set = set()
        tree = run(self.program.code(), self._covered)
        self.policy_set = PolicySet(tree, modules, ps.data, ps.sources, coverage=self._covered)
        self.data = ps.data
        self._aliases = self._find_aliases()
        self._lock = threading.Lock()  # the coverage set is the code's: one trace at a time

    def run(
        self, refs: list[str], input: Any, overrides: dict | None, prints: list | None
    ) -> Trace:
        """Evaluate ``refs`` as ``PolicySet.query_many`` does, recording every call of a builtin
        that reads the host (through ``overrides`` when given: the server's facts)."""
        calls: list[dict] = []
        recording = {name: _recorder(name, fn, calls) for name, fn in _host(overrides).items()}
        with self._lock:
            self._covered.clear()
            values = self.policy_set.query_many(
                refs, input=input, overrides=recording, prints=prints
            )
            covered = set(self._covered)
        return Trace(values, covered, calls)

    def why(self, ref: str, trace: Trace) -> dict:
        """For the rule at ``ref`` (``data.a.b``): its definitions that produced a value, the
        configuration keys it and the rules it uses read on lines that ran, with their values,
        and the facts (host builtins' calls) the code of those rules asked for."""
        path = tuple(ref.split(".")[1:])
        node, i = self.program.find(path)
        group = node.group if i == len(path) else None
        if group is None:
            return {"definitions": [], "config": {}, "facts": []}
        definitions = []
        rules: list[tuple[ast.Rule, Any]] = []
        for rule, env in self.program.rules.get(group, ()):
            heads = [rule.loc, *(e.loc for e in rule.elses)]
            hit = [h for h in heads if (env.file, h.line, h.col) in trace.produced]
            if hit:
                rules.append((rule, env))
                definitions += [{"file": env.file, "line": h.line, "col": h.col} for h in hit]
        used = set()
        for dep in self._closure(group):
            used.add(dep)
            if dep is not group:
                rules += self.program.rules.get(dep, [])
        config: dict[str, Any] = {}
        for rule, env in rules:
            if (*env.package, *rule.ref) in self._aliases:
                continue  # what it names is counted where it is read
            for key in self._config_keys(rule, env, trace.lines):
                config[key] = _config_value(self.data, key)
        reads: set[str] = set()
        for dep in used:
            reads |= self.program.reads.get(dep, set())
        facts = [c for c in trace.calls if c["builtin"] in reads]
        return {
            "definitions": definitions,
            "config": dict(sorted(config.items())),
            "facts": facts,
        }

    def _find_aliases(self) -> dict[tuple, tuple]:
        """Rules that only name a data path (``cfg := data.hookgate.config.force_push``): a
        read of ``cfg.on_force`` reads ``force_push.on_force``."""
        out = {}
        for group, rules in self.program.rules.items():
            if len(rules) != 1 or group.kind != "complete":
                continue
            rule, env = rules[0]
            if not rule.body and not rule.elses and rule.value is not None:
                path = _data_path(rule.value, env)
                if path is not None:
                    out[tuple(group.path)] = path
        return out

    def _unalias(self, path: tuple) -> tuple:
        for _ in range(8):  # an alias of an alias; recursion was refused at compile time
            for n in range(len(path), 0, -1):
                target = self._aliases.get(path[:n])
                if target is not None:
                    path = target + path[n:]
                    break
            else:
                return path
        return path

    def _closure(self, group: Any) -> list:
        seen = [group]
        stack = [group]
        while stack:
            for dep in self.program.deps.get(stack.pop(), ()):
                if dep not in seen:
                    seen.append(dep)
                    stack.append(dep)
        return seen

    def _config_keys(self, rule: ast.Rule, env: Any, lines: set) -> set[str]:
        """The ``data.hookgate.config`` keys the parts of ``rule`` that ran refer to (through
        ``data.…`` or an import), as dotted paths below the configuration."""
        from hookgate.lang.check import children

        file = env.file
        parts: list = []
        if (file, rule.loc.line) in lines:
            parts += [rule.value, rule.key, *rule.path_keys]
        parts += [lit for lit in _literals(rule) if (file, lit.loc.line) in lines]
        keys: set[str] = set()
        stack = [p for p in parts if p is not None]
        while stack:
            node = stack.pop()
            path = _data_path(node, env)
            if path is not None:
                path = self._unalias(path)
                if path[: len(CONFIG)] == CONFIG:
                    keys.add(".".join(str(k) for k in path[len(CONFIG) :]) or "*")
                continue
            if isinstance(node, ast.Every | ast.ArrayCompr | ast.SetCompr | ast.ObjectCompr):
                # their literals count where they ran, and the compiled code reports them
                stack += [c for c in children(node) if not _is_literal(c) or _ran(c, file, lines)]
                continue
            stack += [c for c in children(node) if c is not None]
        return keys


def _is_literal(node: Any) -> bool:
    return isinstance(node, _LITERALS)


def _ran(node: Any, file: str, lines: set) -> bool:
    return (file, node.loc.line) in lines


def _literals(rule: ast.Rule) -> list:
    """The body literals of a rule and of its ``else`` branches (not nested ones)."""
    out = list(rule.body)
    for branch in rule.elses:
        out += list(branch.body)
        if branch.value is not None:
            out.append(ast.Expr(branch.value, branch.loc))
    return out


def _data_path(node: Any, env: Any) -> tuple | None:
    """The constant ``data`` path a reference reads (up to its first non-constant key), or
    None for anything that is not a reference into ``data``. ``object.get(x, "k", d)`` and
    ``object.get(x, ["k", "l"], d)`` read below ``x``'s path: the way to read optional keys."""
    if isinstance(node, ast.Call) and node.name == "object.get" and len(node.args) == 3:
        inner = _data_path(node.args[0], env)
        key = node.args[1]
        keys = key.items if isinstance(key, ast.ArrayTerm) else (key,)
        if inner is None:
            return None
        for k in keys:
            if not isinstance(k, ast.Scalar) or not isinstance(k.value, str):
                break
            inner = (*inner, k.value)
        return inner
    if isinstance(node, ast.Var):
        head, rest = node, ()
    elif isinstance(node, ast.Ref) and isinstance(node.head, ast.Var):
        head, rest = node.head, node.path
    else:
        return None
    root = env.resolve_global(head.name)
    if root is None or root[0] != "data":
        return None
    path = list(root[1:])
    for key in rest:
        if not isinstance(key, ast.Scalar) or not isinstance(key.value, str):
            break
        path.append(key.value)
    return tuple(path)


def _config_value(data: Any, key: str) -> Any:
    value = data
    for part in (*CONFIG, *([] if key == "*" else key.split("."))):
        value = value.get(part, UNDEFINED) if isinstance(value, dict) else UNDEFINED
    return None if value is UNDEFINED else to_json(value)


def _host(overrides: dict | None) -> dict:
    """Every builtin that reads the host → what answers it in this evaluation."""
    from hookgate.builtins import full_registry

    found = {name: b.func for name, b in full_registry().items() if b.reads_host}
    if overrides:
        found.update({k: v for k, v in overrides.items() if k in found})
    return found


def _recorder(name: str, fn: Any, calls: list[dict]) -> Any:
    from hookgate.builtins import BuiltinError

    def call(*args: Any) -> Any:
        entry: dict[str, Any] = {"builtin": name, "args": [to_json(a) for a in args]}
        calls.append(entry)
        try:
            result = fn(*args)
        except BuiltinError as exc:  # the call is undefined, as it would be without a trace
            entry["error"] = str(exc)
            return UNDEFINED
        entry["result"] = None if result is UNDEFINED else to_json(result)
        return result

    return call
