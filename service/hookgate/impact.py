"""Impact of a draft policy set on recorded traffic: replay recorded input documents against
the draft and against the active set, and report every decision whose outcome would change.

``replay`` is one module-level function over plain, picklable values, so the server can run it
in a thread or in a worker process alike. Both sides are replayed the same way (the recorded,
masked input; no facts about the hook's machine, so builtins that read it answer null), and
the transition is active set → draft: what the draft changes, not what masking or a missing
fact changes. How often the active set's replay disagrees with what was recorded is reported
too (``drifted``: a newer active set, a fact the replay lacks, or a cut input).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hookgate.recorded import RecordedCall

MAX_EXAMPLES = 20
ERROR = "error"  # the outcome of a replay whose evaluation failed


def replay(
    sources: dict[str, str],
    data: dict,
    records: list[dict],
    baseline: tuple[dict[str, str], dict] | None = None,
) -> dict[str, Any]:
    """The impact report of the draft ``(sources, data)`` on ``records`` (dicts with
    ``decision_id``, ``outcome``, ``input`` and the other fields ``GET /v1/decisions``
    answers). ``baseline`` is the active set to compare with; without it the recorded outcome
    is the "before". Raises ``PolicyError`` when the draft (or baseline) does not compile."""
    from hookgate.engine import Engine

    draft = Engine.from_sources(sources, data, origin="draft")
    before = Engine.from_sources(*baseline, origin="active set") if baseline else None
    transitions: Counter[str] = Counter()
    by_pack: Counter[str] = Counter()
    by_pattern: Counter[str] = Counter()
    examples: list[dict] = []
    replayed = skipped = truncated = drifted = changed = 0
    for record in records:
        document = record.get("input")
        if not isinstance(document, dict):
            skipped += 1
            continue
        replayed += 1
        truncated += bool(record.get("input_truncated"))
        call = RecordedCall(document)
        if before is None:
            matches = record.get("matches") or []
            was = {"outcome": record.get("outcome"), "matches": matches, "reasons": []}
        else:
            was = _decide(before, call)
            drifted += was["outcome"] != record.get("outcome")
        now = _decide(draft, call)
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
        "considered": len(records),
        "replayed": replayed,
        "skipped_without_input": skipped,
        "truncated_inputs": truncated,
        "drifted": drifted if before is not None else None,
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
