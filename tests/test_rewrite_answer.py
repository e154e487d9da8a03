"""What a rewrite answers (`$HOOKGATE_REWRITE`, written by `hookgate install --rewrite`), and
Copilot's `toolArgs` in every shape Copilot CLI sends. The real hosts' behaviour with these
answers: tests/hosts/test_host_setup.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.engine import Engine
from hookgate.integrations import hostconfig

FORCE = {"command": "git push --force origin main"}
PLAIN = {"command": "git push origin main"}


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.from_paths([str(Path(__file__).parents[1] / "policies")])


def payload(host: str) -> dict:
    if host == "copilot":
        return {"sessionId": "s", "timestamp": 1, "cwd": "/", "toolName": "bash", "toolArgs": FORCE}
    if host == "gemini":
        return {
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": FORCE,
        }
    extra = {"turn_id": "t"} if host == "codex" else {}
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": FORCE, **extra}


@pytest.mark.parametrize("host", ["claude", "codex", "copilot", "gemini", "cursor"])
def test_a_rewrite_answered_with_ask_runs_nothing_unasked(engine, monkeypatch, host) -> None:
    monkeypatch.setenv("HOOKGATE_REWRITE", "ask")
    response = engine.evaluate(payload(host), host).render()
    text = json.dumps(response)
    if host == "claude":
        specific = response["hookSpecificOutput"]
        assert specific["permissionDecision"] == "ask" and specific["updatedInput"] == PLAIN
    elif host == "copilot":
        assert response["permissionDecision"] == "ask" and response["modifiedArgs"] == PLAIN
    else:
        # No ask with an updated input: denied, naming the call to retry with.
        assert '"deny"' in text and "needs approval; retry with" in text
        assert (
            "updatedInput" not in text and "tool_input" not in text and "updated_input" not in text
        )


@pytest.mark.parametrize("host", ["claude", "codex", "copilot", "gemini", "cursor"])
def test_a_rewrite_is_allowed_by_default(engine, monkeypatch, host) -> None:
    monkeypatch.delenv("HOOKGATE_REWRITE", raising=False)
    text = json.dumps(engine.evaluate(payload(host), host).render())
    assert '"allow"' in text and "git push origin main" in text and "deny" not in text


def test_install_writes_the_rewrite_answer_into_the_hook_command() -> None:
    command = hostconfig.hook_command("/v/bin/hookgate", "claude", "ask")
    assert command == "HOOKGATE_REWRITE=ask /v/bin/hookgate eval --host claude"
    assert hostconfig.is_hookgate_command(command)
    assert (
        hostconfig.hook_command("/v/bin/hookgate", "claude") == "/v/bin/hookgate eval --host claude"
    )


@pytest.mark.parametrize("as_text", [False, True], ids=["object", "string"])
@pytest.mark.parametrize("event", [None, "preToolUse", "PreToolUse"])
def test_copilot_tool_args_in_every_shape(engine, as_text, event) -> None:
    body = {"sessionId": "s", "timestamp": 1, "cwd": "/", "toolName": "bash"}
    body["toolArgs"] = json.dumps(FORCE) if as_text else FORCE
    if event is not None:
        body["hookEventName"] = event
    decision = engine.evaluate(body)
    assert decision.host == "copilot" and decision.outcome == "rewrite"
    assert decision.render()["modifiedArgs"] == PLAIN
    post = {**body, "toolResult": {"resultType": "success", "textResultForLlm": "ok"}}
    if event is not None:
        post["hookEventName"] = event.replace("pre", "post").replace("Pre", "Post")
    assert engine.evaluate(post).event == "PostToolUse"


def test_the_fast_launcher_is_recognised_as_hookgate() -> None:
    # That it runs hookgate, installed from a wheel: bench/run.py --installed.
    import sys

    site = str(Path(__file__).parents[1] / "service")
    argv = hostconfig.launcher_argv(sys.executable, [site])
    command = hostconfig.hook_command(argv, "claude", "ask")
    assert hostconfig.is_hookgate_command(command)
    text = hostconfig.install_text(None, "claude", command)
    assert hostconfig.installed_commands(text, "claude") == [command] * 3
    assert hostconfig.uninstall_text(text, "claude") == "{}\n"
