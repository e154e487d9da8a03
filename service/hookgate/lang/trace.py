"""Why a query answered what it did, for ``--explain``: which definitions of a rule produced its
value (file:line:col), which configuration keys (``data.hookgate.config.*``) the rule and the
rules it uses read on the lines that ran, and which facts of the host (the builtins that read
the branch, the repository's configuration, the session's files, …) they were given.

A ``Tracer`` compiles the policy set once more, with coverage (``compile.Program``): that code
records each literal evaluated and each definition that produced a value. Only ``--explain``
builds one (the hook's code is never compiled with it). It is kept with its engine, so a server
explaining many calls compiles it once, and in the compile cache's ``trace`` directory (under
the key of the hook's own entry), so a hook run with ``--explain`` compiles it once per policy
set.
"""

from __future__ import annotations

import os
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
    """A policy set compiled to trace its evaluations, with what ``why`` needs to know of its
    rules as plain data (``index``): so both come from the compile cache when the hook has one,
    and a warm ``--explain`` parses nothing."""

    def __init__(self, ps: PolicySet, cache_dir: Any = None) -> None:
        from hookgate.lang.documents import run

        found = _cached(ps, cache_dir)
        if found is None:
            # Hooks started together build it once: the others wait, then read the cache.
            with _building(ps, cache_dir):
                found = _cached(ps, cache_dir)
                if found is None:
                    found = _build(ps)
                    _store(ps, cache_dir, *found)
        code, index = found
        self.index: dict[tuple, dict] = index
        self._covered: set = set()
        tree = run(code, self._covered)
        self.policy_set = PolicySet(tree, ps.modules, ps.data, ps.sources, coverage=self._covered)
        self.data = ps.data
        self._lock = threading.Lock()  # the coverage set is the code's: one trace at a time

    def run(
        self,
        refs: list[str],
        input: Any,
        overrides: dict | None,
        prints: list | None,
        timeout: float | None = None,
    ) -> Trace:
        """Evaluate ``refs`` as ``PolicySet.query_many`` does, recording every call of a builtin
        that reads the host (through ``overrides`` when given: the server's facts)."""
        calls: list[dict] = []
        recording = {name: _recorder(name, fn, calls) for name, fn in _host(overrides).items()}
        with self._lock:
            self._covered.clear()
            values = self.policy_set.query_many(
                refs, input=input, overrides=recording, prints=prints, timeout=timeout
            )
            covered = set(self._covered)
        return Trace(values, covered, calls)

    def why(self, ref: str, trace: Trace) -> dict:
        """For the rule at ``ref`` (``data.a.b``): its definitions that produced a value, the
        configuration keys it and the rules it uses read on lines that ran, with their values,
        and the facts (host builtins' calls) the code of those rules asked for."""
        group = self.index.get(tuple(ref.split(".")[1:]))
        if group is None:
            return {"definitions": [], "config": {}, "facts": []}
        definitions = []
        tables = []
        for heads, table in group["defs"]:
            hit = [h for h in heads if h in trace.produced]
            if hit:
                definitions += [{"file": f, "line": line, "col": col} for f, line, col in hit]
                tables.append(table)
        reads: set[str] = set()
        for path in self._closure(group):
            dep = self.index[path]
            reads.update(dep["reads"])
            if dep is not group and not dep["alias"]:
                tables += [table for _, table in dep["defs"]]
        config: dict[str, Any] = {}
        for table in tables:
            for file, line, key in table:
                if (file, line) in trace.lines:
                    config[key] = _config_value(self.data, key)
        return {
            "definitions": definitions,
            "config": dict(sorted(config.items())),
            "facts": [c for c in trace.calls if c["builtin"] in reads],
        }

    def _closure(self, group: dict) -> list[tuple]:
        seen = [group["path"]]
        stack = [group]
        while stack:
            for dep in stack.pop()["deps"]:
                if dep not in seen:
                    seen.append(dep)
                    stack.append(self.index[dep])
        return seen


def _build(ps: PolicySet) -> tuple[Any, dict]:
    """The traced code and the index of its rule groups: for each, its path, its definitions
    (the ``(file, line, col)`` of each head and ``else``, and the ``(file, line, key)`` of each
    configuration read, by the line of the literal or head it is in), the groups it uses, the
    host builtins its own code calls, and whether it only names a data path."""
    from hookgate.lang.compile import Program

    modules = ps.modules
    if not all(isinstance(m, ast.Module) for m in modules):  # summaries: the compile cache
        modules = parse_and_check(ps.sources)
    program = Program(modules, coverage=True)
    if program.diagnostics:
        from hookgate.lang.errors import PolicyError

        raise PolicyError(program.diagnostics)
    aliases = {}
    for group, rules in program.rules.items():
        if len(rules) == 1 and group.kind == "complete":
            rule, env = rules[0]
            if not rule.body and not rule.elses and rule.value is not None:
                path = _data_path(rule.value, env)
                if path is not None:
                    aliases[tuple(group.path)] = path
    index: dict[tuple, dict] = {}
    for group, rules in program.rules.items():
        defs = []
        for rule, env in rules:
            heads = [rule.loc, *(e.loc for e in rule.elses)]
            table = sorted(_config_reads(rule, env, aliases))
            defs.append((tuple((env.file, h.line, h.col) for h in heads), tuple(table)))
        index[tuple(group.path)] = {
            "path": tuple(group.path),
            "defs": tuple(defs),
            "deps": tuple(sorted(tuple(d.path) for d in program.deps.get(group, ()))),
            "reads": tuple(sorted(program.reads.get(group, ()))),
            "alias": tuple(group.path) in aliases,
        }
    return program.code(), index


def _config_reads(rule: ast.Rule, env: Any, aliases: dict) -> set[tuple[str, int, str]]:
    """``(file, line, key)`` of each ``data.hookgate.config`` key ``rule`` refers to (through
    ``data.…``, an import or an alias rule), ``line`` being that of the head or the innermost
    literal the reference is in: the lines evaluation reports reaching."""
    from hookgate.lang.check import children

    file = env.file
    out: set[tuple[str, int, str]] = set()
    stack: list[tuple[Any, int]] = [
        (p, rule.loc.line) for p in (rule.value, rule.key, *rule.path_keys) if p is not None
    ]
    stack += [(lit, lit.loc.line) for lit in _literals(rule)]
    while stack:
        node, line = stack.pop()
        if isinstance(node, _LITERALS):
            line = node.loc.line
        path = _data_path(node, env)
        if path is not None:
            path = _unalias(path, aliases)
            if path[: len(CONFIG)] == CONFIG:
                out.add((file, line, ".".join(str(k) for k in path[len(CONFIG) :]) or "*"))
            continue
        stack += [(c, line) for c in children(node) if c is not None]
    return out


def _unalias(path: tuple, aliases: dict) -> tuple:
    """``cfg.on_force`` → ``hookgate.config.force_push.on_force`` when ``cfg`` only names
    ``data.hookgate.config.force_push``."""
    for _ in range(8):  # an alias of an alias; recursion was refused at compile time
        for n in range(len(path), 0, -1):
            target = aliases.get(path[:n])
            if target is not None:
                path = target + path[n:]
                break
        else:
            return path
    return path


def _key(ps: PolicySet, cache_dir: Any) -> tuple[str, str] | None:
    """The cache directory and entry name of the traced code, or None (no usable cache)."""
    if cache_dir is None:
        return None
    from hookgate.lang import cache

    # A directory of its own inside the compile cache (checked first: a safe directory's
    # subdirectory is safe only if it is too), so the hook's entries stay as they were.
    try:
        directory = cache.safe_dir(os.path.join(cache.safe_dir(cache_dir), "trace"))
    except cache.UnsafeCacheDir:
        return None
    return directory, cache.cache_key(ps.sources, ps.data, False)


def _cached(ps: PolicySet, cache_dir: Any) -> tuple[Any, dict] | None:
    found = _key(ps, cache_dir)
    if found is None:
        return None
    from hookgate.lang import cache

    entry = cache.load(*found)
    if entry is None or len(entry[1]) != 1 or type(entry[1][0]) is not dict:
        return None
    return entry[0], entry[1][0]


class _building:
    """An exclusive lock on ``<trace dir>/<key>.lock`` while the traced code is built (none
    without a usable cache: then nothing is shared)."""

    def __init__(self, ps: PolicySet, cache_dir: Any) -> None:
        self.where = _key(ps, cache_dir)
        self.fd: int | None = None

    def __enter__(self) -> None:
        if self.where is None:
            return
        try:
            import fcntl

            path = os.path.join(self.where[0], self.where[1] + ".lock")
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (OSError, ImportError):  # no lock: each builds its own, as without a cache
            self.__exit__()

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def _store(ps: PolicySet, cache_dir: Any, code: Any, index: dict) -> None:
    found = _key(ps, cache_dir)
    if found is not None:
        from hookgate import builtins
        from hookgate.lang import cache

        cache.store(*found, code, [index], builtins.index())


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
