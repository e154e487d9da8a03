"""The payloads the real hosts sent (tests/data/hosts/real, one directory per host version) are
read as their host's and answered with the response shape that host acted on (what each host did
with these answers: tests/hosts/, which runs them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.hostio import hosts
from hookgate.hostio.normalize import normalize

REAL = Path(__file__).parent / "data" / "hosts" / "real"
PAYLOADS = sorted(REAL.glob("*/*.json"))
# Scenario letter → the outcome the default pack gives (e, a commit on main, depends on the
# repository at the captured cwd, which does not exist here).
OUTCOMES = {
    "a": "rewrite",
    "a2": "rewrite",
    "a3": "rewrite",
    "b": "deny",
    "c": "allow",
    "c3": "allow",
    "d": "allow",
    "d2": "allow",
    "d2x": "allow",
    "f": "ask",
}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.from_paths([str(Path(__file__).parents[1] / "policies")])


def _scenario(path: Path) -> tuple[str, str, str]:
    host, scenario, *_rest, event = path.stem.split("-")
    if scenario == "project":
        scenario = _rest[0]
    return host, scenario, event


def test_every_host_version_is_captured() -> None:
    assert {p.parent.name.split("-")[0] for p in PAYLOADS} == {
        "claude",
        "codex",
        "gemini",
        "copilot",
    }
    assert len(PAYLOADS) == 59


@pytest.mark.parametrize("path", PAYLOADS, ids=lambda p: p.name)
def test_real_payload_is_read_as_its_host(path: Path, engine: Engine) -> None:
    host, scenario, event = _scenario(path)
    payload = json.loads(path.read_text())
    hook_input = normalize(payload)
    assert hook_input.host == host
    post = event.lower().startswith(("post", "after"))
    assert hook_input.event == (hosts.POST_TOOL_USE if post else hosts.PRE_TOOL_USE)
    assert hook_input.tool_kind == "shell"
    assert isinstance(hook_input.tool_input, dict) and hook_input.tool_input.get("command")
    if post:
        assert hook_input.tool_result not in (None, "")
    decision = engine.evaluate(payload)
    if not post and scenario in OUTCOMES:
        assert decision.outcome == OUTCOMES[scenario]
    if post and scenario.startswith("d"):
        # The injected text in the result is reported to the agent, failing command or not.
        assert any("pack=xpia" in c for c in decision.context)


COPILOT = sorted(REAL.glob("copilot-*/*.json"))


def _copilot_spellings(payload: dict) -> dict[str, dict]:
    """A captured Copilot payload (``toolArgs`` an object, no event name) as Copilot's other
    documented shapes spell it: ``toolArgs`` a JSON string (older releases), an event name added,
    and the "VS Code compatible" snake_case shape a PascalCase config selects."""
    post = "toolResult" in payload
    as_string = {**payload, "toolArgs": json.dumps(payload["toolArgs"])}
    named = {**payload, "hookEventName": "postToolUse" if post else "preToolUse"}
    snake = {
        "hook_event_name": "PostToolUse" if post else "PreToolUse",
        "session_id": payload["sessionId"],
        "timestamp": "2026-12-01T10:00:00Z",
        "cwd": payload["cwd"],
        "tool_name": "Bash",
        "tool_input": payload["toolArgs"],
    }
    if post:
        snake["tool_response"] = payload["toolResult"]
    return {
        "toolArgs string": as_string,
        "event name": named,
        "toolArgs string and event name": {**as_string, "hookEventName": named["hookEventName"]},
        "snake_case": snake,
    }


@pytest.mark.parametrize("path", COPILOT, ids=lambda p: p.name)
def test_copilot_payload_reads_and_answers_alike_in_every_spelling(
    path: Path, engine: Engine
) -> None:
    payload = json.loads(path.read_text())
    assert isinstance(payload["toolArgs"], dict) and "hookEventName" not in payload
    captured = normalize(payload)
    answer = engine.evaluate(payload, "copilot")
    for name, other in _copilot_spellings(payload).items():
        hook_input = normalize(other)
        assert (hook_input.event, hook_input.tool_kind) == (captured.event, captured.tool_kind), (
            name
        )
        assert hook_input.tool_input == captured.tool_input, name
        decision = engine.evaluate(other, "copilot")
        assert decision.outcome == answer.outcome, name
        assert decision.response("copilot").stdout == answer.response("copilot").stdout, name
