"""Gemini CLI's own ask: asked where Gemini has a user to answer it, a deny with the reason where
it has none (a headless run would wait on the ask until killed). The real host: tests/hosts."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hookgate.decision import Decision
from hookgate.hostio import hostmode

REASON = "needs a human [pack=p, pattern=x]"


@pytest.mark.parametrize(
    "args, interactive",
    [
        ([], True),
        (["--approval-mode", "yolo", "-m", "gemini-2.5-pro"], True),
        (["--model=x", "--yolo", "--debug"], True),
        (["-i", "fix the tests"], True),
        (["--allowed-tools", "a", "b", "--prompt-interactive", "go"], True),
        (["--experimental-acp"], True),
        (["-p", "fix the tests"], False),
        (["--prompt=fix", "--approval-mode", "yolo"], False),
        (["fix the tests"], False),  # a query is headless
        (["--approval-mode", "yolo", "fix the tests"], False),
        (["--include-directories", "a", "b", "--model", "m", "query"], False),
        (["--", "query"], False),
    ],
)
def test_gemini_s_own_rule_for_its_arguments(args, interactive):
    assert hostmode.gemini_argv_interactive(args) is interactive


def _fake_proc(tmp_path: Path, argv: list[str], terminal: bool) -> str:
    process = tmp_path / "proc" / str(os.getppid())
    (process / "fd").mkdir(parents=True)
    (process / "cmdline").write_bytes(b"\0".join(w.encode() for w in argv) + b"\0")
    (process / "stat").write_bytes(b"%d (node (x)) S 1 1 1" % os.getppid())
    for fd in (0, 1):
        os.symlink("/dev/pts/3" if terminal else "pipe:[42]", process / "fd" / str(fd))
    return str(tmp_path / "proc")


@pytest.mark.parametrize(
    "argv, terminal, environ, can_ask",
    [
        (["node", "/n/bin/gemini", "--approval-mode", "yolo"], True, {}, True),
        (["node", "/n/bundle/gemini.js"], True, {"CI": "true"}, False),
        (
            ["node", "/n/bundle/gemini.js"],
            True,
            {"CI": "true", "GEMINI_CLI_INTEGRATION_TEST": "true"},
            True,
        ),
        (["node", "/n/bin/gemini", "-p", "x"], True, {}, False),
        (["node", "/n/bin/gemini"], False, {}, False),  # output to a pipe: headless
        (["node", "/n/bin/not-gemini"], True, {}, False),  # no Gemini above: nothing to ask
    ],
)
def test_gemini_can_ask_reads_the_gemini_process_above_the_hook(
    tmp_path, argv, terminal, environ, can_ask
):
    proc = _fake_proc(tmp_path, argv, terminal)
    assert hostmode.gemini_can_ask(environ, proc) is can_ask
    assert hostmode.gemini_can_ask(environ, str(tmp_path / "nothing")) is False


def _ask(outcome: str = "ask") -> Decision:
    fields = {"updated_input": {"command": "git push"}} if outcome == "rewrite" else {}
    return Decision(
        outcome,
        reasons=[REASON],
        event="PreToolUse",
        host="gemini",
        host_event="BeforeTool",
        tool_name="run_shell_command",
        **fields,
    )


def test_an_ask_is_gemini_s_ask_where_it_can_ask_and_a_deny_where_it_cannot(monkeypatch):
    monkeypatch.setattr(hostmode, "gemini_can_ask", lambda: True)
    assert _ask().render() == {"decision": "ask", "reason": REASON, "systemMessage": REASON}
    monkeypatch.setenv("HOOKGATE_REWRITE", "ask")
    assert _ask("rewrite").render() == {
        "decision": "ask",
        "reason": REASON,
        "systemMessage": REASON,
        "hookSpecificOutput": {
            "hookEventName": "BeforeTool",
            "tool_input": {"command": "git push"},
        },
    }
    monkeypatch.setattr(hostmode, "gemini_can_ask", lambda: False)
    assert _ask().render() == {"decision": "deny", "reason": "Approval required: " + REASON}
    assert _ask("rewrite").render()["decision"] == "deny"


# A stand-in for Gemini CLI: a process whose script is named ``gemini``, started on a terminal
# or not, that runs the hook as Gemini does (payload on a pipe, answer on a pipe).
FAKE_GEMINI = textwrap.dedent(
    """\
    import json, os, subprocess, sys
    payload = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "BeforeTool",
               "timestamp": "2026-08-21T10:00:00Z", "tool_name": "run_shell_command",
               "tool_input": {"command": "uninstall-me"}}
    hook = [os.environ["FAKE_HOOKGATE"], "eval", "--host", "gemini"]
    done = subprocess.run(hook + ["--policies", os.environ["FAKE_POLICIES"]],
                          input=json.dumps(payload), capture_output=True, text=True)
    open(os.environ["FAKE_ANSWER"], "w").write(done.stdout)
    """
)
ASK_POLICY = textwrap.dedent(
    """\
    package hookgate.asks

    import rego.v1

    ask contains "needs a human" if input.tool_input.command == "uninstall-me"
    """
)


@pytest.mark.skipif(not os.path.isdir(f"/proc/{os.getpid()}/fd"), reason="Linux /proc")
@pytest.mark.parametrize("args, answer", [([], "ask"), (["-p", "go"], "deny")])
def test_the_hook_under_a_gemini_on_a_terminal(tmp_path, args, answer):
    (tmp_path / "gemini").write_text(FAKE_GEMINI)
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "asks.rego").write_text(ASK_POLICY)
    out = tmp_path / "answer.json"
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    env.update(
        HOOKGATE_HOME=str(tmp_path / "home"),
        FAKE_HOOKGATE=str(Path(sys.executable).parent / "hookgate"),
        FAKE_POLICIES=str(tmp_path / "pol"),
        FAKE_ANSWER=str(out),
    )
    primary, secondary = pty.openpty()
    try:
        argv = [sys.executable, str(tmp_path / "gemini"), "--approval-mode", "yolo", *args]
        subprocess.run(argv, stdin=secondary, stdout=secondary, env=env, timeout=60)
    finally:
        os.close(primary)
        os.close(secondary)
    response = json.loads(out.read_text())
    assert response["decision"] == answer
    assert "needs a human" in response["reason"]
