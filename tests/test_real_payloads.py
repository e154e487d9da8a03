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
