"""End to end: each way issue 15 found to switch every guard off at once, driven as an agent
would, through ``hookgate eval`` (a subprocess, as the host runs the hook) and through the server.
Each must end in deny or ask (or a rewrite that removed the danger), never in a silent allow.

The other halves live beside their mechanisms: a revision the server never signed
(tests/test_cache_trust.py), unsigned 304s and replayed bundles (tests/test_freshness.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookgate.sources import default_pack_path

HOOKGATE = str(Path(sys.executable).parent / "hookgate")

PADDING = "git push -f origin main; " * 300  # about 7 KiB, far below the 64 KiB oversize cap

TWO_VALUES = """package hookgate.team

import rego.v1

level := "low" if input.tool_name == "Bash"

level := "high" if contains(input.tool_input.command, "rm")

deny contains "high" if level == "high"
"""


def bash(command: str, **fields) -> dict:
    payload = {
        "session_id": "s1",
        "cwd": "/home/u/proj",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    return {**payload, **fields}


@pytest.fixture
def env(tmp_path):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("HOOKGATE_")}
    environ.update(
        HOOKGATE_HOME=str(tmp_path / "home"), HOOKGATE_TELEMETRY=str(tmp_path / "t.jsonl")
    )
    return environ


def hook(env: dict, payload: dict, *args: str) -> tuple[dict, list[dict]]:
    """The hook's Claude Code answer (hookSpecificOutput, {} for no opinion) and the telemetry
    records it wrote."""
    result = subprocess.run(
        [HOOKGATE, "eval", "--host", "claude", *args],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0 and b"Traceback" not in result.stderr, result.stderr
    path = Path(env["HOOKGATE_TELEMETRY"])
    records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    return json.loads(result.stdout).get("hookSpecificOutput", {}), records


def safe(answer: dict, command: str | None = None) -> bool:
    """deny or ask, or a rewrite that left no force push in the command."""
    decision = answer.get("permissionDecision")
    if decision in ("deny", "ask"):
        return True
    rewritten = (answer.get("updatedInput") or {}).get("command")
    return decision == "allow" and rewritten is not None and " -f " not in f" {rewritten} "


@pytest.mark.parametrize("failure", [(), ("--failure-policy", "open")], ids=["default", "open"])
def test_padding_cannot_time_the_guard_out(env, failure):
    answer, _ = hook(env, bash("rm -rf ~; " + PADDING), *failure)
    assert answer["permissionDecision"] == "deny"
    assert "[pack=destructive, pattern=rm-recursive-force]" in answer["permissionDecisionReason"]
    answer, records = hook(env, bash(PADDING + "rm -rf ~"), *failure)
    assert answer["permissionDecision"] == "deny"
    padded, _ = hook(env, bash(PADDING))
    assert safe(padded)
    # Whatever limit was reached is on record as a limit, never as a fail-open fault.
    assert all(r.get("kind") == "limit" for r in records if r["event"] == "error")


def test_one_bad_team_module_cannot_let_rm_rf_home_through(env, tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    (team / "team.rego").write_text(TWO_VALUES)
    answer, records = hook(
        env, bash("rm -rf ~"), "--policies", default_pack_path(), "--policies", str(team)
    )
    assert answer["permissionDecision"] == "deny"
    (record,) = records
    assert (record["kind"], record["pack"]) == ("fault", "hookgate.team")


def test_a_cached_bundle_edited_to_allow_everything_is_not_run(env, tmp_path):
    cache = tmp_path / "home" / "cache"
    cache.mkdir(parents=True)
    allow_all = 'package hookgate.nothing\n\nimport rego.v1\n\ncontext contains "ok" if false\n'
    document = {
        "revision": 7,
        "policies": {"nothing.rego": allow_all},
        "data": {},
        "digest": "sha256:" + "0" * 64,  # what the server signed was another bundle
        "signature": "AAAA",
        "key_id": "0" * 16,
        "server": "https://hookgate.example",
        "fetched_at": 4102444800.0,  # far in the future: no refresh is started
    }
    (cache / "bundle.json").write_text(json.dumps(document))
    answer, records = hook(env, bash("git commit --no-verify -m x"))
    assert answer["permissionDecision"] == "deny"  # the built-in pack answered
    assert any("does not match the digest" in r.get("message", "") for r in records)


@pytest.mark.parametrize("value", [None, False, 3, {"name": "Bash"}])
def test_a_tool_name_that_is_not_a_string_is_a_recorded_payload_error(env, value):
    answer, records = hook(env, bash("rm -rf ~", tool_name=value))
    assert answer == {}  # a fault: the default failure policy (open) applies...
    (record,) = records  # ...and it is never silent
    assert (record["kind"], record["source"]) == ("fault", "payload")
    assert "field tool_name must be a string" in record["message"]
    closed, _ = hook(env, bash("ls", tool_name=value), "--failure-policy", "closed")
    assert closed["permissionDecision"] == "deny"


# -- the same moves through the server ---------------------------------------------------------


@pytest.fixture
def server(tmp_path):
    pytest.importorskip("fastapi")
    from server_support import auth, client_for, fresh_store

    from hookgate.server.compilation import compile_set

    store = fresh_store("sqlite", tmp_path)
    admin = store.seed({}, {}, validate=compile_set, base=True)
    editor = store.create_token("editor", "editor")
    with client_for(store) as client:
        yield client, auth(admin), auth(editor)
    store.engine.dispose()


def dry_run(client, headers, payload: dict, **drafts) -> dict:
    answer = client.post("/v1/evaluate", json={"payload": payload, **drafts}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()["decision"]


def test_through_the_server_padding_and_a_bad_module_still_deny(server):
    client, admin, editor = server
    assert dry_run(client, admin, bash("rm -rf ~; " + PADDING))["outcome"] == "deny"
    assert dry_run(client, admin, bash(PADDING))["outcome"] in ("deny", "ask", "rewrite")
    drafted = dry_run(client, admin, bash("rm -rf ~"), policies={"team.rego": TWO_VALUES})
    assert drafted["outcome"] == "deny"
    assert [e["pack"] for e in drafted["errors"]] == ["hookgate.team"]
    refused = client.put("/v1/policies/team.rego", content=TWO_VALUES, headers=editor)
    assert refused.status_code == 422
    assert refused.json()["packs"][0]["pack"] == "hookgate.team"


def test_through_the_server_a_null_tool_name_is_a_payload_error(server):
    client, admin, _ = server
    decision = dry_run(client, admin, bash("rm -rf ~", tool_name=None))
    (error,) = decision["errors"]
    assert (error["kind"], error["source"]) == ("fault", "payload")


def call(tool_name: str, tool_input: dict) -> dict:
    return {**bash(""), "tool_name": tool_name, "tool_input": tool_input}


def guard_edits(home: str) -> list[dict]:
    """Ways of editing the guard away, each through a different tool."""
    settings = os.path.join(os.path.expanduser("~"), ".claude", "settings.json")
    return [
        call("Write", {"file_path": settings, "content": "{}"}),
        call("Write", {"file_path": "/home/u/proj/.git/hooks/pre-commit", "content": "exit 0\n"}),
        call(
            "Edit",
            {
                "file_path": "/home/u/proj/.git/config",
                "old_string": "[core]",
                "new_string": "[core]\n\thooksPath = /dev/null",
            },
        ),
        bash("echo 'exit 0' > .git/hooks/pre-push"),
        bash(f"rm -rf {home}"),
    ]


def test_the_agent_cannot_edit_the_guard_away(env):
    for payload in guard_edits(env["HOOKGATE_HOME"]):
        answer, _ = hook(env, payload)
        assert answer.get("permissionDecision") in ("deny", "ask"), payload["tool_input"]
    # Reading them stays allowed.
    answer, _ = hook(env, call("Read", {"file_path": "/home/u/proj/.git/config"}))
    assert answer.get("permissionDecision") is None


def test_through_the_server_the_repository_s_hooks_and_config_are_protected(server):
    client, admin, _ = server
    for payload in guard_edits("/home/u/.local/state/hookgate")[1:4]:
        assert dry_run(client, admin, payload)["outcome"] in ("deny", "ask"), payload
