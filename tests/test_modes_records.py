"""What guards in warn or audit mode would have answered, kept apart from the outcome: in the
local decision log and in the server's decision records (migration 0028), filtered by guard and
mode."""

from __future__ import annotations

import json
import uuid

import pytest
from server_support import auth, client_for, database_params, fresh_store, seeded

from hookgate import decisionlog
from hookgate.engine import Engine

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GUARD = (
    "package hookgate.tokens\n\nimport rego.v1\n\n"
    'rewrite contains {"tool_input": {"command": concat(" ", [input.tool_input.command, "--dry-run"])},'
    ' "reason": sprintf("would add --dry-run to %s", [input.tool_input.command]), '
    '"pattern": "dry-run"} if startswith(input.tool_input.command, "curl")\n'
)


def evaluate(mode: str):
    engine = Engine.from_sources({"g.rego": GUARD}, {"hookgate": {"modes": {"tokens": mode}}})
    payload = {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": f"curl -H 'Authorization: Bearer {SECRET}' x"},
    }
    return engine.evaluate(payload)


def test_the_local_record_keeps_the_would_be_rewrite_masked_apart_from_the_outcome():
    decision = evaluate("audit")
    record = decisionlog.record_for(decision, decision.input_document, None)
    assert record["outcome"] == "allow" and record["matches"] == []
    (would,) = record["would"]
    assert SECRET not in json.dumps(record)
    assert (would["would"], would["mode"], would["guard"], would["pattern"]) == (
        "rewrite",
        "audit",
        "tokens",
        "dry-run",
    )
    assert would["pack"] == "hookgate.tokens"
    assert would["reason"].startswith("would add --dry-run to curl -H 'Authorization: Bearer ***")
    assert would["rewrite"]["command"].endswith("--dry-run")
    assert "***" in would["rewrite"]["command"]
    enforced = Engine.from_sources({"g.rego": GUARD}).evaluate(
        {"tool_name": "Bash", "tool_input": {"command": "curl x"}, "hook_event_name": "PreToolUse"}
    )
    assert decisionlog.record_for(enforced, None, None)["would"] == []


def record(would: list[dict] | None, **fields) -> dict:
    found = {
        "decision_id": str(uuid.uuid4()),
        "time": "2026-12-01T10:00:00Z",
        "outcome": "allow",
        **fields,
    }
    if would is not None:
        found["would"] = would
    return found


def test_the_server_keeps_masks_and_filters_would_be_answers(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store)
    warned = {
        "would": "deny",
        "mode": "warn",
        "guard": "destructive",
        "pack": "destructive",
        "pattern": "rm-recursive-force",
        "reason": f"rm with {SECRET}",  # a client that did not mask: the server does
        "rewrite": None,
    }
    audited = {
        **warned,
        "would": "rewrite",
        "mode": "audit",
        "guard": "force_push",
        "pattern": "strip-force-push-flags",
        "reason": "strip",
        "rewrite": {"command": f"git push {SECRET}"},
    }
    batch = [record([warned]), record([audited]), record(None), record([], outcome="deny")]
    with client_for(store) as client:
        upload = client.post(
            "/v1/decisions", json={"decisions": batch}, headers=auth(tokens["agent"])
        )
        assert upload.json() == {"accepted": 4, "duplicates": 0}

        def page(query: str = "") -> list[dict]:
            got = client.get(f"/v1/decisions{query}", headers=auth(tokens["viewer"]))
            assert got.status_code == 200, got.text
            return got.json()["decisions"]

        everything = page()
        assert SECRET not in json.dumps(everything)
        assert sorted(len(d["would"]) for d in everything) == [0, 0, 1, 1]
        (by_guard,) = page("?guard=destructive")
        assert by_guard["outcome"] == "allow" and by_guard["would"][0]["mode"] == "warn"
        assert by_guard["would"][0]["reason"] == "rm with ***"
        (in_audit,) = page("?mode=audit")
        assert in_audit["would"][0]["rewrite"]["command"].startswith("git push ")
        assert SECRET not in in_audit["would"][0]["rewrite"]["command"]
        assert page("?guard=force_push&mode=warn") == []
        assert page("?guard=destruct") == []  # a guard's whole name, not a prefix

        wrong = record([{**warned, "would": "allow"}])
        refused = client.post(
            "/v1/decisions", json={"decisions": [wrong]}, headers=auth(tokens["agent"])
        )
        assert refused.status_code == 422
        fields = {item["field"] for item in refused.json()["detail"]}
        assert "body.decisions.0.would.0.would" in fields
        bad_mode = client.get("/v1/decisions?mode=enforce", headers=auth(tokens["viewer"]))
        assert bad_mode.status_code == 422
    store.engine.dispose()


@pytest.mark.parametrize("database", database_params())
def test_guard_and_mode_match_one_would_be_answer_not_two(database, tmp_path):
    # Guard A warns and guard B audits in one record: "A in audit mode" is no entry of it. A
    # text match over the stored JSON found both names somewhere and matched it.
    store = fresh_store(database, tmp_path)
    tokens = seeded(store)

    def entry(guard: str, mode: str, **fields) -> dict:
        return {"would": "deny", "mode": mode, "guard": guard, "pack": guard, "pattern": "p",
                "reason": "r", "rewrite": None, **fields}  # fmt: skip

    mixed = record([entry("destructive", "warn"), entry("force_push", "audit")])
    # A reason quoting another entry's JSON text is no entry either.
    quoting = record([entry("no_verify", "warn", reason='"guard":"destructive","mode":"audit"')])
    both = record([entry("destructive", "audit")])
    with client_for(store) as client:
        upload = client.post(
            "/v1/decisions",
            json={"decisions": [mixed, quoting, both]},
            headers=auth(tokens["agent"]),
        )
        assert upload.json() == {"accepted": 3, "duplicates": 0}

        def ids(query: str) -> set[str]:
            got = client.get(f"/v1/decisions{query}", headers=auth(tokens["viewer"]))
            assert got.status_code == 200, got.text
            return {d["decision_id"] for d in got.json()["decisions"]}

        assert ids("?guard=destructive&mode=audit") == {both["decision_id"]}
        assert ids("?guard=destructive&mode=warn") == {mixed["decision_id"]}
        assert ids("?guard=force_push&mode=warn") == set()
        assert ids("?guard=destructive") == {mixed["decision_id"], both["decision_id"]}
        assert ids("?mode=audit") == {mixed["decision_id"], both["decision_id"]}
    store.engine.dispose()
