"""Policy sets: load Rego sources (parse, check, compile, or read the compile cache) into a
``PolicySet`` that answers queries, each with its own evaluation state.

A warm compile cache (``cache_dir``) loads the compiled code without importing the parser, the
AST or Lark. A warm process (``hookgate.warm``) keeps the sets it loads (``keep_loaded``).
"""

from __future__ import annotations

import os
import time

from hookgate.builtins.registry import EVALUATION
from hookgate.lang.documents import group_values
from hookgate.lang.errors import Diagnostic, EvalError, LimitError, PolicyError, with_source
from hookgate.lang.runtime import DEFAULT_BUDGET, Ctx
from hookgate.lang.values import UNDEFINED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from hookgate.lang import ast

_ABSENT: Any = UNDEFINED

# The most masks ``PolicySet._start`` keeps a cache for (a call beyond them makes its own).
MAX_STARTS = 256


class PolicySet:
    """Compiled modules plus base data, ready to answer queries (thread-safe: each query has
    its own evaluation state)."""

    def __init__(
        self,
        tree: Any,
        modules: list,
        data: dict | None,
        sources: dict[str, str] | Callable[[], dict[str, str]] | None,
        *,
        coverage: set[tuple[str, int]] | None = None,
    ) -> None:
        """``tree``: the data tree the compiled code built (``documents.run``). ``modules``: the
        checked ``ast.Module`` list, or, from the compile cache, ``cache.ModuleInfo``
        summaries (file name, package, metadata, rules' kind and ref). ``coverage``: the set
        the code compiled with coverage adds ``(filename, line)`` pairs to (for ``hookgate
        test --coverage``; off on the hook's path). ``sources``: a function returning them
        when they are read only if needed (``load_files``)."""
        self.modules = modules
        self.data = data if data is not None else {}
        self._sources = sources or {}
        self.coverage = coverage
        self._tree = tree
        self._queries: dict[str, Callable] = {}
        # Queries of several refs (query_many), by their refs: each ref's query, and when
        # every ref is a rule's own path, the rules' groups and the input-fact test.
        self._batches: dict[tuple, tuple[list, tuple | None, Callable | None]] = {}
        self._constants_known = False
        # ``_start``'s caches by mask, made when ``Tree.fixed`` had ``_starts_fixed`` values.
        self._starts: dict[int, dict] = {}
        self._starts_fixed = 0

    @property
    def sources(self) -> dict[str, str]:
        """File name → policy text of the modules."""
        if callable(self._sources):
            self._sources = self._sources()
        return self._sources

    def query(
        self,
        ref: str,
        input: Any = _ABSENT,
        data_overrides: dict | None = None,
        overrides: dict[str, Callable[..., Any]] | None = None,
        *,
        prints: list[str] | None = None,
        budget: int | None = None,
        timeout: float | None = None,
        input_log: list | None = None,
        strict_builtin_errors: bool = False,
    ) -> Any:
        """Evaluate ``ref`` (``data.a.b`` or a Rego expression) → a value or ``UNDEFINED``.

        - ``input``: the input document (absent: ``input`` is undefined); used as is, never copied.
        - ``data_overrides``: ``{"data.a.b": value}``, as ``with data.a.b as value`` (a key
          without the ``data.`` prefix replaces that top-level document: ``{"a": {...}}``).
        - ``overrides``: ``{"git.branch": fn}`` replaces builtins (or ``data.pkg.f`` functions)
          for this query; ``fn`` takes and returns interpreter values.
        - ``prints``: a list that receives each ``print(...)`` line.
        - ``budget``: the most iteration steps (default 5 000 000); ``timeout``: seconds. Either
          exceeded raises ``LimitError`` (``limit``: ``steps`` or ``time``).
        - ``input_log``: a list that receives every document ``with input as …`` installs
          (to replay a policy's tests on another engine).
        - ``strict_builtin_errors``: a builtin's error (``upper(1)``, ``1 / 0``) raises
          ``EvalError``; by default it makes that expression undefined, as OPA does. Errors of
          unsupported features always raise.

        Raises ``EvalError`` on run-time errors (conflicting values, builtin errors, budget).
        """
        return self.query_many(
            [ref],
            input,
            data_overrides,
            overrides,
            prints=prints,
            budget=budget,
            timeout=timeout,
            input_log=input_log,
            strict_builtin_errors=strict_builtin_errors,
        )[0]

    def query_many(
        self,
        refs: list[str],
        input: Any = _ABSENT,
        data_overrides: dict | None = None,
        overrides: dict[str, Callable[..., Any]] | None = None,
        *,
        prints: list[str] | None = None,
        budget: int | None = None,
        timeout: float | None = None,
        input_log: list | None = None,
        strict_builtin_errors: bool = False,
    ) -> list[Any]:
        """Evaluate several queries in one evaluation (rules they share are evaluated once);
        same arguments as ``query``, one value (or ``UNDEFINED``) per ref."""
        batch = self._batches.get(key := tuple(refs))
        if batch is None:
            batch = self._batches[key] = self._batch(key)
        runs, groups, relevance = batch
        mocks = None
        if overrides:
            mocks = {name: _python_fn(fn) for name, fn in overrides.items()}
        deadline = time.monotonic() + timeout if timeout is not None else None
        ctx = Ctx(
            input,
            self.data,
            mocks,
            prints,
            budget or DEFAULT_BUDGET,
            deadline,
            strict_builtin_errors,
        )
        ctx.input_log = input_log
        if data_overrides:
            ctx.data_over = [(_data_path(k), v) for k, v in data_overrides.items()]
        else:
            fixed = self._fixed_values()
            if mocks or strict_builtin_errors:
                # Group.value computes a memoized rule then; a mock may replace a rule's
                # value too.
                mocked = mocks or {}
                fixed = {
                    g: v for g, v in fixed.items() if g.memo_env is None and g.name not in mocked
                }
                ctx.cache.update(fixed)
            elif relevance is not None and groups is not None:
                ctx.cache = self._start(ctx, relevance, fixed)
            else:
                ctx.cache.update(fixed)
        scope = EVALUATION.set(ctx.shared)
        try:
            if groups is not None and ctx.data_over is None:
                return group_values(ctx, groups, relevance)
            return [run(ctx) for run in runs]
        except RecursionError:
            raise LimitError("nesting", "evaluation too deeply nested") from None
        finally:
            EVALUATION.reset(scope)

    def _batch(self, refs: tuple) -> tuple[list, tuple | None, Callable | None]:
        runs = []
        for ref in refs:
            run = self._queries.get(ref)
            if run is None:
                run = self._queries[ref] = self._compile_query(ref)
            runs.append(run)
        paths = [_simple_ref(ref) for ref in refs]
        groups = [self._tree.rule_group(p) if p is not None else None for p in paths]
        if None in groups:
            return runs, None, None
        relevance = next((g.relevance for g in groups if g.need), None)
        return runs, tuple(groups), relevance

    def _start(self, ctx: Ctx, relevance: Callable, fixed: dict) -> dict:
        """The cache a query of many rules starts with: ``fixed`` and the empty values of the
        groups the input facts rule out (``relevance``, whose mask it sets in ``ctx``). The
        same cache as ``fixed`` and then ``relevance(ctx)`` would make, copied from one made
        once per mask (a function of the policy set alone: a pack's calls have few masks)
        instead of one key at a time, which cost a decision more than the tests did. Made
        again when ``fixed`` has grown (a memoized rule computed since)."""
        ctx.cache = fixed  # only read: the tests read the constants from it
        try:
            mask = relevance.mask(ctx)
        finally:
            ctx.cache = {}
        starts = self._starts
        if self._starts_fixed != len(fixed):
            starts.clear()
            self._starts_fixed = len(fixed)
        start = starts.get(mask)
        if start is None:
            start = {**fixed, **relevance.empty(mask)}
            if len(starts) < MAX_STARTS:
                starts[mask] = start
        return start.copy()

    def _fixed_values(self) -> dict:
        """``Tree.fixed``, given to every query that keeps the base data: the values of the
        rules fixed by the base data (``Tree.constants``), computed on first use, and of the
        memoized rules reading no environment computed so far."""
        values = self._tree.fixed
        if not self._constants_known:
            self._constants_known = True
            if self.coverage is None:  # with coverage, each test must reach the rules itself
                ctx = Ctx(_ABSENT, self.data, None, None, DEFAULT_BUDGET, None)
                for group in self._tree.constants:
                    try:
                        values[group] = group.value(ctx)
                    except EvalError:
                        continue  # conflicting values: the query that reaches it reports it
        return values

    def _compile_query(self, ref: str) -> Callable:
        path = _simple_ref(ref)
        if path is not None:
            return self._tree.ref_query(path)
        return _expression_query(self, ref)


def _python_fn(fn: Callable[..., Any]) -> Callable:
    def call(ctx: Any, args: list) -> Any:
        return fn(*args)

    return call


def _data_path(key: str | tuple) -> tuple:
    """``"data.a.b"`` → ``("a", "b")``; any other key names a top-level document of ``data``."""
    if isinstance(key, tuple):
        return key
    path = _simple_ref(key)
    return path if path is not None else (key,)


def _simple_ref(ref: str) -> tuple | None:
    """``data.a.b`` → ``("a", "b")``; None for anything else."""
    parts = ref.strip().split(".")
    if parts[0] != "data" or not all(p.isidentifier() for p in parts[1:]):
        return None
    return tuple(parts[1:])


_QUERY_PACKAGE = "hookgate_query__"


def _expression_query(ps: PolicySet, text: str) -> Callable:
    """A query that is an expression: compiled as a rule of a scratch package."""
    from hookgate.lang import ast
    from hookgate.lang.compile import Program
    from hookgate.lang.documents import run
    from hookgate.lang.parser import parse_module

    source = f"package {_QUERY_PACKAGE}\n\nq__ := __expr__\n"
    source = source.replace("__expr__", text.strip())
    from hookgate.lang.scopes import scope_module

    module = scope_module(parse_module(source, "<query>"))
    modules = ps.modules
    if not all(isinstance(m, ast.Module) for m in modules):  # summaries from the compile cache
        modules = [scope_module(parse_module(ps.sources[m.filename], m.filename)) for m in modules]
    program = Program([*modules, module])
    if program.diagnostics:
        raise PolicyError([_shown(d, ps.sources) for d in program.diagnostics])
    return run(program.code()).ref_query((_QUERY_PACKAGE, "q__"))


def load(
    sources: dict[str, str],
    data: dict | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    strict: bool = False,
    coverage: bool = False,
) -> PolicySet:
    """Parse, check and compile ``{filename: source}`` with base ``data``.

    ``cache_dir``: the compile cache (see ``hookgate.lang.cache``); a directory that is not
    safe (another owner, writable by others) is not used. ``strict``: checker warnings (unused
    imports, …) are errors, like ``opa check --strict``. ``coverage``: record which lines
    evaluation reaches in ``PolicySet.coverage`` (never cached). Raises ``PolicyError`` with every
    diagnostic, source lines filled in.
    """
    global _built
    key = directory = None
    if cache_dir is not None and not coverage:
        from hookgate.lang import cache

        try:
            directory = cache.safe_dir(cache_dir)
        except cache.UnsafeCacheDir:
            directory = None
        if directory is not None:
            key = cache.cache_key(sources, data, strict)
            ps = _load_cached(directory, key, data, sources)
            if ps is not None:
                return ps
    from hookgate.lang.documents import run

    memo = None if coverage else _memo_key(sources, data, strict)
    compiled = _COMPILED.get(memo) if memo is not None else None
    if compiled is not None:
        modules, code = list(compiled[0]), compiled[1]
    else:
        from hookgate.lang.compile import Program

        modules = parse_and_check(sources, strict=strict)
        program = Program(modules, coverage=coverage)
        diags = program.diagnostics + program.tree.check_base_data(data or {})
        if diags:
            raise PolicyError([_shown(d, sources) for d in diags])
        code = program.code()
        if memo is not None:
            if len(_COMPILED) >= _COMPILED_MAX:
                _COMPILED.pop(next(iter(_COMPILED)))
            _COMPILED[memo] = tuple(modules), code
    covered: set[tuple[str, int]] | None = set() if coverage else None
    ps = PolicySet(run(code, covered), modules, data, sources, coverage=covered)
    if directory is not None and key is not None:
        from hookgate import builtins
        from hookgate.lang import cache

        infos = [cache.ModuleInfo.of(m) for m in modules]
        cache.store(directory, key, code, [i.encode() for i in infos], builtins.index())
        if _kept is not None:
            _kept[directory, key] = ps, builtins.index()
    _built += 1
    return ps


# The sets this process compiled, by their sources, data and strictness: a server's worker
# compiles one set for an impact replay, the change set's check and a dry run, and a test file
# compiles the pack again and again. A hit skips parsing, checking and compiling, not ``run``:
# each load still makes a policy set of its own (a caller may change the set it got).
_COMPILED: dict[tuple, tuple[list, Any]] = {}
_COMPILED_MAX = 8


def _memo_key(sources: dict[str, str], data: dict | None, strict: bool) -> tuple | None:
    from hookgate.lang.cache import data_bytes

    try:
        return tuple(sorted(sources.items())), data_bytes(data, strict)
    except (TypeError, ValueError):  # data that is not JSON: compiled each time, as before
        return None


def load_files(paths: list, *, cache_dir: str | os.PathLike, layered: bool = False) -> PolicySet:
    """``load`` of the modules and data under ``paths`` (``sources.load_paths``) through the
    compile cache, where files whose stat stamps are unchanged are neither read nor hashed.
    ``layered``: ``paths`` are layers over the built-in pack (``hookgate.layers.compose``); the
    merge happens here, once per content, and the stamps then skip it too."""
    from hookgate.lang import cache
    from hookgate.sources import default_pack_path, file_stamps, load_paths

    def read() -> tuple[dict[str, str], dict]:
        if not layered:
            return load_paths(paths)
        from hookgate.layers import compose

        composed = compose(paths)
        return composed.sources, composed.data

    try:
        directory = cache.safe_dir(cache_dir)
    except cache.UnsafeCacheDir:
        directory = None
    stamps = None
    if directory is not None:
        stamps = file_stamps([default_pack_path(), *paths] if layered else paths)
        if stamps is not None and layered:  # the same files read as layers merge otherwise
            from hookgate.layers import replacing

            # A REPLACE-BASE file is no module or data file: its presence is stamped here.
            how = "replacing" if replacing(paths) else "over"
            stamps = ((f"<layers {how} the default pack>", 0, 0, 0, 0), *stamps)
    if directory is not None and stamps is not None:
        found = cache.load_stamped(directory, stamps)
        if found is not None:
            key, data = found
            ps = _load_cached(directory, key, data, lambda: read()[0])
            if ps is not None:
                return ps
    sources, data = read()
    key = cache.cache_key(sources, data, False) if stamps is not None else None
    ps = load(sources, data, cache_dir=directory)
    if directory is not None and stamps is not None and key is not None:
        cache.store_stamped(directory, stamps, key, data)
    return ps


# A warm process (hookgate.warm) keeps the policy sets it loads, by compile cache entry, and each
# hook call it forks finds them here. Nothing else keeps them: a caller may change the set it got.
_kept: dict[tuple[str, str], tuple[PolicySet, dict[str, str]]] | None = None
_built = 0


def keep_loaded() -> None:
    """Keep every policy set loaded through the compile cache from now on (a warm process)."""
    global _kept
    _kept = {}


def sets_built() -> int:
    """How many policy sets this process built (read from the compile cache or compiled), not
    counting those it kept: a warm process's child that built one ran policies the warm
    process did not hold."""
    return _built


def _load_cached(
    directory: str,
    key: str,
    data: dict | None,
    sources: dict[str, str] | Callable[[], dict[str, str]],
) -> PolicySet | None:
    """The policy set of a compile cache entry, or None (no entry, or a damaged one)."""
    global _built
    from hookgate import builtins

    kept = _kept.get((directory, key)) if _kept is not None else None
    if kept is not None:
        builtins.use_index(kept[1])
        return kept[0]
    from hookgate.lang import cache
    from hookgate.lang.documents import run

    entry = cache.load(directory, key)
    if entry is None:
        return None
    code, infos, index = entry
    try:  # the entry decoded, yet anything wrong in it still means "rebuild", never a crash
        tree = run(code)
        modules = [cache.ModuleInfo(*info) for info in infos]
    except Exception:
        return None
    builtins.use_index(index)
    ps = PolicySet(tree, modules, data, sources)
    _built += 1
    if _kept is not None:
        _kept[directory, key] = ps, index
    return ps


def _shown(diag: Diagnostic, sources: dict[str, str]) -> Diagnostic:
    """A diagnostic as the author reads it: the source line, variables named as written."""
    from hookgate.lang.scopes import source_names

    return with_source(source_names(diag), sources.get(diag.file, ""))


# Parsed and scoped modules by file name and source: a server compiling a draft over the pack,
# the checks of a publish and the tests parse the same unchanged modules again and again, and
# parsing is most of a compile. Nodes are immutable, so one tree serves every caller. Bounded:
# cleared when full.
_PARSED: dict[tuple[str, str], ast.Module] = {}
_PARSED_MAX = 256


def parse_and_check(sources: dict[str, str], *, strict: bool = False) -> list[ast.Module]:
    """Parse every source and run the static checks; ``PolicyError`` with all diagnostics."""
    from hookgate.lang.parser import parse_module

    modules: list[ast.Module] = []
    diags: list[Diagnostic] = []
    from hookgate.lang.scopes import scope_module

    for name in sorted(sources):
        module = _PARSED.get((name, sources[name]))
        if module is None:
            try:
                module = scope_module(parse_module(sources[name], name))
            except PolicyError as exc:
                diags.extend(exc.diagnostics)
                continue
            if len(_PARSED) >= _PARSED_MAX:
                _PARSED.clear()
            _PARSED[name, sources[name]] = module
        modules.append(module)
    if not diags:
        try:
            from hookgate.lang.check import check_modules
        except ImportError:  # the checker is optional: the compiler reports what it must
            check_modules = None
        if check_modules is not None:
            found = check_modules(modules, strict=strict)
            diags.extend(d for d in found if d.severity == "error")
    if diags:
        raise PolicyError([_shown(d, sources) for d in diags])
    return modules
