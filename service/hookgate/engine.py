"""The engine: policies loaded and compiled once, then every hook payload evaluated against them.

``evaluate`` runs the whole flow: normalize the payload, build the input document, query each
guard package's decision rules (``deny``, ``ask``, ``rewrite``, ``context``), and combine them
into one ``Decision``: any deny wins, else any ask, else the rewrites merged into the complete
tool input, else allow. Every reason carries ``[pack=…, pattern=…]`` provenance.
"""

from __future__ import annotations

from hookgate import jsonio
from hookgate.config import failure_policy
from hookgate.decision import Decision
from hookgate.hostio.normalize import HookInput, PayloadError, normalize
from hookgate.lang import UNDEFINED, PolicySet, load
from hookgate.lang.errors import EvalError, PolicyError
from hookgate.lang.values import to_json
from hookgate.sources import load_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

DECISION_RULES = ("deny", "ask", "rewrite", "context")
GUARD_PREFIX = ("hookgate",)
# Wall-clock bound of one decision, in seconds: a pathological policy fails by the failure
# policy instead of hanging the agent's tool call.
TIMEOUT = 2.0


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
        self._decision_refs = [
            ("data." + ".".join(package) + "." + rule, pack, rule)
            for package, pack, rules in _guard_packages(policy_set)
            for rule in rules
        ]

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
        excluded); ``data`` is merged over the files' data."""
        sources, file_data = load_paths(list(paths))
        if data:
            file_data.update(data)
        origin = origin or "policies " + ", ".join(map(str, paths))
        return cls.from_sources(sources, file_data, cache_dir=cache_dir, origin=origin)

    @classmethod
    def from_sources(
        cls,
        sources: Mapping[str, str],
        data: Mapping | None = None,
        *,
        cache_dir: str | Path | None = None,
        origin: str = "sources",
    ) -> Engine:
        """Compile ``sources`` (file name → policy text) with ``data``; raises ``PolicyError``
        with every diagnostic when they do not compile."""
        policy_set = load(dict(sources), data=dict(data or {}), cache_dir=cache_dir)
        return cls(policy_set, origin=origin)

    @classmethod
    def local(cls, policies: list[str] | None = None) -> tuple[Engine, int | None]:
        """The engine this machine's hooks use: ``policies`` if given, else the last good
        pulled bundle (starting a background refresh when it is stale), else the built-in
        default pack. Returns the engine and the bundle revision it came from (None if none)."""
        from hookgate import sync
        from hookgate.paths import compiled_dir
        from hookgate.sources import default_pack_path

        compiled = compiled_dir()
        if policies:
            return cls.from_paths(policies, cache_dir=compiled), None
        bundle = sync.active_bundle()
        sync.refresh_if_stale(bundle)
        if bundle is not None:
            origin = f"bundle revision {bundle.revision}"
            engine = cls.from_sources(
                bundle.policies, bundle.data, cache_dir=compiled, origin=origin
            )
            return engine, bundle.revision
        pack = [default_pack_path()]
        return cls.from_paths(pack, cache_dir=compiled, origin="default pack"), None

    def evaluate(
        self,
        payload: Mapping | str | bytes,
        host: str | None = None,
        *,
        facts: Mapping | None = None,
        explain: bool = False,
        failure: str | None = None,
    ) -> Decision:
        """Evaluate one hook payload in any host's shape. Never raises for bad payloads or
        failing policies: those become a failure decision under the event's failure policy
        (``failure`` overrides it: ``open`` or ``closed``)."""
        try:
            hook_input = normalize(payload, host or "auto")
        except PayloadError as exc:
            closed = failure_policy(None, failure) == "closed"
            return Decision.failure("payload", str(exc), closed, host=host)
        try:
            return self.decide(hook_input, facts=facts, explain=explain)
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
        self, hook_input: HookInput, *, facts: Mapping | None = None, explain: bool = False
    ) -> Decision:
        """Query every guard package for ``hook_input`` and combine the answers; raises
        ``EvalError`` or ``PolicySetError`` when the policies fail."""
        document = hook_input.document()
        overrides = _fact_overrides(facts) if facts is not None else None
        trace: list[dict] = [] if explain else None
        prints: list[str] = [] if explain else None
        refs = [ref for ref, _, _ in self._decision_refs]
        # One evaluation for every rule, so helper rules the packages share run once.
        values = self.policy_set.query_many(
            refs, input=document, overrides=overrides, prints=prints, timeout=self.timeout
        )
        found: dict[str, list[_Item]] = {rule: [] for rule in DECISION_RULES}
        for (ref, pack, rule), value in zip(self._decision_refs, values, strict=True):
            if trace is not None:
                trace.append(
                    {"rule": ref, "defined": value is not UNDEFINED, "value": _plain(value)}
                )
            if value is not UNDEFINED:
                found[rule] += _items(value, rule, pack, ref)
        decision = _combine(found, hook_input)
        decision.input_document = document
        if trace is not None:
            decision.explain = {"origin": self.origin, "rules": trace, "prints": prints}
        return decision

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


def _items(value: Any, rule: str, pack: str, ref: str) -> list[_Item]:
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


def _combine(found: dict[str, list[_Item]], hook_input: HookInput) -> Decision:
    context = [item.provenance() for item in found["context"]]
    if found["deny"]:
        outcome, chosen, updated = "deny", found["deny"], None
    elif found["ask"]:
        outcome, chosen, updated = "ask", found["ask"], None
    elif found["rewrite"]:
        outcome, chosen = "rewrite", found["rewrite"]
        updated = _merge_rewrites(hook_input.tool_input, chosen)
    else:
        outcome, chosen, updated = "allow", [], None
    fired = chosen + found["context"]
    return Decision(
        outcome=outcome,
        reasons=[item.provenance() for item in chosen],
        context=context,
        updated_input=updated,
        matches=[item.match() for item in fired],
        errors=[],
        event=hook_input.event,
        host_event=hook_input.host_event,
        host=hook_input.host,
        tool_name=hook_input.tool_name,
    )


def _merge_rewrites(tool_input: Any, rewrites: list[_Item]) -> dict:
    """The complete tool input with every rewrite applied; fields a rewrite does not name stay
    as they were. Two rewrites giving one field different values are an error of the policies."""
    if not isinstance(tool_input, dict):
        raise PolicySetError("a rewrite needs the tool input to be an object")
    merged = dict(tool_input)
    set_by: dict[str, _Item] = {}
    for item in rewrites:
        for field, value in item.tool_input.items():
            earlier = set_by.get(field)
            if earlier is not None and merged[field] != value:
                raise PolicySetError(
                    f"conflicting rewrites of tool_input.{field}: "
                    f"pattern {earlier.pattern} ({earlier.pack}) and {item.pattern} ({item.pack})"
                )
            merged[field] = value
            set_by[field] = item
    return merged


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
