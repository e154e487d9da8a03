"""Impact of a draft policy set on recorded traffic: replay recorded input documents against
the draft and against the active set, and report every decision whose outcome would change.

``replay`` is one module-level function over plain, picklable values, so the server can run it
in a thread or in a worker process alike.

Every record is replayed on the draft (the recorded, masked input; no facts about the hook's
machine, so builtins that read them answer null). A record that the active set decided
(same bundle revision) and that the draft decides the same way has not changed. Every other
record is replayed on the active set too, the same way, and the transition is active set →
draft: what the draft changes, not what a missing fact, a cut input or an older bundle
changes. Replaying only those keeps a replay near one evaluation per record. ``drifted``
counts the records whose replay on the active set differs from what was recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from hookgate.recorded import RecordedCall

MAX_EXAMPLES = 20
ERROR = "error"  # the outcome of a replay whose evaluation failed
# A recorded outcome that turning into an allow is weaker protection.
GUARDED = ("deny", "ask")


def weakening(transitions: dict[str, int]) -> dict[str, int]:
    """The transitions of an impact report (``{"deny→allow": n}``) that turn a recorded deny
    or ask into an allow: what ``hookgate publish`` and a promotion refuse."""
    return {
        name: count
        for name, count in transitions.items()
        if name.partition("→")[0] in GUARDED and name.partition("→")[2] == "allow"
    }


def replay(
    sources: dict[str, str],
    data: dict,
    records: Iterable[dict],
    baseline: tuple[dict[str, str], dict, int] | None = None,
) -> dict[str, Any]:
    """The impact report of the draft ``(sources, data)`` on ``records`` (dicts with
    ``decision_id``, ``outcome``, ``bundle_revision``, ``input`` and the other fields
    ``GET /v1/decisions`` answers). ``baseline`` is the active set ``(policies, data,
    revision)`` to compare with; without it the recorded outcome is the "before". Raises
    ``PolicyError`` when the draft (or baseline) does not compile."""
    from hookgate.engine import Engine

    draft = Engine.from_sources(sources, data, origin="draft")
    before = None
    transitions: Counter[str] = Counter()
    by_pack: Counter[str] = Counter()
    by_pattern: Counter[str] = Counter()
    examples: list[dict] = []
    considered = replayed = skipped = truncated = drifted = changed = rechecked = 0
    for record in records:  # an iterator in a server's worker: the records are streamed
        considered += 1
        document = record.get("input")
        if not isinstance(document, dict):
            skipped += 1
            continue
        replayed += 1
        truncated += bool(record.get("input_truncated"))
        call = RecordedCall(document)
        now = _decide(draft, call)
        recorded = record.get("outcome")
        if baseline is None:
            matches = record.get("matches") or []
            was = {"outcome": recorded, "matches": matches, "reasons": []}
        elif now["outcome"] == recorded and record.get("bundle_revision") == baseline[2]:
            continue  # decided by the active set, and the draft agrees
        else:
            if before is None:
                before = Engine.from_sources(baseline[0], baseline[1], origin="active set")
            was = _decide(before, call)
            rechecked += 1
            drifted += was["outcome"] != recorded
        if now["outcome"] == was["outcome"]:
            continue
        changed += 1
        transitions[f"{was['outcome']}→{now['outcome']}"] += 1
        for pack, pattern in _changed_matches(was["matches"], now["matches"]):
            by_pack[pack] += 1
            by_pattern[f"{pack}/{pattern}"] += 1
        if len(examples) < MAX_EXAMPLES:
            examples.append(_example(record, was, now))
    return {
        "considered": considered,
        "replayed": replayed,
        "skipped_without_input": skipped,
        "truncated_inputs": truncated,
        "rechecked": rechecked,
        "drifted": drifted if baseline is not None else None,
        "changed": changed,
        "transitions": dict(transitions.most_common()),
        "by_pack": dict(by_pack.most_common()),
        "by_pattern": dict(by_pattern.most_common()),
        "examples": examples,
    }


def _decide(engine: Any, call: RecordedCall) -> dict:
    from hookgate.engine import PolicySetError
    from hookgate.lang.errors import EvalError

    try:
        decision = engine.decide(call, facts={})
    except (EvalError, PolicySetError, RecursionError) as exc:
        return {"outcome": ERROR, "matches": [], "reasons": [str(exc) or type(exc).__name__]}
    return {
        "outcome": decision.outcome,
        "matches": decision.matches or [],
        "reasons": decision.reasons or [],
    }


def _changed_matches(was: list[dict], now: list[dict]) -> set[tuple[str, str]]:
    """The (pack, pattern) pairs that matched on one side only: what made the difference."""

    def pairs(matches: list[dict]) -> set[tuple[str, str]]:
        return {(str(m.get("pack")), str(m.get("pattern"))) for m in matches}

    return pairs(was) ^ pairs(now)


def _example(record: dict, was: dict, now: dict) -> dict:
    document = record["input"]
    tool_input = document.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    return {
        "decision_id": record.get("decision_id"),
        "time": record.get("time"),
        "host": record.get("host") or document.get("host"),
        "session_id": record.get("session_id") or document.get("session_id"),
        "tool_name": record.get("tool_name") or document.get("tool_name"),
        "command": command if isinstance(command, str) else None,
        "recorded": record.get("outcome"),
        "before": was["outcome"],
        "after": now["outcome"],
        "reasons_before": was["reasons"],
        "reasons_after": now["reasons"],
        "input_truncated": bool(record.get("input_truncated")),
    }
