"""Least privilege on recorded data: the input documents of decision records (tool inputs,
command output, files the agent read) reach only the role ``--recorded-data-role`` names
(editor by default) — in the API, the console and impact replays. Lower roles see the
decisions: outcome, matches, errors and the masked command."""

from __future__ import annotations

import json
import uuid

import pytest
from server_support import auth, client_for, database_params, seeded, store_fixture

from hookgate.commands import serve
from hookgate.server.console import COOKIE, csrf_token

store = store_fixture(database_params())

# What a file the agent read held: nothing a masking rule recognises, yet not every viewer's.
CONTENT = "Q3 acquisition target: Initech, offer 41.5M"


def records() -> list[dict]:
    read = {
        "decision_id": str(uuid.uuid4()),
        "time": "2026-12-03T10:00:00Z",
        "event": "PostToolUse",
        "tool_name": "Read",
        "session_id": "s1",
        "outcome": "allow",
        "command": "/repo/notes/board.md",
        "input": {
            "tool_kind": "read",
            "tool_input": {"file_path": "/repo/notes/board.md"},
            "tool_response": {"content": CONTENT},
        },
    }
    bare = {
        "decision_id": str(uuid.uuid4()),
        "time": "2026-12-03T09:00:00Z",
        "session_id": "s1",
        "outcome": "deny",
        "command": "git commit --no-verify",
        "matches": [{"pack": "hookgate.git_hooks", "pattern": "no-verify", "rule": "deny"}],
    }
    return [read, bare]


def upload(client, tokens) -> None:
    answer = client.post(
        "/v1/decisions", json={"decisions": records()}, headers=auth(tokens["agent"])
    )
    assert answer.json()["accepted"] == 2


def page(client, token: str) -> list[dict]:
    answer = client.get("/v1/decisions?session_id=s1", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()["decisions"]


def test_viewers_see_decisions_without_the_recorded_data(store):
    tokens = seeded(store)
    with client_for(store) as client:
        upload(client, tokens)
        read, bare = page(client, tokens["viewer"])
        assert CONTENT not in json.dumps([read, bare])
        assert (read["input"], read["input_withheld"]) == (None, True)
        # The decision itself is all there: outcome, tool, the masked summary, matches.
        assert (read["outcome"], read["tool_name"]) == ("allow", "Read")
        assert read["command"] == "/repo/notes/board.md"
        assert (bare["input"], bare["input_withheld"]) == (None, False)
        assert bare["matches"][0]["pattern"] == "no-verify"
        for role in ("editor", "admin"):
            read, bare = page(client, tokens[role])
            assert read["input"]["tool_response"]["content"] == CONTENT, role
            assert read["input_withheld"] is False and bare["input_withheld"] is False


def test_the_recorded_data_role_is_configurable(store):
    tokens = seeded(store)
    draft = {"policies": {"x.rego": "package hookgate.x\n"}}
    with client_for(store, recorded_role="admin") as client:
        upload(client, tokens)
        assert page(client, tokens["editor"])[0]["input_withheld"] is True
        assert page(client, tokens["admin"])[0]["input"]["tool_response"]["content"] == CONTENT
        refused = client.post("/v1/impact", json=draft, headers=auth(tokens["editor"]))
        assert refused.status_code == 403 and "admin role" in refused.json()["detail"]
        allowed = client.post("/v1/impact", json=draft, headers=auth(tokens["admin"]))
        assert allowed.status_code == 200 and allowed.json()["replayed"] == 1
    with client_for(store, recorded_role="viewer") as client:
        assert page(client, tokens["viewer"])[0]["input"]["tool_response"]["content"] == CONTENT


# A draft whose reason prints the input it decides on: replay is a read of recorded data.
ECHO = """package hookgate.echo
import rego.v1
deny contains {"reason": sprintf("%v", [input.tool_response])} if input.tool_response
"""


def test_impact_replays_only_for_the_role_that_reads_recorded_data(store):
    tokens = seeded(store)
    draft = {"policies": {"echo.rego": ECHO}}
    with client_for(store) as client:
        upload(client, tokens)
        refused = client.post("/v1/impact", json=draft, headers=auth(tokens["viewer"]))
        assert refused.status_code == 403 and CONTENT not in refused.text
        report = client.post("/v1/impact", json=draft, headers=auth(tokens["editor"])).json()
    # What an allowed role gets: the reasons do carry the recorded output.
    assert any(CONTENT in r for e in report["examples"] for r in e["reasons_after"])


def console(store, token: str):
    client = client_for(store)
    answer = client.post("/console/login", data={"token": token}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return client


def test_the_console_withholds_recorded_data_from_lower_roles(store):
    tokens = seeded(store)
    with client_for(store) as client:
        upload(client, tokens)
    viewer = console(store, tokens["viewer"])
    shown = viewer.get("/console/decisions?session_id=s1")
    assert shown.status_code == 200 and shown.text.count('class="decision"') == 2
    assert CONTENT not in shown.text and "/repo/notes/board.md" in shown.text
    assert shown.text.count("its contents need the editor role") == 1  # only the one recorded
    edit = viewer.get("/console/edit?kind=policy&id=git_hooks.rego").text
    assert 'id="run-impact"' not in edit and "needs the editor role" in edit
    form = {"kind": "policy", "id": "echo.rego", "content": ECHO, "limit": "10"}
    csrf = {"X-CSRF-Token": csrf_token(viewer.cookies[COOKIE])}
    replay = viewer.post("/console/impact", data=form, headers=csrf)
    assert replay.status_code == 403 and CONTENT not in replay.text

    editor = console(store, tokens["editor"])
    assert CONTENT in editor.get("/console/decisions?session_id=s1").text
    assert 'id="run-impact"' in editor.get("/console/edit?kind=policy&id=git_hooks.rego").text
    csrf = {"X-CSRF-Token": csrf_token(editor.cookies[COOKIE])}
    assert editor.post("/console/impact", data=form, headers=csrf).status_code == 200


@pytest.mark.parametrize(
    ("argv", "role"),
    [([], "editor"), (["--recorded-data-role", "admin"], "admin")],
)
def test_serve_takes_the_recorded_data_role(argv, role):
    import argparse

    parser = argparse.ArgumentParser()
    serve.add_arguments(parser)
    assert parser.parse_args(argv).recorded_data_role == role
    with pytest.raises(SystemExit):
        parser.parse_args(["--recorded-data-role", "agent"])
