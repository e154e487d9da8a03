"""``/v1/modes``: the set's guard modes with would-be answers counted per day, and the one-call
promotion audit → warn → enforce as an ordinary revision of the team's data document."""

from __future__ import annotations

import uuid

from server_support import auth, client_for, fresh_store, input_document, seeded

NO_CURL = (
    "package hookgate.no_curl\n\nimport rego.v1\n\n"
    'deny contains {"reason": "No curl.", "pattern": "curl"} if '
    'contains(input.tool_input.command, "curl ")\n'
)


def would(guard: str, mode: str, answer: str = "deny") -> dict:
    return {"would": answer, "mode": mode, "guard": guard, "pack": guard, "pattern": "p",
            "reason": "r", "rewrite": None}  # fmt: skip


def record(time: str, *entries: dict) -> dict:
    return {"decision_id": str(uuid.uuid4()), "time": time, "outcome": "allow",
            "would": list(entries)}  # fmt: skip


def evaluate(client, token: str, command: str) -> dict:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
               "cwd": "/r", "tool_input": {"command": command}}  # fmt: skip
    answer = client.post("/v1/evaluate", json={"payload": payload}, headers=auth(token))
    assert answer.status_code == 200, answer.text
    return answer.json()["decision"]


def test_counts_per_day_and_promotion_audit_warn_enforce(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store, {"no_curl.rego": NO_CURL}, {"hookgate": {"modes": {"no_curl": "audit"}}})
    with client_for(store) as client:
        viewer, editor = auth(tokens["viewer"]), auth(tokens["editor"])
        shown = client.get("/v1/modes", headers=viewer).json()
        assert shown == {"modes": {"no_curl": "audit"}, "guards": ["no_curl"], "days": []}
        batch = [
            record("2026-12-01T10:00:00Z", would("no_curl", "audit"), {**would("no_curl", "audit"), "pattern": "q"}),
            record("2026-12-01T23:59:00Z", would("no_curl", "audit")),
            record("2026-12-02T00:01:00Z", would("no_curl", "audit"), would("other", "warn", "ask")),
            {"decision_id": str(uuid.uuid4()), "time": "2026-12-02T01:00:00Z", "outcome": "deny"},
        ]  # fmt: skip
        uploaded = client.post(
            "/v1/decisions", json={"decisions": batch}, headers=auth(tokens["agent"])
        )
        assert uploaded.json()["accepted"] == 4
        days = client.get("/v1/modes", headers=viewer).json()["days"]
        assert days == [
            {"day": "2026-12-01", "guard": "no_curl", "mode": "audit", "would": "deny", "count": 2},
            {"day": "2026-12-02", "guard": "no_curl", "mode": "audit", "would": "deny", "count": 1},
            {"day": "2026-12-02", "guard": "other", "mode": "warn", "would": "ask", "count": 1},
        ]
        since = client.get("/v1/modes?since=2026-12-02T00:00:00Z", headers=viewer).json()["days"]
        assert [d["day"] for d in since] == ["2026-12-02", "2026-12-02"]
        assert evaluate(client, tokens["viewer"], "curl x")["outcome"] == "allow"

        # A viewer cannot promote; an editor can, one step at a time, each a revision.
        body = {"guard": "no_curl", "mode": "warn"}
        assert client.post("/v1/modes/promote", json=body, headers=viewer).status_code == 403
        warned = client.post("/v1/modes/promote", json=body, headers=editor)
        assert warned.status_code == 200, warned.text
        assert (warned.json()["was"], warned.json()["mode"]) == ("audit", "warn")
        decision = evaluate(client, tokens["viewer"], "curl x")
        assert decision["outcome"] == "allow"
        assert decision["context"][0].startswith("hookgate would deny this call (warn mode")
        enforced = client.post(
            "/v1/modes/promote", json={"guard": "no_curl", "mode": "enforce", "message": "go"},
            headers=editor,
        )  # fmt: skip
        assert enforced.status_code == 200, enforced.text
        assert evaluate(client, tokens["viewer"], "curl x")["outcome"] == "deny"
        history = client.get("/v1/data/hookgate/revisions", headers=viewer).json()["revisions"]
        assert [r["message"] for r in history][-2:] == ["promote no_curl: audit → warn", "go"]
        assert client.get("/v1/modes", headers=viewer).json()["modes"] == {"no_curl": "enforce"}

        # Not a promotion: a guard already enforced, an unknown guard.
        back = client.post("/v1/modes/promote", json=body, headers=editor)
        assert back.status_code == 422
        assert "no_curl is in enforce mode: a promotion makes it stricter" in back.text
        unknown = client.post(
            "/v1/modes/promote", json={"guard": "nope", "mode": "warn"}, headers=editor
        )
        assert unknown.status_code == 422 and "body" in unknown.text and "nope" in unknown.text
    store.engine.dispose()


def test_a_pattern_is_promoted_alone(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store, {"no_curl.rego": NO_CURL}, {"hookgate": {"modes": {"no_curl": "audit"}}})
    with client_for(store) as client:
        body = {"guard": "no_curl", "pattern": "curl", "mode": "enforce"}
        answer = client.post("/v1/modes/promote", json=body, headers=auth(tokens["editor"]))
        assert answer.status_code == 200, answer.text
        shown = client.get("/v1/modes", headers=auth(tokens["viewer"])).json()["modes"]
        assert shown == {"no_curl": "audit", "no_curl/curl": "enforce"}
        assert evaluate(client, tokens["viewer"], "curl x")["outcome"] == "deny"
    store.engine.dispose()


def recorded(command: str, outcome: str) -> dict:
    return {"decision_id": str(uuid.uuid4()), "time": "2026-12-01T10:00:00Z", "host": "claude",
            "outcome": outcome, "command": command, "input": input_document(command)}  # fmt: skip


def test_a_promotion_answers_its_impact_on_recorded_decisions(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store, {"no_curl.rego": NO_CURL}, {"hookgate": {"modes": {"no_curl": "audit"}}})
    batch = [recorded("curl a", "allow"), recorded("curl b", "allow"), recorded("ls", "allow")]
    with client_for(store) as client:
        editor = auth(tokens["editor"])
        client.post("/v1/decisions", json={"decisions": batch}, headers=auth(tokens["agent"]))
        body = {"guard": "no_curl", "mode": "enforce"}
        answer = client.post("/v1/modes/promote", json=body, headers=editor)
        assert answer.status_code == 200, answer.text
        impact = answer.json()["impact"]
        assert (impact["considered"], impact["replayed"], impact["changed"]) == (3, 3, 2)
        assert impact["transitions"] == {"allow→deny": 2}
        assert impact["by_pattern"] == {"hookgate.no_curl/curl": 2}
        assert sorted(e["command"] for e in impact["examples"]) == ["curl a", "curl b"]
        assert impact["bundle_revision"] == answer.json()["revision"]["bundle_revision"] - 1
    store.engine.dispose()


def test_the_impact_limit_and_who_sees_its_examples(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    tokens = seeded(store, {"no_curl.rego": NO_CURL}, {"hookgate": {"modes": {"no_curl": "audit"}}})
    batch = [recorded("curl a", "allow"), recorded("curl b", "allow")]
    # Editors may promote, but only the recorded role (here admin) reads recorded commands.
    with client_for(store, recorded_role="admin") as client:
        client.post("/v1/decisions", json={"decisions": batch}, headers=auth(tokens["agent"]))
        body = {"guard": "no_curl", "mode": "warn", "impact_limit": 1}
        answer = client.post("/v1/modes/promote", json=body, headers=auth(tokens["editor"]))
        assert answer.status_code == 200, answer.text
        impact = answer.json()["impact"]
        assert impact["considered"] == 1 and impact["changed"] == 0  # warn still allows
        body = {"guard": "no_curl", "mode": "enforce"}
        answer = client.post("/v1/modes/promote", json=body, headers=auth(tokens["editor"]))
        assert answer.json()["impact"]["changed"] == 2
        assert answer.json()["impact"]["examples"] == []
        too_many = client.post(
            "/v1/modes/promote",
            json={**body, "impact_limit": 10_001},
            headers=auth(tokens["admin"]),
        )
        assert too_many.status_code == 422 and "impact_limit" in too_many.text
    store.engine.dispose()


# A belt-and-braces guard: it asks about wget while no_curl is not enforced yet.
UNTIL_ENFORCED = (
    "package hookgate.until_enforced\n\nimport rego.v1\n\n"
    'ask contains {"reason": "wget while no_curl is not enforced", "pattern": "wget"} if {\n'
    '\tcontains(input.tool_input.command, "wget ")\n'
    '\tobject.get(data.hookgate.modes, "no_curl", "enforce") != "enforce"\n}\n'
)


def test_a_promotion_that_turns_recorded_asks_into_allows_is_refused(tmp_path):
    store = fresh_store("sqlite", tmp_path)
    policies = {"no_curl.rego": NO_CURL, "until.rego": UNTIL_ENFORCED}
    tokens = seeded(store, policies, {"hookgate": {"modes": {"no_curl": "warn"}}})
    with client_for(store) as client:
        editor = auth(tokens["editor"])
        assert evaluate(client, tokens["viewer"], "wget x")["outcome"] == "ask"
        batch = [recorded("wget x", "ask")]
        client.post("/v1/decisions", json={"decisions": batch}, headers=auth(tokens["agent"]))
        body = {"guard": "no_curl", "mode": "enforce"}
        refused = client.post("/v1/modes/promote", json=body, headers=editor)
        assert refused.status_code == 422
        assert "would turn 1 recorded decisions into allows (ask→allow: 1)" in refused.text
        history = client.get("/v1/data/hookgate/revisions", headers=editor).json()["revisions"]
        assert len(history) == 1  # nothing written
        assert client.get("/v1/modes", headers=editor).json()["modes"] == {"no_curl": "warn"}
    store.engine.dispose()
