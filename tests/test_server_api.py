"""The server's HTTP API through TestClient, on SQLite with the real engine."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from server_support import (
    BROKEN,
    GUARD,
    GUARD_V2,
    NO_VERIFY,
    auth,
    client_fixture,
    client_for,
    fresh_store,
    store_fixture,
    tokens_fixture,
)

from hookgate.bundle_format import BundleError, verify
from hookgate.server.compilation import compile_set
from hookgate.server.store import Store, make_engine

store = store_fixture()


tokens = tokens_fixture()


client = client_fixture(max_body_bytes=64 * 1024)


def editor(tokens, **headers):
    return auth(tokens["editor"]) | headers


# -- policies and data ------------------------------------------------------------------------


def test_policy_lifecycle_with_etags(client, tokens):
    h = auth(tokens["editor"])
    got = client.get("/v1/policies/git_hooks.rego", headers=h)
    assert got.status_code == 200 and got.json()["content"] == GUARD
    etag = got.headers["etag"]
    assert got.json()["etag"] == etag

    missing = client.put("/v1/policies/git_hooks.rego", content=GUARD_V2, headers=h)
    assert missing.status_code == 428 and "If-Match" in missing.json()["detail"]
    changed = client.put(
        "/v1/policies/git_hooks.rego?message=reword",
        content=GUARD_V2,
        headers=h | {"If-Match": etag, "Content-Type": "text/plain"},
    )
    assert changed.status_code == 200
    body = changed.json()
    assert (body["revision"], body["author"], body["message"]) == (2, "test-editor", "reword")
    assert body["content_hash"].startswith("sha256:") and body["bundle_revision"] == 2
    stale = client.put("/v1/policies/git_hooks.rego", content=GUARD, headers=h | {"If-Match": etag})
    assert stale.status_code == 412

    created = client.put(
        "/v1/policies/extra.rego", content=GUARD.replace("git_hooks", "x"), headers=h
    )
    assert created.status_code == 201
    listed = client.get("/v1/policies", headers=h).json()["revisions"]
    assert [p["id"] for p in listed] == ["extra.rego", "git_hooks.rego"]

    history = client.get("/v1/policies/git_hooks.rego/revisions", headers=h).json()["revisions"]
    assert [r["content"] for r in history] == [GUARD, GUARD_V2]
    assert (
        client.get("/v1/policies/git_hooks.rego/revisions/1", headers=h).json()["content"] == GUARD
    )

    current = client.get("/v1/policies/git_hooks.rego", headers=h).headers["etag"]
    rolled = client.post(
        "/v1/policies/git_hooks.rego/rollback",
        json={"revision": 1},
        headers=h | {"If-Match": current},
    )
    assert rolled.status_code == 200 and rolled.json()["op"] == "rollback"
    assert client.get("/v1/policies/git_hooks.rego", headers=h).json()["content"] == GUARD

    etag = client.get("/v1/policies/extra.rego", headers=h).headers["etag"]
    deleted = client.delete("/v1/policies/extra.rego", headers=h | {"If-Match": etag})
    assert deleted.status_code == 200 and deleted.json()["op"] == "delete"
    assert client.get("/v1/policies/extra.rego", headers=h).status_code == 404


def test_a_breaking_change_gets_422_with_file_line_col_diagnostics(client, tokens):
    before = client.get("/v1/bundle", headers=auth(tokens["agent"])).json()
    refused = client.put("/v1/policies/broken.rego", content=BROKEN, headers=editor(tokens))
    assert refused.status_code == 422
    diagnostics = refused.json()["diagnostics"]
    assert diagnostics and diagnostics[0]["file"] == "broken.rego"
    assert diagnostics[0]["text"].startswith(f"broken.rego:{diagnostics[0]['line']}:")
    after = client.get("/v1/bundle", headers=auth(tokens["agent"])).json()
    assert after == before  # the active set is never broken


def test_data_documents_reach_the_bundle_and_invalid_paths_are_named(client, tokens):
    h = editor(tokens)
    put = client.put("/v1/data/hookgate/git", json={"protected_branches": ["main"]}, headers=h)
    assert put.status_code == 201
    bundle = client.get("/v1/bundle", headers=auth(tokens["agent"])).json()
    assert bundle["data"] == {"hookgate": {"git": {"protected_branches": ["main"]}}}
    assert client.get("/v1/data/hookgate/git/revisions", headers=h).json()["revisions"][0][
        "content"
    ] == {"protected_branches": ["main"]}
    bad = client.put("/v1/data/hookgate/not-an-identifier", json=1, headers=h)
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "path.path"
    invalid = client.put("/v1/data/hookgate/x", content=b"{nope", headers=h)
    assert invalid.status_code == 422 and invalid.json()["detail"][0]["field"] == "body"
    deep = client.put("/v1/data/hookgate/x", content="[" * 30_000 + "]" * 30_000, headers=h)
    assert deep.status_code == 422 and "deep" in deep.json()["detail"][0]["msg"]


@pytest.mark.parametrize("number", ["NaN", "-Infinity", "1e400"])
def test_numbers_json_cannot_write_back_are_refused_and_the_bundle_keeps_serving(
    client, tokens, number
):
    # Starlette's parser reads them (as NaN and infinities); stored, they made every bundle
    # request fail with 500, and in a dry-run the answer could not be written.
    h = editor(tokens)
    put = client.put("/v1/data/hookgate/x", content=f'{{"n": [1, {number}]}}', headers=h)
    assert put.status_code == 422 and "Number out of range" in put.json()["detail"][0]["msg"]
    assert client.get("/v1/bundle", headers=auth(tokens["agent"])).status_code == 200
    payload = '{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
    for field in ("data", "facts"):
        body = f'{{"payload": {payload}, "{field}": {{"a": {{"b": {number}}}}}}}'
        answer = client.post(
            "/v1/evaluate",
            content=body,
            headers=auth(tokens["viewer"]) | {"content-type": "application/json"},
        )
        assert answer.status_code == 422
        assert answer.json()["detail"][0]["field"] == f"body.{field}"
        assert "number out of range" in answer.json()["detail"][0]["msg"]
    check = client.post(
        "/v1/check",
        content=f'{{"policies": {{}}, "data": {{"a": {number}}}}}',
        headers=auth(tokens["viewer"]) | {"content-type": "application/json"},
    )
    assert check.status_code == 422 and check.json()["detail"][0]["field"] == "body.data"


def test_validation_errors_name_the_field_and_never_echo_the_input(client, tokens):
    secret = "ghp_" + "s3cr3t" * 6
    bad = client.post(
        "/v1/decisions",
        json={"decisions": [{"decision_id": secret, "time": "x", "outcome": "maybe"}]},
        headers=auth(tokens["agent"]),
    )
    assert bad.status_code == 422
    fields = {item["field"] for item in bad.json()["detail"]}
    assert {"body.decisions.0.decision_id", "body.decisions.0.outcome"} <= fields
    assert secret not in bad.text


# -- dry-runs ---------------------------------------------------------------------------------


def test_evaluate_answers_decision_host_response_trace_and_time(client, tokens):
    r = client.post(
        "/v1/evaluate",
        json={"payload": NO_VERIFY, "host": "claude"},
        headers=auth(tokens["viewer"]),
    )
    assert r.status_code == 200
    body = r.json()
    assert body["decision"]["outcome"] == "deny"
    assert body["decision"]["matches"][0]["pattern"] == "no-verify"
    output = body["response"]["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "Do not skip git hooks." in output["permissionDecisionReason"]
    assert any(rule["defined"] for rule in body["explain"])
    assert body["took_ms"] >= 0 and body["bundle_revision"] == 1 and body["draft"] is False


def test_evaluate_renders_for_the_requested_host(client, tokens):
    payload = {"toolName": "bash", "toolArgs": json.dumps({"command": "git commit --no-verify"})}
    body = client.post(
        "/v1/evaluate", json={"payload": payload, "host": "copilot"}, headers=auth(tokens["viewer"])
    ).json()
    assert body["host"] == "copilot"
    assert body["response"]["permissionDecision"] == "deny"


def test_draft_policies_override_for_one_request_only(client, tokens):
    h = auth(tokens["viewer"])
    draft = {"payload": NO_VERIFY, "policies": {"git_hooks.rego": GUARD_V2}}
    body = client.post("/v1/evaluate", json=draft, headers=h).json()
    assert body["draft"] is True
    assert "Git hooks must run." in body["decision"]["reasons"][0]
    removed = client.post(
        "/v1/evaluate", json={"payload": NO_VERIFY, "policies": {"git_hooks.rego": None}}, headers=h
    ).json()
    assert removed["decision"]["outcome"] == "allow"
    again = client.post("/v1/evaluate", json={"payload": NO_VERIFY}, headers=h).json()
    assert "Do not skip git hooks." in again["decision"]["reasons"][0]
    broken = client.post(
        "/v1/evaluate", json={"payload": NO_VERIFY, "policies": {"b.rego": BROKEN}}, headers=h
    )
    assert broken.status_code == 422 and broken.json()["diagnostics"][0]["file"] == "b.rego"


def test_draft_data_and_print_output(client, tokens):
    policy = (
        "package hookgate.branches\n\nimport rego.v1\n\n"
        'deny contains "protected" if {\n'
        '\tprint("checking", input.tool_input.command)\n'
        "\tsome b in data.settings.branches.protected\n"
        "\tcontains(input.tool_input.command, b)\n}\n"
    )
    request = {
        "payload": {"tool_name": "Bash", "tool_input": {"command": "git push origin main"}},
        "policies": {"branches.rego": policy},
        "data": {"settings/branches": {"protected": ["main"]}},
    }
    body = client.post("/v1/evaluate", json=request, headers=auth(tokens["viewer"])).json()
    assert body["decision"]["outcome"] == "deny"
    assert any("checking" in line for line in body["prints"])


def test_facts_answer_host_builtins_and_the_server_disk_is_never_read(client, tokens, tmp_path):
    # The directory is a repository on main on the server's disk; only the facts may say so.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    policy = (
        "package hookgate.branch\n\nimport rego.v1\n\n"
        'deny contains "on main" if git.branch(input.cwd) == "main"\n'
    )
    payload = {"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(tmp_path)}
    h = auth(tokens["viewer"])
    request = {"payload": payload, "policies": {"branch.rego": policy}}
    without = client.post("/v1/evaluate", json=request, headers=h).json()
    assert without["decision"]["outcome"] == "allow"
    facts = {"git.branch": {str(tmp_path): "main"}}
    with_facts = client.post("/v1/evaluate", json=request | {"facts": facts}, headers=h).json()
    assert with_facts["decision"]["outcome"] == "deny"


def test_every_openapi_example_gets_a_decision_from_the_default_pack(tmp_path):
    store = fresh_store("sqlite", tmp_path / "default")
    admin = store.seed({}, {}, validate=compile_set, base=True)
    with client_for(store) as client:
        spec = client.get("/openapi.json").json()
        operation = spec["paths"]["/v1/evaluate"]["post"]
        examples = operation["requestBody"]["content"]["application/json"]["examples"]
        assert {"claude-no-verify-commit", "copilot-force-push", "codex-rm-rf"} <= set(examples)
        for name, example in examples.items():
            r = client.post("/v1/evaluate", json=example["value"], headers=auth(admin))
            assert r.status_code == 200, name
            body = r.json()
            assert body["decision"]["errors"] == [], name
            assert body["decision"]["outcome"] in ("deny", "rewrite"), name
            assert body["host"] == example["value"]["host"]
    store.engine.dispose()


def test_the_seed_is_an_empty_team_layer_over_the_pack_as_a_publish_stores_it(tmp_path):
    # Issue 31: one shape, so that publishing a copy (or an export) of the pack changes nothing.
    from hookgate import layers
    from hookgate.server.changesets import team_layer
    from hookgate.sources import default_pack_path, directory_documents

    store = fresh_store("sqlite", tmp_path / "default")
    store.seed({}, {}, validate=compile_set, base=True)
    active = store.active_set()
    assert (active.layer, active.documents, active.base) == ({}, {}, layers.base_version())
    policies, documents = directory_documents(default_pack_path())
    assert "force_push_test.rego" in active.policies  # the pack's tests go along, as ever
    assert active.policies == policies
    assert active.data == layers.place_documents(documents)
    assert team_layer(policies, documents, replace_base=False) == ({}, {})
    store.engine.dispose()


def test_check_reports_diagnostics_for_a_draft(client, tokens):
    h = auth(tokens["viewer"])
    ok = client.post("/v1/check", json={"policies": {"a.rego": GUARD_V2}}, headers=h).json()
    assert ok == {"ok": True, "diagnostics": []}
    bad = client.post("/v1/check", json={"policies": {"b.rego": BROKEN}}, headers=h).json()
    assert bad["ok"] is False and bad["diagnostics"][0]["file"] == "b.rego"


# -- bundles ----------------------------------------------------------------------------------


def test_bundle_is_signed_verifiable_and_cheap_to_poll(client, tokens):
    h = auth(tokens["agent"])
    r = client.get("/v1/bundle", headers=h)
    bundle = r.json()
    key = client.get("/v1/bundle/key", headers=h).json()
    assert key["algorithm"] == "ed25519" and len(base64.b64decode(key["public_key"])) == 32
    verify(bundle, key["public_key"])
    assert r.headers["etag"] == f'"{bundle["digest"]}"'
    assert bundle["policies"] == {"git_hooks.rego": GUARD} and bundle["revision"] == 1
    assert (
        client.get("/v1/bundle", headers=h | {"If-None-Match": r.headers["etag"]}).status_code
        == 304
    )

    tampered = json.loads(json.dumps(bundle))
    tampered["policies"]["git_hooks.rego"] = "package hookgate.nothing\n"
    with pytest.raises(BundleError, match="digest"):
        verify(tampered, key["public_key"])

    etag = client.get("/v1/policies/git_hooks.rego", headers=editor(tokens)).headers["etag"]
    client.put(
        "/v1/policies/git_hooks.rego",
        content=GUARD_V2,
        headers=editor(tokens, **{"If-Match": etag}),
    )
    moved = client.get("/v1/bundle", headers=h | {"If-None-Match": r.headers["etag"]})
    assert moved.status_code == 200 and moved.json()["revision"] == 2
    verify(moved.json(), key["public_key"])


# -- decision logs ----------------------------------------------------------------------------


def test_decision_upload_is_idempotent_masked_and_filterable(client, tokens):
    record = {
        "decision_id": str(uuid.uuid4()),
        "time": "2026-12-01T10:00:00Z",
        "host": "claude",
        "event": "PreToolUse",
        "session_id": "s1",
        "tool_name": "Bash",
        "outcome": "deny",
        "matches": [{"pack": "git", "pattern": "force-push", "rule": "deny"}],
        "bundle_revision": 1,
        "command": "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz012345 git push --force",
    }
    h = auth(tokens["agent"])
    first = client.post("/v1/decisions", json={"decisions": [record]}, headers=h)
    assert first.json() == {"accepted": 1, "duplicates": 0}
    again = client.post("/v1/decisions", json={"decisions": [record]}, headers=h)
    assert again.json() == {"accepted": 0, "duplicates": 1}
    page = client.get("/v1/decisions?pack=git&outcome=deny", headers=auth(tokens["viewer"])).json()
    assert len(page["decisions"]) == 1 and page["next_cursor"] is None
    stored = page["decisions"][0]
    assert "ghp_" not in stored["command"] and stored["command"].endswith("git push --force")
    assert stored["uploaded_by"] == "test-agent"
    none = client.get("/v1/decisions?host=codex", headers=auth(tokens["viewer"])).json()
    assert none["decisions"] == []


def test_decision_pages_are_newest_first_by_time_through_their_cursor(client, tokens):
    """Records arrive out of time order (a hook uploads late); pages follow decision time,
    and a cursor this server did not make is a 422 naming it."""
    minutes = [30, 5, 50, 10, 40, 20, 0]  # the arrival order
    records = [
        {
            "decision_id": str(uuid.UUID(int=1000 + n)),
            "time": f"2026-12-01T10:{n:02d}:00Z",
            "outcome": "deny",
            "matches": [{"pack": "git", "pattern": "force-push", "rule": "deny"}],
        }
        for n in minutes
    ]
    client.post("/v1/decisions", json={"decisions": records}, headers=auth(tokens["agent"]))
    seen, cursor = [], None
    while True:
        query = "/v1/decisions?pack=git&limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = client.get(query, headers=auth(tokens["viewer"])).json()
        seen += [d["time"][11:16] for d in page["decisions"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"10:{n:02d}" for n in sorted(minutes, reverse=True)]
    for bad in ("12", "x_1", "999999999999999999_1"):
        refused = client.get(f"/v1/decisions?cursor={bad}", headers=auth(tokens["viewer"]))
        assert refused.status_code == 422, bad
        assert "query.cursor" in {i["field"] for i in refused.json()["detail"]}


# -- limits, health, metrics ------------------------------------------------------------------


def test_oversized_bodies_get_413_before_any_handler(client, tokens):
    big = {"payload": {"tool_name": "Bash", "tool_input": {"command": "x" * 70_000}}}
    r = client.post("/v1/evaluate", json=big, headers=auth(tokens["viewer"]))
    assert r.status_code == 413
    chunked = client.post(
        "/v1/evaluate", content=iter([b"{" + b" " * 40_000, b" " * 40_000 + b"}"]),
        headers=auth(tokens["viewer"]),
    )  # fmt: skip
    assert chunked.status_code == 413


def test_health_ready_and_metrics(client, tokens):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").status_code == 200
    client.post("/v1/evaluate", json={"payload": NO_VERIFY}, headers=auth(tokens["viewer"]))
    text = client.get("/metrics").text
    assert 'hookgate_decisions_total{outcome="deny",source="evaluate"} 1' in text
    assert 'hookgate_http_requests_total{method="POST",route="/v1/evaluate",status="200"} 1' in text
    assert "hookgate_evaluation_seconds_count 1" in text
    assert 'hookgate_evaluation_seconds_bucket{le="+Inf"} 1' in text
    client.request("BREW", "/no/such/thing")
    text = client.get("/metrics").text
    assert 'method="other",route="unmatched"' in text and "BREW" not in text


def test_database_unreachable_means_not_ready_and_503(tmp_path):
    # Port 1 on loopback: nothing listens, so every connection is refused at once.
    store = Store(make_engine("postgresql+psycopg://nobody:x@127.0.0.1:1/none?connect_timeout=2"))
    with client_for(store) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503 and "database" in ready.json()["detail"]
        r = client.post("/v1/evaluate", json={"payload": NO_VERIFY}, headers=auth("hg_x"))
        assert r.status_code == 503


def test_wrong_methods_get_405_listing_every_allowed_method(client, tokens):
    h = editor(tokens)
    r = client.post("/v1/policies/git_hooks.rego", headers=h)
    assert r.status_code == 405
    assert set(r.headers["allow"].split(", ")) == {"GET", "PUT", "DELETE"}
    route_word = client.put("/v1/data/hookgate/revisions", headers=h)  # no body: never read
    assert route_word.status_code == 405 and route_word.headers["allow"] == "GET"
    empty = client.put("/v1/policies/empty.rego", content=b"", headers=h)
    assert empty.status_code == 422 and empty.json()["detail"][0]["msg"] == "policy text is empty"
