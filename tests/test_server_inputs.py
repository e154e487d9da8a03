"""Bad input gets a 4xx naming the field, never a 500; authentication comes before the body;
tokens never travel (or get logged) in URLs; decision records belong to the token that
uploaded them, within its quota."""

from __future__ import annotations

import logging
import uuid

import pytest
from server_support import (
    NO_VERIFY,
    auth,
    client_fixture,
    client_for,
    store_fixture,
    tokens_fixture,
)

REASON_WITH_SURROGATE = """package hookgate.sur

import rego.v1

deny contains "bad \\ud800 reason" if {
\tinput.tool_name == "Bash"
}
"""


def _big_int_policy(digits: int) -> str:
    return (
        "package hookgate.big\n\nimport rego.v1\n\n"
        f'deny contains "x" if {{\n\tinput.n == {"7" * digits}\n}}\n'
    )


store = store_fixture()


tokens = tokens_fixture()


client = client_fixture(max_body_bytes=64 * 1024)


def _fields(response) -> list[str]:
    return [item["field"] for item in response.json()["detail"]]


def _record(**fields) -> dict:
    return {"decision_id": str(uuid.uuid4()), "time": "2026-01-01T00:00:00Z", "outcome": "deny"} | (
        fields
    )


@pytest.mark.parametrize(
    ("facts", "field"),
    [
        ([1], "body.facts"),
        ("main", "body.facts"),
        ({"git.branch": "main"}, "body.facts.git.branch"),
        ({"git.branch": [1, 2]}, "body.facts.git.branch"),
    ],
)
def test_facts_that_are_not_objects_are_named(client, tokens, facts, field):
    body = {"payload": NO_VERIFY, "facts": facts}
    r = client.post("/v1/evaluate", json=body, headers=auth(tokens["viewer"]))
    assert r.status_code == 422 and _fields(r) == [field]


@pytest.mark.parametrize(
    "time", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "9999-12-31T23:59:59Z"]
)
def test_upload_times_near_the_date_limits_are_named(client, tokens, time):
    body = {"decisions": [_record(), _record(time=time)]}
    r = client.post("/v1/decisions", json=body, headers=auth(tokens["agent"]))
    assert r.status_code == 422 and _fields(r) == ["body.decisions.1.time"]


@pytest.mark.parametrize("param", ["since", "until"])
@pytest.mark.parametrize("time", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_query_times_near_the_date_limits_are_named(client, tokens, param, time):
    r = client.get("/v1/decisions", params={param: time}, headers=auth(tokens["viewer"]))
    assert r.status_code == 422 and _fields(r) == [f"query.{param}"]


def test_the_earliest_time_in_utc_is_still_accepted_and_read_back(client, tokens):
    body = {"decisions": [_record(time="0001-01-01T00:00:00Z")]}
    assert client.post("/v1/decisions", json=body, headers=auth(tokens["agent"])).status_code == 200
    page = client.get("/v1/decisions", params={"until": "0001-01-02T00:00:00Z"},
                      headers=auth(tokens["viewer"]))  # fmt: skip
    assert [d["time"][:4] for d in page.json()["decisions"]] == ["0001"]


def test_integer_literals_over_4300_digits_are_a_diagnostic_not_a_500(client, tokens):
    policy = _big_int_policy(5000)
    r = client.put("/v1/policies/big.rego", content=policy, headers=auth(tokens["editor"]))
    assert r.status_code == 422
    (diagnostic,) = r.json()["diagnostics"]
    assert (diagnostic["file"], diagnostic["line"], diagnostic["col"]) == ("big.rego", 6, 13)
    check = client.post("/v1/check", json={"policies": {"big.rego": policy}},
                        headers=auth(tokens["viewer"]))  # fmt: skip
    assert check.status_code == 200, check.text
    assert "too big" in check.json()["diagnostics"][0]["text"]
    # 4300 digits is still a number Python reads: compiled (it just never equals the input).
    fine = client.put("/v1/policies/big.rego", content=_big_int_policy(4300),
                      headers=auth(tokens["editor"]))  # fmt: skip
    assert fine.status_code == 201


def test_a_reason_with_a_lone_surrogate_is_refused_at_write_and_in_drafts(client, tokens):
    r = client.put("/v1/policies/sur.rego", content=REASON_WITH_SURROGATE,
                   headers=auth(tokens["editor"]))  # fmt: skip
    assert r.status_code == 422
    assert "lone surrogate" in r.json()["diagnostics"][0]["text"]
    body = {"payload": NO_VERIFY, "policies": {"sur.rego": REASON_WITH_SURROGATE}}
    draft = client.post("/v1/evaluate", json=body, headers=auth(tokens["viewer"]))
    assert draft.status_code == 422
    assert client.post("/v1/evaluate", json={"payload": NO_VERIFY},
                       headers=auth(tokens["viewer"])).status_code == 200  # fmt: skip


def test_a_lone_surrogate_in_a_payload_is_answered_not_a_500(client, tokens):
    echo = (
        "package hookgate.echo\n\nimport rego.v1\n\n"
        'deny contains sprintf("no: %s", [input.tool_input.command]) if input.tool_name == "Bash"\n'
    )
    payload = '{"tool_name": "Bash", "tool_input": {"command": "a\\ud800b"}, "cwd": "/r"}'
    body = '{"payload": ' + payload + ', "policies": {"echo.rego": ' + _json(echo) + "}}"
    r = client.post("/v1/evaluate", content=body, headers=auth(tokens["viewer"]) | {
        "Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200
    assert r.json()["decision"]["reasons"][0].startswith("no: a\ufffdb")


def _json(value: object) -> str:
    import json

    return json.dumps(value)


@pytest.mark.parametrize("depth", [300, 600, 900])
def test_deeply_nested_data_is_refused_at_write_and_the_bundle_stays_readable(
    client, tokens, depth
):
    document = '{"a": ' + "[" * depth + "]" * depth + "}"
    r = client.put("/v1/data/deep", content=document, headers=auth(tokens["editor"]))
    assert r.status_code == 422 and _fields(r) == ["body"]
    draft = {"payload": NO_VERIFY, "data": {"deep": {"a": _nested(depth)}}}
    r = client.post("/v1/evaluate", json=draft, headers=auth(tokens["viewer"]))
    assert r.status_code == 422
    assert client.get("/v1/bundle", headers=auth(tokens["agent"])).status_code == 200


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_data_with_a_lone_surrogate_is_refused(client, tokens):
    r = client.put("/v1/data/s", content='{"a": "\\ud800"}', headers=auth(tokens["editor"]))
    assert r.status_code == 422 and _fields(r) == ["body"]
    record = _record(command="x\ud800")
    body = '{"decisions": [' + _json(record) + "]}"
    r = client.post("/v1/decisions", content=body, headers=auth(tokens["agent"]) | {
        "Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 422 and _fields(r) == ["body.decisions.0.command"]


# -- authentication before the body ----------------------------------------------------------


def test_no_token_is_refused_before_the_body_is_parsed_or_read(client):
    r = client.post("/v1/evaluate", content=b"{not json",
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer"
    # Larger than the limit: still 401, as the body is never read.
    big = client.post("/v1/decisions", content=b"x" * 200_000,
                      headers={"Authorization": "Bearer hg_unknown"})  # fmt: skip
    assert big.status_code == 401


def test_the_body_is_read_only_after_authentication():
    """At the ASGI level: with no or a wrong token, the app never calls receive()."""
    import asyncio

    from hookgate.masking import Masker
    from hookgate.server.gate import Gate
    from hookgate.server.metrics import Metrics

    store = _NoTokens()
    reads = []

    async def receive():
        reads.append(1)
        return {"type": "http.request", "body": b"{}", "more_body": False}

    sent = []

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):
        raise AssertionError("no route is reached")

    gate = Gate(app, store, 1024, Metrics(), Masker(), False)
    for headers in ([], [(b"authorization", b"Bearer hg_nope")]):
        scope = {"type": "http", "method": "POST", "path": "/v1/decisions", "headers": headers,
                 "query_string": b""}  # fmt: skip
        asyncio.run(gate(scope, receive, send))
    assert reads == []
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [401, 401]


class _NoTokens:
    def cached_principal(self, token):
        return None

    def authenticate(self, token):
        return None


@pytest.fixture
def caplog(caplog, monkeypatch):
    # An in-process server an earlier test ran (serve's take_over_access_log) stops the access
    # logger from propagating to the root logger, where caplog listens.
    monkeypatch.setattr(logging.getLogger("hookgate.access"), "propagate", True)
    monkeypatch.setattr(logging.getLogger("hookgate.access"), "disabled", False)
    return caplog


@pytest.mark.parametrize("query", ["access_token={t}", "x=1&token={t}", "api_key=abc", "q={t}"])
def test_tokens_in_query_strings_are_refused_and_never_logged(store, tokens, caplog, query):
    token = tokens["agent"]
    url = "/v1/bundle?" + query.format(t=token)
    with (
        client_for(store, access_log=True) as client,
        caplog.at_level(logging.INFO, logger="hookgate.access"),
    ):
        r = client.get(url, headers=auth(token))
    assert r.status_code == 400 and _fields(r)[0].startswith("query.")
    logged = _access_log(caplog)
    assert token not in logged and "/v1/bundle?" in logged and "abc" not in logged


def _access_log(caplog) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "hookgate.access")


def test_a_sign_in_callback_s_code_and_state_are_not_logged(store, caplog):
    with (
        client_for(store, access_log=True) as client,
        caplog.at_level(logging.INFO, logger="hookgate.access"),
    ):
        client.get("/console/oidc/callback?code=SECRETCODE&State=S3&iss=https%3A%2F%2Fidp")
    logged = _access_log(caplog)
    assert "SECRETCODE" not in logged and "S3" not in logged
    assert "/console/oidc/callback?code=***&State=***&iss=https%3A%2F%2Fidp" in logged


def test_an_ordinary_query_is_logged_as_sent(store, tokens, caplog):
    with (
        client_for(store, access_log=True) as client,
        caplog.at_level(logging.INFO, logger="hookgate.access"),
    ):
        r = client.get("/v1/decisions?outcome=deny&limit=5", headers=auth(tokens["viewer"]))
    assert r.status_code == 200
    assert '"GET /v1/decisions?outcome=deny&limit=5 HTTP/1.1" 200' in _access_log(caplog)


# -- decision records belong to their uploader -----------------------------------------------


def test_records_are_bound_to_the_uploading_token_and_filterable(client, store, tokens):
    other = store.create_token("agent", "other-agent")
    ids = {t["name"]: t["id"] for t in store.list_tokens()}
    for token in (tokens["agent"], other):
        body = {"decisions": [_record(session_id="same")]}
        assert client.post("/v1/decisions", json=body, headers=auth(token)).status_code == 200
    viewer = auth(tokens["viewer"])
    everyone = client.get("/v1/decisions?session_id=same", headers=viewer).json()["decisions"]
    assert {(d["uploaded_by"], d["token_id"]) for d in everyone} == {
        ("test-agent", ids["test-agent"]),
        ("other-agent", ids["other-agent"]),
    }
    mine = client.get(f"/v1/decisions?token_id={ids['other-agent']}", headers=viewer).json()
    assert [d["uploaded_by"] for d in mine["decisions"]] == ["other-agent"]


def test_records_from_the_future_or_of_unknown_revisions_are_refused(client, tokens):
    agent = auth(tokens["agent"])
    future = {"decisions": [_record(time="2999-01-01T00:00:00Z")]}
    r = client.post("/v1/decisions", json=future, headers=agent)
    assert r.status_code == 422 and _fields(r) == ["body.decisions.0.time"]
    ahead = {"decisions": [_record(bundle_revision=1), _record(bundle_revision=99)]}
    r = client.post("/v1/decisions", json=ahead, headers=agent)
    assert r.status_code == 422 and _fields(r) == ["body.decisions.1.bundle_revision"]
    assert client.get("/v1/decisions", headers=auth(tokens["viewer"])).json()["decisions"] == []


def test_each_token_has_an_hourly_quota_shared_through_the_database(store, tokens):
    agent = auth(tokens["agent"])
    batch = lambda n: {"decisions": [_record() for _ in range(n)]}  # noqa: E731
    with client_for(store, decision_quota=5) as one, client_for(store, decision_quota=5) as two:
        assert one.post("/v1/decisions", json=batch(3), headers=agent).status_code == 200
        refused = two.post("/v1/decisions", json=batch(3), headers=agent)
        assert refused.status_code == 429
        assert 0 < int(refused.headers["Retry-After"]) <= 3600
        assert two.post("/v1/decisions", json=batch(2), headers=agent).status_code == 200
        other = auth(tokens["admin"])  # another token has its own count
        assert one.post("/v1/decisions", json=batch(5), headers=other).status_code == 200
        stored = one.get("/v1/decisions?limit=500", headers=auth(tokens["viewer"])).json()
    assert len(stored["decisions"]) == 10
