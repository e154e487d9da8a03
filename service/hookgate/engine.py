"""The engine: policies loaded and compiled once, then every hook payload evaluated against them.

``evaluate`` runs the whole flow: normalize the payload, build the input document, query each
guard package's decision rules (``deny``, ``ask``, ``rewrite``, ``context``), and combine them
into one ``Decision``: any deny wins, else any ask, else the rewrites merged into the complete
tool input, else allow. Every reason carries ``[pack=…, pattern=…]`` provenance.

A pack that fails fails alone, by the kind of its failure: a ``LimitError`` (time, steps,
nesting: reached judging content the agent controls) answers the limit action, ask or deny, and
so does what the agent can cause while a pack runs (a builtin finding a FIFO planted where it
reads a file, a dependency that no longer imports: ``files.agent_caused``); any other error is
a fault and follows the failure policy. The other packs still decide.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_not

from hookgate import jsonio
from hookgate.config import failure_policy
from hookgate.config import limit_action as config_limit_action
from hookgate.decision import Decision
from hookgate.hostio.normalize import HookInput, PayloadError, normalize
from hookgate.lang import UNDEFINED, PolicySet, load, load_files
from hookgate.lang.errors import EvalError, LimitError, PolicyError
from hookgate.lang.runtime import EMPTY_SET
from hookgate.lang.values import RegoSet, to_json
from hookgate.modes import mode_of
from hookgate.modes import table as mode_table
from hookgate.sources import lay_over, load_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

DECISION_RULES = ("deny", "ask", "rewrite", "context")
GUARD_PREFIX = ("hookgate",)
# Wall-clock bound of one decision (of one pack, when packs are evaluated alone), in seconds: a
# pathological policy or input reaches this limit (which asks) instead of hanging the tool call.
TIMEOUT = 2.0

LIMIT_ACTIONS = ("ask", "deny")
# When the evaluation of every pack at once fails, the packs evaluated one by one get at most
# this many decision time limits in all (each pack at most one).
ISOLATION_TIMES = 2


def _agent_caused(exc: Exception) -> tuple[str, str] | None:
    """What the agent can cause of an exception a pack raised (a file it planted where a
    builtin reads, a dependency it broke): ``files.agent_caused``. That pack reaches a limit;
    the other packs still decide."""
    from hookgate.files import agent_caused

    return agent_caused(exc)


def limit_action(data: Mapping) -> str:
    """What a limit reached judging a call answers: ``data.hookgate.config.limits.action``,
    ``ask`` (the default) or ``deny``. Anything else is reported by ``hookgate check`` and
    answers ``ask``."""
    config = data.get("hookgate")
    for key in ("config", "limits"):
        config = config.get(key) if isinstance(config, dict) else None
    action = config.get("action") if isinstance(config, dict) else None
    return action if action in LIMIT_ACTIONS else "ask"


def _disabled(data: Mapping) -> frozenset[str]:
    """``data.hookgate.disabled``: the guards a layer turned off (``hookgate.layers``)."""
    node = data.get("hookgate")
    names = node.get("disabled") if isinstance(node, dict) else None
    if not isinstance(names, list):
        return frozenset()
    return frozenset(name for name in names if isinstance(name, str))


def _error(
    kind: str, source: str, message: str, *, pack: str | None = None, limit: str | None = None
) -> dict:
    """One ``errors`` entry of a decision (the contract: README "Failure policy")."""
    return {"kind": kind, "source": source, "pack": pack, "limit": limit, "message": message}


class PolicySetError(Exception):
    """The loaded policies produced something the decision contract does not allow (a rewrite
    without a tool_input object, two rewrites setting one field to different values, …)."""


class Engine:
    """Compiled policies plus the guard packages found in them."""

    def __init__(
        self, policy_set: PolicySet, *, origin: str = "policies", timeout: float = TIMEOUT
    ) -> None:
        self.policy_set = policy_set
        self.origin = origin  # where the policies came from, for --explain and telemetry
        self.timeout = timeout
        packages = _guard_packages(policy_set)
        self.pack_names = {package: pack for package, pack, _ in packages}
        # The guard's name (as ``disabled`` and ``modes`` spell it) of each pack, by its title.
        self._guards = {
            pack: ".".join(package[len(GUARD_PREFIX) :]) for package, pack, _ in packages
        }
        # Guards and patterns in warn or audit mode (``hookgate.modes``): the rest enforce.
        self.modes = mode_table(policy_set.data)
        # Guards turned off by the explicit statement (hookgate.layers) are not asked at all.
        self.disabled = _disabled(policy_set.data)
        self._packs = [
            (pack, [("data." + ".".join(package) + "." + rule, rule) for rule in rules])
            for package, pack, rules in packages
            if rules and ".".join(package[len(GUARD_PREFIX) :]) not in self.disabled
        ]
        # Every pack's decision refs in one list, and each one's (pack, ref, rule): one query
        # asks them all (_values).
        self._every = [ref for _, refs in self._packs for ref, _ in refs]
        self._where = [(pack, ref, rule) for pack, refs in self._packs for ref, rule in refs]
        # ``$HOOKGATE_LIMIT_ACTION`` (config.limit_action) can make it stricter, never looser.
        self.limit_action = config_limit_action(limit_action(policy_set.data))
        self._tracer: Any = None  # built by the first --explain (``lang.trace.Tracer``)
        self.cache_dir: str | Path | None = None  # the compile cache it came through, if any

    @classmethod
    def from_paths(
        cls,
        paths: list[str] | list[Path],
        *,
        data: Mapping | None = None,
        cache_dir: str | Path | None = None,
        origin: str | None = None,
    ) -> Engine:
        """Load every ``.rego`` module and data ``.json`` under ``paths`` (test modules
        excluded); ``data`` is laid over the files' data: objects key by key, any other value
        replacing the files' (``{"hookgate": {"config": {"xpia": {"pre_action": "ask"}}}}``
        changes that one setting)."""
        origin = origin or "policies " + ", ".join(map(str, paths))
        if cache_dir is not None and not data:  # a warm start reads no policy file
            engine = cls(load_files(list(paths), cache_dir=cache_dir), origin=origin)
            engine.cache_dir = cache_dir
            return engine
        sources, file_data = load_paths(list(paths))
        if data:
            lay_over(file_data, data)
        return cls.from_sources(sources, file_data, cache_dir=cache_dir, origin=origin)

    @classmethod
    def from_layers(
        cls, layers: list[str] | list[Path], *, cache_dir: str | Path | None = None
    ) -> Engine:
        """The built-in pack (none when a layer holds ``REPLACE-BASE``) with ``layers`` over it
        (``hookgate.layers``), through the compile
        cache when ``cache_dir`` is given."""
        from hookgate.layers import compose, replacing

        over = "" if replacing(layers) else "default pack + "
        origin = f"{over}policies " + ", ".join(map(str, layers))
        if cache_dir is not None:
            return cls(load_files(list(layers), cache_dir=cache_dir, layered=True), origin=origin)
        composed = compose(list(layers))
        return cls.from_sources(composed.sources, composed.data, origin=origin)

    @classmethod
    def from_sources(
        cls,
        sources: Mapping[str, str],
        data: Mapping | None = None,
        *,
        cache_dir: str | Path | None = None,
        origin: str = "sources",
        timeout: float = TIMEOUT,
    ) -> Engine:
        """Compile ``sources`` (file name → policy text) with ``data``; raises ``PolicyError``
        with every diagnostic when they do not compile."""
        policy_set = load(dict(sources), data=dict(data or {}), cache_dir=cache_dir)
        engine = cls(policy_set, origin=origin, timeout=timeout)
        engine.cache_dir = cache_dir
        return engine

    def evaluate(
        self,
        payload: Mapping | str | bytes,
        host: str | None = None,
        *,
        facts: Mapping | None = None,
        explain: bool = False,
        failure: str | None = None,
        trace: bool = True,
    ) -> Decision:
        """Evaluate one hook payload in any host's shape. Never raises for bad payloads or
        failing policies: a fault (bad payload, a broken pack) follows the event's failure
        policy (``failure`` overrides it: ``open`` or ``closed``); a limit reached judging the
        call answers the configured limit action (``ask`` or ``deny``)."""
        try:
            hook_input = normalize(payload, host or "auto")
        except PayloadError as exc:
            closed = failure_policy(None, failure) == "closed"
            return Decision.failure("payload", str(exc), closed, host=host)
        try:
            return self.decide(
                hook_input, facts=facts, explain=explain, failure=failure, trace=trace
            )
        except (EvalError, PolicySetError, RecursionError) as exc:
            closed = failure_policy(hook_input.event, failure) == "closed"
            return Decision.failure(
                "evaluation",
                str(exc) or type(exc).__name__,
                closed,
                event=hook_input.event,
                host=hook_input.host,
                host_event=hook_input.host_event,
            )

    def decide(
        self,
        hook_input: HookInput,
        *,
        facts: Mapping | None = None,
        explain: bool = False,
        failure: str | None = None,
        trace: bool = True,
    ) -> Decision:
        """Query every guard pack for ``hook_input`` and combine the answers. A pack that fails
        fails alone: a limit adds the limit action (ask or deny) in its name, a fault follows
        the failure policy (``failure`` overrides it); the other packs still decide."""
        document = hook_input.document()
        overrides = _fact_overrides(facts) if facts is not None else None
        contributed: list[dict] = [] if explain else None
        prints: list[str] = [] if explain else None
        found: dict[str, list[_Item]] = {rule: [] for rule in DECISION_RULES}
        failed: list[tuple[str, Exception]] = []
        rewrites: dict[str, list[_Item]] = {}
        would: list[dict] = []
        results = self._values(document, overrides, prints)
        packs: dict[str, list[_Item] | None] = {}  # each pack's items, None: it failed
        for pack, ref, rule, value in results:
            if isinstance(value, Exception):
                failed.append((pack, value))
                packs[pack] = None
            elif packs.get(pack, ()) is not None:
                try:
                    packs.setdefault(pack, []).extend(_items(value, rule, pack, ref))
                except PolicySetError as exc:
                    failed.append((pack, exc))
                    packs[pack] = None
        if contributed is not None:  # the rules that contributed: a value, not an empty set
            contributed += [
                {"rule": ref, "defined": True, "value": _plain(v)}
                for pack, ref, _, v in results
                if packs.get(pack) is not None and v != EMPTY_SET
            ]
        for pack, items in packs.items():
            if items is None:
                continue
            if self.modes:
                items = self._apply_modes(pack, items, would)
            for item in items:
                if item.rule == "rewrite":
                    rewrites.setdefault(pack, []).append(item)
                else:
                    found[item.rule].append(item)
        updated = None
        if rewrites and not found["deny"] and not found["ask"]:
            updated, conflicts = _merge_rewrites(hook_input.tool_input, rewrites)
            failed += conflicts
            found["rewrite"] = [item for pack in rewrites for item in rewrites[pack]]
        errors = []
        for pack, exc in failed:
            error, item = self._pack_failure(pack, exc, hook_input.event, failure)
            errors.append(error)
            if item is not None:
                found[item.rule].append(item)
        decision = _combine(found, hook_input, updated, errors)
        decision.input_document = document
        decision.would = would
        if contributed is not None:
            decision.explain = {
                "origin": self.origin,
                "rules": contributed,
                "prints": prints,
                "failed_packs": errors,
                "modes": dict(self.modes),
            }
            if trace:
                self._explain(decision.explain, document, overrides)
        return decision

    def _apply_modes(self, pack: str, items: list[_Item], would: list[dict]) -> list[_Item]:
        """``items`` of ``pack`` as its modes let them take effect: an item in warn or audit
        mode is recorded in ``would`` (what it would have answered) instead of deciding, and in
        warn mode its reason reaches the agent as context. A guard's own context is shown in
        warn mode and dropped in audit mode."""
        guard = self._guards[pack]
        kept = []
        for item in items:
            mode = mode_of(self.modes, guard, item.pattern)
            if mode == "enforce":
                kept.append(item)
                continue
            if item.rule != "context":
                would.append(item.would(mode, guard))
            if mode == "warn":
                kept.append(item if item.rule == "context" else item.warning())
        return kept

    def trace(self, decision: Decision) -> None:
        """The trace ``evaluate(..., explain=True, trace=False)`` left out, added to
        ``decision.explain`` (the hook adds it after its answer is out: building the traced code
        the first time takes a second or more, which must not count against the deadline)."""
        if decision.explain is not None and "facts" not in decision.explain:
            self._explain(decision.explain, decision.input_document, None)

    def _explain(self, explained: dict, document: Any, overrides: dict | None) -> None:
        """Add to each contributing rule of ``explained`` its definitions that produced the
        value (file:line:col), the configuration keys it read and the host facts it used, and
        list every host fact the evaluation asked for. Never changes the decision: a failure
        to trace is reported in ``trace_error``."""
        try:
            from hookgate.lang.trace import Tracer

            if self._tracer is None:
                self._tracer = Tracer(self.policy_set, self.cache_dir)
            refs = [ref for _, pack_refs in self._packs for ref, _ in pack_refs]
            traced = self._tracer.run(refs, document, overrides, prints=[], timeout=self.timeout)
            for rule in explained["rules"]:
                rule.update(self._tracer.why(rule["rule"], traced))
            explained["facts"] = traced.calls
        except Exception as exc:  # a policy that fails evaluation already says so in errors
            explained["trace_error"] = f"{type(exc).__name__}: {exc}"

    def _values(
        self, document: Any, overrides: dict | None, prints: list | None
    ) -> list[tuple[str, str | None, str | None, Any]]:
        """The decision rules that have a value, as ``(pack, ref, rule, value)`` in pack
        order, and for a pack that failed ``(pack, None, None, error)``.

        One evaluation for every pack first, so helper rules the packs share run once. Only if
        it fails is each pack evaluated alone, with its own budget and time limit, to find the
        packs that fail and keep the others' answers. That second pass is bounded as a whole
        (``ISOLATION_TIMES`` decision time limits): a pack it has no time left for fails on the
        time limit, which asks, so slowness never turns into an allow.
        """
        try:
            values = self.policy_set.query_many(
                self._every,
                input=document,
                overrides=overrides,
                prints=prints,
                timeout=self.timeout,
            )
        except EvalError:
            pass
        except Exception as exc:  # only what the agent can cause goes on to the packs alone
            if _agent_caused(exc) is None:
                raise
        else:
            # Most decision rules are empty sets: the others are found without a bytecode
            # per rule (compress and map run in C).
            where = self._where
            return [
                (*where[i], values[i])
                for i in compress(range(len(values)), map(is_not, values, repeat(EMPTY_SET)))
                if values[i] is not UNDEFINED
            ]
        import time

        found = []
        end = time.monotonic() + self.timeout * ISOLATION_TIMES
        if prints is not None:
            del prints[:]  # the first pass's output: each pack prints again
        for pack, refs in self._packs:
            left = end - time.monotonic()
            try:
                if left <= 0:
                    raise LimitError("time", "evaluation time limit reached")
                result = self.policy_set.query_many(
                    [ref for ref, _ in refs],
                    input=document,
                    overrides=overrides,
                    prints=prints,
                    timeout=min(self.timeout, left),
                )
            except EvalError as exc:
                found.append((pack, None, None, exc))
                continue
            except Exception as exc:
                caused = _agent_caused(exc)
                if caused is None:
                    raise
                found.append((pack, None, None, LimitError(*caused)))
                continue
            found += [
                (pack, ref, rule, value)
                for (ref, rule), value in zip(refs, result, strict=True)
                if value is not UNDEFINED and value is not EMPTY_SET
            ]
        return found

    def _pack_failure(
        self, pack: str, exc: Exception, event: str, failure: str | None
    ) -> tuple[dict, _Item | None]:
        """The ``errors`` entry for a pack that failed, and what it answers in its place: the
        limit action for a limit, a deny under a closed failure policy, nothing under open."""
        message = str(exc) or type(exc).__name__
        if isinstance(exc, LimitError):
            error = _error("limit", "evaluation", message, pack=pack, limit=exc.limit)
            why = self._limit_text(exc)
            action = self.limit_action
            verb = "asked about" if action == "ask" else "denied"
            reason = (
                f"hookgate reached a limit judging this call ({why}), so it cannot be checked "
                f"and is {verb}"
            )
            return error, _Item(action, pack, "limit-" + exc.limit, reason, None)
        error = _error("fault", "evaluation", message, pack=pack)
        if failure_policy(event, failure) != "closed":
            return error, None
        reason = (
            f"hookgate could not evaluate this call (evaluation: {message}) and the failure "
            f"policy for {event} is closed"
        )
        return error, _Item("deny", pack, "failure-policy", reason, None)

    def _limit_text(self, exc: LimitError) -> str:
        if exc.limit == "time":
            return f"the decision time limit of {self.timeout:g} s was reached"
        if exc.limit == "steps":
            from hookgate.lang.runtime import DEFAULT_BUDGET

            return f"the budget of {DEFAULT_BUDGET:,} evaluation steps was used up"
        if exc.limit == "nesting":
            return "what it judges is nested too deeply to analyse"
        if exc.limit == "file":
            return f"a file it reads is not one hookgate will read: {exc.message}"
        if exc.limit == "code":
            return exc.message
        return f"{exc.limit} limit: {exc.message}"

    def query(self, ref: str, input: Any = None, data: Mapping | None = None) -> Any:
        """Evaluate a reference such as ``data.test.x``; plain JSON values, ``None`` when
        undefined."""
        kwargs = {} if input is None else {"input": input}
        return _plain(self.policy_set.query(ref, data_overrides=data, **kwargs))


class _Item:
    """One member of a decision rule's set, with where it came from."""

    __slots__ = ("rule", "pack", "pattern", "reason", "tool_input")

    def __init__(
        self, rule: str, pack: str, pattern: str, reason: str, tool_input: dict | None
    ) -> None:
        self.rule = rule
        self.pack = pack
        self.pattern = pattern
        self.reason = reason
        self.tool_input = tool_input

    def provenance(self) -> str:
        return f"{self.reason} [pack={self.pack}, pattern={self.pattern}]"

    def match(self) -> dict:
        return {"pack": self.pack, "pattern": self.pattern, "rule": self.rule}

    def would(self, mode: str, guard: str) -> dict:
        """What this deny, ask or rewrite would have answered, as ``Decision.would`` keeps it."""
        return {
            "would": self.rule,
            "mode": mode,
            "guard": guard,
            "pack": self.pack,
            "pattern": self.pattern,
            "reason": self.reason,
            "rewrite": self.tool_input,
        }

    def warning(self) -> _Item:
        """The context a guard in warn mode gives instead of its deny, ask or rewrite."""
        verb = _WOULD[self.rule]
        reason = f"hookgate would {verb} this call (warn mode, not enforced): {self.reason}"
        return _Item("context", self.pack, self.pattern, reason, None)


_WOULD = {"deny": "deny", "ask": "ask about", "rewrite": "rewrite"}


def _items(value: Any, rule: str, pack: str, ref: str) -> list[_Item]:
    if type(value) is RegoSet and len(value._d) == 1:
        # The usual deny, ask or rewrite: one member, in order without Rego's sort keys.
        members = [to_json(member) for member in value._d.values()]
    else:
        members = to_json(value)
    if not isinstance(members, list):
        raise PolicySetError(f"{ref} must be a set (use `{rule} contains …`)")
    items = []
    for member in members:
        if isinstance(member, str):
            items.append(_Item(rule, pack, rule, member, None))
            continue
        if not isinstance(member, dict) or not isinstance(member.get("reason", ""), str):
            raise PolicySetError(f"{ref}: each member must be a string or an object with a reason")
        tool_input = member.get("tool_input")
        if rule == "rewrite" and not isinstance(tool_input, dict):
            raise PolicySetError(f"{ref}: a rewrite must carry a tool_input object")
        pattern = member.get("pattern", rule)
        reason = member.get("reason") or member.get("context") or pattern
        items.append(_Item(rule, pack, str(pattern), reason, tool_input))
    return items


def _combine(
    found: dict[str, list[_Item]], hook_input: HookInput, updated: dict | None, errors: list[dict]
) -> Decision:
    context = [item.provenance() for item in found["context"]]
    if found["deny"]:
        outcome, chosen, updated = "deny", found["deny"], None
    elif found["ask"]:
        outcome, chosen, updated = "ask", found["ask"], None
    elif found["rewrite"] and updated is not None:
        outcome, chosen = "rewrite", found["rewrite"]
    else:
        outcome, chosen, updated = "allow", [], None
    fired = chosen + found["context"]
    return Decision(
        outcome=outcome,
        reasons=[item.provenance() for item in chosen],
        context=context,
        updated_input=updated,
        matches=[item.match() for item in fired],
        errors=errors,
        event=hook_input.event,
        host_event=hook_input.host_event,
        host=hook_input.host,
        tool_name=hook_input.tool_name,
    )


def _merge_rewrites(
    tool_input: Any, rewrites: dict[str, list[_Item]]
) -> tuple[dict | None, list[tuple[str, Exception]]]:
    """The complete tool input with every pack's rewrites applied (fields a rewrite does not
    name stay as they were), and the packs that failed: a pack whose rewrites give one field
    two values, or a value another pack (earlier in pack order) already set, fails alone and
    its rewrites are left out. None when no pack's rewrites remain."""
    if not isinstance(tool_input, dict):
        error = PolicySetError("a rewrite needs the tool input to be an object")
        return None, [(pack, error) for pack in rewrites]
    merged = dict(tool_input)
    set_by: dict[str, _Item] = {}
    failed: list[tuple[str, Exception]] = []
    for pack in list(rewrites):
        mine: dict[str, _Item] = {}
        try:
            for item in rewrites[pack]:
                for field, value in item.tool_input.items():
                    earlier = mine.get(field) or set_by.get(field)
                    if earlier is not None and earlier.tool_input[field] != value:
                        raise PolicySetError(
                            f"conflicting rewrites of tool_input.{field}: pattern "
                            f"{earlier.pattern} ({earlier.pack}) and {item.pattern} ({item.pack})"
                        )
                    mine[field] = item
        except PolicySetError as exc:
            failed.append((pack, exc))
            del rewrites[pack]
            continue
        for field, item in mine.items():
            merged[field] = item.tool_input[field]
            set_by[field] = item
    return (merged if rewrites else None), failed


def _guard_packages(policy_set: PolicySet) -> list[tuple[tuple[str, ...], str, list[str]]]:
    """Each guard package (``hookgate.*``, tests excluded) with its pack name (the first
    ``# METADATA`` title among its modules, else the package name) and the decision rules it
    defines, in a stable order."""
    titles: dict[tuple[str, ...], str | None] = {}
    rules: dict[tuple[str, ...], set[str]] = {}
    for module in policy_set.modules:
        package = tuple(module.package)
        if package[: len(GUARD_PREFIX)] != GUARD_PREFIX or package[-1].endswith("_test"):
            continue
        titles[package] = titles.get(package) or dict(module.metadata).get("title")
        rules.setdefault(package, set()).update(
            r.ref[0] for r in module.rules if r.ref[0] in DECISION_RULES
        )
    return [
        (package, titles[package] or ".".join(package), [r for r in DECISION_RULES if r in names])
        for package, names in sorted(rules.items())
    ]


def _fact_overrides(facts: Mapping) -> dict:
    """Builtins that read the local machine, answered from request facts instead.

    ``facts`` maps a builtin's name to ``{argument: result}`` (the argument as a string, or the
    JSON of the argument list when there are several). A fact not given is ``null``: the server
    never falls back to its own disk.
    """

    def answer(name: str) -> Any:
        table = facts.get(name) or {}

        def lookup(*args: Any) -> Any:
            key = args[0] if len(args) == 1 and isinstance(args[0], str) else jsonio.dumps(args)
            return table.get(key)

        return lookup

    return {name: answer(name) for name in _host_builtins()}


_HOST_BUILTINS: list[str] = []


def _host_builtins() -> list[str]:
    """The names of the builtins that read the local machine (looked up once)."""
    if not _HOST_BUILTINS:
        from hookgate.builtins import full_registry

        _HOST_BUILTINS.extend(name for name, b in full_registry().items() if b.reads_host)
    return _HOST_BUILTINS


def _plain(value: Any) -> Any:
    return None if value is UNDEFINED else to_json(value)


__all__ = ["Engine", "PolicyError", "PolicySetError"]
