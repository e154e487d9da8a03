"""Decision records keep the normalized input document, masked and bounded, from the hook's
decision log through upload into the server's storage and back out (issue 20, part 5)."""

from __future__ import annotations

import json
import uuid

import pytest
from server_support import auth, client_for, fresh_store, seeded
from sync_helpers import LiveServer, run_hookgate

from hookgate import recorded
from hookgate.masking import Masker

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_every_string_is_masked_and_keys_numbers_and_structure_stay():
    document = {
        "hook_event_name": "PreToolUse",
        "tool_input": {"command": f"GITHUB_TOKEN={SECRET} git push", "timeout": 30},
        "extra": {"env": [f"Bearer {SECRET}", True, None, 1.5]},
    }
    kept, truncated = recorded.keep(document, Masker().mask)
    assert SECRET not in json.dumps(kept)
    assert not truncated
    assert kept["tool_input"] == {"command": "GITHUB_TOKEN=*** git push", "timeout": 30}
    assert kept["extra"]["env"][1:] == [True, None, 1.5]
    assert kept["hook_event_name"] == "PreToolUse"


def test_a_long_string_is_masked_before_it_is_cut():
    # The secret straddles the cut: masking the whole first, then cutting, leaves no prefix.
    command = "x" * (recorded.MAX_STRING - 10) + " " + SECRET + " " + "y" * 100
    kept, truncated = recorded.keep({"tool_input": {"command": command}}, Masker().mask)
    assert truncated
    assert len(kept["tool_input"]["command"]) == recorded.MAX_STRING
    assert "ghp_" not in kept["tool_input"]["command"]  # cut first, "ghp_A1b2C" would stay


def test_a_document_over_the_byte_bound_keeps_shorter_strings_or_nothing():
    many = {f"k{n}": "y" * 3000 for n in range(20)}  # 60 KB of strings
    kept, truncated = recorded.keep({"tool_input": many}, Masker().mask)
    assert truncated
    assert len(json.dumps(kept, separators=(",", ":"))) <= recorded.MAX_BYTES
    assert kept["tool_input"]["k0"] == "y" * recorded.FALLBACK_STRINGS[0]

    huge = {"tool_input": {"files": ["z" * 300] * 2000}}  # too many strings for any bound
    assert recorded.keep(huge, Masker().mask) == (None, True)
    assert recorded.keep("not an object", Masker().mask) == (None, False)


def test_the_server_masks_the_uploaded_input_again_and_returns_it(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store)
    document = {
        "hook_event_name": "PreToolUse",
        "tool_input": {"command": f"curl -H 'Authorization: Bearer {SECRET}'"},
    }
    record = {
        "decision_id": str(uuid.uuid4()),
        "time": "2026-12-01T10:00:00Z",
        "outcome": "allow",
        "input": document,  # a client that did not mask: the server does
    }
    with client_for(store) as client:
        answer = client.post(
            "/v1/decisions", json={"decisions": [record]}, headers=auth(tokens["agent"])
        )
        assert answer.json() == {"accepted": 1, "duplicates": 0}
        bad = dict(record, decision_id=str(uuid.uuid4()), input=[1])
        refused = client.post(
            "/v1/decisions", json={"decisions": [bad]}, headers=auth(tokens["agent"])
        )
        assert refused.status_code == 422
        assert "body.decisions.0.input" in {i["field"] for i in refused.json()["detail"]}
        (stored,) = client.get("/v1/decisions", headers=auth(tokens["admin"])).json()["decisions"]
    assert SECRET not in json.dumps(stored)
    assert stored["input"]["tool_input"]["command"].startswith("curl -H 'Authorization: Bearer ***")
    assert stored["input_truncated"] is False
    store.engine.dispose()


@pytest.fixture
def server(tmp_path):
    live = LiveServer(tmp_path / "server.db")
    yield live
    live.stop()


def test_a_hook_decision_keeps_its_masked_input_document_end_to_end(tmp_path, server):
    """A real ``hookgate eval`` logs the decision; ``hookgate pull`` uploads it; the server
    answers it with the masked input document, which is what the policies saw."""
    home = tmp_path / "home"
    payload = {
        "session_id": "e2e-session",
        "cwd": "/repo",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {
            "command": f"git -c http.extraheader='Authorization: token {SECRET}' commit --no-verify -m x"
        },
    }
    login = run_hookgate(home, "login", "--server", server.url, "--token", server.agent_token)
    assert login.returncode == 0, login.stderr
    hook = run_hookgate(home, "eval", "--host", "claude", stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    local = (home / "state" / "decisions" / "current.jsonl").read_text()
    assert SECRET not in local
    pulled = run_hookgate(home, "pull")
    assert pulled.returncode == 0, pulled.stderr

    (stored,) = [d for d in server.decisions() if d["session_id"] == "e2e-session"]
    assert SECRET not in json.dumps(stored)
    document = stored["input"]
    assert (document["host"], document["tool_kind"]) == ("claude", "shell")
    assert document["tool_input"]["command"].endswith("commit --no-verify -m x")
    assert "***" in document["tool_input"]["command"]
    assert document["session_id"] == "e2e-session" and document["cwd"] == "/repo"
    assert stored["outcome"] == "deny" and stored["input_truncated"] is False
