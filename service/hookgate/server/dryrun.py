"""What a worker process does for ``/v1/evaluate`` and ``/v1/check``: compile a policy set
(cached by its key), evaluate a payload, answer in plain data (see ``server/workers.py``)."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any

from hookgate import packcheck
from hookgate.lang.errors import PolicyError

CACHED_SETS = 4  # compiled sets a worker keeps: the active one and a few drafts being edited
_ENGINES: OrderedDict[str, Any] = OrderedDict()


def diagnostics(error: PolicyError) -> list[dict]:
    return [{**d.to_dict(), "text": d.headline()} for d in error.diagnostics]


def _engine(key: str, policies: dict[str, str], data: dict) -> Any:
    engine = _ENGINES.get(key)
    if engine is not None:
        _ENGINES.move_to_end(key)
        return engine
    from hookgate.engine import Engine

    # The pack check's wall time, not the hook's: a dry-run on a busy server must give the
    # hook's answer, and the worker's CPU limit stops runaway work.
    engine = Engine.from_sources(policies, data, origin="server", timeout=packcheck.TIMEOUT)
    _ENGINES[key] = engine
    if len(_ENGINES) > CACHED_SETS:
        _ENGINES.popitem(last=False)
    return engine


def warm_up() -> None:
    """Load the parser and compiler in a new worker (a first compilation builds them), so no
    dry-run's time limit pays for it."""
    from hookgate.engine import Engine

    Engine.from_sources({"warm.rego": "package hookgate.warm\n\nimport rego.v1\n\nx := 1\n"})


def check(key: str, policies: dict[str, str], data: dict) -> list[dict]:
    """The diagnostics of compiling the set (empty when it compiles)."""
    try:
        _engine(key, policies, data)
    except PolicyError as exc:
        return diagnostics(exc)
    return []


def evaluate(
    key: str, policies: dict[str, str], data: dict, request: dict, fields: tuple[str, ...]
) -> dict:
    """The dry-run's answer to ``request`` (an ``EvaluateIn`` as a dict): the decision's
    ``fields``, the host response, trace and time; ``{"diagnostics": …}`` if the set does not
    compile."""
    try:
        engine = _engine(key, policies, data)
    except PolicyError as exc:
        return {"diagnostics": diagnostics(exc)}
    started = time.perf_counter()
    # Facts are always given (empty by default), so the engine never reads this disk.
    decision = engine.evaluate(
        request["payload"],
        request["host"],
        facts=request["facts"] or {},
        explain=request["explain"],
    )
    took = time.perf_counter() - started
    response = decision.response(request["host"])
    explained = getattr(decision, "explain", None) or {}
    return {
        "decision": {name: getattr(decision, name) for name in fields},
        "host": request["host"] or decision.host,
        "response": response.stdout or {},
        "exit_code": response.exit_code,
        "stderr": response.stderr,
        "explain": explained.get("rules") if request["explain"] else None,
        "prints": explained.get("prints") or [],
        "took_ms": round(took * 1000, 3),
    }
